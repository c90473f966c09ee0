// Split points beyond HBase's RegionSplitter: explicit keys and the HBase shell's SPLITS_FILE,
// numbered partitions, quantiles of a key sample, and salt buckets sub-split by a second
// algorithm.
//
// Like split_algorithms.h, every function returns split keys (the start keys of every region
// but the first, raw bytes), and every list returned passes ValidateSplitKeys: non-empty,
// strictly increasing in unsigned byte order, no duplicates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/split_algorithms.h"
#include "presplit/status.h"

namespace presplit {

// ---------------------------------------------------------------------------------------------
// Explicit keys and SPLITS_FILE

// Reads the HBase shell's SPLITS_FILE format the way HBase 2.x's shell does
// (`File.foreach(file) { |line| splits << line.chomp }`, then Bytes.toBytesBinary on each):
//  - lines end at '\n'; one trailing '\r' is removed as well ("a\r\n" is "a"); the last line
//    needs no '\n';
//  - nothing else is trimmed: "a " is the two-byte key "a ", exactly as the shell reads it
//    (HBase 1.x's shell used `strip`; 2.x does not);
//  - each line is decoded with ParseBinaryKey (strict: a malformed "\x" escape is an error rather
//    than HBase's silent misreading), or with ToBytesBinary when `lenient` is true (byte-for-byte
//    what the shell passes to createTable).
// A blank line would give the shell an empty split key, which createTable refuses; here it is an
// InvalidArgument naming the line ("line 3: empty key"). The keys are then checked with
// ValidateSplitKeys, errors naming the line ("line 4: ... duplicate").
Result<std::vector<std::string>> ParseSplitsFile(std::string_view text, bool lenient = false);

// The SPLITS_FILE text of `keys`: one Bytes.toStringBinary key a line, each ending in '\n'.
// ParseSplitsFile(FormatSplitsFile(keys)) == keys for every valid list of keys.
std::string FormatSplitsFile(const std::vector<std::string>& keys);

// A list of row keys in the same line format (a key sample, one toStringBinary key a line, as
// presplitctl reads samples): lines split and chomped as ParseSplitsFile does, each decoded with
// ParseBinaryKey (errors name the line), but in any order, with duplicates, and a blank line is
// an empty key (SampledSplit ignores those).
Result<std::vector<std::string>> ParseKeyList(std::string_view text);

// Explicit split keys as given (raw bytes): checked with ValidateSplitKeys and returned
// unchanged. Not sorted on purpose: an unsorted list is more likely a mistake than an intent.
Result<std::vector<std::string>> ExplicitSplit(std::vector<std::string> keys);

// ---------------------------------------------------------------------------------------------
// Numbered partitions

// The 8-byte big-endian form of a partition id (Bytes.toBytes(long) for ids below 2^63): the
// row-key prefix of the "[id % n as 8-byte long][id]" pattern.
std::string PartitionPrefix(uint64_t partition);

// `regions` regions split at partition ids 1..regions-1 as 8-byte big-endian prefixes, so
// region i holds the rows whose prefix is partition i. InvalidArgument when regions is outside
// 1..kMaxSplitRegions; regions == 1 gives no keys.
Result<std::vector<std::string>> PartitionSplit(int regions);

// ---------------------------------------------------------------------------------------------
// Quantiles of a key sample

struct SampledSplitResult {
  std::vector<std::string> keys;  // the split keys (raw bytes)
  int requested_regions = 0;
  size_t sample_keys = 0;    // non-empty keys used
  size_t empty_keys = 0;     // empty keys in the sample, ignored
  size_t distinct_keys = 0;  // distinct non-empty keys (counted only when keys collapsed)
  // Human-readable notes on what was not as asked, e.g. "the sample has 3 distinct keys: 4
  // regions planned instead of 10". Empty when the result has the regions asked for.
  std::vector<std::string> notes;
};

// Split keys at the `regions`-quantiles of a sample of row keys (raw bytes): with the m
// non-empty sample keys in sorted order s[0..m-1], split key i (1 <= i < regions) is
// s[floor(i * m / regions)], so each region gets about m / regions of the sample. The sample is
// not sorted: the quantiles are found by selection (MSD radix selection: one pass buckets the
// keys by their first two bytes, only the buckets holding a quantile are split further, small
// ones sorted), O(m) expected time plus the bytes compared, and O(m) extra memory for key views;
// the sample itself is not copied.
//
// Duplicates and empty keys:
//  - empty keys are ignored (counted in empty_keys): the empty key is the table's start;
//  - a quantile equal to the previous one, or to the smallest sample key (which would leave the
//    first region without any sample key), is dropped, so the keys are strictly increasing;
//    the table then gets fewer regions than asked for and `notes` says so. This is not an
//    error: a sample with fewer distinct keys than regions has nowhere else to split.
// InvalidArgument when regions is outside 1..kMaxSplitRegions, the sample has no non-empty key,
// or a sample key is longer than kMaxRowKeyLength (naming its index).
Result<SampledSplitResult> SampledSplit(const std::vector<std::string>& sample, int regions);

// ---------------------------------------------------------------------------------------------
// Salt buckets sub-split

struct SaltedSplitOptions {
  int buckets = 1;
  SaltEncoding encoding = SaltEncoding::kByte;
  int salt_width = 0;  // 0: the minimum (see SaltWidth)
  int regions_per_bucket = 1;
  // How each bucket's range (the bytes after the salt prefix) is split into regions_per_bucket
  // regions: kHexString, kDecimalString, kUniform (HBase's algorithms with their default or the
  // given rows), kPartitions, or kSampled (quantiles of the sample keys that carry the bucket's
  // prefix, the prefix removed).
  SplitAlgorithm within_bucket = SplitAlgorithm::kUniform;
  std::optional<std::string> first_row, last_row;    // for the within-bucket algorithm
  const std::vector<std::string>* sample = nullptr;  // kSampled only: full row keys
};

// buckets * regions_per_bucket regions: for each bucket b, its salt prefix P(b) (a split key
// for b > 0, as SaltBucketSplit), then P(b) + w for each within-bucket split key w. Salt
// prefixes have a fixed width, so the keys are sorted. With kSampled a bucket whose sample has
// too few distinct keys gets fewer regions (noted in `notes` if not null). InvalidArgument for a
// bad salt (see SaltWidth), regions_per_bucket < 1, more than kMaxSplitRegions regions in all,
// an algorithm that cannot split a bucket (kSaltBuckets, kExplicit), or kSampled without a
// sample; errors of the within-bucket algorithm are returned with the context "within bucket".
Result<std::vector<std::string>> SaltedSubSplit(const SaltedSplitOptions& options,
                                                std::vector<std::string>* notes = nullptr);

}  // namespace presplit
