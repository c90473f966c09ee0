// VerifyPhase on its own, over a context of fakes: a right copy verifies under the throttle, a
// cell removed from the target fails it naming the row, a row written all the time is deferred
// to the switch, a row that still differs counts, a bulk load that got past the guard stops it,
// and a guard removed by hand is attached again first.
#include "daemon/migrate/phase_verify.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kCompared = "tinawang:check";
constexpr const char* kCopy = "tinawang:check__g2";

class VerifyPhaseTest : public ::testing::Test {
 protected:
  VerifyPhaseTest() : f_(Options()), phase_(f_.context) {
    node_.plan = f_.TwoGenerations(Phase::kVerifying);
    for (const auto& region : f_.admin.tables[kCompared].regions) {
      node_.plan.source_regions.push_back(SourceRegion{region.start_key, region.end_key});
    }
    // The source is guarded already (born so), and a copy was made: every row in both.
    f_.bridge.guards[kCompared] = FakeMigrationBridge::Guard{};
    for (const char* key : {"1a", "2b", "4d", "7g", "8h"}) {
      f_.bridge.tables[kCompared][key] = FakeMigrationBridge::Row{};
      f_.bridge.tables[kCopy][key] = FakeMigrationBridge::Row{};
    }
  }
  static MigratorOptions Options() {
    MigratorOptions options = testing::PhaseTestOptions();
    options.verify_partitions = 4;
    options.verify_rounds = 3;
    return options;
  }
  MigrationPlan& plan() { return node_.plan; }
  nlohmann::json Report() { return nlohmann::json::parse(plan().verification); }
  // A counter: a newer value is written to the source before every read of it (the digests, the
  // row comparison, each re-read), which the capture carries to the target only after.
  void KeepWriting(const std::string& key) {
    auto bump = [this, key] {
      ASSERT_TRUE(f_.bridge.Write(kCompared, key, FakeMigrationBridge::Row{3, ++version_}));
    };
    f_.bridge.before_source_digest = [bump](const std::string&) { bump(); };
    f_.bridge.before_diff = bump;
    f_.bridge.after_row_hashes = [bump](const std::string& table) {
      if (table == kCompared) bump();
    };
  }

  FakePhaseContext f_;
  VerifyPhase phase_;
  PlanNode node_;
  int version_ = 0;
};

TEST_F(VerifyPhaseTest, ARightCopyVerifiesUnderTheThrottleAndMovesToTheSwitch) {
  ASSERT_TRUE(f_.bridge.Write(kCompared, "5e"));  // a live write: the capture carries it

  EXPECT_EQ(phase_.Verify(node_), Step::kAdvanced);

  EXPECT_EQ(plan().phase, Phase::kSwitching);
  EXPECT_TRUE(plan().deferred_rows.empty());
  EXPECT_TRUE(Report()["ok"].get<bool>());
  EXPECT_EQ(Report()["source"]["rows"], 6);
  EXPECT_EQ(Report()["target"]["rows"], 6);
  EXPECT_EQ(f_.bridge.confirms, std::vector<std::string>{kCompared});  // the guard refuses
  EXPECT_EQ(f_.throttle_shown,
            (std::vector<std::string>{"tinawang:check: on", "tinawang:check: ended"}));
  EXPECT_EQ(f_.counters.verification_failures.load(), 0u);
}

TEST_F(VerifyPhaseTest, ACellRemovedFromTheTargetFailsItNamingTheRow) {
  f_.bridge.Damage(kCopy, "4d");

  EXPECT_EQ(phase_.Verify(node_), Step::kWaiting);

  EXPECT_EQ(plan().phase, Phase::kFailedVerification);
  EXPECT_EQ(plan().error.rfind("verification failed: 1 rows differ between tinawang:check and "
                               "tinawang:check__g2 after 3 re-reads (first: '4d': 1 row in",
                               0),
            0u)
      << plan().error;
  EXPECT_FALSE(Report()["ok"].get<bool>());
  EXPECT_EQ(Report()["rows_differing"], 1);
  EXPECT_EQ(f_.counters.verification_failures.load(), 1u);
}

TEST_F(VerifyPhaseTest, ARowWrittenAllTheTimeIsComparedAgainAtTheSwitch) {
  KeepWriting("7g");

  EXPECT_EQ(phase_.Verify(node_), Step::kAdvanced);

  EXPECT_EQ(plan().phase, Phase::kSwitching);
  EXPECT_EQ(plan().deferred_rows, std::vector<std::string>{"7g"});
  EXPECT_EQ(Report()["rows_deferred_to_the_switch"], 1);
}

TEST_F(VerifyPhaseTest, ARowThatDiffersWithoutChangingCountsEvenBesideAHotOne) {
  KeepWriting("7g");
  f_.bridge.Damage(kCopy, "2b");

  EXPECT_EQ(phase_.Verify(node_), Step::kWaiting);

  EXPECT_EQ(plan().phase, Phase::kFailedVerification);
  // Only the row that differs without changing counts; the hot one is left to the switch, but
  // nothing switches.
  EXPECT_EQ(plan().error.rfind("verification failed: 1 rows differ", 0), 0u) << plan().error;
  EXPECT_NE(plan().error.find("(first: '2b'"), std::string::npos) << plan().error;
  EXPECT_EQ(Report()["rows_deferred_to_the_switch"], 1);
  EXPECT_TRUE(plan().deferred_rows.empty());
}

TEST_F(VerifyPhaseTest, ABulkLoadPastTheGuardStopsItBeforeAnyComparison) {
  f_.bridge.guards.erase(kCompared);
  ASSERT_TRUE(f_.bridge.BulkLoad(kCompared, "3c"));
  f_.bridge.guards[kCompared] = FakeMigrationBridge::Guard{};  // put back, too late

  EXPECT_EQ(phase_.Verify(node_), Step::kWaiting);

  EXPECT_EQ(f_.record.stops_for_bulk_loads, std::vector<int64_t>{1});
  EXPECT_EQ(f_.bridge.digest_target_calls, 0);
  EXPECT_TRUE(plan().verification.empty());
}

TEST_F(VerifyPhaseTest, AGuardRemovedByHandIsAttachedAgainBeforeAnythingIsCompared) {
  f_.bridge.guards.erase(kCompared);
  bool guarded_when_compared = false;
  f_.bridge.before_target_digest = [&] {
    guarded_when_compared = f_.bridge.guards.count(kCompared);
  };

  EXPECT_EQ(phase_.Verify(node_), Step::kAdvanced);

  EXPECT_TRUE(guarded_when_compared);
  EXPECT_EQ(f_.bridge.modifies[kCompared], 1);  // attached: one reopen
  EXPECT_EQ(f_.bridge.confirms, std::vector<std::string>{kCompared});
  EXPECT_EQ(plan().phase, Phase::kSwitching);
}

}  // namespace
}  // namespace presplit::daemon::migrate
