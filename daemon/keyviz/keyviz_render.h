// The key visualizer's picture as data: a table's HistoryWindow laid over one key axis
// (libpresplit's SharedKeyAxis), as a matrix of rows (key ranges) x columns (time) with reads,
// writes, bytes and total (reads + writes) per cell, the events on the time axis and the
// diagnoses found in it. GET /keyviz.json serves Render's JSON, the page (GET /keyviz) draws it
// and presplitctl keyviz prints it as CSV.
//
// Views. "logical" (the default for a salted table) strips the salt: each row sums a logical key
// range over every bucket, labelled with logical keys. "physical" keeps the buckets one after the
// other, labelled with row keys; across a migration's switch both generations share the axis by
// fraction of the table (key_fold.h, SharedKeyAxis). An unsalted table has one view, reported as
// "physical".
//
// Diagnoses, each with its rows, its time span and the advice presplitctl advise --table gives
// for the same pattern (ctl/live_advice.h names the rules):
//  - hot_range: two or more adjacent rows hot (load splitting's rule, watch::HotRegionRule: at
//    least its multiple of the column's mean per row and its minimum rate) for at least a quarter
//    of the window's columns;
//  - hot_key: one row hot that long with both neighbours not hot: one key or a narrow range;
//  - bucket_tails: a salted table's writes at least AdviceRules' share (90 %) in the last row of
//    every bucket (physical view) or of the logical key space (logical view) in at least half of
//    the columns, with at least twice as many rows: rising keys;
//  - moving_hot_spot: the hottest row, where hot, moves along the key axis in one direction over
//    at least 4 columns and 3 rows (a time-ordered key, the diagonal). A salted table shows it in
//    the logical view; physically it is one stripe per bucket.
//
// Plain code, no I/O. Every input is bounded (rows, columns, the regions named per cell), so a
// request cannot make the daemon build an unbounded answer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "daemon/keyviz/load_history.h"
#include "presplit/key_fold.h"
#include "presplit/status.h"

namespace presplit::daemon::keyviz {

inline constexpr int kDefaultRows = 200;
inline constexpr int kMaxRows = 1000;
// A window longer than this many columns is refused (6 h of 1-minute columns is 360; the store
// downsamples older history, so a day or a week stays well below).
inline constexpr size_t kMaxColumns = 20'000;
// The regions named per row and epoch for the hover (a logical row of a 256-bucket table touches
// 256); the count of the others is given.
inline constexpr int kMaxCellRegions = 16;

enum class View { kLogical, kPhysical };

const char* ViewName(View view);
// "logical" or "physical"; InvalidArgument otherwise.
Result<View> ParseView(const std::string& name);

// The view a table is drawn in when none is asked for: logical when any epoch is salted.
View DefaultView(const HistoryWindow& window);
bool IsSaltedWindow(const HistoryWindow& window);

struct RenderOptions {
  View view = View::kLogical;
  int rows = kDefaultRows;  // 1..kMaxRows
  int64_t from_ms = 0;      // the window asked for (reported back; the columns are the store's)
  int64_t to_ms = 0;
};

struct Diagnosis {
  std::string kind;  // "hot_range", "hot_key", "bucket_tails", "moving_hot_spot"
  int first_column = 0;
  int last_column = 0;    // inclusive
  std::vector<int> rows;  // the rows it is about, increasing
  // moving_hot_spot: the hottest row per column where it was hot, (column, row) in time order.
  std::vector<std::pair<int, int>> path;
  int64_t from_ms = 0;  // the columns' time span
  int64_t to_ms = 0;
  std::string text;    // what was found, with its numbers and key range
  std::string advice;  // what to do, as advise --table says it
};

struct KeyvizMatrix {
  std::string table;
  View view = View::kLogical;
  bool salted = false;
  RenderOptions options;
  presplit::SharedAxis axis;           // rows with raw keys and positions; shares per epoch
  std::vector<int> epoch_buckets;      // per epoch of the window: its bucket count, 0 unsalted
  std::vector<HistoryColumn> columns;  // the window's columns without their values
  // Column-major: value(c, r) = metric[c * rows + r]; per second for reads and writes, bytes for
  // bytes.
  std::vector<float> reads;
  std::vector<float> writes;
  std::vector<float> bytes;
  std::vector<Diagnosis> diagnoses;

  size_t row_count() const { return axis.rows.size(); }
  float total(size_t c, size_t r) const {
    return reads[c * row_count() + r] + writes[c * row_count() + r];
  }
};

// The matrix of `window` in `options.view`. InvalidArgument for options out of bounds or a window
// that breaks load_history.h's contract (an epoch index out of range, values not aligned with
// the epoch's regions, too many columns); the message names what.
Result<KeyvizMatrix> Render(const HistoryWindow& window, const RenderOptions& options);

// At most this many diagnoses per matrix, the strongest first (a hot range in every bucket of a
// physical view is one per bucket).
inline constexpr size_t kMaxDiagnoses = 32;

// The diagnoses of a matrix (Render fills matrix.diagnoses with them).
std::vector<Diagnosis> Diagnose(const KeyvizMatrix& matrix);

// GET /keyviz.json's body: see docs/key-visualizer.md for every field. Keys are printed as
// HBase's Bytes.toStringBinary does (\xNN for bytes that are not printable).
nlohmann::ordered_json MatrixJson(const KeyvizMatrix& matrix, const HistoryWindow& window);
// The same JSON as text (without a trailing newline), the metrics written without building a JSON
// value per number: what GET /keyviz.json serves.
std::string MatrixJsonText(const KeyvizMatrix& matrix, const HistoryWindow& window);

}  // namespace presplit::daemon::keyviz
