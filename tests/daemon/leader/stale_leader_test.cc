// Two presplitd on one ZooKeeper root, as the runner wires them: a reconciler per daemon whose
// lease is its leader election's. A deposed leader must neither create tables nor overwrite the
// status the new leader wrote.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon/leader/leader_election.h"
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

// One presplitd: its own ZooKeeper session, election and reconciler, wired as the runner does.
struct Daemon {
  Daemon(FakeZk& zk, FakeAdmin& admin, const std::string& id)
      : session(zk),
        election(session, LeaderElectionOptions{"/presplit/leader", id}),
        reconciler(session, admin,
                   ReconcilerOptions{"/presplit", id, [this] { return election.HoldsLease(); }}) {}
  FakeZkSession session;
  LeaderElection election;
  Reconciler reconciler;
};

class StaleLeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(a_.reconciler.Prepare().ok());
    ASSERT_TRUE(a_.election.Refresh().ok());
    ASSERT_TRUE(b_.election.Refresh().ok());
    ASSERT_TRUE(a_.election.IsLeader());
    ASSERT_TRUE(zk_.Upsert("/presplit/tables/ns:t", kDoc).ok());
  }
  nlohmann::json StatusDoc() { return nlohmann::json::parse(zk_.nodes.at(kStatus).data); }

  FakeZk zk_;
  FakeAdmin admin_;
  Daemon a_{zk_, admin_, "a:1"};
  Daemon b_{zk_, admin_, "b:2"};
};

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

}  // namespace
}  // namespace presplit::daemon
