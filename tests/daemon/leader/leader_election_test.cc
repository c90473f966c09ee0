#include "daemon/leader/leader_election.h"

#include <gtest/gtest.h>

#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

using testing::FakeZk;

constexpr const char* kElection = "/presplit/leader";

LeaderElection Candidate(FakeZk& zk, const std::string& id) {
  return LeaderElection(zk, LeaderElectionOptions{kElection, id});
}

std::string NodePath(const LeaderElection& election) {
  return std::string(kElection) + "/" + election.NodeName();
}

TEST(ElectionSequenceTest, ReadsTheSuffixOfElectionNodesOnly) {
  EXPECT_EQ(ElectionSequence("n_0000000003"), 3);
  EXPECT_EQ(ElectionSequence("n_0000000000"), 0);
  EXPECT_EQ(ElectionSequence("n_"), -1);
  EXPECT_EQ(ElectionSequence("lock"), -1);
  EXPECT_EQ(ElectionSequence("n_00x1"), -1);
}

TEST(LeaderElectionTest, LowestSequenceLeadsOthersStandBy) {
  FakeZk zk;
  auto a = Candidate(zk, "host-a:1");
  auto b = Candidate(zk, "host-b:2");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_EQ(a.NodeName(), "n_0000000000");
  EXPECT_EQ(b.NodeName(), "n_0000000001");
  EXPECT_TRUE(a.IsLeader());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_TRUE(a.HoldsLease());
  EXPECT_FALSE(b.HoldsLease());
  // The node carries the candidate's id, for operators listing <root>/leader.
  EXPECT_EQ(zk.nodes.at(NodePath(a)).data, "host-a:1");
  EXPECT_EQ(zk.ephemeral_owners.count(NodePath(a)), 1u);
}

TEST(LeaderElectionTest, EachStandbyWatchesOnlyItsPredecessor) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  auto b = Candidate(zk, "b:2");
  auto c = Candidate(zk, "c:3");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(b.Refresh().ok());
  ASSERT_TRUE(c.Refresh().ok());
  // No herd: the leader's node is watched by b alone, b's by c; nobody watches the children.
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{NodePath(a), NodePath(b)}));
  EXPECT_TRUE(zk.child_watches.empty());
  EXPECT_FALSE(c.IsLeader());
}

TEST(LeaderElectionTest, PredecessorDeletedNextInLineLeads) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  auto b = Candidate(zk, "b:2");
  auto c = Candidate(zk, "c:3");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(b.Refresh().ok());
  ASSERT_TRUE(c.Refresh().ok());
  // The leader dies: its ephemeral node goes (as when its session ends); b's watch fires.
  ASSERT_TRUE(zk.Delete(NodePath(a), -1).ok());
  zk.data_watches.clear();
  ASSERT_TRUE(b.Refresh().ok());
  ASSERT_TRUE(c.Refresh().ok());
  EXPECT_TRUE(b.IsLeader());
  EXPECT_TRUE(b.HoldsLease());
  EXPECT_FALSE(c.IsLeader());
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{NodePath(b)}));
  // The old leader finds its node gone: the lease says no at once.
  EXPECT_FALSE(a.HoldsLease());
  EXPECT_FALSE(a.IsLeader());
}

TEST(LeaderElectionTest, MiddleCandidateGoneStandbyWatchesTheNextOne) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  auto b = Candidate(zk, "b:2");
  auto c = Candidate(zk, "c:3");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(b.Refresh().ok());
  ASSERT_TRUE(c.Refresh().ok());
  b.Resign();
  EXPECT_FALSE(zk.nodes.count(std::string(kElection) + "/n_0000000001"));
  zk.data_watches.clear();
  ASSERT_TRUE(c.Refresh().ok());
  EXPECT_FALSE(c.IsLeader());  // a still leads
  EXPECT_EQ(zk.data_watches, (std::set<std::string>{NodePath(a)}));
  EXPECT_TRUE(a.HoldsLease());
}

TEST(LeaderElectionTest, SessionExpiryEndsLeadershipAtOnceAndReentersWithANewNode) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(a.IsLeader());
  const std::string first = a.NodeName();
  zk.ExpireSession();
  a.OnSessionExpired();
  EXPECT_FALSE(a.IsLeader());
  EXPECT_FALSE(a.HoldsLease());
  ASSERT_TRUE(a.Refresh().ok());
  EXPECT_NE(a.NodeName(), first);
  EXPECT_TRUE(a.IsLeader());
  EXPECT_EQ(zk.ephemeral_owners.at(NodePath(a)), zk.session_id);
}

TEST(LeaderElectionTest, LeaseRefusedOnANewSessionEvenBeforeTheExpiryEvent) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  ASSERT_TRUE(a.Refresh().ok());
  zk.ExpireSession();  // the event has not been delivered yet
  EXPECT_FALSE(a.HoldsLease());
  EXPECT_FALSE(a.IsLeader());
  ASSERT_TRUE(a.Refresh().ok());
  EXPECT_TRUE(a.IsLeader());
}

TEST(LeaderElectionTest, DisconnectedLeaderHoldsNoLeaseAndLeadsAgainOnReconnect) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  ASSERT_TRUE(a.Refresh().ok());
  const std::string node = a.NodeName();
  zk.available = false;
  EXPECT_FALSE(a.HoldsLease());
  EXPECT_FALSE(a.Refresh().ok());
  EXPECT_FALSE(a.IsLeader());
  zk.available = true;  // same session: its node survived
  ASSERT_TRUE(a.Refresh().ok());
  EXPECT_TRUE(a.IsLeader());
  EXPECT_EQ(a.NodeName(), node);
}

TEST(LeaderElectionTest, LeftoverNodeOfThisCandidateIsRemovedBeforeQueueing) {
  FakeZk zk;
  ASSERT_TRUE(zk.EnsurePath(kElection).ok());
  // A create whose reply was lost: the node exists in the live session, unknown to the client.
  auto leftover = zk.CreateEphemeralSequential(std::string(kElection) + "/n_", "a:1");
  ASSERT_TRUE(leftover.ok());
  auto b = Candidate(zk, "b:2");
  auto a = Candidate(zk, "a:1");
  ASSERT_TRUE(a.Refresh().ok());
  EXPECT_FALSE(zk.nodes.count(*leftover));
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_TRUE(a.IsLeader());
  EXPECT_FALSE(b.IsLeader());
}

TEST(LeaderElectionTest, ResignLetsTheStandbyLead) {
  FakeZk zk;
  auto a = Candidate(zk, "a:1");
  auto b = Candidate(zk, "b:2");
  ASSERT_TRUE(a.Refresh().ok());
  ASSERT_TRUE(b.Refresh().ok());
  a.Resign();
  EXPECT_FALSE(a.IsLeader());
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_TRUE(b.IsLeader());
}

}  // namespace
}  // namespace presplit::daemon
