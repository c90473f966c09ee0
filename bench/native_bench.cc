// libpresplit's benchmarks (issue 4), each comparing presplit with the approach it replaces or
// with a lower bound, in the same run:
//  - sampled split points for 10M 24-byte keys into 120 regions: selection (SampledSplit)
//    against what a good engineer writes without libpresplit (std::sort of string_views, then
//    stepping; a recursive multi-selection with std::nth_element over shrinking ranges), against
//    the published sampled-split method (every key into an ordered set, as with a TreeSet, then
//    stepping), and against one memcpy pass over the sample (the lower bound). Every variant's
//    keys are checked equal to SampledSplit's (before timing; the ~40 s ordered set after);
//  - salting throughput for 16-, 32- and 64-byte keys (murmur3, phoenix, java-hashcode);
//  - one region's split decision plus split-point snapping.
// bench/run_native_bench.sh runs it and prints the ratios.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/layout.h"
#include "presplit/split_points.h"
#include "presplit/split_policy.h"

namespace {

constexpr int kSampleKeys = 10'000'000;
constexpr int kKeyBytes = 24;
constexpr int kRegions = 120;

const std::vector<std::string>& Sample() {
  static const std::vector<std::string> sample = [] {
    std::mt19937_64 rng(42);
    std::vector<std::string> keys(kSampleKeys);
    for (auto& k : keys) {
      k.resize(kKeyBytes);
      for (int i = 0; i < kKeyBytes; i += 8) {
        uint64_t v = rng();
        std::memcpy(k.data() + i, &v, 8);
      }
    }
    return keys;
  }();
  return sample;
}

void BM_SampledSplit_Selection(benchmark::State& state) {
  const auto& sample = Sample();
  for (auto _ : state) {
    auto result = presplit::SampledSplit(sample, kRegions);
    if (!result.ok() || result->keys.size() != kRegions - 1) state.SkipWithError("bad split");
    benchmark::DoNotOptimize(result->keys.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * sample.size());
}

// Split key i (1 <= i < kRegions) is the sample's floor(i * m / kRegions)-th smallest key, as
// SampledSplit defines it (the sample has no empty and, with random 24-byte keys, no duplicate
// keys, so no quantile is dropped).
size_t QuantileIndex(size_t m, int i) { return static_cast<size_t>(i) * m / kRegions; }

// The baselines must compute the same keys as SampledSplit; a benchmark of a wrong answer would
// be worthless. Checked once per baseline, before timing.
bool SameAsSampledSplit(const std::vector<std::string>& keys) {
  static const std::vector<std::string> expected = presplit::SampledSplit(Sample(), kRegions)->keys;
  return keys == expected;
}

// Baseline 1: sort views of every key, then step through the sorted views.
std::vector<std::string> SortAndStep(const std::vector<std::string>& sample) {
  std::vector<std::string_view> views(sample.begin(), sample.end());
  std::sort(views.begin(), views.end());
  std::vector<std::string> keys;
  keys.reserve(kRegions - 1);
  for (int i = 1; i < kRegions; ++i) keys.emplace_back(views[QuantileIndex(views.size(), i)]);
  return keys;
}

// Baseline 2: multi-selection. nth_element puts the middle quantile in place and partitions the
// views around it; each half is then searched for its own quantiles only, so every level of the
// recursion touches each key once: O(m log k) for k quantiles instead of sorting's O(m log m).
void SelectQuantiles(std::vector<std::string_view>& views, size_t first, size_t last,
                     int first_quantile, int last_quantile) {
  if (first_quantile > last_quantile) return;
  const int middle = first_quantile + (last_quantile - first_quantile) / 2;
  const size_t at = QuantileIndex(views.size(), middle);
  std::nth_element(views.begin() + first, views.begin() + at, views.begin() + last);
  SelectQuantiles(views, first, at, first_quantile, middle - 1);
  SelectQuantiles(views, at + 1, last, middle + 1, last_quantile);
}

std::vector<std::string> MultiSelect(const std::vector<std::string>& sample) {
  std::vector<std::string_view> views(sample.begin(), sample.end());
  SelectQuantiles(views, 0, views.size(), 1, kRegions - 1);
  std::vector<std::string> keys;
  keys.reserve(kRegions - 1);
  for (int i = 1; i < kRegions; ++i) keys.emplace_back(views[QuantileIndex(views.size(), i)]);
  return keys;
}

void BM_SampledSplit_SortAndStep(benchmark::State& state) {
  const auto& sample = Sample();
  if (!SameAsSampledSplit(SortAndStep(sample)))
    state.SkipWithError("keys differ from SampledSplit");
  for (auto _ : state) {
    auto keys = SortAndStep(sample);
    benchmark::DoNotOptimize(keys.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * sample.size());
}

void BM_SampledSplit_MultiSelect(benchmark::State& state) {
  const auto& sample = Sample();
  if (!SameAsSampledSplit(MultiSelect(sample)))
    state.SkipWithError("keys differ from SampledSplit");
  for (auto _ : state) {
    auto keys = MultiSelect(sample);
    benchmark::DoNotOptimize(keys.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * sample.size());
}

// The seed's method (the published one): every key into an ordered set (TreeSet / std::set), then
// a walk over it taking the keys at SampledSplit's quantile ranks as split points.
std::vector<std::string> OrderedSet(const std::vector<std::string>& sample) {
  std::set<std::string_view> ordered(sample.begin(), sample.end());
  std::vector<std::string> keys;
  keys.reserve(kRegions - 1);
  size_t i = 0;
  for (auto it = ordered.begin(); it != ordered.end() && keys.size() < kRegions - 1; ++it, ++i) {
    if (i == QuantileIndex(ordered.size(), static_cast<int>(keys.size()) + 1)) {
      keys.emplace_back(*it);
    }
  }
  return keys;
}

void BM_SampledSplit_OrderedSet(benchmark::State& state) {
  const auto& sample = Sample();
  std::vector<std::string> keys;
  for (auto _ : state) {
    keys = OrderedSet(sample);
    benchmark::DoNotOptimize(keys.data());
    benchmark::ClobberMemory();
  }
  // Checked after timing rather than before: one more pass would double this benchmark's ~40 s.
  if (!SameAsSampledSplit(keys)) state.SkipWithError("keys differ from SampledSplit");
  state.SetItemsProcessed(state.iterations() * sample.size());
}

// The lower bound: reading every sample byte once.
void BM_SampledSplit_MemcpyPass(benchmark::State& state) {
  const auto& sample = Sample();
  std::vector<char> buffer(sample.size() * kKeyBytes);
  for (auto _ : state) {
    char* out = buffer.data();
    for (const auto& k : sample) {
      std::memcpy(out, k.data(), k.size());
      out += k.size();
    }
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * sample.size());
}

presplit::KeyLayout SaltLayout(presplit::SaltHash hash) {
  presplit::KeyLayout spec;
  spec.buckets = 16;
  spec.encoding = presplit::SaltEncoding::kByte;
  spec.hash = hash;
  spec.salt_from_key = true;
  return presplit::MakeLayout(spec).value();
}

void BM_Salt(benchmark::State& state, presplit::SaltHash hash) {
  const size_t key_bytes = static_cast<size_t>(state.range(0));
  constexpr size_t kBatch = 4096;
  std::mt19937_64 rng(7);
  std::string storage(kBatch * key_bytes, '\0');
  // Printable keys so java-hashcode (UTF-8 decoding) takes its common path.
  for (auto& c : storage) c = static_cast<char>('a' + rng() % 26);
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < kBatch; ++i) keys.emplace_back(storage.data() + i * key_bytes, key_bytes);
  const auto layout = SaltLayout(hash);
  std::vector<int> buckets;
  for (auto _ : state) {
    presplit::BucketsOf(layout, keys, buckets);
    benchmark::DoNotOptimize(buckets.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetBytesProcessed(state.iterations() * kBatch * key_bytes);
}

// What NativeSplitPolicy asks per check: should this region split, and where (the mid key
// snapped to a group boundary of a salted, delimited layout).
void BM_SplitDecisionAndSnap(benchmark::State& state) {
  presplit::KeyLayout spec;
  spec.buckets = 16;
  spec.encoding = presplit::SaltEncoding::kDecimal;
  spec.hash = presplit::SaltHash::kMurmur3;
  spec.group_delimiter = "|";
  const auto layout = presplit::MakeLayout(spec).value();
  presplit::SizePolicyParams params;
  const int64_t stores[] = {3LL << 30, 12LL << 30};
  const std::string start = "07", end = "08";
  const std::string mid = "07customer-004711|order-000000981|line-03";
  for (auto _ : state) {
    bool split = presplit::ShouldSplitBySize(params, 3, stores, 2);
    auto point = presplit::SnapSplitPoint(layout, start, end, mid);
    benchmark::DoNotOptimize(split);
    benchmark::DoNotOptimize(point);
    benchmark::ClobberMemory();  // the snapped key is a string written to the heap
  }
}

}  // namespace

BENCHMARK(BM_SampledSplit_Selection)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SampledSplit_SortAndStep)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_SampledSplit_MultiSelect)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SampledSplit_OrderedSet)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_SampledSplit_MemcpyPass)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(BM_Salt, murmur3, presplit::SaltHash::kMurmur3)->Arg(16)->Arg(32)->Arg(64);
BENCHMARK_CAPTURE(BM_Salt, phoenix, presplit::SaltHash::kPhoenix)->Arg(16)->Arg(32)->Arg(64);
BENCHMARK_CAPTURE(BM_Salt, java_hashcode, presplit::SaltHash::kJavaHashCode)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64);
BENCHMARK(BM_SplitDecisionAndSnap);

BENCHMARK_MAIN();
