// Choosing a design before any data is written: how many regions a table should start with
// (Advise), and how a sample of row keys would spread over a planned set of regions and which
// regions a size policy would split first as the data grows (Simulate).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/split_policy.h"
#include "presplit/status.h"

namespace presplit {

// ---------------------------------------------------------------------------------------------
// Advise: a partition count

inline constexpr int64_t kGiB = 1LL << 30;

struct AdviseInput {
  int64_t table_size = 0;    // bytes today (or expected at creation), >= 0
  int64_t daily_growth = 0;  // bytes a day, >= 0
  int horizon_days = 0;      // how far ahead to plan, >= 0
  int region_servers = 0;    // 0: unknown (no rounding to the cluster)
  // The rule of thumb's knobs (docs/reference-case.md, "Sizing"): regions of at most
  // `creation_region_size` when the table is created, so none splits at once (1-2 GiB: 2 GiB), for
  // up to `creation_regions_cap` regions ("a 100 GB table -> about 50"); regions of
  // `grown_region_size` at the horizon (10 GiB, HBase's default hbase.hregion.max.filesize, so they
  // reach it no sooner); at most `max_regions` in all ("size / 10 GB, at most about 120").
  int64_t creation_region_size = 2 * kGiB;
  int creation_regions_cap = 50;
  int64_t grown_region_size = 10 * kGiB;
  int max_regions = 120;
};

struct Advice {
  int regions = 1;
  int64_t projected_size = 0;  // table_size + daily_growth * horizon_days
  int by_creation_size = 0;    // ceil(table_size / creation_region_size), capped
  int by_grown_size = 0;       // ceil(projected_size / grown_region_size)
  // The reasoning, one step a line, with the numbers (sizes in GiB).
  std::vector<std::string> explanation;
};

// regions = max(min(ceil(table_size / creation_region_size), creation_regions_cap),
//               ceil(projected_size / grown_region_size)),
// at least 1, at most max_regions; then, with region_servers > 0, rounded up to a multiple of
// region_servers so every server gets the same number, unless that passes max_regions (then the
// count stays as it is, and the explanation says so).
// The reference numbers: 11 GiB, no growth -> ceil(5.5) = 6, rounded up to 10 RegionServers ->
// 10; 100 GiB -> 50; 1 TiB -> 103; 10 TiB -> 120.
// InvalidArgument for negative sizes, growth, horizon or servers, non-positive region sizes,
// creation_regions_cap < 1 or max_regions outside 1..10000, or a projected size that overflows.
Result<Advice> Advise(const AdviseInput& input);

// "11GB", "11G", "11GiB", "500MB", "1.5T", "1024" (bytes): a byte count with an optional unit
// K, M, G, T, P (optionally followed by "B" or "iB", any letter case), all binary (1024-based),
// as HBase's sizes are; fractions allowed. InvalidArgument for anything else, negatives and
// values beyond 2^63 - 1.
Result<int64_t> ParseByteSize(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Simulate: a key sample through a plan

struct SimulateOptions {
  int64_t value_size = 0;  // bytes added to each key's length to make a row's size, >= 0
  // The policy that decides when a region splits, and how the regions are spread: each server
  // holds ceil(regions / region_servers) of this table's regions (the count the policy sees).
  SizePolicyParams policy;
  int region_servers = 1;
};

// One region of a simulated plan. (Not key_fold.h's RegionLoad: two classes of one name in one
// namespace break the one-definition rule, and at -O0 the vectors' code of one served both.)
struct SimulatedRegion {
  std::string start_key;  // raw bytes; empty for the first region
  std::string end_key;    // raw bytes; empty for the last region
  uint64_t keys = 0;
  uint64_t bytes = 0;
};

struct SplitForecast {
  size_t region = 0;          // index into Simulation::regions
  double growth_factor = 0;   // how many times the sample's data the table holds when it splits
  uint64_t region_bytes = 0;  // the region's bytes at that point
};

struct Simulation {
  std::vector<SimulatedRegion> regions;
  uint64_t total_keys = 0;
  uint64_t total_bytes = 0;
  size_t empty_regions = 0;  // regions without any sample key
  double mean_bytes = 0;
  uint64_t max_bytes = 0;
  double max_over_mean = 0;  // 0 when the sample is empty
  double cv_bytes = 0;       // coefficient of variation: population stddev / mean of bytes
  double cv_keys = 0;        // the same over key counts
  int table_regions_on_server = 0;
  int64_t split_threshold = 0;  // SplitSizeThreshold for that count
  // Regions in the order they would pass split_threshold if the table kept the sample's
  // distribution and grew uniformly: growth_factor = split_threshold / bytes, the first factor at
  // which the region's bytes exceed the threshold (HBase splits at strictly greater). Regions
  // without data never split and are left out. It is a forecast of the first wave only: after a
  // split the counts, and so the threshold, change.
  std::vector<SplitForecast> split_order;
};

// Maps each sample key (raw bytes) to the region whose [start, end) holds it (split_keys as
// from a plan: strictly increasing, non-empty, checked with ValidateSplitKeys) and counts keys
// and bytes (key length + value_size) per region. Empty sample keys count in the first region,
// like the empty row. InvalidArgument for invalid split keys, a negative value_size, or
// region_servers < 1.
Result<Simulation> Simulate(const std::vector<std::string>& split_keys,
                            const std::vector<std::string>& sample, const SimulateOptions& options);

}  // namespace presplit
