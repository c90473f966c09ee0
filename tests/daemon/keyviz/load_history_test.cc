// The key visualizer's history on a fake clock: downsampling, retention, the memory budget, and
// epochs across splits, migrations and regions missing from a poll.
#include "daemon/keyviz/load_history.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <memory>

namespace presplit::daemon::keyviz {
namespace {

constexpr int64_t kSec = 1000;
constexpr int64_t kMin = 60 * kSec;
constexpr int64_t kHour = 60 * kMin;

LoadHistoryOptions SmallTiers() {
  LoadHistoryOptions o;
  o.fine = {kMin, 10 * kMin};
  o.coarse = {5 * kMin, kHour};
  return o;
}

TableSample::Region R(std::string start, std::string end, double read, double write = 0,
                      int64_t size = 1000, bool has_rate = true) {
  TableSample::Region r;
  r.start_key = std::move(start);
  r.end_key = std::move(end);
  r.read_per_s = read;
  r.write_per_s = write;
  r.size_bytes = size;
  r.has_rate = has_rate;
  return r;
}

TableSample Sample(std::vector<TableSample::Region> regions, std::string physical = "ns:t",
                   int64_t generation = 1) {
  TableSample s;
  s.table = "ns:t";
  s.physical_table = std::move(physical);
  s.generation = generation;
  s.regions = std::move(regions);
  return s;
}

TEST(LoadHistoryTest, FineColumnsAverageThePollsByTime) {
  LoadHistory history(SmallTiers());
  // Polls every 10 s in the slot (0, 60 s]: 100/s for 20 s then 400/s for 40 s.
  int64_t t = 0;
  history.Record(t, {Sample({R("", "", 0)})});
  for (int i = 0; i < 6; ++i) {
    t += 10 * kSec;
    history.Record(t, {Sample({R("", "", i < 2 ? 100 : 400, 10)})});
  }
  auto w = history.Read("ns:t", 0, t);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // The first poll alone covers [0, 0] (the slot before); the next six (0, 60 s].
  ASSERT_EQ(w->columns.size(), 2u);
  EXPECT_EQ(w->columns[0].end_ms, 0);
  EXPECT_EQ(w->columns[1].start_ms, 0);
  EXPECT_EQ(w->columns[1].end_ms, 60 * kSec);
  EXPECT_NEAR(w->columns[1].read_per_s[0], (100.0 * 20 + 400.0 * 40) / 60.0, 0.5);
  EXPECT_NEAR(w->columns[1].write_per_s[0], 10, 0.01);
}

TEST(LoadHistoryTest, OldFineColumnsMergeIntoCoarseOnesWeightedByTime) {
  LoadHistory history(SmallTiers());
  int64_t t = 1;
  // 100/s during the first 5-minute slot's first 2 minutes, then 200/s.
  for (; t <= 5 * kMin; t += 10 * kSec) {
    history.Record(t, {Sample({R("", "", t <= 2 * kMin ? 100 : 200, 0, t)})});
  }
  // Then idle polls until the first slot is older than the fine retention.
  for (; t <= 16 * kMin; t += 10 * kSec) history.Record(t, {Sample({R("", "", 0)})});
  auto w = history.Read("ns:t", 0, 5 * kMin);
  ASSERT_TRUE(w.ok());
  ASSERT_GE(w->columns.size(), 1u);
  const HistoryColumn& c = w->columns[0];
  // One coarse column for (0, 5 min]: the fine columns merged.
  EXPECT_LE(c.start_ms, 1);
  // Polls at 1 + 10 s x k: the slot's last poll is at 4 min 50 s + 1 ms.
  EXPECT_EQ(c.end_ms, 5 * kMin - 10 * kSec + 1);
  // 100/s over the columns ending up to 1 min 50 s, 200/s over the next three minutes.
  EXPECT_NEAR(c.read_per_s[0], (100.0 * 110'000 + 200.0 * 180'000) / 290'000, 1.0);
  EXPECT_TRUE(c.has_rate[0]);
  // Its size is the last one seen in it.
  EXPECT_NEAR(c.size_bytes[0], 5 * kMin - 10 * kSec + 1, 0.004 * 5 * kMin);
  EXPECT_GT(w->columns.size(), 1u);  // the next slot's column overlaps the window's end
  EXPECT_GT(w->columns[1].start_ms, c.start_ms);
}

TEST(LoadHistoryTest, RetentionDropsTheOldestColumns) {
  LoadHistory history(SmallTiers());
  int64_t t = 1;
  for (; t <= 3 * kHour; t += 10 * kSec) history.Record(t, {Sample({R("", "", 5)})});
  auto w = history.Read("ns:t", 0, t);
  ASSERT_TRUE(w.ok());
  ASSERT_FALSE(w->columns.empty());
  // Nothing ended longer ago than the coarse retention; the fine tier holds the last 10 min.
  EXPECT_GT(w->columns.front().end_ms, t - 10 * kSec - kHour);
  EXPECT_LE(w->columns.front().start_ms, t - kHour);
  for (size_t i = 1; i < w->columns.size(); ++i) {
    EXPECT_GE(w->columns[i].start_ms, w->columns[i - 1].end_ms);
  }
  // Coarse 5-minute columns for the hour before the last 10 minutes, 1-minute ones after.
  EXPECT_LE(w->columns.size(), 12u + 11u + 1u);
  EXPECT_GE(w->columns.size(), 10u + 10u);
  EXPECT_EQ(history.Columns(), w->columns.size());
}

TEST(LoadHistoryTest, AWallClockThatStepsBackRestartsTheHistoryInsteadOfFreezingIt) {
  LoadHistory history(SmallTiers());
  int64_t t = 2 * kHour;
  for (; t <= 2 * kHour + 30 * kMin; t += 10 * kSec) {
    EXPECT_EQ(history.Record(t, {Sample({R("", "", 5)})}).histories_restarted, 0u);
  }
  // Jitter of less than a column is no step back: the poll is skipped, the history kept.
  auto jitter = history.Record(t - 20 * kSec, {Sample({R("", "", 5)})});
  EXPECT_EQ(jitter.histories_restarted, 0u);
  ASSERT_TRUE(history.Read("ns:t", 2 * kHour, t).ok());
  EXPECT_FALSE(history.Read("ns:t", 2 * kHour, t)->columns.empty());

  // An hour back: the old columns would end after every time to come.
  int64_t back = kHour;
  EXPECT_EQ(history.Record(back, {Sample({R("", "", 7)})}).histories_restarted, 1u);
  for (int i = 0; i < 30; ++i) {
    back += 10 * kSec;
    EXPECT_EQ(history.Record(back, {Sample({R("", "", 7)})}).histories_restarted, 0u);
  }
  auto w = history.Read("ns:t", 0, 3 * kHour);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_FALSE(w->columns.empty()) << "recording goes on after the step back";
  for (const auto& c : w->columns) {
    EXPECT_LE(c.end_ms, back) << "no column of before the step back is left";
  }
  EXPECT_GE(w->columns.size(), 4u);  // 5 minutes of 1-minute columns, the open one included
  EXPECT_EQ(history.counters().histories_restarted, 1u);
}

TEST(LoadHistoryTest, TheBudgetHoldsUnderAFloodAndMemoryBytesIsHonest) {
  auto options = SmallTiers();
  options.memory_budget_bytes = size_t{6} << 20;
  std::vector<TableSample> samples;
  // 40 tables of 1,500 regions, 20-byte keys: about 11 MiB of columns at steady state.
  auto key = [](int r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "\x01user-%014d", r);
    return std::string(buf);
  };
  for (int table = 0; table < 40; ++table) {
    TableSample s;
    s.table = "ns:t" + std::to_string(table);
    s.physical_table = s.table;
    for (int r = 0; r < 1500; ++r) {
      s.regions.push_back(R(r == 0 ? "" : key(r), r == 1499 ? "" : key(r + 1), r, r, 1 << 20));
    }
    samples.push_back(std::move(s));
  }
  struct mallinfo2 before = mallinfo2();
  auto history = std::make_unique<LoadHistory>(options);
  uint64_t dropped = 0;
  for (int64_t t = 1; t <= 30 * kMin; t += 10 * kSec) {
    auto result = history->Record(t, samples);
    dropped += result.columns_dropped_by_budget;
    ASSERT_LE(history->MemoryBytes(), options.memory_budget_bytes) << "at " << t;
  }
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(history->counters().columns_dropped_by_budget, dropped);
  EXPECT_EQ(history->Tables().size(), 40u);
  // The estimate against what the allocator hands out meanwhile.
  struct mallinfo2 after = mallinfo2();
  const double real = static_cast<double>(after.uordblks) - static_cast<double>(before.uordblks);
  const double estimate = static_cast<double>(history->MemoryBytes());
  EXPECT_NEAR(estimate / real, 1.0, 0.1) << "estimate " << estimate << " real " << real;
}

TEST(LoadHistoryTest, ASplitStartsAnEpochWhereTheParentsHistoryEnds) {
  LoadHistory history(SmallTiers());
  int64_t t = 1;
  for (; t < 2 * kMin; t += 10 * kSec) {
    history.Record(t, {Sample({R("", "b", 1), R("b", "", 50)})});
  }
  const int64_t last_parent = t - 10 * kSec;
  for (; t < 5 * kMin; t += 10 * kSec) {
    history.Record(t, {Sample({R("", "b", 1), R("b", "c", 20), R("c", "", 30)})});
  }
  auto w = history.Read("ns:t", 0, t);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->epochs.size(), 2u);
  EXPECT_EQ(w->epochs[0].regions.size(), 2u);
  ASSERT_EQ(w->epochs[1].regions.size(), 3u);
  EXPECT_EQ(w->epochs[1].regions[1].start_key, "b");
  EXPECT_EQ(w->epochs[1].regions[1].end_key, "c");
  ASSERT_EQ(w->events.size(), 1u);
  EXPECT_EQ(w->events[0].kind, "split");
  EXPECT_EQ(w->events[0].detail, "ns:t region [b, ) -> [b, c) [c, )");
  EXPECT_EQ(w->events[0].at_ms, last_parent);
  // The parent's last column ends where the daughters' first begins.
  size_t first_new = 0;
  while (w->columns[first_new].epoch == 0) ++first_new;
  ASSERT_GT(first_new, 0u);
  EXPECT_EQ(w->columns[first_new - 1].end_ms, last_parent);
  EXPECT_EQ(w->columns[first_new].start_ms, last_parent);
  EXPECT_NEAR(w->columns[first_new - 1].read_per_s[1], 50, 0.5);
  EXPECT_NEAR(w->columns.back().read_per_s[2], 30, 0.2);
  for (size_t i = first_new; i < w->columns.size(); ++i) EXPECT_EQ(w->columns[i].epoch, 1);
  EXPECT_EQ(history.counters().epochs_started, 2u);

  // And a merge back.
  history.Record(t, {Sample({R("", "b", 1), R("b", "", 9)})});
  auto merged = history.Read("ns:t", t - 10 * kSec, t);  // it starts at the previous poll
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->events.size(), 1u);
  EXPECT_EQ(merged->events[0].kind, "merge");
}

TEST(LoadHistoryTest, AMigrationSwitchStartsAnEpochOnTheNewTable) {
  LoadHistory history(SmallTiers());
  int64_t t = 1;
  for (; t < 2 * kMin; t += 10 * kSec) history.Record(t, {Sample({R("", "", 7)})});
  const int64_t switch_at = t - 10 * kSec;
  KeyLayout salted;
  salted.buckets = 4;
  salted.salt_width = 1;
  for (; t < 4 * kMin; t += 10 * kSec) {
    auto s =
        Sample({R("", "\x01", 1), R("\x01", "\x02", 2), R("\x02", "\x03", 3), R("\x03", "", 4)},
               "ns:t__g2", 2);
    s.layout = salted;
    history.Record(t, {s});
  }
  auto w = history.Read("ns:t", 0, t);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->epochs.size(), 2u);
  EXPECT_EQ(w->epochs[1].physical_table, "ns:t__g2");
  EXPECT_EQ(w->epochs[1].generation, 2);
  EXPECT_EQ(w->epochs[1].layout.buckets, 4);
  ASSERT_EQ(w->events.size(), 1u);
  EXPECT_EQ(w->events[0].kind, "migration");
  EXPECT_EQ(w->events[0].at_ms, switch_at);
  EXPECT_NE(w->events[0].detail.find("ns:t (generation 1, 1 regions) -> ns:t__g2"),
            std::string::npos)
      << w->events[0].detail;
  size_t first_new = 0;
  while (w->columns[first_new].epoch == 0) ++first_new;
  EXPECT_EQ(w->columns[first_new - 1].end_ms, w->columns[first_new].start_ms);
  EXPECT_NEAR(w->columns.back().read_per_s[3], 4, 0.05);
}

TEST(LoadHistoryTest, AMissingRegionKeepsItsPlaceWithoutARate) {
  LoadHistory history(SmallTiers());
  int64_t t = 1;
  auto all = Sample({R("", "b", 1, 0, 100), R("b", "c", 2, 0, 200), R("c", "", 3, 0, 300)});
  auto without_b = Sample({R("", "b", 1, 0, 100), R("c", "", 3, 0, 300)});
  for (; t <= kMin; t += 10 * kSec) history.Record(t, {all});
  // "b" is in transition for two whole minutes.
  for (; t <= 3 * kMin; t += 10 * kSec) history.Record(t, {without_b});
  for (; t <= 4 * kMin; t += 10 * kSec) history.Record(t, {all});
  auto w = history.Read("ns:t", 0, t);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->epochs.size(), 1u);
  EXPECT_TRUE(w->events.empty());
  ASSERT_GE(w->columns.size(), 4u);
  const HistoryColumn& missing = w->columns[2];  // (2 min, 3 min]
  EXPECT_FALSE(missing.has_rate[1]);
  EXPECT_EQ(missing.read_per_s[1], 0);
  EXPECT_NEAR(missing.size_bytes[1], 200, 1);  // its last size
  EXPECT_TRUE(missing.has_rate[0]);
  EXPECT_TRUE(w->columns.back().has_rate[1]);

  // A split while another region is missing keeps the missing one in the new epoch.
  history.Record(t, {Sample({R("", "b", 1), R("c", "d", 3), R("d", "", 3)})});
  auto after = history.Read("ns:t", t - 10 * kSec, t);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->epochs.size(), 2u);  // the old one's last column ends at t - 10 s
  ASSERT_EQ(after->epochs[1].regions.size(), 4u);
  EXPECT_EQ(after->epochs[1].regions[1].start_key, "b");
  EXPECT_FALSE(after->columns.back().has_rate[1]);
  EXPECT_NEAR(after->columns.back().size_bytes[1], 200, 1);
  ASSERT_EQ(after->events.size(), 1u);
  EXPECT_EQ(after->events[0].detail, "ns:t region [c, ) -> [c, d) [d, )");
}

TEST(LoadHistoryTest, ReadSelectsTheColumnsOfItsWindow) {
  LoadHistory history(SmallTiers());
  for (int64_t t = 1; t <= 20 * kMin; t += 10 * kSec) history.Record(t, {Sample({R("", "", 1)})});
  // Polls at 1 + 10 s x k: the columns are (14:50, 15:50], (15:50, 16:50], (16:50, 17:50].
  auto w = history.Read("ns:t", 15 * kMin + 1, 17 * kMin);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->columns.size(), 3u);
  EXPECT_EQ(w->columns[0].start_ms, 15 * kMin - 10 * kSec + 1);
  EXPECT_EQ(w->columns[2].end_ms, 18 * kMin - 10 * kSec + 1);
  for (const auto& c : w->columns) {
    EXPECT_GE(c.end_ms, 15 * kMin + 1);
    EXPECT_LE(c.start_ms, 17 * kMin);
    EXPECT_EQ(c.epoch, 0);
  }
  EXPECT_EQ(w->table, "ns:t");
  EXPECT_TRUE(history.Read("ns:t", 100 * kHour, 101 * kHour)->columns.empty());
  EXPECT_EQ(history.Read("ns:other", 0, kHour).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(history.Read("ns:t", kHour, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(history.Tables(), std::vector<std::string>{"ns:t"});
}

TEST(LoadHistoryTest, BadInputIsRefusedAndCounted) {
  auto options = SmallTiers();
  options.max_tables = 2;
  options.max_regions_per_table = 3;
  options.max_key_bytes = 8;
  LoadHistory history(options);
  std::vector<TableSample> samples;
  for (const char* name : {"ns:a", "ns:b", "ns:c"}) {
    auto s = Sample({R("", "b", 1), R("a", "c", 1), R("c", "d", 1), R("d", "e", 1), R("e", "", 1)});
    s.table = name;
    samples.push_back(s);
  }
  auto long_key = Sample({R("", "0123456789", 1), R("0123456789", "", 1)});
  long_key.table = "ns:long";
  samples.insert(samples.begin(), long_key);
  auto result = history.Record(1, samples);
  EXPECT_EQ(result.tables_refused, 2u);  // the long key and the third table
  EXPECT_EQ(result.regions_truncated, 2u * 2u);
  EXPECT_EQ(result.regions_overlapping, 2u * 1u);  // [a, c) overlaps [, b)
  EXPECT_EQ(history.Tables(), (std::vector<std::string>{"ns:a", "ns:b"}));
  auto w = history.Read("ns:a", 0, 1);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->epochs[0].regions.size(), 2u);  // [, b) and [c, d)
  EXPECT_EQ(history.counters().tables_refused, 2u);
  EXPECT_EQ(history.counters().regions_refused, 6u);
}

TEST(LoadHistoryTest, RegionsKeptFromAnEarlierEpochStayWithinTheCap) {
  auto options = SmallTiers();
  options.max_regions_per_table = 3;
  LoadHistory history(options);
  history.Record(1, {Sample({R("", "b", 1), R("b", "c", 1), R("c", "", 1)})});
  // [, b) split; [b, c) and [c, ) missing from this poll: only one of them fits beside the two.
  history.Record(10 * kSec, {Sample({R("", "a", 1), R("a", "b", 1)})});
  auto w = history.Read("ns:t", 10 * kSec, 10 * kSec);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->epochs.back().regions.size(), 3u);
  EXPECT_EQ(w->epochs.back().regions[2].start_key, "b");
}

TEST(LoadHistoryTest, OptionsAreChecked) {
  EXPECT_TRUE(CheckLoadHistoryOptions(LoadHistoryOptions{}).ok());
  auto o = SmallTiers();
  o.coarse.resolution_ms = 90 * kSec;  // not a multiple of one minute
  EXPECT_FALSE(CheckLoadHistoryOptions(o).ok());
  o = SmallTiers();
  o.coarse.retention_ms = 5 * kMin;  // not beyond the fine retention
  EXPECT_FALSE(CheckLoadHistoryOptions(o).ok());
  o = SmallTiers();
  o.fine.resolution_ms = 0;
  EXPECT_FALSE(CheckLoadHistoryOptions(o).ok());
}

// A coarse column weighs each fine column by the time it measured, not by the span up to it: a
// gap without polls (an outage) must not count as time at the earlier rate.
TEST(LoadHistoryTest, ACoarseColumnLeavesGapsOutOfItsWeights) {
  LoadHistory history(SmallTiers());
  int64_t t = 0;
  history.Record(t, {Sample({R("", "", 1000)})});  // the first sample covers [0, 0]
  for (t = 10 * kSec; t <= 60 * kSec; t += 10 * kSec) {
    history.Record(t, {Sample({R("", "", 1000)})});
  }
  // Two minutes without a poll; the first poll after covers the minute before it (120-180 s).
  for (t = 180 * kSec; t <= 300 * kSec; t += 10 * kSec) history.Record(t, {Sample({R("", "", 0)})});
  // Idle polls until (0, 5 min] is older than the fine retention: merged into one coarse column.
  for (; t <= 16 * kMin; t += 30 * kSec) history.Record(t, {Sample({R("", "", 0)})});
  auto w = history.Read("ns:t", 1, 5 * kMin);
  ASSERT_TRUE(w.ok());
  ASSERT_FALSE(w->columns.empty());
  const HistoryColumn& c = w->columns[0];
  EXPECT_EQ(c.start_ms, 0);
  EXPECT_EQ(c.end_ms, 5 * kMin);
  // 60 s at 1000/s and 180 s at 0: 250/s (counting the gap at the earlier rate gave 300).
  EXPECT_NEAR(c.read_per_s[0], 250, 3);
}

TEST(LoadHistoryTest, AReadLargerThanItsBoundsIsRefusedBeforeCopying) {
  LoadHistoryOptions o = SmallTiers();
  o.max_read_region_columns = 10;  // two regions: five columns at most
  LoadHistory history(o);
  int64_t t = 0;
  for (int i = 0; i <= 8; ++i, t += kMin) {
    history.Record(t, {Sample({R("", "m", 1), R("m", "", 2)})});
  }
  auto all = history.Read("ns:t", 0, t);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(all.status().message().find("ask for a shorter time"), std::string::npos)
      << all.status().ToString();
  auto recent = history.Read("ns:t", t - 2 * kMin, t);
  ASSERT_TRUE(recent.ok()) << recent.status().ToString();
  EXPECT_LE(recent->columns.size(), 5u);
}

TEST(LoadHistoryTest, ARateThatIsNoFiniteNumberCountsAsNoRate) {
  LoadHistory history(SmallTiers());
  history.Record(0, {Sample({R("", "m", 1), R("m", "", 1)})});
  history.Record(10 * kSec, {Sample({R("", "m", std::nan(""), 5), R("m", "", 7, 3)})});
  history.Record(20 * kSec, {Sample({R("", "m", 4, 2), R("m", "", 7, 3)})});
  auto w = history.Read("ns:t", 0, 20 * kSec);
  ASSERT_TRUE(w.ok());
  const HistoryColumn& c = w->columns.back();
  ASSERT_TRUE(c.has_rate[0]);
  // Only the finite sample counts: no NaN leaks into the mean.
  EXPECT_NEAR(c.read_per_s[0], 4, 0.05);
  EXPECT_NEAR(c.write_per_s[0], 2, 0.05);
  EXPECT_NEAR(c.read_per_s[1], 7, 0.05);
}

TEST(LoadHistoryTest, AnEventNamesLongKeysByTheirBeginning) {
  LoadHistory history(SmallTiers());
  const std::string long_key = std::string(4000, 'k');  // within max_key_bytes
  history.Record(0, {Sample({R("", "", 1)})});
  history.Record(10 * kSec, {Sample({R("", long_key, 1), R(long_key, "", 1)})});
  auto w = history.Read("ns:t", 0, 10 * kSec);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->events.size(), 1u);
  EXPECT_LT(w->events[0].detail.size(), 400u) << w->events[0].detail.size();
  EXPECT_NE(w->events[0].detail.find("..."), std::string::npos);
}

}  // namespace
}  // namespace presplit::daemon::keyviz
