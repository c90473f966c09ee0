// Which tables the load watcher watches, and how: every valid document under <root>/tables names
// a table; its load_split object (if any) turns load splits on. Read without watches (the
// reconciler holds those); the runner re-reads when a reconcile pass saw a document change
// (ReconcilerCounters::document_changes) and at the resync interval.
#pragma once

#include <map>
#include <string>

#include "daemon/watch/split_planner.h"
#include "daemon/zk/zk_client.h"
#include "presplit/table_config.h"

namespace presplit::daemon::watch {

// The planner's settings for a document's load_split (enabled); a document without one is
// watched and scored but never split.
LoadSplitSettings SettingsFromDocument(const std::optional<LoadSplitConfig>& load_split);
// The same for a whole document: the split point comes from the RegionServer's NativeSplitPolicy
// when the document has a split_policy object, else from a sample of the region's row keys,
// group-safe under the document's layout.
LoadSplitSettings SettingsFromDocument(const TableConfig& config);

// Table ("ns:qualifier") -> settings for every document under `tables_path` that parses. A
// document that does not parse is the reconciler's to report; it is left out here. An error only
// when the folder cannot be listed; a document that vanishes meanwhile is skipped.
Result<std::map<std::string, LoadSplitSettings>> ReadWatchedTables(ZkClient& zk,
                                                                   const std::string& tables_path);

}  // namespace presplit::daemon::watch
