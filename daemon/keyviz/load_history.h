// The key visualizer's memory: per watched table, a bounded time series of its regions' read and
// write rates and sizes, recorded at every load poll and downsampled for the past.
//
// The read side (HistoryWindow) is the contract between the store and everything that draws or
// exports the history (keyviz_render.h, /keyviz.json, presplitctl keyviz):
//  - an epoch is one stretch of time during which a table had one set of region boundaries, one
//    physical table and one layout. A split, a merge or a migration's switch starts a new epoch,
//    so a region's history ends where its daughters' begins;
//  - a column is one stretch of time (one poll, or several merged by downsampling) inside one
//    epoch: its values are aligned with that epoch's regions (mean rates over the column's
//    time; the size last seen);
//  - events are what changed the regions (splits, merges, migrations), for the time axis.
//
// Plain code, no I/O: fed by the runner from the load watcher's polls, read by the HTTP handlers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "presplit/layout.h"
#include "presplit/status.h"

namespace presplit::daemon::keyviz {

// One region of an epoch: physical row keys, "" = the table's start / end.
struct HistoryRegion {
  std::string start_key;
  std::string end_key;
};

struct HistoryEpoch {
  std::string physical_table;  // "ns:t" or a migration's generation "ns:t__g2"
  int64_t generation = 1;
  KeyLayout layout;                    // the physical table's layout (salt, buckets)
  std::vector<HistoryRegion> regions;  // in key order, not overlapping
};

struct HistoryColumn {
  int64_t start_ms = 0;  // the time the column covers: [start_ms, end_ms)
  int64_t end_ms = 0;
  int epoch = 0;  // index into HistoryWindow::epochs
  // Aligned with the epoch's regions. A region that reported no rate in the column's time has
  // rate 0 there (has_rate below says which did).
  std::vector<float> read_per_s;
  std::vector<float> write_per_s;
  std::vector<float> size_bytes;
  std::vector<bool> has_rate;
};

struct HistoryEvent {
  int64_t at_ms = 0;
  std::string kind;    // "split", "merge", "migration" (a switch to another physical table)
  std::string detail;  // for people: "ns:t region [a, c) -> [a, b) [b, c)", ...
};

// A table's history between two times, oldest column first.
struct HistoryWindow {
  std::string table;  // the document's name, "ns:qualifier"
  std::vector<HistoryEpoch> epochs;
  std::vector<HistoryColumn> columns;
  std::vector<HistoryEvent> events;
};

// ---- The store ----------------------------------------------------------------------------

// One poll of one physical table, as the runner builds it from the load watcher's snapshot
// (TableLoad) and the watched table's layout (LoadSplitSettings::layout).
struct TableSample {
  std::string table;           // the document's name, "ns:qualifier"
  std::string physical_table;  // the HBase table serving it
  int64_t generation = 1;
  KeyLayout layout;
  struct Region {
    std::string start_key;
    std::string end_key;
    double read_per_s = 0;
    double write_per_s = 0;
    bool has_rate = false;
    int64_t size_bytes = 0;
  };
  std::vector<Region> regions;  // any order; sorted and checked by Record
};

// How much history, at which resolutions, in how much memory. The defaults hold 2,000 tables
// of 100,000 regions in total for 4 days under 256 MiB (bench/RESULTS.md): 1-minute columns for
// 2 hours, then 30-minute columns for 4 days.
struct LoadHistoryOptions {
  struct Tier {
    int64_t resolution_ms = 0;  // one column covers at most this long
    int64_t retention_ms = 0;   // columns ending longer ago than this leave the tier
  };
  // The fine tier: every poll goes into its newest column. A column older than its retention
  // is merged into the coarse tier's newest column (same epoch and coarse slot) or starts one.
  Tier fine{60'000, 2 * 3'600'000};
  // The coarse tier: columns older than its retention are dropped.
  Tier coarse{1'800'000, 4 * 86'400'000};
  // Everything the store holds (MemoryBytes): over it, the oldest column of the largest table
  // goes (coarse first, then fine), each one counted in columns_dropped_by_budget. The current
  // epochs' keys and the open columns stay: the input caps below bound them.
  size_t memory_budget_bytes = size_t{256} << 20;
  // Input caps: tables beyond max_tables (new ones; those already kept go on) are refused, and
  // regions beyond max_regions_per_table are not taken (the table's last regions); both counted.
  size_t max_tables = 5'000;
  size_t max_regions_per_table = 100'000;
  size_t max_key_bytes = 4'096;         // a longer boundary key refuses its table's sample
  size_t max_events_per_table = 1'000;  // the oldest go first
  // What one Read may copy, counted before anything is copied: region-columns (a column of n
  // regions counts n; 12 bytes each in the window) and the regions of the epochs it names. A
  // window beyond either is refused (InvalidArgument naming both numbers: ask for a shorter
  // time), so a request cannot make the daemon allocate a multiple of the store's budget.
  size_t max_read_region_columns = 4'000'000;
  size_t max_read_epoch_regions = 1'000'000;
};

// Checks a set of options: positive resolutions, retentions of at least one resolution, a coarse
// resolution that is a multiple of the fine one and a coarse retention beyond the fine one.
Status CheckLoadHistoryOptions(const LoadHistoryOptions& options);

// What one Record call refused (the caller logs it).
struct RecordResult {
  size_t tables_refused = 0;       // beyond max_tables, or a key beyond max_key_bytes
  size_t regions_truncated = 0;    // beyond max_regions_per_table
  size_t regions_overlapping = 0;  // overlapping an earlier region of the same sample
  size_t columns_dropped_by_budget = 0;
  // Tables whose history started again because the wall clock stepped back by more than a fine
  // column (their columns end after every time still to come).
  size_t histories_restarted = 0;
};

struct LoadHistoryCounters {
  uint64_t records = 0;
  uint64_t tables_refused = 0;
  uint64_t regions_refused = 0;  // truncated or overlapping
  uint64_t columns_dropped_by_budget = 0;
  uint64_t epochs_started = 0;
  uint64_t histories_restarted = 0;  // by a wall clock that stepped back
};

// The store. Thread-safe: Record on the poll worker, Read, Tables, MemoryBytes and counters
// from the HTTP handlers.
//
// Epochs: a table's sample starts a new epoch when its physical table, generation or layout
// differ from the current epoch's, or when one of its regions is not a region of the current
// epoch (new boundaries). A region of the current epoch that is missing from a sample (in
// transition, its RegionServer restarting) is not a change: it keeps its place, without a rate
// and with its last size, for as long as no region of the sample overlaps it. A new epoch
// caused by new boundaries keeps those missing regions that no new region overlaps, so one
// region in transition during a split does not leave a hole. The change is recorded as events:
// "migration" (physical table, generation or layout), else per group of overlapping old and new
// regions "split" (more new than old) or "merge".
//
// Time: a sample at `now_ms` covers [the table's previous sample, now_ms), at most one fine
// resolution long (a longer gap, polls failing or the table gone for a while, is left empty);
// a table's first sample covers [now_ms, now_ms]. Column bounds are therefore poll times, not
// slot boundaries.
// A new epoch starts where the previous epoch's last sample ended: the parent's history ends
// where its daughters' begins. A column holds the samples whose end falls in one slot of its
// tier's resolution (slots aligned on multiples of it) of one epoch; its rates are the samples'
// means weighted by time (over the time the region had a rate), its size the last one seen.
//
// Storage: per epoch, its keys once (one buffer); per column, three 16-bit floats per region
// (bfloat16: 8 bits of exponent, rates and sizes to within 0.4%), a missing rate as NaN.
class LoadHistory {
 public:
  explicit LoadHistory(LoadHistoryOptions options = {});
  ~LoadHistory();
  LoadHistory(const LoadHistory&) = delete;
  LoadHistory& operator=(const LoadHistory&) = delete;

  // One poll of the watched tables (a migration's target before its switch excluded by the
  // caller). Also ages every table's columns (downsampling, retention) and enforces the budget.
  RecordResult Record(int64_t now_ms, const std::vector<TableSample>& tables);

  // The table's columns that overlap [from_ms, to_ms], oldest first, with the epochs they use
  // (renumbered from 0) and the events in that time. NotFound for a table without history,
  // InvalidArgument when from_ms > to_ms or the window is larger than the read bounds above.
  Result<HistoryWindow> Read(const std::string& table, int64_t from_ms, int64_t to_ms) const;

  // The documents with history, sorted.
  std::vector<std::string> Tables() const;

  // An estimate of the heap the store holds: containers' capacities, keys, names.
  size_t MemoryBytes() const;
  size_t Columns() const;  // over every table and tier, the open columns included
  LoadHistoryCounters counters() const;
  const LoadHistoryOptions& options() const { return options_; }

 public:
  struct Table;  // one document's history (defined in load_history.cc)

 private:
  void Age(Table& table, int64_t now_ms);
  void EnforceBudget(RecordResult& result);
  size_t TableBytes(const Table& table) const;

  const LoadHistoryOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Table>> tables_;
  size_t bytes_ = 0;  // MemoryBytes, kept up to date by Record
  LoadHistoryCounters counters_;
};

}  // namespace presplit::daemon::keyviz
