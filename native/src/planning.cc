#include "presplit/planning.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"

namespace presplit {
namespace {

constexpr int kMaxAdvisedRegions = 10000;

std::string GiB(int64_t bytes) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", static_cast<double>(bytes) / kGiB);
  return buffer;
}

int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

int ClampToInt(int64_t v) {
  return v > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                             : static_cast<int>(v);
}

}  // namespace

Result<Advice> Advise(const AdviseInput& in) {
  if (in.table_size < 0 || in.daily_growth < 0 || in.horizon_days < 0 || in.region_servers < 0) {
    return Status::InvalidArgument(
        "table size, daily growth, horizon and region servers must not be negative");
  }
  if (in.creation_region_size <= 0 || in.grown_region_size <= 0) {
    return Status::InvalidArgument("region sizes must be positive");
  }
  if (in.creation_regions_cap < 1) {
    return Status::InvalidArgument("the cap on regions by creation size must be at least 1");
  }
  if (in.max_regions < 1 || in.max_regions > kMaxAdvisedRegions) {
    return Status::InvalidArgument("the maximum number of regions must be between 1 and " +
                                   std::to_string(kMaxAdvisedRegions) + " (got " +
                                   std::to_string(in.max_regions) + ")");
  }
  Advice a;
  int64_t growth = 0;
  if (__builtin_mul_overflow(in.daily_growth, static_cast<int64_t>(in.horizon_days), &growth) ||
      __builtin_add_overflow(in.table_size, growth, &a.projected_size)) {
    return Status::InvalidArgument("the projected table size does not fit in 64 bits");
  }

  auto& why = a.explanation;
  const int64_t raw_creation = CeilDiv(in.table_size, in.creation_region_size);
  a.by_creation_size = ClampToInt(std::min<int64_t>(raw_creation, in.creation_regions_cap));
  why.push_back("at creation: " + GiB(in.table_size) + " in regions of at most " +
                GiB(in.creation_region_size) + " (so none splits at once) -> ceil(" +
                GiB(in.table_size) + " / " + GiB(in.creation_region_size) +
                ") = " + std::to_string(raw_creation) +
                (raw_creation > in.creation_regions_cap
                     ? ", capped at " + std::to_string(in.creation_regions_cap)
                     : std::string()));
  a.by_grown_size = ClampToInt(CeilDiv(a.projected_size, in.grown_region_size));
  if (in.horizon_days > 0 && in.daily_growth > 0) {
    why.push_back("growth: " + GiB(in.table_size) + " + " + GiB(in.daily_growth) + "/day x " +
                  std::to_string(in.horizon_days) + " days = " + GiB(a.projected_size));
  } else {
    why.push_back("growth: none given, the table stays at " + GiB(a.projected_size));
  }
  why.push_back("at the horizon: regions of at most " + GiB(in.grown_region_size) +
                " (where the size policy splits them) -> ceil(" + GiB(a.projected_size) + " / " +
                GiB(in.grown_region_size) + ") = " + std::to_string(a.by_grown_size));
  int regions = std::max({a.by_creation_size, a.by_grown_size, 1});
  std::string step = "the larger of the two: " + std::to_string(regions);
  if (regions > in.max_regions) {
    step += ", capped at " + std::to_string(in.max_regions) +
            " (more regions than that cost "
            "more than they spread; with more data, raise the region size instead)";
    regions = in.max_regions;
  }
  why.push_back(step);
  if (in.region_servers > 0) {
    const int64_t up = CeilDiv(regions, in.region_servers) * in.region_servers;
    if (up == regions) {
      why.push_back(std::to_string(regions) + " is already a multiple of the " +
                    std::to_string(in.region_servers) + " RegionServers (" +
                    std::to_string(regions / in.region_servers) + " each)");
    } else if (up <= in.max_regions) {
      why.push_back("rounded up to a multiple of the " + std::to_string(in.region_servers) +
                    " RegionServers, so each gets the same number: " + std::to_string(up) + " (" +
                    std::to_string(up / in.region_servers) + " each)");
      regions = static_cast<int>(up);
    } else {
      why.push_back("not rounded up to a multiple of the " + std::to_string(in.region_servers) +
                    " RegionServers: " + std::to_string(up) + " would pass the maximum of " +
                    std::to_string(in.max_regions));
    }
  }
  a.regions = regions;
  why.push_back("advice: " + std::to_string(regions) + " regions of about " +
                GiB(in.table_size / regions) + " each today" +
                (a.projected_size != in.table_size
                     ? ", " + GiB(a.projected_size / regions) + " at the horizon"
                     : std::string()));
  return a;
}

Result<int64_t> ParseByteSize(std::string_view text) {
  const std::string shown = "invalid size '" + ToStringBinary(text) + "'";
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  std::string_view number = text.substr(0, i);
  std::string_view unit = text.substr(i);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) {
    return Status::InvalidArgument(shown +
                                   " (expected a number with an optional unit K, M, G, "
                                   "T, P, e.g. 11GB)");
  }
  int shift = 0;
  if (!unit.empty()) {
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
      case 'B':
        shift = 0;
        break;
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      case 'P':
        shift = 50;
        break;
      default:
        return Status::InvalidArgument(shown + " (unknown unit; expected K, M, G, T or P)");
    }
    std::string rest;
    for (char c : unit.substr(1)) rest.push_back(static_cast<char>(std::toupper(c)));
    const bool bare_b = unit.size() == 1 && shift == 0;
    if (!bare_b && !(rest.empty() || rest == "B" || rest == "IB")) {
      return Status::InvalidArgument(shown + " (unknown unit; expected K, M, G, T or P)");
    }
  }
  if (number.size() > 24) return Status::InvalidArgument(shown + " (too large)");
  const double value = std::strtod(std::string(number).c_str(), nullptr) * std::ldexp(1.0, shift);
  if (!(value < 9223372036854775807.0)) {
    return Status::InvalidArgument(shown + " (too large)");
  }
  return static_cast<int64_t>(std::llround(value));
}

Result<Simulation> Simulate(const std::vector<std::string>& split_keys,
                            const std::vector<std::string>& sample,
                            const SimulateOptions& options) {
  PRESPLIT_RETURN_IF_ERROR(ValidateSplitKeys(split_keys));
  if (options.value_size < 0) {
    return Status::InvalidArgument("the value size must not be negative (got " +
                                   std::to_string(options.value_size) + ")");
  }
  if (options.region_servers < 1) {
    return Status::InvalidArgument("at least one RegionServer is needed (got " +
                                   std::to_string(options.region_servers) + ")");
  }
  Simulation sim;
  const size_t n = split_keys.size() + 1;
  sim.regions.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) sim.regions[i].start_key = split_keys[i - 1];
    if (i + 1 < n) sim.regions[i].end_key = split_keys[i];
  }
  const uint64_t value_size = static_cast<uint64_t>(options.value_size);
  for (const std::string& key : sample) {
    // The region is the number of split keys <= key.
    auto it = std::upper_bound(
        split_keys.begin(), split_keys.end(), key,
        [](const std::string& k, const std::string& s) { return CompareBytes(k, s) < 0; });
    SimulatedRegion& r = sim.regions[static_cast<size_t>(it - split_keys.begin())];
    ++r.keys;
    r.bytes += key.size() + value_size;
    ++sim.total_keys;
    sim.total_bytes += key.size() + value_size;
  }
  sim.mean_bytes = static_cast<double>(sim.total_bytes) / static_cast<double>(n);
  const double mean_keys = static_cast<double>(sim.total_keys) / static_cast<double>(n);
  double var_bytes = 0, var_keys = 0;
  for (const SimulatedRegion& r : sim.regions) {
    if (r.keys == 0) ++sim.empty_regions;
    sim.max_bytes = std::max(sim.max_bytes, r.bytes);
    const double db = static_cast<double>(r.bytes) - sim.mean_bytes;
    const double dk = static_cast<double>(r.keys) - mean_keys;
    var_bytes += db * db;
    var_keys += dk * dk;
  }
  var_bytes /= static_cast<double>(n);
  var_keys /= static_cast<double>(n);
  if (sim.total_bytes > 0) {
    sim.max_over_mean = static_cast<double>(sim.max_bytes) / sim.mean_bytes;
    sim.cv_bytes = std::sqrt(var_bytes) / sim.mean_bytes;
  }
  if (sim.total_keys > 0) sim.cv_keys = std::sqrt(var_keys) / mean_keys;

  const int64_t per_server = CeilDiv(static_cast<int64_t>(n), options.region_servers);
  sim.table_regions_on_server = ClampToInt(per_server);
  sim.split_threshold = SplitSizeThreshold(options.policy, sim.table_regions_on_server);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bytes = sim.regions[i].bytes;
    if (bytes == 0) continue;
    SplitForecast f;
    f.region = i;
    // The first growth at which bytes * factor > threshold; with a threshold below the current
    // size the region would split already (factor < 1).
    const double threshold = static_cast<double>(std::max<int64_t>(sim.split_threshold, 0));
    f.growth_factor = threshold / static_cast<double>(bytes);
    f.region_bytes = static_cast<uint64_t>(std::llround(threshold));
    sim.split_order.push_back(f);
  }
  std::stable_sort(sim.split_order.begin(), sim.split_order.end(),
                   [](const SplitForecast& a, const SplitForecast& b) {
                     return a.growth_factor < b.growth_factor;
                   });
  return sim;
}

}  // namespace presplit
