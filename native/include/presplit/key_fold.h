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

}  // namespace presplit
