#include "presplit/layout.h"

#include <array>
#include <cctype>
#include <cstdint>

#include "presplit/bytes.h"
#include "presplit/hash.h"

namespace presplit {
namespace {

constexpr int kMaxGroupLength = 32767;
constexpr size_t kNoGroup = std::string_view::npos;

struct NamedHash {
  std::string_view name;
  SaltHash value;
};
constexpr std::array<NamedHash, 3> kHashes = {{
    {"murmur3", SaltHash::kMurmur3},
    {"phoenix", SaltHash::kPhoenix},
    {"java-hashcode", SaltHash::kJavaHashCode},
}};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool HasGroup(const KeyLayout& layout) {
  return layout.group_length.has_value() || layout.group_delimiter.has_value();
}

std::string Quote(std::string_view bytes) { return "'" + ToStringBinary(bytes) + "'"; }

// The length of the group prefix at the start of `logical` (group + delimiter), or kNoGroup when
// `logical` holds no complete group or the layout has none. Allocation-free.
inline size_t GroupPrefixLength(const KeyLayout& layout, std::string_view logical) {
  if (layout.group_length) {
    const auto length = static_cast<size_t>(*layout.group_length);
    return logical.size() >= length ? length : kNoGroup;
  }
  if (layout.group_delimiter) {
    const size_t at = logical.find(*layout.group_delimiter);
    return at == std::string_view::npos ? kNoGroup : at + layout.group_delimiter->size();
  }
  return kNoGroup;
}

// The group (without delimiter) of a logical key, or a description of why it has none.
// Allocation-free on success.
inline bool SplitGroup(const KeyLayout& layout, std::string_view logical, std::string_view* group,
                       std::string_view* rest) {
  if (layout.group_length) {
    const auto length = static_cast<size_t>(*layout.group_length);
    if (logical.size() < length) return false;
    *group = logical.substr(0, length);
    *rest = logical.substr(length);
    return true;
  }
  if (layout.group_delimiter) {
    const size_t at = logical.find(*layout.group_delimiter);
    if (at == std::string_view::npos) return false;
    *group = logical.substr(0, at);
    *rest = logical.substr(at + layout.group_delimiter->size());
    return true;
  }
  *group = std::string_view();
  *rest = logical;
  return true;
}

// "key 'ab' is too short for its group: ...", "row key '3ab' has no group delimiter ...".
Status GroupError(const KeyLayout& layout, std::string_view what, std::string_view whole,
                  std::string_view logical, bool salted) {
  const std::string subject = std::string(what) + " " + Quote(whole);
  if (layout.group_length) {
    return Status::InvalidArgument(
        subject + " is too short for its group: " + std::to_string(logical.size()) + " bytes" +
        (salted ? " after the salt" : "") + ", the group is " +
        std::to_string(*layout.group_length) + " bytes long");
  }
  return Status::InvalidArgument(subject + " has no group delimiter " +
                                 Quote(*layout.group_delimiter) +
                                 (salted ? " after its salt" : ""));
}

// The bucket of a salt source, or -1 (java-hashcode on non-UTF-8). Allocation-free.
inline int HashBucket(SaltHash hash, std::string_view source, int buckets) {
  switch (hash) {
    case SaltHash::kMurmur3:
      return Murmur3Bucket(source, buckets);
    case SaltHash::kPhoenix:
      return PhoenixSaltByte(source, buckets);
    case SaltHash::kJavaHashCode:
      return JavaStringHashBucket(source, buckets);
  }
  return -1;
}

Result<int> BucketOfSource(const KeyLayout& layout, std::string_view source, bool from_key) {
  const int bucket = HashBucket(layout.hash, source, layout.buckets);
  if (bucket < 0) {
    return Status::InvalidArgument(std::string(from_key ? "key " : "group ") + Quote(source) +
                                   " is not well-formed UTF-8, which java-hashcode salting needs");
  }
  return bucket;
}

// Writes the salt prefix of `bucket` into out[0..width). Allocation-free.
inline void WriteSalt(const KeyLayout& layout, int bucket, char* out) {
  if (layout.encoding == SaltEncoding::kByte) {
    out[0] = static_cast<char>(bucket);
    return;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  const int base = layout.encoding == SaltEncoding::kDecimal ? 10 : 16;
  for (int i = layout.salt_width - 1; i >= 0; --i) {
    out[i] = kDigits[bucket % base];
    bucket /= base;
  }
}

// The bucket a salt of salt_width bytes names, or -1 when it names none.
inline int ParseSalt(const KeyLayout& layout, std::string_view salt) {
  if (layout.encoding == SaltEncoding::kByte) {
    const int value = static_cast<unsigned char>(salt[0]);
    return value < layout.buckets ? value : -1;
  }
  int64_t value = 0;
  for (char c : salt) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (layout.encoding == SaltEncoding::kHex && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return -1;
    }
    value = value * (layout.encoding == SaltEncoding::kDecimal ? 10 : 16) + digit;
  }
  return value < layout.buckets ? static_cast<int>(value) : -1;
}

std::string SaltString(const KeyLayout& layout, int bucket) {
  std::string salt(static_cast<size_t>(layout.salt_width), '\0');
  WriteSalt(layout, bucket, salt.data());
  return salt;
}

// The smallest bucket whose salt prefix is >= key, or -1.
int FirstBucketAtOrAfter(const KeyLayout& layout, std::string_view key) {
  char buffer[16];
  const std::string_view salt(buffer, static_cast<size_t>(layout.salt_width));
  int low = 0, high = layout.buckets;  // the answer is in [low, high]; high = none
  while (low < high) {
    const int mid = low + (high - low) / 2;
    WriteSalt(layout, mid, buffer);
    if (CompareBytes(salt, key) >= 0) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low < layout.buckets ? low : -1;
}

// The smallest valid split point >= x (see IsValidSplitPoint), or nullopt.
std::optional<std::string> NextValidAtOrAfter(const KeyLayout& layout, std::string_view x) {
  const auto w = static_cast<size_t>(layout.salt_width);
  int bucket = 0;
  if (IsSalted(layout)) {
    bucket = x.size() >= w ? ParseSalt(layout, x.substr(0, w)) : -1;
    if (bucket < 0) {
      const int next = FirstBucketAtOrAfter(layout, x);
      if (next < 0) return std::nullopt;
      return SaltString(layout, next);
    }
  } else if (x.empty()) {
    return std::string(1, '\0');  // the smallest non-empty key; it cuts no group
  }
  const std::string_view rest = x.substr(w);
  const size_t group_end = GroupPrefixLength(layout, rest);
  if (group_end == kNoGroup || group_end == rest.size()) return std::string(x);
  // x strictly extends the group prefix G = x[0, w + group_end): the first key after G's keys.
  size_t last = group_end;
  while (last > 0 && static_cast<unsigned char>(rest[last - 1]) == 0xFF) --last;
  if (last > 0) {
    std::string next(x.substr(0, w + last));
    next.back() = static_cast<char>(static_cast<unsigned char>(next.back()) + 1);
    return next;
  }
  // Every byte of the group is 0xFF: the next bucket, if any.
  if (!IsSalted(layout) || bucket + 1 >= layout.buckets) return std::nullopt;
  return SaltString(layout, bucket + 1);
}

// Lemire's fast modulo for 32-bit operands (exact for every n >= 1 and every a).
struct FastMod {
  explicit FastMod(uint32_t divisor) : d(divisor), m(~uint64_t{0} / divisor + 1) {}
  uint32_t Of(uint32_t a) const {
    const uint64_t low = m * a;
    return static_cast<uint32_t>((static_cast<__uint128_t>(low) * d) >> 64);
  }
  uint32_t d;
  uint64_t m;
};

}  // namespace

Result<SaltHash> ParseSaltHash(std::string_view name) {
  for (const auto& h : kHashes) {
    if (EqualsIgnoreCase(h.name, name)) return h.value;
  }
  return Status::InvalidArgument("unknown salt hash '" + ToStringBinary(name) +
                                 "' (expected one of murmur3, phoenix, java-hashcode)");
}

std::string_view SaltHashName(SaltHash hash) {
  for (const auto& h : kHashes) {
    if (h.value == hash) return h.name;
  }
  return "unknown";
}

Result<KeyLayout> MakeLayout(const KeyLayout& spec) {
  KeyLayout layout = spec;
  if (layout.group_length && layout.group_delimiter) {
    return Status::InvalidArgument("a group is cut by a length or a delimiter, not both");
  }
  if (layout.group_length && (*layout.group_length < 1 || *layout.group_length > kMaxGroupLength)) {
    return Status::InvalidArgument("the group length must be between 1 and " +
                                   std::to_string(kMaxGroupLength) + " (got " +
                                   std::to_string(*layout.group_length) + ")");
  }
  if (layout.group_delimiter && layout.group_delimiter->empty()) {
    return Status::InvalidArgument("the group delimiter must not be empty");
  }
  if (layout.buckets < 0) {
    return Status::InvalidArgument("the number of salt buckets must not be negative (got " +
                                   std::to_string(layout.buckets) + ")");
  }
  if (layout.buckets == 0) {
    if (layout.salt_from_key) {
      return Status::InvalidArgument("an unsalted layout (0 buckets) cannot salt from the key");
    }
    layout.encoding = SaltEncoding::kByte;
    layout.hash = SaltHash::kMurmur3;
    layout.salt_width = 0;
    return layout;
  }
  const int max_buckets = layout.encoding == SaltEncoding::kByte ? 256 : kMaxConfigRegions;
  if (layout.buckets > max_buckets) {
    return Status::InvalidArgument("the number of salt buckets must be between 1 and " +
                                   std::to_string(max_buckets) + " for " +
                                   std::string(SaltEncodingName(layout.encoding)) +
                                   " encoding (got " + std::to_string(layout.buckets) + ")");
  }
  if (layout.hash == SaltHash::kPhoenix && layout.buckets > 256) {
    return Status::InvalidArgument("the phoenix hash allows at most 256 buckets (got " +
                                   std::to_string(layout.buckets) + ")");
  }
  PRESPLIT_ASSIGN_OR_RETURN(layout.salt_width,
                            SaltWidth(layout.encoding, layout.buckets, layout.salt_width));
  if (!layout.salt_from_key && !HasGroup(layout)) {
    return Status::InvalidArgument(
        "salting from the group needs a group (a length or a delimiter), or salt from the key");
  }
  return layout;
}

Result<KeyLayout> LayoutFromConfig(const LayoutConfig& config) {
  KeyLayout spec;
  if (config.salt) {
    spec.buckets = config.salt->buckets;
    spec.encoding = config.salt->encoding;
    spec.salt_width = config.salt->width;
    PRESPLIT_ASSIGN_OR_RETURN(spec.hash, ParseSaltHash(config.salt->hash));
    if (config.salt->from == "key") {
      spec.salt_from_key = true;
    } else if (config.salt->from != "group") {
      return Status::InvalidArgument("unknown salt source '" + config.salt->from +
                                     "' (expected group or key)");
    }
  }
  if (config.group) {
    spec.group_length = config.group->length;
    spec.group_delimiter = config.group->delimiter;
  }
  return MakeLayout(spec);
}

Result<int> BucketOf(const KeyLayout& layout, std::string_view logical_key) {
  std::string_view group, rest;
  if (!SplitGroup(layout, logical_key, &group, &rest)) {
    return GroupError(layout, "key", logical_key, logical_key, false);
  }
  if (!IsSalted(layout)) return 0;
  return BucketOfSource(layout, layout.salt_from_key ? logical_key : group, layout.salt_from_key);
}

void BucketsOf(const KeyLayout& layout, const std::vector<std::string_view>& keys,
               std::vector<int>& out) {
  out.resize(keys.size());
  const size_t n = keys.size();
  const bool need_group = HasGroup(layout);
  auto source_of = [&](std::string_view key, std::string_view* source) {
    std::string_view group = key, rest;
    if (need_group && !SplitGroup(layout, key, &group, &rest)) return false;
    *source = layout.salt_from_key ? key : group;
    return true;
  };
  if (!IsSalted(layout)) {
    std::string_view source;
    for (size_t i = 0; i < n; ++i) out[i] = source_of(keys[i], &source) ? 0 : -1;
    return;
  }
  if (layout.hash == SaltHash::kMurmur3) {
    const FastMod mod(static_cast<uint32_t>(layout.buckets));
    std::string_view source;
    for (size_t i = 0; i < n; ++i) {
      out[i] = source_of(keys[i], &source)
                   ? static_cast<int>(mod.Of(Murmur3_32(source, kMurmur3Seed)))
                   : -1;
    }
    return;
  }
  std::string_view source;
  for (size_t i = 0; i < n; ++i) {
    out[i] = source_of(keys[i], &source) ? HashBucket(layout.hash, source, layout.buckets) : -1;
  }
}

Result<std::string> EncodeKey(const KeyLayout& layout, std::string_view logical_key) {
  PRESPLIT_ASSIGN_OR_RETURN(int bucket, BucketOf(layout, logical_key));
  const auto w = static_cast<size_t>(layout.salt_width);
  const size_t size = w + logical_key.size();
  if (size == 0) return Status::InvalidArgument("an unsalted row key must not be empty");
  if (size > kMaxRowKeyLength) {
    return Status::InvalidArgument("the row key would be " + std::to_string(size) +
                                   " bytes long (at most " + std::to_string(kMaxRowKeyLength) +
                                   ")");
  }
  std::string row(size, '\0');
  if (IsSalted(layout)) WriteSalt(layout, bucket, row.data());
  if (!logical_key.empty()) logical_key.copy(row.data() + w, logical_key.size());
  return row;
}

Result<DecodedKey> DecodeKey(const KeyLayout& layout, std::string_view row_key) {
  const auto w = static_cast<size_t>(layout.salt_width);
  DecodedKey decoded;
  decoded.bucket = 0;
  if (IsSalted(layout)) {
    if (row_key.size() < w) {
      return Status::InvalidArgument(
          "row key " + Quote(row_key) + " is shorter than its " + std::to_string(w) + "-" +
          (layout.encoding == SaltEncoding::kByte ? "byte" : "character") + " " +
          std::string(SaltEncodingName(layout.encoding)) + " salt");
    }
    decoded.bucket = ParseSalt(layout, row_key.substr(0, w));
    if (decoded.bucket < 0) {
      return Status::InvalidArgument("row key " + Quote(row_key) + " starts with " +
                                     Quote(row_key.substr(0, w)) + ", which is not the " +
                                     std::string(SaltEncodingName(layout.encoding)) +
                                     " salt of a bucket 0.." + std::to_string(layout.buckets - 1));
    }
  }
  const std::string_view logical = row_key.substr(w);
  std::string_view group, rest;
  if (!SplitGroup(layout, logical, &group, &rest)) {
    return GroupError(layout, "row key", row_key, logical, IsSalted(layout));
  }
  if (IsSalted(layout)) {
    const std::string_view source = layout.salt_from_key ? logical : group;
    Result<int> expected = BucketOfSource(layout, source, layout.salt_from_key);
    if (!expected.ok()) return expected.status().WithContext("row key " + Quote(row_key));
    if (*expected != decoded.bucket) {
      return Status::InvalidArgument("row key " + Quote(row_key) + " is in bucket " +
                                     std::to_string(decoded.bucket) + " but its " +
                                     (layout.salt_from_key ? "key" : "group") + " hashes to " +
                                     std::to_string(*expected));
    }
  }
  decoded.group = std::string(group);
  decoded.rest = std::string(rest);
  return decoded;
}

Result<std::string> GroupPrefix(const KeyLayout& layout, std::string_view row_key) {
  if (!HasGroup(layout)) return Status::InvalidArgument("the layout has no key group");
  const auto w = static_cast<size_t>(layout.salt_width);
  if (IsSalted(layout)) {
    if (row_key.size() < w || ParseSalt(layout, row_key.substr(0, w)) < 0) {
      return Status::InvalidArgument("row key " + Quote(row_key) +
                                     " does not start with the salt of a bucket 0.." +
                                     std::to_string(layout.buckets - 1));
    }
  }
  const std::string_view logical = row_key.substr(w);
  const size_t length = GroupPrefixLength(layout, logical);
  if (length == kNoGroup) {
    return GroupError(layout, "row key", row_key, logical, IsSalted(layout));
  }
  return std::string(row_key.substr(0, w + length));
}

Result<std::string> GroupScanPrefix(const KeyLayout& layout, std::string_view group) {
  if (!HasGroup(layout)) return Status::InvalidArgument("the layout has no key group");
  if (IsSalted(layout) && layout.salt_from_key) {
    return Status::InvalidArgument(
        "the salt comes from the whole key: a group's rows are in every bucket");
  }
  if (layout.group_length && group.size() != static_cast<size_t>(*layout.group_length)) {
    return Status::InvalidArgument("group " + Quote(group) + " is " + std::to_string(group.size()) +
                                   " bytes long, not " + std::to_string(*layout.group_length));
  }
  if (layout.group_delimiter && group.find(*layout.group_delimiter) != std::string_view::npos) {
    return Status::InvalidArgument("group " + Quote(group) + " contains the group delimiter " +
                                   Quote(*layout.group_delimiter));
  }
  std::string prefix;
  if (IsSalted(layout)) {
    PRESPLIT_ASSIGN_OR_RETURN(int bucket, BucketOfSource(layout, group, false));
    prefix = SaltString(layout, bucket);
  }
  prefix.append(group);
  if (layout.group_delimiter) prefix.append(*layout.group_delimiter);
  return prefix;
}

bool IsValidSplitPoint(const KeyLayout& layout, std::string_view split_point) {
  if (split_point.empty()) return false;
  const auto w = static_cast<size_t>(layout.salt_width);
  if (IsSalted(layout) &&
      (split_point.size() < w || ParseSalt(layout, split_point.substr(0, w)) < 0)) {
    return false;
  }
  const std::string_view rest = split_point.substr(w);
  const size_t group_end = GroupPrefixLength(layout, rest);
  return group_end == kNoGroup || group_end == rest.size();
}

Result<std::optional<std::string>> SnapSplitPoint(const KeyLayout& layout,
                                                  std::string_view region_start,
                                                  std::string_view region_end,
                                                  std::string_view candidate) {
  const bool bounded = !region_end.empty();
  if (bounded && CompareBytes(region_end, region_start) <= 0) {
    return Status::InvalidArgument("region end " + Quote(region_end) + " is not after its start " +
                                   Quote(region_start));
  }
  if (candidate.empty()) return std::optional<std::string>();
  if (CompareBytes(candidate, region_start) < 0 ||
      (bounded && CompareBytes(candidate, region_end) >= 0)) {
    return Status::InvalidArgument("split candidate " + Quote(candidate) +
                                   " is outside the region [" + Quote(region_start) + ", " +
                                   Quote(region_end) + ")");
  }
  // P: the candidate's group prefix (or the candidate, when it has no complete group). P <= c <
  // end, so P is the answer whenever it is after the start.
  const auto w = static_cast<size_t>(layout.salt_width);
  const bool salt_ok = !IsSalted(layout) ||
                       (candidate.size() >= w && ParseSalt(layout, candidate.substr(0, w)) >= 0);
  if (salt_ok) {
    const size_t group_end = GroupPrefixLength(layout, candidate.substr(w));
    const std::string_view prefix =
        group_end == kNoGroup ? candidate : candidate.substr(0, w + group_end);
    if (CompareBytes(prefix, region_start) > 0) return std::optional<std::string>(prefix);
  }
  // A candidate without a bucket's complete salt (a partial salt, or beyond the last bucket): the
  // first valid point at or after it, when that is inside the region.
  if (!salt_ok && CompareBytes(candidate, region_start) > 0) {
    std::optional<std::string> next = NextValidAtOrAfter(layout, candidate);
    if (next && (!bounded || CompareBytes(*next, region_end) < 0)) return next;
  }
  // The start key lies in the candidate's group (or nothing valid follows the candidate): the
  // smallest valid point after the start key, which is at or after start + "\x00".
  std::string after_start;
  after_start.reserve(region_start.size() + 1);
  after_start.append(region_start);
  after_start.push_back('\0');
  std::optional<std::string> next = NextValidAtOrAfter(layout, after_start);
  if (!next || (bounded && CompareBytes(*next, region_end) >= 0)) {
    return std::optional<std::string>();
  }
  return next;
}

}  // namespace presplit
