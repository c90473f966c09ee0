// AbortPhase on its own, over a context of fakes: the peers removed first, the bulk copy killed
// and its staging removed, the target dropped only when it carries this plan's marker, the
// source unguarded, the outcome in the status before the plan goes; a write pause under way
// lifted first; the daemon's own reason kept; a status write that fails keeps the plan.
#include "daemon/migrate/phase_abort.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kStays = "tinawang:check";
constexpr const char* kDropped = "tinawang:check__g2";

class AbortPhaseTest : public ::testing::Test {
 protected:
  AbortPhaseTest() : f_(testing::PhaseTestOptions()), phase_(f_.context) {
    node_.plan = f_.TwoGenerations(Phase::kCopying);
    // Created by presplit for this plan: it carries the plan's marker.
    auto& attributes = f_.admin.tables[kDropped].attributes;
    attributes[FakeMigrationBridge::kMarkerSource] = kStays;
    attributes[FakeMigrationBridge::kMarkerPlan] = node_.plan.plan_id;
    f_.bridge.guards[kStays] = FakeMigrationBridge::Guard{};  // on while the capture runs
  }
  MigrationPlan& plan() { return node_.plan; }

  FakePhaseContext f_;
  AbortPhase phase_;
  PlanNode node_;
};

TEST_F(AbortPhaseTest, AnAbortRemovesThePeersTheTargetAndTheGuardAndSaysSoBeforeThePlanGoes) {
  ASSERT_FALSE(f_.bridge.WriteSkippingWal(kStays, "1a"));  // the guard refuses now

  EXPECT_EQ(phase_.Abort(node_, ""), Step::kWaiting);

  EXPECT_TRUE(f_.bridge.peers.empty());
  EXPECT_EQ(f_.bulk_aborts, std::vector<std::string>{kDropped});
  EXPECT_EQ(f_.staging_cleanups, std::vector<std::string>{"tinawang:check__g2: abort"});
  EXPECT_EQ(f_.admin.deleted.count(kDropped), 1u);
  EXPECT_EQ(f_.admin.tables.count(kStays), 1u);           // the source's data never touched
  EXPECT_TRUE(f_.bridge.WriteSkippingWal(kStays, "1a"));  // nothing captures it: dormant
  EXPECT_EQ(f_.status.published, std::vector<std::string>{"aborted"});
  EXPECT_EQ(f_.record.removed, std::vector<std::string>{kStays});
  EXPECT_EQ(f_.status.forgotten, std::vector<std::string>{kStays});
  EXPECT_TRUE(plan().error.empty());  // an operator's abort leaves no error
  EXPECT_EQ(f_.counters.aborted.load(), 1u);
}

TEST_F(AbortPhaseTest, ATableOfTheTargetsNameWithoutThisPlansMarkerIsLeftAlone) {
  f_.admin.tables[kDropped].attributes.clear();  // someone else's, or a replayed plan names it
  EXPECT_EQ(phase_.Abort(node_, ""), Step::kWaiting);
  EXPECT_EQ(f_.admin.deleted.count(kDropped), 0u);
  EXPECT_EQ(f_.admin.tables.count(kDropped), 1u);
  EXPECT_EQ(f_.record.removed, std::vector<std::string>{kStays});  // the plan goes all the same
}

TEST_F(AbortPhaseTest, AWritePauseUnderWayIsLiftedFirstAndTheDaemonsReasonKept) {
  plan().phase = Phase::kSwitching;
  ASSERT_TRUE(f_.bridge.SetReadOnly(kStays, true).ok());
  plan().writes_paused_until_ms = f_.control.now_ms + 2000;
  plan().paused_table = kStays;

  EXPECT_EQ(phase_.Abort(node_, "its document was removed"), Step::kWaiting);

  EXPECT_TRUE(f_.bridge.read_only.empty());
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(plan().error, "its document was removed");
  EXPECT_EQ(f_.status.published, std::vector<std::string>{"aborted"});
}

TEST_F(AbortPhaseTest, AStatusThatCannotSayAbortedKeepsThePlanForTheNextRun) {
  // The reconciler must see "aborted" before the plan goes, or it would start the same
  // migration again.
  f_.status.publish_error = Status::FailedPrecondition("status kept changing");
  EXPECT_EQ(phase_.Abort(node_, ""), Step::kWaiting);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_NE(f_.record.failures[0].find("abort: recording it in the status: status kept changing"),
            std::string::npos);
  EXPECT_TRUE(f_.record.removed.empty());

  // Said, but the plan cannot be removed now: tried again, nothing forgotten or counted.
  f_.status.publish_error = Status::Ok();
  f_.record.remove_error = Status::Unavailable("ZooKeeper is away");
  EXPECT_EQ(phase_.Abort(node_, ""), Step::kWaiting);
  ASSERT_EQ(f_.record.failures.size(), 2u);
  EXPECT_NE(f_.record.failures[1].find("abort: removing the plan: ZooKeeper is away"),
            std::string::npos);
  EXPECT_TRUE(f_.status.forgotten.empty());
  EXPECT_EQ(f_.counters.aborted.load(), 0u);
}

TEST_F(AbortPhaseTest, WithoutTheLeaseNothingIsRemoved) {
  f_.control.lease = false;
  EXPECT_EQ(phase_.Abort(node_, ""), Step::kStopped);
  EXPECT_EQ(f_.bridge.peers.size(), 1u);
  EXPECT_TRUE(f_.admin.deleted.empty());
  EXPECT_TRUE(f_.record.removed.empty());
}

}  // namespace
}  // namespace presplit::daemon::migrate
