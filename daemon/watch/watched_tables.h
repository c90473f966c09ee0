// Which tables the load watcher watches, and how: every valid document under <root>/tables names
// a table, and its status (<root>/status/<ns>:<table>) names the physical table serving it: the
// document's own name, or after a re-salting migration's switch the generation the status names
// ("ns:t__g2"; the reconciler's rule: the status's physical_table when its generation is above
// 1). That physical table is polled, scored and split, with the layout the status records for
// it. The document's load_split object (if any) turns load splits on.
//
// While a migration is under way (the status's migration object, phase neither "done" nor
// "aborted") and has not switched yet, its target is watched too, never split: its load is the
// copy's, not the application's, and a split would add regions for a load that ends with the
// copy. From the switch on the target is the physical table, split like any other.
//
// Read without watches (the reconciler holds those); the runner re-reads when a reconcile pass
// saw a document change, when a migration started, switched or ended, and at the resync interval.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/watch/split_planner.h"
#include "daemon/zk/zk_client.h"
#include "presplit/table_config.h"

namespace presplit::daemon::watch {

// The skip reason of a migration's target's hot regions, and what /status and the status say.
inline constexpr const char* kMigrationUnderWay = "migration_under_way";

// One table the load watcher polls.
struct WatchedTable {
  std::string table;              // the document's name, "ns:qualifier" (its status znode's)
  std::string physical_table;     // the HBase table polled, scored and split
  int64_t generation = 1;         // of physical_table
  LoadSplitSettings settings;     // hold_reason set for a migration's target
  bool migration_target = false;  // a migration's target before its switch
  // The target of the re-salting migration the status records while it is under way ("" when
  // none is). Its phase is not kept: it moves on without the watcher reading the status again
  // (GET /status has it live, in "migrations").
  std::string migration_target_table;
  // Why splits are held, in words, "" when they are not (settings.hold_reason is the code).
  std::string split_hold;
};

// The planner's settings for a document's load_split (enabled); a document without one is
// watched and scored but never split.
LoadSplitSettings SettingsFromDocument(const std::optional<LoadSplitConfig>& load_split);
// The same for a whole document: the split point comes from the RegionServer's NativeSplitPolicy
// when the document has a split_policy object, else from a sample of the region's row keys,
// group-safe under the document's layout.
LoadSplitSettings SettingsFromDocument(const TableConfig& config);

// What to watch for one document, given its status (null or not an object when it has none):
// the physical table serving it first, then a migration's target before its switch. The split
// point of the physical table is computed under the layout the status records for it (the
// layout it was built with, which a document edited for a migration no longer names).
std::vector<WatchedTable> WatchedTablesOf(const TableConfig& config, const nlohmann::json& status);

// WatchedTablesOf every document under `tables_path` that parses, with its status under
// `status_path`; a physical table named twice is watched once (for the first document naming
// it as its serving table). A document that does not parse is the reconciler's to report; it is
// left out here. An error only when the documents cannot be listed; a document that vanishes
// meanwhile is skipped, and a status that cannot be fetched counts as none. A status out of
// json_bounds.h's limits (standbys read statuses too) or not a JSON object is never parsed nor
// taken for none: its document is left out (not watched, not split), logged once per revision.
Result<std::vector<WatchedTable>> ReadWatchedTables(ZkClient& zk, const std::string& tables_path,
                                                    const std::string& status_path);

}  // namespace presplit::daemon::watch
