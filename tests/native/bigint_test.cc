#include "presplit/bigint.h"

#include <gtest/gtest.h>

namespace presplit {
namespace {

TEST(BigUint, RadixStringsRoundTrip) {
  for (const char* s : {"0", "1", "ff", "100000000", "ffffffffffffffff", "10000000000000000",
                        "123456789abcdef0123456789abcdef0123"}) {
    Result<BigUint> v = BigUint::FromString(s, 16);
    ASSERT_TRUE(v.ok()) << s;
    EXPECT_EQ(v->ToString(16), s);
  }
  Result<BigUint> d = BigUint::FromString("340282366920938463463374607431768211455", 10);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ToString(16), "ffffffffffffffffffffffffffffffff");
  EXPECT_EQ(d->ToString(10), "340282366920938463463374607431768211455");
  EXPECT_EQ(BigUint::FromString("00012", 10)->ToString(10), "12");
  EXPECT_EQ(BigUint::FromString("FfA", 16)->ToString(16), "ffa");
  EXPECT_EQ(BigUint(1000000000ull).ToString(10), "1000000000");
  EXPECT_EQ(BigUint().ToString(10), "0");
}

TEST(BigUint, RejectsBadDigits) {
  EXPECT_FALSE(BigUint::FromString("", 10).ok());
  EXPECT_FALSE(BigUint::FromString("-1", 10).ok());
  EXPECT_FALSE(BigUint::FromString("+1", 16).ok());
  Result<BigUint> r = BigUint::FromString("12a", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'a' at offset 2"), std::string::npos)
      << r.status().message();
}

TEST(BigUint, Bytes) {
  BigUint v = BigUint::FromBytes(std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x02", 9));
  EXPECT_EQ(v.ToString(16), "10000000000000002");
  EXPECT_EQ(*v.ToBytes(10), std::string("\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02", 10));
  EXPECT_FALSE(v.ToBytes(8).ok());
  EXPECT_EQ(*BigUint().ToBytes(2), std::string(2, '\0'));
  EXPECT_EQ(v.BitLength(), 65u);
}

TEST(BigUint, Arithmetic) {
  BigUint max64(0xFFFFFFFFFFFFFFFFull);
  BigUint sum = max64.Add(BigUint(1));
  EXPECT_EQ(sum.ToString(16), "10000000000000000");
  EXPECT_EQ(sum.Subtract(BigUint(1))->ToString(16), "ffffffffffffffff");
  EXPECT_FALSE(BigUint(1).Subtract(BigUint(2)).ok());
  BigUint big = max64.MultiplyBy(0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(big.ToString(16), "fffffffffffffffe0000000000000001");
  uint64_t rem = 0;
  Result<BigUint> q = big.DivideBy(0xFFFFFFFFFFFFFFFFull, &rem);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, max64);
  EXPECT_EQ(rem, 0u);
  q = BigUint(100).DivideBy(7, &rem);
  EXPECT_EQ(q->ToString(10), "14");
  EXPECT_EQ(rem, 2u);
  EXPECT_FALSE(BigUint(1).DivideBy(0).ok());
  EXPECT_LT(BigUint(5).Compare(sum), 0);
  EXPECT_GT(sum.Compare(max64), 0);
  EXPECT_TRUE(BigUint(7) == BigUint::FromString("7", 10).value());
  EXPECT_TRUE(BigUint(7) < BigUint(8));
}

}  // namespace
}  // namespace presplit
