// SwitchPhase on its own ("switching" and "catching_up"), over a context of fakes: the bounded
// write pause, the drain, the deferred rows compared with writes paused, the one status write,
// an abandoned attempt and its retry, a request during the pause, a switch a stopped daemon left
// half done, and the catch-up into the grace period.
#include "daemon/migrate/phase_switch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kPaused = "tinawang:check";
constexpr const char* kSwitchedTo = "tinawang:check__g2";

class SwitchPhaseTest : public ::testing::Test {
 protected:
  SwitchPhaseTest() : f_(testing::PhaseTestOptions()), phase_(f_.context) {
    node_.plan = f_.TwoGenerations(Phase::kSwitching);
    node_.plan.max_write_pause_ms = 2000;
    node_.plan.grace_period_s = 60;
  }
  MigrationPlan& plan() { return node_.plan; }
  // The source is read-only now (the write pause's fence).
  bool SourceReadOnly() { return f_.bridge.read_only.count(kPaused) > 0; }

  FakePhaseContext f_;
  SwitchPhase phase_;
  PlanNode node_;
};

TEST_F(SwitchPhaseTest, ADrainWithinThePauseNamesTheTargetOnceAndEndsThePause) {
  ASSERT_TRUE(f_.bridge.Write(kPaused, "1a"));
  const int64_t start = f_.control.now_ms;

  EXPECT_EQ(phase_.Switch(node_), Step::kAdvanced);

  // The reverse peer first, saved before anything else: whoever resumes knows it exists.
  ASSERT_GE(f_.record.saved.size(), 3u);
  EXPECT_NE(f_.record.saved[0].capture.reverse_started_ms, 0);
  EXPECT_EQ(f_.record.saved[0].writes_paused_until_ms, 0);
  EXPECT_EQ(f_.bridge.peers.count(ReversePeerOf(kSwitchedTo)), 1u);
  // Then the pause, saved (and so published) before the source was touched.
  EXPECT_EQ(f_.record.saved[1].writes_paused_until_ms, start + 2000);
  EXPECT_EQ(f_.record.saved[1].paused_table, kPaused);
  EXPECT_EQ(f_.record.saved[1].switch_attempts, 1);
  // One status write names the target; the source was read-only during the pause and is
  // writable again; the write before the pause reached the target.
  EXPECT_EQ(f_.status.writes, std::vector<std::string>{"target:catching_up"});
  EXPECT_EQ(f_.bridge.read_only_changes, 2);
  EXPECT_FALSE(SourceReadOnly());
  EXPECT_EQ(f_.bridge.tables[kSwitchedTo].count("1a"), 1u);
  EXPECT_EQ(f_.bridge.settings_copies, 1);  // the grants and quotas copied again
  EXPECT_EQ(plan().phase, Phase::kCatchingUp);
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_TRUE(plan().paused_table.empty());
  EXPECT_EQ(plan().switched_at_ms, f_.control.now_ms);
  EXPECT_EQ(f_.counters.switches.load(), 1u);
  EXPECT_TRUE(f_.record.failures.empty());
}

TEST_F(SwitchPhaseTest, ADrainThatOutlastsThePauseIsAbandonedAndTriedAgainLater) {
  f_.bridge.stalled_peers.insert(plan().capture.peer);

  EXPECT_EQ(phase_.Switch(node_), Step::kWaiting);

  EXPECT_TRUE(f_.status.writes.empty());
  EXPECT_FALSE(SourceReadOnly());
  EXPECT_EQ(f_.bridge.read_only_changes, 2);  // fenced, then writable again
  EXPECT_EQ(plan().phase, Phase::kSwitching);
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(plan().switch_retry_at_ms, f_.control.now_ms + 30000);
  EXPECT_EQ(plan().error.rfind("switch abandoned: the capture had not shipped every write", 0), 0u)
      << plan().error;
  EXPECT_EQ(f_.counters.errors.load(), 1u);

  // Before the retry time nothing is touched; after it, the next attempt drains.
  f_.control.now_ms += 10000;
  EXPECT_EQ(phase_.Switch(node_), Step::kWaiting);
  EXPECT_EQ(f_.bridge.read_only_changes, 2);
  EXPECT_EQ(plan().switch_attempts, 1);
  f_.bridge.stalled_peers.clear();
  f_.control.now_ms += 30000;
  EXPECT_EQ(phase_.Switch(node_), Step::kAdvanced);
  EXPECT_EQ(plan().switch_attempts, 2);
  EXPECT_EQ(f_.status.writes, std::vector<std::string>{"target:catching_up"});
  EXPECT_EQ(plan().phase, Phase::kCatchingUp);
}

TEST_F(SwitchPhaseTest, ADeferredRowThatStillDiffersWithWritesPausedIsABrokenCopy) {
  // Written before the peer existed and copied wrong: nothing will ever ship it again.
  f_.bridge.tables[kPaused]["4d"] = FakeMigrationBridge::Row{3, 0};
  f_.bridge.tables[kSwitchedTo]["4d"] = FakeMigrationBridge::Row{3, 7};
  plan().deferred_rows = {"4d"};

  EXPECT_EQ(phase_.Switch(node_), Step::kWaiting);

  EXPECT_EQ(plan().phase, Phase::kFailedVerification);
  EXPECT_NE(plan().error.find("1 rows differ between tinawang:check and tinawang:check__g2 "
                              "while writes were paused at the switch"),
            std::string::npos)
      << plan().error;
  EXPECT_TRUE(plan().deferred_rows.empty());
  EXPECT_TRUE(f_.status.writes.empty());  // nothing switched
  EXPECT_FALSE(SourceReadOnly());
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(f_.counters.verification_failures.load(), 1u);
}

TEST_F(SwitchPhaseTest, DeferredRowsEqualWithWritesPausedLetTheSwitchThrough) {
  ASSERT_TRUE(f_.bridge.Write(kPaused, "4d"));  // shipped by the peer before the status write
  plan().deferred_rows = {"4d"};
  EXPECT_EQ(phase_.Switch(node_), Step::kAdvanced);
  EXPECT_EQ(f_.status.writes, std::vector<std::string>{"target:catching_up"});
  EXPECT_TRUE(plan().deferred_rows.empty());
}

TEST_F(SwitchPhaseTest, ARequestThatArrivesDuringThePauseIsHandledFirstWithWritesResumed) {
  f_.status.request_arrives = true;
  // Advanced: the driver reads the plan again and handles the request next.
  EXPECT_EQ(phase_.Switch(node_), Step::kAdvanced);
  EXPECT_TRUE(f_.status.writes.empty());
  EXPECT_FALSE(SourceReadOnly());
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(plan().phase, Phase::kSwitching);
  EXPECT_NE(plan().error.find("a request arrived during the pause"), std::string::npos);
}

TEST_F(SwitchPhaseTest, ASwitchWhoseStatusWriteHappenedIsOnlyEndedNeverPausedAgain) {
  // A daemon stopped right after the status write: the plan still shows the pause.
  ASSERT_TRUE(f_.capture.EnsureCapture(plan(), /*reverse=*/true).ok());
  ASSERT_TRUE(f_.bridge.SetReadOnly(kPaused, true).ok());
  plan().writes_paused_until_ms = f_.control.now_ms + 2000;
  plan().paused_table = kPaused;
  f_.status.names_target = true;
  const int changes = f_.bridge.read_only_changes;

  EXPECT_EQ(phase_.Switch(node_), Step::kAdvanced);

  EXPECT_TRUE(f_.status.writes.empty());
  EXPECT_EQ(f_.bridge.read_only_changes, changes + 1);  // only made writable again
  EXPECT_FALSE(SourceReadOnly());
  EXPECT_EQ(plan().phase, Phase::kCatchingUp);
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_EQ(f_.counters.switches.load(), 0u);  // counted by the run that wrote the status
}

TEST_F(SwitchPhaseTest, WithoutTheLeaseNothingIsPausedOrFenced) {
  ASSERT_TRUE(f_.capture.EnsureCapture(plan(), /*reverse=*/true).ok());
  f_.control.lease = false;
  EXPECT_EQ(phase_.Switch(node_), Step::kStopped);
  EXPECT_EQ(f_.bridge.read_only_changes, 0);
  EXPECT_EQ(plan().writes_paused_until_ms, 0);
  EXPECT_TRUE(f_.record.saved.empty());
}

TEST_F(SwitchPhaseTest, TheCatchUpShipsAProbeThenStartsTheGracePeriod) {
  plan().phase = Phase::kCatchingUp;
  ASSERT_TRUE(f_.bridge.Write(kPaused, "2b"));  // a late writer of the old generation

  EXPECT_EQ(phase_.CatchUp(node_), Step::kAdvanced);

  EXPECT_EQ(f_.bridge.tables[kSwitchedTo].count("2b"), 1u);
  EXPECT_EQ(plan().phase, Phase::kGrace);
  EXPECT_EQ(plan().capture.caught_up_ms, f_.control.now_ms);
  EXPECT_EQ(plan().grace_until_ms, f_.control.now_ms + 60 * 1000);
  EXPECT_EQ(f_.counters.probes.load(), 1u);
}

TEST_F(SwitchPhaseTest, ACatchUpWhosePeerDoesNotShipFailsAndStaysForTheNextRun) {
  plan().phase = Phase::kCatchingUp;
  f_.bridge.stalled_peers.insert(plan().capture.peer);
  EXPECT_EQ(phase_.CatchUp(node_), Step::kWaiting);
  EXPECT_EQ(plan().phase, Phase::kCatchingUp);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_EQ(f_.record.failures[0].rfind("catching up: the capture peer shipping", 0), 0u)
      << f_.record.failures[0];
}

}  // namespace
}  // namespace presplit::daemon::migrate
