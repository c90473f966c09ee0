#include "presplit/split_points.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>

#include "presplit/bytes.h"

namespace presplit {
namespace {

Status CheckRegionCount(int regions) {
  if (regions < 1 || regions > kMaxSplitRegions) {
    return Status::InvalidArgument("the number of regions must be between 1 and " +
                                   std::to_string(kMaxSplitRegions) + " (got " +
                                   std::to_string(regions) + ")");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Quantile selection by MSD radix (SampledSplit).
//
// The first level buckets every key by its first two bytes (257 values a byte: "the key ended",
// which sorts first, then the byte), in one pass that also validates the keys; only the buckets
// that hold a wanted rank are gathered, in a second pass over a compact array of digits. Each
// gathered bucket (its keys share a prefix of `depth` bytes) is then either sorted (small), or
// split again on the byte at `depth` (a counting sort in place), after skipping the bytes every
// key of the bucket shares. A bucket whose keys all end at `depth` holds one key, repeated.
// Past kMaxRadixLevels levels (long shared prefixes with many distinct tails), selection falls
// back to std::nth_element with comparisons from `depth` on.

constexpr size_t kSmallBucket = 4096;  // sorted with full comparisons at or below this size
constexpr int kMaxRadixLevels = 64;
constexpr uint32_t kByteDigits = 257;                        // 0 = ended, 1 + byte
constexpr uint32_t kPairDigits = kByteDigits * kByteDigits;  // first level: two bytes
constexpr uint32_t kEmptyDigit = kPairDigits;                // empty keys, never gathered

inline uint32_t ByteDigit(std::string_view key, size_t depth) {
  return depth < key.size() ? static_cast<uint32_t>(static_cast<unsigned char>(key[depth])) + 1 : 0;
}

// Orders keys that share their first `depth` bytes by what follows.
struct SuffixLess {
  size_t depth;
  bool operator()(std::string_view a, std::string_view b) const {
    return CompareBytes(a.substr(depth), b.substr(depth)) < 0;
  }
};

using KeySpan = std::span<std::string_view>;

struct RadixScratch {
  std::vector<std::string_view> keys;
  std::vector<uint16_t> digits;
};

// Places, for every position in positions[lo..hi) (sorted, inside [first, last)), the element of
// that rank at that position of `order`, by recursive selection around the middle position.
template <typename Less>
void MultiSelect(KeySpan order, size_t first, size_t last, const size_t* positions, size_t lo,
                 size_t hi, Less less) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const size_t pos = positions[mid];
    std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(first),
                     order.begin() + static_cast<std::ptrdiff_t>(pos),
                     order.begin() + static_cast<std::ptrdiff_t>(last), less);
    MultiSelect(order, first, pos, positions, lo, mid, less);
    first = pos + 1;
    lo = mid + 1;
  }
}

// The number of bytes after `depth` that every key of `keys` shares (each key is longer than
// depth).
size_t SharedBytesAfter(KeySpan keys, size_t depth) {
  const std::string_view first = keys[0].substr(depth);
  size_t shared = first.size();
  for (size_t i = 1; i < keys.size() && shared > 0; ++i) {
    const std::string_view key = keys[i].substr(depth);
    const size_t limit = std::min(shared, key.size());
    if (std::memcmp(key.data(), first.data(), limit) == 0) {
      shared = limit;
      continue;
    }
    size_t j = 0;
    while (key[j] == first[j]) ++j;
    shared = j;
  }
  return shared;
}

// Buckets `keys` (sharing `depth` bytes, each at least `depth` long) by the byte at their first
// differing position: skips the bytes all keys share, then counting-sorts them in place by the
// byte at the resulting depth. Returns false when every key ends at `depth` (all equal);
// otherwise fills `starts` (bucket d holds keys[starts[d], starts[d + 1])) and updates depth.
bool SplitOnNextByte(KeySpan keys, size_t& depth, RadixScratch& scratch,
                     std::array<size_t, kByteDigits + 1>& starts) {
  const size_t n = keys.size();
  uint16_t* digits = scratch.digits.data();
  std::array<size_t, kByteDigits> count{};
  for (;;) {
    count.fill(0);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t d = ByteDigit(keys[i], depth);
      digits[i] = static_cast<uint16_t>(d);
      ++count[d];
    }
    if (count[0] == n) return false;
    if (count[digits[0]] != n) break;
    // One byte for all: skip every byte they share (at least that one).
    depth += SharedBytesAfter(keys, depth);
  }
  starts[0] = 0;
  for (uint32_t d = 0; d < kByteDigits; ++d) starts[d + 1] = starts[d] + count[d];
  std::array<size_t, kByteDigits> next;
  std::copy(starts.begin(), starts.end() - 1, next.begin());
  std::string_view* out = scratch.keys.data();
  for (size_t i = 0; i < n; ++i) out[next[digits[i]]++] = keys[i];
  std::copy(out, out + n, keys.begin());
  return true;
}

// For every rank positions[lo..hi) (ascending, inside [base, base + keys.size())), sets
// selected[j] to the key of rank positions[j]. The keys share their first `depth` bytes.
void SelectRanks(KeySpan keys, size_t depth, size_t base, const size_t* positions, size_t lo,
                 size_t hi, std::string_view* selected, int level, RadixScratch& scratch) {
  if (lo == hi) return;
  const size_t n = keys.size();
  if (n <= kSmallBucket || level >= kMaxRadixLevels) {
    const SuffixLess less{depth};
    if (n <= kSmallBucket) {
      std::sort(keys.begin(), keys.end(), less);
    } else {
      std::vector<size_t> local(positions + lo, positions + hi);
      for (size_t& p : local) p -= base;
      MultiSelect(keys, 0, n, local.data(), 0, local.size(), less);
    }
    for (size_t j = lo; j < hi; ++j) selected[j] = keys[positions[j] - base];
    return;
  }
  std::array<size_t, kByteDigits + 1> starts;
  if (!SplitOnNextByte(keys, depth, scratch, starts)) {
    for (size_t j = lo; j < hi; ++j) selected[j] = keys[0];
    return;
  }
  size_t j = lo;
  for (uint32_t d = 0; d < kByteDigits && j < hi; ++d) {
    const size_t end = base + starts[d + 1];
    const size_t first = j;
    while (j < hi && positions[j] < end) ++j;
    if (first == j) continue;
    KeySpan bucket = keys.subspan(starts[d], starts[d + 1] - starts[d]);
    if (d == 0) {  // the keys that end at depth: all equal
      for (size_t k = first; k < j; ++k) selected[k] = bucket[0];
    } else {
      SelectRanks(bucket, depth + 1, base + starts[d], positions, first, j, selected, level + 1,
                  scratch);
    }
  }
}

// The number of distinct keys in `keys` (sharing their first `depth` bytes).
size_t CountDistinct(KeySpan keys, size_t depth, int level, RadixScratch& scratch) {
  const size_t n = keys.size();
  if (n == 0) return 0;
  if (n <= kSmallBucket || level >= kMaxRadixLevels) {
    std::sort(keys.begin(), keys.end(), SuffixLess{depth});
    return static_cast<size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  }
  std::array<size_t, kByteDigits + 1> starts;
  if (!SplitOnNextByte(keys, depth, scratch, starts)) return 1;
  size_t distinct = starts[1] > 0 ? 1 : 0;
  for (uint32_t d = 1; d < kByteDigits; ++d) {
    distinct += CountDistinct(keys.subspan(starts[d], starts[d + 1] - starts[d]), depth + 1,
                              level + 1, scratch);
  }
  return distinct;
}

inline uint32_t PairDigit(std::string_view key) {  // key non-empty
  const uint32_t b0 = static_cast<uint32_t>(static_cast<unsigned char>(key[0])) + 1;
  const uint32_t b1 =
      key.size() > 1 ? static_cast<uint32_t>(static_cast<unsigned char>(key[1])) + 1 : 0;
  return b0 * kByteDigits + b1;
}

// Gathers the non-empty keys whose first-level digit is marked in `wanted` (a bit set over
// digits), bucket by bucket, into `out` (sized for them); offsets[d] is where bucket d starts.
void GatherBuckets(const std::vector<std::string>& sample, const std::vector<uint32_t>& digits,
                   const std::vector<uint64_t>& wanted, std::vector<size_t>& offsets,
                   std::string_view* out) {
  const size_t total = sample.size();
  for (size_t i = 0; i < total; ++i) {
    const uint32_t d = digits[i];
    if ((wanted[d >> 6] >> (d & 63)) & 1) out[offsets[d]++] = sample[i];
  }
}

}  // namespace

Result<std::vector<std::string>> ParseSplitsFile(std::string_view text, bool lenient) {
  std::vector<std::string> keys;
  size_t line_number = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = next;
    ++line_number;
    // Ruby's chomp: one trailing "\r" goes with the "\n".
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = "line " + std::to_string(line_number);
    if (line.empty()) {
      return Status::InvalidArgument(
          where +
          ": empty key (the HBase shell would pass it to createTable, which refuses an "
          "empty split key)");
    }
    if (lenient) {
      keys.push_back(ToBytesBinary(line));
    } else {
      Result<std::string> key = ParseBinaryKey(line);
      if (!key.ok()) return key.status().WithContext(where);
      keys.push_back(std::move(key).value());
    }
    if (keys.size() > 1) {
      const std::string& a = keys[keys.size() - 2];
      const std::string& b = keys.back();
      int c = CompareBytes(b, a);
      if (c <= 0) {
        return Status::InvalidArgument(
            where + ": key '" + ToStringBinary(b) + "' is not greater than the key on line " +
            std::to_string(line_number - 1) + " '" + ToStringBinary(a) + "'" +
            (c == 0 ? " (duplicate)" : " (keys must be sorted in unsigned byte order)"));
      }
    }
  }
  PRESPLIT_RETURN_IF_ERROR(ValidateSplitKeys(keys));
  return keys;
}

Result<std::vector<std::string>> ParseKeyList(std::string_view text) {
  std::vector<std::string> keys;
  size_t line_number = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    Result<std::string> key = ParseBinaryKey(line);
    if (!key.ok()) return key.status().WithContext("line " + std::to_string(line_number));
    keys.push_back(std::move(key).value());
  }
  return keys;
}

std::string FormatSplitsFile(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) {
    out += ToStringBinary(key);
    out += '\n';
  }
  return out;
}

Result<std::vector<std::string>> ExplicitSplit(std::vector<std::string> keys) {
  PRESPLIT_RETURN_IF_ERROR(ValidateSplitKeys(keys));
  return keys;
}

std::string PartitionPrefix(uint64_t partition) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(partition & 0xFF);
    partition >>= 8;
  }
  return out;
}

Result<std::vector<std::string>> PartitionSplit(int regions) {
  PRESPLIT_RETURN_IF_ERROR(CheckRegionCount(regions));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(regions - 1));
  for (int i = 1; i < regions; ++i) keys.push_back(PartitionPrefix(static_cast<uint64_t>(i)));
  return keys;
}

Result<SampledSplitResult> SampledSplit(const std::vector<std::string>& sample, int regions) {
  PRESPLIT_RETURN_IF_ERROR(CheckRegionCount(regions));
  SampledSplitResult result;
  result.requested_regions = regions;
  // First pass: validate, count, and bucket every key by its first two bytes.
  const size_t total = sample.size();
  std::vector<uint32_t> digits(total);
  std::vector<size_t> histogram(kPairDigits + 1, 0);
  for (size_t i = 0; i < total; ++i) {
    const std::string& key = sample[i];
    if (key.size() > kMaxRowKeyLength) {
      return Status::InvalidArgument(
          "sample key " + std::to_string(i) + " is " + std::to_string(key.size()) +
          " bytes long (a row key has at most " + std::to_string(kMaxRowKeyLength) + ")");
    }
    const uint32_t d = key.empty() ? kEmptyDigit : PairDigit(key);
    digits[i] = d;
    ++histogram[d];
  }
  result.empty_keys = histogram[kEmptyDigit];
  const size_t m = total - result.empty_keys;
  result.sample_keys = m;
  if (m == 0) {
    return Status::InvalidArgument(
        "the sample has no non-empty key" +
        (result.empty_keys > 0 ? " (" + std::to_string(result.empty_keys) + " empty keys ignored)"
                               : std::string()));
  }
  if (result.empty_keys > 0) {
    result.notes.push_back(std::to_string(result.empty_keys) +
                           " empty sample keys ignored (the empty key is the table's start)");
  }
  if (regions == 1) return result;

  // The ranks wanted, ascending and distinct: 0 (the smallest key) and the quantile positions.
  std::vector<size_t> positions;
  positions.reserve(static_cast<size_t>(regions));
  positions.push_back(0);
  for (int i = 1; i < regions; ++i) {
    size_t pos = static_cast<size_t>((static_cast<unsigned __int128>(i) * m) /
                                     static_cast<unsigned>(regions));
    if (positions.back() != pos) positions.push_back(pos);
  }

  // The first-level buckets holding a wanted rank, and where each is gathered.
  struct Needed {
    uint32_t digit;
    size_t rank;    // the bucket's first rank
    size_t offset;  // where its keys are gathered
    size_t size;
    size_t lo, hi;  // its positions
  };
  std::vector<Needed> needed;
  std::vector<uint64_t> wanted((kPairDigits + 1 + 63) / 64, 0);
  std::vector<size_t> offsets(kPairDigits + 1, 0);
  size_t gathered = 0, largest = 0;
  {
    size_t rank = 0, j = 0;
    for (uint32_t d = 0; d < kPairDigits && j < positions.size(); ++d) {
      const size_t count = histogram[d];
      if (count == 0) continue;
      const size_t lo = j;
      while (j < positions.size() && positions[j] < rank + count) ++j;
      if (lo != j) {
        needed.push_back({d, rank, gathered, count, lo, j});
        wanted[d >> 6] |= uint64_t{1} << (d & 63);
        offsets[d] = gathered;
        gathered += count;
        largest = std::max(largest, count);
      }
      rank += count;
    }
  }
  std::vector<std::string_view> keys(gathered);
  GatherBuckets(sample, digits, wanted, offsets, keys.data());

  std::vector<std::string_view> selected(positions.size());
  RadixScratch scratch;
  if (largest > kSmallBucket) {
    scratch.keys.resize(largest);
    scratch.digits.resize(largest);
  }
  for (const Needed& b : needed) {
    KeySpan bucket(keys.data() + b.offset, b.size);
    if (b.digit % kByteDigits == 0) {  // one-byte keys: all equal
      for (size_t j = b.lo; j < b.hi; ++j) selected[j] = bucket[0];
    } else {
      SelectRanks(bucket, 2, b.rank, positions.data(), b.lo, b.hi, selected.data(), 1, scratch);
    }
  }

  const std::string_view smallest = selected[0];
  for (size_t j = 1; j < positions.size(); ++j) {
    const std::string_view key = selected[j];
    if (key == smallest) continue;  // would leave the first region without sample keys
    if (!result.keys.empty() && result.keys.back() == key) continue;
    result.keys.emplace_back(key);
  }
  const int planned = static_cast<int>(result.keys.size()) + 1;
  if (planned < regions) {
    // Count the distinct keys only now, when they explain the shortfall: every first-level
    // bucket gathered and split down to its distinct keys.
    std::fill(wanted.begin(), wanted.end(), 0);
    keys.assign(m, std::string_view());
    size_t offset = 0;
    largest = 0;
    for (uint32_t d = 0; d < kPairDigits; ++d) {
      offsets[d] = offset;
      if (histogram[d] == 0) continue;
      wanted[d >> 6] |= uint64_t{1} << (d & 63);
      offset += histogram[d];
      largest = std::max(largest, histogram[d]);
    }
    GatherBuckets(sample, digits, wanted, offsets, keys.data());
    if (largest > kSmallBucket && scratch.keys.size() < largest) {
      scratch.keys.resize(largest);
      scratch.digits.resize(largest);
    }
    size_t distinct = 0, begin = 0;
    for (uint32_t d = 0; d < kPairDigits; ++d) {
      const size_t count = histogram[d];
      if (count == 0) continue;
      KeySpan bucket(keys.data() + begin, count);
      distinct += d % kByteDigits == 0 ? 1 : CountDistinct(bucket, 2, 1, scratch);
      begin += count;
    }
    result.distinct_keys = distinct;
    result.notes.push_back("the sample has " + std::to_string(m) + " non-empty keys, " +
                           std::to_string(result.distinct_keys) +
                           " distinct: " + std::to_string(planned) +
                           " regions planned instead of " + std::to_string(regions) +
                           " (repeated quantile keys give no extra split)");
  } else {
    result.distinct_keys = 0;
  }
  return result;
}

Result<std::vector<std::string>> SaltedSubSplit(const SaltedSplitOptions& options,
                                                std::vector<std::string>* notes) {
  PRESPLIT_ASSIGN_OR_RETURN(int width,
                            SaltWidth(options.encoding, options.buckets, options.salt_width));
  if (options.regions_per_bucket < 1) {
    return Status::InvalidArgument("regions per bucket must be at least 1 (got " +
                                   std::to_string(options.regions_per_bucket) + ")");
  }
  const int64_t total = static_cast<int64_t>(options.buckets) * options.regions_per_bucket;
  if (total > kMaxSplitRegions) {
    return Status::InvalidArgument(std::to_string(options.buckets) + " buckets x " +
                                   std::to_string(options.regions_per_bucket) +
                                   " regions = " + std::to_string(total) + " regions (at most " +
                                   std::to_string(kMaxSplitRegions) + ")");
  }
  std::vector<std::string> prefixes;
  prefixes.reserve(static_cast<size_t>(options.buckets));
  for (int b = 0; b < options.buckets; ++b) {
    PRESPLIT_ASSIGN_OR_RETURN(std::string prefix,
                              SaltPrefix(options.encoding, options.buckets, b, width));
    prefixes.push_back(std::move(prefix));
  }

  // The within-bucket keys, the same for every bucket except with kSampled.
  std::vector<std::string> within;
  const int k = options.regions_per_bucket;
  switch (options.within_bucket) {
    case SplitAlgorithm::kHexString: {
      auto keys = HexStringSplit(k, options.first_row, options.last_row);
      if (!keys.ok()) return keys.status().WithContext("within bucket");
      within = std::move(keys).value();
      break;
    }
    case SplitAlgorithm::kDecimalString: {
      auto keys = DecimalStringSplit(k, options.first_row, options.last_row);
      if (!keys.ok()) return keys.status().WithContext("within bucket");
      within = std::move(keys).value();
      break;
    }
    case SplitAlgorithm::kUniform: {
      auto keys = UniformSplit(k, options.first_row, options.last_row);
      if (!keys.ok()) return keys.status().WithContext("within bucket");
      within = std::move(keys).value();
      break;
    }
    case SplitAlgorithm::kPartitions: {
      auto keys = PartitionSplit(k);
      if (!keys.ok()) return keys.status().WithContext("within bucket");
      within = std::move(keys).value();
      break;
    }
    case SplitAlgorithm::kSampled:
      if (options.sample == nullptr) {
        return Status::InvalidArgument("within bucket: 'sampled' needs a sample of row keys");
      }
      break;
    case SplitAlgorithm::kSaltBuckets:
    case SplitAlgorithm::kExplicit:
      return Status::InvalidArgument(
          "within bucket: '" + std::string(SplitAlgorithmName(options.within_bucket)) +
          "' cannot split a bucket (use hex-string, decimal-string, uniform, partitions or "
          "sampled)");
  }

  std::vector<std::vector<std::string>> bucket_samples;
  if (options.within_bucket == SplitAlgorithm::kSampled) {
    bucket_samples.resize(static_cast<size_t>(options.buckets));
    for (const std::string& key : *options.sample) {
      // Prefixes have one width, so the bucket is found by comparing that many bytes.
      if (key.size() <= static_cast<size_t>(width)) continue;
      std::string_view head(key.data(), static_cast<size_t>(width));
      auto it = std::lower_bound(
          prefixes.begin(), prefixes.end(), head,
          [](const std::string& p, std::string_view h) { return CompareBytes(p, h) < 0; });
      if (it == prefixes.end() || *it != head) continue;
      bucket_samples[static_cast<size_t>(it - prefixes.begin())].push_back(
          key.substr(static_cast<size_t>(width)));
    }
  }

  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(total - 1));
  for (int b = 0; b < options.buckets; ++b) {
    const std::string& prefix = prefixes[static_cast<size_t>(b)];
    if (b > 0) keys.push_back(prefix);
    if (options.within_bucket == SplitAlgorithm::kSampled) {
      const auto& bucket_sample = bucket_samples[static_cast<size_t>(b)];
      const std::string where =
          "bucket " + std::to_string(b) + " ('" + ToStringBinary(prefix) + "')";
      if (bucket_sample.empty()) {
        if (notes && k > 1) notes->push_back(where + ": no sample key, 1 region");
        continue;
      }
      auto sampled = SampledSplit(bucket_sample, k);
      if (!sampled.ok()) return sampled.status().WithContext("within " + where);
      if (notes) {
        for (const std::string& n : sampled->notes) notes->push_back(where + ": " + n);
      }
      for (const std::string& w : sampled->keys) keys.push_back(prefix + w);
    } else {
      for (const std::string& w : within) keys.push_back(prefix + w);
    }
  }
  PRESPLIT_RETURN_IF_ERROR(ValidateSplitKeys(keys));
  return keys;
}

}  // namespace presplit
