#include "daemon/watch/status_publisher.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/daemon/fakes.h"

namespace presplit::daemon::watch {
namespace {

using nlohmann::json;
using testing::FakeZk;

constexpr const char* kStatus = "/presplit/status/default:t";

SplitDecision Decision(int64_t time_ms, const std::string& reason) {
  SplitDecision d;
  d.time_ms = time_ms;
  d.table = "default:t";
  d.region = "r2";
  d.start_key = "2";
  d.requests_per_s = 9000;
  d.table_mean_per_s = 2600;
  d.action = reason.empty() ? SplitDecision::Action::kSplit : SplitDecision::Action::kSkip;
  d.reason = reason;
  return d;
}

struct PublisherFixture {
  PublisherFixture() {
    EXPECT_TRUE(zk.Upsert("/presplit", "").ok());
    EXPECT_TRUE(zk.Upsert("/presplit/status", "").ok());
    EXPECT_TRUE(
        zk.Upsert(kStatus, R"({"table": "default:t", "phase": "ready", "regions": 4})").ok());
    TableLoad load;
    load.table = "default:t";
    load.region_count = 4;
    load.total_size_bytes = 1000;
    snapshot.tables.push_back(load);
    snapshot.polled_at_ms = 1;
  }
  json Status() { return json::parse(zk.nodes.at(kStatus).data); }

  FakeZk zk;
  LoadSnapshot snapshot;
  StatusPublisher publisher{zk, StatusPublisherOptions{"/presplit/status"}};
};

TEST(StatusPublisher, AddsTheDecisionsAndKeepsTheRestOfTheStatus) {
  PublisherFixture f;
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 1000).written, 1);
  json status = f.Status();
  EXPECT_EQ(status["phase"], "ready");
  EXPECT_EQ(status["regions"], 4);
  ASSERT_EQ(status["load"]["decisions"].size(), 1u);
  EXPECT_EQ(status["load"]["decisions"][0]["reason"], "dry_run");
  EXPECT_EQ(status["load"]["decisions"][0]["requests_per_s"], 9000.0);
  EXPECT_EQ(status["load"]["decisions"][0]["table_mean_per_s"], 2600.0);
  ASSERT_EQ(status["load"]["size_history"].size(), 1u);
  EXPECT_EQ(status["load"]["size_history"][0]["size_bytes"], 1000);
}

TEST(StatusPublisher, WritesOnlyWhenTheDecisionsChangeOrASizeSampleIsDue) {
  PublisherFixture f;
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  ASSERT_EQ(f.publisher.Publish(f.snapshot, 1000).written, 1);
  const int writes = f.zk.writes;
  for (int64_t t = 2000; t < 60'000; t += 2000) {
    EXPECT_EQ(f.publisher.Publish(f.snapshot, t).written, 0);
  }
  EXPECT_EQ(f.zk.writes, writes) << "no znode write per poll";
  f.snapshot.decisions["default:t"].push_back(Decision(61'000, ""));
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 61'000).written, 1);
  EXPECT_EQ(f.Status()["load"]["decisions"].size(), 2u);
  EXPECT_EQ(f.Status()["load"]["decisions"][1]["action"], "split");
  // An hour later a size sample is due, with no new decision.
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 1000 + 3'600'000).written, 1);
  EXPECT_EQ(f.Status()["load"]["size_history"].size(), 2u);
}

TEST(StatusPublisher, AConflictingWriteIsMergedNeverOverwritten) {
  PublisherFixture f;
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  // The reconciler rewrites the status between the publisher's read and its write.
  bool raced = false;
  f.zk.before_write = [&](const std::string& path) {
    if (raced || path != kStatus) return;
    raced = true;
    ASSERT_TRUE(
        f.zk.Set(kStatus, R"({"table": "default:t", "phase": "drift", "regions": 5})", -1).ok());
  };
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 1000).written, 1);
  json status = f.Status();
  EXPECT_EQ(status["phase"], "drift") << "the newer status stays";
  EXPECT_EQ(status["regions"], 5);
  EXPECT_EQ(status["load"]["decisions"].size(), 1u);
}

TEST(StatusPublisher, AppendsToTheDecisionsOfAnEarlierLeaderUpToTheLimit) {
  PublisherFixture f;
  json earlier = f.Status();
  earlier["load"]["decisions"] = json::array();
  for (int i = 0; i < 3; ++i) {
    earlier["load"]["decisions"].push_back(
        {{"time_ms", 100 + i}, {"region", "old"}, {"action", "skip"}, {"reason", "cooldown"}});
  }
  ASSERT_TRUE(f.zk.Set(kStatus, earlier.dump(), -1).ok());
  StatusPublisherOptions options{"/presplit/status"};
  options.decisions_kept = 4;
  StatusPublisher publisher(f.zk, options);
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  f.snapshot.decisions["default:t"].push_back(Decision(2000, ""));
  ASSERT_EQ(publisher.Publish(f.snapshot, 2000).written, 1);
  const json decisions = f.Status()["load"]["decisions"];
  ASSERT_EQ(decisions.size(), 4u);
  EXPECT_EQ(decisions[0]["time_ms"], 101) << "the oldest one dropped";
  EXPECT_EQ(decisions[2]["reason"], "dry_run");
  EXPECT_EQ(decisions[3]["action"], "split");
}

TEST(StatusPublisher, NothingWithoutAStatusOrWithoutTheLease) {
  PublisherFixture f;
  f.zk.nodes.erase(kStatus);
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 1000).written, 0);
  EXPECT_FALSE(f.zk.nodes.count(kStatus)) << "the reconciler creates statuses, not the watcher";

  ASSERT_TRUE(f.zk.Upsert(kStatus, R"({"phase": "ready"})").ok());
  StatusPublisherOptions options{"/presplit/status"};
  options.may_act = [] { return false; };
  StatusPublisher deposed(f.zk, options);
  PublishResult result = deposed.Publish(f.snapshot, 1000);
  EXPECT_EQ(result.written, 0);
  EXPECT_EQ(result.failed, 1);
  EXPECT_FALSE(f.Status().contains("load"));
}

TEST(StatusPublisher, AStatusThatIsNotJsonIsLeftAlone) {
  PublisherFixture f;
  ASSERT_TRUE(f.zk.Set(kStatus, "not json", -1).ok());
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 1000).failed, 1);
  EXPECT_EQ(f.zk.nodes.at(kStatus).data, "not json");
}

// A status nested 200,000 deep (valid JSON) is not parsed: copying its "load" would overflow the
// stack. Left for the reconciler to replace, with the reason in the log.
TEST(StatusPublisher, AStatusNestedTooDeepIsLeftAloneAndTheReasonLogged) {
  std::ostringstream logged;
  auto previous = spdlog::default_logger();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  PublisherFixture f;
  std::string deep = R"({"table": "default:t", "phase": "ready", "load": )";
  for (int i = 0; i < 200000; ++i) deep += R"({"":)";
  deep += "[]" + std::string(200000, '}') + "}";
  ASSERT_TRUE(f.zk.Set(kStatus, deep, -1).ok());
  f.snapshot.decisions["default:t"].push_back(Decision(1000, "dry_run"));
  const PublishResult result = f.publisher.Publish(f.snapshot, 1000);
  spdlog::set_default_logger(previous);
  EXPECT_EQ(result.failed, 1);
  EXPECT_EQ(result.written, 0);
  EXPECT_EQ(f.zk.nodes.at(kStatus).data, deep);
  EXPECT_NE(logged.str().find("the status cannot be read (JSON nested deeper than 64 levels"),
            std::string::npos)
      << logged.str();
}

TEST(StatusPublisher, SaysWhichPhysicalTableIsWatchedAndWhySplitsAreHeld) {
  PublisherFixture f;
  // A migration copies into default:t__g2: the source serves, the target is held.
  TableLoad target = f.snapshot.tables[0];
  target.physical_table = "default:t__g2";
  target.generation = 2;
  target.migration_target = true;
  target.split_hold = "migration under way: default:t__g2 is its target";
  f.snapshot.tables[0].migration_target_table = "default:t__g2";
  f.snapshot.tables.push_back(target);
  SplitDecision held = Decision(1000, "migration_under_way");
  held.physical_table = "default:t__g2";
  f.snapshot.decisions["default:t"].push_back(held);
  ASSERT_EQ(f.publisher.Publish(f.snapshot, 1000).written, 1);
  json load = f.Status()["load"];
  EXPECT_EQ(load["physical_table"], "default:t");
  EXPECT_EQ(load["split_hold"], "migration under way: default:t__g2 is its target");
  EXPECT_EQ(load["decisions"][0]["physical_table"], "default:t__g2");
  EXPECT_EQ(load["decisions"][0]["reason"], "migration_under_way");
  ASSERT_EQ(load["size_history"].size(), 1u);
  EXPECT_EQ(load["size_history"][0]["size_bytes"], 1000) << "the serving table's size";
  EXPECT_EQ(f.publisher.Publish(f.snapshot, 2000).written, 0) << "nothing changed";

  // The switch: the target is the physical table now, and nothing is held.
  LoadSnapshot switched = f.snapshot;
  switched.tables = {target};
  switched.tables[0].migration_target = false;
  switched.tables[0].split_hold.clear();
  EXPECT_EQ(f.publisher.Publish(switched, 3000).written, 1);
  load = f.Status()["load"];
  EXPECT_EQ(load["physical_table"], "default:t__g2");
  EXPECT_TRUE(load["split_hold"].is_null());
  EXPECT_EQ(load["decisions"].size(), 1u) << "the decisions stay";
  EXPECT_EQ(f.publisher.Publish(switched, 4000).written, 0);
}

}  // namespace
}  // namespace presplit::daemon::watch
