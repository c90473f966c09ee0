// The canonical form of a table document: what presplitd writes into a table's status (and
// compares a document against) and what `presplitctl get` shows. It makes two documents that
// mean the same table byte-for-byte equal.
#pragma once

#include <string>

#include "presplit/table_config.h"

namespace presplit {

// The canonical form of a config: every default filled in (salt width resolved, the
// algorithm's default rows written out), fields in a fixed order, two-space indentation, a final
// newline; binary values in toStringBinary form. ParseTableConfig accepts it and gives the same
// canonical form back. Never throws (a config that cannot be written gives "{}\n").
std::string TableConfigToJson(const TableConfig& config);

}  // namespace presplit
