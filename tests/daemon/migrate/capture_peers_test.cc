// CapturePeers and MigrationGuards on their own: the phases' services for the capture peers,
// their drains and the MigrationGuard, over the fake bridge and admin and a driver control the
// test holds (its lease, its clock), without a Migrator.
#include "daemon/migrate/capture_peers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "daemon/migrate/guards.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/fake_migration_bridge.h"
#include "tests/daemon/migrate/fake_phase_context.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeAdmin;
using testing::FakeMigrationBridge;
using testing::HeldControl;

constexpr const char* kShipped = "tinawang:check";
constexpr const char* kShippedTo = "tinawang:check__g2";

class CapturePeersTest : public ::testing::Test {
 protected:
  CapturePeersTest() : capture_(bridge_, admin_, control_, Waits(), probes_) {
    bridge_.admin = &admin_;
    TableSpec source;
    source.table = kShipped;
    source.split_keys = {"3", "6"};  // regions r0, r1, r2
    EXPECT_TRUE(admin_.CreateTable(source).ok());
    TableSpec target;
    target.table = kShippedTo;
    EXPECT_TRUE(admin_.CreateTable(target).ok());
    plan_.table = kShipped;
    plan_.source = kShipped;
    plan_.target = kShippedTo;
    plan_.plan_id = "0123456789abcdef";
  }
  static CaptureWaits Waits() {
    CaptureWaits waits;
    waits.zk_root = "/presplit";
    waits.ack_timeout = std::chrono::milliseconds(300);
    waits.ack_poll = std::chrono::milliseconds(50);
    waits.recovery_timeout = std::chrono::milliseconds(300);
    return waits;
  }

  FakeMigrationBridge bridge_;
  FakeAdmin admin_;
  HeldControl control_;
  std::atomic<uint64_t> probes_{0};
  CapturePeers capture_;
  MigrationPlan plan_;
};

TEST_F(CapturePeersTest, TheForwardAndReversePeersShipOppositeWaysAndAreAddedOnce) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, /*reverse=*/false).ok());
  EXPECT_EQ(plan_.capture.peer, CapturePeerOf(kShippedTo));
  EXPECT_EQ(plan_.capture.started_ms, control_.now_ms);
  ASSERT_EQ(bridge_.peers.count(plan_.capture.peer), 1u);
  EXPECT_EQ(bridge_.peers[plan_.capture.peer].source, kShipped);
  EXPECT_EQ(bridge_.peers[plan_.capture.peer].target, kShippedTo);
  EXPECT_EQ(bridge_.peers[plan_.capture.peer].owner, "/presplit");

  // Again later: the peer is there, its start is the first one.
  const int64_t first_start = plan_.capture.started_ms;
  control_.now_ms += 5000;
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  EXPECT_EQ(plan_.capture.started_ms, first_start);
  EXPECT_EQ(bridge_.peers.size(), 1u);

  ASSERT_TRUE(capture_.EnsureCapture(plan_, /*reverse=*/true).ok());
  EXPECT_EQ(plan_.capture.reverse_peer, ReversePeerOf(kShippedTo));
  EXPECT_EQ(bridge_.peers[plan_.capture.reverse_peer].source, kShippedTo);
  EXPECT_EQ(bridge_.peers[plan_.capture.reverse_peer].target, kShipped);
  // Both carry the migration's mark: neither ships what the other applied.
  EXPECT_EQ(bridge_.peers[plan_.capture.peer].mark, bridge_.peers[plan_.capture.reverse_peer].mark);

  ASSERT_TRUE(capture_.RemoveCapture(plan_.capture.peer, "test").ok());
  ASSERT_TRUE(capture_.RemoveCapture(plan_.capture.peer, "again: gone already").ok());
  EXPECT_EQ(bridge_.peers_removed, std::vector<std::string>{plan_.capture.peer});
}

TEST_F(CapturePeersTest, WithoutTheLeaseNothingIsAddedOrRemoved) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  control_.lease = false;
  MigrationPlan other = plan_;
  other.capture = {};
  EXPECT_EQ(capture_.EnsureCapture(other, true).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(capture_.RemoveCapture(plan_.capture.peer, "test").code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(bridge_.peers.size(), 1u);
  EXPECT_TRUE(bridge_.peers_removed.empty());
}

TEST_F(CapturePeersTest, AProbeRoundIsAcknowledgedOnceEveryWriteBeforeItIsShipped) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  ASSERT_TRUE(bridge_.Write(kShipped, "1a"));
  ASSERT_TRUE(bridge_.Write(kShipped, "7b"));
  ASSERT_TRUE(capture_.AwaitShipped(plan_.capture.peer, kShipped, kShippedTo).ok());
  EXPECT_EQ(bridge_.tables[kShippedTo].count("1a"), 1u);
  EXPECT_EQ(bridge_.tables[kShippedTo].count("7b"), 1u);
  EXPECT_EQ(probes_.load(), 1u);
  EXPECT_EQ(bridge_.marks_by_peer[plan_.capture.peer], 1);  // the queues were marked too
}

TEST_F(CapturePeersTest, AStalledPeerTimesOutNamingTheFirstRegionNotAcknowledged) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  bridge_.stalled_peers.insert(plan_.capture.peer);
  Status shipped = capture_.AwaitShipped(plan_.capture.peer, kShipped, kShippedTo);
  EXPECT_EQ(shipped.code(), StatusCode::kUnavailable);
  EXPECT_NE(shipped.message().find("acknowledged 0 of 3 probes"), std::string::npos)
      << shipped.message();
  EXPECT_NE(shipped.message().find("the region at '\\x00'"), std::string::npos)
      << shipped.message();
  EXPECT_EQ(probes_.load(), 0u);
}

TEST_F(CapturePeersTest, AcknowledgedProbesStillWaitForADeadServersWals) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  bridge_.recovered_queues[plan_.capture.peer] = {"peer-rs2.example,16020,1"};
  // HBase claims the dead server's queue and ships it after a few looks.
  bridge_.on_describe_capture = [&](const std::string& peer) {
    if (bridge_.describe_capture_calls == 3) bridge_.recovered_queues.erase(peer);
  };
  ASSERT_TRUE(capture_.AwaitShipped(plan_.capture.peer, kShipped, kShippedTo).ok());
  EXPECT_GE(bridge_.describe_capture_calls, 4);
  EXPECT_EQ(probes_.load(), 1u);

  // A queue that is never shipped: the recovery wait gives up, saying which.
  bridge_.on_describe_capture = nullptr;
  bridge_.recovered_queues[plan_.capture.peer] = {"peer-rs3.example,16020,1"};
  Status stuck = capture_.AwaitShipped(plan_.capture.peer, kShipped, kShippedTo);
  EXPECT_EQ(stuck.code(), StatusCode::kUnavailable);
  EXPECT_NE(stuck.message().find("peer-rs3.example"), std::string::npos) << stuck.message();
}

TEST_F(CapturePeersTest, AWaitEndsAsSoonAsTheLeaseIsLostOrTheDaemonStops) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  bridge_.stalled_peers.insert(plan_.capture.peer);
  control_.on_sleep = [&](int) { control_.lease = false; };
  Status lost = capture_.AwaitShipped(plan_.capture.peer, kShipped, kShippedTo);
  EXPECT_EQ(lost.code(), StatusCode::kUnavailable);
  EXPECT_EQ(lost.message(), "the lease is lost");
  EXPECT_EQ(control_.sleeps, 1);

  control_.lease = true;
  control_.on_sleep = [&](int) { control_.stopping = true; };
  Status stopping = capture_.AwaitQueuesShipped(plan_.capture.peer, kShipped);
  EXPECT_EQ(stopping.code(), StatusCode::kUnavailable);
  EXPECT_EQ(stopping.message(), "stopping");
}

TEST_F(CapturePeersTest, ADrainWaitsForTheQueueOfTheServerARegionMovedAwayFrom) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  const std::string peer = plan_.capture.peer;
  // A region moved: its older edits are in rs1's WAL, which the peer's queue still lists.
  bridge_.queue_wals[peer] = {"rs1.example%2C16020%2C1.1700000000000"};
  auto before = capture_.ClosesShipped(kShippedTo);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(bridge_.SetReadOnly(kShipped, true).ok());  // every region closed on its server
  // The old server's queue reads its file to the end after a few looks.
  int looks = 0;
  bridge_.on_unshipped = [&](const std::string& p) {
    if (++looks == 3) bridge_.queue_wals.erase(p);
  };
  auto drained = capture_.AwaitDrained(peer, kShipped, kShippedTo, *before, control_.NowMs());
  ASSERT_TRUE(drained.ok()) << drained.status().ToString();
  EXPECT_TRUE(*drained);
  EXPECT_EQ(looks, 3);
  EXPECT_EQ(bridge_.marks_by_peer[peer], 1);  // marked once, after the closes
}

TEST_F(CapturePeersTest, ARegionWithoutACloseAfterTheTimeoutIsReopenedAndTheDrainEndsLater) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  const std::string peer = plan_.capture.peer;
  auto before = capture_.ClosesShipped(kShippedTo);
  ASSERT_TRUE(before.ok());
  // r1's server died while the read-only change reopened it: no close of it is written.
  bridge_.crashed_during_reopen.insert("r1");
  ASSERT_TRUE(bridge_.SetReadOnly(kShipped, true).ok());
  const int64_t fence_started = control_.NowMs();
  auto first = capture_.AwaitDrained(peer, kShipped, kShippedTo, *before, fence_started);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(*first);
  // The fence has lasted ack_timeout (the control's clock moved with each wait): r1 reopened.
  ASSERT_GE(control_.NowMs() - fence_started, Waits().ack_timeout.count());
  EXPECT_EQ(bridge_.reopened, (std::vector<std::string>{kShipped, "r1"}));
  auto second = capture_.AwaitDrained(peer, kShipped, kShippedTo, *before, fence_started);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(*second);
}

TEST_F(CapturePeersTest, ADrainOfATableThatIsGoneIsNotFound) {
  auto drained =
      capture_.AwaitDrained(CapturePeerOf(kShippedTo), "tinawang:gone", kShippedTo, {}, 0);
  EXPECT_EQ(drained.status().code(), StatusCode::kNotFound);
}

TEST_F(CapturePeersTest, BulkLoadsAndUnfitRowsAreCountedOnceIntoThePlan) {
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  bridge_.guards.erase(kShipped);  // no guard: the load goes through and the capture sees it
  ASSERT_TRUE(bridge_.BulkLoad(kShipped, "2x"));
  bridge_.unfit_notices = {"row-without-a-group"};
  auto seen = capture_.CollectNotices(plan_, kShippedTo);
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->count, 1);
  EXPECT_NE(seen->example.find("region-of-2x"), std::string::npos);
  EXPECT_EQ(plan_.capture.bulk_loads, 1);
  EXPECT_EQ(plan_.capture.unfit, 1);
  EXPECT_EQ(plan_.capture.first_unfit, "row-without-a-group");
  auto again = capture_.CollectNotices(plan_, kShippedTo);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->count, 0);  // nothing new
}

class MigrationGuardsTest : public CapturePeersTest {
 protected:
  MigrationGuards guards_{bridge_, control_};
};

TEST_F(MigrationGuardsTest, TheSourceIsGuardedOnceAndItsGuardConfirmedWhileTheCaptureRuns) {
  auto attached = guards_.GuardSource(plan_);
  ASSERT_TRUE(attached.ok());
  EXPECT_TRUE(*attached);
  auto again = guards_.GuardSource(plan_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);  // the table keeps it: no second reopen
  EXPECT_EQ(bridge_.modifies[kShipped], 1);

  // Dormant until a capture of the table runs.
  EXPECT_EQ(guards_.ConfirmSourceGuard(plan_).code(), StatusCode::kUnavailable);
  ASSERT_TRUE(capture_.EnsureCapture(plan_, false).ok());
  ASSERT_TRUE(guards_.ConfirmSourceGuard(plan_).ok());
  EXPECT_EQ(bridge_.confirms, std::vector<std::string>{kShipped});
  EXPECT_FALSE(bridge_.WriteSkippingWal(kShipped, "1s"));
}

TEST_F(MigrationGuardsTest, APlanWithoutAnIdAndAnotherPlansGuardAreLeftAlone) {
  MigrationPlan old_plan = plan_;
  old_plan.plan_id.clear();
  auto attached = guards_.GuardSource(old_plan);
  ASSERT_TRUE(attached.ok());
  EXPECT_FALSE(*attached);
  EXPECT_TRUE(guards_.ConfirmSourceGuard(old_plan).ok());
  EXPECT_TRUE(bridge_.guards.empty());

  bridge_.guards[kShippedTo] = FakeMigrationBridge::Guard{"fedcba9876543210", false};
  LogCapture log;
  ASSERT_TRUE(guards_.Unguard(plan_, kShippedTo, "test").ok());
  EXPECT_EQ(bridge_.guards[kShippedTo].plan, "fedcba9876543210");
  EXPECT_EQ(log.Count("another migration's (plan fedcba9876543210)"), 1);

  bridge_.guards[kShippedTo] = FakeMigrationBridge::Guard{plan_.plan_id, false};
  ASSERT_TRUE(guards_.Unguard(plan_, kShippedTo, "test").ok());
  EXPECT_TRUE(bridge_.guards[kShippedTo].plan.empty());
}

TEST_F(MigrationGuardsTest, WithoutTheLeaseNoGuardIsAttachedOrRemoved) {
  control_.lease = false;
  EXPECT_EQ(guards_.GuardSource(plan_).status().code(), StatusCode::kFailedPrecondition);
  bridge_.guards[kShippedTo] = FakeMigrationBridge::Guard{plan_.plan_id, false};
  EXPECT_EQ(guards_.Unguard(plan_, kShippedTo, "test").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(bridge_.guards.count(kShipped), 0u);
  EXPECT_EQ(bridge_.guards[kShippedTo].plan, plan_.plan_id);
}

}  // namespace
}  // namespace presplit::daemon::migrate
