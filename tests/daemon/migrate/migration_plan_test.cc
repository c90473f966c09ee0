// Migration plans, checkpoints and statuses nested too deep (valid JSON, 200,000 levels): refused
// with the reason before they are parsed, never a stack overflow in the migrator.
#include "daemon/migrate/migration_plan.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

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

// A plan's size: the verification report is bounded (see the migrator's tests), but the source
// regions are not. 10,000 regions with 100-byte keys make a plan of about 3 MB: PlanStore refuses
// to write it, naming its size, and nothing is written (ZooKeeper would drop the connection).
TEST(PlanSize, APlanTooLargeForItsZnodeIsRefusedAndNothingIsWritten) {
  MigrationPlan plan = APlan();
  plan.source_regions.clear();
  std::string previous;
  for (int i = 0; i < 10000; ++i) {
    char suffix[16];
    std::snprintf(suffix, sizeof(suffix), "%08d", i);
    const std::string start = i == 0 ? "" : std::string(92, 'k') + suffix;
    plan.source_regions.push_back(SourceRegion{previous, start});
    previous = start;
  }
  plan.source_regions.front().start = "";
  const size_t bytes = PlanToJson(plan).size();
  std::printf("a plan of 10,000 regions with 100-byte keys: %zu bytes\n", bytes);
  EXPECT_GT(bytes, kMaxPlanBytes);

  testing::FakeZk zk;
  PlanStore store(zk, "/presplit", OpenAcls());
  ASSERT_TRUE(store.Prepare().ok());
  zk.write_log.clear();
  Status created = store.Create(plan);
  EXPECT_EQ(created.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(created.message().find("the plan of ns:t would be " + std::to_string(bytes) +
                                   " bytes, more than the " + std::to_string(kMaxPlanBytes)),
            std::string::npos)
      << created.message();
  EXPECT_NE(created.message().find("10000 source regions"), std::string::npos);
  EXPECT_TRUE(zk.write_log.empty());
  EXPECT_FALSE(zk.Get("/presplit/migrations/ns:t", false).ok());

  // One that fits is written; grown past the limit, its compare-and-set is refused the same way
  // and the znode keeps the last plan written.
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
