// The rates and per-table scores presplitd derives from the cluster's region load reports. Plain
// code: the reports come from a RegionLoadSource (daemon/hbase: the embedded JVM's
// Admin.getClusterMetrics in production, a fake in tests); nothing here does I/O.
//
// HBase's RegionMetrics counters (read and write requests) are cumulative since the region was
// opened on its current server. Rates are therefore differences between two reports of the same
// region divided by the difference of the reports' own timestamps (the RegionServer's report
// time, as hbtop computes them), never by the time between two polls: a RegionServer reports
// every few seconds, and two polls may see the same report.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/hbase/region_loads.h"

namespace presplit::daemon::watch {

// Thresholds of what counts as hot.
struct HotRegionRule {
  // A region is hot when its request rate (reads + writes per second) is at least this ...
  double min_requests_per_s = 1000;
  // ... AND at least this multiple of its table's mean rate per region ...
  double mean_multiple = 3;
  // ... in every rate sample of the last `sustain_ms` (and the samples cover that long). Each
  // sample is held against the table's mean of its own time, not today's: a load that keeps
  // growing (clients warming up, a burst building) must not make its own past look cold.
  int64_t sustain_ms = 10'000;
};

// One region's current state, with its latest rate.
struct RegionLoad {
  std::string region;
  std::string start_key;
  std::string end_key;
  std::string server;
  double read_per_s = 0;
  double write_per_s = 0;
  double requests_per_s() const { return read_per_s + write_per_s; }
  bool has_rate = false;   // false until two reports of the region on the same server
  int64_t size_bytes = 0;  // store files + memstore
  int32_t store_files = 0;
  double locality = 0;
  bool hot = false;
  // How long every rate sample has been above the rule (ms, up to the history kept); a region is
  // hot once this reaches the rule's sustain_ms.
  int64_t above_rule_ms = 0;
};

// A managed table's load, as /status, /metrics and the split planner see it.
struct TableLoad {
  // The document's name ("ns:qualifier", its status znode's name). RegionLoadTracker::Score
  // names the physical table here; the LoadWatcher puts the document's name in its place.
  std::string table;
  // The HBase table whose regions these are: the document's own name, or after a re-salting
  // migration's switch the generation its status names ("ns:t__g2").
  std::string physical_table;
  int64_t generation = 1;
  // True for a re-salting migration's target before its switch (the physical table serving
  // the document is then still the source): watched and shown, never split.
  bool migration_target = false;
  // The target of the re-salting migration under way, "" when none is.
  std::string migration_target_table;
  // Why load splits of this table are held ("" when they are not), for /status and the status.
  std::string split_hold;
  std::vector<RegionLoad> regions;  // in key order (by start key)
  int region_count = 0;
  double total_requests_per_s = 0;
  double mean_requests_per_s = 0;  // over regions with a rate
  double max_requests_per_s = 0;
  // max / mean (1 when perfectly even; 0 when the table has no load).
  double request_skew = 0;
  // Standard deviation / mean of the regions' rates (0 when even or idle).
  double coefficient_of_variation = 0;
  int64_t total_size_bytes = 0;
  // Largest region / mean region size (1 when even; 0 when empty).
  double size_skew = 0;
  int hot_regions = 0;
};

// Keeps the last report and a short rate history per region, across polls. Regions that appear,
// move (a new server: counters restart), split or merge (new encoded names) or vanish between
// polls are handled: a region starts a new history whenever its counters cannot be compared
// with the previous report's, and a region absent from a poll is forgotten.
class RegionLoadTracker {
 public:
  // `history_ms`: how much rate history to keep per region (at least the hot rule's window).
  explicit RegionLoadTracker(int64_t history_ms = 300'000) : history_ms_(history_ms) {}

  // Changes how much history is kept from the next update on (a longer window needs more; a
  // shorter one frees memory: 100,000 regions x 100 samples is hundreds of MiB).
  void set_history_ms(int64_t history_ms) { history_ms_ = history_ms; }
  int64_t history_ms() const { return history_ms_; }

  // Takes one poll's reports (every region of every table the poll saw). Reports of a region
  // whose report time did not advance add no sample.
  void Update(const std::vector<RegionLoadReport>& reports);

  // The table's load under `rule`; a table absent from the last poll has no regions.
  TableLoad Score(const std::string& table, const HotRegionRule& rule) const;

  // Tables seen in the last poll.
  std::vector<std::string> Tables() const;

 private:
  // The rates between two reports: over (from_ms, to_ms].
  struct Sample {
    int64_t from_ms;
    int64_t to_ms;
    double read_per_s;
    double write_per_s;
    // The table's mean rate per region in the poll that added this sample (over every region's
    // latest sample then): what the hot rule's multiple is held against for this sample.
    double table_mean_per_s = 0;
  };
  struct Tracked {
    RegionLoadReport last;
    // Oldest first, within history_ms_ of the newest: a few dozen at most, so a vector (a deque
    // would allocate far more per region).
    std::vector<Sample> samples;
    uint64_t seen_in_poll = 0;
  };

  int64_t history_ms_;
  uint64_t poll_ = 0;
  std::unordered_map<std::string, Tracked> regions_;  // by encoded region name
  std::vector<Tracked*> sampled_this_poll_;           // regions Update() added a sample to
  // Each table's regions in the last poll, so scoring one table does not walk every region of
  // the cluster; rebuilt only when regions come or go (unordered_map keeps element addresses).
  std::map<std::string, std::vector<const Tracked*>> by_table_;
};

}  // namespace presplit::daemon::watch
