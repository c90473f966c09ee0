// Table names as HBase and presplit's ZooKeeper documents spell them: validation, the split into
// namespace and qualifier, and the canonical "namespace:qualifier" form that names a table's
// znodes (<root>/tables/<ns>:<table>, <root>/status/<ns>:<table>). The parser, the daemon and
// presplitctl share these so a table has one name everywhere.
#pragma once

#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit {

// The namespace a name without "namespace:" belongs to, as in HBase.
inline constexpr std::string_view kDefaultNamespace = "default";

// HBase's TableName rules: "[namespace:]qualifier"; the namespace is [A-Za-z0-9_]+ and must not be
// "hbase" (reserved for HBase's system tables); the qualifier is [A-Za-z0-9_.-]+, does not start
// with '.' or '-', and is not "zookeeper"; each part at most 255 characters. (HBase also takes
// non-ASCII letters and digits; presplit keeps names ASCII.) The error is an InvalidArgument that
// starts with "invalid table name '<name>': " and says which rule failed.
Status ValidateTableName(std::string_view name);

struct TableNameParts {
  std::string namespace_name;  // kDefaultNamespace when the name has none
  std::string qualifier;
};

// Validates `name` (as ValidateTableName) and splits it at the ':'.
Result<TableNameParts> SplitTableName(std::string_view name);

// The name a table's znodes use: "ns:qualifier" ("t" becomes "default:t"; a name that already
// has a namespace is returned as it is). Does not validate: a caller that needs a valid name
// checks it with ValidateTableName, and a document's name is checked by ParseTableConfig.
std::string CanonicalTableName(std::string_view name);

}  // namespace presplit
