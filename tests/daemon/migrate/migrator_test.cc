// The migration engine over fakes: ZooKeeper and HBase in memory (tests/daemon/fakes.h) and a
// MigrationBridge over in-memory tables whose capture peers ship writes when acknowledgements
// are read (tests/daemon/migrate/fake_migration_bridge.h). The real copy, capture and
// verification run end to end in tests/e2e/test_migration.py.
#include "daemon/migrate/migrator.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "daemon/reconcile/reconciler.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/fake_migration_bridge.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;
using testing::FakeAdmin;
using testing::FakeMigrationBridge;
using testing::FakeZk;

// FakeAdmin with a hook on DescribeTable: the migrator's switch describes the target right
// before it writes the status, which is where a request racing the switch is injected.
class HookedAdmin : public FakeAdmin {
 public:
  Result<TableDescription> DescribeTable(const std::string& table) override {
    if (on_describe) on_describe(table);
    return FakeAdmin::DescribeTable(table);
  }
  std::function<void(const std::string& table)> on_describe;
};

constexpr const char* kSource = "tinawang:check";
constexpr const char* kTarget = "tinawang:check__g2";

class MigratorTest : public MigrationZnodesTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(reconciler_.Prepare().ok());
    PutDoc(Document(10, ""));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    ASSERT_EQ(Status()["phase"], "ready");
    bridge_.admin = &admin_;
    // 1,000 rows over the ten buckets: "<bucket digit><id>", three cells each.
    for (int i = 0; i < 1000; ++i) bridge_.Write(kSource, Key(i));
    options_.zk_root = "/presplit";
    options_.daemon_id = "test:1";
    options_.chunk_rows = 30;
    options_.progress_interval = std::chrono::milliseconds(5);
    options_.sleep = [](std::chrono::milliseconds) {};
    options_.ack_timeout = std::chrono::milliseconds(50);
    options_.rollback_settle = std::chrono::milliseconds(0);
  }
  static std::string Key(int i) {
    char row[16];
    std::snprintf(row, sizeof(row), "%d%07d", i % 10, i);
    return row;
  }

  // The document edited to 16 buckets with migrations allowed; the reconciler plans it.
  void StartMigration(const std::string& migration = R"({"allowed": true, "grace_period_s": 0,
                                                          "workers": 3})") {
    PutDoc(Document(16, migration));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  }
  json MigrateWithTheHfileEngine();
  // The target holds exactly the source's rows (the same content).
  void ExpectTargetEqualsSource() {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    const auto& source = bridge_.tables[kSource];
    const auto& target = bridge_.tables[kTarget];
    ASSERT_EQ(target.size(), source.size());
    for (const auto& [key, row] : source) {
      ASSERT_TRUE(target.count(key)) << key;
      EXPECT_EQ(target.at(key), row) << key;
    }
  }
  // One run of a daemon that is killed (its lease lost, so it stops before its next change) as
  // soon as `alive` turns false.
  void RunUntilKilled(const std::function<bool()>& alive) {
    MigratorOptions dying = options_;
    dying.lease = alive;
    Migrator first(zk_, admin_, bridge_, dying);
    (void)first.RunOnceAndWait();
  }
  // The plan's grace period ends now (the plan is the daemon's; a test stands in for the clock).
  void EndGracePeriod() {
    auto node = zk_.Get("/presplit/migrations/tinawang:check", false);
    ASSERT_TRUE(node.ok());
    json plan = json::parse(node->data);
    plan["grace_until_ms"] = 1;
    ASSERT_TRUE(zk_.Set("/presplit/migrations/tinawang:check", plan.dump(), node->version).ok());
  }
  // What presplitctl does, from inside a hook of the fakes (no re-entry into them).
  void RequestBehindTheMigratorsBack(const std::string& request) {
    zk_.nodes["/presplit/requests/tinawang:check"].data = json{{"request", request}}.dump();
  }
  // Row 70000007 is a counter written all the time: before the first source digest (so that its
  // partition differs), before the row comparison, and after every read of it in the source (a
  // write refused once the source is read-only, at the switch's pause).
  void KeepWritingTheCounter(int& version) {
    counter_written_ = std::make_unique<std::once_flag>();
    bridge_.before_source_digest = [&](const std::string&) {
      std::call_once(*counter_written_, [&] {
        bridge_.Write(kSource, "70000007", FakeMigrationBridge::Row{2, ++version});
      });
    };
    bridge_.before_diff = [&] {
      bridge_.Write(kSource, "70000007", FakeMigrationBridge::Row{2, ++version});
    };
    bridge_.after_row_hashes = [&](const std::string& table) {
      if (table == kSource) {
        bridge_.Write(kSource, "70000007", FakeMigrationBridge::Row{2, ++version});
      }
    };
  }
  std::unique_ptr<std::once_flag> counter_written_;

  void ExpectSourceAndStatusUntouched() {
    EXPECT_TRUE(admin_.tables.count(kSource));
    EXPECT_FALSE(admin_.disabled.count(kSource)) << "the source is untouched";
    EXPECT_FALSE(admin_.deleted.count(kSource));
    EXPECT_FALSE(bridge_.read_only.count(kSource));
    json status = Status();
    EXPECT_EQ(status["physical_table"], kSource) << status.dump();
    EXPECT_EQ(status["generation"], 1);
    EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
    EXPECT_EQ(status["migration"]["phase"], "aborted");
    EXPECT_FALSE(status["migration"].contains("previous"))
        << "no SDK reads a previous generation of an aborted migration";
    EXPECT_TRUE(bridge_.peers.empty()) << "no capture peer left behind";
    EXPECT_FALSE(bridge_.GuardActiveLocked(kSource)) << "the source takes bulk loads again";
  }

  HookedAdmin admin_;
  FakeMigrationBridge bridge_;
  Reconciler reconciler_{zk_, admin_, ReconcilerOptions{"/presplit", "test:1"}};
  MigratorOptions options_;
};

TEST_F(MigratorTest, WithoutAllowedAChangedLayoutIsDriftAndNothingIsPlanned) {
  PutDoc(Document(16, ""));
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(Status()["phase"], "drift");
  EXPECT_TRUE(Plan().is_null());
  PutDoc(Document(16, R"({"allowed": false})"));
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(reconciler_.counters().migrations_started, 0u);
}

TEST_F(MigratorTest, AllowedLayoutChangeWritesAPlanAndKeepsWritersOnTheSource) {
  StartMigration();
  json plan = Plan();
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["source"], kSource);
  EXPECT_EQ(plan["target"], kTarget);
  EXPECT_EQ(plan["source_generation"], 1);
  EXPECT_EQ(plan["target_generation"], 2);
  EXPECT_EQ(plan["old_layout"]["salt"]["buckets"], 10);
  EXPECT_EQ(plan["new_layout"]["salt"]["buckets"], 16);
  EXPECT_EQ(plan["source_regions"].size(), 10u);
  EXPECT_EQ(plan["phase"], "planned");
  EXPECT_FALSE(plan.contains("start_ts")) << "nothing is selected by timestamp";
  EXPECT_EQ(plan["capture"]["peer"], CapturePeerOf(kTarget));
  EXPECT_EQ(plan["capture"]["reverse_peer"], ReversePeerOf(kTarget));
  // Writers go on salting with the table's layout until the switch.
  json status = Status();
  EXPECT_EQ(status["phase"], "drift");
  EXPECT_EQ(status["generation"], 1);
  EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
  EXPECT_EQ(reconciler_.counters().migrations_started, 1u);
  // A second pass finds it under way and plans nothing new.
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_EQ(reconciler_.counters().migrations_started, 1u);
}

TEST_F(MigratorTest, AMigrationIsLoggedOnceNotAsDriftOnEveryPass) {
  LogCapture log;
  StartMigration();
  for (int pass = 0; pass < 4; ++pass) {
    ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  }
  EXPECT_EQ(log.Count("migrating to its document's layout"), 1) << log.Text();
  EXPECT_EQ(log.Count("differs from its document"), 0) << log.Text();
  json status = Status();
  EXPECT_EQ(status["phase"], "drift");
  ASSERT_EQ(status["differences"].size(), 2u) << status.dump();
  EXPECT_NE(
      status["differences"][1].get<std::string>().find("a re-salt migration to it is under way"),
      std::string::npos);
  EXPECT_EQ(reconciler_.counters().migrations_started, 1u);
}

TEST_F(MigratorTest, TheCaptureExistsBeforeTheCopyAndCarriesEveryWriteMadeMeanwhile) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  // Writes during the copy, whatever they are: new rows, changed rows, deleted rows (some in
  // regions copied already, some not yet).
  int peers_at_first_chunk = -1;
  bridge_.after_chunk = [&](int calls) {
    if (calls == 1) {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      peers_at_first_chunk = static_cast<int>(bridge_.peers.size());
    }
    if (calls == 5) {
      bridge_.Write(kSource, "30009999");
      bridge_.Write(kSource, Key(3), FakeMigrationBridge::Row{4, 1});
      bridge_.Write(kSource, Key(999), FakeMigrationBridge::Row{1, 7});
      bridge_.Delete(kSource, Key(10));
      bridge_.Delete(kSource, Key(989));
    }
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(peers_at_first_chunk, 1) << "the forward peer exists before the first row is read";
  // Nothing missing, nothing resurrected, nothing stale, up to the moment the old generation
  // was fenced.
  ExpectTargetEqualsSource();
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_FALSE(bridge_.tables[kTarget].count(Key(10)));
    EXPECT_TRUE(bridge_.tables[kTarget].count("30009999"));
  }
  json status = Status();
  EXPECT_EQ(status["physical_table"], kTarget);
  EXPECT_EQ(status["generation"], 2);
  EXPECT_EQ(status["buckets"], 16);
  EXPECT_EQ(status["migration"]["phase"], "done");
  EXPECT_TRUE(Plan().is_null()) << "the plan is removed when done";
  EXPECT_FALSE(zk_.nodes.count("/presplit/migrations/tinawang:check/regions/0"));
  // The target kept deleted cells during the copy only.
  EXPECT_EQ(bridge_.keep_deleted_history,
            (std::vector<std::string>{"tinawang:check__g2=TRUE", "tinawang:check__g2=SOURCE'S"}));
  EXPECT_EQ(bridge_.restored_keep_deleted,
            (std::vector<std::string>{"tinawang:check__g2<-tinawang:check"}))
      << "the families get the source's own setting back, not FALSE";
  // Both peers ran and are gone; the old generation was fenced (read-only), then disabled, kept.
  EXPECT_EQ(bridge_.peers_ever,
            (std::set<std::string>{CapturePeerOf(kTarget), ReversePeerOf(kTarget)}));
  EXPECT_TRUE(bridge_.peers.empty());
  EXPECT_TRUE(bridge_.read_only.count(kSource));
  EXPECT_TRUE(admin_.disabled.count(kSource));
  EXPECT_FALSE(admin_.deleted.count(kSource));
  EXPECT_EQ(migrator.counters().switches, 1u);
  EXPECT_GE(migrator.counters().probes, 1u) << "the catch-up waited for a probe";

  // The reconciler now compares the document with the new generation: ready.
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  status = Status();
  EXPECT_EQ(status["phase"], "ready") << status.dump();
  EXPECT_EQ(status["physical_table"], kTarget);
  EXPECT_EQ(status["migration"]["phase"], "done") << "the summary is carried over";
}

TEST_F(MigratorTest, TheOldGenerationStaysCapturedThroughTheGracePeriodUntilFenced) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  EXPECT_GT(Plan()["capture"]["caught_up_ms"].get<int64_t>(), 0);
  EXPECT_EQ(Status()["generation"], 2);
  // The SDK reads the previous generation too until the old one is fenced: the status names it.
  EXPECT_EQ(Status()["migration"]["previous"]["physical_table"], kSource);
  // A writer that has not seen the switch writes to the old generation: it reaches the new one.
  ASSERT_TRUE(bridge_.Write(kSource, "50000123", FakeMigrationBridge::Row{2, 3}));
  // One that has, writes to the new one: it reaches the old one too (a rollback keeps it).
  ASSERT_TRUE(bridge_.Write(kTarget, "60000456", FakeMigrationBridge::Row{5, 1}));
  bridge_.Ship();
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_TRUE(bridge_.tables[kTarget].count("50000123"));
    EXPECT_TRUE(bridge_.tables[kSource].count("60000456"));
  }
  EXPECT_EQ(bridge_.peers.size(), 2u) << "both peers run during the grace period";
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << "still in its grace period";

  // The last late write lands just before the fence; the fence drains it.
  ASSERT_TRUE(bridge_.Write(kSource, "70000789"));
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_TRUE(bridge_.tables[kTarget].count("70000789")) << "drained before the peer went";
  }
  EXPECT_TRUE(bridge_.peers.empty());
  EXPECT_FALSE(bridge_.Write(kSource, "80000001")) << "the fenced old generation refuses writes";
  EXPECT_TRUE(admin_.disabled.count(kSource));
}

// The capture rides on the WAL; what bypasses it (bulk loads, SKIP_WAL writes) is refused on both
// generations from before the capture and the copy begin, each table reopened as few times as
// possible, until the new generation is the one that stays.
TEST_F(MigratorTest, TheGuardRefusesWhatTheCaptureCannotCarryFromBeforeTheCopyToTheEnd) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "workers": 1})");
  const std::string plan_id = Plan()["plan_id"];
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  using Guard = FakeMigrationBridge::Guard;
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_EQ(bridge_.events,
              (std::vector<std::string>{
                  "create " + std::string(kTarget), "attach guard " + std::string(kSource),
                  "capture " + std::string(kSource), "copy", "guard " + std::string(kTarget),
                  "capture " + std::string(kTarget)}))
        << "the target born guarded; the source's guard attached (a table presplitd did not "
           "create), turned on by its capture and confirmed before the copy, and again before "
           "the verification; the target's guard closed to bulk loads when the copy ended";
    // A moved region's older put can still arrive after its delete marker until the fence's
    // drain: the target keeps deleted cells through the grace period.
    EXPECT_EQ(bridge_.keep_deleted_history,
              (std::vector<std::string>{std::string(kTarget) + "=TRUE"}));
    EXPECT_EQ(bridge_.guards[kSource], (Guard{"", false})) << "dormant, on by the capture";
    EXPECT_EQ(bridge_.guards[kTarget], (Guard{plan_id, false}));
    EXPECT_EQ(bridge_.modifies[kSource], 1) << "one reopen of the source, to attach its guard";
    EXPECT_EQ(bridge_.modifies[kTarget], 1) << "the guard rode on the copy's end";
  }
  // Both generations refuse what the capture could not carry, during the grace period too.
  EXPECT_FALSE(bridge_.BulkLoad(kSource, "30001234"));
  EXPECT_FALSE(bridge_.BulkLoad(kTarget, "30001234"));
  EXPECT_FALSE(bridge_.WriteSkippingWal(kSource, "30001235"));
  EXPECT_FALSE(bridge_.WriteSkippingWal(kTarget, "30001235"));
  EXPECT_TRUE(bridge_.Write(kTarget, "30001236")) << "a write through the WAL passes";

  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_FALSE(bridge_.GuardActiveLocked(kTarget)) << "the new generation stays, unguarded";
    EXPECT_EQ(bridge_.guards[kTarget], (Guard{"", false}))
        << "its guard dormant, attached for the next migration";
    EXPECT_EQ(bridge_.modifies[kTarget], 2) << "the guard went with KEEP_DELETED_CELLS";
    EXPECT_EQ(bridge_.events.back(), "settle " + std::string(kTarget));
    EXPECT_TRUE(bridge_.guards.count(kSource)) << "the disabled old generation is not reopened";
  }
  EXPECT_TRUE(bridge_.BulkLoad(kTarget, "30001237"));
  EXPECT_TRUE(bridge_.WriteSkippingWal(kTarget, "30001238"));
  EXPECT_EQ(bridge_.refused_bulk_loads, 2);
  EXPECT_EQ(bridge_.refused_skip_wal, 2);
}

// A table presplitd created carries the guard from birth, dormant: the migration turns it on
// through its capture and off by ending it, and never reopens the source's regions for it.
TEST_F(MigratorTest, ATableBornWithTheGuardIsNeverReopenedForIt) {
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.guards[kSource] = FakeMigrationBridge::Guard{"", false};
  }
  EXPECT_TRUE(bridge_.WriteSkippingWal(kSource, "30001230")) << "dormant before the migration";
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  EXPECT_FALSE(bridge_.WriteSkippingWal(kSource, "30001231")) << "on while the capture runs";
  EXPECT_FALSE(bridge_.BulkLoad(kSource, "30001232"));
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_EQ(bridge_.modifies[kSource], 0) << "no reopen of the source for its guard";
    EXPECT_EQ(bridge_.confirms, (std::vector<std::string>{kSource, kSource}))
        << "confirmed before the copy and before the verification";
  }
}

TEST_F(MigratorTest, ACopyWaitsForEveryRegionOfTheSourceToConfirmItsGuard) {
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.confirm_error = Status::Unavailable("2 region(s) of tinawang:check did not confirm");
  }
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "planned") << "no copy before the guard is confirmed";
  EXPECT_NE(Plan()["error"].get<std::string>().find(
                "confirming the MigrationGuard of tinawang:check: 2 region(s)"),
            std::string::npos)
      << Plan().dump();
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_EQ(bridge_.copy_calls, 0);
    bridge_.confirm_error = Status::Ok();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done") << "retried on the next run";
}

TEST_F(MigratorTest, AGuardAttachedJustBeforeACrashIsNotAttachedAgain) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // The daemon dies (its lease is gone) right after the source was guarded, before its peer.
  RunUntilKilled([&] {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    return !bridge_.guards.count(kSource);
  });
  ASSERT_EQ(Plan()["phase"], "planned");
  EXPECT_TRUE(bridge_.peers_ever.empty());
  EXPECT_EQ(bridge_.modifies[kSource], 1);

  Migrator next(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(next.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  ExpectTargetEqualsSource();
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.modifies[kSource], 1) << "found attached: no second reopen";
  EXPECT_EQ(std::count(bridge_.events.begin(), bridge_.events.end(),
                       "attach guard " + std::string(kSource)),
            1);
  EXPECT_FALSE(bridge_.GuardActiveLocked(kTarget));
}

TEST_F(MigratorTest, AFenceResumedAfterACrashSettlesTheNewGenerationOnce) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  RunUntilKilled([&] {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    return bridge_.events.empty() || bridge_.events.back() != "settle " + std::string(kTarget);
  });
  ASSERT_EQ(Plan()["phase"], "fencing");
  EXPECT_FALSE(bridge_.GuardActiveLocked(kTarget));

  Migrator next(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(next.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.modifies[kTarget], 2) << "guarded at the copy's end, settled once";
  EXPECT_EQ(bridge_.restored_keep_deleted,
            (std::vector<std::string>{std::string(kTarget) + "<-" + std::string(kSource)}));
}

TEST_F(MigratorTest, AGuardTheClusterRefusesStopsTheStartSayingWhatToDoAndCapturesNothing) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  bridge_.guard_error = Status::Internal(
      "org.apache.hadoop.hbase.DoNotRetryIOException: Class "
      "io.presplit.capture.MigrationGuard cannot be loaded");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "planned");
  const std::string error = Plan()["error"];
  EXPECT_NE(error.find("attaching the MigrationGuard to tinawang:check"), std::string::npos)
      << error;
  EXPECT_NE(error.find("cannot be loaded"), std::string::npos) << error;
  EXPECT_NE(error.find("need presplit-hbase.jar on their classpath"), std::string::npos) << error;
  EXPECT_EQ(Status()["migration"]["error"], error);
  EXPECT_TRUE(bridge_.peers_ever.empty()) << "no capture without the guard";
  EXPECT_EQ(bridge_.copy_calls, 0);

  bridge_.guard_error = Status::Ok();  // the jar installed: the next run goes on
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, ABulkLoadPastTheGuardBeforeTheSwitchFailsTheVerification) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // Someone removes the guard by hand and bulk-loads into a region the copy has not read yet.
  bridge_.after_chunk = [&](int calls) {
    if (calls != 1) return;
    {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      bridge_.guards.erase(kSource);
    }
    EXPECT_TRUE(bridge_.BulkLoad(kSource, "90000001"));
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "failed_verification");
  EXPECT_EQ(Status()["physical_table"], kSource) << "nothing switched";
  const std::string error = Plan()["error"];
  EXPECT_NE(error.find("verification failed: 1 bulk loads into tinawang:check "
                       "(region-of-90000001@"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("got past the MigrationGuard"), std::string::npos) << error;
  EXPECT_NE(error.find("resume to verify again"), std::string::npos) << error;
  EXPECT_EQ(bridge_.diff_calls, 0) << "stopped before comparing anything";
  const std::string warnings = Status()["migration"]["warnings"].dump();
  EXPECT_NE(warnings.find("1 bulk loads into tinawang:check got past the MigrationGuard"),
            std::string::npos)
      << warnings;

  // The copy read that region after the load: verified again, the comparison finds its cells.
  Request("resume");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done") << Status().dump();
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kTarget].count("90000001"));
}

TEST_F(MigratorTest, ABulkLoadPastTheGuardDuringTheVerificationStopsTheSwitch) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // After the verification's notices were read, while it digests the source.
  std::once_flag once;
  bridge_.before_source_digest = [&](const std::string&) {
    std::call_once(once, [&] {
      {
        std::lock_guard<std::mutex> lock(bridge_.mu);
        bridge_.guards.erase(kSource);
      }
      // The same cells again (a load run twice): the comparison cannot tell, the capture can.
      EXPECT_TRUE(bridge_.BulkLoad(kSource, Key(2)));
    });
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "failed_verification");
  EXPECT_EQ(Status()["physical_table"], kSource) << "nothing switched";
  EXPECT_EQ(Plan()["writes_paused_until_ms"], 0) << "the switch's write pause is lifted";
  EXPECT_FALSE(bridge_.read_only.count(kSource));
  const std::string error = Plan()["error"];
  EXPECT_NE(error.find("1 bulk loads into tinawang:check"), std::string::npos) << error;
  EXPECT_GE(Plan()["switch_attempts"].get<int>(), 1) << "found during the switch's pause";
}

TEST_F(MigratorTest, ABulkLoadPastTheGuardAfterTheSwitchPausesWhileARollbackCanKeepIt) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.guards.erase(kSource);
  }
  ASSERT_TRUE(bridge_.BulkLoad(kSource, "40000004"));
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << "not fenced";
  EXPECT_EQ(Plan()["paused"], true);
  const std::string error = Plan()["error"];
  EXPECT_NE(error.find("paused: 1 bulk loads into tinawang:check"), std::string::npos) << error;
  EXPECT_NE(
      error.find("presplitctl migration rollback tinawang:check` (then `resume`) switches back"),
      std::string::npos)
      << error;
  EXPECT_EQ(bridge_.peers.size(), 2u) << "both peers kept: a rollback loses nothing";

  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["physical_table"], kSource) << "switched back";
  Request("resume");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "rolled_back");
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kSource].count("40000004")) << "the loaded cells kept";
}

TEST_F(MigratorTest, AFenceWhosePeerHasNotDrainedWaitsAndKeepsThePeer) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  ASSERT_TRUE(bridge_.Write(kSource, "50000123"));
  bridge_.stall = true;  // the RegionServer's shipper is behind
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "fencing");
  EXPECT_NE(Plan()["error"].get<std::string>().find("has not shipped every region"),
            std::string::npos);
  EXPECT_TRUE(bridge_.peers.count(CapturePeerOf(kTarget))) << "not removed before it drained";
  EXPECT_FALSE(admin_.disabled.count(kSource));
  bridge_.stall = false;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kTarget].count("50000123"));
}

// A bulk load past the guard that the fence's drain brings in: the fence pauses with the forward
// peer kept (the old generation still has those cells), and the new generation, which no peer
// ships any more, takes the bulk load the operator runs again; it keeps deleted cells until the
// fence ends.
TEST_F(MigratorTest, ABulkLoadSeenByTheFencePausesItWithTheNewGenerationTakingBulkLoads) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  bridge_.stall = true;  // the fence waits for the drain
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "fencing");
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.guards.erase(kSource);
  }
  ASSERT_TRUE(bridge_.BulkLoad(kSource, "40000005"));
  bridge_.stall = false;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "fencing");
  EXPECT_EQ(Plan()["paused"], true);
  const std::string error = Plan()["error"];
  EXPECT_NE(error.find("bulk loads into tinawang:check"), std::string::npos) << error;
  EXPECT_TRUE(bridge_.peers.count(CapturePeerOf(kTarget))) << "the forward peer is kept";
  EXPECT_FALSE(admin_.disabled.count(kSource));
  EXPECT_TRUE(bridge_.BulkLoad(kTarget, "40000005")) << "run again into the new generation";
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.keep_deleted_history,
            (std::vector<std::string>{std::string(kTarget) + "=TRUE"}));
}

// A RegionServer that died left edits in its WALs; HBase ships them from a recovered queue some
// time after the crash, while probes are already acknowledged by the regions' new servers.
TEST_F(MigratorTest, ProbesAreNotTrustedWhileADeadServersWalsAreUnshipped) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  const std::string peer = CapturePeerOf(kTarget);
  const std::string held_row = "30000333";  // written on the server that died
  bool shipped_held = false;
  bridge_.on_describe_capture = [&](const std::string& id) {
    if (id != peer || shipped_held) return;
    std::lock_guard<std::mutex> lock(bridge_.mu);
    if (bridge_.describe_capture_calls < 5) {
      bridge_.recovered_queues[peer] = {peer + "-rs2.example,16020,1@rs1.example,16020,2"};
      return;
    }
    // The claiming server ships the dead one's WAL: its edit arrives, the queue goes.
    bridge_.tables[kTarget][held_row] = FakeMigrationBridge::Row{3, 0};
    bridge_.recovered_queues.erase(peer);
    shipped_held = true;
  };
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.tables[kSource][held_row] = FakeMigrationBridge::Row{3, 0};
  }
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << Plan().dump();
  EXPECT_TRUE(shipped_held) << "the migration went on only once the recovered queue was gone";
  EXPECT_GE(bridge_.describe_capture_calls, 5);
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, ADeadServersWalsNeverShippedHoldTheSwitchBackNamingTheQueue) {
  options_.recovery_timeout = std::chrono::milliseconds(0);
  options_.switch_retry = std::chrono::milliseconds(0);
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "max_write_pause_ms": 500})");
  const std::string peer = CapturePeerOf(kTarget);
  bridge_.on_describe_capture = [&](const std::string& id) {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    if (id == peer) bridge_.recovered_queues[peer] = {peer + "-rs2@rs1"};
  };
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "switching") << "no switch while the queue waits";
  EXPECT_EQ(Status()["generation"], 1);
  EXPECT_FALSE(bridge_.read_only.count(kSource)) << "writes resumed on the old generation";
  const std::string error = Plan()["error"].get<std::string>();
  EXPECT_NE(error.find("switch abandoned: the capture had not shipped every write"),
            std::string::npos)
      << error;
  EXPECT_NE(log.Text().find("the WALs of a RegionServer that died: " + peer + "-rs2@rs1"),
            std::string::npos)
      << log.Text();
  // The queue drains: the next run goes on.
  bridge_.on_describe_capture = nullptr;
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.recovered_queues.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace");
}

TEST_F(MigratorTest, AFenceWaitsForADeadServersWalsBeforeRemovingThePeer) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  const std::string peer = CapturePeerOf(kTarget);
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.recovered_queues[peer] = {peer + "-rs2@rs1"};
  }
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "fencing");
  EXPECT_TRUE(bridge_.peers.count(peer)) << "not removed while a dead server's WALs wait";
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.recovered_queues.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(bridge_.peers.empty());
}

// A region of the old generation moved (balancer, crash, split) while its first server's queue
// lagged: that server's WAL still holds edits of the region when the closes from its current
// server are all in. The switch waits until the peer's queues list none of the files they held
// once the table stopped taking writes; the edit is in the new generation before the status
// names it.
TEST_F(MigratorTest, TheSwitchWaitsForTheWalsARegionLeftOnTheServerItMovedFrom) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  const std::string peer = CapturePeerOf(kTarget);
  const std::string held_row = "30000444";  // written on the server the region moved away from
  int polls = 0;
  bool shipped = false;
  bridge_.on_unshipped = [&](const std::string& id) {
    if (id != peer || shipped) return;
    std::lock_guard<std::mutex> lock(bridge_.mu);
    if (++polls == 1) {
      bridge_.tables[kSource][held_row] = FakeMigrationBridge::Row{4, 0};
      return;
    }
    if (polls < 4) return;
    // The lagging queue reads its file to the end: the edit arrives, the file leaves the queue.
    bridge_.tables[kTarget][held_row] = FakeMigrationBridge::Row{4, 0};
    bridge_.queue_wals.erase(peer);
    shipped = true;
  };
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals[peer] = {"rs1.example%2C16020%2C1.100"};
  }
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << Plan().dump();
  EXPECT_TRUE(shipped) << "the switch went on only once the marked file was shipped";
  EXPECT_GE(polls, 4);
  EXPECT_GE(bridge_.queue_marks, 1);
  ExpectTargetEqualsSource();
}

// The same during the verification: a row of a region that moved, whose edit is still in its
// first server's lagging queue, differs while the probes (shipped by the region's new server)
// are already back. The re-read waits for the queues as they were, and the row compares equal
// instead of failing the verification.
TEST_F(MigratorTest, TheVerificationWaitsForTheWalsARegionLeftOnTheServerItMovedFrom) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  const std::string peer = CapturePeerOf(kTarget);
  const std::string held_row = "30000555";
  bool written = false;
  bool shipped = false;
  int polls = 0;
  bridge_.before_source_digest = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    if (written) return;
    // Written on the server the region moved away from: in the source, in that server's queue.
    bridge_.tables[kSource][held_row] = FakeMigrationBridge::Row{5, 0};
    bridge_.queue_wals[peer] = {"rs1.example%2C16020%2C1.100"};
    written = true;
  };
  bridge_.on_unshipped = [&](const std::string& id) {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    if (id != peer || !written || shipped || ++polls < 3) return;
    bridge_.tables[kTarget][held_row] = FakeMigrationBridge::Row{5, 0};
    bridge_.queue_wals.erase(peer);
    shipped = true;
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << Plan().dump();
  EXPECT_TRUE(written);
  EXPECT_TRUE(shipped) << "the verification went on only once the marked file was shipped";
  EXPECT_GE(polls, 3);
  ExpectTargetEqualsSource();
}

// The switch's own read-only change returns once every region reopened read-only, so its drain
// marks the queues at once instead of waiting for the closes: a region whose close never comes
// (its server died during the reopen) does not hold the switch back.
TEST_F(MigratorTest, TheSwitchMarksTheQueuesRightAfterItsOwnReadOnlyChange) {
  options_.switch_retry = std::chrono::milliseconds(0);
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "max_write_pause_ms": 500})");
  bridge_.crashed_during_reopen = {"r3"};
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace") << Plan().dump();
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_NE(log.Text().find("tinawang:check reopened read-only just now; "), std::string::npos)
      << log.Text();
}

TEST_F(MigratorTest, AWalNeverShippedFromTheServerARegionLeftHoldsTheSwitchBackNamingIt) {
  options_.switch_retry = std::chrono::milliseconds(0);
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "max_write_pause_ms": 500})");
  const std::string peer = CapturePeerOf(kTarget);
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals[peer] = {"rs1.example%2C16020%2C1.100"};
  }
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "switching") << "no switch while the file waits";
  EXPECT_EQ(Status()["generation"], 1);
  EXPECT_FALSE(bridge_.read_only.count(kSource)) << "writes resumed on the old generation";
  EXPECT_NE(log.Text().find("1 WAL files the peer's queues held when the table stopped taking "
                            "writes (first: rs1.example%2C16020%2C1.100@" +
                            peer + "@rs1)"),
            std::string::npos)
      << log.Text();
  // The queue ships it: the next attempt switches.
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace");
}

TEST_F(MigratorTest, AFenceKeepsTheForwardPeerUntilTheMarkedWalsAreShipped) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  const std::string peer = CapturePeerOf(kTarget);
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals[peer] = {"rs2.example%2C16020%2C2.300"};
  }
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "fencing");
  EXPECT_TRUE(bridge_.peers.count(peer)) << "not removed while a marked file waits";
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(bridge_.peers.empty());
}

// The same for a rollback: a write the new generation took on a server its region moved away
// from reaches the old generation before the status names it again.
TEST_F(MigratorTest, ARollbackWaitsForTheReversePeersMarkedWals) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  const std::string reverse = ReversePeerOf(kTarget);
  const std::string held_row = "60000999";
  bool shipped = false;
  json status_before_shipped;
  bridge_.on_unshipped = [&](const std::string& id) {
    if (id != reverse || shipped) return;
    status_before_shipped = Status();
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.tables[kTarget][held_row] = FakeMigrationBridge::Row{9, 1};
    bridge_.tables[kSource][held_row] = FakeMigrationBridge::Row{9, 1};
    bridge_.queue_wals.erase(reverse);
    shipped = true;
  };
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.queue_wals[reverse] = {"rs3.example%2C16020%2C3.500"};
  }
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(shipped) << "the rollback's drain read the reverse peer's queues";
  EXPECT_EQ(status_before_shipped["physical_table"], kTarget) << "not rolled back before it";
  json status = Status();
  EXPECT_EQ(status["physical_table"], kSource);
  EXPECT_EQ(status["migration"]["phase"], "rolled_back");
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.tables[kSource].at(held_row), (FakeMigrationBridge::Row{9, 1}));
}

// A rollback's pause drains the new generation and leaves it read-only: rolling_back drops it
// without a second drain, which could not end by closes anyway once a major compaction of the
// old generation (after a split) purged the close acknowledgements from its ack row.
TEST_F(MigratorTest, ARollbackDrainedAtItsPauseIsNotDrainedAgain) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  const std::string reverse = ReversePeerOf(kTarget);
  bridge_.on_unshipped = [&](const std::string& id) {
    if (id != reverse) return;
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.close_acks[kSource].clear();  // compacted away right after the drain
  };
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "rolled_back");
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.marks_by_peer[reverse], 1) << "drained once, at the pause";
}

// The fence's own read-only change returns once every region reopened read-only: its drain
// marks the queues at once, so a region whose close never comes (its server died during the
// reopen, or its acknowledgement was compacted away) does not hold the fence for ack_timeout.
TEST_F(MigratorTest, AFenceMarksTheQueuesRightAfterItsOwnReadOnlyChange) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  ASSERT_TRUE(bridge_.Write(kSource, "30000778"));
  bridge_.crashed_during_reopen = {"r3"};
  LogCapture log;
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null()) << Plan().dump();
  EXPECT_TRUE(bridge_.reopened.empty()) << "nothing reopened";
  EXPECT_NE(log.Text().find("tinawang:check reopened read-only just now; "), std::string::npos)
      << log.Text();
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kTarget].count("30000778"));
}

// A RegionServer died while the read-only change reopened the old generation: the region it
// held opened again elsewhere without a close, and no close of it would ever come. A leader that
// finds the table read-only already (the previous one stopped inside the fence) cannot tell
// whether that change is over, so it waits for the closes; once the fence has lasted
// ack_timeout, the regions still without a close are reopened, which writes it.
TEST_F(MigratorTest, AFenceReopensTheRegionsACrashLeftWithoutAClose) {
  int64_t now_ms = 1'000'000;
  options_.now_ms = [&] { return now_ms; };
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  {
    Migrator migrator(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  }
  ASSERT_EQ(Plan()["phase"], "grace");
  ASSERT_TRUE(bridge_.Write(kSource, "30000777"));
  bridge_.crashed_during_reopen = {"r3"};
  LogCapture log;
  EndGracePeriod();
  // The first leader stops right after its read-only change.
  RunUntilKilled([&] {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    return !bridge_.read_only.count(kSource);
  });
  ASSERT_EQ(Plan()["phase"], "fencing");
  ASSERT_TRUE(bridge_.peers.count(CapturePeerOf(kTarget)));
  Migrator migrator(zk_, admin_, bridge_, options_);
  // The next one: r3 is waited for, not reopened.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "fencing");
  EXPECT_TRUE(bridge_.reopened.empty());
  EXPECT_EQ(log.Count("9 of 10 regions drained into tinawang:check__g2 (waiting for r3)"), 1)
      << log.Text();
  // A full ack_timeout later r3 still has no close: it alone is reopened.
  now_ms += options_.ack_timeout.count();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.reopened, (std::vector<std::string>{kSource, "r3"}));
  EXPECT_EQ(log.Count("tinawang:check: 1 of its regions show no close since the fence began "
                      "(first: r3)"),
            1)
      << log.Text();
  // Its close arrives: the fence ends, with the write made before it in the new generation.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null()) << Plan().dump();
  EXPECT_TRUE(admin_.disabled.count(kSource));
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kTarget].count("30000777"));
}

// A SIGKILL can land between any two changes the daemon makes to HBase (a lost lease stops it
// before its next change, as a killed daemon stops): the fence, the drop of the old generation
// and the rollback, each resumed by the next leader, end as if nothing had happened, with the
// late writes of both generations kept.
// "fence_3": the ending and the number of changes after which the daemon is killed (the test
// names ctest shows, stable from build to build).
std::string KillPointName(const ::testing::TestParamInfo<std::tuple<const char*, int>>& info) {
  return std::string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param));
}

class CrashedEndingTest : public MigratorTest,
                          public ::testing::WithParamInterface<std::tuple<const char*, int>> {
 protected:
  // The changes made so far, as the fakes saw them.
  size_t Changes() {
    size_t n;
    {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      n = bridge_.events.size() + bridge_.peers_removed.size() + bridge_.read_only_changes +
          bridge_.copy_calls;
    }
    std::lock_guard<std::recursive_mutex> lock(admin_.mu);
    return n + admin_.disabled.size() + admin_.deleted.size();
  }
};

// The same from the first change on (the target's creation, the guard, the peers, every copy
// chunk, the switch's read-only change and its end) to the end of a migration without a grace
// period.
class CrashedMigrationTest : public CrashedEndingTest {
 protected:
  static constexpr size_t kWholeMigrationChanges = 54;  // one more than the whole migration makes
};

TEST_P(CrashedMigrationTest, TheNextLeaderFinishesItLosingNothing) {
  const size_t after = std::get<1>(GetParam());
  ASSERT_TRUE(bridge_.Write(kSource, "80000001"));
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  const size_t base = Changes();
  RunUntilKilled([&] { return Changes() < base + after; });
  if (after == kWholeMigrationChanges) {
    EXPECT_TRUE(Plan().is_null()) << "the range covers every change: " << Changes() - base;
  }
  Migrator next(zk_, admin_, bridge_, options_);
  for (int run = 0; run < 4 && !Plan().is_null(); ++run) {
    ASSERT_TRUE(next.RunOnceAndWait().ok());
  }
  ASSERT_TRUE(Plan().is_null()) << "killed after " << after << " changes: " << Plan().dump();
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_TRUE(bridge_.peers.empty());
  EXPECT_TRUE(admin_.disabled.count(kSource));
  ExpectTargetEqualsSource();
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_TRUE(bridge_.tables[kTarget].count("80000001"));
  EXPECT_FALSE(bridge_.GuardActiveLocked(kTarget));
}

INSTANTIATE_TEST_SUITE_P(EveryStep, CrashedMigrationTest,
                         ::testing::Combine(::testing::Values("whole"), ::testing::Range(0, 55)),
                         KillPointName);

TEST_P(CrashedEndingTest, TheNextLeaderEndsItLosingNothing) {
  const std::string ending = std::get<0>(GetParam());
  const size_t after = std::get<1>(GetParam());
  StartMigration(ending == "drop" ? R"({"allowed": true, "grace_period_s": 3600, "drop_old": true})"
                                  : R"({"allowed": true, "grace_period_s": 3600})");
  {
    Migrator migrator(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  }
  ASSERT_EQ(Plan()["phase"], "grace");
  // A late writer of the old generation, and a writer of the new one.
  ASSERT_TRUE(bridge_.Write(kSource, "80000001"));
  ASSERT_TRUE(bridge_.Write(kTarget, "80000002"));
  if (ending == "rollback") {
    Request("rollback");
  } else {
    EndGracePeriod();
  }
  const size_t base = Changes();
  RunUntilKilled([&] { return Changes() < base + after; });
  Migrator next(zk_, admin_, bridge_, options_);
  for (int run = 0; run < 4 && !Plan().is_null(); ++run) {
    ASSERT_TRUE(next.RunOnceAndWait().ok());
  }
  ASSERT_TRUE(Plan().is_null()) << "killed after " << after << " changes: " << Plan().dump();
  EXPECT_TRUE(bridge_.peers.empty());
  std::lock_guard<std::mutex> lock(bridge_.mu);
  if (ending == "rollback") {
    EXPECT_EQ(Status()["migration"]["phase"], "rolled_back");
    EXPECT_EQ(Status()["generation"], 1);
    EXPECT_TRUE(admin_.deleted.count(kTarget));
    EXPECT_FALSE(bridge_.read_only.count(kSource)) << "the old generation takes writes";
    EXPECT_FALSE(bridge_.GuardActiveLocked(kSource));
    EXPECT_TRUE(bridge_.tables[kSource].count("80000001"));
    EXPECT_TRUE(bridge_.tables[kSource].count("80000002")) << "the new generation's write kept";
  } else {
    EXPECT_EQ(Status()["migration"]["phase"], "done");
    EXPECT_EQ(Status()["generation"], 2);
    EXPECT_TRUE(admin_.disabled.count(kSource));
    EXPECT_EQ(admin_.deleted.count(kSource), ending == "drop" ? 1u : 0u);
    EXPECT_FALSE(bridge_.GuardActiveLocked(kTarget));
    EXPECT_EQ(bridge_.restored_keep_deleted.size(), 1u);
    EXPECT_TRUE(bridge_.tables[kTarget].count("80000001")) << "the late write kept";
    EXPECT_TRUE(bridge_.tables[kTarget].count("80000002"));
  }
}

// The fence makes at most six changes (reverse peer, read-only, forward peer, the new
// generation settled, disabled, dropped), the rollback as many: every point between them, and
// none.
INSTANTIATE_TEST_SUITE_P(EveryStep, CrashedEndingTest,
                         ::testing::Combine(::testing::Values("fence", "drop", "rollback"),
                                            ::testing::Range(0, 9)),
                         KillPointName);

TEST_F(MigratorTest, RollbackKeepsTheWritesMadeToTheNewGenerationAndDropsIt) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  // Writers on the new generation since the switch.
  ASSERT_TRUE(bridge_.Write(kTarget, "60000456", FakeMigrationBridge::Row{5, 1}));
  ASSERT_TRUE(bridge_.Delete(kTarget, Key(7)));
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json status = Status();
  EXPECT_EQ(status["physical_table"], kSource);
  EXPECT_EQ(status["generation"], 1);
  EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
  EXPECT_EQ(status["migration"]["phase"], "rolled_back");
  EXPECT_TRUE(Plan().is_null());
  EXPECT_FALSE(RequestPending());
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_TRUE(bridge_.tables[kSource].count("60000456"));
    EXPECT_EQ(bridge_.tables[kSource].at("60000456"), (FakeMigrationBridge::Row{5, 1}));
    EXPECT_FALSE(bridge_.tables[kSource].count(Key(7)));
  }
  EXPECT_TRUE(bridge_.read_only.count(kTarget)) << "the abandoned generation was fenced";
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  EXPECT_FALSE(admin_.disabled.count(kSource));
  EXPECT_FALSE(bridge_.read_only.count(kSource));
  EXPECT_TRUE(bridge_.peers.empty());
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    EXPECT_FALSE(bridge_.GuardActiveLocked(kSource)) << "the old generation stays, unguarded";
    EXPECT_EQ(bridge_.modifies[kSource], 1)
        << "attached once; the end of its capture puts it to sleep, without a reopen";
  }
  EXPECT_EQ(migrator.counters().rollbacks, 1u);
  EXPECT_EQ(migrator.counters().completed, 0u) << "a rollback is no completed migration";
  EXPECT_EQ(migrator.counters().finished, 1u) << "but its end is (the load watcher re-reads)";
  // Not started again for the same document version.
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(Status()["phase"], "drift");
}

// Another writer (the reconciler, the load watcher) changes the status under every write of the
// migration's end: the plan stays, and the next run writes the end before it removes the plan.
// A rollback follows the switch's rule: writers paused and the new generation read-only until the
// reverse peer drained it, and only then does the status name the old generation.
TEST_F(MigratorTest, ARollbackPausesWritesUntilTheNewGenerationIsDrained) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  ASSERT_TRUE(bridge_.Write(kTarget, "60000456", FakeMigrationBridge::Row{5, 1}));
  json seen_status;
  bool raw_write_refused = false;
  bridge_.on_describe_capture = [&](const std::string& peer) {
    if (peer != ReversePeerOf(kTarget) || !seen_status.is_null()) return;
    seen_status = Status();
    raw_write_refused = !bridge_.Write(kTarget, "60000457", FakeMigrationBridge::Row{1, 1});
  };
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(seen_status.is_object()) << "the reverse peer's drain ran";
  EXPECT_EQ(seen_status["physical_table"], kTarget) << "paused, not rolled back yet";
  EXPECT_GT(seen_status["migration"].value("writes_paused_until_ms", int64_t{0}), 0);
  EXPECT_TRUE(raw_write_refused);
  json status = Status();
  EXPECT_EQ(status["physical_table"], kSource);
  EXPECT_EQ(status["migration"]["phase"], "rolled_back");
  EXPECT_FALSE(status["migration"].contains("writes_paused_until_ms"));
  std::lock_guard<std::mutex> lock(bridge_.mu);
  EXPECT_EQ(bridge_.tables[kSource].at("60000456"), (FakeMigrationBridge::Row{5, 1}));
}

// A reverse drain that outlasts the pause: the pause is lifted (the new generation writable, the
// status still naming it) and the request stays, tried again on the next run.
TEST_F(MigratorTest, ARollbackWhoseDrainOutlastsThePauseIsTriedAgain) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "max_write_pause_ms": 500})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.stalled_peers.insert(ReversePeerOf(kTarget));
  }
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "grace");
  EXPECT_NE(plan["error"].get<std::string>().find(
                "rollback: the reverse capture had not shipped every write of tinawang:check__g2 "
                "within the pause of 500 ms"),
            std::string::npos)
      << plan["error"];
  EXPECT_TRUE(RequestPending());
  EXPECT_EQ(Status()["physical_table"], kTarget);
  EXPECT_FALSE(Status()["migration"].contains("writes_paused_until_ms"));
  EXPECT_FALSE(bridge_.read_only.count(kTarget)) << "writes resumed on the new generation";
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.stalled_peers.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["physical_table"], kSource);
  EXPECT_EQ(Status()["migration"]["phase"], "rolled_back");
}

TEST_F(MigratorTest, TheEndIsInTheStatusBeforeThePlanGoes) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0})");
  const std::string status_path = "/presplit/status/tinawang:check";
  int lost = 0;
  zk_.before_write = [&](const std::string& path) {
    if (path == status_path && Plan().value("phase", "") == "done") {
      zk_.nodes[path].version++;  // as if another writer had written it since it was read
      lost++;
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  zk_.before_write = nullptr;
  ASSERT_GT(lost, 0);
  EXPECT_TRUE(admin_.disabled.count(kSource));
  ASSERT_FALSE(Plan().is_null()) << "the plan outlives a status that does not say the end";
  EXPECT_EQ(Plan()["phase"], "done");
  EXPECT_NE(Plan()["error"].get<std::string>().find("writing the final phase 'done'"),
            std::string::npos)
      << Plan().dump();
  EXPECT_NE(Status()["migration"]["phase"], "done");
  EXPECT_EQ(migrator.counters().completed, 0u);

  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_EQ(migrator.counters().completed, 1u);
}

TEST_F(MigratorTest, ARollbackWhoseEndWasNotWrittenEndsOnTheNextRun) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  Request("rollback");
  const std::string status_path = "/presplit/status/tinawang:check";
  zk_.before_write = [&](const std::string& path) {
    if (path == status_path && admin_.deleted.count(kTarget)) zk_.nodes[path].version++;
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  zk_.before_write = nullptr;
  ASSERT_TRUE(admin_.deleted.count(kTarget)) << "drained and dropped";
  ASSERT_FALSE(Plan().is_null());
  EXPECT_EQ(Plan()["phase"], "rolling_back");
  EXPECT_NE(Status()["migration"]["phase"], "rolled_back");

  // The dropped new generation has nothing left to drain: the end is written, the plan goes.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null()) << Plan().dump();
  EXPECT_EQ(Status()["migration"]["phase"], "rolled_back");
  EXPECT_EQ(Status()["physical_table"], kSource);
  EXPECT_TRUE(bridge_.peers.empty());
}

TEST_F(MigratorTest, RollbackIsRefusedBeforeTheSwitchAndOnceTheOldGenerationIsFenced) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 2) RequestBehindTheMigratorsBack("rollback");
  };
  LogCapture log;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.after_chunk = nullptr;
  EXPECT_EQ(log.Count("rollback refused: the migration of tinawang:check has not switched"), 1)
      << log.Text();
  EXPECT_FALSE(RequestPending()) << "handled (refused), not left pending";
  EXPECT_EQ(migrator.counters().rollbacks, 0u);
  // It went on to its grace period; once that ends the old generation is fenced, and a
  // rollback then is refused: the old generation no longer has the writes made since.
  ASSERT_EQ(Plan()["phase"], "grace");
  bridge_.stall = true;  // the fence waits for the drain: the plan stays in "fencing"
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "fencing");
  Request("rollback");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(log.Count("rollback refused: the old generation tinawang:check is fenced already"), 1)
      << log.Text();
  EXPECT_FALSE(RequestPending());
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_EQ(migrator.counters().rollbacks, 0u);
}

// The switch: writers paused (the status says until when, the old generation refuses raw
// writes) until the capture drained the old generation, then the status names the new one and
// the old one is writable again.
TEST_F(MigratorTest, TheSwitchPausesWritesUntilTheOldGenerationIsDrained) {
  StartMigration();
  json seen_status;
  bool seen_read_only = false, raw_write_refused = false;
  // AwaitDrained asks for dead servers' queues once every close is shipped: mid-pause.
  bridge_.on_describe_capture = [&](const std::string& peer) {
    if (peer != CapturePeerOf(kTarget) || !seen_status.is_null()) return;
    seen_status = Status();
    {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      seen_read_only = bridge_.read_only.count(kSource) > 0;
    }
    raw_write_refused = !bridge_.Write(kSource, "00000001", FakeMigrationBridge::Row{1, 9});
  };
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(seen_status.is_object()) << "the drain ran";
  EXPECT_EQ(seen_status["physical_table"], kSource) << "paused, not switched yet";
  const int64_t until = seen_status["migration"].value("writes_paused_until_ms", int64_t{0});
  EXPECT_GT(until, 0) << seen_status.dump();
  EXPECT_TRUE(seen_read_only);
  EXPECT_TRUE(raw_write_refused) << "a raw client's write is refused, loudly";
  json status = Status();
  EXPECT_EQ(status["physical_table"], kTarget);
  EXPECT_FALSE(status["migration"].contains("writes_paused_until_ms")) << status.dump();
  EXPECT_EQ(status["migration"]["switch_attempts"], 1);
  EXPECT_TRUE(std::regex_search(
      log.Text(), std::regex("writes were paused for \\d+ ms \\(\\d+ ms to make tinawang:check "
                             "read-only, \\d+ ms to drain it, \\d+ ms to compare 0 deferred rows")))
      << "where the pause went: " << log.Text();
  ExpectTargetEqualsSource();
}

// A drain that takes longer than max_write_pause_ms abandons that attempt: writes resume on the
// old generation (the status without the pause, the table writable) and the switch is tried
// again later.
TEST_F(MigratorTest, ASwitchWhoseDrainOutlastsThePauseIsAbandonedAndTriedAgain) {
  options_.switch_retry = std::chrono::milliseconds(0);
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "max_write_pause_ms": 500})");
  // The capture stops shipping once the copy is verified.
  bridge_.after_target_digest = [&] {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.stalled_peers.insert(CapturePeerOf(kTarget));
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "switching");
  EXPECT_EQ(plan["writes_paused_until_ms"], 0);
  EXPECT_NE(plan["error"].get<std::string>().find(
                "switch abandoned: the capture had not shipped every write of tinawang:check "
                "within the pause of 500 ms"),
            std::string::npos)
      << plan["error"];
  json status = Status();
  EXPECT_EQ(status["physical_table"], kSource);
  EXPECT_FALSE(status["migration"].contains("writes_paused_until_ms")) << status.dump();
  EXPECT_FALSE(bridge_.read_only.count(kSource)) << "writes resumed on the old generation";
  EXPECT_TRUE(bridge_.Write(kSource, "00000002", FakeMigrationBridge::Row{1, 3}));
  // The capture ships again: the next attempt switches.
  bridge_.after_target_digest = nullptr;
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.stalled_peers.clear();
  }
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["physical_table"], kTarget);
  EXPECT_EQ(Status()["migration"]["switch_attempts"], 2);
  ExpectTargetEqualsSource();
}

// A request during the pause ends the pause first: no request leaves writers held.
TEST_F(MigratorTest, ARequestDuringTheSwitchsPauseLiftsThePauseFirst) {
  StartMigration();
  bridge_.on_describe_capture = [&](const std::string& peer) {
    if (peer == CapturePeerOf(kTarget)) RequestBehindTheMigratorsBack("pause");
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_TRUE(plan["paused"].get<bool>()) << plan.dump();
  EXPECT_EQ(plan["phase"], "switching");
  EXPECT_EQ(plan["writes_paused_until_ms"], 0);
  EXPECT_EQ(Status()["physical_table"], kSource);
  EXPECT_FALSE(Status()["migration"].contains("writes_paused_until_ms"));
  EXPECT_FALSE(bridge_.read_only.count(kSource));
}

// A row written all the time (a counter) differs at every re-read of the verification, read at
// two moments; it is compared once more with writes paused at the switch, where it is equal.
TEST_F(MigratorTest, AHotRowIsComparedAtTheSwitchWithWritesPausedAndPasses) {
  StartMigration();
  int version = 0;
  // Every time the verification reads the source, the counter moves on (refused once the source
  // is read-only: the pause).
  KeepWritingTheCounter(version);
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json status = Status();
  EXPECT_EQ(status["physical_table"], kTarget) << status["migration"].dump();
  EXPECT_EQ(status["migration"]["verification"]["rows_deferred_to_the_switch"], 1);
  EXPECT_NE(log.Text().find("1 rows kept changing and are compared again at the switch"),
            std::string::npos);
  EXPECT_NE(log.Text().find("the 1 rows that kept changing during the verification are equal"),
            std::string::npos);
  bridge_.after_row_hashes = nullptr;
  bridge_.before_diff = nullptr;
  bridge_.before_source_digest = nullptr;
  ExpectTargetEqualsSource();
}

// The same hot row, but its copy in the target is broken: with writes paused the two still differ,
// so the verification fails there and nothing switches.
TEST_F(MigratorTest, AHotRowThatDiffersWithWritesPausedFailsTheVerification) {
  StartMigration();
  int version = 0;
  KeepWritingTheCounter(version);
  bridge_.on_describe_capture = [&](const std::string& peer) {
    if (peer == CapturePeerOf(kTarget)) bridge_.Damage(kTarget, "70000007");
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "failed_verification");
  EXPECT_NE(plan["error"].get<std::string>().find(
                "verification failed: 1 rows differ between tinawang:check and tinawang:check__g2 "
                "while writes were paused at the switch (first: '70000007'"),
            std::string::npos)
      << plan["error"];
  EXPECT_EQ(Status()["physical_table"], kSource) << "nothing switched";
  EXPECT_FALSE(Status()["migration"].contains("writes_paused_until_ms"));
  EXPECT_FALSE(bridge_.read_only.count(kSource)) << "writes resumed on the old generation";
  EXPECT_EQ(migrator.counters().verification_failures, 1u);
}

TEST_F(MigratorTest, DeletesOfRowsNotCopiedYetStayDeleted) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 1) {
      for (int i = 900; i < 1000; ++i) bridge_.Delete(kSource, Key(i));
    }
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectTargetEqualsSource();
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, VerificationPassesWhileWritesArriveAndComparesTheirRowsAgain) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // Writes land while the digests run and are shipped only later: their partitions differ at
  // first, their rows match once the peer shipped past (the last regions are digested after).
  // call_once: the other worker's digest waits until the writes are in (a flag set before them
  // let it digest the last region without them, and verification then had nothing to compare).
  std::once_flag written;
  bridge_.before_source_digest = [&](const std::string&) {
    std::call_once(written, [&] {
      bridge_.Write(kSource, "90000009", FakeMigrationBridge::Row{2, 9});
      bridge_.Write(kSource, "90001234");
    });
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.before_source_digest = nullptr;
  EXPECT_EQ(Status()["generation"], 2) << Status().dump();
  json verification = Status()["migration"]["verification"];
  EXPECT_EQ(verification["ok"], true);
  EXPECT_GE(verification["partitions_differing"].get<int>(), 1);
  EXPECT_EQ(verification["rows_differing"], 0) << "equal once the peer shipped past the digests";
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, ARowStillBeingWrittenIsReadAgainUntilItMatches) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // Before the first source digest, and every digest waits for that write: with two workers, a
  // plain flag let the second digest the row's range while the first was still writing, and
  // the change was never seen (once in about a hundred runs).
  std::once_flag written;
  bridge_.before_source_digest = [&](const std::string&) {
    std::call_once(written, [&] {
      bridge_.Write(kSource, "90000009", FakeMigrationBridge::Row{2, 1});
    });
  };
  // The row changes again between the digests and the row comparison (not shipped yet then):
  // it differs there, and matches when read again after the peer shipped past the re-read.
  bridge_.before_diff = [&] { bridge_.Write(kSource, "90000009", FakeMigrationBridge::Row{2, 2}); };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.before_source_digest = nullptr;
  bridge_.before_diff = nullptr;
  json verification = Status()["migration"]["verification"];
  EXPECT_EQ(verification["ok"], true) << verification.dump();
  EXPECT_EQ(verification["rows_rechecked"], 1);
  EXPECT_EQ(verification["rows_differing"], 0);
  EXPECT_EQ(Status()["generation"], 2);
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, ACorruptedTargetFailsVerificationNamesTheRowAndNothingSwitches) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // Pause during the copy, damage the target behind the migration's back, resume.
  bridge_.after_chunk = [&](int calls) {
    if (calls == 3) RequestBehindTheMigratorsBack("pause");
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["paused"], true);
  EXPECT_EQ(Status()["migration"]["paused"], true);
  bridge_.after_chunk = nullptr;
  bridge_.Damage(kTarget, Key(0));
  // A paused migration stays where it is.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "copying");
  Request("resume");
  // The damaged row is in a region copied before the pause: it is not copied again.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "failed_verification");
  EXPECT_EQ(plan["verification"]["ok"], false);
  EXPECT_EQ(plan["verification"]["rows_differing"], 1);
  const std::string error = plan["error"].get<std::string>();
  EXPECT_NE(error.find("1 rows differ"), std::string::npos) << error;
  EXPECT_NE(error.find(Key(0)), std::string::npos) << "the report names the row: " << error;
  json status = Status();
  EXPECT_EQ(status["generation"], 1);
  EXPECT_EQ(status["physical_table"], kSource);
  EXPECT_EQ(status["migration"]["phase"], "failed_verification");
  EXPECT_EQ(migrator.counters().verification_failures, 1u);
  EXPECT_EQ(migrator.counters().switches, 0u);
  // It waits for an operator...
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "failed_verification");
  // ...who may repair the target and resume: verified again, and it goes on.
  bridge_.Write(kSource, Key(0), FakeMigrationBridge::Row{3, 1});  // shipped by the peer
  Request("resume");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, AStalledCaptureKeepsTheMigrationWaitingNotSwitching) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // call_once: the other worker's digest waits until the write is in (see above).
  std::once_flag written;
  bridge_.before_source_digest = [&](const std::string&) {
    std::call_once(written, [&] {
      bridge_.Write(kSource, "90000009", FakeMigrationBridge::Row{2, 9});
    });
  };
  bridge_.stall = true;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "verifying");
  EXPECT_NE(Plan()["error"].get<std::string>().find("acknowledged 0 of 10 probes"),
            std::string::npos)
      << Plan()["error"];
  EXPECT_EQ(Status()["generation"], 1);
  bridge_.before_source_digest = nullptr;
  bridge_.stall = false;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["generation"], 2);
  ExpectTargetEqualsSource();
}

// A probe's acknowledgement is what the jar says acknowledges it (a digest of fixed size), not
// its row: regions whose start keys are 1 KiB and 64 KiB long catch up like any other; a peer
// that acknowledges nothing is reported naming the first region it owes.
TEST_F(MigratorTest, RegionsWithLongStartKeysCatchUpLikeAnyOther) {
  {
    std::lock_guard<std::recursive_mutex> lock(admin_.mu);
    auto& regions = admin_.tables[kSource].regions;
    ASSERT_EQ(regions.size(), 10u);
    // NUL padding keeps every row of the test in the region it was in.
    for (size_t i = 1; i < regions.size(); ++i) {
      const std::string padded =
          regions[i].start_key + std::string(i % 2 == 0 ? 1024 : 64 * 1024, '\0');
      regions[i].start_key = padded;
      regions[i - 1].end_key = padded;
    }
  }
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // The catch-up's probes are written right after the switch: the peer stalls from the switch's
  // status write on (which describes the target first).
  admin_.on_describe = [&](const std::string& table) {
    if (table != kTarget) return;
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.stall = true;
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  const std::string error = Plan()["error"].get<std::string>();
  EXPECT_NE(error.find("acknowledged 0 of 10 probes"), std::string::npos) << error;
  EXPECT_NE(error.find("first missing: the region at '\\x00'"), std::string::npos) << error;
  admin_.on_describe = nullptr;
  bridge_.stall = false;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_GE(migrator.counters().probes, 1u);
  ExpectTargetEqualsSource();
}

// Capture peers that no plan names any more (a daemon killed between two steps, a plan removed
// by hand) keep HBase from deleting the source's WALs: the leader removes the ones its own
// deployment (its ZooKeeper root) added, leaves another deployment's alone, and only warns,
// once, about a peer that carries no owner (added by an older version).
TEST_F(MigratorTest, OrphanCapturePeersOfThisRootAreRemovedAndNoOthers) {
  const std::string ours = "presplit_gone__g2_0a1b2c3d";
  const std::string theirs = "presplit_gone__g2_0a1b2c3d_r";
  const std::string unowned = "presplit_old__g2_4e5f6a7b";
  bridge_.peers[ours] = {"gone", "gone__g2", "gone__g2", {}, "/presplit"};
  bridge_.peers[theirs] = {"gone__g2", "gone", "gone__g2", {}, "/presplit-other"};
  bridge_.peers[unowned] = {"old", "old__g2", "old__g2", {}, ""};
  options_.orphan_sweep_interval = std::chrono::hours(1);
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.peers_removed, std::vector<std::string>{ours});
  EXPECT_TRUE(bridge_.peers.count(theirs)) << "another deployment's peer is left alone";
  EXPECT_TRUE(bridge_.peers.count(unowned)) << "a peer without an owner is never removed";
  EXPECT_EQ(migrator.counters().orphan_peers_removed, 1u);
  EXPECT_EQ(migrator.counters().orphan_peers_left, 1u);
  EXPECT_EQ(log.Count("capture peer " + ours + " removed: no migration plan under /presplit"), 1)
      << log.Text();
  EXPECT_EQ(log.Count("hbase shell: remove_peer '" + unowned + "'"), 1) << log.Text();

  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.list_capture_peers_calls, 1) << "at most once per orphan_sweep_interval";

  Migrator every_run(zk_, admin_, bridge_, [&] {
    MigratorOptions o = options_;
    o.orphan_sweep_interval = std::chrono::milliseconds(0);
    return o;
  }());
  ASSERT_TRUE(every_run.RunOnceAndWait().ok());
  ASSERT_TRUE(every_run.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.list_capture_peers_calls, 3);
  EXPECT_EQ(log.Count("hbase shell: remove_peer '" + unowned + "'"), 2)
      << "once per daemon, not once per sweep";
  EXPECT_EQ(bridge_.peers_removed.size(), 1u);
}

// The race a sweep must not lose: a migration writes its plan, then adds its peer. The peers are
// listed first, so a peer in the listing belongs to a plan that the plan listing after it holds.
TEST_F(MigratorTest, APeerAddedWhileTheSweepListsIsKeptWithItsPlan) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  const std::string plan_path = "/presplit/migrations/tinawang:check";
  const ZkNode plan = zk_.nodes.at(plan_path);
  zk_.nodes.erase(plan_path);  // not written yet when the sweep starts
  bridge_.on_list_capture_peers = [&] {
    if (zk_.nodes.count(plan_path)) return;
    zk_.nodes[plan_path] = plan;  // StartMigration, then CreateTarget's peer
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.peers[CapturePeerOf(kTarget)] = {kSource, kTarget, kTarget, {}, "/presplit"};
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(migrator.counters().orphan_peers_removed, 0u);
  EXPECT_EQ(Status()["generation"], 2);
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, ThePeersOfAMigrationCarryTheDaemonsRootAndAreNotOrphans) {
  // Stalled: every switch attempt waits out its (short) pause and is abandoned.
  StartMigration(
      R"({"allowed": true, "grace_period_s": 0, "workers": 2, "max_write_pause_ms": 500})");
  bridge_.stall = true;
  options_.orphan_sweep_interval = std::chrono::milliseconds(0);
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    ASSERT_TRUE(bridge_.peers.count(CapturePeerOf(kTarget)));
    EXPECT_EQ(bridge_.peers.at(CapturePeerOf(kTarget)).owner, "/presplit");
  }
  EXPECT_TRUE(bridge_.peers_removed.empty());
  EXPECT_EQ(migrator.counters().orphan_peers_left, 0u);
}

// Nothing the sweep meets stops a run: a listing that fails, or a plan it cannot read (then it
// removes nothing: that plan may name any peer).
TEST_F(MigratorTest, TheSweepRemovesNothingWhenItCannotTellAndNeverFailsARun) {
  const std::string orphan = "presplit_gone__g2_0a1b2c3d";
  bridge_.peers[orphan] = {"gone", "gone__g2", "gone__g2", {}, "/presplit"};
  bridge_.list_capture_peers_error = Status::Unavailable("HMaster unreachable");
  options_.orphan_sweep_interval = std::chrono::milliseconds(0);
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(bridge_.peers.count(orphan));
  EXPECT_EQ(bridge_.list_capture_peers_calls, 2);
  EXPECT_EQ(log.Count("cannot list them to look for orphans"), 1)
      << "once, not every minute (a daemon without global ADMIN)\n"
      << log.Text();

  bridge_.list_capture_peers_error = Status::Ok();
  ASSERT_TRUE(zk_.Upsert("/presplit/migrations/broken:table", "{not json").ok());
  (void)migrator.RunOnceAndWait();
  (void)migrator.RunOnceAndWait();
  EXPECT_TRUE(bridge_.peers.count(orphan)) << "an unreadable plan may name it";
  EXPECT_EQ(log.Count("orphan peers are not removed while the plan of broken:table cannot be read"),
            1)
      << log.Text();

  zk_.nodes.erase("/presplit/migrations/broken:table");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_FALSE(bridge_.peers.count(orphan));
  EXPECT_EQ(migrator.counters().exceptions_caught, 0u);
}

// The capture peers' lag and WAL queue, as HBase reports them, travel with the migration's
// snapshot (for /metrics and /status): read at most once per capture_lag_interval, never stale.
TEST_F(MigratorTest, TheCapturePeersLagIsReadFromHBaseIntoTheSnapshot) {
  // Stalled: every switch attempt waits out its (short) pause and is abandoned.
  StartMigration(
      R"({"allowed": true, "grace_period_s": 0, "workers": 2, "max_write_pause_ms": 500})");
  bridge_.stall = true;
  const std::string peer = CapturePeerOf(kTarget);
  bridge_.capture_lags[peer] = CaptureLag{"", 95000, 96000, 12, 3};
  options_.capture_lag_interval = std::chrono::hours(1);
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.capture_lag_calls, 0) << "the first run knows no migration to ask about";
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.capture_lag_calls, 1) << "at most once per capture_lag_interval";
  auto snapshot = migrator.Snapshot();
  ASSERT_EQ(snapshot.size(), 1u);
  ASSERT_FALSE(snapshot[0].capture.empty());
  EXPECT_EQ(snapshot[0].capture.front(), (CaptureLag{peer, 95000, 96000, 12, 3}));
  for (const CaptureLag& lag : snapshot[0].capture) {
    EXPECT_TRUE(lag.peer_id == peer || lag.peer_id == ReversePeerOf(kTarget)) << lag.peer_id;
  }

  Migrator polling(zk_, admin_, bridge_, [&] {
    MigratorOptions o = options_;
    o.capture_lag_interval = std::chrono::milliseconds(0);
    return o;
  }());
  ASSERT_TRUE(polling.RunOnceAndWait().ok());
  bridge_.capture_lags_error = Status::Unavailable("HMaster unreachable");
  ASSERT_TRUE(polling.RunOnceAndWait().ok());
  ASSERT_TRUE(polling.RunOnceAndWait().ok());
  EXPECT_TRUE(polling.Snapshot().at(0).capture.empty()) << "no stale lag is shown";
  EXPECT_EQ(log.Count("cannot read their lag from HBase"), 1) << log.Text();
  EXPECT_EQ(polling.counters().exceptions_caught, 0u);
}

TEST_F(MigratorTest, RowsThatDoNotFitTheLayoutFailVerificationLoudly) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  bridge_.unfit_notices = {"'x'@1795000000000"};
  bridge_.bulk_load_notices = {"region-a@1795000000001"};
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "failed_verification");
  EXPECT_NE(Plan()["error"].get<std::string>().find("do not fit its layout"), std::string::npos);
  const std::string warnings = Status()["migration"]["warnings"].dump();
  EXPECT_NE(warnings.find("1 bulk loads into tinawang:check"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("SKIP_WAL"), std::string::npos)
      << "the guard refuses SKIP_WAL writes: no warning about them " << warnings;
}

// Runs a whole migration with the "hfile" engine under options_ and returns the one staging
// spec every chunk was given (null when they were given none or several).
json MigratorTest::MigrateWithTheHfileEngine() {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 3, "engine": "hfile"})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  EXPECT_TRUE(migrator.Prepare().ok());
  EXPECT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectTargetEqualsSource();
  EXPECT_EQ(bridge_.staging_specs.size(), 1u);
  if (bridge_.staging_specs.size() != 1u) return json();
  return json::parse(*bridge_.staging_specs.begin());
}

TEST_F(MigratorTest, TheHfileEngineCopiesBigChunksThroughItsStagingDirectory) {
  options_.chunk_rows = 7;
  options_.hfile_chunk_rows = 40;
  options_.bulk_staging_dir = "/staging/";
  options_.hbase_conf_dir = "/etc/hbase/conf";
  options_.hadoop_conf_dir = "/etc/hadoop/conf";
  options_.hbase_settings = {{"hbase.zookeeper.quorum", "zk1"}};
  options_.hfile_source_snapshot = true;
  const json staging = MigrateWithTheHfileEngine();
  EXPECT_EQ(bridge_.chunk_sizes, std::set<int>{40}) << "hfile_chunk_rows, not chunk_rows";
  EXPECT_EQ(staging["staging_dir"], "/staging/tinawang_check__g2");
  EXPECT_EQ(staging["hbase_conf_dir"], "/etc/hbase/conf");
  EXPECT_EQ(staging["hadoop_conf_dir"], "/etc/hadoop/conf");
  EXPECT_EQ(staging["hbase_conf"], json({{"hbase.zookeeper.quorum", "zk1"}}));
  EXPECT_EQ(staging["max_ts"], std::numeric_limits<int64_t>::max()) << "no time range";
  ASSERT_EQ(bridge_.cleanups.size(), 1u);
  EXPECT_EQ(bridge_.cleanups[0], staging);
  EXPECT_EQ(staging["input"], "snapshot");
  EXPECT_EQ(staging["snapshot"], "presplit_resalt_tinawang_check__g2");
  EXPECT_EQ(bridge_.snapshot_checks, 1) << "asked once per migration, not once per chunk";
  EXPECT_EQ(Status()["physical_table"], kTarget);
  EXPECT_EQ(Status()["migration"]["phase"], "done");
}

// The hfile engine asked to read a snapshot of the source, hbase.rootdir known.
void AskForTheSnapshotSource(MigratorOptions& options) {
  options.hfile_chunk_rows = 40;
  options.bulk_staging_dir = "/staging/";
  options.hbase_conf_dir = "/etc/hbase/conf";
  options.hfile_source_snapshot = true;
}

// A secure HDFS: hbase.rootdir is HBase's (mode 700), presplitd's principal reads none of it.
TEST_F(MigratorTest, TheHfileEngineScansTheLiveSourceWhenItsUserMayNotReadTheSnapshotsFiles) {
  AskForTheSnapshotSource(options_);
  const std::string refusal =
      "cannot read hdfs://nn:8020/hbase/data: Permission denied: user=presplit, "
      "access=READ_EXECUTE, inode=\"/hbase/data\":hbase:hbase:drwx------";
  bridge_.snapshot_access = SnapshotAccess{false, refusal};
  LogCapture log;
  const json staging = MigrateWithTheHfileEngine();
  EXPECT_EQ(staging["input"], "table") << "every chunk scans through the RegionServers";
  EXPECT_FALSE(staging.contains("snapshot"));
  EXPECT_EQ(bridge_.last_snapshot_check_spec["input"], "snapshot");
  EXPECT_EQ(bridge_.last_snapshot_check_spec["source"], kSource);
  EXPECT_EQ(bridge_.snapshot_checks, 1) << "asked once per migration, not once per chunk";
  EXPECT_EQ(log.Count("hfile copy: the chunks read the live table through the RegionServers, "
                      "not a snapshot's files (migration_hfile_source = snapshot): this daemon's "
                      "user may not read the source's files under hbase.rootdir (" +
                      refusal + ")"),
            1)
      << log.Text();
  // The cleanup still names the snapshot: one taken before a restart is deleted all the same.
  ASSERT_EQ(bridge_.cleanups.size(), 1u);
  EXPECT_EQ(bridge_.cleanups[0]["snapshot"], "presplit_resalt_tinawang_check__g2");
  EXPECT_EQ(Status()["migration"]["phase"], "done");
}

TEST_F(MigratorTest, TheHfileEngineScansTheLiveSourceWhenTheCheckFails) {
  AskForTheSnapshotSource(options_);
  bridge_.snapshot_check_error = presplit::Status::Unavailable("NameNode nn:8020 unreachable");
  LogCapture log;
  const json staging = MigrateWithTheHfileEngine();
  EXPECT_EQ(staging["input"], "table");
  EXPECT_EQ(log.Count("not a snapshot's files (migration_hfile_source = snapshot): could not "
                      "check whether this daemon's user may read the source's files under "
                      "hbase.rootdir: NameNode nn:8020 unreachable"),
            1)
      << log.Text();
}

TEST_F(MigratorTest, TheHfileEngineScansTheLiveSourceUnlessASnapshotIsAskedFor) {
  options_.hfile_chunk_rows = 40;
  options_.bulk_staging_dir = "/staging/";
  options_.hbase_conf_dir = "/etc/hbase/conf";
  options_.hbase_settings = {{"hbase.zookeeper.quorum", "zk1"}};
  const json staging = MigrateWithTheHfileEngine();
  EXPECT_EQ(staging["input"], "table") << "the default: a scan through the RegionServers";
  EXPECT_FALSE(staging.contains("snapshot"));
}

TEST_F(MigratorTest, TheHfileEngineScansTheLiveSourceWithoutHBaseRootDir) {
  options_.hfile_chunk_rows = 40;
  options_.bulk_staging_dir = "/staging/";
  options_.hbase_settings = {{"hbase.zookeeper.quorum", "zk1"}};
  options_.hfile_source_snapshot = true;
  const json staging = MigrateWithTheHfileEngine();
  EXPECT_EQ(staging["input"], "table") << "no snapshot's files to read without hbase.rootdir";
  EXPECT_FALSE(staging.contains("snapshot"));
}

TEST_F(MigratorTest, ThePutEngineNamesNoStagingDirectory) {
  options_.chunk_rows = 7;
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 3, "engine": "put"})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectTargetEqualsSource();
  EXPECT_EQ(bridge_.staging_specs, std::set<std::string>{""});
  EXPECT_EQ(bridge_.chunk_sizes, std::set<int>{7});
  EXPECT_TRUE(bridge_.cleanups.empty());
}

TEST_F(MigratorTest, ANewLeaderResumesFromTheCheckpoints) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  bool leading = true;
  MigratorOptions first_options = options_;
  first_options.lease = [&] { return leading; };
  Migrator first(zk_, admin_, bridge_, first_options);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 12) leading = false;  // the leader loses its lease mid-copy
  };
  EXPECT_EQ(first.RunOnceAndWait().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Plan()["phase"], "copying");
  EXPECT_EQ(Status()["generation"], 1) << "nothing switched";
  int checkpoints = 0;
  for (const auto& [path, node] : zk_.nodes) {
    if (path.rfind("/presplit/migrations/tinawang:check/regions/", 0) == 0) ++checkpoints;
  }
  EXPECT_GE(checkpoints, 3);

  bridge_.after_chunk = nullptr;
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  ExpectTargetEqualsSource();
  EXPECT_EQ(Status()["generation"], 2);
  // 100 rows per region in chunks of 30: 4 calls per region, 40 in all; the first leader's
  // chunks are not copied again (its last one, copied after the lease was lost, at most).
  EXPECT_LE(bridge_.copy_calls, 41);
  EXPECT_EQ(first.counters().rows_copied + second.counters().rows_copied, 1000u)
      << "each row counted once";
  EXPECT_EQ(bridge_.ensure_calls, 2)
      << "the forward peer before the copy, the reverse at the switch";
}

TEST_F(MigratorTest, ACheckpointAnotherLeaderWroteStopsTheCopyInsteadOfBeingOverwritten) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 2) {  // another leader moved region 0's checkpoint on
      ZkNode& node = zk_.nodes.at("/presplit/migrations/tinawang:check/regions/0");
      json cp = json::parse(node.data);
      cp["rows"] = 4242;
      node.data = cp.dump();
      node.version++;
    }
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.after_chunk = nullptr;
  json cp = json::parse(zk_.nodes.at("/presplit/migrations/tinawang:check/regions/0").data);
  EXPECT_EQ(cp["rows"], 4242) << "the other leader's checkpoint stays";
  EXPECT_NE(Plan()["error"].get<std::string>().find("changed meanwhile"), std::string::npos);
  EXPECT_EQ(Status()["generation"], 1);
}

TEST_F(MigratorTest, AStaleLeadersPlanWriteAfterAConflictIsDroppedNotMerged) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // While this leader verifies, another one (that took over and back) moved the plan on.
  bridge_.after_target_digest = [&] {
    ZkNode& node = zk_.nodes.at("/presplit/migrations/tinawang:check");
    json plan = json::parse(node.data);
    plan["daemon"] = "other:2";
    plan["error"] = "written by the other leader";
    node.data = plan.dump();
    node.version++;
  };
  LogCapture log;
  (void)migrator.RunOnceAndWait();
  bridge_.after_target_digest = nullptr;
  // The stale leader's verification result was not written over the other leader's plan...
  EXPECT_EQ(log.Count("changed since this daemon read it"), 1) << log.Text();
  json plan = Plan();
  EXPECT_EQ(plan["daemon"], "other:2") << plan.dump();
  EXPECT_EQ(plan["error"], "written by the other leader");
  EXPECT_EQ(plan["phase"], "verifying");
  // ...it reads the plan again and decides again from what it reads.
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.digest_target_calls, 2) << "verified again from the plan read again";
  EXPECT_EQ(Plan()["phase"], "grace");
}

TEST_F(MigratorTest, AbortBeforeTheSwitchDropsOnlyTheTargetAndRemovesThePeer) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 4) RequestBehindTheMigratorsBack("abort");
  };
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_FALSE(RequestPending());
  EXPECT_FALSE(zk_.nodes.count("/presplit/migrations/tinawang:check/regions/0"));
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  EXPECT_FALSE(admin_.tables.count(kTarget));
  EXPECT_EQ(migrator.counters().aborted, 1u);
  ExpectSourceAndStatusUntouched();
  // Not started again for the same document version...
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(Status()["phase"], "drift");
  // ...but a new version of the document starts a new one.
  PutDoc(Document(16, R"({"allowed": true, "grace_period_s": 0, "workers": 2})"));
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(Plan()["phase"], "planned");
}

TEST_F(MigratorTest, AbortWhileChunksAreInFlightDropsTheTargetOnlyAfterTheLastOne) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 3})");
  int checkpoints = 0;
  zk_.before_write = [&](const std::string& path) {
    if (path.find("/regions/") != std::string::npos && ++checkpoints == 5) {
      RequestBehindTheMigratorsBack("abort");
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  zk_.before_write = nullptr;
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  EXPECT_EQ(bridge_.copies_into_a_missing_target, 0)
      << "every chunk in flight finished before the target was dropped";
  EXPECT_LT(bridge_.copy_calls, 40) << "the copy stopped at the request, it did not run out";
  EXPECT_EQ(migrator.counters().switches, 0u);
  ExpectSourceAndStatusUntouched();
}

TEST_F(MigratorTest, AbortArrivingWhileTheSwitchBeginsIsHonouredBeforeTheStatusWrite) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  admin_.on_describe = [&](const std::string& table) {
    if (table == kTarget && Plan()["phase"] == "switching" &&
        !zk_.nodes.count("/presplit/requests/tinawang:check")) {
      RequestBehindTheMigratorsBack("abort");
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  admin_.on_describe = nullptr;
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  EXPECT_EQ(migrator.counters().switches, 0u);
  EXPECT_EQ(migrator.counters().aborted, 1u);
  ExpectSourceAndStatusUntouched();
}

TEST_F(MigratorTest, AbortAfterASwitchWhosePlanWriteWasLostIsRefused) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  MigratorOptions first_options = options_;
  first_options.lease = [&] {
    auto status = zk_.nodes.find("/presplit/status/tinawang:check");
    return json::parse(status->second.data)["generation"] != 2;
  };
  Migrator first(zk_, admin_, bridge_, first_options);
  EXPECT_EQ(first.RunOnceAndWait().code(), StatusCode::kFailedPrecondition);
  ASSERT_EQ(Plan()["phase"], "switching");
  ASSERT_EQ(Status()["generation"], 2);
  Request("abort");

  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(second.counters().aborted, 0u);
  EXPECT_FALSE(admin_.deleted.count(kTarget)) << "the table writers use now";
  ExpectTargetEqualsSource();
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_EQ(Status()["migration"]["phase"], "done");
}

TEST_F(MigratorTest, AbortAfterTheSwitchIsRefusedPointingAtRollback) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  Request("abort");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "grace");
  EXPECT_FALSE(RequestPending());
  EXPECT_NE(plan["error"].get<std::string>().find("abort refused"), std::string::npos);
  EXPECT_NE(plan["error"].get<std::string>().find("rollback"), std::string::npos);
  EXPECT_TRUE(admin_.tables.count(kTarget));
  EXPECT_FALSE(admin_.disabled.count(kSource)) << "still in its grace period";
}

// The verification report lives in the plan znode: whatever the number of regions and of rows
// that differ, it keeps totals, counts and only the first regions and rows (a row's description
// cut at 1 KiB), so a table of thousands of regions cannot push the plan past ZooKeeper's 1 MiB.
TEST_F(MigratorTest, TheVerificationReportStaysBoundedWhateverTheRegionCount) {
  {
    // 400 source regions: each bucket's range split in 40 (about two rows each).
    std::lock_guard<std::recursive_mutex> lock(admin_.mu);
    auto& regions = admin_.tables[kSource].regions;
    ASSERT_EQ(regions.size(), 10u);
    std::vector<std::string> starts;
    for (int d = 0; d < 10; ++d) {
      for (int j = 0; j < 40; ++j) {
        char start[16];
        std::snprintf(start, sizeof(start), "%d%07d", d, j * 25);
        starts.push_back(d == 0 && j == 0 ? "" : j == 0 ? std::to_string(d) : start);
      }
    }
    regions.clear();
    for (size_t i = 0; i < starts.size(); ++i) {
      regions.push_back(RegionInfo{"r" + std::to_string(i), starts[i],
                                   i + 1 < starts.size() ? starts[i + 1] : "", "rs,1,1"});
    }
  }
  // A row whose description is long (its key alone is 5,000 bytes).
  const std::string long_key = Key(0) + std::string(5000, 'x');
  bridge_.Write(kSource, long_key);
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 4})");
  ASSERT_EQ(Plan()["source_regions"].size(), 400u);
  // Every row of the target lost after the copy, before either side is digested (the source's
  // and the target's digests start at the same time): every region differs.
  std::once_flag damaged;
  auto damage = [&] {
    std::call_once(damaged, [&] {
      std::vector<std::string> keys;
      {
        std::lock_guard<std::mutex> lock(bridge_.mu);
        for (const auto& [key, row] : bridge_.tables[kTarget]) keys.push_back(key);
      }
      for (const auto& key : keys) bridge_.Damage(kTarget, key);
    });
  };
  bridge_.before_source_digest = [&](const std::string&) { damage(); };
  bridge_.before_target_digest = damage;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.before_source_digest = nullptr;
  bridge_.before_target_digest = nullptr;
  json plan = Plan();
  ASSERT_EQ(plan["phase"], "failed_verification") << plan["error"];
  const json& report = plan["verification"];
  EXPECT_EQ(report["regions"], 400);
  EXPECT_GE(report["regions_differing"].get<int>(), 390);
  EXPECT_EQ(report["first_regions_differing"].size(), 10u);
  EXPECT_EQ(report["first_differences"].size(), 5u);
  EXPECT_GE(report["rows_differing"].get<int>(), 1000);
  int cut = 0;
  for (const auto& line : report["first_differences"]) {
    const std::string text = line.get<std::string>();
    EXPECT_LE(text.size(), 1100u) << text;
    if (text.find(" bytes)") != std::string::npos) ++cut;
  }
  EXPECT_EQ(cut, 1) << "the long row's description is cut, saying how long it was";
  EXPECT_LT(report.dump().size(), 8192u) << report.dump();
  EXPECT_LT(plan["error"].get<std::string>().size(), 2048u);
  // The status shows the same bounded report.
  EXPECT_EQ(Status()["migration"]["verification"]["regions_differing"],
            report["regions_differing"]);
}

// A table of so many regions (4,000 with 100-byte keys: 1.2 MB of JSON) that its regions alone
// would not fit a znode: the migration starts all the same, its regions kept in parts beside a plan
// that stays small.
TEST_F(MigratorTest, ThousandsOfRegionsWithLongKeysStartAMigrationWithASmallPlan) {
  {
    std::lock_guard<std::recursive_mutex> lock(admin_.mu);
    auto& regions = admin_.tables[kSource].regions;
    regions.clear();
    for (int i = 0; i < 4000; ++i) {
      char start[128];
      std::snprintf(start, sizeof(start), "%d%07d%092d", i / 1000, i % 1000, 0);
      const std::string key = i == 0 ? "" : start;
      if (i > 0) regions.back().end_key = key;
      regions.push_back(RegionInfo{"r" + std::to_string(i), key, "", "rs,1,1"});
    }
  }
  StartMigration();
  auto znode = zk_.Get("/presplit/migrations/" + std::string(kSource), false);
  ASSERT_TRUE(znode.ok()) << Status().dump();
  EXPECT_LT(znode->data.size(), 16u * 1024);
  EXPECT_EQ(Plan()["phase"], "planned");
  EXPECT_TRUE(Plan()["parts"].contains("source_regions")) << Plan().dump();
  PlanStore store(zk_, "/presplit", OpenAcls());
  auto read = store.Read(kSource);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->plan.source_regions.size(), 4000u);
}

// A document removed behind presplitctl's back (presplitctl rm refuses under a migration) while
// its migration has not switched: the reconciler keeps the status while the plan exists, and the
// leader aborts the migration (peers removed, target dropped, the status saying why); then a
// full pass removes the status, and nothing starts again.
TEST_F(MigratorTest, ADocumentRemovedBeforeTheSwitchAbortsTheMigration) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  // Paused in the middle of the copy: even a paused migration is ended.
  bridge_.after_chunk = [&](int calls) {
    if (calls == 4) RequestBehindTheMigratorsBack("pause");
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.after_chunk = nullptr;
  ASSERT_EQ(Plan()["phase"], "copying");
  ASSERT_EQ(Plan()["paused"], true);
  ASSERT_FALSE(bridge_.peers.empty());
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  ASSERT_TRUE(Status().is_object()) << "kept while the plan exists";
  EXPECT_EQ(Status()["migration"]["phase"], "copying");

  LogCapture log;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.deleted.count(kTarget));
  EXPECT_EQ(migrator.counters().aborted, 1u);
  EXPECT_EQ(migrator.counters().switches, 0u);
  ExpectSourceAndStatusUntouched();
  const std::string error = Status()["migration"]["error"].get<std::string>();
  EXPECT_NE(error.find("was removed before the switch (phase copying)"), std::string::npos)
      << error;
  EXPECT_EQ(log.Count("tinawang:check was removed before the switch"), 2) << log.Text();

  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_TRUE(Status().is_null()) << "no document, no migration: the status goes";
  EXPECT_TRUE(Plan().is_null());
}

// Removed after the switch: the new generation serves the table's data, so the migration ends
// as usual (grace period, fence, done), said once in the log.
TEST_F(MigratorTest, ADocumentRemovedAfterTheSwitchLetsTheMigrationFinish) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  ASSERT_EQ(Status()["generation"], 2);

  LogCapture log;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "grace");
  EXPECT_EQ(log.Count("was removed after the switch (phase grace)"), 1) << log.Text();
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(migrator.counters().aborted, 0u);
  EXPECT_EQ(migrator.counters().completed, 1u);
  EXPECT_FALSE(admin_.deleted.count(kTarget));
  EXPECT_EQ(Status()["generation"], 2);
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  ExpectTargetEqualsSource();
}

TEST_F(MigratorTest, DropOldDropsOnlyWhenNothingIsMissing) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "drop_old": true})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(admin_.deleted.count(kSource));
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, DropOldKeepsTheOldGenerationWhenACellIsMissing) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "drop_old": true})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  bridge_.Damage(kTarget, Key(0));
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.disabled.count(kSource));
  EXPECT_FALSE(admin_.deleted.count(kSource));
  EXPECT_NE(Status()["migration"]["error"].get<std::string>().find("NOT dropped: 3 of"),
            std::string::npos)
      << Status().dump();
}

TEST_F(MigratorTest, ACopyErrorIsRecordedAndRetriedOnTheNextRun) {
  StartMigration();
  options_.chunk_attempts = 1;
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.copy_error_after = 2;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["phase"], "copying");
  EXPECT_NE(Plan()["error"].get<std::string>().find("region server went away"), std::string::npos);
  EXPECT_EQ(Status()["generation"], 1);
  bridge_.copy_error_after = -1;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectTargetEqualsSource();
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, TheRateLimitIsSharedByTheWorkers) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 4,
                     "max_cells_per_s": 1000})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.last_rate, 250);
}

// A status that cannot be read for a moment (a connection loss) says nothing about the plan: it
// is neither refused nor counted as refused, and the next run goes on with it.
TEST_F(MigratorTest, AnUnreadableStatusIsNoRefusal) {
  StartMigration();
  zk_.unreadable.insert("/presplit/status/tinawang:check");
  Migrator migrator(zk_, admin_, bridge_, options_);
  (void)migrator.RunOnceAndWait();
  EXPECT_EQ(migrator.counters().plans_refused, 0u);
  EXPECT_EQ(bridge_.copy_calls, 0) << "nothing done while the plan cannot be checked";
  zk_.unreadable.clear();
  const json status = Status();
  EXPECT_FALSE(status.contains("migration") && status["migration"].is_object() &&
               status["migration"].contains("refused"))
      << status.dump();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(migrator.counters().plans_refused, 0u);
  EXPECT_GT(bridge_.copy_calls, 0) << "the next run goes on with the plan";
}

TEST_F(MigratorTest, AStandbyDrivesNothing) {
  StartMigration();
  options_.lease = [] { return false; };
  Migrator standby(zk_, admin_, bridge_, options_);
  EXPECT_EQ(standby.RunOnceAndWait().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(bridge_.copy_calls, 0);
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_TRUE(bridge_.peers.empty());
  EXPECT_TRUE(standby.Snapshot().empty());
}

TEST_F(MigratorTest, TheNewGenerationCarriesThisPlansMarkerAndTheSourcesSettingsAtTheSwitch) {
  StartMigration();
  const std::string plan_id = Plan()["plan_id"];
  EXPECT_EQ(plan_id.size(), 32u) << "a plan gets a random id when it is written";
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Status()["migration"]["phase"], "done");
  EXPECT_EQ(bridge_.generation_creates, 1);
  const auto& attributes = admin_.tables.at(kTarget).attributes;
  EXPECT_EQ(attributes.at(FakeMigrationBridge::kMarkerSource), kSource);
  EXPECT_EQ(attributes.at(FakeMigrationBridge::kMarkerPlan), plan_id);
  EXPECT_EQ(bridge_.settings_copies, 1) << "grants and quotas copied again before the switch";
  EXPECT_EQ(bridge_.generation_replication, (std::vector<std::string>{"refuse", "refuse"}))
      << "the document's migration.replication, refuse by default";
}

TEST_F(MigratorTest, ARefusedNewGenerationEndsTheMigrationSayingWhyAndCreatesNothing) {
  bridge_.generation_refusal =
      "tinawang:check is shipped to another cluster by the replication peer(s) dr";
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(admin_.creates, 1) << "only the source was ever created";
  EXPECT_FALSE(admin_.tables.count(kTarget));
  EXPECT_EQ(bridge_.copy_calls, 0);
  ExpectSourceAndStatusUntouched();
  const std::string error = Status()["migration"].value("error", "");
  EXPECT_NE(error.find("not started: tinawang:check is shipped to another cluster"),
            std::string::npos)
      << error;
  // Not started again for the same document version; a document that says what to do about the
  // peer starts a new one, and the bridge is told.
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_TRUE(Plan().is_null());
  bridge_.generation_refusal.clear();
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "replication": "follow"})");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  EXPECT_EQ(bridge_.generation_replication.back(), "follow");
}

TEST_F(MigratorTest, ATableOfTheTargetsNamePresplitDidNotCreateIsNeverUsedNorDropped) {
  // Someone's own table, named like the next generation.
  admin_.tables[kTarget] = admin_.tables.at(kSource);
  admin_.tables[kTarget].table = kTarget;
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.tables.count(kTarget)) << "left alone";
  EXPECT_TRUE(admin_.deleted.empty());
  EXPECT_EQ(bridge_.copy_calls, 0);
  ExpectSourceAndStatusUntouched();
  const std::string error = Status()["migration"].value("error", "");
  EXPECT_NE(error.find("carries no presplit migration marker"), std::string::npos) << error;
}

// A plan written by hand (no access control, a bug): nothing outside the table's own
// generations, the daemon's own snapshot, staging directory and peers is ever touched, and the
// status says why.
class ForgedPlanTest : public MigratorTest {
 protected:
  void Forge(const std::function<void(json&)>& change, const std::string& request = "abort") {
    StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
    admin_.tables["other:victim"] = admin_.tables.at(kSource);
    admin_.tables["other:victim"].table = "other:victim";
    ZkNode& node = zk_.nodes.at("/presplit/migrations/tinawang:check");
    json plan = json::parse(node.data);
    change(plan);
    node.data = plan.dump();
    node.version++;
    if (!request.empty()) Request(request);
  }
  void ExpectNothingDone(const std::string& why) {
    Migrator migrator(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    EXPECT_TRUE(admin_.tables.count("other:victim"));
    EXPECT_TRUE(admin_.deleted.empty()) << *admin_.deleted.begin();
    EXPECT_TRUE(admin_.disabled.empty());
    EXPECT_EQ(admin_.creates, 1) << "no target created";
    EXPECT_TRUE(bridge_.peers_ever.empty());
    EXPECT_TRUE(bridge_.cleanups.empty()) << "no snapshot or staging directory deleted";
    EXPECT_TRUE(bridge_.read_only.empty());
    EXPECT_TRUE(bridge_.modifies.empty()) << "no guard attached or removed";
    EXPECT_EQ(bridge_.copy_calls, 0);
    EXPECT_EQ(migrator.counters().plans_refused, 2u);
    const std::string refused = Status()["migration"].value("refused", "");
    EXPECT_NE(refused.find(why), std::string::npos) << refused;
    EXPECT_EQ(Status()["generation"], 1);
  }
};

// The phase must agree with the generation the status names: a plan at "fencing" (which would
// make the old generation read-only and drop its peer) while the status still names the source
// is not one this daemon wrote.
TEST_F(ForgedPlanTest, APhasePastTheSwitchWhileTheStatusNamesTheSourceIsRefused) {
  Forge([](json& plan) { plan["phase"] = "fencing"; }, "");
  ExpectNothingDone(
      "it is in phase fencing, after the switch, but the table's status names tinawang:check "
      "(generation 1), not its target");
}

TEST_F(ForgedPlanTest, AnotherTableAsTargetIsNeverDropped) {
  Forge([](json& plan) { plan["target"] = "other:victim"; });
  ExpectNothingDone("its target 'other:victim' is not generation 2 of tinawang:check");
}

TEST_F(ForgedPlanTest, AnotherTableAsSourceIsNeverFenced) {
  Forge(
      [](json& plan) {
        plan["source"] = "other:victim";
        plan["phase"] = "fencing";
      },
      "");
  ExpectNothingDone("its source 'other:victim'");
}

TEST_F(ForgedPlanTest, AnotherStagingDirectoryIsNeverDeleted) {
  Forge([](json& plan) {
    plan["engine"] = "mapreduce";
    plan["bulk"] = {{"staging_dir", "hdfs:///hbase"},
                    {"snapshot", "presplit_resalt_tinawang_check__g2"}};
  });
  ExpectNothingDone("its staging directory 'hdfs:///hbase'");
}

TEST_F(ForgedPlanTest, AnotherSnapshotIsNeverDeleted) {
  options_.bulk_staging_dir = "/staging";
  Forge([](json& plan) {
    plan["engine"] = "mapreduce";
    plan["bulk"] = {{"staging_dir", "/staging/tinawang_check__g2"}, {"snapshot", "nightly_backup"}};
  });
  ExpectNothingDone("its snapshot 'nightly_backup'");
}

TEST_F(ForgedPlanTest, AnotherPeerIsNeverRemoved) {
  Forge([](json& plan) { plan["capture"]["peer"] = "presplit_someone_elses"; });
  ExpectNothingDone("its capture peer 'presplit_someone_elses'");
}

TEST_F(ForgedPlanTest, APlanReplayedPastItsCreationOntoATargetItDidNotCreateDoesNothing) {
  // The target exists and carries another migration's marker: a plan of that table's copied
  // here, with this table's names, in the grace period that ends by making the source read-only
  // (a phase the status agrees with either way: see APhasePastTheSwitch... for fencing).
  admin_.tables[kTarget] = admin_.tables.at(kSource);
  admin_.tables[kTarget].table = kTarget;
  admin_.tables[kTarget].attributes[FakeMigrationBridge::kMarkerSource] = kSource;
  admin_.tables[kTarget].attributes[FakeMigrationBridge::kMarkerPlan] = "0123456789abcdef";
  Forge([](json& plan) { plan["phase"] = "grace"; }, "");
  ExpectNothingDone(
      "was created by presplit for the migration of tinawang:check (plan "
      "0123456789abcdef)");
  EXPECT_TRUE(admin_.tables.count(kTarget));
}

// The same replay in every phase past the target's creation: whatever the phase would do next
// (copy into the target, fence or drop a generation, switch the status back), nothing is done.
class ReplayedPlanTest : public ForgedPlanTest,
                         public ::testing::WithParamInterface<const char*> {};

TEST_P(ReplayedPlanTest, OntoATargetItDidNotCreateChangesNothing) {
  admin_.tables[kTarget] = admin_.tables.at(kSource);
  admin_.tables[kTarget].table = kTarget;
  admin_.tables[kTarget].attributes[FakeMigrationBridge::kMarkerSource] = kSource;
  admin_.tables[kTarget].attributes[FakeMigrationBridge::kMarkerPlan] = "0123456789abcdef";
  const std::string phase = GetParam();
  Forge([&](json& plan) { plan["phase"] = phase; }, "");
  // Refused by the target's marker, or (a phase past the switch the status does not agree
  // with) by the status; either way the reason is in the status.
  ExpectNothingDone("");
  const std::string refused = Status()["migration"].value("refused", "");
  EXPECT_TRUE(refused.find("was created by presplit for the migration of tinawang:check (plan "
                           "0123456789abcdef)") != std::string::npos ||
              refused.find("but the table's status names tinawang:check (generation 1)") !=
                  std::string::npos)
      << phase << ": " << refused;
  EXPECT_TRUE(admin_.tables.count(kTarget));
  EXPECT_EQ(Status()["physical_table"], kSource);
}

INSTANTIATE_TEST_SUITE_P(EveryPhasePastTheCreation, ReplayedPlanTest,
                         ::testing::Values("copying", "verifying", "failed_verification",
                                           "switching", "catching_up", "grace", "fencing",
                                           "rolling_back"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

TEST_F(ForgedPlanTest, APlanWithoutIdPastItsCreationIsRefused) {
  Forge(
      [](json& plan) {
        plan.erase("plan_id");
        plan["phase"] = "grace";
      },
      "");
  ExpectNothingDone("it has no plan_id past phase planned");
}

TEST_F(ForgedPlanTest, UnboundedWorkersAreRefused) {
  Forge([](json& plan) { plan["workers"] = 100000000; }, "");
  ExpectNothingDone("workers 100000000 is not within 1..64");
}

TEST(MigrationRecords, PlanAndCheckpointRoundTrip) {
  MigrationPlan plan;
  plan.table = plan.source = "ns:t";
  plan.target = GenerationTableName("ns:t", 2);
  EXPECT_EQ(plan.target, "ns:t__g2");
  plan.old_layout = R"({"salt":{"buckets":10}})";
  plan.new_layout = R"({"salt":{"buckets":16}})";
  plan.source_regions = {{"", std::string("\x01", 1)}, {std::string("\x01", 1), ""}};
  plan.phase = Phase::kGrace;
  plan.capture.peer = CapturePeerOf(plan.target);
  plan.capture.closed_before = {{"abc", 17}};
  plan.capture.caught_up_ms = 99;
  auto parsed = ParsePlan(PlanToJson(plan));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->source_regions[0].end, std::string("\x01", 1));
  EXPECT_EQ(parsed->phase, Phase::kGrace);
  EXPECT_EQ(parsed->capture.peer, plan.capture.peer);
  EXPECT_EQ(parsed->capture.closed_before.at("abc"), 17);
  EXPECT_EQ(parsed->capture.caught_up_ms, 99);
  EXPECT_TRUE(IsSwitched(parsed->phase));
  EXPECT_FALSE(IsSwitched(Phase::kFailedVerification));
  EXPECT_TRUE(IsSwitched(Phase::kRollingBack));
  EXPECT_FALSE(ParsePlan("{}").ok());
  EXPECT_FALSE(ParsePlan("not json").ok());

  RegionCheckpoint cp;
  cp.next_row = std::string("\x00\xff", 2);
  cp.rows = 7;
  cp.digest = 0xfedcba9876543210ULL;
  auto back = ParseCheckpoint(CheckpointToJson(cp));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back->next_row, std::string("\x00\xff", 2));
  EXPECT_EQ(back->digest, 0xfedcba9876543210ULL);
  EXPECT_EQ(back->rows, 7);
}

TEST(MigrationRecords, RequestsAndPeerNames) {
  auto request = ParseRequest(RequestToJson(Request::kRollback, "2026-11-26T00:00:00Z"));
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(*request, Request::kRollback);
  EXPECT_FALSE(ParseRequest(R"({"request": "drop"})").ok());
  EXPECT_FALSE(ParseRequest("[]").ok());
  EXPECT_FALSE(ParseRequest(std::string(5000, ' ')).ok());
  EXPECT_EQ(RequestPath("/presplit", "ns:t"), "/presplit/requests/ns:t");
  // Letters, digits and underscores only (HBase refuses '-'), distinct for names that differ in
  // punctuation only.
  const std::string a = CapturePeerOf("ns:a-b.c__g2");
  const std::string b = CapturePeerOf("ns:a_b_c__g2");
  EXPECT_EQ(a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
            std::string::npos)
      << a;
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("presplit_ns_a_b_c__g2_", 0), 0u) << a;
  EXPECT_EQ(ReversePeerOf("ns:a-b.c__g2"), a + "_r");
}

TEST(MigrationRecords, BridgeResultsAreParsedStrictly) {
  auto chunk = ParseChunkCopied(
      R"({"rows":2,"cells":6,"bytes":100,"digest":"00000000000000ff","next_row":"YWI="})");
  ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
  EXPECT_EQ(chunk->copied.digest, 255u);
  EXPECT_EQ(*chunk->next_row, "ab");
  EXPECT_FALSE(ParseChunkCopied(R"({"rows":2})").ok());
  EXPECT_FALSE(ParseChunkCopied("[]").ok());
  // What GenerationBridge.guardTable and unguardTable return.
  auto guard = ParseGuardChange(R"({"changed":true,"other_plan":null})", "guardTable");
  ASSERT_TRUE(guard.ok()) << guard.status().ToString();
  EXPECT_EQ(*guard, (GuardChange{true, ""}));
  auto left = ParseGuardChange(R"({"changed":false,"other_plan":"0a1b"})", "unguardTable");
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(*left, (GuardChange{false, "0a1b"}));
  EXPECT_FALSE(ParseGuardChange(R"({"changed":true})", "guardTable").ok());
  EXPECT_FALSE(ParseGuardChange(R"({"changed":"yes","other_plan":null})", "guardTable").ok());
  EXPECT_FALSE(ParseGuardChange(R"({"changed":true,"other_plan":3})", "guardTable").ok());
  auto partitions = ParsePartitionDigests(
      R"({"rows":1,"cells":1,"digest":"0000000000000001","partitions":["0000000000000001","0000000000000000"]})",
      2);
  ASSERT_TRUE(partitions.ok()) << partitions.status().ToString();
  EXPECT_EQ(partitions->partitions, (std::vector<uint64_t>{1, 0}));
  EXPECT_FALSE(ParsePartitionDigests(
                   R"({"rows":1,"cells":1,"digest":"0000000000000001","partitions":[]})", 2)
                   .ok());
  EXPECT_FALSE(ParsePartitionDigestList("[]", 1, 2).ok());
  auto probe = ParseProbeRound(R"({"probe_id":5,"rows":["AA==","MQ=="],"acks":["0a","1b"]})");
  ASSERT_TRUE(probe.ok());
  EXPECT_EQ(probe->rows, (std::vector<std::string>{std::string(1, '\0'), "1"}));
  EXPECT_EQ(probe->acks, (std::vector<std::string>{"0a", "1b"}));
  EXPECT_FALSE(ParseProbeRound(R"({"probe_id":5,"rows":["AA=="]})").ok()) << "acks are required";
  EXPECT_FALSE(ParseProbeRound(R"({"probe_id":5,"rows":["AA=="],"acks":[]})").ok())
      << "one ack per row";
  auto acks = ParseCaptureAcks(
      R"({"probe_acks":["1b"],"closed":{"r1":12},"bulk_loads":[{"region":"r1","ts":3}],"unfit":[]})");
  ASSERT_TRUE(acks.ok());
  EXPECT_EQ(acks->probe_acks, std::vector<std::string>{"1b"});
  auto owners = ParseCapturePeerOwners(
      R"({"peers":[{"id":"presplit_a_g2_01","owner":"/presplit"},{"id":"presplit_b_g2_02","owner":null}]})");
  ASSERT_TRUE(owners.ok()) << owners.status().ToString();
  EXPECT_EQ(*owners, (std::vector<CapturePeerOwner>{{"presplit_a_g2_01", "/presplit"},
                                                    {"presplit_b_g2_02", ""}}));
  EXPECT_FALSE(ParseCapturePeerOwners(R"({"peers":[{"owner":"/presplit"}]})").ok());
  EXPECT_FALSE(ParseCapturePeerOwners(R"({})").ok());
  auto lags = ParseCaptureLags(
      R"({"peers":[{"id":"presplit_a_g2_01","lag_ms":5,"age_of_last_shipped_ms":6,"wal_queue_files":7,"sources":2}]})");
  ASSERT_TRUE(lags.ok()) << lags.status().ToString();
  EXPECT_EQ(*lags, (std::vector<CaptureLag>{{"presplit_a_g2_01", 5, 6, 7, 2}}));
  EXPECT_FALSE(ParseCaptureLags(R"({"peers":[{"id":"presplit_a_g2_01","lag_ms":5}]})").ok());
  EXPECT_EQ(acks->closed.at("r1"), 12);
  EXPECT_EQ(acks->bulk_loads, (std::vector<std::string>{"r1@3"}));
  EXPECT_FALSE(ParseCaptureAcks(R"({"closed":{}})").ok()) << "probe_acks is required";
  auto diff = ParseRowDifferences(R"({"differing":3,"keys":["YQ=="],"truncated":true})");
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->keys, std::vector<std::string>{"a"});
  EXPECT_TRUE(diff->truncated);
  EXPECT_FALSE(ParseRowHashes(R"({"hashes":["0000000000000001"]})", 2).ok());
  EXPECT_TRUE(*ParseFlag(R"({"added":true})", "added"));
  EXPECT_FALSE(ParseFlag(R"({"added":1})", "added").ok());
  auto presence = ParsePresenceCheck(R"({"checked":5,"missing":1,"first_missing":"k"})");
  ASSERT_TRUE(presence.ok());
  EXPECT_EQ(presence->first_missing, "k");
}

TEST_F(MigratorTest, TheCopyAndTheVerificationRunUnderTheAdaptiveThrottle) {
  StartMigration(
      R"({"allowed": true, "grace_period_s": 0, "workers": 2, "max_cells_per_s": 3000})");
  options_.throttle_interval = std::chrono::hours(1);
  std::atomic<int> sources{0};
  options_.health_source = [&](const MigrationPlan& plan) -> std::unique_ptr<HealthSource> {
    EXPECT_EQ(plan.target, kTarget);
    sources++;
    return std::make_unique<QuietHealth>();
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  std::mutex seen_mu;
  std::set<std::pair<int64_t, std::string>> seen;
  bridge_.after_chunk = [&](int) {
    for (const auto& m : migrator.Snapshot()) {
      std::lock_guard<std::mutex> lock(seen_mu);
      seen.emplace(m.throttle_cells_per_s, m.throttle_reason);
    }
  };
  LogCapture log;
  for (int run = 0; run < 5 && sources < 2; ++run) ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.after_chunk = nullptr;
  // The document's max_cells_per_s (3000) is below the throttle's start (5000): the ceiling.
  EXPECT_EQ(seen, (std::set<std::pair<int64_t, std::string>>{{3000, "ceiling"}}));
  EXPECT_GE(sources.load(), 2) << "the copy and the verification each run one";
  EXPECT_GE(log.Count("throttle: 3000 cells/s to start (ceiling)"), 2) << log.Text();
  for (const auto& m : migrator.Snapshot()) EXPECT_EQ(m.throttle_cells_per_s, -1) << m.table;
  EXPECT_FALSE(Status()["migration"].contains("throttle")) << Status().dump();
}

// The final check before a drop reads the new generation, which serves the application by
// then: it runs under the adaptive throttle too, which ends with it.
TEST_F(MigratorTest, TheFinalCheckBeforeADropRunsUnderTheAdaptiveThrottle) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "drop_old": true})");
  options_.throttle_interval = std::chrono::hours(1);
  options_.throttle.enabled = true;
  std::vector<std::string> phases;  // the plan's phase as each throttle started
  options_.health_source = [&](const MigrationPlan& plan) -> std::unique_ptr<HealthSource> {
    phases.push_back(PhaseName(plan.phase));
    return std::make_unique<QuietHealth>();
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  phases.clear();
  std::vector<int64_t> rates;
  bridge_.on_check_present = [&] {
    for (const auto& m : migrator.Snapshot()) rates.push_back(m.throttle_cells_per_s);
  };
  EndGracePeriod();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_TRUE(admin_.deleted.count(kSource));
  EXPECT_EQ(phases, std::vector<std::string>{"fencing"});
  EXPECT_EQ(rates, std::vector<int64_t>{5000}) << "the throttle's start, during the check";
  for (const auto& m : migrator.Snapshot()) EXPECT_EQ(m.throttle_cells_per_s, -1) << m.table;
}

// The document's migration.throttle decides over the daemon's migration_throttle, both ways.
TEST_F(MigratorTest, TheDocumentTurnsTheAdaptiveThrottleOffOrOn) {
  options_.throttle_interval = std::chrono::hours(1);
  options_.health_source = [](const MigrationPlan&) -> std::unique_ptr<HealthSource> {
    return std::make_unique<QuietHealth>();
  };
  options_.throttle.enabled = true;
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2, "throttle": "off"})");
  EXPECT_EQ(Plan()["throttle"], "off");
  {
    LogCapture log;
    Migrator migrator(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    EXPECT_EQ(Status()["migration"]["phase"], "done");
    EXPECT_GE(log.Count("throttle: unlimited (unlimited)"), 2) << log.Text();
    EXPECT_EQ(log.Count("cells/s to start"), 0) << log.Text();
  }
}

TEST_F(MigratorTest, TheDocumentTurnsTheAdaptiveThrottleOnOverTheDaemonsOff) {
  options_.throttle_interval = std::chrono::hours(1);
  options_.health_source = [](const MigrationPlan&) -> std::unique_ptr<HealthSource> {
    return std::make_unique<QuietHealth>();
  };
  options_.throttle.enabled = false;
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2, "throttle": "adaptive"})");
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Status()["migration"]["phase"], "done");
  EXPECT_GE(log.Count("throttle: 5000 cells/s to start"), 2) << log.Text();
  EXPECT_EQ(log.Count("throttle: unlimited"), 0) << log.Text();
}

}  // namespace
}  // namespace presplit::daemon::migrate
