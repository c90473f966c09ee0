#include "presplit/hash.h"

#include <bit>
#include <cstring>

#include "murmur3_inline.h"

namespace presplit {
namespace {

// Little-endian 64-bit load, independent of the host's byte order (one unaligned load on
// little-endian hosts).
inline uint64_t LoadLittle64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

// 31^k with Java int (mod 2^32) arithmetic: h = 31 * h + c applied to eight values c0..c7 is
// h * 31^8 + c0 * 31^7 + ... + c7, so eight bytes cost one multiply on the dependency chain.
constexpr uint32_t Pow31(int k) { return k == 0 ? 1u : 31u * Pow31(k - 1); }

// h = 31 * h + c for the eight bytes of `word` (first byte in the low bits), each widened by
// `widen` (signed for Phoenix, unsigned for ASCII chars).
template <typename Widen>
inline uint32_t Polynomial31x8(uint32_t h, uint64_t word, Widen widen) {
  uint32_t sum = 0;
  sum += widen(static_cast<uint8_t>(word)) * Pow31(7);
  sum += widen(static_cast<uint8_t>(word >> 8)) * Pow31(6);
  sum += widen(static_cast<uint8_t>(word >> 16)) * Pow31(5);
  sum += widen(static_cast<uint8_t>(word >> 24)) * Pow31(4);
  sum += widen(static_cast<uint8_t>(word >> 32)) * Pow31(3);
  sum += widen(static_cast<uint8_t>(word >> 40)) * Pow31(2);
  sum += widen(static_cast<uint8_t>(word >> 48)) * Pow31(1);
  sum += widen(static_cast<uint8_t>(word >> 56));
  return h * Pow31(8) + sum;
}

inline uint32_t SignedByte(uint8_t b) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(b)));
}
inline uint32_t UnsignedByte(uint8_t b) { return b; }

// Java's int remainder and Math.abs of it; |remainder| < buckets, so abs never overflows.
inline int AbsJavaRemainder(int32_t hash, int buckets) {
  const int32_t r = hash % buckets;  // C++ truncates toward zero, as Java does
  return r < 0 ? -r : r;
}

}  // namespace

uint32_t Murmur3_32(std::string_view bytes, uint32_t seed) {
  return murmur3::MurmurFinish(seed, bytes, 0);
}

int Murmur3Bucket(std::string_view bytes, int buckets) {
  if (buckets < 1) return -1;
  return static_cast<int>(Murmur3_32(bytes, kMurmur3Seed) % static_cast<uint32_t>(buckets));
}

int32_t PhoenixHashCode(std::string_view bytes) {
  // Unsigned arithmetic wraps exactly as Java's int does.
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  uint32_t h = 1;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = Polynomial31x8(h, LoadLittle64(p + i), SignedByte);
  for (; i < n; ++i) h = 31 * h + SignedByte(p[i]);
  return static_cast<int32_t>(h);
}

int PhoenixSaltByte(std::string_view key, int buckets) {
  if (buckets < 1 || buckets > 256) return -1;
  return AbsJavaRemainder(PhoenixHashCode(key), buckets);
}

std::optional<int32_t> JavaStringHashCode(std::string_view utf8) {
  const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
  const size_t n = utf8.size();
  uint32_t h = 0;
  size_t i = 0;
  while (i < n) {
    // Eight ASCII bytes at a time: each is one UTF-16 char of the same value.
    if (n - i >= 8) {
      const uint64_t word = LoadLittle64(p + i);
      if ((word & 0x8080808080808080ULL) == 0) {
        h = Polynomial31x8(h, word, UnsignedByte);
        i += 8;
        continue;
      }
    }
    const unsigned char b0 = p[i];
    if (b0 < 0x80) {  // the common (ASCII) case
      h = 31 * h + b0;
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len;
    uint32_t min;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      cp = b0 & 0x1F;
      len = 2;
      min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      cp = b0 & 0x0F;
      len = 3;
      min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      cp = b0 & 0x07;
      len = 4;
      min = 0x10000;
    } else {
      return std::nullopt;  // a continuation byte, C0/C1 (always overlong) or F5..FF
    }
    if (n - i < len) return std::nullopt;
    for (size_t j = 1; j < len; ++j) {
      const unsigned char b = p[i + j];
      if ((b & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    if (cp < 0x10000) {
      h = 31 * h + cp;
    } else {
      const uint32_t v = cp - 0x10000;
      h = 31 * h + (0xD800 + (v >> 10));
      h = 31 * h + (0xDC00 + (v & 0x3FF));
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

int JavaStringHashBucket(std::string_view utf8, int buckets) {
  if (buckets < 1) return -1;
  std::optional<int32_t> hash = JavaStringHashCode(utf8);
  if (!hash) return -1;
  return AbsJavaRemainder(*hash, buckets);
}

}  // namespace presplit
