// The key visualizer's rows: a table's per-region load laid over a key axis.
//
// A salted table spreads one logical key range over every bucket, so its physical regions show
// a hot logical range as thin stripes, one per bucket. FoldLogical strips the salt and stacks the
// buckets onto one logical axis, so that range shows as one hot row; FoldPhysical keeps the
// buckets one after the other (rows are regions), so a page can toggle between the two views.
//
// Keys as positions. A key's position is its first 8 bytes read as an unsigned big-endian
// number (shorter keys padded with zero bytes) divided by 2^64: a fraction in [0, 1); the end of
// the key space is 1. Only widths (differences of positions) are used: to share a region's load
// among the logical ranges it covers, and to choose which rows to merge. Keys that agree on their
// first 8 bytes therefore lie at one position: a range between them has width 0.
//
// Region boundaries on the salted axis. A boundary that starts with the complete salt of a bucket
// is that bucket plus the rest of the key (its logical key). Any other boundary (shorter than the
// salt, a partial salt such as "1" for a 2-character decimal salt, a salt that is no bucket) is
// moved to the first bucket's salt at or after it, or to the end of the last bucket when there
// is none: no well-formed row key lies between the two, so the region holds the same rows. An
// empty start key is the start of bucket 0, an empty end key the end of the last bucket.
//
// Input limits, since regions come from HBase and ZooKeeper: at most kMaxFoldRegions regions,
// keys at most kMaxRowKeyLength bytes, sorted by start key and not overlapping (gaps are allowed,
// e.g. for only the regions that reported load), each end after its start, loads finite and not
// negative, max_rows at least 1. Anything else is InvalidArgument naming the region; the work is
// O(n log n) in the number of regions.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "presplit/layout.h"
#include "presplit/status.h"

namespace presplit {

// Bounds the work and memory of one fold (HBase tables rarely have more than a few ten thousand
// regions).
inline constexpr int kMaxFoldRegions = 100'000;

// Bounds the total length of the rows' `regions` lists: with many buckets every logical row
// names one region per bucket, so rows x buckets can be large. A fold above it is refused and
// asks for fewer rows.
inline constexpr size_t kMaxFoldContributions = 10'000'000;

// One region's load. Physical row keys; an empty start is the table's start, an empty end its
// end.
struct RegionLoad {
  std::string start_key;
  std::string end_key;
  double value = 0;
};

// One row of the picture: the key range [start_key, end_key) (an empty end is the end of the key
// space; logical keys for FoldLogical, physical for FoldPhysical), the load in it, and the indices
// (into the input) of the regions that cover part of it, in increasing order.
struct FoldedRow {
  std::string start_key;
  std::string end_key;
  double value = 0;
  std::vector<int> regions;
};

// The load over the logical key space, every bucket folded onto it. The axis is cut at every
// region boundary's logical key; a region spanning buckets b1..b2 covers the tail of b1 (from its
// start's logical key), all of the buckets strictly between, and the head of b2 (up to its end's
// logical key). Each region's load is shared among the pieces it covers in proportion to their
// width (counting a piece once per bucket it is covered in); a region of width 0 shares it
// equally among its pieces, and one that holds no row key at all (both boundaries move to the
// same point) gives it to the piece at that point. A piece's value is the sum over all regions,
// i.e. over all buckets. Pieces that no region covers are no rows (with all of a table's regions
// the rows tile the logical key space). Then adjacent rows are merged until at most max_rows
// remain: always the adjacent pair of the smallest combined width, the leftmost on ties, so the
// rows end up of similar widths while the key space stays in order. The values sum to the
// inputs' sum (up to rounding). For an unsalted layout this is FoldPhysical.
Result<std::vector<FoldedRow>> FoldLogical(const KeyLayout& layout,
                                           const std::vector<RegionLoad>& regions, int max_rows);

// The unfolded view: one row per region, in key order (the buckets one after another), merged
// down to max_rows by the same rule, a region's width being the width it covers summed over its
// buckets (each whole bucket counts 1). Row keys are the regions' physical keys.
Result<std::vector<FoldedRow>> FoldPhysical(const KeyLayout& layout,
                                            const std::vector<RegionLoad>& regions, int max_rows);

// ---------------------------------------------------------------------------------------------
// One key axis for a stretch of time (the key visualizer's heatmap).
//
// FoldLogical and FoldPhysical fold one moment; a heatmap needs one y axis for every column,
// while the regions change under it (splits, merges, a migration to another bucket count).
// SharedKeyAxis builds that axis from every set of region boundaries in the window (an
// "epoch"), and ShareOntoAxis lays one moment's region values onto it.
//
// Positions. Every key is placed on [0, 1] as in the folds above:
//  - logical view of a salted table: the logical key's position (the salt removed); a region
//    spanning buckets covers the tail of its first bucket, the whole buckets between and the
//    head of its last, each counted in every bucket it covers;
//  - physical view of a salted table: bucket b of N spans [b/N, (b+1)/N), a key in it at
//    (b + position of its logical key) / N. Physical keys differ across a migration (another
//    bucket count, another physical table), so both generations are drawn over the same
//    fraction of the axis: bucket 3 of 8 and buckets 6-7 of 16 share a band. Row labels are the
//    physical keys of the newest epoch that has a boundary there;
//  - unsalted tables: the key's own position; both views are the same.
// Logical keys do not change in a migration, so the logical view is continuous across one.
//
// The axis is cut at every region boundary of every epoch (and at 0 and 1), then adjacent pieces
// are merged until at most max_rows remain by FoldLogical's rule (the adjacent pair of the
// smallest combined width first, the leftmost on ties). A region's value is shared among the
// rows it overlaps in proportion to the overlap's width (times the buckets it covers), so every
// moment's row values sum to its regions' values (up to rounding); a region of width 0 gives all
// of it to the row at its start. Positions are doubles: keys that agree to a double's precision
// (their first 6 to 7 bytes) lie at one position and make one cut, so a region between them has
// width 0.
//
// Input limits: each epoch as for the folds (kMaxFoldRegions regions, sorted, not overlapping),
// at most kMaxAxisEpochs epochs and kMaxAxisRegions regions in all, max_rows at least 1; the
// shares in all at most kMaxFoldContributions. Anything else is InvalidArgument.

inline constexpr int kMaxAxisEpochs = 10'000;
inline constexpr size_t kMaxAxisRegions = 1'000'000;

enum class AxisView { kLogical, kPhysical };

// One set of region boundaries and the layout of the table they belong to. Only the regions'
// keys are used (their values are not).
struct AxisEpoch {
  KeyLayout layout;
  std::vector<RegionLoad> regions;
};

// A region's part of one row: `fraction` of its value goes to row `row`.
struct AxisShare {
  int row = 0;
  int region = 0;
  double fraction = 0;
};

struct AxisRow {
  std::string start_key;  // logical keys in the logical view, physical ones in the physical view
  std::string end_key;    // "" = the end of the key space
  double start = 0;       // the row's positions on [0, 1]
  double end = 0;
};

struct SharedAxis {
  AxisView view = AxisView::kLogical;
  std::vector<AxisRow> rows;
  // Per epoch, the shares of its regions, sorted by row then region; each region's fractions
  // sum to 1 (a region in no row at all cannot happen: the rows tile [0, 1]).
  std::vector<std::vector<AxisShare>> shares;
  std::vector<size_t> region_counts;  // per epoch

  // How ShareOntoAxis adds an epoch's values, in O(spans + rows) per moment rather than
  // O(shares): a logical row of a table with B buckets takes a share of B regions, so the shares
  // number rows x B. A span over whole rows adds its density (value per width) to a difference
  // array; the rest (spans over one or two rows, narrow ones) are added row by row.
  struct DenseSpan {
    int region = 0;
    int first = 0;  // the partly covered first and last rows; those between are whole
    int last = 0;
    double first_fraction = 0;  // of the region's value, into `first`
    double last_fraction = 0;
    double per_width = 0;  // of the region's value per unit of width, into the rows between
  };
  struct EpochPlan {
    std::vector<DenseSpan> dense;
    std::vector<AxisShare> sparse;
  };
  std::vector<EpochPlan> plans;
};

Result<SharedAxis> SharedKeyAxis(const std::vector<AxisEpoch>& epochs, AxisView view, int max_rows);

// Adds one moment's region values (aligned with epoch `epoch`'s regions) onto `rows` (one per
// axis row): what the shares say, up to rounding. InvalidArgument for sizes that do not match.
// O(the epoch's regions + rows) for regions spanning several rows.
Status ShareOntoAxis(const SharedAxis& axis, int epoch, std::span<const float> values,
                     std::span<double> rows);

}  // namespace presplit
