#include "presplit/planning.h"

#include <gtest/gtest.h>

#include <cmath>

#include "presplit/split_points.h"

namespace presplit {
namespace {

constexpr int64_t kMiB = 1LL << 20;
constexpr int64_t kTiB = 1LL << 40;

std::string Joined(const Advice& a) {
  std::string out;
  for (const std::string& line : a.explanation) out += line + "\n";
  return out;
}

// docs/reference-case.md, sizing: 11 GB at creation, 1-2 GB regions -> 6, rounded up to the
// 10-node cluster -> 10.
TEST(Advise, ReferenceCaseElevenGigabytesOnTenServers) {
  AdviseInput in;
  in.table_size = 11 * kGiB;
  in.region_servers = 10;
  auto a = Advise(in);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->by_creation_size, 6);
  EXPECT_EQ(a->by_grown_size, 2);
  EXPECT_EQ(a->regions, 10);
  const std::string why = Joined(*a);
  EXPECT_NE(why.find("ceil(11.0 GiB / 2.0 GiB) = 6"), std::string::npos) << why;
  EXPECT_NE(why.find("rounded up to a multiple of the 10 RegionServers"), std::string::npos) << why;
  in.region_servers = 0;
  EXPECT_EQ(Advise(in)->regions, 6);
}

// The reference table grows by 500,000 rows of ~220 bytes a day (~105 MiB): a year ahead it
// still fits 6 regions of at most 10 GiB.
TEST(Advise, ReferenceCaseWithAYearOfGrowth) {
  AdviseInput in;
  in.table_size = 11 * kGiB;
  in.daily_growth = 105 * kMiB;
  in.horizon_days = 365;
  in.region_servers = 10;
  auto a = Advise(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->projected_size, 11 * kGiB + 365 * 105 * kMiB);
  EXPECT_EQ(a->by_grown_size, 5);
  EXPECT_EQ(a->regions, 10);
  EXPECT_NE(Joined(*a).find("365 days"), std::string::npos);
}

TEST(Advise, HundredGigabytesGivesFifty) {
  AdviseInput in;
  in.table_size = 100 * kGiB;
  auto a = Advise(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->regions, 50);
  in.region_servers = 10;
  EXPECT_EQ(Advise(in)->regions, 50);
  in.region_servers = 12;
  EXPECT_EQ(Advise(in)->regions, 60);
}

TEST(Advise, LargeTablesTenGigabytesARegionUpTo120) {
  AdviseInput in;
  in.table_size = 1 * kTiB;
  EXPECT_EQ(Advise(in)->regions, 103);  // ceil(1024 / 10)
  in.region_servers = 10;
  EXPECT_EQ(Advise(in)->regions, 110);
  in.region_servers = 0;
  in.table_size = 10 * kTiB;
  auto a = Advise(in);
  EXPECT_EQ(a->regions, 120);
  EXPECT_NE(Joined(*a).find("capped at 120"), std::string::npos);
  in.region_servers = 50;  // 150 would pass the maximum
  a = Advise(in);
  EXPECT_EQ(a->regions, 120);
  EXPECT_NE(Joined(*a).find("not rounded up"), std::string::npos);
}

TEST(Advise, TinyAndInvalidInputs) {
  AdviseInput in;
  EXPECT_EQ(Advise(in)->regions, 1);  // an empty table
  in.region_servers = 3;
  EXPECT_EQ(Advise(in)->regions, 3);
  in.table_size = -1;
  EXPECT_FALSE(Advise(in).ok());
  in.table_size = 1;
  in.daily_growth = std::numeric_limits<int64_t>::max();
  in.horizon_days = 2;
  EXPECT_FALSE(Advise(in).ok());
  in.daily_growth = 0;
  in.max_regions = 0;
  EXPECT_FALSE(Advise(in).ok());
}

TEST(ParseByteSize, UnitsAreBinary) {
  EXPECT_EQ(*ParseByteSize("1024"), 1024);
  EXPECT_EQ(*ParseByteSize("11GB"), 11 * kGiB);
  EXPECT_EQ(*ParseByteSize("11g"), 11 * kGiB);
  EXPECT_EQ(*ParseByteSize("11GiB"), 11 * kGiB);
  EXPECT_EQ(*ParseByteSize("128MB"), 128 * kMiB);
  EXPECT_EQ(*ParseByteSize("1.5T"), 3 * (kTiB / 2));
  EXPECT_EQ(*ParseByteSize("10b"), 10);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("GB").ok());
  EXPECT_FALSE(ParseByteSize("-1G").ok());
  EXPECT_FALSE(ParseByteSize("1X").ok());
  EXPECT_FALSE(ParseByteSize("1GBB").ok());
  EXPECT_FALSE(ParseByteSize("1.2.3").ok());
  EXPECT_FALSE(ParseByteSize("9999999P").ok());
}

TEST(Simulate, StatisticsOnAKnownSample) {
  SimulateOptions o;
  o.value_size = 10;
  o.policy.kind = SizePolicyKind::kConstantSize;
  o.policy.max_file_size = 100;
  o.policy.jitter = 0;
  auto s = Simulate({"b", "d"}, {"a", "a1", "b", "c", "d", "e", "f"}, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->regions.size(), 3u);
  EXPECT_EQ(s->regions[0].keys, 2u);
  EXPECT_EQ(s->regions[0].bytes, 23u);
  EXPECT_EQ(s->regions[1].keys, 2u);
  EXPECT_EQ(s->regions[1].bytes, 22u);
  EXPECT_EQ(s->regions[2].keys, 3u);
  EXPECT_EQ(s->regions[2].bytes, 33u);
  EXPECT_EQ(s->regions[0].start_key, "");
  EXPECT_EQ(s->regions[0].end_key, "b");
  EXPECT_EQ(s->regions[2].start_key, "d");
  EXPECT_EQ(s->regions[2].end_key, "");
  EXPECT_EQ(s->total_keys, 7u);
  EXPECT_EQ(s->total_bytes, 78u);
  EXPECT_DOUBLE_EQ(s->mean_bytes, 26.0);
  EXPECT_EQ(s->max_bytes, 33u);
  EXPECT_DOUBLE_EQ(s->max_over_mean, 33.0 / 26.0);
  EXPECT_NEAR(s->cv_bytes, std::sqrt(74.0 / 3.0) / 26.0, 1e-12);
  EXPECT_NEAR(s->cv_keys, std::sqrt(2.0 / 9.0) / (7.0 / 3.0), 1e-12);
  EXPECT_EQ(s->empty_regions, 0u);
  EXPECT_EQ(s->table_regions_on_server, 3);
  EXPECT_EQ(s->split_threshold, 100);
  ASSERT_EQ(s->split_order.size(), 3u);
  EXPECT_EQ(s->split_order[0].region, 2u);
  EXPECT_EQ(s->split_order[1].region, 0u);
  EXPECT_EQ(s->split_order[2].region, 1u);
  EXPECT_DOUBLE_EQ(s->split_order[0].growth_factor, 100.0 / 33.0);
}

TEST(Simulate, RegionCountPerServerDrivesTheThreshold) {
  SimulateOptions o;
  o.policy.jitter = 0;  // stepping: 256 MiB with one region per server, else 10 GiB
  o.region_servers = 3;
  auto s = Simulate({"m"}, {"a", "z"}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->table_regions_on_server, 1);
  EXPECT_EQ(s->split_threshold, 256 * kMiB);
  o.region_servers = 1;
  s = Simulate({"m"}, {"a", "z"}, o);
  EXPECT_EQ(s->table_regions_on_server, 2);
  EXPECT_EQ(s->split_threshold, 10 * kGiB);
}

TEST(Simulate, EmptyRegionsAndEmptySample) {
  auto s = Simulate({"b", "c"}, {"a", "", "z"}, SimulateOptions());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->regions[0].keys, 2u);  // the empty key sorts first
  EXPECT_EQ(s->empty_regions, 1u);
  EXPECT_EQ(s->split_order.size(), 2u);  // the empty region never splits
  auto none = Simulate({"b"}, {}, SimulateOptions());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->max_over_mean, 0.0);
  EXPECT_EQ(none->cv_bytes, 0.0);
  EXPECT_FALSE(Simulate({"b", "a"}, {}, SimulateOptions()).ok());
  SimulateOptions bad;
  bad.value_size = -1;
  EXPECT_FALSE(Simulate({}, {}, bad).ok());
}

// A sampled plan simulated on its own sample is balanced.
TEST(Simulate, SampledPlanIsEven) {
  std::vector<std::string> sample;
  for (int i = 0; i < 10000; ++i) sample.push_back("key" + std::to_string(i * 7919 % 10007));
  auto plan = SampledSplit(sample, 8);
  ASSERT_TRUE(plan.ok());
  auto s = Simulate(plan->keys, sample, SimulateOptions());
  ASSERT_TRUE(s.ok());
  EXPECT_LT(s->cv_keys, 0.01);
  EXPECT_EQ(s->regions.size(), 8u);
}

}  // namespace
}  // namespace presplit
