#include "presplit/key_fold.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string_view>
#include <tuple>
#include <utility>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"

namespace presplit {
namespace {

constexpr double kTwoTo64 = 18446744073709551616.0;

std::string Quote(std::string_view bytes) { return "'" + ToStringBinary(bytes) + "'"; }

std::string Describe(const std::vector<RegionLoad>& regions, size_t i) {
  return "region " + std::to_string(i) + " [" + Quote(regions[i].start_key) + ", " +
         Quote(regions[i].end_key) + ")";
}

// The first 8 bytes of a key, big-endian, zero-padded: its position times 2^64.
uint64_t Position(std::string_view key) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) {
    value = (value << 8) | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
  }
  return value;
}

// The width from `start` to `end` (to the end of the key space when to_end), computed exactly
// in integers before rounding, so that narrow ranges keep their precision.
double Width(std::string_view start, std::string_view end, bool to_end) {
  const uint64_t from = Position(start);
  if (to_end) return from == 0 ? 1.0 : static_cast<double>(uint64_t{0} - from) / kTwoTo64;
  return static_cast<double>(Position(end) - from) / kTwoTo64;
}

Status CheckInputs(const KeyLayout& layout, const std::vector<RegionLoad>& regions, int max_rows) {
  if (max_rows < 1) {
    return Status::InvalidArgument("max_rows is " + std::to_string(max_rows) +
                                   ", but a picture needs at least 1 row");
  }
  if (regions.size() > static_cast<size_t>(kMaxFoldRegions)) {
    return Status::InvalidArgument("the table has " + std::to_string(regions.size()) +
                                   " regions; at most " + std::to_string(kMaxFoldRegions) +
                                   " can be folded");
  }
  // The bucket count sizes the fold's tables, so a hand-made layout is checked as a document's.
  Result<KeyLayout> valid = MakeLayout(layout);
  if (!valid.ok()) return valid.status().WithContext("the layout");
  if (IsSalted(layout) && valid->salt_width != layout.salt_width) {
    return Status::InvalidArgument("the layout's salt width is not resolved (see MakeLayout)");
  }
  for (size_t i = 0; i < regions.size(); ++i) {
    const RegionLoad& region = regions[i];
    if (region.start_key.size() > kMaxRowKeyLength || region.end_key.size() > kMaxRowKeyLength) {
      return Status::InvalidArgument(Describe(regions, i) + " has a key longer than " +
                                     std::to_string(kMaxRowKeyLength) + " bytes");
    }
    if (!std::isfinite(region.value)) {
      return Status::InvalidArgument(Describe(regions, i) + " has a load that is not a number");
    }
    if (region.value < 0) {
      return Status::InvalidArgument(Describe(regions, i) + " has a negative load " +
                                     std::to_string(region.value));
    }
    if (!region.end_key.empty() && CompareBytes(region.end_key, region.start_key) <= 0) {
      return Status::InvalidArgument(Describe(regions, i) + " does not end after its start");
    }
    if (i > 0) {
      const std::string& previous_end = regions[i - 1].end_key;
      if (previous_end.empty() || CompareBytes(region.start_key, previous_end) < 0) {
        return Status::InvalidArgument(
            Describe(regions, i) + " starts before " + Describe(regions, i - 1) +
            " ends: regions must be sorted by start key and must not overlap");
      }
    }
  }
  return Status::Ok();
}

// A region boundary on the salted axis: a logical key in a bucket, or the end of a bucket.
struct Point {
  int bucket = 0;
  std::string_view logical;
  bool end_of_bucket = false;
};

class SaltAxis {
 public:
  explicit SaltAxis(const KeyLayout& layout) : layout_(layout) {
    salts_.reserve(static_cast<size_t>(layout.buckets));
    for (int b = 0; b < layout.buckets; ++b) {
      // CheckInputs made sure the layout's salt is well-formed, so this cannot fail.
      salts_.push_back(SaltPrefix(layout.encoding, layout.buckets, b, layout.salt_width).value());
    }
  }

  // Boundaries that name no bucket move to the next bucket's start (see key_fold.h): salts have
  // one width and increase with the bucket, so if the key's first salt_width bytes are no salt,
  // every bucket's rows sort entirely before or entirely after the key.
  Point Locate(std::string_view key, bool is_end) const {
    const int buckets = layout_.buckets;
    if (is_end && key.empty()) return Point{buckets - 1, {}, true};
    const auto width = static_cast<size_t>(layout_.salt_width);
    const auto less = [](const std::string& salt, std::string_view k) {
      return CompareBytes(salt, k) < 0;
    };
    if (key.size() >= width) {
      const std::string_view salt = key.substr(0, width);
      const auto at = std::lower_bound(salts_.begin(), salts_.end(), salt, less);
      if (at != salts_.end() && *at == salt) {
        return Point{static_cast<int>(at - salts_.begin()), key.substr(width), false};
      }
    }
    const auto next = std::lower_bound(salts_.begin(), salts_.end(), key, less);
    if (next == salts_.end()) return Point{buckets - 1, {}, true};
    return Point{static_cast<int>(next - salts_.begin()), {}, false};
  }

 private:
  const KeyLayout& layout_;
  std::vector<std::string> salts_;
};

// The width of [start, end) summed over its buckets, each whole bucket counting 1.
double StackedWidth(const Point& start, const Point& end) {
  if (start.bucket == end.bucket) {
    if (start.end_of_bucket) return 0;
    return Width(start.logical, end.logical, end.end_of_bucket);
  }
  const double tail = start.end_of_bucket ? 0 : Width(start.logical, {}, true);
  const double head = end.end_of_bucket ? 1.0 : Width({}, end.logical, false);
  return tail + (end.bucket - start.bucket - 1) + head;
}

// Greedy merging of adjacent items until at most max_rows remain: always the adjacent pair of the
// smallest combined width, the leftmost on ties. Returns the runs as [first, last) item indices.
std::vector<std::pair<size_t, size_t>> MergeRuns(const std::vector<double>& widths,
                                                 size_t max_rows) {
  const size_t n = widths.size();
  std::vector<double> width = widths;
  std::vector<size_t> last(n), next(n), previous(n), version(n, 0);
  std::vector<bool> alive(n, true);
  constexpr size_t kNone = static_cast<size_t>(-1);
  for (size_t i = 0; i < n; ++i) {
    last[i] = i + 1;
    next[i] = i + 1 < n ? i + 1 : kNone;
    previous[i] = i > 0 ? i - 1 : kNone;
  }
  // (combined width, left run, left's version, right's version): a pair is stale once either
  // run has changed or gone.
  using Pair = std::tuple<double, size_t, size_t, size_t>;
  std::priority_queue<Pair, std::vector<Pair>, std::greater<>> pairs;
  const auto push = [&](size_t left) {
    if (left == kNone || next[left] == kNone) return;
    const size_t right = next[left];
    pairs.emplace(width[left] + width[right], left, version[left], version[right]);
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i);
  size_t count = n;
  while (count > max_rows && !pairs.empty()) {
    const auto [combined, left, left_version, right_version] = pairs.top();
    pairs.pop();
    const size_t right = next[left];
    if (!alive[left] || right == kNone || version[left] != left_version ||
        version[right] != right_version) {
      continue;
    }
    width[left] = combined;
    last[left] = last[right];
    next[left] = next[right];
    if (next[right] != kNone) previous[next[right]] = left;
    alive[right] = false;
    ++version[left];
    --count;
    push(previous[left]);
    push(left);
  }
  std::vector<std::pair<size_t, size_t>> runs;
  runs.reserve(count);
  for (size_t i = 0; i < n; i = last[i]) runs.emplace_back(i, last[i]);
  return runs;
}

// A region's cover of the logical pieces: pieces [first, last) of one bucket, or of `times`
// whole buckets (bucket kWholeBuckets).
constexpr int kWholeBuckets = -1;
struct Segment {
  size_t first;
  size_t last;
  int bucket;
  double times;
};

}  // namespace

Result<std::vector<FoldedRow>> FoldPhysical(const KeyLayout& layout,
                                            const std::vector<RegionLoad>& regions, int max_rows) {
  PRESPLIT_RETURN_IF_ERROR(CheckInputs(layout, regions, max_rows));
  std::vector<double> widths(regions.size());
  if (IsSalted(layout)) {
    const SaltAxis axis(layout);
    for (size_t i = 0; i < regions.size(); ++i) {
      widths[i] = StackedWidth(axis.Locate(regions[i].start_key, false),
                               axis.Locate(regions[i].end_key, true));
    }
  } else {
    for (size_t i = 0; i < regions.size(); ++i) {
      widths[i] = Width(regions[i].start_key, regions[i].end_key, regions[i].end_key.empty());
    }
  }
  std::vector<FoldedRow> rows;
  for (const auto& [first, last] : MergeRuns(widths, static_cast<size_t>(max_rows))) {
    FoldedRow row;
    row.start_key = regions[first].start_key;
    row.end_key = regions[last - 1].end_key;
    for (size_t i = first; i < last; ++i) {
      row.value += regions[i].value;
      row.regions.push_back(static_cast<int>(i));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<FoldedRow>> FoldLogical(const KeyLayout& layout,
                                           const std::vector<RegionLoad>& regions, int max_rows) {
  PRESPLIT_RETURN_IF_ERROR(CheckInputs(layout, regions, max_rows));
  if (!IsSalted(layout)) return FoldPhysical(layout, regions, max_rows);
  const SaltAxis axis(layout);
  const size_t n = regions.size();
  std::vector<Point> starts(n), ends(n);
  // The cuts of the logical axis: every boundary's logical key, and the start of the key space.
  std::vector<std::string_view> cuts{std::string_view()};
  for (size_t i = 0; i < n; ++i) {
    starts[i] = axis.Locate(regions[i].start_key, false);
    ends[i] = axis.Locate(regions[i].end_key, true);
    if (!starts[i].end_of_bucket) cuts.push_back(starts[i].logical);
    if (!ends[i].end_of_bucket) cuts.push_back(ends[i].logical);
  }
  const auto less = [](std::string_view a, std::string_view b) { return CompareBytes(a, b) < 0; };
  std::sort(cuts.begin(), cuts.end(), less);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const size_t pieces = cuts.size();  // piece j is [cuts[j], cuts[j + 1]), the last to the end
  const auto index_of = [&](const Point& point) {
    if (point.end_of_bucket) return pieces;
    return static_cast<size_t>(std::lower_bound(cuts.begin(), cuts.end(), point.logical, less) -
                               cuts.begin());
  };
  std::vector<double> piece_width(pieces);
  for (size_t j = 0; j < pieces; ++j) {
    piece_width[j] = j + 1 < pieces ? Width(cuts[j], cuts[j + 1], false) : Width(cuts[j], {}, true);
  }
  double bucket_width = 0;  // the pieces' widths summed: 1 up to rounding
  for (double w : piece_width) bucket_width += w;

  // A region's load per unit of width can be huge (a hot region a few keys wide), so it is never
  // added to and later subtracted from a running sum shared with other regions: that would leave
  // a residue far larger than a small region's load. Instead, within one bucket the regions do
  // not overlap, so at any logical key at most one region per bucket is partly covering it; a
  // sum tree over the buckets holds that region's load per width, and its root is recomputed
  // from the leaves at every change. Whole buckets add to full_per_width, which only grows.
  // Loads shared per piece (width 0) are at most the region's load: a difference array suffices.
  struct Event {
    size_t at;
    bool starts;
    int bucket;
    double per_width;
  };
  std::vector<Event> events;
  double full_per_width = 0;
  std::vector<double> per_piece(pieces + 1, 0), cover(pieces + 1, 0);
  std::vector<std::vector<Segment>> segments(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t first = index_of(starts[i]);
    const size_t last = index_of(ends[i]);
    const int first_bucket = starts[i].bucket, last_bucket = ends[i].bucket;
    std::vector<Segment>& own = segments[i];
    if (first_bucket == last_bucket) {
      own.push_back({first, last, first_bucket, 1});
    } else {
      own.push_back({first, pieces, first_bucket, 1});
      own.push_back(
          {0, pieces, kWholeBuckets, static_cast<double>(last_bucket - first_bucket - 1)});
      own.push_back({0, last, last_bucket, 1});
    }
    std::erase_if(own, [](const Segment& s) { return s.first >= s.last || s.times == 0; });
    const bool holds_no_row = own.empty();
    if (holds_no_row) {
      // Its load still counts, at the point where it sits; as a load per piece, since the piece
      // also belongs to another region of the bucket.
      const size_t at = std::min(first, pieces - 1);
      own.push_back({at, at + 1, first_bucket, 1});
    }
    // Widths from the keys themselves: a difference of two running sums of widths would lose a
    // narrow region's width to rounding.
    double width = 0, count = 0;
    for (const Segment& s : own) {
      if (holds_no_row) break;
      width += s.bucket == kWholeBuckets
                   ? s.times * bucket_width
                   : Width(cuts[s.first], s.last < pieces ? cuts[s.last] : std::string_view(),
                           s.last == pieces);
    }
    for (const Segment& s : own) count += s.times * static_cast<double>(s.last - s.first);
    for (const Segment& s : own) {
      cover[s.first] += s.times;
      cover[s.last] -= s.times;
      if (width <= 0) {
        const double share = regions[i].value / count * s.times;
        per_piece[s.first] += share;
        per_piece[s.last] -= share;
      } else if (s.bucket == kWholeBuckets) {
        full_per_width += regions[i].value / width * s.times;
      } else {
        const double per_width = regions[i].value / width;
        events.push_back({s.first, true, s.bucket, per_width});
        events.push_back({s.last, false, s.bucket, 0});
      }
    }
  }
  // At a cut, a bucket's region that ends there goes before the one that starts there.
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.at != b.at ? a.at < b.at : a.starts < b.starts;
  });
  size_t leaves = 1;
  while (leaves < static_cast<size_t>(layout.buckets)) leaves *= 2;
  std::vector<double> tree(2 * leaves, 0);
  const auto set_leaf = [&](int bucket, double value) {
    size_t node = leaves + static_cast<size_t>(bucket);
    tree[node] = value;
    for (node /= 2; node >= 1; node /= 2) tree[node] = tree[2 * node] + tree[2 * node + 1];
  };

  // Pieces with their values; those no region covers are dropped.
  std::vector<size_t> kept;
  std::vector<double> kept_width, kept_value;
  double running_piece = 0, running_cover = 0;
  size_t next_event = 0;
  for (size_t j = 0; j < pieces; ++j) {
    for (; next_event < events.size() && events[next_event].at == j; ++next_event) {
      set_leaf(events[next_event].bucket, events[next_event].per_width);
    }
    running_piece += per_piece[j];
    running_cover += cover[j];
    if (running_cover <= 0.5) continue;  // counts are whole numbers; this ignores rounding
    kept.push_back(j);
    kept_width.push_back(piece_width[j]);
    // Clamped: the running sum may leave a rounding residue of either sign after a region.
    kept_value.push_back((tree[1] + full_per_width) * piece_width[j] +
                         std::max(0.0, running_piece));
  }
  const auto runs = MergeRuns(kept_width, static_cast<size_t>(max_rows));
  const size_t row_count = runs.size();
  std::vector<size_t> row_of_piece(pieces, 0);
  std::vector<FoldedRow> rows(row_count);
  for (size_t r = 0; r < row_count; ++r) {
    const auto [first, last] = runs[r];
    rows[r].start_key = std::string(cuts[kept[first]]);
    const size_t end_piece = kept[last - 1] + 1;
    rows[r].end_key = end_piece < pieces ? std::string(cuts[end_piece]) : std::string();
    for (size_t k = first; k < last; ++k) {
      row_of_piece[kept[k]] = r;
      rows[r].value += kept_value[k];
    }
  }

  // Which rows each region touches: the union of its segments' row ranges. Counted first, so that
  // an oversized answer is refused before it is built.
  std::vector<std::vector<std::pair<size_t, size_t>>> touched(n);
  size_t contributions = 0;
  for (size_t i = 0; i < n; ++i) {
    auto& ranges = touched[i];
    for (const Segment& s : segments[i]) {
      ranges.emplace_back(row_of_piece[s.first], row_of_piece[s.last - 1] + 1);
    }
    std::sort(ranges.begin(), ranges.end());
    size_t out = 0;
    for (size_t k = 1; k < ranges.size(); ++k) {
      if (ranges[k].first <= ranges[out].second) {
        ranges[out].second = std::max(ranges[out].second, ranges[k].second);
      } else {
        ranges[++out] = ranges[k];
      }
    }
    ranges.resize(out + 1);
    for (const auto& [first, last] : ranges) contributions += last - first;
  }
  if (contributions > kMaxFoldContributions) {
    return Status::InvalidArgument("the folded rows would name " + std::to_string(contributions) +
                                   " contributing regions in all (at most " +
                                   std::to_string(kMaxFoldContributions) + "): ask for fewer rows");
  }
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [first, last] : touched[i]) {
      for (size_t r = first; r < last; ++r) rows[r].regions.push_back(static_cast<int>(i));
    }
  }
  return rows;
}

}  // namespace presplit

namespace presplit {
namespace {

// A region's cover of the shared axis: [from, to) counted `times` (whole buckets in the logical
// view count once per bucket).
struct AxisSpan {
  double from = 0;
  double to = 0;
  double times = 1;
};

double PositionOf(std::string_view key) { return static_cast<double>(Position(key)) / kTwoTo64; }

// A cut of the axis and the key it came from; `rank` orders the keys of one position (the
// newest epoch's wins, the ends of the key space before all).
struct AxisCut {
  double at = 0;
  std::string_view key;
  size_t rank = 0;
};

}  // namespace

Result<SharedAxis> SharedKeyAxis(const std::vector<AxisEpoch>& epochs, AxisView view,
                                 int max_rows) {
  if (max_rows < 1) {
    return Status::InvalidArgument("max_rows is " + std::to_string(max_rows) +
                                   ", but a picture needs at least 1 row");
  }
  if (epochs.size() > static_cast<size_t>(kMaxAxisEpochs)) {
    return Status::InvalidArgument(std::to_string(epochs.size()) + " epochs; at most " +
                                   std::to_string(kMaxAxisEpochs) + " share one axis");
  }
  size_t total_regions = 0;
  for (const AxisEpoch& epoch : epochs) total_regions += epoch.regions.size();
  if (total_regions > kMaxAxisRegions) {
    return Status::InvalidArgument(std::to_string(total_regions) + " regions in all; at most " +
                                   std::to_string(kMaxAxisRegions) + " share one axis");
  }
  const size_t newest_rank = epochs.size();
  std::vector<AxisCut> cuts{{0.0, {}, newest_rank}, {1.0, {}, newest_rank}};
  cuts.reserve(2 * total_regions + 2);
  std::vector<std::vector<std::vector<AxisSpan>>> spans(epochs.size());
  for (size_t e = 0; e < epochs.size(); ++e) {
    const AxisEpoch& epoch = epochs[e];
    PRESPLIT_RETURN_IF_ERROR(
        CheckInputs(epoch.layout, epoch.regions, 1).WithContext("epoch " + std::to_string(e)));
    const bool salted = IsSalted(epoch.layout);
    std::optional<SaltAxis> axis;
    if (salted) axis.emplace(epoch.layout);
    spans[e].resize(epoch.regions.size());
    for (size_t i = 0; i < epoch.regions.size(); ++i) {
      const RegionLoad& region = epoch.regions[i];
      std::vector<AxisSpan>& own = spans[e][i];
      if (!salted) {
        const double from = PositionOf(region.start_key);
        const double to = region.end_key.empty() ? 1.0 : PositionOf(region.end_key);
        own.push_back({from, to, 1});
        cuts.push_back({from, region.start_key, e});
        cuts.push_back({to, region.end_key, e});
        continue;
      }
      const Point start = axis->Locate(region.start_key, false);
      const Point end = axis->Locate(region.end_key, true);
      const auto logical = [](const Point& p) {
        return p.end_of_bucket ? 1.0 : PositionOf(p.logical);
      };
      if (view == AxisView::kPhysical) {
        const double buckets = epoch.layout.buckets;
        const double from = (start.bucket + logical(start)) / buckets;
        const double to = (end.bucket + logical(end)) / buckets;
        own.push_back({from, to, 1});
        cuts.push_back({from, region.start_key, e});
        cuts.push_back({to, region.end_key, e});
        continue;
      }
      if (start.bucket == end.bucket) {
        own.push_back({logical(start), logical(end), 1});
      } else {
        own.push_back({logical(start), 1.0, 1});
        if (end.bucket - start.bucket > 1) {
          own.push_back({0.0, 1.0, static_cast<double>(end.bucket - start.bucket - 1)});
        }
        own.push_back({0.0, logical(end), 1});
      }
      if (!start.end_of_bucket) cuts.push_back({logical(start), start.logical, e});
      if (!end.end_of_bucket) cuts.push_back({logical(end), end.logical, e});
    }
  }
  std::sort(cuts.begin(), cuts.end(), [](const AxisCut& a, const AxisCut& b) {
    return a.at != b.at ? a.at < b.at : a.rank > b.rank;
  });
  cuts.erase(std::unique(cuts.begin(), cuts.end(),
                         [](const AxisCut& a, const AxisCut& b) { return a.at == b.at; }),
             cuts.end());
  std::vector<double> widths(cuts.size() - 1);
  for (size_t j = 0; j + 1 < cuts.size(); ++j) widths[j] = cuts[j + 1].at - cuts[j].at;

  SharedAxis shared;
  shared.view = view;
  for (const auto& [first, last] : MergeRuns(widths, static_cast<size_t>(max_rows))) {
    AxisRow row;
    row.start_key = std::string(cuts[first].key);
    row.end_key = last + 1 < cuts.size() ? std::string(cuts[last].key) : std::string();
    row.start = cuts[first].at;
    row.end = cuts[last].at;
    shared.rows.push_back(std::move(row));
  }
  std::vector<double> row_ends(shared.rows.size());
  for (size_t r = 0; r < shared.rows.size(); ++r) row_ends[r] = shared.rows[r].end;
  const auto row_at = [&](double at) {
    const auto it = std::upper_bound(row_ends.begin(), row_ends.end(), at);
    return static_cast<int>(std::min<size_t>(it - row_ends.begin(), row_ends.size() - 1));
  };

  size_t contributions = 0;
  shared.shares.resize(epochs.size());
  shared.plans.resize(epochs.size());
  for (const AxisEpoch& epoch : epochs) shared.region_counts.push_back(epoch.regions.size());
  // One span's rows: the first and last it overlaps and those overlaps (the rows between are
  // covered whole).
  struct Cover {
    int first = 0;
    int last = -1;
    double first_overlap = 0;
    double last_overlap = 0;
    double times = 1;
    double width = 0;
  };
  std::vector<Cover> covers;
  std::vector<std::pair<int, double>> weights;
  for (size_t e = 0; e < epochs.size(); ++e) {
    std::vector<AxisShare>& out = shared.shares[e];
    SharedAxis::EpochPlan& plan = shared.plans[e];
    for (size_t i = 0; i < spans[e].size(); ++i) {
      weights.clear();
      covers.clear();
      double total = 0;
      for (const AxisSpan& span : spans[e][i]) {
        Cover cover;
        cover.times = span.times;
        cover.width = span.to - span.from;
        for (int r = row_at(span.from); r < static_cast<int>(shared.rows.size()); ++r) {
          const AxisRow& row = shared.rows[r];
          if (row.start >= span.to) break;
          const double overlap = std::min(span.to, row.end) - std::max(span.from, row.start);
          if (!(overlap > 0)) continue;
          if (cover.last < 0) {
            cover.first = r;
            cover.first_overlap = overlap;
          }
          cover.last = r;
          cover.last_overlap = overlap;
          weights.emplace_back(r, overlap * span.times);
          total += overlap * span.times;
        }
        if (cover.last >= 0) covers.push_back(cover);
      }
      std::sort(weights.begin(), weights.end());
      const int region = static_cast<int>(i);
      if (!(total > 0)) {
        const double at = spans[e][i].empty() ? 0.0 : spans[e][i].front().from;
        out.push_back({row_at(at), region, 1.0});
        plan.sparse.push_back(out.back());
        ++contributions;
        continue;
      }
      for (size_t k = 0; k < weights.size(); ++k) {
        if (k > 0 && weights[k].first == weights[k - 1].first) {
          out.back().fraction += weights[k].second / total;
        } else {
          out.push_back({weights[k].first, region, weights[k].second / total});
          ++contributions;
        }
      }
      // How ShareOntoAxis adds the region: a span over whole rows by its density (a difference
      // array over the rows, O(1) per span), anything else row by row. Only spans at least
      // kDenseMinWidth wide go by density: a narrow one's density is so large that adding and
      // removing it would leave a rounding residue larger than other regions' loads.
      constexpr double kDenseMinWidth = 1e-6;
      for (const Cover& cover : covers) {
        const double per_width = cover.times / total;
        if (cover.last - cover.first >= 2 && cover.width >= kDenseMinWidth) {
          plan.dense.push_back({region, cover.first, cover.last, cover.first_overlap * per_width,
                                cover.last_overlap * per_width, per_width});
          continue;
        }
        for (int r = cover.first; r <= cover.last; ++r) {
          const AxisRow& row = shared.rows[static_cast<size_t>(r)];
          const double overlap = r == cover.first  ? cover.first_overlap
                                 : r == cover.last ? cover.last_overlap
                                                   : row.end - row.start;
          plan.sparse.push_back({r, region, overlap * per_width});
        }
      }
      if (contributions > kMaxFoldContributions) {
        return Status::InvalidArgument(
            "the shared axis would hold more than " + std::to_string(kMaxFoldContributions) +
            " shares of regions in rows: ask for fewer rows or a shorter time");
      }
    }
    std::sort(out.begin(), out.end(), [](const AxisShare& a, const AxisShare& b) {
      return a.row != b.row ? a.row < b.row : a.region < b.region;
    });
  }
  return shared;
}

Status ShareOntoAxis(const SharedAxis& axis, int epoch, std::span<const float> values,
                     std::span<double> rows) {
  if (epoch < 0 || static_cast<size_t>(epoch) >= axis.plans.size()) {
    return Status::InvalidArgument("epoch " + std::to_string(epoch) + " is not on the axis");
  }
  if (rows.size() != axis.rows.size()) {
    return Status::InvalidArgument("expected " + std::to_string(axis.rows.size()) + " rows, got " +
                                   std::to_string(rows.size()));
  }
  const SharedAxis::EpochPlan& plan = axis.plans[static_cast<size_t>(epoch)];
  const size_t regions = axis.region_counts[static_cast<size_t>(epoch)];
  if (values.size() != regions) {
    return Status::InvalidArgument("epoch " + std::to_string(epoch) + " has " +
                                   std::to_string(regions) + " regions, got " +
                                   std::to_string(values.size()) + " values");
  }
  // A value from the store that is no rate (not finite, negative) counts nothing.
  const auto value_of = [&](int region) {
    const float value = values[static_cast<size_t>(region)];
    return std::isfinite(value) && value > 0 ? static_cast<double>(value) : 0.0;
  };
  for (const AxisShare& s : plan.sparse) {
    rows[static_cast<size_t>(s.row)] += s.fraction * value_of(s.region);
  }
  if (plan.dense.empty()) return Status::Ok();
  std::vector<double> density(rows.size() + 1, 0.0);
  for (const SharedAxis::DenseSpan& span : plan.dense) {
    const double value = value_of(span.region);
    if (value == 0) continue;
    rows[static_cast<size_t>(span.first)] += value * span.first_fraction;
    rows[static_cast<size_t>(span.last)] += value * span.last_fraction;
    density[static_cast<size_t>(span.first) + 1] += value * span.per_width;
    density[static_cast<size_t>(span.last)] -= value * span.per_width;
  }
  double running = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    running += density[r];
    // Clamped: the running sum may keep a rounding residue of either sign after a span.
    if (running > 0) rows[r] += running * (axis.rows[r].end - axis.rows[r].start);
  }
  return Status::Ok();
}

}  // namespace presplit
