#include "presplit/split_policy.h"

#include <gtest/gtest.h>

#include <limits>

namespace presplit {
namespace {

constexpr int64_t kPolicyMiB = 1LL << 20;
constexpr int64_t kGiB = 1LL << 30;

SizePolicyParams NoJitter(SizePolicyKind kind) {
  SizePolicyParams p;
  p.kind = kind;
  p.jitter = 0;
  return p;
}

TEST(SizePolicy, ParsesNamesAndHBaseClasses) {
  EXPECT_EQ(*ParseSizePolicy("stepping"), SizePolicyKind::kStepping);
  EXPECT_EQ(*ParseSizePolicy("Constant-Size"), SizePolicyKind::kConstantSize);
  EXPECT_EQ(*ParseSizePolicy("increasing-to-upper-bound"), SizePolicyKind::kIncreasingToUpperBound);
  EXPECT_EQ(*ParseSizePolicy("org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy"),
            SizePolicyKind::kStepping);
  EXPECT_EQ(*ParseSizePolicy("IncreasingToUpperBoundRegionSplitPolicy"),
            SizePolicyKind::kIncreasingToUpperBound);
  auto bad = ParseSizePolicy("busy");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("expected one of constant-size"), std::string::npos);
  EXPECT_EQ(SizePolicyName(SizePolicyKind::kIncreasingToUpperBound), "increasing-to-upper-bound");
}

TEST(SizePolicy, DefaultsAreHBases) {
  SizePolicyParams p;
  EXPECT_EQ(p.kind, SizePolicyKind::kStepping);
  EXPECT_EQ(p.max_file_size, 10737418240LL);
  EXPECT_EQ(p.flush_size, 134217728LL);
  EXPECT_EQ(InitialSplitSize(p), 268435456LL);
  p.initial_size = 512 * kPolicyMiB;
  EXPECT_EQ(InitialSplitSize(p), 536870912LL);
  p.initial_size = 0;
  p.flush_size = 256 * kPolicyMiB;
  EXPECT_EQ(InitialSplitSize(p), 536870912LL);
  p.flush_size = -1;  // unset: HBase's default
  EXPECT_EQ(InitialSplitSize(p), 268435456LL);
  p.max_file_size = 0;
  p.jitter = 0;
  EXPECT_EQ(DesiredMaxFileSize(p), 10737418240LL);
}

// min(max, 2 * 128 MiB * r^3) for 1 <= r <= 100, max for r == 0 and r > 100.
TEST(SizePolicy, IncreasingToUpperBoundGoldenNumbers) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kIncreasingToUpperBound);
  EXPECT_EQ(SplitSizeThreshold(p, 0), 10737418240LL);
  EXPECT_EQ(SplitSizeThreshold(p, 1), 268435456LL);
  EXPECT_EQ(SplitSizeThreshold(p, 2), 2147483648LL);
  EXPECT_EQ(SplitSizeThreshold(p, 3), 7247757312LL);
  EXPECT_EQ(SplitSizeThreshold(p, 4), 10737418240LL);  // 16 GiB capped
  EXPECT_EQ(SplitSizeThreshold(p, 100), 10737418240LL);
  EXPECT_EQ(SplitSizeThreshold(p, 101), 10737418240LL);
  EXPECT_EQ(SplitSizeThreshold(p, -3), 10737418240LL);  // taken as 0
  p.max_file_size = 100 * kGiB;
  EXPECT_EQ(SplitSizeThreshold(p, 5), 125 * 256 * kPolicyMiB);
  EXPECT_EQ(SplitSizeThreshold(p, 7), 343 * 256 * kPolicyMiB);
  EXPECT_EQ(SplitSizeThreshold(p, 8), 100 * kGiB);
  p.initial_size = 1 * kGiB;
  EXPECT_EQ(SplitSizeThreshold(p, 2), 8 * kGiB);
}

TEST(SizePolicy, IncreasingToUpperBoundWrapsLikeJavaLong) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kIncreasingToUpperBound);
  p.max_file_size = std::numeric_limits<int64_t>::max();
  p.initial_size = 1LL << 50;
  // 2^50 * 100^3 = 15625 * 2^56, which Java's long keeps as (15625 mod 256) * 2^56 = 9 * 2^56.
  EXPECT_EQ(SplitSizeThreshold(p, 100), 648518346341351424LL);
}

TEST(SizePolicy, SteppingGoldenNumbers) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kStepping);
  EXPECT_EQ(SplitSizeThreshold(p, 0), 10737418240LL);
  EXPECT_EQ(SplitSizeThreshold(p, 1), 268435456LL);
  EXPECT_EQ(SplitSizeThreshold(p, 2), 10737418240LL);
  EXPECT_EQ(SplitSizeThreshold(p, 101), 10737418240LL);
  p.initial_size = 3 * kGiB;
  EXPECT_EQ(SplitSizeThreshold(p, 1), 3 * kGiB);
}

TEST(SizePolicy, ConstantSizeIgnoresTheRegionCount) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kConstantSize);
  for (int r : {0, 1, 2, 50, 101}) EXPECT_EQ(SplitSizeThreshold(p, r), 10737418240LL) << r;
  p.max_file_size = 5 * kGiB;
  EXPECT_EQ(SplitSizeThreshold(p, 1), 5 * kGiB);
}

// SplitMix64's first outputs, taken to 24 bits as Random.nextFloat would give them.
TEST(SizePolicy, JitterIsDeterministicFromTheSeed) {
  EXPECT_DOUBLE_EQ(JitterRandom(0), 14819496.0 / 16777216.0);  // 0xE220A8 / 2^24
  SizePolicyParams p = SizePolicyParams();
  p.kind = SizePolicyKind::kConstantSize;
  p.jitter_seed = 0;
  EXPECT_EQ(DesiredMaxFileSize(p), 11766360320LL);
  p.jitter_seed = 1;
  EXPECT_EQ(DesiredMaxFileSize(p), 10916092960LL);
  p.jitter_seed = 42;
  EXPECT_EQ(DesiredMaxFileSize(p), 11385864000LL);
  EXPECT_EQ(SplitSizeThreshold(p, 1), 11385864000LL);
  EXPECT_EQ(SplitSizeThreshold(p, 1), SplitSizeThreshold(p, 1));
  // The jittered max is what IncreasingToUpperBound and Stepping cap at too.
  p.kind = SizePolicyKind::kStepping;
  EXPECT_EQ(SplitSizeThreshold(p, 2), 11385864000LL);
  EXPECT_EQ(SplitSizeThreshold(p, 1), 268435456LL);  // initial size: no jitter
}

TEST(SizePolicy, JitterStaysWithinHalfTheRate) {
  SizePolicyParams p;
  p.kind = SizePolicyKind::kConstantSize;
  bool below = false, above = false;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    p.jitter_seed = seed;
    const double r = JitterRandom(seed);
    ASSERT_GE(r, 0.0);
    ASSERT_LT(r, 1.0);
    const int64_t t = DesiredMaxFileSize(p);
    ASSERT_GE(t, 10737418240LL - 10737418240LL / 8);
    ASSERT_LE(t, 10737418240LL + 10737418240LL / 8);
    below |= t < 10737418240LL;
    above |= t > 10737418240LL;
  }
  EXPECT_TRUE(below);
  EXPECT_TRUE(above);
}

TEST(SizePolicy, PositiveJitterSaturatesAtLongMax) {
  SizePolicyParams p = SizePolicyParams();
  p.kind = SizePolicyKind::kConstantSize;
  p.max_file_size = std::numeric_limits<int64_t>::max() - 10;
  p.jitter_seed = 0;  // rand 0.88: a positive rate
  EXPECT_EQ(DesiredMaxFileSize(p), std::numeric_limits<int64_t>::max());
}

TEST(SizePolicy, ShouldSplitPerStoreOrOverall) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kConstantSize);
  p.max_file_size = 100;
  const int64_t small[] = {60, 50};
  const int64_t big[] = {10, 101};
  const int64_t exact[] = {100};
  EXPECT_FALSE(ShouldSplitBySize(p, 1, small, 2));
  EXPECT_TRUE(ShouldSplitBySize(p, 1, big, 2));
  EXPECT_FALSE(ShouldSplitBySize(p, 1, exact, 1));  // strictly greater
  EXPECT_FALSE(ShouldSplitBySize(p, 1, nullptr, 0));
  p.overall_files = true;
  EXPECT_TRUE(ShouldSplitBySize(p, 1, small, 2));  // 110 > 100
  EXPECT_FALSE(ShouldSplitBySize(p, 1, exact, 1));
}

TEST(SizePolicy, ShouldSplitUsesTheRegionCount) {
  SizePolicyParams p = NoJitter(SizePolicyKind::kStepping);
  const int64_t store[] = {300 * kPolicyMiB};
  EXPECT_TRUE(ShouldSplitBySize(p, 1, store, 1));   // > 256 MiB
  EXPECT_FALSE(ShouldSplitBySize(p, 2, store, 1));  // < 10 GiB
  p.kind = SizePolicyKind::kIncreasingToUpperBound;
  EXPECT_TRUE(ShouldSplitBySize(p, 1, store, 1));
  EXPECT_FALSE(ShouldSplitBySize(p, 2, store, 1));  // < 2 GiB
}

}  // namespace
}  // namespace presplit
