#include "daemon/keyviz/load_history.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include "presplit/bytes.h"

namespace presplit::daemon::keyviz {
namespace {

// bfloat16: the upper half of a float, rounded to nearest even. Rates and sizes keep 8 bits of
// exponent (no overflow for any size in bytes) and 8 bits of mantissa (within 0.4%).
uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return 0x7FC0;
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
float FromBf16(uint16_t h) {
  uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// A region without a rate in a column: its read value is this NaN.
constexpr uint16_t kNoRate = 0x7FC1;
bool IsNoRate(uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0; }

// An end key, "" being the end of the table.
bool EndBefore(std::string_view a, std::string_view b) {  // a < b
  if (a.empty()) return false;
  if (b.empty()) return true;
  return a < b;
}
// A start key before an end key ("" starts before everything, "" ends after everything).
bool StartsBefore(std::string_view start, std::string_view end) {
  return end.empty() || start < end;
}
// [s1, e1) and [s2, e2) share a key.
bool Overlap(std::string_view s1, std::string_view e1, std::string_view s2, std::string_view e2) {
  return StartsBefore(s2, e1) && StartsBefore(s1, e2);
}

bool SameLayout(const KeyLayout& a, const KeyLayout& b) {
  return a.buckets == b.buckets && a.encoding == b.encoding && a.salt_width == b.salt_width &&
         a.hash == b.hash && a.salt_from_key == b.salt_from_key &&
         a.group_length == b.group_length && a.group_delimiter == b.group_delimiter;
}

// Heap bytes of a string beyond the object (libstdc++ keeps up to 15 bytes inline), with the
// allocator's per-block overhead.
constexpr size_t kBlockOverhead = 16;
size_t StrHeap(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 1 + kBlockOverhead : 0;
}
template <typename T>
size_t VecHeap(const std::vector<T>& v) {
  return v.capacity() == 0 ? 0 : v.capacity() * sizeof(T) + kBlockOverhead;
}

// Keys for people: printable ASCII as is, other bytes as \xNN (HBase's toStringBinary), at most
// the first kEventKeyBytes bytes and then "...": they go into events' details, which the budget
// never drops, and users' keys may be kilobytes long.
constexpr size_t kEventKeyBytes = 64;

int64_t Slot(int64_t t_ms, int64_t resolution_ms) {
  // The slot of a sample ending at t: (k * res, (k + 1) * res]; floor division for any sign.
  int64_t x = t_ms - 1;
  return x >= 0 ? x / resolution_ms : -((-x + resolution_ms - 1) / resolution_ms);
}

}  // namespace

Status CheckLoadHistoryOptions(const LoadHistoryOptions& o) {
  if (o.fine.resolution_ms <= 0 || o.coarse.resolution_ms <= 0) {
    return Status::InvalidArgument("keyviz: the tiers' resolutions must be positive");
  }
  if (o.fine.retention_ms < o.fine.resolution_ms) {
    return Status::InvalidArgument("keyviz: the fine retention must be at least its resolution");
  }
  if (o.coarse.resolution_ms % o.fine.resolution_ms != 0) {
    return Status::InvalidArgument(
        "keyviz: the coarse resolution must be a multiple of the fine resolution");
  }
  if (o.coarse.retention_ms <= o.fine.retention_ms ||
      o.coarse.retention_ms < o.coarse.resolution_ms) {
    return Status::InvalidArgument(
        "keyviz: the coarse retention must be longer than the fine retention and at least the "
        "coarse resolution");
  }
  if (o.memory_budget_bytes == 0 || o.max_tables == 0 || o.max_regions_per_table == 0) {
    return Status::InvalidArgument("keyviz: the memory budget and the input caps must be positive");
  }
  return Status::Ok();
}

namespace {

struct Epoch {
  int32_t id = 0;
  std::string physical_table;
  int64_t generation = 1;
  KeyLayout layout;
  // Every region's start then end key, one after the other; offsets has 2n + 1 entries.
  std::string keys;
  std::vector<uint32_t> offsets{0};

  size_t size() const { return (offsets.size() - 1) / 2; }
  std::string_view start(size_t i) const {
    return std::string_view(keys).substr(offsets[2 * i], offsets[2 * i + 1] - offsets[2 * i]);
  }
  std::string_view end(size_t i) const {
    return std::string_view(keys).substr(offsets[2 * i + 1],
                                         offsets[2 * i + 2] - offsets[2 * i + 1]);
  }
  void Add(std::string_view start_key, std::string_view end_key) {
    keys.append(start_key);
    offsets.push_back(static_cast<uint32_t>(keys.size()));
    keys.append(end_key);
    offsets.push_back(static_cast<uint32_t>(keys.size()));
  }
  size_t Bytes() const {
    return sizeof(Epoch) + StrHeap(keys) + VecHeap(offsets) + StrHeap(physical_table) +
           (layout.group_delimiter ? StrHeap(*layout.group_delimiter) : 0);
  }
};

// 40 bytes and one block of values: 2,000 tables x 300 columns are 600,000 of them.
struct Column {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  // The time its samples cover: end - start for a fine column; for a coarse one the sum over the
  // fine columns merged into it, which leaves out the gaps between them (an outage, a standby
  // that was down), so a merge weighs each part by the time it was measured, not by its span.
  int64_t covered_ms = 0;
  int32_t epoch_id = 0;
  uint32_t n = 0;  // regions
  // read[n] write[n] size[n], bfloat16; read = kNoRate when the region had no rate.
  std::unique_ptr<uint16_t[]> values;

  // The block (the object itself is in its tier's vector).
  size_t Bytes() const { return n == 0 ? 0 : ((6 * size_t{n} + 8 + 15) & ~size_t{15}); }
};

// Merges `newer` (of the same epoch) into `older`: rates weighted by each column's time over
// the columns where the region had one; the newer size.
void MergeInto(Column& older, const Column& newer) {
  const size_t n = older.n;
  const double wa = static_cast<double>(std::max<int64_t>(older.covered_ms, 1));
  const double wb = static_cast<double>(std::max<int64_t>(newer.covered_ms, 1));
  for (size_t i = 0; i < n; ++i) {
    const bool a = !IsNoRate(older.values[i]);
    const bool b = !IsNoRate(newer.values[i]);
    if (a && b) {
      for (size_t k : {i, n + i}) {
        older.values[k] = ToBf16(static_cast<float>(
            (FromBf16(older.values[k]) * wa + FromBf16(newer.values[k]) * wb) / (wa + wb)));
      }
    } else if (b) {
      older.values[i] = newer.values[i];
      older.values[n + i] = newer.values[n + i];
    }
    older.values[2 * n + i] = newer.values[2 * n + i];
  }
  older.end_ms = std::max(older.end_ms, newer.end_ms);
  older.covered_ms += std::max<int64_t>(newer.covered_ms, 1);
}

}  // namespace

struct LoadHistory::Table {
  std::string name;
  std::deque<Epoch> epochs;  // oldest first; back() is the current one
  std::vector<Column> fine;  // closed fine columns, oldest first
  std::vector<Column> coarse;
  std::deque<HistoryEvent> events;
  // The fine tier's newest column, still taking samples (of the current epoch).
  bool open = false;
  int64_t open_start_ms = 0;
  int64_t open_end_ms = 0;
  int64_t open_slot = 0;
  std::vector<double> read_w, write_w, rated_w;  // sums of rate x time, and time with a rate
  std::vector<float> last_size;                  // per region of the current epoch
  int64_t last_sample_ms = std::numeric_limits<int64_t>::min();
  int32_t next_epoch_id = 0;
  size_t bytes = 0;
};

LoadHistory::LoadHistory(LoadHistoryOptions options) : options_(std::move(options)) {}
LoadHistory::~LoadHistory() = default;

// Closes the table's open column into its fine tier.
static void CloseOpenColumn(LoadHistory::Table& t) {
  if (!t.open) return;
  t.open = false;
  const size_t n = t.last_size.size();
  Column c;
  c.start_ms = t.open_start_ms;
  c.end_ms = t.open_end_ms;
  c.covered_ms = std::max<int64_t>(c.end_ms - c.start_ms, 1);
  c.epoch_id = t.epochs.back().id;
  c.n = static_cast<uint32_t>(n);
  c.values.reset(new uint16_t[3 * n]);
  for (size_t i = 0; i < n; ++i) {
    if (t.rated_w[i] > 0) {
      c.values[i] = ToBf16(static_cast<float>(t.read_w[i] / t.rated_w[i]));
      c.values[n + i] = ToBf16(static_cast<float>(t.write_w[i] / t.rated_w[i]));
    } else {
      c.values[i] = kNoRate;
      c.values[n + i] = 0;
    }
    c.values[2 * n + i] = ToBf16(t.last_size[i]);
  }
  t.fine.push_back(std::move(c));
}

static void StartOpenColumn(LoadHistory::Table& t, int64_t start_ms, int64_t slot) {
  const size_t n = t.epochs.back().size();
  t.open = true;
  t.open_start_ms = start_ms;
  t.open_end_ms = start_ms;
  t.open_slot = slot;
  t.read_w.assign(n, 0);
  t.write_w.assign(n, 0);
  t.rated_w.assign(n, 0);
}

// Drops the epochs no column refers to, the current one excepted.
static void DropUnusedEpochs(LoadHistory::Table& t) {
  int32_t oldest = t.epochs.empty() ? 0 : t.epochs.back().id;
  if (!t.coarse.empty()) oldest = std::min(oldest, t.coarse.front().epoch_id);
  if (!t.fine.empty()) oldest = std::min(oldest, t.fine.front().epoch_id);
  while (t.epochs.size() > 1 && t.epochs.front().id < oldest) t.epochs.pop_front();
}

// The events of a change of regions from `from` to `to` (same physical table): one per group
// of overlapping regions that are not in both.
static void BoundaryEvents(const Epoch& from, const Epoch& to, int64_t at_ms,
                           std::vector<HistoryEvent>& events) {
  struct Piece {
    std::string_view start, end;
    bool is_new;
  };
  std::vector<Piece> pieces;
  size_t i = 0, j = 0;
  // Both are sorted by start key; a region in both (same start and end) did not change.
  while (i < from.size() || j < to.size()) {
    if (j == to.size() || (i < from.size() && from.start(i) < to.start(j))) {
      pieces.push_back({from.start(i), from.end(i), false});
      ++i;
    } else if (i == from.size() || to.start(j) < from.start(i)) {
      pieces.push_back({to.start(j), to.end(j), true});
      ++j;
    } else {
      if (from.end(i) != to.end(j)) {
        pieces.push_back({from.start(i), from.end(i), false});
        pieces.push_back({to.start(j), to.end(j), true});
      }
      ++i;
      ++j;
    }
  }
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Piece& a, const Piece& b) { return a.start < b.start; });
  constexpr size_t kShown = 8;
  for (size_t k = 0; k < pieces.size();) {
    std::string_view group_end = pieces[k].end;
    size_t e = k + 1;
    while (e < pieces.size() && StartsBefore(pieces[e].start, group_end)) {
      if (EndBefore(group_end, pieces[e].end)) group_end = pieces[e].end;
      ++e;
    }
    std::vector<const Piece*> olds, news;
    for (size_t m = k; m < e; ++m) (pieces[m].is_new ? news : olds).push_back(&pieces[m]);
    if (!olds.empty() && !news.empty()) {
      auto list = [](const std::vector<const Piece*>& v) {
        std::string out;
        for (size_t m = 0; m < v.size() && m < kShown; ++m) {
          if (m) out += ' ';
          out += "[" + ToStringBinaryPrefix(v[m]->start, kEventKeyBytes) + ", " +
                 ToStringBinaryPrefix(v[m]->end, kEventKeyBytes) + ")";
        }
        if (v.size() > kShown) out += " (+" + std::to_string(v.size() - kShown) + " more)";
        return out;
      };
      HistoryEvent event;
      event.at_ms = at_ms;
      event.kind = news.size() > olds.size() ? "split" : "merge";
      event.detail = to.physical_table + " region" + (olds.size() > 1 ? "s " : " ") + list(olds) +
                     " -> " + list(news);
      events.push_back(std::move(event));
    }
    k = e;
  }
}

RecordResult LoadHistory::Record(int64_t now_ms, const std::vector<TableSample>& samples) {
  RecordResult result;
  std::lock_guard<std::mutex> lock(mu_);
  ++counters_.records;
  const int64_t fine_res = options_.fine.resolution_ms;
  std::vector<size_t> order;
  std::vector<int64_t> place;  // the current epoch's index of each taken region
  for (const TableSample& sample : samples) {
    auto found = tables_.find(sample.table);
    if (found == tables_.end() && tables_.size() >= options_.max_tables) {
      ++result.tables_refused;
      continue;
    }
    bool long_key = false;
    for (const auto& r : sample.regions) {
      if (r.start_key.size() > options_.max_key_bytes ||
          r.end_key.size() > options_.max_key_bytes) {
        long_key = true;
        break;
      }
    }
    if (long_key) {
      ++result.tables_refused;
      continue;
    }
    // The regions in key order; beyond the cap, and overlapping an earlier one, not taken.
    order.resize(sample.regions.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto& ra = sample.regions[a];
      const auto& rb = sample.regions[b];
      if (ra.start_key != rb.start_key) return ra.start_key < rb.start_key;
      return EndBefore(ra.end_key, rb.end_key);
    });
    if (order.size() > options_.max_regions_per_table) {
      result.regions_truncated += order.size() - options_.max_regions_per_table;
      order.resize(options_.max_regions_per_table);
    }
    {
      size_t kept = 0;
      const std::string* prev_end = nullptr;
      for (size_t i : order) {
        const auto& r = sample.regions[i];
        const bool empty_range = !r.end_key.empty() && r.end_key <= r.start_key;
        if (empty_range || (prev_end != nullptr && StartsBefore(r.start_key, *prev_end))) {
          ++result.regions_overlapping;
          continue;
        }
        order[kept++] = i;
        prev_end = &r.end_key;
      }
      order.resize(kept);
    }
    if (found == tables_.end()) {
      auto table = std::make_unique<Table>();
      table->name = sample.table;
      found = tables_.emplace(sample.table, std::move(table)).first;
    }
    if (found->second->last_sample_ms != std::numeric_limits<int64_t>::min() &&
        now_ms < found->second->last_sample_ms - fine_res) {
      // The wall clock stepped back (NTP, an operator) by more than a column: the columns kept
      // end after every time still to come, and new ones would go before them. The table's
      // history starts again rather than stopping until the clock passes its last column.
      auto fresh = std::make_unique<Table>();
      fresh->name = sample.table;
      found->second = std::move(fresh);
      ++result.histories_restarted;
    }
    Table& t = *found->second;
    if (now_ms <= t.last_sample_ms) continue;  // time did not advance: nothing to add
    const bool first = t.last_sample_ms == std::numeric_limits<int64_t>::min();
    // The sample covers [from, now): since the previous one, at most one fine resolution.
    const int64_t from = first ? now_ms : std::max(t.last_sample_ms, now_ms - fine_res);

    // Does the sample fit the current epoch?
    place.assign(order.size(), -1);
    bool same = !t.epochs.empty();
    bool migration = false;
    if (same) {
      const Epoch& e = t.epochs.back();
      if (e.physical_table != sample.physical_table || e.generation != sample.generation ||
          !SameLayout(e.layout, sample.layout)) {
        same = false;
        migration = true;
      } else {
        // Both in key order: walk them together.
        size_t j = 0;
        for (size_t k = 0; k < order.size() && same; ++k) {
          const auto& r = sample.regions[order[k]];
          while (j < e.size() && e.start(j) < r.start_key) ++j;
          if (j < e.size() && e.start(j) == r.start_key && e.end(j) == r.end_key) {
            place[k] = static_cast<int64_t>(j);
          } else {
            same = false;
          }
        }
      }
    }
    if (!same) {
      Epoch next;
      next.id = t.next_epoch_id++;
      next.physical_table = sample.physical_table;
      next.generation = sample.generation;
      next.layout = sample.layout;
      std::vector<float> sizes;
      // The sample's regions, and (boundaries changed) the old regions none of them overlaps.
      const Epoch* old = (!t.epochs.empty() && !migration) ? &t.epochs.back() : nullptr;
      size_t keys = 0;
      for (size_t i : order)
        keys += sample.regions[i].start_key.size() + sample.regions[i].end_key.size();
      next.keys.reserve(keys + (old ? old->keys.size() : 0));
      next.offsets.reserve(2 * (order.size() + (old ? old->size() : 0)) + 1);
      size_t j = 0;
      auto overlapped = [&](size_t oi) {
        // The first sample region ending after the old one's start: does it start before its end?
        auto it = std::partition_point(order.begin(), order.end(), [&](size_t s) {
          const auto& end = sample.regions[s].end_key;
          return !end.empty() && std::string_view(end) <= old->start(oi);
        });
        return it != order.end() &&
               Overlap(sample.regions[*it].start_key, sample.regions[*it].end_key, old->start(oi),
                       old->end(oi));
      };
      for (size_t k = 0; k <= order.size(); ++k) {
        // Old regions before this sample region (by start key) that nothing overlaps.
        while (old && j < old->size() &&
               (k == order.size() || old->start(j) < sample.regions[order[k]].start_key)) {
          // Within the cap, the sample's own regions first.
          if (next.size() + (order.size() - k) < options_.max_regions_per_table && !overlapped(j)) {
            next.Add(old->start(j), old->end(j));
            sizes.push_back(t.last_size[j]);
          }
          ++j;
        }
        if (k == order.size()) break;
        const auto& r = sample.regions[order[k]];
        place[k] = static_cast<int64_t>(next.size());
        next.Add(r.start_key, r.end_key);
        sizes.push_back(0);
      }
      next.keys.shrink_to_fit();
      next.offsets.shrink_to_fit();
      // The events, at the time the new epoch starts.
      std::vector<HistoryEvent> events;
      if (!t.epochs.empty()) {
        const Epoch& prev = t.epochs.back();
        if (migration) {
          HistoryEvent event;
          event.at_ms = from;
          event.kind = "migration";
          event.detail = prev.physical_table + " (generation " + std::to_string(prev.generation) +
                         ", " + std::to_string(prev.size()) + " regions) -> " +
                         next.physical_table + " (generation " + std::to_string(next.generation) +
                         ", " + std::to_string(next.size()) + " regions)";
          events.push_back(std::move(event));
        } else {
          BoundaryEvents(prev, next, from, events);
        }
      }
      for (auto& event : events) t.events.push_back(std::move(event));
      while (t.events.size() > options_.max_events_per_table) t.events.pop_front();
      // The previous epoch ends where this one begins.
      if (t.open) {
        t.open_end_ms = std::min(t.open_end_ms, from);
        CloseOpenColumn(t);
      }
      t.epochs.push_back(std::move(next));
      t.last_size = std::move(sizes);
      t.last_size.shrink_to_fit();
      ++counters_.epochs_started;
    }
    const int64_t slot = Slot(now_ms, fine_res);
    if (t.open && t.open_slot != slot) CloseOpenColumn(t);
    if (!t.open) StartOpenColumn(t, from, slot);
    t.open_end_ms = now_ms;
    const double w = static_cast<double>(std::max<int64_t>(now_ms - from, 1));
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& r = sample.regions[order[k]];
      const size_t i = static_cast<size_t>(place[k]);
      // A rate that is not a finite number (the store trusts no input) counts as no rate: NaN
      // would poison the column's mean, and a stored NaN reads as "no rate" anyway.
      if (r.has_rate && std::isfinite(r.read_per_s) && std::isfinite(r.write_per_s)) {
        t.read_w[i] += std::max(r.read_per_s, 0.0) * w;
        t.write_w[i] += std::max(r.write_per_s, 0.0) * w;
        t.rated_w[i] += w;
      }
      t.last_size[i] = static_cast<float>(std::max<int64_t>(r.size_bytes, 0));
    }
    t.last_sample_ms = now_ms;
  }
  counters_.tables_refused += result.tables_refused;
  counters_.regions_refused += result.regions_truncated + result.regions_overlapping;
  counters_.histories_restarted += result.histories_restarted;

  // Every table ages, sampled or not; a table with nothing left goes.
  bytes_ = 0;
  for (auto it = tables_.begin(); it != tables_.end();) {
    Table& t = *it->second;
    Age(t, now_ms);
    if (!t.open && t.fine.empty() && t.coarse.empty()) {
      it = tables_.erase(it);
      continue;
    }
    t.bytes = TableBytes(t);
    bytes_ += t.bytes;
    ++it;
  }
  EnforceBudget(result);
  counters_.columns_dropped_by_budget += result.columns_dropped_by_budget;
  return result;
}

void LoadHistory::Age(Table& t, int64_t now_ms) {
  if (t.open && Slot(now_ms, options_.fine.resolution_ms) != t.open_slot) CloseOpenColumn(t);
  // Fine columns past their retention go into the coarse tier.
  size_t moved = 0;
  while (moved < t.fine.size() && t.fine[moved].end_ms <= now_ms - options_.fine.retention_ms) {
    Column& c = t.fine[moved];
    const int64_t slot = Slot(c.end_ms, options_.coarse.resolution_ms);
    if (!t.coarse.empty() && t.coarse.back().epoch_id == c.epoch_id &&
        Slot(t.coarse.back().end_ms, options_.coarse.resolution_ms) == slot) {
      MergeInto(t.coarse.back(), c);
    } else {
      t.coarse.push_back(std::move(c));
    }
    ++moved;
  }
  if (moved) t.fine.erase(t.fine.begin(), t.fine.begin() + static_cast<ptrdiff_t>(moved));
  size_t dropped = 0;
  while (dropped < t.coarse.size() &&
         t.coarse[dropped].end_ms <= now_ms - options_.coarse.retention_ms) {
    ++dropped;
  }
  if (dropped) t.coarse.erase(t.coarse.begin(), t.coarse.begin() + static_cast<ptrdiff_t>(dropped));
  while (!t.events.empty() && t.events.front().at_ms <= now_ms - options_.coarse.retention_ms) {
    t.events.pop_front();
  }
  DropUnusedEpochs(t);
}

size_t LoadHistory::TableBytes(const Table& t) const {
  size_t bytes = sizeof(Table) + kBlockOverhead + StrHeap(t.name) +
                 // the map's node: key, pointer and the tree's links
                 sizeof(std::string) + StrHeap(t.name) + sizeof(void*) * 5 + kBlockOverhead;
  for (const Epoch& e : t.epochs) bytes += e.Bytes();
  bytes += (t.epochs.size() / 8 + 2) * (512 + kBlockOverhead);  // the deque's blocks (~)
  bytes += VecHeap(t.fine) + VecHeap(t.coarse);
  for (const Column& c : t.fine) bytes += c.Bytes();
  for (const Column& c : t.coarse) bytes += c.Bytes();
  bytes += VecHeap(t.read_w) + VecHeap(t.write_w) + VecHeap(t.rated_w) + VecHeap(t.last_size);
  for (const HistoryEvent& e : t.events)
    bytes += sizeof(HistoryEvent) + StrHeap(e.kind) + StrHeap(e.detail);
  bytes += (t.events.size() * sizeof(HistoryEvent) / 512 + 2) * (512 + kBlockOverhead);
  return bytes;
}

void LoadHistory::EnforceBudget(RecordResult& result) {
  while (bytes_ > options_.memory_budget_bytes) {
    Table* largest = nullptr;
    for (auto& [name, table] : tables_) {
      if (table->coarse.empty() && table->fine.empty()) continue;
      if (largest == nullptr || table->bytes > largest->bytes) largest = table.get();
    }
    if (largest == nullptr) return;  // only open columns and current epochs left
    auto& tier = largest->coarse.empty() ? largest->fine : largest->coarse;
    tier.erase(tier.begin());
    DropUnusedEpochs(*largest);
    const size_t before = largest->bytes;
    largest->bytes = TableBytes(*largest);
    bytes_ = bytes_ - before + largest->bytes;
    ++result.columns_dropped_by_budget;
  }
}

Result<HistoryWindow> LoadHistory::Read(const std::string& table, int64_t from_ms,
                                        int64_t to_ms) const {
  if (from_ms > to_ms) {
    return Status::InvalidArgument("keyviz: the window's start is after its end");
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto found = tables_.find(table);
  if (found == tables_.end()) return Status::NotFound("keyviz: no history of table " + table);
  const Table& t = *found->second;
  auto in_window = [&](int64_t start, int64_t end) { return end >= from_ms && start <= to_ms; };
  {
    // Counted before anything is copied (LoadHistoryOptions' read bounds).
    size_t region_columns = 0;
    std::set<int32_t> epochs;
    auto count = [&](const Column& c) {
      if (!in_window(c.start_ms, c.end_ms)) return;
      region_columns += c.n;
      epochs.insert(c.epoch_id);
    };
    for (const Column& c : t.coarse) count(c);
    for (const Column& c : t.fine) count(c);
    if (t.open && in_window(t.open_start_ms, t.open_end_ms)) {
      region_columns += t.last_size.size();
      epochs.insert(t.epochs.back().id);
    }
    size_t epoch_regions = 0;
    for (int32_t id : epochs) {
      epoch_regions += t.epochs[static_cast<size_t>(id - t.epochs.front().id)].size();
    }
    if (region_columns > options_.max_read_region_columns ||
        epoch_regions > options_.max_read_epoch_regions) {
      return Status::InvalidArgument(
          "keyviz: the window holds " + std::to_string(region_columns) + " region-columns in " +
          std::to_string(epochs.size()) + " epochs of " + std::to_string(epoch_regions) +
          " regions; at most " + std::to_string(options_.max_read_region_columns) + " and " +
          std::to_string(options_.max_read_epoch_regions) + " are read: ask for a shorter time");
    }
  }
  HistoryWindow window;
  window.table = table;
  std::map<int32_t, int> epoch_index;
  auto epoch_of = [&](int32_t id) {
    auto [it, added] = epoch_index.emplace(id, static_cast<int>(window.epochs.size()));
    if (added) {
      const Epoch& e = t.epochs[static_cast<size_t>(id - t.epochs.front().id)];
      HistoryEpoch out;
      out.physical_table = e.physical_table;
      out.generation = e.generation;
      out.layout = e.layout;
      out.regions.reserve(e.size());
      for (size_t i = 0; i < e.size(); ++i) {
        out.regions.push_back({std::string(e.start(i)), std::string(e.end(i))});
      }
      window.epochs.push_back(std::move(out));
    }
    return it->second;
  };
  auto add = [&](const Column& c) {
    if (!in_window(c.start_ms, c.end_ms)) return;
    const size_t n = c.n;
    HistoryColumn out;
    out.start_ms = c.start_ms;
    out.end_ms = c.end_ms;
    out.epoch = epoch_of(c.epoch_id);
    out.read_per_s.resize(n);
    out.write_per_s.resize(n);
    out.size_bytes.resize(n);
    out.has_rate.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const bool rated = !IsNoRate(c.values[i]);
      out.has_rate[i] = rated;
      out.read_per_s[i] = rated ? FromBf16(c.values[i]) : 0;
      out.write_per_s[i] = rated ? FromBf16(c.values[n + i]) : 0;
      out.size_bytes[i] = FromBf16(c.values[2 * n + i]);
    }
    window.columns.push_back(std::move(out));
  };
  for (const Column& c : t.coarse) add(c);
  for (const Column& c : t.fine) add(c);
  if (t.open && in_window(t.open_start_ms, t.open_end_ms)) {
    // The open column as it would close now (full precision: it is not stored yet).
    const size_t n = t.last_size.size();
    HistoryColumn out;
    out.start_ms = t.open_start_ms;
    out.end_ms = t.open_end_ms;
    out.epoch = epoch_of(t.epochs.back().id);
    out.read_per_s.resize(n);
    out.write_per_s.resize(n);
    out.size_bytes.resize(n);
    out.has_rate.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const bool rated = t.rated_w[i] > 0;
      out.has_rate[i] = rated;
      out.read_per_s[i] = rated ? static_cast<float>(t.read_w[i] / t.rated_w[i]) : 0;
      out.write_per_s[i] = rated ? static_cast<float>(t.write_w[i] / t.rated_w[i]) : 0;
      out.size_bytes[i] = t.last_size[i];
    }
    window.columns.push_back(std::move(out));
  }
  for (const HistoryEvent& e : t.events) {
    if (e.at_ms >= from_ms && e.at_ms <= to_ms) window.events.push_back(e);
  }
  return window;
}

std::vector<std::string> LoadHistory::Tables() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, table] : tables_) out.push_back(name);
  return out;
}

size_t LoadHistory::MemoryBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sizeof(LoadHistory) + bytes_;
}

size_t LoadHistory::Columns() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [name, t] : tables_) n += t->fine.size() + t->coarse.size() + (t->open ? 1 : 0);
  return n;
}

LoadHistoryCounters LoadHistory::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace presplit::daemon::keyviz
