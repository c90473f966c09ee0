// Salt hashes: byte-exact with the Java code each one is named after, allocation-free.
//
// Each function maps a byte string (a key group, or a whole logical key) to a bucket in
// 0..buckets-1. The tests compare them with golden vectors produced by the real Java code
// (tests/vectors/hashes.tsv): Apache Phoenix's SaltingUtil, Guava's Hashing.murmur3_32_fixed and
// the JDK's String.hashCode.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace presplit {

// The seed presplit's "murmur3" salt uses. 0 is what every MurmurHash3 implementation defaults to
// (Guava's Hashing.murmur3_32_fixed(), the reference C++ code with seed 0), so any of them can
// recompute a salt.
inline constexpr uint32_t kMurmur3Seed = 0;

// MurmurHash3 x86 32-bit (Austin Appleby's public algorithm) of `bytes` with `seed`: the value
// Guava's Hashing.murmur3_32_fixed(seed).hashBytes(bytes).asInt() returns, as unsigned.
uint32_t Murmur3_32(std::string_view bytes, uint32_t seed = kMurmur3Seed);

// presplit's "murmur3" salt: Murmur3_32(bytes, kMurmur3Seed) read as an unsigned 32-bit number,
// modulo buckets. buckets must be >= 1 (else returns -1).
int Murmur3Bucket(std::string_view bytes, int buckets);

// Phoenix's hash of a row key (SaltingUtil.calculateHashCode): h = 1, then h = 31 * h + b for
// every byte b read as a signed Java byte, with Java int overflow.
int32_t PhoenixHashCode(std::string_view bytes);

// Phoenix's salt byte (SaltingUtil.getSaltingByte(key, 0, len, buckets) in Phoenix 4.x/5.x):
// Math.abs(PhoenixHashCode(key) % buckets), where % is Java's remainder (sign of the dividend).
// Phoenix allows 1..256 buckets; the result (0..buckets-1) is the salt byte read as unsigned.
// Returns -1 when buckets is outside 1..256.
int PhoenixSaltByte(std::string_view key, int buckets);

// Java's String.hashCode (h = 31 * h + c over the UTF-16 chars, Java int overflow) of the string
// that `utf8` encodes. std::nullopt when `utf8` is not well-formed UTF-8 (an overlong form, a
// surrogate code point, a value above U+10FFFF, a stray or missing continuation byte): presplit
// refuses such keys rather than imitate the JDK's U+FFFD replacement rules, so a Java writer that
// decodes strictly (CodingErrorAction.REPORT) and presplit agree on every key both accept. For
// well-formed UTF-8 the value equals new String(bytes, UTF_8).hashCode(); characters above U+FFFF
// count as their two surrogate chars, as in Java.
std::optional<int32_t> JavaStringHashCode(std::string_view utf8);

// The reference case's salt: Math.abs(JavaStringHashCode(key) % buckets). -1 when the key is not
// well-formed UTF-8 or buckets < 1.
int JavaStringHashBucket(std::string_view utf8, int buckets);

}  // namespace presplit
