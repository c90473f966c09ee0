// An unsigned arbitrary-precision integer, just big enough for the split algorithms: HBase's
// RegionSplitter does its arithmetic in java.math.BigInteger, and row keys can be longer than
// 64 bits (a 32-digit hex range, a 9-byte uniform range).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/status.h"

namespace presplit {

class BigUint {
 public:
  BigUint() = default;  // zero
  explicit BigUint(uint64_t value);

  // Parses digits in `radix` (2..36; the split algorithms use 10 and 16). Letters may be either
  // case. Unlike Java's BigInteger(String, int), no sign and no non-ASCII digits are accepted,
  // and the text must not be empty: InvalidArgument names the first bad character's offset.
  static Result<BigUint> FromString(std::string_view digits, int radix);

  // Digits in `radix` (2..36), letters lower case, no leading zeros ("0" for zero): the same
  // text as Java's BigInteger.toString(radix) for a non-negative value.
  std::string ToString(int radix) const;

  // The value of unsigned big-endian bytes (empty = zero).
  static BigUint FromBytes(std::string_view big_endian);

  // Exactly `width` big-endian bytes, zero-padded on the left; InvalidArgument if the value needs
  // more than `width` bytes.
  Result<std::string> ToBytes(size_t width) const;

  bool IsZero() const { return limbs_.empty(); }
  // Number of significant bits (0 for zero).
  size_t BitLength() const;

  BigUint Add(const BigUint& other) const;
  // InvalidArgument if `other` > *this (the result would be negative).
  Result<BigUint> Subtract(const BigUint& other) const;
  BigUint MultiplyBy(uint64_t factor) const;
  // Truncating division; InvalidArgument when `divisor` is 0. The remainder goes to *remainder
  // when it is not null.
  Result<BigUint> DivideBy(uint64_t divisor, uint64_t* remainder = nullptr) const;

  // <0, 0, >0 as *this is less than, equal to or greater than `other`.
  int Compare(const BigUint& other) const;
  friend bool operator==(const BigUint& a, const BigUint& b) { return a.limbs_ == b.limbs_; }
  friend std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) {
    return a.Compare(b) <=> 0;
  }

 private:
  void Normalize();
  // Divides in place, returns the remainder. `divisor` must not be 0.
  uint64_t DivModInPlace(uint64_t divisor);

  std::vector<uint32_t> limbs_;  // little-endian base 2^32, no high zero limbs
};

}  // namespace presplit
