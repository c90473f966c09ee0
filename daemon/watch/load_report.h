// What the load watcher shows: the JSON of GET /status's "load" part (and of the decisions kept
// in a table's status znode), and the per-table Prometheus series of /metrics. Never one series
// per region: a cluster has thousands of regions, and a scrape must stay small.
#pragma once

#include <deque>
#include <nlohmann/json.hpp>

#include "daemon/metrics/metrics_text.h"
#include "daemon/watch/load_watcher.h"

namespace presplit::daemon::watch {

// {"polled_at_ms": ..., "error": "...", "tables": [{"table", "physical_table", "generation",
//  "role": "serving"|"migration_target", "migration": null|{"target"},
//  "split_hold": null|"why", "region_count", "requests_per_s",
//  "mean_requests_per_s", "max_requests_per_s", "request_skew", "coefficient_of_variation",
//  "size_bytes", "size_skew", "hot_regions", "regions": [{"region", "start_key", "end_key",
//  "server", "read_per_s", "write_per_s", "size_bytes", "store_files", "locality", "hot"}],
//  "decisions": [...]}], "splits_total": n, "skips_total": {"reason": n}, "moves_total": n,
//  "move_skips_total": {"reason": n}}
// One entry per watched physical table: "table" is the document's name, "physical_table" the
// HBase table whose regions these are; a document has a second entry ("migration_target", its
// splits held) while a re-salting migration copies into its target. Its "decisions" are those
// about its physical table. Keys are in Bytes.toStringBinary form; rates are null for a region
// without one yet.
nlohmann::ordered_json LoadSnapshotJson(const LoadSnapshot& snapshot);

// The decisions, oldest first: [{"time_ms", "physical_table", "region", "start_key", "split_key"
// (the point presplitd asked for, null when the RegionServer's policy picks it), "requests_per_s",
// "table_mean_per_s", "action": "split"|"skip"|"move", "reason", "error" (when refused),
// "max_regions" (the budget a "region_budget" skip met)}]; a
// daughter's move (made: "move", not made: "skip") adds "from_server", "to_server", "sibling",
// "from_server_per_s" and "to_server_per_s".
nlohmann::ordered_json DecisionsJson(const std::deque<SplitDecision>& decisions);

// The load watcher's series (daemon/metrics/metrics.def): per table (labels table and
// physical_table) its region count, busiest region's rate, skew and hot regions; the load
// splits and moves made and skipped (by reason); the age of the last poll.
void AppendLoadMetrics(metrics::MetricsText& out, const LoadSnapshot& snapshot, int64_t now_ms);

}  // namespace presplit::daemon::watch
