#include "presplit/bigint.h"

#include <algorithm>

#include "presplit/bytes.h"

namespace presplit {
namespace {

// __int128 keeps the 64-bit multiplier and divisor simple: one limb times a 64-bit number fits
// in 96 bits.
using u128 = unsigned __int128;

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

}  // namespace

BigUint::BigUint(uint64_t value) {
  while (value != 0) {
    limbs_.push_back(static_cast<uint32_t>(value));
    value >>= 32;
  }
}

void BigUint::Normalize() {
  while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

Result<BigUint> BigUint::FromString(std::string_view digits, int radix) {
  if (radix < 2 || radix > 36) {
    return Status::InvalidArgument("unsupported radix " + std::to_string(radix));
  }
  if (digits.empty()) return Status::InvalidArgument("empty number");
  BigUint value;
  for (size_t i = 0; i < digits.size(); ++i) {
    int d = DigitValue(digits[i]);
    if (d >= radix) {
      std::string kind = radix == 16   ? "hex"
                         : radix == 10 ? "decimal"
                                       : "radix-" + std::to_string(radix);
      return Status::InvalidArgument("invalid " + kind + " digit '" +
                                     ToStringBinary(digits.substr(i, 1)) + "' at offset " +
                                     std::to_string(i));
    }
    value = value.MultiplyBy(static_cast<uint64_t>(radix)).Add(BigUint(static_cast<uint64_t>(d)));
  }
  return value;
}

std::string BigUint::ToString(int radix) const {
  if (radix < 2 || radix > 36) radix = 10;
  if (IsZero()) return "0";
  // Peel off chunks of as many digits as fit in 32 bits, then print each chunk.
  uint64_t chunk = 1;
  int chunk_digits = 0;
  while (chunk * static_cast<uint64_t>(radix) <= 0xFFFFFFFFull) {
    chunk *= static_cast<uint64_t>(radix);
    ++chunk_digits;
  }
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string reversed;
  BigUint rest = *this;
  while (!rest.IsZero()) {
    uint64_t part = rest.DivModInPlace(chunk);
    for (int i = 0; i < chunk_digits; ++i) {
      if (rest.IsZero() && part == 0) break;
      reversed.push_back(kDigits[part % static_cast<uint64_t>(radix)]);
      part /= static_cast<uint64_t>(radix);
    }
  }
  return std::string(reversed.rbegin(), reversed.rend());
}

BigUint BigUint::FromBytes(std::string_view big_endian) {
  BigUint value;
  value.limbs_.assign((big_endian.size() + 3) / 4, 0);
  for (size_t i = 0; i < big_endian.size(); ++i) {
    size_t bit = 8 * (big_endian.size() - 1 - i);
    value.limbs_[bit / 32] |= static_cast<uint32_t>(static_cast<unsigned char>(big_endian[i]))
                              << (bit % 32);
  }
  value.Normalize();
  return value;
}

Result<std::string> BigUint::ToBytes(size_t width) const {
  size_t needed = (BitLength() + 7) / 8;
  if (needed > width) {
    return Status::InvalidArgument("value needs " + std::to_string(needed) + " bytes, more than " +
                                   std::to_string(width));
  }
  std::string out(width, '\0');
  for (size_t i = 0; i < needed; ++i) {
    size_t bit = 8 * i;
    out[width - 1 - i] = static_cast<char>((limbs_[bit / 32] >> (bit % 32)) & 0xFF);
  }
  return out;
}

size_t BigUint::BitLength() const {
  if (limbs_.empty()) return 0;
  uint32_t top = limbs_.back();
  size_t bits = 0;
  while (top != 0) {
    ++bits;
    top >>= 1;
  }
  return 32 * (limbs_.size() - 1) + bits;
}

BigUint BigUint::Add(const BigUint& other) const {
  BigUint sum;
  size_t n = std::max(limbs_.size(), other.limbs_.size());
  sum.limbs_.resize(n + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = i < limbs_.size() ? limbs_[i] : 0;
    uint64_t b = i < other.limbs_.size() ? other.limbs_[i] : 0;
    uint64_t s = a + b + carry;
    sum.limbs_[i] = static_cast<uint32_t>(s);
    carry = s >> 32;
  }
  sum.limbs_[n] = static_cast<uint32_t>(carry);
  sum.Normalize();
  return sum;
}

Result<BigUint> BigUint::Subtract(const BigUint& other) const {
  if (Compare(other) < 0) return Status::InvalidArgument("subtraction would be negative");
  BigUint diff = *this;
  int64_t borrow = 0;
  for (size_t i = 0; i < diff.limbs_.size(); ++i) {
    int64_t d = static_cast<int64_t>(diff.limbs_[i]) - borrow -
                static_cast<int64_t>(i < other.limbs_.size() ? other.limbs_[i] : 0);
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += int64_t{1} << 32;
    diff.limbs_[i] = static_cast<uint32_t>(d);
  }
  diff.Normalize();
  return diff;
}

BigUint BigUint::MultiplyBy(uint64_t factor) const {
  BigUint product;
  if (factor == 0 || IsZero()) return product;
  product.limbs_.resize(limbs_.size() + 2, 0);
  u128 carry = 0;
  for (size_t i = 0; i < limbs_.size(); ++i) {
    u128 p = static_cast<u128>(limbs_[i]) * factor + carry;
    product.limbs_[i] = static_cast<uint32_t>(p);
    carry = p >> 32;
  }
  product.limbs_[limbs_.size()] = static_cast<uint32_t>(carry);
  product.limbs_[limbs_.size() + 1] = static_cast<uint32_t>(carry >> 32);
  product.Normalize();
  return product;
}

uint64_t BigUint::DivModInPlace(uint64_t divisor) {
  u128 rem = 0;
  for (size_t i = limbs_.size(); i-- > 0;) {
    u128 cur = (rem << 32) | limbs_[i];
    limbs_[i] = static_cast<uint32_t>(cur / divisor);
    rem = cur % divisor;
  }
  Normalize();
  return static_cast<uint64_t>(rem);
}

Result<BigUint> BigUint::DivideBy(uint64_t divisor, uint64_t* remainder) const {
  if (divisor == 0) return Status::InvalidArgument("division by zero");
  BigUint quotient = *this;
  uint64_t rem = quotient.DivModInPlace(divisor);
  if (remainder != nullptr) *remainder = rem;
  return quotient;
}

int BigUint::Compare(const BigUint& other) const {
  if (limbs_.size() != other.limbs_.size()) return limbs_.size() < other.limbs_.size() ? -1 : 1;
  for (size_t i = limbs_.size(); i-- > 0;) {
    if (limbs_[i] != other.limbs_[i]) return limbs_[i] < other.limbs_[i] ? -1 : 1;
  }
  return 0;
}

}  // namespace presplit
