#include "presplit/load_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "presplit/bytes.h"

namespace presplit {
namespace {

TEST(ChooseLoadSplitKey, PicksTheLowestScore) {
  std::vector<LoadCandidate> c = {
      {"a", 100, 60, 0},  // imbalance 0.25: not below the limit
      {"b", 55, 45, 10},  // 0.1 + 0.0909
      {"c", 50, 50, 30},  // 0 + 0.2308
      {"d", 52, 48, 0},   // 0.04 + 0: the best
  };
  auto r = ChooseLoadSplitKey(c, LoadSplitParams());
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, "d");
  EXPECT_DOUBLE_EQ((*r)->imbalance, 0.04);
  EXPECT_DOUBLE_EQ((*r)->contained_fraction, 0.0);
  EXPECT_EQ((*r)->requests, 100u);
}

TEST(ChooseLoadSplitKey, Thresholds) {
  LoadSplitParams p;
  // min_requests counts left + right + contained.
  EXPECT_FALSE(ChooseLoadSplitKey({{"k", 50, 49, 0}}, p)->has_value());
  EXPECT_TRUE(ChooseLoadSplitKey({{"k", 50, 49, 1}}, p)->has_value());
  // Imbalance strictly below 0.25: 62.5/37.5 is out, 62/38 is in.
  EXPECT_FALSE(ChooseLoadSplitKey({{"k", 625, 375, 0}}, p)->has_value());
  EXPECT_TRUE(ChooseLoadSplitKey({{"k", 620, 380, 0}}, p)->has_value());
  // Contained strictly below 0.5.
  EXPECT_FALSE(ChooseLoadSplitKey({{"k", 50, 50, 100}}, p)->has_value());
  EXPECT_TRUE(ChooseLoadSplitKey({{"k", 50, 50, 99}}, p)->has_value());
  // No sides, or an empty key: never.
  EXPECT_FALSE(ChooseLoadSplitKey({{"k", 0, 0, 500}}, p)->has_value());
  EXPECT_FALSE(ChooseLoadSplitKey({{"", 500, 500, 0}}, p)->has_value());
  // A candidate at the region start has nothing on its left.
  EXPECT_FALSE(ChooseLoadSplitKey({{"start", 0, 1000, 0}}, p)->has_value());
  EXPECT_FALSE(ChooseLoadSplitKey({}, p)->has_value());
  // Looser limits.
  p.max_imbalance = 1.0;
  p.min_requests = 1;
  EXPECT_TRUE(ChooseLoadSplitKey({{"k", 9, 1, 0}}, p)->has_value());
}

TEST(ChooseLoadSplitKey, TiesGoToTheSmallestKey) {
  auto r = ChooseLoadSplitKey({{"\x90", 100, 100, 0}, {"\x10", 100, 100, 0}}, LoadSplitParams());
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->key, "\x10");
}

TEST(ChooseLoadSplitKey, BadParams) {
  LoadSplitParams p;
  p.max_imbalance = 0;
  EXPECT_FALSE(ChooseLoadSplitKey({}, p).ok());
  p.max_imbalance = 0.25;
  p.max_contained_fraction = 1.5;
  EXPECT_FALSE(ChooseLoadSplitKey({}, p).ok());
  p.max_contained_fraction = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(ChooseLoadSplitKey({}, p).ok());
}

TEST(ChooseLoadSplitKey, HugeCountersSaturate) {
  const uint64_t big = std::numeric_limits<uint64_t>::max() - 1;
  auto r = ChooseLoadSplitKey({{"k", big, big, big}}, LoadSplitParams());
  ASSERT_TRUE(r.ok());  // no overflow trap; the contained share is about 1/2: rejected or not,
  (void)r;              // it must not crash
}

TEST(LoadSampler, CountingRules) {
  // Capacity 1: the first request's start becomes the candidate; requests with an empty start
  // (the region's first row) are never offered to the reservoir, so it stays.
  LoadSampler s(1, 0);
  s.Record("m", "n");
  ASSERT_EQ(s.Candidates().size(), 1u);
  EXPECT_EQ(s.Candidates()[0].key, "m");
  s.Record("", "a");                       // end "a" <= "m": left
  s.Record("", "m");                       // end == candidate: left (the end is exclusive)
  s.Record("", std::string("m\0", 2), 3);  // ends just after m: contained, weight 3
  s.Record("", "");                        // the whole region: contained
  const LoadCandidate& c = s.Candidates()[0];
  EXPECT_EQ(c.key, "m");
  EXPECT_EQ(c.left, 2u);
  EXPECT_EQ(c.contained, 4u);
  EXPECT_EQ(c.right, 0u);
  EXPECT_EQ(s.TotalWeight(), 7u);
  // A row equal to the candidate is right of it. (The row is offered to the reservoir too, but
  // with a capacity of 1 against a total weight of 10^6 it stays out for this seed.)
  s.Record("", "", 1000000);
  s.RecordRow("m");
  EXPECT_EQ(s.Candidates()[0].right, 1u);
  EXPECT_EQ(s.Candidates()[0].contained, 1000004u);
  s.Record("", "z", 0);  // weight 0: ignored
  EXPECT_EQ(s.TotalWeight(), 1000008u);
  s.Reset();
  EXPECT_TRUE(s.Candidates().empty());
  EXPECT_EQ(s.TotalWeight(), 0u);
}

TEST(LoadSampler, RowRequestsAreLeftOrRightNeverContained) {
  LoadSampler s(3, 9);
  s.RecordRow("b");
  s.RecordRow("d");
  s.RecordRow("f");
  ASSERT_EQ(s.Candidates().size(), 3u);
  const std::vector<LoadCandidate> before = s.Candidates();
  s.RecordRow("e", 5);  // counted first, then maybe replaces a candidate
  for (size_t i = 0; i < 3; ++i) {
    const LoadCandidate& c = s.Candidates()[i];
    if (c.key != before[i].key) continue;  // replaced by the reservoir: fresh counters
    if (c.key == "b" || c.key == "d") {
      EXPECT_EQ(c.right, before[i].right + 5) << c.key;  // e >= b, e >= d
    } else {
      EXPECT_EQ(c.left, before[i].left + 5) << c.key;  // e < f
    }
    EXPECT_EQ(c.contained, 0u);
  }
}

TEST(LoadSampler, DeterministicForASeedAndBounded) {
  auto run = [](uint64_t seed) {
    LoadSampler s(8, seed);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 5000; ++i) s.RecordRow("r" + std::to_string(rng() % 100000));
    return s.Candidates();
  };
  auto a = run(17), b = run(17), c = run(18);
  ASSERT_EQ(a.size(), 8u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].left, b[i].left);
    EXPECT_EQ(a[i].right, b[i].right);
  }
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) differs |= a[i].key != c[i].key;
  EXPECT_TRUE(differs);
}

std::string Row(int i) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "row%06d", i);
  return buffer;
}

// One key range gets 90% of the requests: the load-chosen key splits the requests within
// 60/40, where the size mid key (the middle of uniformly spread data) would leave ~95% on one
// side.
TEST(LoadSampler, SkewedWorkloadBalancesRequests) {
  std::mt19937_64 rng(2024);
  auto next_row = [&rng]() {
    if (rng() % 10 < 9) return 100000 + static_cast<int>(rng() % 100000);  // hot range
    return static_cast<int>(rng() % 1000000);
  };
  LoadSampler sampler(LoadSampler::kDefaultCapacity, 7);
  for (int i = 0; i < 50000; ++i) {
    int row = next_row();
    if (i % 10 == 0) {
      // A short scan of 50 rows.
      sampler.Record(Row(row), Row(row + 50));
    } else {
      sampler.RecordRow(Row(row));
    }
  }
  auto choice = sampler.Choose(LoadSplitParams());
  ASSERT_TRUE(choice.ok()) << choice.status().ToString();
  ASSERT_TRUE(choice->has_value());
  const std::string key = (*choice)->key;
  EXPECT_LT((*choice)->imbalance, 0.25);

  // Fresh requests from the same workload.
  const std::string size_mid = Row(500000);
  int left = 0, mid_left = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    std::string row = Row(next_row());
    left += CompareBytes(row, key) < 0;
    mid_left += CompareBytes(row, size_mid) < 0;
  }
  const double share = static_cast<double>(left) / n;
  EXPECT_GE(share, 0.4) << ToStringBinary(key);
  EXPECT_LE(share, 0.6) << ToStringBinary(key);
  const double mid_share = static_cast<double>(mid_left) / n;
  EXPECT_GT(mid_share, 0.9);  // the size mid key would not balance the load
}

// A layout of groups "gNNN|" (delimiter '|'), unsalted.
KeyLayout GroupLayout() {
  KeyLayout spec;
  spec.group_delimiter = "|";
  return *MakeLayout(spec);
}

// Rows gAAA|000 .. for groups [first, last), `rows` rows each.
std::vector<std::string> Rows(int first, int last, int rows) {
  std::vector<std::string> keys;
  char key[32];
  for (int g = first; g < last; ++g) {
    for (int r = 0; r < rows; ++r) {
      std::snprintf(key, sizeof(key), "g%03d|%03d", g, r);
      keys.push_back(key);
    }
  }
  return keys;
}

TEST(ChooseKeySampleSplitPoint, HalvesTheKeysAtAGroupBoundary) {
  // 10 groups of 10 rows, shuffled: the point is the start of group 5, 50 keys each side.
  std::vector<std::string> keys = Rows(0, 10, 10);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(7));
  auto r = ChooseKeySampleSplitPoint(GroupLayout(), "", "", keys);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, "g005|");
  EXPECT_EQ((*r)->left, 50u);
  EXPECT_EQ((*r)->right, 50u);
  EXPECT_DOUBLE_EQ((*r)->imbalance, 0.0);
  EXPECT_TRUE(IsValidSplitPoint(GroupLayout(), (*r)->key));
}

TEST(ChooseKeySampleSplitPoint, NeverCutsAGroup) {
  // One big group in the middle: 10 rows of g000, 100 of g001, 10 of g002. The key median is
  // inside g001; the point must be a boundary of it, and the better one (g001| leaves 10 | 110,
  // g002| leaves 110 | 10: equal, so the smaller key).
  std::vector<std::string> keys = Rows(0, 1, 10);
  for (const auto& k : Rows(1, 2, 100)) keys.push_back(k);
  for (const auto& k : Rows(2, 3, 10)) keys.push_back(k);
  auto r = ChooseKeySampleSplitPoint(GroupLayout(), "", "", keys, 1.0);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, "g001|");
  EXPECT_EQ((*r)->left, 10u);
  EXPECT_EQ((*r)->right, 110u);
  // With the default limit (0.5) that split is too lopsided: no point.
  auto limited = ChooseKeySampleSplitPoint(GroupLayout(), "", "", keys);
  ASSERT_TRUE(limited.ok());
  EXPECT_FALSE(limited->has_value());
}

TEST(ChooseKeySampleSplitPoint, OneGroupOrTooFewKeysHasNoPoint) {
  auto one_group = ChooseKeySampleSplitPoint(GroupLayout(), "", "", Rows(3, 4, 50));
  ASSERT_TRUE(one_group.ok());
  EXPECT_FALSE(one_group->has_value());
  auto one_key = ChooseKeySampleSplitPoint(GroupLayout(), "", "", {"g001|000"});
  ASSERT_TRUE(one_key.ok());
  EXPECT_FALSE(one_key->has_value());
  auto none = ChooseKeySampleSplitPoint(GroupLayout(), "", "", {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(ChooseKeySampleSplitPoint, StaysInsideTheRegionAndIgnoresKeysOutsideIt) {
  // The region [g002|, g006|): keys of groups 0..9, only 2..5 count; the point is g004|.
  auto r = ChooseKeySampleSplitPoint(GroupLayout(), "g002|", "g006|", Rows(0, 10, 4));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, "g004|");
  EXPECT_EQ((*r)->left + (*r)->right, 16u);
  // The region's own start is never the point, even when its first group is most of the keys:
  // the point is right after that group (SnapSplitPoint's first key after it), 30 | 28.
  std::vector<std::string> keys = Rows(2, 3, 30);
  for (const auto& k : Rows(3, 4, 28)) keys.push_back(k);
  auto first = ChooseKeySampleSplitPoint(GroupLayout(), "g002|", "", keys);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->key, "g002}");
  EXPECT_EQ((*first)->left, 30u);
}

TEST(ChooseKeySampleSplitPoint, SaltedLayoutSplitsInsideABucket) {
  KeyLayout spec;
  spec.buckets = 4;
  spec.encoding = SaltEncoding::kByte;
  spec.group_delimiter = "|";
  auto layout = MakeLayout(spec);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  // Bucket 1's region [\x01, \x02): its groups' rows behind the salt byte.
  std::vector<std::string> keys;
  for (const auto& k : Rows(0, 6, 5)) keys.push_back(std::string(1, '\x01') + k);
  auto r = ChooseKeySampleSplitPoint(*layout, std::string(1, '\x01'), std::string(1, '\x02'), keys);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, std::string(1, '\x01') + "g003|");
  EXPECT_TRUE(IsValidSplitPoint(*layout, (*r)->key));
}

TEST(ChooseKeySampleSplitPoint, RefusesBadArguments) {
  EXPECT_FALSE(ChooseKeySampleSplitPoint(GroupLayout(), "b", "a", {"a"}).ok());
  EXPECT_FALSE(ChooseKeySampleSplitPoint(GroupLayout(), "", "", {"a"}, 0.0).ok());
}

TEST(ChooseGroupSafeLoadSplitPoint, JudgesEachBoundaryByTheCandidatesAroundIt) {
  // Groups 0..19 equally hot (5% each). Sampled keys inside group 8 (40.5% of requests left of
  // it), group 9 (49.5%) and group 10 (50.5%). The best raw key is inside group 9 and snapping it
  // gives g009| (45/55); the boundary g010| lies between 49.5% and 50.5% (estimate 50.25%),
  // g009| between 40.5% and 49.5% (47.25%): g010| is the one to take.
  std::vector<LoadCandidate> c = {
      {"g008|002", 405, 595, 0}, {"g009|009", 495, 505, 0}, {"g010|001", 505, 495, 0}};
  auto raw = ChooseLoadSplitKey(c, LoadSplitParams());
  ASSERT_TRUE(raw.ok() && raw->has_value());
  EXPECT_EQ((*raw)->key, "g009|009");  // what snapping the raw choice would have split at: g009|
  auto r = ChooseGroupSafeLoadSplitPoint(GroupLayout(), "", "", c, LoadSplitParams());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->key, "g010|");
  EXPECT_NEAR((*r)->imbalance, 0.005, 1e-9);  // |2 x (0.75 x 0.505 + 0.25 x 0.495) - 1|
  EXPECT_EQ((*r)->requests, 1000u);
  EXPECT_TRUE(IsValidSplitPoint(GroupLayout(), (*r)->key));
}

TEST(ChooseGroupSafeLoadSplitPoint, ACandidateAtTheBoundaryIsExactAndOneSidedEstimatesCount) {
  // A request exactly at g005| (a group's first possible key) knows that boundary's share.
  auto exact = ChooseGroupSafeLoadSplitPoint(
      GroupLayout(), "", "", {{"g004|7", 300, 700, 0}, {"g005|", 480, 520, 0}}, LoadSplitParams());
  ASSERT_TRUE(exact.ok() && exact->has_value());
  EXPECT_EQ((*exact)->key, "g005|");
  EXPECT_NEAR((*exact)->imbalance, 0.04, 1e-9);
  // One candidate: its own share is the estimate for its group's start (the older behaviour).
  auto one = ChooseGroupSafeLoadSplitPoint(GroupLayout(), "", "", {{"g003|1", 52, 48, 0}},
                                           LoadSplitParams());
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->key, "g003|");
  EXPECT_NEAR((*one)->imbalance, 0.04, 1e-9);
}

TEST(ChooseGroupSafeLoadSplitPoint, ThresholdsRegionAndBadInput) {
  LoadSplitParams p;
  // Every boundary too lopsided: none.
  auto lopsided = ChooseGroupSafeLoadSplitPoint(
      GroupLayout(), "", "", {{"g001|1", 100, 900, 0}, {"g002|1", 150, 850, 0}}, p);
  ASSERT_TRUE(lopsided.ok());
  EXPECT_FALSE(lopsided->has_value());
  // Requests spanning the point: too much contained.
  auto contained =
      ChooseGroupSafeLoadSplitPoint(GroupLayout(), "", "", {{"g001|1", 50, 50, 100}}, p);
  ASSERT_TRUE(contained.ok());
  EXPECT_FALSE(contained->has_value());
  // Too few requests, empty keys, keys outside the region: ignored.
  p.min_requests = 100;
  auto ignored = ChooseGroupSafeLoadSplitPoint(
      GroupLayout(), "g002|", "g006|",
      {{"g003|1", 40, 40, 0}, {"", 500, 500, 0}, {"g007|1", 500, 500, 0}}, p);
  ASSERT_TRUE(ignored.ok());
  EXPECT_FALSE(ignored->has_value());
  // A candidate in the region's first group never gives the region's start key.
  auto first = ChooseGroupSafeLoadSplitPoint(GroupLayout(), "g002|", "g006|",
                                             {{"g002|5", 500, 500, 0}}, LoadSplitParams());
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->key, "g002}");  // the first key after group g002 ('|' + 1)
  EXPECT_FALSE(ChooseGroupSafeLoadSplitPoint(GroupLayout(), "g005|", "g002|", {}, p).ok());
  p.max_imbalance = 0;
  EXPECT_FALSE(ChooseGroupSafeLoadSplitPoint(GroupLayout(), "", "", {}, p).ok());
}

TEST(ChooseGroupSafeLoadSplitPoint, TheSamplerOnTenHotGroupsSplitsCloserToTheMiddle) {
  // The load-split benchmark's workload in miniature: rows of groups 0..9 (10 rows each) read
  // uniformly at random through the reference sampler (20 candidates), 200 seeds. The busier
  // half of the chosen boundary against snapping the best raw key: closer to 50% on average and
  // within 55% far more often (measured 88% against 57% over 500 seeds).
  const int groups = 10;
  const std::vector<std::string> rows = Rows(0, groups, 10);
  double busier_group_safe = 0, busier_snapped = 0;
  int within_group_safe = 0, within_snapped = 0;
  const int seeds = 200;
  auto busier = [&](const std::string& point) {
    const double left = std::atoi(point.c_str() + 1) / static_cast<double>(groups);
    return std::max(left, 1 - left);
  };
  for (int seed = 0; seed < seeds; ++seed) {
    LoadSampler sampler(LoadSampler::kDefaultCapacity, static_cast<uint64_t>(seed));
    std::mt19937 pick(static_cast<unsigned>(seed));
    std::uniform_int_distribution<size_t> row(0, rows.size() - 1);
    for (int i = 0; i < 20'000; ++i) sampler.RecordRow(rows[row(pick)]);
    auto group_safe = ChooseGroupSafeLoadSplitPoint(GroupLayout(), "", "", sampler.Candidates(),
                                                    LoadSplitParams());
    ASSERT_TRUE(group_safe.ok() && group_safe->has_value()) << "seed " << seed;
    ASSERT_TRUE(IsValidSplitPoint(GroupLayout(), (*group_safe)->key));
    busier_group_safe += busier((*group_safe)->key);
    within_group_safe += busier((*group_safe)->key) <= 0.55 + 1e-9;
    auto raw = sampler.Choose(LoadSplitParams());
    ASSERT_TRUE(raw.ok() && raw->has_value()) << "seed " << seed;
    auto snapped = SnapSplitPoint(GroupLayout(), "", "", (*raw)->key);
    ASSERT_TRUE(snapped.ok() && snapped->has_value());
    busier_snapped += busier(**snapped);
    within_snapped += busier(**snapped) <= 0.55 + 1e-9;
  }
  std::printf(
      "busier half, mean over %d seeds: group-safe %.3f (within 55%%: %d), snapped raw "
      "key %.3f (%d)\n",
      seeds, busier_group_safe / seeds, within_group_safe, busier_snapped / seeds, within_snapped);
  EXPECT_LT(busier_group_safe, busier_snapped);
  EXPECT_GE(within_group_safe, seeds * 8 / 10);
  EXPECT_LT(within_snapped, seeds * 7 / 10);  // the older way, for the record
}

}  // namespace
}  // namespace presplit
