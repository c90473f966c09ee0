#include "presplit/layout.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PRESPLIT_MURMUR_AVX2 1
#endif

#include "murmur3_inline.h"
#include "presplit/bytes.h"
#include "presplit/hash.h"

namespace presplit {
namespace {

using murmur3::MurmurBlock;
using murmur3::MurmurFinish;
using murmur3::MurmurLoad32;

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

// MurmurHash3's steps, inlined into BucketsOf's loop: murmur3_inline.h, which Murmur3_32
// (hash.cc) is made of too.
// Four keys' hashes at once: their blocks in lockstep as long as all four have blocks left, so
// the four dependency chains overlap, then each key's own rest.
[[gnu::always_inline]] inline void Murmur3x4(const std::string_view* source, uint32_t* out) {
  static_assert(kMurmur3Seed == 0);
  const size_t common = std::min(std::min(source[0].size(), source[1].size()),
                                 std::min(source[2].size(), source[3].size())) /
                        4;
  const char* p0 = source[0].data();
  const char* p1 = source[1].data();
  const char* p2 = source[2].data();
  const char* p3 = source[3].data();
  uint32_t h0 = 0, h1 = 0, h2 = 0, h3 = 0;
  for (size_t b = 0; b < common; ++b) {
    h0 = MurmurBlock(h0, MurmurLoad32(p0 + 4 * b));
    h1 = MurmurBlock(h1, MurmurLoad32(p1 + 4 * b));
    h2 = MurmurBlock(h2, MurmurLoad32(p2 + 4 * b));
    h3 = MurmurBlock(h3, MurmurLoad32(p3 + 4 * b));
  }
  out[0] = MurmurFinish(h0, source[0], common);
  out[1] = MurmurFinish(h1, source[1], common);
  out[2] = MurmurFinish(h2, source[2], common);
  out[3] = MurmurFinish(h3, source[3], common);
}

#ifdef PRESPLIT_MURMUR_AVX2
// Eight keys' hashes at once with AVX2 (chosen at run time, see HasAvx2): four blocks of each
// key are loaded (16 bytes a key), transposed so that one vector holds one block of all eight
// keys, and mixed lane by lane; the blocks the eight keys do not all have, the tails and the
// finalizer are done per key by MurmurFinish. Exactly the scalar arithmetic, lane by lane.
[[gnu::target("avx2")]] inline __m256i RotateLeft8x32(__m256i x, int r) {
  return _mm256_or_si256(_mm256_slli_epi32(x, r), _mm256_srli_epi32(x, 32 - r));
}

[[gnu::target("avx2")]] inline __m256i MurmurBlock8x32(__m256i h, __m256i k) {
  k = _mm256_mullo_epi32(k, _mm256_set1_epi32(static_cast<int>(0xcc9e2d51u)));
  k = RotateLeft8x32(k, 15);
  k = _mm256_mullo_epi32(k, _mm256_set1_epi32(0x1b873593));
  h = RotateLeft8x32(_mm256_xor_si256(h, k), 13);
  // h * 5 + c as (h << 2) + (h + c): two steps on the dependency chain instead of three.
  return _mm256_add_epi32(_mm256_slli_epi32(h, 2),
                          _mm256_add_epi32(h, _mm256_set1_epi32(static_cast<int>(0xe6546b64u))));
}

[[gnu::target("avx2")]] inline __m256i LoadTwo16(const std::string_view* source, int j,
                                                 size_t block) {
  const auto* low = reinterpret_cast<const __m128i*>(source[j].data() + 4 * block);
  const auto* high = reinterpret_cast<const __m128i*>(source[j + 4].data() + 4 * block);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(low)),
                                 _mm_loadu_si128(high), 1);
}

[[gnu::target("avx2")]] void Murmur3x8Avx2(const std::string_view* source, uint32_t* out) {
  size_t common = source[0].size();
  for (int j = 1; j < 8; ++j) common = std::min(common, source[j].size());
  common /= 4;
  const size_t vector_blocks = common & ~size_t{3};
  __m256i h = _mm256_setzero_si256();
  for (size_t b = 0; b < vector_blocks; b += 4) {
    // r_j: 16 bytes of key j in the low half, of key j + 4 in the high half.
    const __m256i r0 = LoadTwo16(source, 0, b), r1 = LoadTwo16(source, 1, b);
    const __m256i r2 = LoadTwo16(source, 2, b), r3 = LoadTwo16(source, 3, b);
    const __m256i lo01 = _mm256_unpacklo_epi32(r0, r1), hi01 = _mm256_unpackhi_epi32(r0, r1);
    const __m256i lo23 = _mm256_unpacklo_epi32(r2, r3), hi23 = _mm256_unpackhi_epi32(r2, r3);
    h = MurmurBlock8x32(h, _mm256_unpacklo_epi64(lo01, lo23));  // block b of keys 0..7
    h = MurmurBlock8x32(h, _mm256_unpackhi_epi64(lo01, lo23));  // block b + 1
    h = MurmurBlock8x32(h, _mm256_unpacklo_epi64(hi01, hi23));  // block b + 2
    h = MurmurBlock8x32(h, _mm256_unpackhi_epi64(hi01, hi23));  // block b + 3
  }
  const size_t length = source[0].size();
  bool same_length = true;
  for (int j = 1; j < 8; ++j) same_length &= source[j].size() == length;
  if (same_length) {
    // One length for all (fixed-width keys, the common case): the rest in the vector too.
    auto word = [&](int j, size_t at, size_t bytes) {
      uint32_t w = 0;
      std::memcpy(&w, source[j].data() + at, bytes);  // little-endian host (x86-64)
      return static_cast<int>(w);
    };
    for (size_t b = vector_blocks; b < common; ++b) {
      h = MurmurBlock8x32(h,
                          _mm256_setr_epi32(word(0, 4 * b, 4), word(1, 4 * b, 4), word(2, 4 * b, 4),
                                            word(3, 4 * b, 4), word(4, 4 * b, 4), word(5, 4 * b, 4),
                                            word(6, 4 * b, 4), word(7, 4 * b, 4)));
    }
    const size_t tail = length & 3, at = 4 * common;
    if (tail != 0) {
      __m256i k = _mm256_setr_epi32(word(0, at, tail), word(1, at, tail), word(2, at, tail),
                                    word(3, at, tail), word(4, at, tail), word(5, at, tail),
                                    word(6, at, tail), word(7, at, tail));
      k = _mm256_mullo_epi32(k, _mm256_set1_epi32(static_cast<int>(0xcc9e2d51u)));
      k = RotateLeft8x32(k, 15);
      k = _mm256_mullo_epi32(k, _mm256_set1_epi32(0x1b873593));
      h = _mm256_xor_si256(h, k);
    }
    h = _mm256_xor_si256(h, _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(length))));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32(static_cast<int>(0x85ebca6bu)));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 13));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32(static_cast<int>(0xc2b2ae35u)));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), h);
    return;
  }
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), h);
  for (int j = 0; j < 8; ++j) out[j] = MurmurFinish(lanes[j], source[j], vector_blocks);
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

// Java's Math.abs(hash % n) for n >= 1, without a division: |hash % n| == |hash| mod n.
inline int AbsJavaRemainder(int32_t hash, const FastMod& mod) {
  const uint32_t magnitude =
      hash < 0 ? 0u - static_cast<uint32_t>(hash) : static_cast<uint32_t>(hash);
  return static_cast<int>(mod.Of(magnitude));
}

// BucketsOf's loop for one way of finding the salt source: source(key, &view) gives the bytes to
// hash and whether the key fits the layout (a key that does not gets -1; its view is then
// anything in the key). Keys go four at a time through the interleaved murmur3.
template <typename Source>
void BucketsLoop(const KeyLayout& layout, const std::vector<std::string_view>& keys,
                 std::vector<int>& out, Source source) {
  const size_t n = keys.size();
  const FastMod mod(static_cast<uint32_t>(layout.buckets));
  const std::string_view* in = keys.data();
  int* result = out.data();
  switch (layout.hash) {
    case SaltHash::kMurmur3: {
      size_t i = 0;
#ifdef PRESPLIT_MURMUR_AVX2
      if (HasAvx2()) {
        for (; i + 8 <= n; i += 8) {
          std::string_view src[8];
          bool ok[8];
          for (int j = 0; j < 8; ++j) ok[j] = source(in[i + j], &src[j]);
          uint32_t h[8];
          Murmur3x8Avx2(src, h);
          for (int j = 0; j < 8; ++j) {
            result[i + j] = ok[j] ? static_cast<int>(mod.Of(h[j])) : -1;
          }
        }
      }
#endif
      for (; i + 4 <= n; i += 4) {
        std::string_view src[4];
        bool ok[4];
        for (int j = 0; j < 4; ++j) ok[j] = source(in[i + j], &src[j]);
        uint32_t h[4];
        Murmur3x4(src, h);
        for (int j = 0; j < 4; ++j) result[i + j] = ok[j] ? static_cast<int>(mod.Of(h[j])) : -1;
      }
      for (; i < n; ++i) {
        std::string_view src;
        const bool ok = source(in[i], &src);
        result[i] = ok ? static_cast<int>(mod.Of(MurmurFinish(0, src, 0))) : -1;
      }
      return;
    }
    case SaltHash::kPhoenix:
      for (size_t i = 0; i < n; ++i) {
        std::string_view src;
        const bool ok = source(in[i], &src);
        result[i] = ok ? AbsJavaRemainder(PhoenixHashCode(src), mod) : -1;
      }
      return;
    case SaltHash::kJavaHashCode:
      for (size_t i = 0; i < n; ++i) {
        std::string_view src;
        std::optional<int32_t> hash;
        if (source(in[i], &src)) hash = JavaStringHashCode(src);
        result[i] = hash ? AbsJavaRemainder(*hash, mod) : -1;
      }
      return;
  }
  std::fill(out.begin(), out.end(), -1);
}

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
  if (!IsSalted(layout)) {
    std::string_view group, rest;
    for (size_t i = 0; i < n; ++i) out[i] = SplitGroup(layout, keys[i], &group, &rest) ? 0 : -1;
    return;
  }
  // One loop per way of finding the salt source, so the loop itself has no layout branch.
  if (layout.group_length) {
    const auto length = static_cast<size_t>(*layout.group_length);
    if (layout.salt_from_key) {
      BucketsLoop(layout, keys, out, [length](std::string_view key, std::string_view* source) {
        *source = key;
        return key.size() >= length;
      });
    } else {
      BucketsLoop(layout, keys, out, [length](std::string_view key, std::string_view* source) {
        *source = key.substr(0, length);
        return key.size() >= length;
      });
    }
  } else if (layout.group_delimiter) {
    const std::string_view delimiter = *layout.group_delimiter;
    const bool from_key = layout.salt_from_key;
    BucketsLoop(layout, keys, out,
                [delimiter, from_key](std::string_view key, std::string_view* source) {
                  const size_t at = key.find(delimiter);
                  *source = from_key ? key : key.substr(0, std::min(at, key.size()));
                  return at != std::string_view::npos;
                });
  } else {  // no group: the salt comes from the whole key
    BucketsLoop(layout, keys, out, [](std::string_view key, std::string_view* source) {
      *source = key;
      return true;
    });
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
  // HBase has no empty row key (EncodeKey never makes one): refuse it rather than decode it.
  // (A salted layout says more precisely why, below.)
  if (row_key.empty() && !IsSalted(layout)) {
    return Status::InvalidArgument("the empty row key is no row key");
  }
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

Result<KeyRange> GroupScanRange(const KeyLayout& layout, std::string_view group) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string prefix, GroupScanPrefix(layout, group));
  std::string stop = PrefixEnd(prefix);
  return KeyRange{std::move(prefix), std::move(stop)};
}

Result<std::vector<KeyRange>> BucketScanRanges(const KeyLayout& layout,
                                               std::string_view logical_start,
                                               std::string_view logical_stop) {
  if (!logical_stop.empty() && CompareBytes(logical_stop, logical_start) <= 0) {
    return Status::InvalidArgument("the range's stop " + Quote(logical_stop) +
                                   " is not after its start " + Quote(logical_start));
  }
  std::vector<KeyRange> ranges;
  if (!IsSalted(layout)) {
    ranges.push_back(KeyRange{std::string(logical_start), std::string(logical_stop)});
    return ranges;
  }
  ranges.reserve(static_cast<size_t>(layout.buckets));
  for (int bucket = 0; bucket < layout.buckets; ++bucket) {
    const std::string salt = SaltString(layout, bucket);
    KeyRange range{salt + std::string(logical_start), std::string()};
    // Salts have one width, so the rows of bucket b end where the next salt value begins.
    range.stop = logical_stop.empty() ? PrefixEnd(salt) : salt + std::string(logical_stop);
    ranges.push_back(std::move(range));
  }
  return ranges;
}

Result<std::string_view> StripSalt(const KeyLayout& layout, std::string_view row_key) {
  const auto w = static_cast<size_t>(layout.salt_width);
  if (!IsSalted(layout)) return row_key;
  if (row_key.size() < w) {
    return Status::InvalidArgument("row key " + Quote(row_key) + " is shorter than its " +
                                   std::to_string(w) + "-byte salt");
  }
  return row_key.substr(w);
}

Result<std::string> Rekey(const KeyLayout& from, const KeyLayout& to, std::string_view row_key) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string_view logical_key, StripSalt(from, row_key));
  auto row = EncodeKey(to, logical_key);
  if (!row.ok()) {
    return Status::InvalidArgument("row key " + Quote(row_key) +
                                   " cannot be re-keyed: " + row.status().message());
  }
  return row;
}

void RekeyAll(const KeyLayout& from, const KeyLayout& to,
              const std::vector<std::string_view>& row_keys, std::string& out,
              std::vector<size_t>& ends, std::vector<size_t>& failed) {
  const size_t n = row_keys.size();
  const auto from_width = static_cast<size_t>(from.salt_width);
  const auto to_width = static_cast<size_t>(to.salt_width);
  out.clear();
  failed.clear();
  ends.assign(n, 0);
  // Logical keys first (views into the caller's keys), then every bucket in one BucketsOf pass.
  std::vector<std::string_view> logical(n);
  std::vector<bool> too_short(n, false);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (IsSalted(from) && row_keys[i].size() < from_width) {
      too_short[i] = true;
      continue;
    }
    logical[i] = row_keys[i].substr(IsSalted(from) ? from_width : 0);
    total += to_width + logical[i].size();
  }
  std::vector<int> buckets;
  BucketsOf(to, logical, buckets);
  out.reserve(total);
  for (size_t i = 0; i < n; ++i) {
    const size_t size = to_width + logical[i].size();
    if (too_short[i] || buckets[i] < 0 || size == 0 || size > kMaxRowKeyLength) {
      failed.push_back(i);
    } else {
      const size_t at = out.size();
      out.resize(at + size);
      if (IsSalted(to)) WriteSalt(to, buckets[i], out.data() + at);
      logical[i].copy(out.data() + at + to_width, logical[i].size());
    }
    ends[i] = out.size();
  }
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
