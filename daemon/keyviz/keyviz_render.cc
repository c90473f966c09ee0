#include "daemon/keyviz/keyviz_render.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "daemon/watch/region_load.h"
#include "presplit/bytes.h"

namespace presplit::daemon::keyviz {
namespace {

using nlohmann::ordered_json;

// The share of writes in the tails that names bucket_tails: AdviceRules::bucket_tail_share of
// presplitctl advise --table (ctl/live_advice.h), the same 90 %.
constexpr double kBucketTailShare = 0.9;

std::string Fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

std::string Range(const presplit::AxisRow& row) {
  return "[" + (row.start_key.empty() ? std::string("(start)") : ToStringBinary(row.start_key)) +
         ", " + (row.end_key.empty() ? std::string("(end)") : ToStringBinary(row.end_key)) + ")";
}

std::string RowSpan(const KeyvizMatrix& m, int first, int last) {
  const auto& rows = m.axis.rows;
  presplit::AxisRow span = rows[static_cast<size_t>(first)];
  span.end_key = rows[static_cast<size_t>(last)].end_key;
  return (first == last ? "row " + std::to_string(first)
                        : "rows " + std::to_string(first) + "-" + std::to_string(last)) +
         " " + Range(span);
}

// Rates keep two decimals (and none from 100 on), sizes none: the JSON stays short and the
// numbers are as precise as a colour needs.
double Rounded(float value, bool bytes) {
  // total = reads + writes may overflow a float; JSON has no infinity.
  const double v = std::isfinite(value) ? value : std::numeric_limits<float>::max();
  if (bytes || v >= 100) return std::round(v);
  return std::round(v * 100) / 100;
}

Status CheckWindow(const HistoryWindow& window, const RenderOptions& options) {
  if (options.rows < 1 || options.rows > kMaxRows) {
    return Status::InvalidArgument("rows must be 1 to " + std::to_string(kMaxRows) + ", got " +
                                   std::to_string(options.rows));
  }
  if (window.columns.size() > kMaxColumns) {
    return Status::InvalidArgument("the window has " + std::to_string(window.columns.size()) +
                                   " columns; at most " + std::to_string(kMaxColumns) +
                                   " are drawn: ask for a shorter time");
  }
  for (size_t c = 0; c < window.columns.size(); ++c) {
    const HistoryColumn& column = window.columns[c];
    if (column.epoch < 0 || static_cast<size_t>(column.epoch) >= window.epochs.size()) {
      return Status::InvalidArgument("column " + std::to_string(c) + " names epoch " +
                                     std::to_string(column.epoch) + " of " +
                                     std::to_string(window.epochs.size()));
    }
    const size_t regions = window.epochs[static_cast<size_t>(column.epoch)].regions.size();
    if (column.read_per_s.size() != regions || column.write_per_s.size() != regions ||
        column.size_bytes.size() != regions) {
      return Status::InvalidArgument("column " + std::to_string(c) +
                                     "'s values are not aligned with its epoch's " +
                                     std::to_string(regions) + " regions");
    }
  }
  return Status::Ok();
}

}  // namespace

const char* ViewName(View view) { return view == View::kLogical ? "logical" : "physical"; }

Result<View> ParseView(const std::string& name) {
  if (name == "logical") return View::kLogical;
  if (name == "physical") return View::kPhysical;
  return Status::InvalidArgument("view must be logical or physical");
}

bool IsSaltedWindow(const HistoryWindow& window) {
  return std::any_of(window.epochs.begin(), window.epochs.end(),
                     [](const HistoryEpoch& e) { return IsSalted(e.layout); });
}

View DefaultView(const HistoryWindow& window) {
  return IsSaltedWindow(window) ? View::kLogical : View::kPhysical;
}

Result<KeyvizMatrix> Render(const HistoryWindow& window, const RenderOptions& options) {
  PRESPLIT_RETURN_IF_ERROR(CheckWindow(window, options));
  KeyvizMatrix m;
  m.table = window.table;
  m.salted = IsSaltedWindow(window);
  m.view = m.salted ? options.view : View::kPhysical;
  m.options = options;
  for (const HistoryEpoch& epoch : window.epochs) m.epoch_buckets.push_back(epoch.layout.buckets);
  std::vector<presplit::AxisEpoch> epochs(window.epochs.size());
  for (size_t e = 0; e < window.epochs.size(); ++e) {
    epochs[e].layout = window.epochs[e].layout;
    epochs[e].regions.reserve(window.epochs[e].regions.size());
    for (const HistoryRegion& region : window.epochs[e].regions) {
      epochs[e].regions.push_back({region.start_key, region.end_key, 0});
    }
  }
  auto axis = presplit::SharedKeyAxis(
      epochs,
      m.view == View::kLogical ? presplit::AxisView::kLogical : presplit::AxisView::kPhysical,
      options.rows);
  if (!axis.ok()) return axis.status().WithContext("table " + window.table);
  m.axis = std::move(axis).value();

  const size_t rows = m.row_count();
  const size_t columns = window.columns.size();
  m.reads.assign(rows * columns, 0);
  m.writes.assign(rows * columns, 0);
  m.bytes.assign(rows * columns, 0);
  std::vector<double> buffer(rows);
  const auto fill = [&](const HistoryColumn& column, const std::vector<float>& values,
                        std::vector<float>& out, size_t c) -> Status {
    std::fill(buffer.begin(), buffer.end(), 0.0);
    PRESPLIT_RETURN_IF_ERROR(presplit::ShareOntoAxis(m.axis, column.epoch, values, buffer));
    // Clamped: a sum of huge values (a store's mistake) must stay a number the JSON can hold.
    for (size_t r = 0; r < rows; ++r) {
      out[c * rows + r] =
          static_cast<float>(std::min(buffer[r], double{std::numeric_limits<float>::max()}));
    }
    return Status::Ok();
  };
  m.columns.reserve(columns);
  for (size_t c = 0; c < columns; ++c) {
    const HistoryColumn& column = window.columns[c];
    PRESPLIT_RETURN_IF_ERROR(fill(column, column.read_per_s, m.reads, c));
    PRESPLIT_RETURN_IF_ERROR(fill(column, column.write_per_s, m.writes, c));
    PRESPLIT_RETURN_IF_ERROR(fill(column, column.size_bytes, m.bytes, c));
    HistoryColumn bare;
    bare.start_ms = column.start_ms;
    bare.end_ms = column.end_ms;
    bare.epoch = column.epoch;
    m.columns.push_back(std::move(bare));
  }
  m.diagnoses = Diagnose(m);
  return m;
}

std::vector<Diagnosis> Diagnose(const KeyvizMatrix& m) {
  std::vector<Diagnosis> found;
  const size_t rows = m.row_count();
  const size_t columns = m.columns.size();
  if (rows == 0 || columns == 0) return found;

  // Hot cells by load splitting's own rule (daemon/watch/region_load.h), a row standing for a
  // region: at least the minimum rate and the multiple of the column's mean per row.
  const watch::HotRegionRule rule;
  std::vector<char> hot(rows * columns, 0);
  std::vector<double> column_total(columns, 0), column_writes(columns, 0);
  for (size_t c = 0; c < columns; ++c) {
    for (size_t r = 0; r < rows; ++r) {
      column_total[c] += m.total(c, r);
      column_writes[c] += m.writes[c * rows + r];
    }
    const double mean = column_total[c] / static_cast<double>(rows);
    for (size_t r = 0; r < rows; ++r) {
      const double v = m.total(c, r);
      hot[c * rows + r] = v >= rule.min_requests_per_s && v >= rule.mean_multiple * mean && v > 0;
    }
  }
  const auto time_of = [&](Diagnosis& d) {
    d.from_ms = m.columns[static_cast<size_t>(d.first_column)].start_ms;
    d.to_ms = m.columns[static_cast<size_t>(d.last_column)].end_ms;
  };
  // Scores order the diagnoses when there are too many: the load they are about.
  std::vector<std::pair<double, Diagnosis>> scored;

  // hot_range and hot_key: rows hot in at least a quarter of the columns, adjacent ones together.
  const size_t persistent = std::max<size_t>(2, (columns + 3) / 4);
  std::vector<size_t> hot_count(rows, 0);
  for (size_t c = 0; c < columns; ++c) {
    for (size_t r = 0; r < rows; ++r) hot_count[r] += hot[c * rows + r];
  }
  for (size_t r = 0; r < rows;) {
    if (hot_count[r] < persistent) {
      ++r;
      continue;
    }
    size_t last = r;
    while (last + 1 < rows && hot_count[last + 1] >= persistent) ++last;
    Diagnosis d;
    d.kind = r == last ? "hot_key" : "hot_range";
    d.first_column = static_cast<int>(columns);
    d.last_column = -1;
    double peak = 0, peak_share = 0, load = 0;
    for (size_t c = 0; c < columns; ++c) {
      for (size_t k = r; k <= last; ++k) {
        if (!hot[c * rows + k]) continue;
        d.first_column = std::min(d.first_column, static_cast<int>(c));
        d.last_column = std::max(d.last_column, static_cast<int>(c));
      }
      double in_range = 0;
      for (size_t k = r; k <= last; ++k) in_range += m.total(c, k);
      load += in_range;
      if (in_range > peak) {
        peak = in_range;
        peak_share = column_total[c] > 0 ? in_range / column_total[c] : 0;
      }
    }
    size_t hot_columns = 0;
    for (size_t c = 0; c < columns; ++c) {
      bool any = false;
      for (size_t k = r; k <= last; ++k) any = any || hot[c * rows + k];
      hot_columns += any;
    }
    for (size_t k = r; k <= last; ++k) d.rows.push_back(static_cast<int>(k));
    time_of(d);
    const std::string where = RowSpan(m, static_cast<int>(r), static_cast<int>(last));
    d.text = where + " hot in " + std::to_string(hot_columns) + " of " + std::to_string(columns) +
             " columns, at most " + Fixed(peak, 0) + " requests/s (" + Fixed(100 * peak_share, 0) +
             "% of the table's)";
    if (d.kind == "hot_key") {
      d.advice =
          "if this is one key (or requests spanning it), neither more regions nor a re-salt by "
          "group divides it (advise --table's hot_key rule): spread that key in the "
          "application; if it is a range, load splits divide it (the document's load_split)";
    } else {
      d.advice =
          "load splits divide a hot range (the document's load_split; advise --table's "
          "no_load_split and budget rules), or pre-split it with more regions";
    }
    scored.emplace_back(load, std::move(d));
    r = last + 1;
  }

  // bucket_tails: the writes in the last row of every bucket (physical) or of the key space.
  if (m.salted) {
    std::vector<double> row_ends(rows);
    for (size_t r = 0; r < rows; ++r) row_ends[r] = m.axis.rows[r].end;
    size_t write_columns = 0, tail_columns = 0;
    int first = -1, last = -1, most_tails = 0;
    double share_sum = 0;
    std::vector<char> is_tail(rows, 0);
    std::vector<int> tails;
    for (size_t c = 0; c < columns; ++c) {
      const int buckets = m.epoch_buckets[static_cast<size_t>(m.columns[c].epoch)];
      if (column_writes[c] <= 0 || buckets == 0) continue;
      ++write_columns;
      tails.clear();
      if (m.view == View::kLogical) {
        tails.push_back(static_cast<int>(rows) - 1);
      } else {
        // Bucket b of N ends at (b + 1) / N on the physical axis (key_fold.h): its tail is the
        // row that holds the point just before.
        for (int b = 0; b < buckets; ++b) {
          const double end = static_cast<double>(b + 1) / buckets;
          const auto at = std::lower_bound(row_ends.begin(), row_ends.end(), end);
          tails.push_back(static_cast<int>(std::min<size_t>(at - row_ends.begin(), rows - 1)));
        }
        tails.erase(std::unique(tails.begin(), tails.end()), tails.end());
      }
      // Like the live rule, only with at least twice as many rows as tails: otherwise every row
      // is a tail.
      if (rows < 2 * tails.size()) continue;
      double in_tails = 0;
      for (int r : tails) in_tails += m.writes[c * rows + static_cast<size_t>(r)];
      const double share = in_tails / column_writes[c];
      if (share < kBucketTailShare) continue;
      ++tail_columns;
      share_sum += share;
      if (first < 0) first = static_cast<int>(c);
      last = static_cast<int>(c);
      most_tails = std::max(most_tails, static_cast<int>(tails.size()));
      for (int r : tails) is_tail[static_cast<size_t>(r)] = 1;
    }
    if (tail_columns > 0 && 2 * tail_columns >= write_columns) {
      Diagnosis d;
      d.kind = "bucket_tails";
      d.first_column = first;
      d.last_column = last;
      for (size_t r = 0; r < rows; ++r) {
        if (is_tail[r]) d.rows.push_back(static_cast<int>(r));
      }
      time_of(d);
      const int buckets =
          m.epoch_buckets[static_cast<size_t>(m.columns[static_cast<size_t>(last)].epoch)];
      d.text = Fixed(100 * share_sum / static_cast<double>(tail_columns), 0) +
               "% of the writes go to " +
               (m.view == View::kLogical
                    ? std::string("the last logical row")
                    : "the last row of each of " + std::to_string(most_tails) + " buckets") +
               " in " + std::to_string(tail_columns) + " of " + std::to_string(write_columns) +
               " columns with writes: rising keys";
      d.advice = "re-salt to more buckets (advise --table's bucket_tails rule): " +
                 std::to_string(2 * buckets) +
                 " buckets would spread the writes over twice as "
                 "many regions";
      double load = 0;
      for (size_t c = 0; c < columns; ++c) load += column_writes[c];
      scored.emplace_back(load, std::move(d));
    }
  }

  // moving_hot_spot: the hottest row per column, where hot, moving one way.
  {
    std::vector<std::pair<int, int>> path;
    for (size_t c = 0; c < columns; ++c) {
      size_t best = 0;
      for (size_t r = 1; r < rows; ++r) {
        if (m.total(c, r) > m.total(c, best)) best = r;
      }
      if (hot[c * rows + best]) path.emplace_back(static_cast<int>(c), static_cast<int>(best));
    }
    int ups = 0, downs = 0, low = static_cast<int>(rows), high = -1;
    for (size_t k = 0; k < path.size(); ++k) {
      low = std::min(low, path[k].second);
      high = std::max(high, path[k].second);
      if (k == 0) continue;
      ups += path[k].second > path[k - 1].second;
      downs += path[k].second < path[k - 1].second;
    }
    const int steps = std::max(ups, downs);
    const int against = std::min(ups, downs);
    // One direction: at least 3 moves that way and at most one in ten against it (a poll's
    // jitter), over at least 4 columns and 3 rows.
    if (path.size() >= 4 && high - low >= 2 && steps >= 3 && against * 10 <= steps) {
      Diagnosis d;
      d.kind = "moving_hot_spot";
      d.first_column = path.front().first;
      d.last_column = path.back().first;
      for (const auto& [c, r] : path) d.rows.push_back(r);
      std::sort(d.rows.begin(), d.rows.end());
      d.rows.erase(std::unique(d.rows.begin(), d.rows.end()), d.rows.end());
      d.path = path;
      time_of(d);
      const bool rising = ups >= downs;
      d.text = std::string("the hot spot moves toward ") + (rising ? "higher" : "lower") +
               " keys from " + RowSpan(m, path.front().second, path.front().second) + " to " +
               RowSpan(m, path.back().second, path.back().second) + " over " +
               std::to_string(path.size()) + " columns: a time-ordered key";
      d.advice =
          m.salted
              ? "every bucket's writes go to its newest keys (advise --table's bucket_tails rule): "
                "re-salt to more buckets to spread them over more regions; load splits only "
                "follow the hot spot"
              : "every write goes to one region that moves with the key: salt the table (the "
                "document's layout with buckets) or lead the key with a reversed id; load splits "
                "only follow the hot spot";
      double load = 0;
      for (const auto& [c, r] : path) {
        load += m.total(static_cast<size_t>(c), static_cast<size_t>(r));
      }
      scored.emplace_back(load, std::move(d));
    }
  }

  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (scored.size() > kMaxDiagnoses) scored.resize(kMaxDiagnoses);
  for (auto& [score, d] : scored) found.push_back(std::move(d));
  return found;
}

namespace {

ordered_json JsonOf(const KeyvizMatrix& m, const HistoryWindow& window, bool with_metrics) {
  const size_t rows = m.row_count();
  const size_t columns = m.columns.size();
  ordered_json out;
  out["table"] = m.table;
  out["view"] = ViewName(m.view);
  out["salted"] = m.salted;
  out["views"] =
      m.salted ? ordered_json::array({"logical", "physical"}) : ordered_json::array({"physical"});
  out["from_ms"] = m.options.from_ms;
  out["to_ms"] = m.options.to_ms;
  out["row_count"] = rows;
  out["column_count"] = columns;
  ordered_json& row_list = out["rows"] = ordered_json::array();
  for (const presplit::AxisRow& row : m.axis.rows) {
    row_list.push_back({{"start", ToStringBinary(row.start_key)},
                        {"end", ToStringBinary(row.end_key)},
                        {"from", row.start},
                        {"to", row.end}});
  }
  ordered_json& column_list = out["columns"] = ordered_json::array();
  for (const HistoryColumn& column : m.columns) {
    column_list.push_back(
        {{"start_ms", column.start_ms}, {"end_ms", column.end_ms}, {"epoch", column.epoch}});
  }
  ordered_json& epoch_list = out["epochs"] = ordered_json::array();
  for (size_t e = 0; e < window.epochs.size(); ++e) {
    const HistoryEpoch& epoch = window.epochs[e];
    ordered_json entry;
    entry["physical_table"] = epoch.physical_table;
    entry["generation"] = epoch.generation;
    entry["buckets"] = epoch.layout.buckets;
    ordered_json& regions = entry["regions"] = ordered_json::array();
    for (const HistoryRegion& region : epoch.regions) {
      regions.push_back(
          ordered_json::array({ToStringBinary(region.start_key), ToStringBinary(region.end_key)}));
    }
    // Per row, the regions (indices into `regions`) that share load into it: at most
    // kMaxCellRegions, and how many there are in all.
    ordered_json named = ordered_json::array(), counts = ordered_json::array();
    const auto& shares = m.axis.shares[e];
    size_t k = 0;
    for (size_t r = 0; r < rows; ++r) {
      ordered_json list = ordered_json::array();
      int count = 0;
      for (; k < shares.size() && static_cast<size_t>(shares[k].row) == r; ++k, ++count) {
        if (count < kMaxCellRegions) list.push_back(shares[k].region);
      }
      named.push_back(std::move(list));
      counts.push_back(count);
    }
    entry["row_regions"] = std::move(named);
    entry["row_region_counts"] = std::move(counts);
    epoch_list.push_back(std::move(entry));
  }
  ordered_json& events = out["events"] = ordered_json::array();
  for (const HistoryEvent& event : window.events) {
    events.push_back({{"at_ms", event.at_ms}, {"kind", event.kind}, {"detail", event.detail}});
  }
  ordered_json& diagnoses = out["diagnoses"] = ordered_json::array();
  for (const Diagnosis& d : m.diagnoses) {
    ordered_json entry;
    entry["kind"] = d.kind;
    entry["first_column"] = d.first_column;
    entry["last_column"] = d.last_column;
    entry["from_ms"] = d.from_ms;
    entry["to_ms"] = d.to_ms;
    entry["rows"] = d.rows;
    ordered_json path = ordered_json::array();
    for (const auto& [c, r] : d.path) path.push_back(ordered_json::array({c, r}));
    entry["path"] = std::move(path);
    entry["text"] = d.text;
    entry["advice"] = d.advice;
    diagnoses.push_back(std::move(entry));
  }
  if (with_metrics) {
    ordered_json& metrics = out["metrics"] = ordered_json::object();
    const auto matrix = [&](const char* name, auto value, bool bytes) {
      ordered_json by_column = ordered_json::array();
      for (size_t c = 0; c < columns; ++c) {
        ordered_json column = ordered_json::array();
        column.get_ref<ordered_json::array_t&>().reserve(rows);
        for (size_t r = 0; r < rows; ++r) column.push_back(Rounded(value(c, r), bytes));
        by_column.push_back(std::move(column));
      }
      metrics[name] = std::move(by_column);
    };
    matrix(
        "reads", [&](size_t c, size_t r) { return m.reads[c * rows + r]; }, false);
    matrix(
        "writes", [&](size_t c, size_t r) { return m.writes[c * rows + r]; }, false);
    matrix(
        "bytes", [&](size_t c, size_t r) { return m.bytes[c * rows + r]; }, true);
    matrix(
        "total", [&](size_t c, size_t r) { return m.total(c, r); }, false);
  }
  return out;
}

// One metric as [[column 0's rows], [column 1's rows], ...], numbers written directly: for a
// 1,000-row, 360-column answer this is 1.4 million numbers, and a JSON value per number would
// cost more than the rendering.
template <typename Value>
void AppendMatrix(std::string& out, size_t columns, size_t rows, bool bytes, Value value) {
  char buffer[32];
  out += '[';
  for (size_t c = 0; c < columns; ++c) {
    out += c == 0 ? "[" : ",[";
    for (size_t r = 0; r < rows; ++r) {
      if (r > 0) out += ',';
      const double v = Rounded(value(c, r), bytes);
      const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);
      out.append(buffer, error == std::errc() ? end : buffer);
    }
    out += ']';
  }
  out += ']';
}

}  // namespace

ordered_json MatrixJson(const KeyvizMatrix& m, const HistoryWindow& window) {
  return JsonOf(m, window, true);
}

std::string MatrixJsonText(const KeyvizMatrix& m, const HistoryWindow& window) {
  std::string out =
      JsonOf(m, window, false).dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  // The object's closing brace goes after the metrics, which come last.
  out.pop_back();
  const size_t rows = m.row_count(), columns = m.columns.size();
  out.reserve(out.size() + columns * rows * 4 * 6 + 64);
  out += ",\"metrics\":{\"reads\":";
  AppendMatrix(out, columns, rows, false,
               [&](size_t c, size_t r) { return m.reads[c * rows + r]; });
  out += ",\"writes\":";
  AppendMatrix(out, columns, rows, false,
               [&](size_t c, size_t r) { return m.writes[c * rows + r]; });
  out += ",\"bytes\":";
  AppendMatrix(out, columns, rows, true, [&](size_t c, size_t r) { return m.bytes[c * rows + r]; });
  out += ",\"total\":";
  AppendMatrix(out, columns, rows, false, [&](size_t c, size_t r) { return m.total(c, r); });
  out += "}}";
  return out;
}

}  // namespace presplit::daemon::keyviz
