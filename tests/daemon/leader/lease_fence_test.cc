#include "daemon/leader/lease_fence.h"

#include <gtest/gtest.h>

#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

using testing::FakeZk;
using testing::FakeZkSession;

constexpr const char* kFenceElection = "/presplit/leader";
constexpr const char* kNode = "/presplit/status/ns:t";

// One presplitd's session and election, and a component's fence over them.
struct Leader {
  explicit Leader(FakeZk& zk)
      : session(zk),
        election(session, LeaderElectionOptions{kFenceElection, "a:1"}),
        fence(election, session) {}
  FakeZkSession session;
  LeaderElection election;
  LeaseFence fence;
};

class LeaseFenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(zk_.EnsurePath("/presplit/status").ok());
    ASSERT_TRUE(zk_.Upsert(kNode, "before").ok());
    ASSERT_TRUE(a_.election.Refresh().ok());
    ASSERT_TRUE(a_.election.IsLeader());
  }
  FakeZk zk_;
  Leader a_{zk_};
};

TEST_F(LeaseFenceTest, NoWriteBeforeALeaseCheck) {
  Status s = a_.fence.zk().Set(kNode, "after", -1);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("no lease check"), std::string::npos) << s.message();
  EXPECT_EQ(zk_.nodes.at(kNode).data, "before");
  // Reads decide nothing: they go through.
  auto read = a_.fence.zk().Get(kNode, /*watch=*/false);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->data, "before");
}

TEST_F(LeaseFenceTest, WritesRunOnTheSessionTheCheckConfirmed) {
  ASSERT_TRUE(a_.fence.Check());
  EXPECT_EQ(a_.fence.checked_session(), a_.session.session_id);
  ASSERT_TRUE(a_.fence.zk().Set(kNode, "after", -1).ok());
  ASSERT_TRUE(a_.fence.zk().Create(std::string(kNode) + "x", "", OpenAcl()).ok());
  ASSERT_TRUE(a_.fence.zk().EnsurePath("/presplit/migrations").ok());
  ASSERT_TRUE(a_.fence.zk().Delete(std::string(kNode) + "x", -1).ok());
  EXPECT_EQ(zk_.nodes.at(kNode).data, "after");
  EXPECT_TRUE(zk_.nodes.count("/presplit/migrations"));
  for (const auto& [session, path] : a_.session.write_log) {
    if (path.rfind(kFenceElection, 0) != 0) {
      EXPECT_EQ(session, a_.fence.checked_session()) << path;
    }
  }
}

TEST_F(LeaseFenceTest, ACheckThatSaysNoStopsTheWritesThatFollow) {
  ASSERT_TRUE(a_.fence.Check());
  FakeZkSession b(zk_);
  LeaderElection b_election(b, LeaderElectionOptions{kFenceElection, "b:2"});
  ASSERT_TRUE(b_election.Refresh().ok());
  a_.election.Resign();  // b is next in line
  EXPECT_FALSE(a_.fence.Check());
  EXPECT_EQ(a_.fence.checked_session(), 0);
  EXPECT_FALSE(a_.fence.zk().Set(kNode, "stale", -1).ok());
  EXPECT_EQ(zk_.nodes.at(kNode).data, "before");
}

TEST_F(LeaseFenceTest, AnExpiredSessionsCheckAllowsNothingOnTheNextSession) {
  ASSERT_TRUE(a_.fence.Check());
  const int64_t first = a_.fence.checked_session();
  a_.session.Expire();
  EXPECT_FALSE(a_.fence.zk().Set(kNode, "stale", -1).ok()) << "the old session is gone";
  a_.election.OnSessionExpired();
  ASSERT_TRUE(a_.election.Refresh().ok());  // a new session, and a leads again
  ASSERT_TRUE(a_.election.IsLeader());
  Status s = a_.fence.zk().Set(kNode, "stale", -1);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("not on the current"), std::string::npos) << s.message();
  EXPECT_EQ(zk_.nodes.at(kNode).data, "before");
  // Checked again, on the new session: the writes go on.
  ASSERT_TRUE(a_.fence.Check());
  EXPECT_NE(a_.fence.checked_session(), first);
  ASSERT_TRUE(a_.fence.zk().Set(kNode, "fresh", -1).ok());
  EXPECT_EQ(zk_.nodes.at(kNode).data, "fresh");
}

TEST_F(LeaseFenceTest, EachComponentAnswersForItsOwnCheck) {
  LeaseFence other(a_.election, a_.session);
  ASSERT_TRUE(a_.fence.Check());
  ASSERT_TRUE(other.Check());
  a_.session.Expire();
  a_.election.OnSessionExpired();
  ASSERT_TRUE(a_.election.Refresh().ok());
  ASSERT_TRUE(other.Check());  // only this component checked on the new session
  EXPECT_TRUE(other.zk().Set(kNode, "checked", -1).ok());
  EXPECT_FALSE(a_.fence.zk().Set(kNode, "unchecked", -1).ok());
  EXPECT_EQ(zk_.nodes.at(kNode).data, "checked");
}

TEST_F(LeaseFenceTest, OnlyTheElectionStartsSessions) {
  a_.session.Expire();
  Status s = a_.fence.zk().StartNewSession();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a_.session.sessions_started, 0);
  EXPECT_TRUE(a_.fence.zk().SessionExpired());
}

}  // namespace
}  // namespace presplit::daemon
