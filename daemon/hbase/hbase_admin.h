// The daemon's view of HBase: the Admin operations reconciliation needs, behind an interface so
// the reconcile logic is plain code tested with a fake. The production implementation
// (JniHBaseAdmin) calls AdminBridge in presplit-hbase.jar through an embedded JVM.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "presplit/status.h"
#include "presplit/table_config.h"

namespace presplit::daemon {

struct RegionInfo {
  std::string name;       // encoded region name
  std::string start_key;  // raw bytes
  std::string end_key;    // raw bytes
  std::string server;     // "host,port,startcode" or empty when unassigned
};

// A table as the cluster reports it.
struct TableDescription {
  bool exists = false;
  std::string table;  // "ns:qualifier"
  bool enabled = false;
  std::vector<FamilyConfig> families;
  std::map<std::string, std::string> attributes;
  std::vector<RegionInfo> regions;      // sorted by start key
  std::vector<std::string> split_keys;  // raw start keys of every region but the first
};

// What to create: the table's families and attributes, and its split keys.
struct TableSpec {
  std::string table;  // "ns:qualifier"
  std::vector<FamilyConfig> families;
  std::map<std::string, std::string> attributes;
  std::vector<std::string> split_keys;  // raw bytes, validated
};

class HBaseAdmin {
 public:
  virtual ~HBaseAdmin() = default;
  // The table as the cluster sees it; exists == false when there is no such table.
  virtual Result<TableDescription> DescribeTable(const std::string& table) = 0;
  // Creates the table (and its namespace when missing) pre-split and returns once its regions
  // are online. AlreadyExists when the table is there. Errors from HBase carry the Java
  // exception's class, message and root cause.
  virtual Status CreateTable(const TableSpec& spec) = 0;
  // Disables the table (NotFound when there is none; OK when already disabled). Only the
  // re-salt migration retires tables, and only the generation it replaced.
  virtual Status DisableTable(const std::string& table) {
    return Status::Internal("DisableTable is not supported here: " + table);
  }
  // Disables and deletes the table (NotFound when there is none). Used by a migration for its
  // own target (abort) and for the old generation it replaced (drop_old, after a final check).
  virtual Status DeleteTable(const std::string& table) {
    return Status::Internal("DeleteTable is not supported here: " + table);
  }
};

// The JSON shapes shared with AdminBridge (java-shim): a TableSpec without its split keys, and
// the description AdminBridge.describeTable returns.
std::string TableSpecToBridgeJson(const TableSpec& spec);
Result<TableDescription> ParseBridgeDescription(const std::string& json);

// Differences between what a config asks for and what exists, one human-readable line each
// ("family 'f': compression is NONE, config asks for SNAPPY"). Empty when they match.
std::vector<std::string> CompareTable(const TableSpec& wanted, const TableDescription& actual);

}  // namespace presplit::daemon
