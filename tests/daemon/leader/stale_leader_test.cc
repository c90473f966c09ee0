// Two presplitd on one ZooKeeper root, as the runner wires them: a reconciler per daemon whose
// lease is a LeaseFence of its leader election, and whose writes go through that fence. A deposed
// leader must neither create tables nor overwrite the status the new leader wrote, and nothing it
// decided on an expired session may be written on the session that replaced it.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "daemon/leader/leader_election.h"
#include "daemon/leader/lease_fence.h"
#include "daemon/reconcile/reconciler.h"
#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

using testing::FakeAdmin;
using testing::FakeZk;
using testing::FakeZkSession;

constexpr const char* kDoc = R"({"version": 1, "table": "ns:t",
  "split": {"algorithm": "hex-string", "regions": 4}, "families": [{"name": "f"}]})";
constexpr const char* kStatus = "/presplit/status/ns:t";
constexpr const char* kStaleElection = "/presplit/leader";

// One presplitd: its own ZooKeeper session, election, lease fence and reconciler, wired as the
// runner does.
struct Daemon {
  Daemon(FakeZk& zk, FakeAdmin& admin, const std::string& id)
      : session(zk),
        election(session, LeaderElectionOptions{kStaleElection, id}),
        lease(election, session),
        reconciler(lease.zk(), admin,
                   ReconcilerOptions{"/presplit", id, [this] { return lease.Check(); }}) {}
  // The writes this daemon issued on `session_id`, in order.
  std::vector<std::string> WritesOn(int64_t session_id) const {
    std::vector<std::string> paths;
    for (const auto& [on, path] : session.write_log) {
      if (on == session_id) paths.push_back(path);
    }
    return paths;
  }
  FakeZkSession session;
  LeaderElection election;
  LeaseFence lease;
  Reconciler reconciler;
};

class StaleLeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(a_.election.Refresh().ok());
    ASSERT_TRUE(b_.election.Refresh().ok());
    ASSERT_TRUE(a_.election.IsLeader());
    ASSERT_TRUE(a_.reconciler.Prepare().ok());
    ASSERT_TRUE(zk_.Upsert("/presplit/tables/ns:t", kDoc).ok());
  }
  nlohmann::json StatusDoc() { return nlohmann::json::parse(zk_.nodes.at(kStatus).data); }

  FakeZk zk_;
  FakeAdmin admin_;
  Daemon a_{zk_, admin_, "a:1"};
  Daemon b_{zk_, admin_, "b:2"};
};

TEST_F(StaleLeaderTest, AStandbyDoesNotEvenPrepareTheRootNodes) {
  const int writes = zk_.writes;
  Status s = b_.reconciler.Prepare();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_EQ(zk_.writes, writes);
}

TEST_F(StaleLeaderTest, StandbyPassTouchesNeitherHBaseNorStatus) {
  const int writes = zk_.writes;
  Status s = b_.reconciler.ReconcileAll();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_EQ(admin_.creates, 0);
  EXPECT_EQ(admin_.describes, 0);
  EXPECT_FALSE(zk_.nodes.count(kStatus));
  EXPECT_EQ(zk_.writes, writes);
}

TEST_F(StaleLeaderTest, DeposedDuringItsStatusWriteCreatesNothing) {
  // The leader loses its node right after reporting "creating" (its session ended); the lease
  // check right before CreateTable stops it.
  bool deposed = false;
  zk_.before_write = [&](const std::string& path) {
    if (path == kStatus && !deposed) {
      deposed = true;
      zk_.nodes.erase("/presplit/leader/" + a_.election.NodeName());
    }
  };
  Status s = a_.reconciler.ReconcileAll();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_TRUE(deposed);
  EXPECT_EQ(admin_.creates, 0);
  EXPECT_FALSE(a_.election.IsLeader());

  // The next in line leads and creates the table exactly once.
  zk_.before_write = nullptr;
  ASSERT_TRUE(b_.election.Refresh().ok());
  ASSERT_TRUE(b_.election.IsLeader());
  ASSERT_TRUE(b_.reconciler.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(StatusDoc()["phase"], "ready");
  EXPECT_EQ(StatusDoc()["daemon"], "b:2");
}

TEST_F(StaleLeaderTest, StaleLeadersConditionalStatusWriteIsRefused) {
  // The old leader passed its lease check, then (while it was paused) another daemon wrote a
  // newer status between its read and its write: the compare-and-set refuses the stale write.
  ASSERT_TRUE(a_.reconciler.ReconcileAll().ok());
  ASSERT_EQ(StatusDoc()["phase"], "ready");
  ASSERT_TRUE(zk_.Upsert("/presplit/tables/ns:t", std::string(kDoc)).ok());  // a new revision
  admin_.tables.at("ns:t").families[0].compression = "GZ";  // a's next pass would see drift
  const nlohmann::json newer = {{"table", "ns:t"}, {"phase", "ready"}, {"daemon", "b:2"}};
  zk_.before_write = [&](const std::string& path) {
    if (path != kStatus) return;
    auto& node = zk_.nodes.at(kStatus);
    node = ZkNode{newer.dump(), node.version + 1, ++zk_.zxid};
    zk_.before_write = nullptr;
  };
  const int creates = admin_.creates;
  ASSERT_TRUE(a_.reconciler.ReconcileAll().ok());
  EXPECT_EQ(StatusDoc(), newer);  // not overwritten
  EXPECT_EQ(admin_.creates, creates);
}

TEST_F(StaleLeaderTest, CreatingWriteIsCreateIfAbsent) {
  // Another writer creates the status between the leader's read (absent) and its create.
  zk_.before_write = [&](const std::string& path) {
    if (path != kStatus) return;
    zk_.nodes[kStatus] = ZkNode{R"({"daemon": "b:2"})", 0, ++zk_.zxid};
    zk_.before_write = nullptr;
  };
  ASSERT_TRUE(a_.reconciler.ReconcileAll().ok());
  // The "creating" write was refused (not overwritten); the final one read the other writer's
  // status first and replaced it at its version.
  EXPECT_EQ(StatusDoc()["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(zk_.nodes.at(kStatus).version, 1);
}

TEST_F(StaleLeaderTest, ASessionExpiryBetweenTwoLeaseChecksEndsTheLeadershipBeforeANewSession) {
  ASSERT_TRUE(a_.lease.Check());
  const int64_t old_session = a_.session.session_id;
  a_.session.Expire();  // ZooKeeper ended it; the event is still on its way to the loop
  // The second check says no at once, and what it allowed before cannot be written any more.
  EXPECT_FALSE(a_.lease.Check());
  EXPECT_FALSE(a_.election.IsLeader());
  const size_t before = a_.session.write_log.size();
  EXPECT_FALSE(a_.lease.zk().Set(kStatus, "{}", -1).ok());
  EXPECT_FALSE(a_.reconciler.ReconcileAll().ok());
  EXPECT_EQ(a_.session.write_log.size(), before) << "no write issued on any session";
  EXPECT_EQ(admin_.creates, 0);
  EXPECT_EQ(a_.session.sessions_started, 0) << "the client never starts a session by itself";

  // The daemon re-joins: the leadership is over before the new session exists ...
  bool leading_when_the_session_began = true;
  int64_t lease_session_then = -1;
  a_.session.before_new_session = [&] {
    leading_when_the_session_began = a_.election.IsLeader();
    lease_session_then = a_.election.LeaseSession();
  };
  a_.election.OnSessionExpired();  // the event arrives
  ASSERT_TRUE(a_.election.Refresh().ok());
  EXPECT_FALSE(leading_when_the_session_began);
  EXPECT_EQ(lease_session_then, 0);
  ASSERT_EQ(a_.session.sessions_started, 1);
  const int64_t new_session = a_.session.session_id;
  EXPECT_NE(new_session, old_session);
  // ... and the first write on it is its new candidate node, queued behind b.
  const std::vector<std::string> on_new = a_.WritesOn(new_session);
  ASSERT_FALSE(on_new.empty());
  EXPECT_EQ(on_new.front(), std::string(kStaleElection) + "/n_");
  EXPECT_FALSE(a_.election.IsLeader());
  EXPECT_EQ(
      zk_.nodes.at(std::string(kStaleElection) + "/" + a_.election.NodeName()).ephemeral_owner,
      new_session);
  // Standing by, it writes nothing else; b takes over and creates the table once.
  EXPECT_FALSE(a_.reconciler.ReconcileAll().ok());
  EXPECT_EQ(a_.WritesOn(new_session).size(), on_new.size());
  ASSERT_TRUE(b_.election.Refresh().ok());
  ASSERT_TRUE(b_.reconciler.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(StatusDoc()["daemon"], "b:2");
}

TEST_F(StaleLeaderTest, AWriteDecidedOnAnExpiredSessionIsRefusedEvenWhenTheDaemonLeadsAgain) {
  b_.election.Resign();  // a alone: it leads again as soon as it re-joins
  // The pass checks its lease and writes "creating". Between that check (on the first session)
  // and the write, the session expires and the election re-joins with a new one and leads again.
  // The real client makes such a re-join wait for the write in progress; the fake lets it
  // happen, to show the fence still refuses the write decided under the old lease.
  int64_t new_session = 0;
  a_.session.before_with_session = [&] {
    if (new_session != 0) return;
    a_.session.Expire();
    a_.election.OnSessionExpired();
    ASSERT_TRUE(a_.election.Refresh().ok());
    ASSERT_TRUE(a_.election.IsLeader());
    new_session = a_.session.session_id;
  };
  Status pass = a_.reconciler.ReconcileAll();
  ASSERT_TRUE(pass.ok()) << pass.ToString();
  ASSERT_NE(new_session, 0);
  // "creating" never landed: the status was created once, as "ready", by a write whose own lease
  // check (right before the create of the table) was made on the new session.
  EXPECT_EQ(a_.WritesOn(new_session),
            (std::vector<std::string>{std::string(kStaleElection) + "/n_", kStatus}));
  EXPECT_EQ(zk_.nodes.at(kStatus).version, 0);
  EXPECT_EQ(StatusDoc()["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
}

}  // namespace
}  // namespace presplit::daemon
