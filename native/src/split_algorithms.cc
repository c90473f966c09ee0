#include "presplit/split_algorithms.h"

#include <array>
#include <cctype>
#include <utility>

#include "presplit/bigint.h"
#include "presplit/bytes.h"

namespace presplit {
namespace {

struct NamedAlgorithm {
  std::string_view name;
  SplitAlgorithm value;
};
constexpr std::array<NamedAlgorithm, 7> kAlgorithms = {{
    {"hex-string", SplitAlgorithm::kHexString},
    {"decimal-string", SplitAlgorithm::kDecimalString},
    {"uniform", SplitAlgorithm::kUniform},
    {"salt-buckets", SplitAlgorithm::kSaltBuckets},
    {"explicit", SplitAlgorithm::kExplicit},
    {"partitions", SplitAlgorithm::kPartitions},
    {"sampled", SplitAlgorithm::kSampled},
}};

struct NamedEncoding {
  std::string_view name;
  SaltEncoding value;
};
constexpr std::array<NamedEncoding, 3> kEncodings = {{
    {"byte", SaltEncoding::kByte},
    {"decimal", SaltEncoding::kDecimal},
    {"hex", SaltEncoding::kHex},
}};

Status CheckRegions(int regions) {
  if (regions < 1 || regions > kMaxSplitRegions) {
    return Status::InvalidArgument("the number of regions must be between 1 and " +
                                   std::to_string(kMaxSplitRegions) + " (got " +
                                   std::to_string(regions) + ")");
  }
  return Status::Ok();
}

// Number of digits of `value` in `base` (1 for 0).
int DigitCount(long long value, int base) {
  int digits = 1;
  while (value >= base) {
    value /= base;
    ++digits;
  }
  return digits;
}

Result<BigUint> ParseRow(std::string_view which, const std::string& row, int radix) {
  if (row.size() > kMaxRowKeyLength) {
    return Status::InvalidArgument(std::string(which) + " is longer than " +
                                   std::to_string(kMaxRowKeyLength) + " characters");
  }
  Result<BigUint> value = BigUint::FromString(row, radix);
  if (!value.ok()) {
    return value.status().WithContext(std::string(which) + " '" + ToStringBinary(row) + "'");
  }
  return value;
}

// RegionSplitter.NumberStringSplit.split(n), the common part of Hex- and DecimalStringSplit.
Result<std::vector<std::string>> NumberStringSplit(int regions, int radix,
                                                   std::string_view default_last,
                                                   const std::optional<std::string>& first_row,
                                                   const std::optional<std::string>& last_row) {
  PRESPLIT_RETURN_IF_ERROR(CheckRegions(regions));
  BigUint first;  // the default first row "00000000" is zero
  if (first_row) {
    PRESPLIT_ASSIGN_OR_RETURN(first, ParseRow("first row", *first_row, radix));
  }
  const std::string last_text = last_row ? *last_row : std::string(default_last);
  PRESPLIT_ASSIGN_OR_RETURN(BigUint last, ParseRow("last row", last_text, radix));
  // HBase pads every key to the length of the last row as written, even when the first row is
  // written longer.
  const size_t width = last_text.size();
  const std::string first_text = first_row ? *first_row : std::string("00000000");
  if (last.Compare(first) <= 0) {
    return Status::InvalidArgument("last row '" + ToStringBinary(last_text) +
                                   "' must be greater than first row '" +
                                   ToStringBinary(first_text) + "'");
  }
  // +1: the last row is inclusive.
  PRESPLIT_ASSIGN_OR_RETURN(BigUint range, last.Subtract(first));
  range = range.Add(BigUint(1));
  if (range.Compare(BigUint(static_cast<uint64_t>(regions))) < 0) {
    return Status::InvalidArgument("cannot split the range '" + ToStringBinary(first_text) +
                                   "'..'" + ToStringBinary(last_text) + "' (" + range.ToString(10) +
                                   " values) into " + std::to_string(regions) + " regions");
  }
  PRESPLIT_ASSIGN_OR_RETURN(BigUint step, range.DivideBy(static_cast<uint64_t>(regions)));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(regions - 1));
  for (int i = 1; i < regions; ++i) {
    std::string digits = first.Add(step.MultiplyBy(static_cast<uint64_t>(i))).ToString(radix);
    if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
    keys.push_back(std::move(digits));
  }
  return keys;
}

}  // namespace

Result<SplitAlgorithm> ParseSplitAlgorithm(std::string_view name) {
  for (const auto& a : kAlgorithms) {
    if (EqualsIgnoreCase(a.name, name)) return a.value;
  }
  return Status::InvalidArgument("unknown split algorithm '" + ToStringBinary(name) +
                                 "' (expected one of hex-string, decimal-string, uniform, "
                                 "salt-buckets, explicit, partitions, sampled)");
}

std::string_view SplitAlgorithmName(SplitAlgorithm algorithm) {
  for (const auto& a : kAlgorithms) {
    if (a.value == algorithm) return a.name;
  }
  return "unknown";
}

Result<SaltEncoding> ParseSaltEncoding(std::string_view name) {
  for (const auto& e : kEncodings) {
    if (EqualsIgnoreCase(e.name, name)) return e.value;
  }
  return Status::InvalidArgument("unknown salt encoding '" + ToStringBinary(name) +
                                 "' (expected one of byte, decimal, hex)");
}

std::string_view SaltEncodingName(SaltEncoding encoding) {
  for (const auto& e : kEncodings) {
    if (e.value == encoding) return e.name;
  }
  return "unknown";
}

Result<int> SaltWidth(SaltEncoding encoding, int buckets, int requested_width) {
  if (buckets < 1) {
    return Status::InvalidArgument("the number of salt buckets must be at least 1 (got " +
                                   std::to_string(buckets) + ")");
  }
  if (requested_width < 0) {
    return Status::InvalidArgument("the salt width must not be negative (got " +
                                   std::to_string(requested_width) + ")");
  }
  if (encoding == SaltEncoding::kByte) {
    if (buckets > 256) {
      return Status::InvalidArgument("a 1-byte salt cannot hold " + std::to_string(buckets) +
                                     " buckets (at most 256)");
    }
    if (requested_width > 1) {
      return Status::InvalidArgument("a byte salt is always 1 byte wide (got width " +
                                     std::to_string(requested_width) + ")");
    }
    return 1;
  }
  const int base = encoding == SaltEncoding::kDecimal ? 10 : 16;
  const int needed = DigitCount(buckets - 1, base);
  if (requested_width == 0) return needed;
  if (requested_width > 10) {
    return Status::InvalidArgument("the salt width must be at most 10 characters (got " +
                                   std::to_string(requested_width) + ")");
  }
  if (requested_width < needed) {
    return Status::InvalidArgument("a " + std::to_string(requested_width) + "-character " +
                                   std::string(SaltEncodingName(encoding)) + " salt cannot hold " +
                                   std::to_string(buckets) + " buckets");
  }
  return requested_width;
}

Result<std::string> SaltPrefix(SaltEncoding encoding, int buckets, int bucket,
                               int requested_width) {
  PRESPLIT_ASSIGN_OR_RETURN(int width, SaltWidth(encoding, buckets, requested_width));
  if (bucket < 0 || bucket >= buckets) {
    return Status::InvalidArgument("salt bucket " + std::to_string(bucket) +
                                   " is out of range 0.." + std::to_string(buckets - 1));
  }
  if (encoding == SaltEncoding::kByte) return std::string(1, static_cast<char>(bucket));
  static constexpr char kDigits[] = "0123456789abcdef";
  const int base = encoding == SaltEncoding::kDecimal ? 10 : 16;
  std::string prefix(static_cast<size_t>(width), '0');
  int value = bucket;
  for (int i = width - 1; i >= 0 && value > 0; --i) {
    prefix[static_cast<size_t>(i)] = kDigits[value % base];
    value /= base;
  }
  return prefix;
}

Result<std::vector<std::string>> HexStringSplit(int regions, std::optional<std::string> first_row,
                                                std::optional<std::string> last_row) {
  return NumberStringSplit(regions, 16, "FFFFFFFF", first_row, last_row);
}

Result<std::vector<std::string>> DecimalStringSplit(int regions,
                                                    std::optional<std::string> first_row,
                                                    std::optional<std::string> last_row) {
  return NumberStringSplit(regions, 10, "99999999", first_row, last_row);
}

Result<std::vector<std::string>> UniformSplit(int regions, std::optional<std::string> first_row,
                                              std::optional<std::string> last_row) {
  PRESPLIT_RETURN_IF_ERROR(CheckRegions(regions));
  std::string first = first_row ? *first_row : std::string();
  std::string last = last_row ? *last_row : std::string(8, '\xFF');
  if (first.size() > kMaxRowKeyLength || last.size() > kMaxRowKeyLength) {
    return Status::InvalidArgument("first and last row must be at most " +
                                   std::to_string(kMaxRowKeyLength) + " bytes long");
  }
  if (CompareBytes(last, first) <= 0) {
    return Status::InvalidArgument("last row '" + ToStringBinary(last) +
                                   "' must be greater than first row '" + ToStringBinary(first) +
                                   "'");
  }
  if (regions == 1) return std::vector<std::string>{};
  const std::string first_text = ToStringBinary(first);
  const std::string last_text = ToStringBinary(last);
  // Bytes.iterateOnSplits: pad the shorter row at the tail to the same length.
  size_t length = std::max(first.size(), last.size());
  first.resize(length, '\0');
  last.resize(length, '\0');
  if (CompareBytes(last, first) <= 0) {
    return Status::InvalidArgument("last row '" + last_text + "' equals first row '" + first_text +
                                   "' once both are padded with zero bytes to the same length");
  }
  BigUint a = BigUint::FromBytes(first);
  BigUint b = BigUint::FromBytes(last);
  const BigUint n(static_cast<uint64_t>(regions));
  // +1: the range is inclusive of the last row. While it has fewer values than regions, HBase
  // appends a zero byte to both rows, giving 256 times the values.
  PRESPLIT_ASSIGN_OR_RETURN(BigUint span, b.Subtract(a));
  BigUint range = span.Add(BigUint(1));
  while (range.Compare(n) < 0) {
    ++length;
    a = a.MultiplyBy(256);
    span = span.MultiplyBy(256);
    range = span.Add(BigUint(1));
  }
  PRESPLIT_ASSIGN_OR_RETURN(BigUint interval, range.DivideBy(static_cast<uint64_t>(regions)));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(regions - 1));
  for (int i = 1; i < regions; ++i) {
    PRESPLIT_ASSIGN_OR_RETURN(std::string key,
                              a.Add(interval.MultiplyBy(static_cast<uint64_t>(i))).ToBytes(length));
    keys.push_back(std::move(key));
  }
  return keys;
}

Result<std::vector<std::string>> SaltBucketSplit(int buckets, SaltEncoding encoding,
                                                 int requested_width) {
  PRESPLIT_RETURN_IF_ERROR(SaltWidth(encoding, buckets, requested_width).status());
  if (buckets > kMaxSplitRegions) return CheckRegions(buckets);
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(buckets - 1));
  for (int bucket = 1; bucket < buckets; ++bucket) {
    PRESPLIT_ASSIGN_OR_RETURN(std::string prefix,
                              SaltPrefix(encoding, buckets, bucket, requested_width));
    keys.push_back(std::move(prefix));
  }
  return keys;
}

Status ValidateSplitKeys(const std::vector<std::string>& keys) {
  if (keys.size() >= static_cast<size_t>(kMaxSplitRegions)) {
    return Status::InvalidArgument("too many split keys (" + std::to_string(keys.size()) +
                                   "; at most " + std::to_string(kMaxSplitRegions - 1) + ")");
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    const std::string where = "split key " + std::to_string(i);
    if (key.empty()) {
      return Status::InvalidArgument(where +
                                     " is empty (the empty key is the table's start, not a split)");
    }
    if (key.size() > kMaxRowKeyLength) {
      return Status::InvalidArgument(where + " is " + std::to_string(key.size()) +
                                     " bytes long (a row key has at most " +
                                     std::to_string(kMaxRowKeyLength) + ")");
    }
    if (i > 0) {
      int c = CompareBytes(key, keys[i - 1]);
      if (c <= 0) {
        return Status::InvalidArgument(
            where + " '" + ToStringBinary(key) + "' is not greater than split key " +
            std::to_string(i - 1) + " '" + ToStringBinary(keys[i - 1]) + "'" +
            (c == 0 ? " (duplicate)" : " (keys must be sorted in unsigned byte order)"));
      }
    }
  }
  return Status::Ok();
}

}  // namespace presplit
