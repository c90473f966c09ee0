// RollbackPhase on its own (the rollback request and phase "rolling_back"), over a context of
// fakes: the new generation drained into the old one with writes paused before the status names
// the old one again, a drain that outlasts the pause, a rollback a stopped daemon left after its
// status write, and the new generation fenced, drained and dropped once writers had time to
// follow.
#include "daemon/migrate/phase_rollback.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kKept = "tinawang:check";
constexpr const char* kAbandoned = "tinawang:check__g2";
constexpr int kRequestVersion = 7;

class RollbackPhaseTest : public ::testing::Test {
 protected:
  RollbackPhaseTest() : f_(testing::PhaseTestOptions()), phase_(f_.context) {
    node_.plan = f_.TwoGenerations(Phase::kGrace);
    MigrationPlan& plan = node_.plan;
    plan.max_write_pause_ms = 2000;
    EXPECT_TRUE(f_.capture.EnsureCapture(plan, /*reverse=*/true).ok());
    f_.status.names_target = true;  // switched: the status names the new generation
    f_.bridge.guards[kKept] = FakeMigrationBridge::Guard{plan.plan_id, false};
    f_.options.rollback_settle = std::chrono::milliseconds(10000);
  }
  MigrationPlan& plan() { return node_.plan; }

  FakePhaseContext f_;
  RollbackPhase phase_;
  PlanNode node_;
};

TEST_F(RollbackPhaseTest, TheNewGenerationIsDrainedWithWritesPausedBeforeTheStatusMovesBack) {
  ASSERT_TRUE(f_.bridge.Write(kAbandoned, "1a"));  // taken by the new generation since the switch

  EXPECT_EQ(phase_.Rollback(node_, kRequestVersion), Step::kAdvanced);

  // The pause was saved (and published) before the new generation was touched.
  ASSERT_GE(f_.record.saved.size(), 2u);
  EXPECT_EQ(f_.record.saved[0].paused_table, kAbandoned);
  EXPECT_NE(f_.record.saved[0].writes_paused_until_ms, 0);
  // Drained: what the new generation took is in the old one before the status names it.
  EXPECT_EQ(f_.bridge.tables[kKept].count("1a"), 1u);
  EXPECT_EQ(f_.status.writes, std::vector<std::string>{"source:rolling_back"});
  EXPECT_EQ(plan().phase, Phase::kRollingBack);
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(plan().rolled_back_at_ms, f_.control.now_ms);
  EXPECT_NE(plan().capture.drained_ms, 0);
  // The new generation stays read-only: rolling_back drops it.
  EXPECT_EQ(f_.bridge.read_only.count(kAbandoned), 1u);
  EXPECT_EQ(f_.counters.rollbacks.load(), 1u);
  EXPECT_EQ(f_.record.requests_cleared,
            std::vector<std::string>{"tinawang:check@" + std::to_string(kRequestVersion)});
}

TEST_F(RollbackPhaseTest, ADrainThatOutlastsThePauseResumesWritesAndKeepsTheRequest) {
  f_.bridge.stalled_peers.insert(ReversePeerOf(kAbandoned));

  EXPECT_EQ(phase_.Rollback(node_, kRequestVersion), Step::kWaiting);

  EXPECT_TRUE(f_.status.writes.empty());
  EXPECT_TRUE(f_.bridge.read_only.empty());  // writes resumed on the new generation
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(plan().phase, Phase::kGrace);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_NE(f_.record.failures[0].find("the reverse capture had not shipped every write"),
            std::string::npos)
      << f_.record.failures[0];
  EXPECT_TRUE(f_.record.requests_cleared.empty());  // tried again on the next run
  EXPECT_EQ(f_.counters.rollbacks.load(), 0u);
}

TEST_F(RollbackPhaseTest, ARollbackWhoseStatusWriteHappenedOnlyMovesThePlan) {
  f_.status.names_target = false;  // a daemon stopped right after the status write
  EXPECT_EQ(phase_.Rollback(node_, kRequestVersion), Step::kAdvanced);
  EXPECT_TRUE(f_.status.writes.empty());
  EXPECT_EQ(f_.bridge.read_only_changes, 0);  // no second pause
  EXPECT_EQ(plan().phase, Phase::kRollingBack);
  EXPECT_EQ(f_.record.requests_cleared.size(), 1u);
}

TEST_F(RollbackPhaseTest, RollingBackWaitsForWritersThenDropsTheNewGeneration) {
  ASSERT_EQ(phase_.Rollback(node_, kRequestVersion), Step::kAdvanced);

  // Writers get rollback_settle to follow the status back.
  EXPECT_EQ(phase_.RollingBack(node_), Step::kWaiting);
  EXPECT_EQ(f_.bridge.peers.size(), 2u);
  EXPECT_EQ(f_.admin.deleted.count(kAbandoned), 0u);

  f_.control.now_ms += 10000;
  EXPECT_EQ(phase_.RollingBack(node_), Step::kWaiting);  // Finish: the plan is gone

  EXPECT_TRUE(f_.bridge.peers.empty());
  EXPECT_TRUE(f_.bridge.guards[kKept].plan.empty());  // the old generation is unguarded
  EXPECT_EQ(f_.admin.deleted.count(kAbandoned), 1u);
  EXPECT_EQ(f_.staging_cleanups, std::vector<std::string>{"tinawang:check__g2: rollback"});
  EXPECT_EQ(f_.record.finished,
            std::vector<std::string>{"rolled_back: rolled back: tinawang:check__g2 drained into "
                                     "tinawang:check and dropped"});
}

TEST_F(RollbackPhaseTest, ANewGenerationMadeWritableByHandIsDrainedAgainBeforeItIsDropped) {
  ASSERT_EQ(phase_.Rollback(node_, kRequestVersion), Step::kAdvanced);
  ASSERT_TRUE(f_.bridge.SetReadOnly(kAbandoned, false).ok());
  ASSERT_TRUE(f_.bridge.Write(kAbandoned, "3c"));  // a late writer of the new generation
  f_.bridge.stalled_peers.insert(ReversePeerOf(kAbandoned));
  f_.control.now_ms += 10000;

  EXPECT_EQ(phase_.RollingBack(node_), Step::kWaiting);
  EXPECT_NE(plan().error.find("has not shipped every region's last write"), std::string::npos)
      << plan().error;
  EXPECT_EQ(f_.admin.deleted.count(kAbandoned), 0u);

  f_.bridge.stalled_peers.clear();
  EXPECT_EQ(phase_.RollingBack(node_), Step::kWaiting);
  EXPECT_EQ(f_.bridge.tables[kKept].count("3c"), 1u);  // drained before the drop
  EXPECT_EQ(f_.admin.deleted.count(kAbandoned), 1u);
}

}  // namespace
}  // namespace presplit::daemon::migrate
