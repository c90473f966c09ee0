# presplit on HBase 2.6: add to conf/hbase-env.sh on every HMaster and RegionServer.
# PRESPLIT_HOME is where presplit-hbase.jar and libpresplit_jni.so are installed.
# The jar also carries the library for linux-x86_64 (extracted to a temporary file when it is not
# found on java.library.path); the explicit path below is preferred in production.
export PRESPLIT_HOME=${PRESPLIT_HOME:-/opt/presplit}
export HBASE_CLASSPATH="${HBASE_CLASSPATH:+$HBASE_CLASSPATH:}$PRESPLIT_HOME/lib/presplit-hbase.jar"
export HBASE_OPTS="$HBASE_OPTS -Djava.library.path=$PRESPLIT_HOME/lib"
