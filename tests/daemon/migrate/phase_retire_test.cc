// RetirePhase on its own ("grace", "fencing" and the end of "done"), over a context of fakes:
// the grace period's end, the fence's drain, the settling of the new generation, the final check
// before a drop (and the drop it refuses), a drain not done yet, an old generation already gone,
// a bulk load seen at the end of the grace period, and the lease lost.
#include "daemon/migrate/phase_retire.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kOld = "tinawang:check";
constexpr const char* kNew = "tinawang:check__g2";

class RetirePhaseTest : public ::testing::Test {
 protected:
  RetirePhaseTest() : f_(testing::PhaseTestOptions()), phase_(f_.context) {
    node_.plan = f_.TwoGenerations(Phase::kGrace);
    MigrationPlan& plan = node_.plan;
    plan.grace_until_ms = f_.control.now_ms + 60'000;
    EXPECT_TRUE(f_.capture.EnsureCapture(plan, /*reverse=*/true).ok());
    // The new generation is guarded by this plan and keeps deleted cells until it is settled.
    f_.bridge.guards[kNew] = FakeMigrationBridge::Guard{plan.plan_id, false};
    EXPECT_TRUE(f_.bridge.SetKeepDeletedCells(kNew, true).ok());
  }
  MigrationPlan& plan() { return node_.plan; }
  // Grace over: the plan moves to fencing.
  void EndGrace() {
    f_.control.now_ms = plan().grace_until_ms;
    ASSERT_EQ(phase_.Grace(node_), Step::kAdvanced);
    ASSERT_EQ(plan().phase, Phase::kFencing);
  }

  FakePhaseContext f_;
  RetirePhase phase_;
  PlanNode node_;
};

TEST_F(RetirePhaseTest, TheGracePeriodRunsOutThenTheFenceBegins) {
  EXPECT_EQ(phase_.Grace(node_), Step::kWaiting);
  EXPECT_EQ(plan().phase, Phase::kGrace);
  EXPECT_TRUE(f_.record.saved.empty());
  EXPECT_EQ(f_.status.snapshots, 1);

  EndGrace();
  EXPECT_EQ(plan().capture.fence_started_ms, f_.control.now_ms);
  ASSERT_EQ(f_.record.saved.size(), 1u);
  EXPECT_EQ(f_.record.saved[0].phase, Phase::kFencing);
  // Both peers still run: the fence removes them.
  EXPECT_EQ(f_.bridge.peers.size(), 2u);
}

TEST_F(RetirePhaseTest, TheFenceDrainsTheOldGenerationSettlesTheNewAndDisablesTheOld) {
  ASSERT_TRUE(f_.bridge.Write(kOld, "1a"));  // a late writer of the old generation
  EndGrace();

  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);  // Finish: the plan is gone

  EXPECT_EQ(f_.bridge.tables[kNew].count("1a"), 1u);
  EXPECT_EQ(f_.bridge.peers_removed,
            (std::vector<std::string>{ReversePeerOf(kNew), CapturePeerOf(kNew)}));
  EXPECT_TRUE(f_.bridge.peers.empty());
  EXPECT_EQ(f_.bridge.read_only.count(kOld), 1u);
  EXPECT_TRUE(f_.bridge.guards[kNew].plan.empty());  // settled: no guard
  EXPECT_EQ(f_.bridge.restored_keep_deleted,
            std::vector<std::string>{"tinawang:check__g2<-" + std::string(kOld)});
  EXPECT_EQ(f_.admin.disabled.count(kOld), 1u);
  EXPECT_TRUE(f_.admin.deleted.empty());
  EXPECT_EQ(f_.record.finished, std::vector<std::string>{"done: done: tinawang:check disabled"});
  EXPECT_EQ(f_.record.last_finished.phase, Phase::kDone);
  EXPECT_TRUE(f_.throttle_shown.empty());  // no drop: no final check, no throttle
}

TEST_F(RetirePhaseTest, WithDropOldTheFinalCheckRunsThrottledThenTheOldGenerationIsDropped) {
  plan().drop_old = true;
  ASSERT_TRUE(f_.bridge.Write(kOld, "1a"));
  EndGrace();
  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);
  EXPECT_EQ(f_.admin.deleted.count(kOld), 1u);
  EXPECT_EQ(f_.record.finished, std::vector<std::string>{"done: done: tinawang:check dropped"});
  EXPECT_EQ(f_.throttle_shown,
            (std::vector<std::string>{"tinawang:check: on", "tinawang:check: ended"}));
}

TEST_F(RetirePhaseTest, AFinalCheckThatFindsACellMissingKeepsTheOldGeneration) {
  plan().drop_old = true;
  ASSERT_TRUE(f_.bridge.Write(kOld, "1a"));
  EndGrace();
  f_.bridge.on_check_present = [&] { f_.bridge.Damage(kNew, "1a"); };
  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);
  EXPECT_TRUE(f_.admin.deleted.empty());
  EXPECT_EQ(f_.admin.disabled.count(kOld), 1u);
  ASSERT_EQ(f_.record.finished.size(), 1u);
  EXPECT_NE(f_.record.finished[0].find("NOT dropped: 3 of 3 cells missing in tinawang:check__g2 "
                                       "(first: 1a)"),
            std::string::npos)
      << f_.record.finished[0];
  EXPECT_NE(f_.record.last_finished.error.find("NOT dropped"), std::string::npos);
}

TEST_F(RetirePhaseTest, AFenceWhoseDrainIsNotDoneKeepsEverythingAndLooksAgain) {
  EndGrace();
  f_.bridge.stalled_peers.insert(CapturePeerOf(kNew));

  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);

  EXPECT_EQ(plan().phase, Phase::kFencing);
  EXPECT_NE(plan().error.find("has not shipped every region's last write"), std::string::npos)
      << plan().error;
  EXPECT_EQ(f_.bridge.peers.count(CapturePeerOf(kNew)), 1u);  // the forward peer stays
  EXPECT_EQ(f_.bridge.peers.count(ReversePeerOf(kNew)), 0u);  // no rollback from here on
  EXPECT_TRUE(f_.admin.disabled.empty());
  EXPECT_TRUE(f_.record.finished.empty());

  f_.bridge.stalled_peers.clear();
  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);
  EXPECT_EQ(f_.admin.disabled.count(kOld), 1u);
  EXPECT_EQ(f_.record.finished.size(), 1u);
}

TEST_F(RetirePhaseTest, AFenceThatFindsTheOldGenerationGoneEndsTheMigration) {
  EndGrace();
  // Dropped by this fence before a restart (or by hand).
  ASSERT_TRUE(f_.admin.DeleteTable(kOld).ok());

  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);

  EXPECT_TRUE(f_.bridge.peers.empty());
  EXPECT_TRUE(f_.bridge.guards[kNew].plan.empty());
  EXPECT_EQ(f_.record.finished, std::vector<std::string>{"done: done: tinawang:check dropped"});
}

TEST_F(RetirePhaseTest, ABulkLoadSeenAtTheEndOfTheGracePeriodStopsBeforeTheFence) {
  f_.bridge.guards.erase(kOld);  // removed by hand: the load gets past
  ASSERT_TRUE(f_.bridge.BulkLoad(kOld, "2x"));
  f_.control.now_ms = plan().grace_until_ms;

  EXPECT_EQ(phase_.Grace(node_), Step::kWaiting);

  EXPECT_EQ(f_.record.stops_for_bulk_loads, std::vector<int64_t>{1});
  EXPECT_EQ(plan().phase, Phase::kGrace);  // a rollback still keeps it
  EXPECT_EQ(f_.bridge.peers.size(), 2u);
}

TEST_F(RetirePhaseTest, WithoutTheLeaseTheFenceTouchesNothing) {
  EndGrace();
  f_.control.lease = false;
  EXPECT_EQ(phase_.Fence(node_), Step::kWaiting);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_NE(f_.record.failures[0].find("not the leader"), std::string::npos);
  EXPECT_EQ(f_.bridge.peers.size(), 2u);
  EXPECT_TRUE(f_.bridge.read_only.empty());
  EXPECT_TRUE(f_.admin.disabled.empty());
}

}  // namespace
}  // namespace presplit::daemon::migrate
