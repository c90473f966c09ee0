#include "daemon/watch/split_planner.h"

#include <gtest/gtest.h>

namespace presplit::daemon::watch {
namespace {

RegionLoad Region(const std::string& name, double rate, bool hot) {
  RegionLoad region;
  region.region = name;
  region.start_key = name;
  region.has_rate = true;
  region.write_per_s = rate;
  region.hot = hot;
  return region;
}

// A table of `regions` regions in which the named ones are hot.
TableLoad Table(int regions, const std::vector<std::string>& hot,
                const std::string& table = "default:t") {
  TableLoad load;
  load.table = table;
  for (int i = 0; i < regions; ++i) {
    const std::string name = "r" + std::to_string(i);
    const bool is_hot = std::find(hot.begin(), hot.end(), name) != hot.end();
    load.regions.push_back(Region(name, is_hot ? 9000 : 1000, is_hot));
  }
  load.region_count = regions;
  load.mean_requests_per_s = 2000;
  return load;
}

// The one decision of a plan; an empty SplitDecision (and a test failure) otherwise.
SplitDecision Only(const std::vector<SplitDecision>& decisions) {
  EXPECT_EQ(decisions.size(), 1u);
  return decisions.size() == 1 ? decisions[0] : SplitDecision{};
}

LoadSplitSettings Live(int max_regions = 100) {
  LoadSplitSettings settings;
  settings.enabled = true;
  settings.dry_run = false;
  settings.max_regions = max_regions;
  settings.region_cooldown_ms = 600'000;
  settings.unsplittable_ms = 3'600'000;
  settings.split_grace_ms = 120'000;
  return settings;
}

TEST(SplitPlanner, NothingWhenLoadSplitIsOff) {
  SplitPlanner planner({4, 600'000});
  LoadSplitSettings off = Live();
  off.enabled = false;
  EXPECT_TRUE(planner.Plan(Table(8, {"r3"}), off, 1000).empty());
}

TEST(SplitPlanner, AHotRegionIsSplitWithItsNumbers) {
  SplitPlanner planner({4, 600'000});
  const auto decisions = planner.Plan(Table(8, {"r3"}), Live(), 1000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].action, SplitDecision::Action::kSplit);
  EXPECT_EQ(decisions[0].region, "r3");
  EXPECT_EQ(decisions[0].table, "default:t");
  EXPECT_DOUBLE_EQ(decisions[0].requests_per_s, 9000);
  EXPECT_DOUBLE_EQ(decisions[0].table_mean_per_s, 2000);
  EXPECT_EQ(decisions[0].time_ms, 1000);
  EXPECT_EQ(decisions[0].reason, "");
}

TEST(SplitPlanner, DryRunDecidesButNeverSplitsAndReportsOnlyChanges) {
  SplitPlanner planner({4, 600'000});
  LoadSplitSettings dry = Live();
  dry.dry_run = true;
  auto decisions = planner.Plan(Table(8, {"r3"}), dry, 1000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].action, SplitDecision::Action::kSkip);
  EXPECT_EQ(decisions[0].reason, "dry_run");
  // The same again is not reported every poll, only once the cool-down has passed.
  EXPECT_TRUE(planner.Plan(Table(8, {"r3"}), dry, 5000).empty());
  EXPECT_EQ(planner.Plan(Table(8, {"r3"}), dry, 1000 + 600'000).size(), 1u);
}

TEST(SplitPlanner, TheRegionBudgetStopsSplits) {
  SplitPlanner planner({10, 600'000});
  // 8 regions, a budget of 9: the first hot region may split, the second may not.
  const auto decisions = planner.Plan(Table(8, {"r1", "r5"}), Live(9), 1000);
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].action, SplitDecision::Action::kSplit);
  EXPECT_EQ(decisions[1].action, SplitDecision::Action::kSkip);
  EXPECT_EQ(decisions[1].reason, "region_budget");
  EXPECT_EQ(decisions[1].max_regions, 9) << "the skip names the budget it met";
  EXPECT_EQ(decisions[0].max_regions, 0);
}

TEST(SplitPlanner, TheClusterRateLimitsSplitsAcrossTables) {
  SplitPlanner planner({2, 600'000});
  auto a = planner.Plan(Table(8, {"r1", "r2"}, "default:a"), Live(), 1000);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].action, SplitDecision::Action::kSplit);
  EXPECT_EQ(a[1].action, SplitDecision::Action::kSplit);
  // Another table (its regions named apart from the first's) with a hot region.
  TableLoad other = Table(8, {"r4"}, "default:b");
  for (auto& region : other.regions) region.region = "b-" + region.region;
  auto b = planner.Plan(other, Live(), 2000);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].reason, "cluster_rate");
  // Once the window has passed, splits are allowed again.
  b = planner.Plan(other, Live(), 1000 + 600'000);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].action, SplitDecision::Action::kSplit);
}

TEST(SplitPlanner, ARegionThatDidNotSplitIsLeftAloneForAWhile) {
  SplitPlanner planner({10, 600'000});
  const LoadSplitSettings settings = Live();
  ASSERT_EQ(Only(planner.Plan(Table(8, {"r3"}), settings, 0)).action,
            SplitDecision::Action::kSplit);
  // Within the grace period the region is cooling down.
  auto decisions = planner.Plan(Table(8, {"r3"}), settings, 60'000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].reason, "cooldown");
  // Still there, under the same name, after the grace period: the RegionServer found no point.
  decisions = planner.Plan(Table(8, {"r3"}), settings, 130'000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].reason, "unsplittable");
  // Past the cool-down, reported again, and still unsplittable until its hour is over.
  EXPECT_TRUE(planner.Plan(Table(8, {"r3"}), settings, 700'000).empty());
  EXPECT_EQ(Only(planner.Plan(Table(8, {"r3"}), settings, 730'000)).reason, "unsplittable");
  const auto later = planner.Plan(Table(8, {"r3"}), settings, 130'000 + 3'600'000);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].action, SplitDecision::Action::kSplit);
}

TEST(SplitPlanner, ARefusedSplitMarksTheRegionUnsplittable) {
  SplitPlanner planner({10, 600'000});
  const LoadSplitSettings settings = Live();
  planner.SplitFailed("default:t", "r3", 0, settings);
  const auto decisions = planner.Plan(Table(8, {"r3"}), settings, 1000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].reason, "unsplittable");
}

TEST(SplitPlanner, ADeferredSplitIsAskedAgainAfterThePauseWithoutACoolDown) {
  SplitPlanner planner({1, 600'000});  // one split in ten minutes over the cluster
  const LoadSplitSettings settings = Live();
  ASSERT_EQ(Only(planner.Plan(Table(8, {"r3"}), settings, 0)).action,
            SplitDecision::Action::kSplit);
  planner.SplitDeferred("default:t", "r3", 0, settings);
  // Waiting out the pause: the deferral was reported once (by the caller), not every poll.
  EXPECT_TRUE(planner.Plan(Table(8, {"r3"}), settings, 10'000).empty());
  // After the pause: asked again. The deferred request counts against neither the region's
  // cool-down, nor the table's, nor the cluster's rate of one split.
  EXPECT_EQ(Only(planner.Plan(Table(8, {"r3"}), settings, 30'000)).action,
            SplitDecision::Action::kSplit);
}

TEST(SplitPlanner, AfterASplitTheTableWaitsBeforeSplittingAgain) {
  SplitPlanner planner({10, 600'000});
  const LoadSplitSettings settings = Live();
  ASSERT_EQ(Only(planner.Plan(Table(8, {"r3"}), settings, 0)).action,
            SplitDecision::Action::kSplit);
  // r3 split into r3a/r3b; one half is still hot at once: the table's cool-down applies.
  TableLoad after = Table(8, {});
  after.regions[3] = Region("r3a", 9000, true);
  auto decisions = planner.Plan(after, settings, 30'000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].reason, "cooldown");
  decisions = planner.Plan(after, settings, 30'000 + 150'000);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].action, SplitDecision::Action::kSplit);
}

}  // namespace
}  // namespace presplit::daemon::watch
