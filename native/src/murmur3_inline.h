// MurmurHash3 x86 32-bit (Austin Appleby's public algorithm), in steps that inline: one home
// for Murmur3_32 (hash.cc) and for BucketsOf's batched loops (layout.cc), which mix blocks of
// several keys in lockstep and then finish each key with MurmurFinish. Internal to libpresplit.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace presplit::murmur3 {

[[gnu::always_inline]] inline uint32_t MurmurLoad32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

[[gnu::always_inline]] inline uint32_t MurmurMixK(uint32_t k) {
  return std::rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u;
}

[[gnu::always_inline]] inline uint32_t MurmurBlock(uint32_t h, uint32_t k) {
  return std::rotl(h ^ MurmurMixK(k), 13) * 5 + 0xe6546b64u;
}

// The rest of the hash once `done` whole blocks of `key` are in h: the remaining blocks, the
// tail and the finalizer.
[[gnu::always_inline]] inline uint32_t MurmurFinish(uint32_t h, std::string_view key, size_t done) {
  const char* p = key.data();
  const size_t n = key.size();
  const size_t blocks = n / 4;
  for (size_t b = done; b < blocks; ++b) h = MurmurBlock(h, MurmurLoad32(p + 4 * b));
  const auto* tail = reinterpret_cast<const unsigned char*>(p + 4 * blocks);
  uint32_t k = 0;
  switch (n & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      h ^= MurmurMixK(k);
      break;
    default:
      break;
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace presplit::murmur3
