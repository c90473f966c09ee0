#include "daemon/leader/leader_election.h"

#include <gtest/gtest.h>

#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

using testing::FakeZk;
using testing::FakeZkSession;

constexpr const char* kElection = "/presplit/leader";

// One presplitd as the election sees it: its own ZooKeeper session on the shared fake ensemble.
struct Candidate {
  Candidate(FakeZk& zk, const std::string& id)
      : session(zk), election(session, LeaderElectionOptions{kElection, id}) {}
  std::string NodePath() const { return std::string(kElection) + "/" + election.NodeName(); }

  FakeZkSession session;
  LeaderElection election;
};

TEST(ElectionSequenceTest, ReadsTheSuffixOfElectionNodesOnly) {
  EXPECT_EQ(ElectionSequence("n_0000000003"), 3);
  EXPECT_EQ(ElectionSequence("n_0000000000"), 0);
  EXPECT_EQ(ElectionSequence("n_"), -1);
  EXPECT_EQ(ElectionSequence("lock"), -1);
  EXPECT_EQ(ElectionSequence("n_00x1"), -1);
  EXPECT_EQ(ElectionSequence("n_-000000001"), -1);
}

TEST(LeaderElectionTest, LowestSequenceLeadsOthersStandBy) {
  FakeZk zk;
  Candidate a(zk, "host-a:1");
  Candidate b(zk, "host-b:2");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_EQ(a.election.NodeName(), "n_0000000000");
  EXPECT_EQ(b.election.NodeName(), "n_0000000001");
  EXPECT_TRUE(a.election.IsLeader());
  EXPECT_FALSE(b.election.IsLeader());
  EXPECT_TRUE(a.election.HoldsLease());
  EXPECT_FALSE(b.election.HoldsLease());
  // The node carries the candidate's id, for operators listing <root>/leader, and is ephemeral
  // to the candidate's own session.
  EXPECT_EQ(zk.nodes.at(a.NodePath()).data, "host-a:1");
  EXPECT_EQ(zk.nodes.at(a.NodePath()).ephemeral_owner, a.session.session_id);
  EXPECT_EQ(zk.nodes.at(b.NodePath()).ephemeral_owner, b.session.session_id);
}

TEST(LeaderElectionTest, EachStandbyWatchesOnlyItsPredecessor) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  Candidate c(zk, "c:3");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(c.election.Refresh().ok());
  // No herd: the leader's node is watched by b alone, b's by c; nobody watches the children.
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{a.NodePath(), b.NodePath()}));
  EXPECT_TRUE(zk.child_watches.empty());
  EXPECT_FALSE(c.election.IsLeader());
}

TEST(LeaderElectionTest, PredecessorDeletedNextInLineLeads) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  Candidate c(zk, "c:3");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(c.election.Refresh().ok());
  // The leader is killed: its ephemeral node goes when its session times out; b's watch fires.
  a.session.Expire();
  EXPECT_FALSE(zk.nodes.count(a.NodePath()));
  zk.data_watches.clear();
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(c.election.Refresh().ok());
  EXPECT_TRUE(b.election.IsLeader());
  EXPECT_TRUE(b.election.HoldsLease());
  EXPECT_FALSE(c.election.IsLeader());
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{b.NodePath()}));
  // Had the old leader only been paused, it finds its lease gone at its next check.
  EXPECT_FALSE(a.election.HoldsLease());
  EXPECT_FALSE(a.election.IsLeader());
}

TEST(LeaderElectionTest, MiddleCandidateGoneStandbyWatchesTheNextOne) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  Candidate c(zk, "c:3");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(c.election.Refresh().ok());
  b.election.Resign();
  EXPECT_FALSE(zk.nodes.count(std::string(kElection) + "/n_0000000001"));
  zk.data_watches.clear();
  ASSERT_TRUE(c.election.Refresh().ok());
  EXPECT_FALSE(c.election.IsLeader());  // a still leads
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{a.NodePath()}));
  EXPECT_TRUE(a.election.HoldsLease());
}

TEST(LeaderElectionTest, SessionExpiryEndsLeadershipAtOnceAndReentersWithANewNode) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(a.election.IsLeader());
  const std::string first = a.election.NodeName();
  a.session.Expire();
  a.election.OnSessionExpired();  // no ZooKeeper call: the loop thread never waits
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_FALSE(a.election.HoldsLease());
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_TRUE(b.election.IsLeader());
  // a queues again, with a new node of its new session, behind the new leader.
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_NE(a.election.NodeName(), first);
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_EQ(zk.nodes.at(a.NodePath()).ephemeral_owner, a.session.session_id);
  EXPECT_EQ(zk.data_watches.count(b.NodePath()), 1u);
}

TEST(LeaderElectionTest, LoneCandidateLeadsAgainAfterItsSessionExpired) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  ASSERT_TRUE(a.election.Refresh().ok());
  const std::string first = a.election.NodeName();
  a.session.Expire();
  a.election.OnSessionExpired();
  EXPECT_FALSE(a.election.IsLeader());
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_NE(a.election.NodeName(), first);
  EXPECT_TRUE(a.election.IsLeader());
  EXPECT_TRUE(a.election.HoldsLease());
}

TEST(LeaderElectionTest, LeaseRefusedOnceTheSessionExpiredEvenBeforeTheExpiryEvent) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  ASSERT_TRUE(a.election.Refresh().ok());
  a.session.Expire();  // the event has not been delivered yet
  EXPECT_FALSE(a.election.HoldsLease());
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_EQ(a.election.LeaseSession(), 0);
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_TRUE(a.election.IsLeader());
}

TEST(LeaderElectionTest, NoNewSessionBeginsUntilRefreshHasEndedTheLeadership) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  ASSERT_TRUE(a.election.Refresh().ok());
  const int64_t first = a.session.session_id;
  a.session.Expire();
  // IsLeader never starts a session; the client does not either.
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_EQ(a.session.sessions_started, 0);
  EXPECT_TRUE(a.session.SessionExpired());
  // No lease check and no expiry event came before this Refresh: it ends the leadership itself.
  int64_t lease_session = -1;
  a.session.before_new_session = [&] { lease_session = a.election.LeaseSession(); };
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_EQ(lease_session, 0) << "the leadership ended before the new session began";
  EXPECT_EQ(a.session.sessions_started, 1);
  EXPECT_NE(a.session.session_id, first);
  EXPECT_EQ(a.election.LeaseSession(), a.session.session_id);
}

TEST(LeaderElectionTest, ANewSessionThatCannotStartIsAnErrorAndIsTriedAgain) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  ASSERT_TRUE(a.election.Refresh().ok());
  a.session.Expire();
  zk.available = false;  // the ensemble went away right after ending the session
  Status s = a.election.Refresh();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_EQ(a.election.NodeName(), "");
  zk.available = true;
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_TRUE(a.election.IsLeader());
  EXPECT_TRUE(a.election.HoldsLease());
}

TEST(LeaderElectionTest, HoldsLeaseNamesTheSessionItConfirmed) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  int64_t on = -1;
  EXPECT_TRUE(a.election.HoldsLease(&on));
  EXPECT_EQ(on, a.session.session_id);
  EXPECT_FALSE(b.election.HoldsLease(&on));
  EXPECT_EQ(on, 0);
  EXPECT_EQ(b.election.LeaseSession(), 0);
}

TEST(LeaderElectionTest, DisconnectedLeaderHoldsNoLeaseAndLeadsAgainOnReconnect) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  ASSERT_TRUE(a.election.Refresh().ok());
  const std::string node = a.election.NodeName();
  a.session.available = false;
  EXPECT_FALSE(a.election.IsLeader());  // at once, before any call: /metrics says 0
  EXPECT_FALSE(a.election.HoldsLease());
  EXPECT_FALSE(a.election.Refresh().ok());
  EXPECT_FALSE(a.election.IsLeader());
  a.session.available = true;  // reconnected within the session timeout: its node survived
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_TRUE(a.election.IsLeader());
  EXPECT_EQ(a.election.NodeName(), node);
}

TEST(LeaderElectionTest, LeaderWatchesItsOwnNodeAndQueuesAgainWhenItIsRemovedByHand) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_EQ(zk.data_watches.count(a.NodePath()), 1u);  // the event wakes a, not only b
  const std::string removed = a.NodePath();
  ASSERT_TRUE(zk.Delete(removed, -1).ok());
  EXPECT_FALSE(a.election.HoldsLease());
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_NE(a.NodePath(), removed);
  EXPECT_FALSE(a.election.IsLeader());
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_TRUE(b.election.IsLeader());
  EXPECT_EQ(zk.data_watches.count(b.NodePath()), 1u);  // watched by a, now behind b
}

TEST(LeaderElectionTest, LeftoverNodeOfItsOwnSessionIsRemovedBeforeQueueing) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  ASSERT_TRUE(zk.EnsurePath(kElection).ok());
  // A create whose reply was lost: the node exists in a's live session, unknown to a. Left
  // there, it would lead forever with nobody acting (a queued behind itself, b behind it).
  auto leftover =
      a.session.CreateEphemeralSequential(std::string(kElection) + "/n_", "a:1", OpenAcl());
  ASSERT_TRUE(leftover.ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_FALSE(zk.nodes.count(*leftover));
  EXPECT_TRUE(zk.nodes.count(b.NodePath()));  // another session's node is never touched
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_TRUE(b.election.IsLeader());
  EXPECT_FALSE(a.election.IsLeader());
}

TEST(LeaderElectionTest, UnreachableZooKeeperIsAnErrorNotALeader) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  zk.available = false;
  Status s = a.election.Refresh();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_EQ(a.election.NodeName(), "");
  zk.available = true;
  ASSERT_TRUE(a.election.Refresh().ok());
  EXPECT_TRUE(a.election.IsLeader());
}

TEST(LeaderElectionTest, ResignLetsTheStandbyLead) {
  FakeZk zk;
  Candidate a(zk, "a:1");
  Candidate b(zk, "b:2");
  ASSERT_TRUE(a.election.Refresh().ok());
  ASSERT_TRUE(b.election.Refresh().ok());
  a.election.Resign();
  EXPECT_FALSE(a.election.IsLeader());
  EXPECT_FALSE(zk.nodes.count(std::string(kElection) + "/n_0000000000"));
  ASSERT_TRUE(b.election.Refresh().ok());
  EXPECT_TRUE(b.election.IsLeader());
}

}  // namespace
}  // namespace presplit::daemon
