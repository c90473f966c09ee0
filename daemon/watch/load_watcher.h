// The load watcher: polls the cluster's region load (RegionLoadSource), keeps the rates
// (RegionLoadTracker), scores each watched table, splits hot regions of the tables whose
// documents turn load splits on (SplitPlanner), and moves the hotter daughter of such a split
// off its sibling's server when the document asks for it and the balancer has not spread them
// (DaughterMover). Each decision is logged with its numbers, kept (the last N per table) for
// /status and the status znode, and counted for /metrics.
//
// Plain code driven by Poll(): the runner calls it from a PeriodicWorker, planning on the leader
// only (a standby polls without planning, for the key visualizer's history).
// Thread-safe: Poll() on the worker, SetTables() and snapshot() from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/hbase/region_loads.h"
#include "daemon/watch/daughter_mover.h"
#include "daemon/watch/region_load.h"
#include "daemon/watch/split_planner.h"
#include "daemon/watch/watched_tables.h"
#include "presplit/status.h"

namespace presplit::daemon::watch {

struct LoadWatcherOptions {
  // Rule for tables whose document has no load_split object (they are scored and shown, never
  // split).
  HotRegionRule default_rule;
  ClusterSplitLimits limits;
  // Rate history kept per region: at least this, and the longest sustain window of the watched
  // tables plus a margin (SetTables adjusts it), so no more than the rules can use.
  int64_t min_history_ms = 30'000;
  size_t decisions_kept = 20;  // per table
  // "May I act?": asked right before every split request (after the key sample of a region
  // whose point presplitd computes, never before it); false turns the split into a
  // "not_leader" skip. Unset means always (tests). presplitd passes its election's lease check.
  std::function<bool()> may_act = nullptr;
  // The key sample of a region whose split point presplitd computes: about this many keys, from
  // a key-only scan of at most this many rows (a hot region is small; a bigger one gets the
  // point of its first max rows).
  int sample_max_keys = 1000;
  int64_t sample_max_rows = 1'000'000;
};

// What /status, /metrics and the status znodes show.
struct LoadSnapshot {
  int64_t polled_at_ms = 0;  // 0 before the first successful poll
  std::string last_error;    // empty when the last poll succeeded
  // One per watched physical table, named by its document (TableLoad::table) and itself
  // (physical_table); a document has two while a migration copies into its target.
  std::vector<TableLoad> tables;
  // By document (the status znode they go to), oldest first; each names its physical table.
  std::map<std::string, std::deque<SplitDecision>> decisions;
  int64_t splits_total = 0;
  std::map<std::string, int64_t> skips_total;  // by reason
  int64_t moves_total = 0;                     // daughters moved
  std::map<std::string, int64_t> move_skips_total;  // moves decided and not made, by reason
};

class LoadWatcher {
 public:
  LoadWatcher(RegionLoadSource& source, LoadWatcherOptions options,
              std::function<int64_t()> now_ms);

  // The tables to watch (ReadWatchedTables): physical tables, each named by its document.
  void SetTables(std::vector<WatchedTable> tables);

  // One poll: reports, scores, decisions, splits, daughter moves. An error from the source is
  // returned (and kept in the snapshot); a refused split or move is a decision, not an error.
  // With `plan` false (a standby: it keeps the rates and the key visualizer's history,
  // docs/key-visualizer.md) only the reports and the scores: no decision, no key sample, no
  // split, no move.
  Status Poll(bool plan = true);

  LoadSnapshot snapshot() const;

 private:
  void Record(const SplitDecision& decision);
  // Asks HBase to split a region the planner chose: without a point, or at the point of its key
  // sample. A refusal turns the decision into a skip and the region unsplittable for a while.
  void CarryOut(SplitDecision& decision, const LoadSplitSettings& settings, int64_t now_ms);
  // Asks HBase to move a daughter the mover chose; a refusal or a lost lease makes it a skip.
  void CarryOutMove(SplitDecision& decision);

  RegionLoadSource& source_;
  const LoadWatcherOptions options_;
  std::function<int64_t()> now_ms_;

  mutable std::mutex mu_;             // guards everything below
  std::vector<WatchedTable> tables_;  // one per physical table
  RegionLoadTracker tracker_;
  SplitPlanner planner_;
  DaughterMover mover_;  // like the planner, touched by Poll() only
  LoadSnapshot snapshot_;
};

}  // namespace presplit::daemon::watch
