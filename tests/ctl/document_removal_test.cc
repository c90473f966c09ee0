// presplitctl rm under a re-salt migration: refused, naming the phase and what to do, and
// nothing removed; without a plan the document goes.
#include "ctl/document_removal.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/daemon/fakes.h"

namespace presplit::ctl {
namespace {

constexpr const char* kDocument = "/presplit/tables/ns:t";
constexpr const char* kPlan = "/presplit/migrations/ns:t";

class DocumentRemovalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(zk_.EnsurePath("/presplit/tables").ok());
    ASSERT_TRUE(zk_.EnsurePath("/presplit/migrations").ok());
    ASSERT_TRUE(zk_.Upsert(kDocument, R"({"version": 1, "table": "ns:t"})").ok());
  }
  void PlanIn(const std::string& phase) {
    ASSERT_TRUE(
        zk_.Upsert(kPlan, R"({"table": "ns:t", "target": "ns:t__g2", "phase": ")" + phase + R"("})")
            .ok());
  }
  bool DocumentThere() { return zk_.Get(kDocument, false).ok(); }

  daemon::testing::FakeZk zk_;
};

TEST_F(DocumentRemovalTest, WithoutAMigrationTheDocumentIsRemoved) {
  ASSERT_TRUE(RemoveDocument(zk_, "/presplit", "ns:t").ok());
  EXPECT_FALSE(DocumentThere());
  EXPECT_EQ(RemoveDocument(zk_, "/presplit", "ns:t").code(), StatusCode::kNotFound);
}

TEST_F(DocumentRemovalTest, BeforeTheSwitchItIsRefusedPointingAtAbort) {
  for (const char* phase :
       {"planned", "copying", "verifying", "failed_verification", "switching"}) {
    PlanIn(phase);
    Status s = RemoveDocument(zk_, "/presplit", "ns:t");
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << phase;
    EXPECT_NE(s.message().find("rm refused, nothing removed"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(std::string("(phase ") + phase + ")"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("`presplitctl migration abort ns:t` first"), std::string::npos)
        << s.message();
    EXPECT_TRUE(DocumentThere()) << phase;
  }
}

TEST_F(DocumentRemovalTest, AfterTheSwitchItIsRefusedUntilTheMigrationEnds) {
  for (const char* phase : {"catching_up", "grace", "fencing", "done", "rolling_back"}) {
    PlanIn(phase);
    Status s = RemoveDocument(zk_, "/presplit", "ns:t");
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << phase;
    EXPECT_NE(s.message().find("has switched to ns:t__g2"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("wait until it ends"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("abort"), std::string::npos) << "no abort after the switch";
    EXPECT_TRUE(DocumentThere()) << phase;
  }
  ASSERT_TRUE(zk_.Delete(kPlan, -1).ok());  // the migration ended
  EXPECT_TRUE(RemoveDocument(zk_, "/presplit", "ns:t").ok());
  EXPECT_FALSE(DocumentThere());
}

TEST_F(DocumentRemovalTest, AnUnreadablePlanOrZooKeeperRemovesNothing) {
  ASSERT_TRUE(zk_.Upsert(kPlan, std::string(100, '[')).ok());
  Status s = RemoveDocument(zk_, "/presplit", "ns:t");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("cannot be read"), std::string::npos) << s.message();
  EXPECT_TRUE(DocumentThere());
  zk_.available = false;
  EXPECT_FALSE(RemoveDocument(zk_, "/presplit", "ns:t").ok());
  zk_.available = true;
  EXPECT_TRUE(DocumentThere());
}

}  // namespace
}  // namespace presplit::ctl
