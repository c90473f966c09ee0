# Finds the multi-threaded ZooKeeper C client (Debian: libzookeeper-mt-dev), which ships no
# CMake or pkg-config files. Defines the imported target ZooKeeper::zookeeper_mt.
find_path(ZooKeeperMt_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(ZooKeeperMt_LIBRARY NAMES zookeeper_mt)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ZooKeeperMt REQUIRED_VARS ZooKeeperMt_LIBRARY ZooKeeperMt_INCLUDE_DIR)

if(ZooKeeperMt_FOUND AND NOT TARGET ZooKeeper::zookeeper_mt)
  add_library(ZooKeeper::zookeeper_mt UNKNOWN IMPORTED)
  set_target_properties(ZooKeeper::zookeeper_mt PROPERTIES
    IMPORTED_LOCATION "${ZooKeeperMt_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZooKeeperMt_INCLUDE_DIR}/zookeeper"
    INTERFACE_COMPILE_DEFINITIONS "THREADED")
endif()
mark_as_advanced(ZooKeeperMt_INCLUDE_DIR ZooKeeperMt_LIBRARY)
