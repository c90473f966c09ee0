#include "daemon/watch/load_watcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "daemon/watch/load_report.h"

namespace presplit::daemon::watch {
namespace {

// The cluster in memory: four regions per table whose counters the test advances. Only the
// tables asked for are reported, as HBase's region load is read per table.
class FakeLoadSource : public RegionLoadSource {
 public:
  Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) override {
    asked = tables;
    if (!error.ok()) return error;
    std::vector<RegionLoadReport> out;
    for (const auto& table : tables) {
      auto it = by_table.find(table);
      if (it != by_table.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }
  Status SplitRegion(const std::string& region) override {
    split_requests.push_back(region);
    return split_status;
  }
  Result<std::vector<std::string>> SampleRowKeys(const std::string& table,
                                                 const std::string& start_key,
                                                 const std::string& end_key, int max_keys,
                                                 int64_t max_rows) override {
    sampled.push_back(table + " [" + start_key + ", " + end_key + ")");
    EXPECT_GT(max_keys, 0);
    EXPECT_GT(max_rows, 0);
    if (on_sample) on_sample();
    return sample;
  }
  Status SplitRegionAt(const std::string& region, const std::string& point) override {
    split_at.emplace_back(region, point);
    return split_status;
  }

  // Another report of default:t, `seconds` after the last, with these request rates for r0..r3.
  void Advance(int seconds, const std::vector<int64_t>& rates) {
    time_ms += seconds * 1000;
    Report("default:t", "r", rates);
  }
  // Another report of `table`'s regions <prefix>0..3 at the current time (Advance moves it).
  void Report(const std::string& table, const std::string& prefix,
              const std::vector<int64_t>& rates, int seconds = 3) {
    auto& reports = by_table[table];
    if (reports.empty()) {
      for (int i = 0; i < 4; ++i) {
        RegionLoadReport r;
        r.table = table;
        r.region = prefix + std::to_string(i);
        r.start_key = i == 0 ? "" : std::string(1, static_cast<char>('0' + i));
        r.end_key = i == 3 ? "" : std::string(1, static_cast<char>('1' + i));
        r.server = "rs1,16020,1";
        reports.push_back(r);
      }
    }
    for (size_t i = 0; i < reports.size(); ++i) {
      reports[i].report_time_ms = time_ms;
      reports[i].write_requests += rates[i] * seconds;
    }
  }

  std::map<std::string, std::vector<RegionLoadReport>> by_table;
  std::vector<std::string> asked;
  std::vector<std::string> split_requests;
  std::vector<std::string> sampled;
  std::vector<std::string> sample;  // the keys SampleRowKeys returns
  std::function<void()> on_sample;  // runs while SampleRowKeys reads
  std::vector<std::pair<std::string, std::string>> split_at;
  Status error = Status::Ok();
  Status split_status = Status::Ok();
  int64_t time_ms = 1'000'000;
};

// A document's table watched under its own name.
std::vector<WatchedTable> Watch(const std::string& table, const LoadSplitSettings& settings) {
  WatchedTable watched;
  watched.table = table;
  watched.physical_table = table;
  watched.settings = settings;
  return {watched};
}

LoadSplitSettings Settings(bool dry_run) {
  LoadSplitSettings settings;
  settings.enabled = true;
  settings.dry_run = dry_run;
  settings.max_regions = 16;
  settings.rule.min_requests_per_s = 1000;
  settings.rule.mean_multiple = 2;
  settings.rule.sustain_ms = 9000;
  return settings;
}

struct Fixture {
  FakeLoadSource source;
  int64_t now = 0;
  LoadWatcher watcher{source, LoadWatcherOptions{}, [this] { return now; }};

  // Polls every 3 s for `seconds`, r2 at 9000/s and the others at 500/s.
  void HotFor(int seconds, bool plan = true) {
    for (int t = 0; t < seconds; t += 3) {
      source.Advance(3, {500, 500, 9000, 500});
      now = source.time_ms;
      ASSERT_TRUE(watcher.Poll(plan).ok());
    }
  }
};

TEST(LoadWatcher, ScoresTheWatchedTablesOnly) {
  Fixture f;
  f.watcher.SetTables(Watch("default:t", LoadSplitSettings{}));
  f.HotFor(6);
  EXPECT_EQ(f.source.asked, std::vector<std::string>{"default:t"});
  const LoadSnapshot snapshot = f.watcher.snapshot();
  ASSERT_EQ(snapshot.tables.size(), 1u);
  EXPECT_EQ(snapshot.tables[0].region_count, 4);
  EXPECT_DOUBLE_EQ(snapshot.tables[0].max_requests_per_s, 9000);
  EXPECT_EQ(snapshot.polled_at_ms, f.now);
  // Load split is off for the table: nothing decided, nothing split.
  EXPECT_TRUE(snapshot.decisions.empty());
  EXPECT_TRUE(f.source.split_requests.empty());
}

TEST(LoadWatcher, SplitsASustainedHotRegionOnceAndCountsIt) {
  Fixture f;
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  f.HotFor(6);
  EXPECT_TRUE(f.source.split_requests.empty()) << "hot for 6 s only, the rule wants 9 s";
  f.HotFor(9);
  EXPECT_EQ(f.source.split_requests, std::vector<std::string>{"r2"});
  f.HotFor(9);  // still hot, but cooling down: no second request
  EXPECT_EQ(f.source.split_requests.size(), 1u);
  const LoadSnapshot snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.splits_total, 1);
  ASSERT_FALSE(snapshot.decisions.at("default:t").empty());
  const SplitDecision& first = snapshot.decisions.at("default:t").front();
  EXPECT_EQ(first.region, "r2");
  EXPECT_EQ(first.action, SplitDecision::Action::kSplit);
  EXPECT_DOUBLE_EQ(first.requests_per_s, 9000);
}

TEST(LoadWatcher, AStandbysPollScoresWithoutDecidingOrSplitting) {
  Fixture f;
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  f.HotFor(15, /*plan=*/false);
  EXPECT_TRUE(f.source.split_requests.empty());
  const LoadSnapshot snapshot = f.watcher.snapshot();
  ASSERT_EQ(snapshot.tables.size(), 1u);
  EXPECT_DOUBLE_EQ(snapshot.tables[0].max_requests_per_s, 9000);
  EXPECT_TRUE(snapshot.decisions.empty());
  // Once it leads, the rates it kept count: the region has been hot long enough already.
  f.HotFor(3);
  EXPECT_EQ(f.source.split_requests, std::vector<std::string>{"r2"});
}

TEST(LoadWatcher, DryRunDecidesWithoutSplitting) {
  Fixture f;
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/true)));
  f.HotFor(15);
  EXPECT_TRUE(f.source.split_requests.empty());
  const LoadSnapshot snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.skips_total.at("dry_run"), 1);
  EXPECT_EQ(snapshot.decisions.at("default:t").back().reason, "dry_run");
}

TEST(LoadWatcher, ARefusedSplitIsADecisionNotAnError) {
  Fixture f;
  f.source.split_status = Status::Internal("region is not splittable");
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  f.HotFor(15);
  ASSERT_EQ(f.source.split_requests.size(), 1u);
  f.HotFor(30);
  EXPECT_EQ(f.source.split_requests.size(), 1u) << "an unsplittable region is left alone";
  const LoadSnapshot snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.splits_total, 0);
  EXPECT_EQ(snapshot.skips_total.at("split_refused"), 1);
}

TEST(LoadWatcher, ASplitHBaseCouldNotTakeThenIsAskedAgainSoon) {
  Fixture f;
  // As TakeJavaException reports java-shim's RegionInTransitionException (a plain IOException).
  f.source.split_status = Status::Unavailable(
      "split region r2: java.io.IOException: region r2 is in transition (OPENING); HBase refused "
      "the split for now: r2 is not OPEN; state=OPENING");
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  f.HotFor(15);
  ASSERT_EQ(f.source.split_requests.size(), 1u);
  LoadSnapshot snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.skips_total.at("split_deferred"), 1);
  EXPECT_EQ(snapshot.skips_total.count("split_refused"), 0u);
  EXPECT_NE(snapshot.decisions.at("default:t").back().error.find("OPENING"), std::string::npos);
  // Open again: within the retry pause nothing is asked, after it the split is asked and made,
  // with no cool-down (600 s by default) in the way.
  f.source.split_status = Status::Ok();
  f.HotFor(24);
  EXPECT_EQ(f.source.split_requests.size(), 1u) << "not asked again before the retry pause";
  f.HotFor(9);
  EXPECT_EQ(f.source.split_requests.size(), 2u);
  snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.splits_total, 1);
}

TEST(LoadWatcher, ADeniedSplitCarriesHBasesOneLineIntoTheDecision) {
  Fixture f;
  // As TakeJavaException reports java-shim's AccessDenial line.
  const std::string denied =
      "split region r1: HBase denied splitting a region of table default:t: Insufficient "
      "permissions (user=presplit/h@R, scope=default:t, params=[table=default:t],action=ADMIN); "
      "presplitd's principal presplit/h@R needs ADMIN on table default:t (hbase shell: grant "
      "'presplit', 'A', 'default:t')";
  f.source.split_status = Status::PermissionDenied(denied);
  f.watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  f.HotFor(15);
  ASSERT_EQ(f.source.split_requests.size(), 1u);
  const LoadSnapshot snapshot = f.watcher.snapshot();
  const auto& decisions = snapshot.decisions.at("default:t");
  auto refused = std::find_if(decisions.begin(), decisions.end(),
                              [](const SplitDecision& d) { return d.reason == "split_refused"; });
  ASSERT_NE(refused, decisions.end());
  EXPECT_EQ(refused->error, denied);
  const auto json = DecisionsJson(decisions);
  const auto at = static_cast<size_t>(refused - decisions.begin());
  EXPECT_EQ(json[at]["error"], denied);
  // Decisions that were not refused carry no error.
  SplitDecision skipped;
  skipped.reason = "cooldown";
  EXPECT_FALSE(DecisionsJson({skipped}).back().contains("error"));
}

TEST(LoadWatcher, ASourceErrorIsReturnedAndShown) {
  Fixture f;
  f.watcher.SetTables(Watch("default:t", Settings(false)));
  f.source.error = Status::Internal("HBase is down");
  EXPECT_FALSE(f.watcher.Poll().ok());
  EXPECT_EQ(f.watcher.snapshot().last_error, "HBase is down");
  f.source.error = Status::Ok();
  f.HotFor(3);
  EXPECT_EQ(f.watcher.snapshot().last_error, "");
}

TEST(LoadWatcher, DecisionsAreBoundedAndForgottenWithTheTable) {
  Fixture f;
  LoadWatcherOptions options;
  options.decisions_kept = 2;
  int64_t now = 0;
  LoadWatcher watcher(f.source, options, [&now] { return now; });
  LoadSplitSettings settings = Settings(true);
  settings.region_cooldown_ms = 3000;  // report the dry-run decision every poll
  watcher.SetTables(Watch("default:t", settings));
  for (int i = 0; i < 8; ++i) {
    f.source.Advance(3, {500, 500, 9000, 500});
    now = f.source.time_ms;
    ASSERT_TRUE(watcher.Poll().ok());
  }
  EXPECT_EQ(watcher.snapshot().decisions.at("default:t").size(), 2u);
  EXPECT_GT(watcher.snapshot().skips_total.at("dry_run"), 2);
  watcher.SetTables({});
  f.source.Advance(3, {500, 500, 9000, 500});
  ASSERT_TRUE(watcher.Poll().ok());
  EXPECT_TRUE(watcher.snapshot().decisions.empty());
}

TEST(LoadWatcher, KeepsAsMuchHistoryAsTheLongestWindowNeeds) {
  Fixture f;
  LoadSplitSettings settings = Settings(/*dry_run=*/false);
  // Longer than the watcher's minimum history: only seen if SetTables keeps enough of it.
  settings.rule.sustain_ms = 45'000;
  f.watcher.SetTables(Watch("default:t", settings));
  f.HotFor(42);
  EXPECT_TRUE(f.source.split_requests.empty()) << "hot for 42 s, the rule wants 45 s";
  f.HotFor(6);
  EXPECT_EQ(f.source.split_requests, std::vector<std::string>{"r2"});
}

// A table with HBase's own split policy: the point comes from r2's ["2", "3") key sample.
LoadSplitSettings KeySampleSettings() {
  LoadSplitSettings settings = Settings(/*dry_run=*/false);
  settings.point_from_key_sample = true;
  KeyLayout spec;
  spec.group_delimiter = "|";
  settings.layout = *MakeLayout(spec);
  return settings;
}

TEST(LoadWatcher, WithoutTheRegionServersPolicyItSplitsAtTheKeySamplesGroupBoundary) {
  Fixture f;
  for (int g = 0; g < 10; ++g) {
    for (int r = 0; r < 5; ++r) f.source.sample.push_back("2g" + std::to_string(g) + "|" + "r");
  }
  f.watcher.SetTables(Watch("default:t", KeySampleSettings()));
  f.HotFor(15);
  EXPECT_EQ(f.source.sampled, std::vector<std::string>{"default:t [2, 3)"});
  ASSERT_EQ(f.source.split_at.size(), 1u);
  EXPECT_EQ(f.source.split_at[0].first, "r2");
  EXPECT_EQ(f.source.split_at[0].second, "2g5|");  // 25 sampled keys on each side
  EXPECT_TRUE(f.source.split_requests.empty()) << "never a split without a point";
  // The first decision is the split (later polls report the cool-down).
  const SplitDecision& decision = f.watcher.snapshot().decisions.at("default:t").front();
  EXPECT_EQ(decision.action, SplitDecision::Action::kSplit);
  EXPECT_EQ(decision.split_key, "2g5|");
  EXPECT_EQ(decision.end_key, "3");
}

TEST(LoadWatcher, AKeySampleOfOneGroupHasNoPointAndTheRegionIsLeftAlone) {
  Fixture f;
  f.source.sample.assign(50, "2hot|key");
  f.watcher.SetTables(Watch("default:t", KeySampleSettings()));
  f.HotFor(15);
  f.HotFor(30);
  EXPECT_EQ(f.source.sampled.size(), 1u) << "not sampled again while unsplittable";
  EXPECT_TRUE(f.source.split_at.empty());
  const LoadSnapshot snapshot = f.watcher.snapshot();
  EXPECT_EQ(snapshot.skips_total.at("no_split_point"), 1);
  EXPECT_EQ(snapshot.decisions.at("default:t").front().reason, "no_split_point");
}

TEST(LoadWatcher, NoSplitRequestWithoutTheLease) {
  FakeLoadSource source;
  int64_t now = 0;
  bool lease = false;
  LoadWatcherOptions options;
  options.may_act = [&lease] { return lease; };
  LoadWatcher watcher(source, options, [&now] { return now; });
  watcher.SetTables(Watch("default:t", Settings(/*dry_run=*/false)));
  for (int i = 0; i < 5; ++i) {
    source.Advance(3, {500, 500, 9000, 500});
    now = source.time_ms;
    ASSERT_TRUE(watcher.Poll().ok());
  }
  EXPECT_TRUE(source.split_requests.empty());
  EXPECT_EQ(watcher.snapshot().decisions.at("default:t").front().reason, "not_leader");
}

TEST(LoadWatcher, TheLeaseIsCheckedAfterTheKeySampleRightBeforeTheSplit) {
  FakeLoadSource source;
  for (int g = 0; g < 10; ++g) {
    for (int r = 0; r < 5; ++r) source.sample.push_back("2g" + std::to_string(g) + "|r");
  }
  int64_t now = 0;
  bool lease = true;
  int checks = 0;
  LoadWatcherOptions options;
  options.may_act = [&] {
    ++checks;
    return lease;
  };
  // Deposed while the hot region's rows are read: the point is computed, the split never asked.
  source.on_sample = [&] {
    EXPECT_EQ(checks, 0) << "no lease check before the sample: it would be stale by the split";
    lease = false;
  };
  LoadWatcher watcher(source, options, [&now] { return now; });
  watcher.SetTables(Watch("default:t", KeySampleSettings()));
  for (int i = 0; i < 5; ++i) {
    source.Advance(3, {500, 500, 9000, 500});
    now = source.time_ms;
    ASSERT_TRUE(watcher.Poll().ok());
  }
  EXPECT_EQ(source.sampled.size(), 1u);
  EXPECT_EQ(checks, 1);
  EXPECT_TRUE(source.split_at.empty());
  EXPECT_TRUE(source.split_requests.empty());
  const SplitDecision& decision = watcher.snapshot().decisions.at("default:t").front();
  EXPECT_EQ(decision.action, SplitDecision::Action::kSkip);
  EXPECT_EQ(decision.reason, "not_leader");
}

// The generations of one document, default:t, as its status names them.
TableConfig Document() {
  auto config = ParseTableConfig(R"({"version": 1, "table": "default:t",
    "layout": {"group": {"delimiter": "|"}}, "split": {"algorithm": "uniform", "regions": 4},
    "split_policy": {"load_balanced": true},
    "load_split": {"dry_run": false, "min_requests_per_s": 1000, "mean_multiple": 2,
                   "sustain_s": 9, "max_regions": 16, "cooldown_s": 600},
    "families": [{"name": "f"}]})");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return *config;
}

// The status of default:t after a migration's switch to default:t__g2 (catch-up running).
nlohmann::json SwitchedStatus() {
  return nlohmann::json::parse(R"({"table": "default:t", "phase": "ready",
    "physical_table": "default:t__g2", "generation": 2,
    "migration": {"phase": "catching_up", "target": "default:t__g2", "target_generation": 2,
                  "previous": {"physical_table": "default:t", "generation": 1}}})");
}

// The status while the copy into default:t__g2 runs.
nlohmann::json CopyingStatus() {
  return nlohmann::json::parse(R"({"table": "default:t", "phase": "drift",
    "physical_table": "default:t", "generation": 1,
    "migration": {"phase": "copying", "target": "default:t__g2", "target_generation": 2}})");
}

struct Generations {
  FakeLoadSource source;
  int64_t now = 0;
  LoadWatcher watcher{source, LoadWatcherOptions{}, [this] { return now; }};

  // Polls every 3 s for `seconds`: default:t's regions calm, default:t__g2's g2 hot.
  void TargetHotFor(int seconds) {
    for (int t = 0; t < seconds; t += 3) {
      source.Advance(3, {500, 500, 500, 500});
      source.Report("default:t__g2", "g", {500, 500, 9000, 500});
      now = source.time_ms;
      ASSERT_TRUE(watcher.Poll().ok());
    }
  }
  const TableLoad* Load(const std::string& physical) {
    snapshot = watcher.snapshot();
    for (const auto& t : snapshot.tables) {
      if (t.physical_table == physical) return &t;
    }
    return nullptr;
  }
  LoadSnapshot snapshot;
};

TEST(LoadWatcher, WatchesAndSplitsThePhysicalTableTheStatusNames) {
  Generations g;
  g.watcher.SetTables(WatchedTablesOf(Document(), SwitchedStatus()));
  g.TargetHotFor(15);
  // The document keeps its name; its regions are the new generation's.
  EXPECT_EQ(g.source.asked, std::vector<std::string>{"default:t__g2"});
  EXPECT_EQ(g.source.split_requests, std::vector<std::string>{"g2"});
  const TableLoad* load = g.Load("default:t__g2");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->table, "default:t");
  EXPECT_EQ(load->generation, 2);
  EXPECT_EQ(load->region_count, 4);
  EXPECT_TRUE(load->split_hold.empty());
  const SplitDecision& decision = g.snapshot.decisions.at("default:t").front();
  EXPECT_EQ(decision.action, SplitDecision::Action::kSplit);
  EXPECT_EQ(decision.table, "default:t");
  EXPECT_EQ(decision.physical_table, "default:t__g2");
}

TEST(LoadWatcher, AMigrationsTargetIsWatchedButNotSplitWhileTheCopyRuns) {
  Generations g;
  g.watcher.SetTables(WatchedTablesOf(Document(), CopyingStatus()));
  g.TargetHotFor(30);
  EXPECT_EQ(g.source.asked, (std::vector<std::string>{"default:t", "default:t__g2"}));
  EXPECT_TRUE(g.source.split_requests.empty()) << "the target's load is the copy's";
  const TableLoad* target = g.Load("default:t__g2");
  ASSERT_NE(target, nullptr);
  EXPECT_TRUE(target->migration_target);
  EXPECT_EQ(target->table, "default:t");
  EXPECT_EQ(target->hot_regions, 1);
  EXPECT_NE(target->split_hold.find("migration under way"), std::string::npos)
      << target->split_hold;
  const TableLoad* serving = g.Load("default:t");
  ASSERT_NE(serving, nullptr);
  EXPECT_FALSE(serving->migration_target);
  EXPECT_EQ(serving->migration_target_table, "default:t__g2");
  EXPECT_TRUE(serving->split_hold.empty()) << "the source serves the load: its splits go on";
  // Said once, as a decision about the target's hot region.
  const auto& decisions = g.snapshot.decisions.at("default:t");
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].physical_table, "default:t__g2");
  EXPECT_EQ(decisions[0].reason, kMigrationUnderWay);
  EXPECT_EQ(g.snapshot.skips_total.at(kMigrationUnderWay), 1);
}

TEST(LoadWatcher, TheNewPhysicalTableIsSplitOnceTheMigrationSwitched) {
  Generations g;
  g.watcher.SetTables(WatchedTablesOf(Document(), CopyingStatus()));
  g.TargetHotFor(15);
  ASSERT_TRUE(g.source.split_requests.empty());
  // The status now names default:t__g2 (the runner re-reads it after the switch).
  g.watcher.SetTables(WatchedTablesOf(Document(), SwitchedStatus()));
  g.TargetHotFor(3);
  EXPECT_EQ(g.source.split_requests, std::vector<std::string>{"g2"});
  EXPECT_EQ(g.source.asked, std::vector<std::string>{"default:t__g2"});
  const LoadSnapshot snapshot = g.watcher.snapshot();
  const auto& decisions = snapshot.decisions.at("default:t");
  EXPECT_EQ(decisions.back().action, SplitDecision::Action::kSplit);
  EXPECT_EQ(decisions.back().physical_table, "default:t__g2");
}

}  // namespace
}  // namespace presplit::daemon::watch
