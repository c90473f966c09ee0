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

#include <cstdint>
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

}  // namespace presplit::daemon::keyviz
