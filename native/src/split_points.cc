#include "presplit/split_points.h"

#include <algorithm>
#include <cstddef>
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

bool BytesLess(std::string_view a, std::string_view b) { return CompareBytes(a, b) < 0; }

// Places, for every position in positions[lo..hi) (sorted, inside [first, last)), the element of
// that rank at that position of `order`, by recursive selection around the middle position.
void MultiSelect(std::vector<std::string_view>& order, size_t first, size_t last,
                 const std::vector<size_t>& positions, size_t lo, size_t hi) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    size_t pos = positions[mid];
    std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(first),
                     order.begin() + static_cast<std::ptrdiff_t>(pos),
                     order.begin() + static_cast<std::ptrdiff_t>(last), BytesLess);
    // Left part: positions[lo..mid) lie in [first, pos); right part in (pos, last).
    MultiSelect(order, first, pos, positions, lo, mid);
    first = pos + 1;
    lo = mid + 1;
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
  std::vector<std::string_view> order;
  order.reserve(sample.size());
  for (size_t i = 0; i < sample.size(); ++i) {
    const std::string& key = sample[i];
    if (key.empty()) {
      ++result.empty_keys;
      continue;
    }
    if (key.size() > kMaxRowKeyLength) {
      return Status::InvalidArgument(
          "sample key " + std::to_string(i) + " is " + std::to_string(key.size()) +
          " bytes long (a row key has at most " + std::to_string(kMaxRowKeyLength) + ")");
    }
    order.push_back(key);
  }
  const size_t m = order.size();
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

  // Quantile positions, non-decreasing; equal positions collapse (fewer keys than regions).
  std::vector<size_t> positions;
  positions.reserve(static_cast<size_t>(regions - 1));
  for (int i = 1; i < regions; ++i) {
    size_t pos = static_cast<size_t>((static_cast<unsigned __int128>(i) * m) /
                                     static_cast<unsigned>(regions));
    if (positions.empty() || positions.back() != pos) positions.push_back(pos);
  }
  const std::string_view smallest = *std::min_element(order.begin(), order.end(), BytesLess);
  MultiSelect(order, 0, m, positions, 0, positions.size());

  for (size_t pos : positions) {
    std::string_view key = order[pos];
    if (key == smallest) continue;  // would leave the first region without sample keys
    if (!result.keys.empty() && result.keys.back() == key) continue;
    result.keys.emplace_back(key);
  }
  const int planned = static_cast<int>(result.keys.size()) + 1;
  if (planned < regions) {
    // Count the distinct keys only now, when they explain the shortfall.
    std::sort(order.begin(), order.end(), BytesLess);
    result.distinct_keys =
        static_cast<size_t>(std::unique(order.begin(), order.end()) - order.begin());
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
