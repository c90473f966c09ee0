// Which hot regions to split, within the limits that keep load splits from running away: a
// per-table region budget, a cool-down per region, a cluster-wide rate of splits, and a region
// marked unsplittable for a while when a split was asked for and did not happen (one hot key, or
// requests spanning every candidate point: the RegionServer's policy finds no point). Plain code;
// the LoadWatcher feeds it TableLoads and carries out its decisions.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "daemon/watch/region_load.h"
#include "presplit/layout.h"

namespace presplit::daemon::watch {

// A table's load-split settings (the document's `load_split` object).
struct LoadSplitSettings {
  bool enabled = false;
  bool dry_run = true;  // decide and report, but never ask HBase to split
  HotRegionRule rule;
  int max_regions = 0;  // the table's region budget; 0 = no load split may add regions
  int64_t region_cooldown_ms = 600'000;  // between two splits of regions of one key range
  int64_t unsplittable_ms = 3'600'000;   // how long a region that did not split is left alone
  int64_t split_grace_ms = 120'000;      // how long a split may take before it counts as failed
  // How long a region waits before its split is asked again after HBase could not take the
  // request then (the region in transition, HBase unreachable): "split_deferred".
  int64_t split_retry_ms = 30'000;
  // How the split point is found: false = the RegionServer's split policy picks it
  // (NativeSplitPolicy, from its request sample); true = presplitd computes it from a sample of
  // the region's row keys (a table with HBase's own policy), group-safe under `layout`.
  bool point_from_key_sample = false;
  KeyLayout layout;  // of the physical table (the status's record of it, else the document's)
  // Why this table's hot regions are not split at all, as a skip reason ("" = they may be):
  // "migration_under_way" for a re-salting migration's target before its switch.
  std::string hold_reason;
  // The document's load_split.move_daughters: after a split presplitd asked for, the hotter
  // daughter is moved to the least-loaded server when the two still share a server
  // `move_after_ms` after the split (DaughterMover). Dry: decide and report, never move (also
  // whenever `dry_run` is true).
  bool move_daughters = false;
  int64_t move_after_ms = 300'000;
  bool move_dry_run = false;
};

// Limits over every table.
struct ClusterSplitLimits {
  int max_splits = 4;           // at most this many splits ...
  int64_t window_ms = 600'000;  // ... in any window this long
};

struct SplitDecision {
  // kMove: presplitd moved a load split's daughter (to_server set). A move decided and not made
  // is a kSkip with to_server set.
  enum class Action { kSplit, kSkip, kMove };
  int64_t time_ms = 0;
  std::string table;           // the document's name (its status znode's)
  std::string physical_table;  // the HBase table the region belongs to
  std::string region;          // encoded name
  std::string start_key;       // raw bytes, for the reader of the decision
  std::string end_key;         // raw bytes; empty for the table's last region
  // The point presplitd asked HBase to split at (raw bytes), when it computed one from a key
  // sample; empty when the RegionServer's policy picks it, or no split was asked for.
  std::string split_key;
  double requests_per_s = 0;
  double table_mean_per_s = 0;
  Action action = Action::kSkip;
  // Why not, for kSkip: "migration_under_way" (LoadSplitSettings::hold_reason), "dry_run",
  // "region_budget", "cooldown", "cluster_rate", "unsplittable", or (set by the LoadWatcher)
  // "split_refused" when HBase refused the request (or the key sample failed), "split_deferred"
  // when HBase could not take it then (the region in transition, HBase unreachable: asked again
  // after LoadSplitSettings::split_retry_ms, no cool-down), "no_split_point"
  // when the region's key sample has no group boundary worth splitting at (both leave the region
  // unsplittable for a while), "not_leader" when the lease was lost before the request; empty for
  // kSplit.
  std::string reason;
  // For "region_budget": the budget the region count reached (load_split.max_regions), so a
  // reader can ask for a larger one without counting regions a moment later; 0 otherwise.
  int max_regions = 0;
  // For "split_refused" and "move_refused": HBase's answer on one line (an AccessDeniedException
  // names the permission, the principal and the grant); empty otherwise.
  std::string error;

  // A move of a load split's daughter (DaughterMover), "" for splits: the region is the hotter
  // daughter, requests_per_s its rate, `sibling` the other daughter. A skipped move's reason:
  // "dry_run", "cluster_rate", "not_leader" or "move_refused".
  std::string from_server;
  std::string to_server;
  std::string sibling;
  // The two servers' request rates (over the regions presplit watches) before the move.
  double from_server_per_s = 0;
  double to_server_per_s = 0;
  bool is_move() const { return !to_server.empty(); }
};

const char* ActionName(SplitDecision::Action action);

class SplitPlanner {
 public:
  explicit SplitPlanner(ClusterSplitLimits limits) : limits_(limits) {}

  // The decisions for one table's hot regions at `now_ms` (the table is load.physical_table;
  // the decisions name load.table too). A region's decision is returned
  // again only when it changes (another action or reason) or after the region's cool-down, so a
  // region hot for an hour is not reported every poll. kSplit decisions count against the limits
  // at once: the caller asks HBase to split each, and reports a refused request with
  // SplitFailed.
  std::vector<SplitDecision> Plan(const TableLoad& load, const LoadSplitSettings& settings,
                                  int64_t now_ms);

  // HBase refused or failed the split of `region` of the physical table `table`: it is
  // unsplittable for a while.
  void SplitFailed(const std::string& table, const std::string& region, int64_t now_ms,
                   const LoadSplitSettings& settings);

  // HBase could not take the split of `region` (asked for at `now_ms`, the time of its kSplit
  // decision) for now: the request is undone (no cool-down, not counted against the cluster's
  // rate or the table's) and the region is asked again after settings.split_retry_ms.
  void SplitDeferred(const std::string& table, const std::string& region, int64_t now_ms,
                     const LoadSplitSettings& settings);

 private:
  struct RegionMemory {
    std::string table;
    int64_t split_requested_ms = -1;  // when a split was last asked for
    int64_t unsplittable_until_ms = -1;
    int64_t retry_at_ms = -1;  // a deferred split is not asked again before this
    // The table's last split time before this region's request, restored when it is deferred.
    int64_t table_split_before_ms = -1;
    SplitDecision::Action last_action = SplitDecision::Action::kSkip;
    std::string last_reason;
    int64_t last_reported_ms = -1;
  };

  bool ClusterRateAllows(int64_t now_ms);

  ClusterSplitLimits limits_;
  std::deque<int64_t> recent_splits_ms_;                // kSplit decisions within the window
  std::map<std::string, RegionMemory> memory_;          // by encoded region name
  std::map<std::string, int64_t> last_table_split_ms_;  // by table
};

}  // namespace presplit::daemon::watch
