// Migration plans, checkpoints and statuses nested too deep (valid JSON, 200,000 levels): refused
// with the reason before they are parsed, never a stack overflow in the migrator.
#include "daemon/migrate/migration_plan.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "daemon/migrate/migrator.h"
#include "daemon/migrate/plan_store.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/fake_migration_bridge.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

// {"":{"":...1}}, 4 bytes a level: 200,000 levels fit in a znode's 1 MiB.
std::string DeepObjects(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += R"({"":)";
  return s + "1" + std::string(depth, '}');
}

MigrationPlan APlan() {
  MigrationPlan plan;
  plan.table = plan.source = "ns:t";
  plan.target = GenerationTableName("ns:t", 2);
  plan.old_layout = R"({"salt":{"buckets":10}})";
  plan.new_layout = R"({"salt":{"buckets":16}})";
  plan.source_regions = {{"", ""}};
  return plan;
}

// The plan's own layouts, replaced by a value nested too deep: dumping them would recurse.
std::string PlanWithDeepLayout() {
  json plan = json::parse(PlanToJson(APlan()));
  plan["old_layout"] = json::object();
  std::string text = plan.dump();
  const std::string empty = R"("old_layout":{})";
  text.replace(text.find(empty), empty.size(), R"("old_layout":)" + DeepObjects(200000));
  return text;
}

TEST(MigrationPlanBounds, APlanNestedTooDeepIsRefusedWithTheReason) {
  ASSERT_TRUE(ParsePlan(PlanToJson(APlan())).ok());
  for (const std::string& text :
       {PlanWithDeepLayout(), std::string(200000, '[') + std::string(200000, ']')}) {
    auto parsed = ParsePlan(text);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message().rfind(
                  "the migration plan: JSON nested deeper than 64 levels (at byte offset ", 0),
              0u)
        << parsed.status().message();
  }
}

TEST(MigrationPlanBounds, ACheckpointNestedTooDeepIsRefusedWithTheReason) {
  RegionCheckpoint cp;
  cp.rows = 3;
  ASSERT_TRUE(ParseCheckpoint(CheckpointToJson(cp)).ok());
  auto parsed = ParseCheckpoint(R"({"rows":3,"x":)" + DeepObjects(200000) + "}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message().rfind(
                "a region checkpoint: JSON nested deeper than 64 levels (at byte offset ", 0),
            0u)
      << parsed.status().message();
}

class MigratorBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
    for (const char* path :
         {"/presplit", "/presplit/status", "/presplit/migrations", "/presplit/requests"}) {
      ASSERT_TRUE(zk_.Upsert(path, "").ok());
    }
    options_.zk_root = "/presplit";
    options_.daemon_id = "test:1";
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }

  testing::FakeZk zk_;
  testing::FakeAdmin admin_;
  testing::FakeMigrationBridge bridge_;
  MigratorOptions options_;
  std::ostringstream logged_;
  std::shared_ptr<spdlog::logger> previous_;
};

// A plan nested too deep is an error of that table's migration, logged with the reason on every
// run; the migrator and the other plans go on.
TEST_F(MigratorBoundsTest, APlanNestedTooDeepIsLoggedAndLeftAlone) {
  const std::string deep = PlanWithDeepLayout();
  ASSERT_TRUE(zk_.Upsert("/presplit/migrations/ns:t", deep).ok());
  Migrator migrator(zk_, admin_, bridge_, options_);
  EXPECT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_NE(logged_.str().find("migration ns:t: cannot read the plan: INVALID_ARGUMENT: the "
                               "migration plan: JSON nested deeper than 64 levels"),
            std::string::npos)
      << logged_.str();
  EXPECT_EQ(zk_.nodes.at("/presplit/migrations/ns:t").data, deep);
  EXPECT_EQ(admin_.creates, 0);
  EXPECT_EQ(migrator.counters().exceptions_caught, 0u);
}

// A plan is acted on only when the table's status (the daemon's own record) names its source or
// target: a status nested too deep is read as no status, so the plan is refused with the reason,
// nothing is done (no drop, no peer), and the status is left for the reconciler to replace.
TEST_F(MigratorBoundsTest, AStatusNestedTooDeepStopsTheMigrationWithTheReason) {
  MigrationPlan plan = APlan();
  ASSERT_TRUE(zk_.Upsert("/presplit/migrations/ns:t", PlanToJson(plan)).ok());
  ASSERT_TRUE(zk_.Upsert("/presplit/requests/ns:t", R"({"request":"abort"})").ok());
  const std::string deep = R"({"physical_table":"ns:t","migration":)" + DeepObjects(200000) + "}";
  ASSERT_TRUE(zk_.Upsert("/presplit/status/ns:t", deep).ok());
  Migrator migrator(zk_, admin_, bridge_, options_);
  Status ran = migrator.RunOnceAndWait();
  EXPECT_TRUE(ran.ok()) << ran.ToString();
  EXPECT_NE(logged_.str().find("plan refused, nothing done with it: the plan is not one this "
                               "daemon would have written: the table has no status"),
            std::string::npos)
      << logged_.str();
  EXPECT_TRUE(zk_.Get("/presplit/requests/ns:t", false).ok()) << "the abort is not acted on";
  EXPECT_TRUE(admin_.deleted.empty());
  EXPECT_TRUE(bridge_.peers_ever.empty());
  EXPECT_EQ(zk_.nodes.at("/presplit/status/ns:t").data, deep);
  EXPECT_EQ(migrator.counters().exceptions_caught, 0u);
}

// A plan's size: 10,000 regions with 100-byte keys make about 3 MB of JSON. Its per-region
// fields go to parts beside the plan (plan_store.h): the plan's znode stays small, reads give the
// whole plan back, and the parts no plan names are removed.
MigrationPlan PlanOfRegions(int count, size_t key_bytes = 100) {
  MigrationPlan plan = APlan();
  plan.source_regions.clear();
  for (int i = 0; i < count; ++i) {
    char suffix[16];
    std::snprintf(suffix, sizeof(suffix), "%08d", i);
    const std::string start = i == 0 ? "" : std::string(key_bytes - 8, 'k') + suffix;
    if (i > 0) plan.source_regions.back().end = start;
    plan.source_regions.push_back(SourceRegion{start, ""});
  }
  return plan;
}

std::vector<std::string> Parts(testing::FakeZk& zk) {
  auto children = zk.GetChildren("/presplit/migration-parts/ns:t", false);
  return children.ok() ? *children : std::vector<std::string>{};
}

// Smaller limits than a deployment's (64 KiB inline, 512 KiB chunks): the same code on less data.
constexpr PlanPartLimits kTestParts{16 * 1024, 64 * 1024, 16};

TEST(PlanSize, TenThousandRegionsKeepThePlanZnodeSmall) {
  MigrationPlan plan = PlanOfRegions(10000, 20);
  const size_t bytes = PlanToJson(plan).size();
  EXPECT_GT(bytes, 8 * kTestParts.chunk_bytes);

  testing::FakeZk zk;
  PlanStore store(zk, "/presplit", OpenAcls());
  store.set_part_limits(kTestParts);
  ASSERT_TRUE(store.Prepare().ok());
  ASSERT_TRUE(store.Create(plan).ok());
  const std::string znode = zk.Get("/presplit/migrations/ns:t", false)->data;
  EXPECT_LT(znode.size(), 8u * 1024) << "the plan's znode does not grow with the regions";
  EXPECT_NE(znode.find("\"parts\""), std::string::npos);
  const auto written = Parts(zk);
  EXPECT_EQ(written.size(), (bytes - znode.size()) / kTestParts.chunk_bytes + 1);

  auto read = store.Read("ns:t");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->plan.source_regions, plan.source_regions);
  EXPECT_EQ(PlanToJson(read->plan), PlanToJson(plan));

  // The fence records a close per region: it goes to parts too. The regions' chunks stay (the
  // same field, the same names); nothing is written twice.
  for (int i = 0; i < 10000; ++i) {
    read->plan.capture.closed_before["0123456789abcdef0123456789a" + std::to_string(10000 + i)] =
        1'700'000'000'000 + i;
  }
  zk.write_log.clear();
  ASSERT_TRUE(store.CompareAndSet(*read).ok());
  EXPECT_LT(zk.Get("/presplit/migrations/ns:t", false)->data.size(), 8u * 1024);
  for (const auto& [session, path] : zk.write_log) {
    for (const auto& chunk : written) {
      EXPECT_NE(path, "/presplit/migration-parts/ns:t/" + chunk) << "written again";
    }
  }
  auto again = store.Read("ns:t");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->plan.capture.closed_before, read->plan.capture.closed_before);
  EXPECT_EQ(again->plan.source_regions, plan.source_regions);
  const size_t with_closes = Parts(zk).size();
  EXPECT_GT(with_closes, written.size());

  // The closes cleared (the fence over): their chunks go, the regions' stay.
  again->plan.capture.closed_before.clear();
  ASSERT_TRUE(store.CompareAndSet(*again).ok());
  auto remaining = Parts(zk);
  std::sort(remaining.begin(), remaining.end());
  auto expected = written;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(remaining, expected);

  // Removed with the plan.
  ASSERT_TRUE(store.Remove("ns:t").ok());
  EXPECT_FALSE(zk.Get("/presplit/migration-parts/ns:t", false).ok());
  EXPECT_FALSE(zk.Get("/presplit/migrations/ns:t", false).ok());
}

TEST(PlanSize, APartThatDoesNotMatchItsDigestIsRefusedOnRead) {
  testing::FakeZk zk;
  PlanStore store(zk, "/presplit", OpenAcls());
  store.set_part_limits(kTestParts);
  ASSERT_TRUE(store.Prepare().ok());
  ASSERT_TRUE(store.Create(PlanOfRegions(400)).ok());
  const auto parts = Parts(zk);
  ASSERT_FALSE(parts.empty());
  const std::string chunk = "/presplit/migration-parts/ns:t/" + parts.front();
  std::string data = zk.Get(chunk, false)->data;
  data[10] = data[10] == 'k' ? 'j' : 'k';
  ASSERT_TRUE(zk.Set(chunk, data, -1).ok());
  auto read = store.Read("ns:t");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("does not match its MD5 and size"), std::string::npos)
      << read.status().message();
  ASSERT_TRUE(zk.Delete(chunk, -1).ok());
  read = store.Read("ns:t");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound) << read.status().message();
  EXPECT_NE(read.status().message().find("reading the migration plan's part source_regions"),
            std::string::npos);
}

// Past what its parts may hold (max_chunks chunks of one field), a plan is refused, naming its
// size, and nothing is written; a compare-and-set leaves the last plan written.
TEST(PlanSize, APlanTooLargeForItsPartsIsRefusedAndNothingIsWritten) {
  MigrationPlan plan = PlanOfRegions(500, 1000);
  testing::FakeZk zk;
  PlanStore store(zk, "/presplit", OpenAcls());
  store.set_part_limits(kTestParts);
  ASSERT_TRUE(store.Prepare().ok());
  zk.write_log.clear();
  Status created = store.Create(plan);
  EXPECT_EQ(created.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(created.message().find("bytes of source_regions, more than the " +
                                   std::to_string(kTestParts.max_chunks * kTestParts.chunk_bytes) +
                                   " its parts may hold: not written (500 source regions)"),
            std::string::npos)
      << created.message();
  EXPECT_TRUE(zk.write_log.empty());
  EXPECT_FALSE(zk.Get("/presplit/migrations/ns:t", false).ok());

  MigrationPlan small = APlan();
  ASSERT_TRUE(store.Create(small).ok());
  auto node = store.Read("ns:t");
  ASSERT_TRUE(node.ok());
  const std::string written = zk.Get("/presplit/migrations/ns:t", false)->data;
  node->plan.source_regions = plan.source_regions;
  EXPECT_EQ(store.CompareAndSet(*node).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(zk.Get("/presplit/migrations/ns:t", false)->data, written);
}

}  // namespace
}  // namespace presplit::daemon::migrate
