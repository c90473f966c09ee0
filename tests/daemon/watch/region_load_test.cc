#include "daemon/watch/region_load.h"

#include <gtest/gtest.h>

namespace presplit::daemon::watch {
namespace {

RegionLoadReport Report(const std::string& region, const std::string& start, int64_t time_ms,
                        int64_t reads, int64_t writes, const std::string& server = "rs1,16020,1",
                        const std::string& table = "default:t") {
  RegionLoadReport r;
  r.table = table;
  r.region = region;
  r.start_key = start;
  r.server = server;
  r.report_time_ms = time_ms;
  r.read_requests = reads;
  r.write_requests = writes;
  r.store_file_bytes = 100;
  r.memstore_bytes = 10;
  return r;
}

HotRegionRule Rule(double min_rate, double multiple, int64_t sustain_ms) {
  HotRegionRule rule;
  rule.min_requests_per_s = min_rate;
  rule.mean_multiple = multiple;
  rule.sustain_ms = sustain_ms;
  return rule;
}

TEST(RegionLoadTracker, RatesComeFromTheReportsOwnTimestamps) {
  RegionLoadTracker tracker;
  tracker.Update({Report("a", "", 10'000, 0, 0)});
  // 3 s between the reports, whatever the time between the polls.
  tracker.Update({Report("a", "", 13'000, 300, 600)});
  const TableLoad load = tracker.Score("default:t", HotRegionRule{});
  ASSERT_EQ(load.regions.size(), 1u);
  EXPECT_TRUE(load.regions[0].has_rate);
  EXPECT_DOUBLE_EQ(load.regions[0].read_per_s, 100);
  EXPECT_DOUBLE_EQ(load.regions[0].write_per_s, 200);
  EXPECT_EQ(load.regions[0].size_bytes, 110);
}

TEST(RegionLoadTracker, AFirstReportHasNoRate) {
  RegionLoadTracker tracker;
  tracker.Update({Report("a", "", 10'000, 500, 500)});
  const TableLoad load = tracker.Score("default:t", HotRegionRule{});
  ASSERT_EQ(load.region_count, 1);
  EXPECT_FALSE(load.regions[0].has_rate);
  EXPECT_EQ(load.mean_requests_per_s, 0);
  EXPECT_EQ(load.request_skew, 0);
}

TEST(RegionLoadTracker, AReportThatDidNotAdvanceKeepsTheLastRate) {
  RegionLoadTracker tracker;
  tracker.Update({Report("a", "", 10'000, 0, 0)});
  tracker.Update({Report("a", "", 12'000, 200, 0)});
  tracker.Update({Report("a", "", 12'000, 200, 0)});  // same report seen by a second poll
  const TableLoad load = tracker.Score("default:t", HotRegionRule{});
  EXPECT_DOUBLE_EQ(load.regions[0].read_per_s, 100);
}

TEST(RegionLoadTracker, AMovedRegionStartsAgainInsteadOfANegativeRate) {
  RegionLoadTracker tracker;
  tracker.Update({Report("a", "", 10'000, 1000, 1000)});
  tracker.Update({Report("a", "", 12'000, 3000, 1000)});
  // Reopened on another server: its counters restart from zero.
  tracker.Update({Report("a", "", 14'000, 10, 0, "rs2,16020,1")});
  TableLoad load = tracker.Score("default:t", HotRegionRule{});
  EXPECT_FALSE(load.regions[0].has_rate);
  tracker.Update({Report("a", "", 16'000, 410, 0, "rs2,16020,1")});
  load = tracker.Score("default:t", HotRegionRule{});
  EXPECT_DOUBLE_EQ(load.regions[0].read_per_s, 200);
}

// A move seen through ClusterMetrics: the new server's counters start again, its clock is its
// own (here behind the old server's), and for one report the old server may still list the
// region with its last counters. No rate may come out negative or giant on the way, and none is
// computed across two servers, whichever counter is larger.
TEST(RegionLoadTracker, RatesStayTrueThroughAMoveAndAStaleReportOfTheOldServer) {
  RegionLoadTracker tracker;
  std::vector<double> rates;
  auto poll = [&](const RegionLoadReport& report) {
    tracker.Update({report});
    const TableLoad load = tracker.Score("default:t", Rule(1000, 1, 1));
    if (load.regions[0].has_rate) rates.push_back(load.regions[0].requests_per_s());
    return load.regions[0];
  };
  poll(Report("a", "", 10'000, 1000, 0));
  EXPECT_DOUBLE_EQ(poll(Report("a", "", 13'000, 7000, 0)).read_per_s, 2000);
  // Opened on rs2, whose clock is a second behind rs1's: counters from 0, an earlier time.
  RegionLoad moved = poll(Report("a", "", 12'000, 5, 0, "rs2,16020,2"));
  EXPECT_FALSE(moved.has_rate);
  EXPECT_FALSE(moved.hot) << "the hot history does not follow the region to its new server";
  EXPECT_EQ(moved.server, "rs2,16020,2");
  // rs1's last report, still listing the region with its old counters.
  EXPECT_FALSE(poll(Report("a", "", 13'000, 7000, 0)).has_rate);
  // rs2 again, counting since it opened the region: no rate against rs1's counters ...
  EXPECT_FALSE(poll(Report("a", "", 15'000, 605, 0, "rs2,16020,2")).has_rate);
  // ... nor against a larger counter of another server.
  EXPECT_FALSE(poll(Report("a", "", 16'000, 900'000, 0, "rs3,16020,3")).has_rate);
  // Two reports of the same server: the rate again.
  poll(Report("a", "", 17'000, 10, 0, "rs2,16020,2"));
  EXPECT_DOUBLE_EQ(poll(Report("a", "", 20'000, 6010, 0, "rs2,16020,2")).read_per_s, 2000);
  ASSERT_EQ(rates.size(), 2u);
  for (double rate : rates) EXPECT_DOUBLE_EQ(rate, 2000);
}

TEST(RegionLoadTracker, CountersGoingBackwardsOnTheSameServerRestartTheHistory) {
  RegionLoadTracker tracker;
  tracker.Update({Report("a", "", 10'000, 1000, 0)});
  tracker.Update({Report("a", "", 12'000, 5, 0)});
  EXPECT_FALSE(tracker.Score("default:t", HotRegionRule{}).regions[0].has_rate);
}

TEST(RegionLoadTracker, RegionsThatVanishAreForgottenAndNewOnesAppear) {
  RegionLoadTracker tracker;
  tracker.Update({Report("parent", "", 10'000, 0, 0)});
  tracker.Update({Report("parent", "", 12'000, 100, 0)});
  // The parent split into two daughters.
  tracker.Update({Report("left", "", 14'000, 0, 0), Report("right", "m", 14'000, 0, 0)});
  const TableLoad load = tracker.Score("default:t", HotRegionRule{});
  ASSERT_EQ(load.region_count, 2);
  EXPECT_EQ(load.regions[0].region, "left");
  EXPECT_EQ(load.regions[1].region, "right");
  EXPECT_FALSE(load.regions[0].has_rate);
}

TEST(RegionLoadTracker, ScoresAreInKeyOrderPerTable) {
  RegionLoadTracker tracker;
  std::vector<RegionLoadReport> first = {Report("z", "\x02", 0, 0, 0), Report("x", "", 0, 0, 0),
                                         Report("y", "\x01", 0, 0, 0),
                                         Report("o", "", 0, 0, 0, "rs1,16020,1", "ns:other")};
  tracker.Update(first);
  const TableLoad load = tracker.Score("default:t", HotRegionRule{});
  ASSERT_EQ(load.region_count, 3);
  EXPECT_EQ(load.regions[0].region, "x");
  EXPECT_EQ(load.regions[1].region, "y");
  EXPECT_EQ(load.regions[2].region, "z");
  EXPECT_EQ(tracker.Tables(), (std::vector<std::string>{"default:t", "ns:other"}));
  EXPECT_EQ(tracker.Score("ns:absent", HotRegionRule{}).region_count, 0);
}

// Four regions, one of which takes `hot_rate` requests/s and the others `cold_rate`, reported
// every 3 s for `seconds`.
RegionLoadTracker FourRegions(double hot_rate, double cold_rate, int seconds) {
  RegionLoadTracker tracker;
  for (int t = 0; t <= seconds; t += 3) {
    const int64_t ms = 100'000 + t * 1000;
    const auto hot = static_cast<int64_t>(hot_rate * t);
    const auto cold = static_cast<int64_t>(cold_rate * t);
    tracker.Update({Report("r0", "", ms, cold, 0), Report("r1", "1", ms, 0, hot),
                    Report("r2", "2", ms, cold, 0), Report("r3", "3", ms, cold, 0)});
  }
  return tracker;
}

TEST(RegionLoadTracker, SkewAndVariationOfAnUnevenTable) {
  const TableLoad load = FourRegions(5000, 1000, 30).Score("default:t", HotRegionRule{});
  EXPECT_DOUBLE_EQ(load.total_requests_per_s, 8000);
  EXPECT_DOUBLE_EQ(load.mean_requests_per_s, 2000);
  EXPECT_DOUBLE_EQ(load.max_requests_per_s, 5000);
  EXPECT_DOUBLE_EQ(load.request_skew, 2.5);
  // Deviations 3000, -1000 x3: sqrt((9e6 + 3e6) / 4) / 2000.
  EXPECT_NEAR(load.coefficient_of_variation, 0.866, 0.001);
  EXPECT_DOUBLE_EQ(load.size_skew, 1);
}

TEST(RegionLoadTracker, HotNeedsTheAbsoluteRateTheMultipleAndTheWindow) {
  // 9000 vs mean 3000 (9000+3x1000 over 4): a multiple of 3, above 1000/s, for 30 s.
  const RegionLoadTracker tracker = FourRegions(9000, 1000, 30);
  TableLoad load = tracker.Score("default:t", Rule(1000, 2.9, 30'000));
  EXPECT_EQ(load.hot_regions, 1);
  EXPECT_TRUE(load.regions[1].hot);
  EXPECT_FALSE(load.regions[0].hot);
  EXPECT_EQ(load.regions[1].above_rule_ms, 30'000);
  // Not sustained for long enough.
  EXPECT_EQ(tracker.Score("default:t", Rule(1000, 2.9, 31'000)).hot_regions, 0);
  // Not enough of a multiple of the mean.
  EXPECT_EQ(tracker.Score("default:t", Rule(1000, 3.5, 1)).hot_regions, 0);
  // Not enough absolute load.
  EXPECT_EQ(tracker.Score("default:t", Rule(10'000, 2, 1)).hot_regions, 0);
}

TEST(RegionLoadTracker, ADipBelowTheRuleRestartsTheWindow) {
  RegionLoadTracker tracker;
  int64_t hot = 0;
  for (int t = 0; t <= 30; t += 3) {
    // Hot except between 12 s and 15 s.
    hot += (t == 15) ? 0 : 3 * 9000;
    const int64_t ms = 100'000 + t * 1000;
    tracker.Update({Report("r0", "", ms, 1000 * t, 0), Report("r1", "1", ms, hot, 0),
                    Report("r2", "2", ms, 1000 * t, 0), Report("r3", "3", ms, 1000 * t, 0)});
  }
  const TableLoad load = tracker.Score("default:t", Rule(1000, 2.5, 10'000));
  EXPECT_EQ(load.regions[1].above_rule_ms, 15'000);
  EXPECT_TRUE(load.regions[1].hot);
  EXPECT_EQ(tracker.Score("default:t", Rule(1000, 2.5, 16'000)).hot_regions, 0);
}

TEST(RegionLoadTracker, AGrowingLoadStaysHotAgainstTheMeanOfItsOwnTime) {
  // Clients warming up: one region's rate doubles every report (1500/s, 3000/s, ... 48000/s),
  // the three others stay at 100/s. Every sample is far above 3 x the table's mean of its time,
  // so the window counts from the first one; held against today's mean (12,075/s: 3x is
  // 36,225/s) all but the last sample would look cold and the window would restart forever.
  RegionLoadTracker tracker;
  int64_t hot = 0;
  double rate = 1500;
  for (int t = 0; t <= 18; t += 3) {
    if (t > 0) {
      hot += static_cast<int64_t>(3 * rate);
      rate *= 2;
    }
    const int64_t ms = 100'000 + t * 1000;
    tracker.Update({Report("r0", "", ms, 100 * t, 0), Report("r1", "1", ms, hot, 0),
                    Report("r2", "2", ms, 100 * t, 0), Report("r3", "3", ms, 100 * t, 0)});
  }
  const TableLoad load = tracker.Score("default:t", Rule(1000, 3, 10'000));
  EXPECT_DOUBLE_EQ(load.regions[1].requests_per_s(), 48'000);
  EXPECT_EQ(load.regions[1].above_rule_ms, 18'000);
  EXPECT_TRUE(load.regions[1].hot);
  // The absolute rate still counts per sample: at 2,000/s only the samples from 3000/s on.
  EXPECT_EQ(tracker.Score("default:t", Rule(2000, 3, 10'000)).regions[1].above_rule_ms, 15'000);
}

TEST(RegionLoadTracker, HistoryIsBounded) {
  RegionLoadTracker tracker(/*history_ms=*/10'000);
  for (int t = 0; t <= 60; t += 3) {
    const int64_t ms = t * 1000;
    tracker.Update({Report("r0", "", ms, 0, 0), Report("r1", "1", ms, 9000 * t, 0),
                    Report("r2", "2", ms, 0, 0), Report("r3", "3", ms, 0, 0)});
  }
  // Only about 10 s of history is kept, so no window longer than that can be seen.
  const TableLoad load = tracker.Score("default:t", Rule(1, 2, 1));
  EXPECT_LE(load.regions[1].above_rule_ms, 13'000);
  EXPECT_GE(load.regions[1].above_rule_ms, 10'000);
}

}  // namespace
}  // namespace presplit::daemon::watch
