// When a region splits by size: HBase 2.6's size-based split policies as plain arithmetic, so the
// RegionServer's policy (through JNI) and presplit's simulator share one implementation.
//
// What HBase 2.6 computes (org.apache.hadoop.hbase.regionserver):
//  - every policy starts from desiredMaxFileSize = the table's MAX_FILESIZE, else
//    hbase.hregion.max.filesize (10 GiB), with jitter applied once per region:
//    jitterRate = (rand - 0.5) * hbase.hregion.max.filesize.jitter (0.25), rand a float in
//    [0, 1); desiredMaxFileSize += (long) (desiredMaxFileSize * jitterRate), saturating at
//    Long.MAX_VALUE when a positive jitter would overflow;
//  - ConstantSizeRegionSplitPolicy: threshold = desiredMaxFileSize;
//  - IncreasingToUpperBoundRegionSplitPolicy: with r = the number of regions of this table on
//    this RegionServer, threshold = desiredMaxFileSize if r == 0 or r > 100, else
//    min(desiredMaxFileSize, initialSize * r * r * r); initialSize =
//    hbase.increasing.policy.initial.size if > 0, else 2 * the flush size (the table's
//    MEMSTORE_FLUSHSIZE, else hbase.hregion.memstore.flush.size, 128 MiB);
//  - SteppingSplitPolicy (HBase 2's default): threshold = initialSize if r == 1, else
//    desiredMaxFileSize;
//  - shouldSplit: some store's size > threshold, or, with hbase.hregion.split.overallfiles, the
//    sum of the stores' sizes > threshold (strictly greater in both cases).
// HBase first checks that the region can split at all (no reference files, region available);
// that check stays with the caller, which knows the region.
//
// Arithmetic follows Java's: long multiplication and addition wrap around in two's complement
// (initialSize * r^3 only overflows for an initial size above 9 TB), and (long) of a double
// truncates toward zero, NaN giving 0 and out-of-range values saturating.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "presplit/status.h"

namespace presplit {

enum class SizePolicyKind { kConstantSize, kIncreasingToUpperBound, kStepping };

// HBase's defaults: HConstants.DEFAULT_MAX_FILE_SIZE and
// TableDescriptorBuilder.DEFAULT_MEMSTORE_FLUSH_SIZE.
inline constexpr int64_t kDefaultMaxFileSize = 10LL << 30;
inline constexpr int64_t kDefaultFlushSize = 128LL << 20;

// "constant-size", "increasing-to-upper-bound", "stepping" (any letter case); HBase's class
// names "ConstantSizeRegionSplitPolicy", "IncreasingToUpperBoundRegionSplitPolicy",
// "SteppingSplitPolicy" are accepted too, with or without the package. InvalidArgument lists
// the valid names.
Result<SizePolicyKind> ParseSizePolicy(std::string_view name);
// "constant-size", "increasing-to-upper-bound", "stepping".
std::string_view SizePolicyName(SizePolicyKind kind);

struct SizePolicyParams {
  SizePolicyKind kind = SizePolicyKind::kStepping;
  // The table's MAX_FILESIZE or hbase.hregion.max.filesize; <= 0 means HBase's default 10 GiB.
  int64_t max_file_size = kDefaultMaxFileSize;
  // The table's MEMSTORE_FLUSHSIZE or hbase.hregion.memstore.flush.size; <= 0 means 128 MiB.
  int64_t flush_size = kDefaultFlushSize;
  // hbase.increasing.policy.initial.size; <= 0 means 2 * flush_size.
  int64_t initial_size = 0;
  // hbase.hregion.max.filesize.jitter; 0 disables the jitter.
  double jitter = 0.25;
  // The jitter's rand comes from this seed (see JitterRandom) instead of a random generator, so
  // a region's threshold is reproducible: the RegionServer's policy can seed it per region (for
  // example with a hash of the encoded region name) and the simulator with a fixed number.
  uint64_t jitter_seed = 0;
  // hbase.hregion.split.overallfiles: compare the sum of the stores' sizes rather than each.
  bool overall_files = false;
};

// The jitter's rand in [0, 1), as Java's Random.nextFloat gives it (24 random bits), from the
// seed: z = SplitMix64(seed), the first output of Steele, Lea and Flood's SplitMix64 generator
// started at state `seed`:
//   z = seed + 0x9E3779B97F4A7C15;
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//   z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//   z = z ^ (z >> 31);
// (unsigned 64-bit arithmetic), and rand = (z >> 40) / 2^24.
double JitterRandom(uint64_t seed);

// (JitterRandom(jitter_seed) - 0.5) * jitter: between -jitter/2 and +jitter/2.
double JitterRate(const SizePolicyParams& params);

// desiredMaxFileSize: max_file_size (or its default) with the jitter applied as HBase does.
int64_t DesiredMaxFileSize(const SizePolicyParams& params);

// initialSize: initial_size if > 0, else 2 * flush_size (flush_size <= 0 taken as 128 MiB).
int64_t InitialSplitSize(const SizePolicyParams& params);

// The size at which a region splits, given the number of regions of the same table on this
// RegionServer (HBase's getSizeToCheck; ConstantSize ignores the count). A negative count is
// taken as 0 (HBase counts, so never passes one).
int64_t SplitSizeThreshold(const SizePolicyParams& params, int table_regions_on_server);

// store_sizes: each store's size in bytes (store_count entries; may be null when store_count is
// 0). True when the policy would split: some store's size > SplitSizeThreshold, or with
// overall_files the sum of the sizes (Java long addition) > SplitSizeThreshold. No store: false.
bool ShouldSplitBySize(const SizePolicyParams& params, int table_regions_on_server,
                       const int64_t* store_sizes, size_t store_count);

}  // namespace presplit
