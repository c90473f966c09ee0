#include "presplit/split_policy.h"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "presplit/bytes.h"

namespace presplit {
namespace {

struct NamedPolicy {
  std::string_view name;
  std::string_view hbase_class;
  SizePolicyKind kind;
};
constexpr std::array<NamedPolicy, 3> kPolicies = {{
    {"constant-size", "ConstantSizeRegionSplitPolicy", SizePolicyKind::kConstantSize},
    {"increasing-to-upper-bound", "IncreasingToUpperBoundRegionSplitPolicy",
     SizePolicyKind::kIncreasingToUpperBound},
    {"stepping", "SteppingSplitPolicy", SizePolicyKind::kStepping},
}};

constexpr std::string_view kHBasePackage = "org.apache.hadoop.hbase.regionserver.";

// Java's long arithmetic: two's complement wrap-around.
int64_t JavaAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t JavaMultiply(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Java's (long) cast of a double (JLS 5.1.3).
int64_t JavaDoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);  // truncation toward zero
}

int64_t MaxFileSizeOrDefault(const SizePolicyParams& p) {
  return p.max_file_size > 0 ? p.max_file_size : kDefaultMaxFileSize;
}

}  // namespace

Result<SizePolicyKind> ParseSizePolicy(std::string_view name) {
  std::string_view bare = name;
  if (bare.size() > kHBasePackage.size() &&
      EqualsIgnoreCase(bare.substr(0, kHBasePackage.size()), kHBasePackage)) {
    bare.remove_prefix(kHBasePackage.size());
  }
  for (const auto& p : kPolicies) {
    if (EqualsIgnoreCase(p.name, name) || EqualsIgnoreCase(p.hbase_class, bare)) return p.kind;
  }
  return Status::InvalidArgument("unknown size split policy '" + ToStringBinary(name) +
                                 "' (expected one of constant-size, increasing-to-upper-bound, "
                                 "stepping)");
}

std::string_view SizePolicyName(SizePolicyKind kind) {
  for (const auto& p : kPolicies) {
    if (p.kind == kind) return p.name;
  }
  return "unknown";
}

double JitterRandom(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return static_cast<double>(z >> 40) / static_cast<double>(1ULL << 24);
}

double JitterRate(const SizePolicyParams& params) {
  return (JitterRandom(params.jitter_seed) - 0.5) * params.jitter;
}

int64_t DesiredMaxFileSize(const SizePolicyParams& params) {
  const int64_t desired = MaxFileSizeOrDefault(params);
  const double rate = JitterRate(params);
  const int64_t jitter_value = JavaDoubleToLong(static_cast<double>(desired) * rate);
  if (rate > 0 && jitter_value > std::numeric_limits<int64_t>::max() - desired) {
    return std::numeric_limits<int64_t>::max();
  }
  return JavaAdd(desired, jitter_value);
}

int64_t InitialSplitSize(const SizePolicyParams& params) {
  if (params.initial_size > 0) return params.initial_size;
  const int64_t flush = params.flush_size > 0 ? params.flush_size : kDefaultFlushSize;
  return JavaMultiply(2, flush);
}

int64_t SplitSizeThreshold(const SizePolicyParams& params, int table_regions_on_server) {
  const int64_t r = table_regions_on_server < 0 ? 0 : table_regions_on_server;
  const int64_t desired = DesiredMaxFileSize(params);
  switch (params.kind) {
    case SizePolicyKind::kConstantSize:
      return desired;
    case SizePolicyKind::kIncreasingToUpperBound: {
      if (r == 0 || r > 100) return desired;
      // Java evaluates initialSize * r * r * r left to right, in long.
      int64_t grown = JavaMultiply(JavaMultiply(JavaMultiply(InitialSplitSize(params), r), r), r);
      return grown < desired ? grown : desired;
    }
    case SizePolicyKind::kStepping:
      return r == 1 ? InitialSplitSize(params) : desired;
  }
  return desired;
}

bool ShouldSplitBySize(const SizePolicyParams& params, int table_regions_on_server,
                       const int64_t* store_sizes, size_t store_count) {
  if (store_sizes == nullptr || store_count == 0) return false;
  const int64_t threshold = SplitSizeThreshold(params, table_regions_on_server);
  if (params.overall_files) {
    int64_t sum = 0;
    for (size_t i = 0; i < store_count; ++i) sum = JavaAdd(sum, store_sizes[i]);
    return sum > threshold;
  }
  for (size_t i = 0; i < store_count; ++i) {
    if (store_sizes[i] > threshold) return true;
  }
  return false;
}

}  // namespace presplit
