// The "mapreduce" engine of the Migrator over fakes: ZooKeeper and HBase in memory
// (tests/daemon/fakes.h) and a bridge whose bulk job is a map the test finishes, fails or
// forgets (a restarted daemon's JVM knows no job of the one before;
// tests/daemon/migrate/fake_migration_bridge.h). The real job runs end to end in
// tests/e2e/test_migration_mapreduce.py.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon/migrate/migrator.h"
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

class MigratorBulkTest : public MigrationZnodesTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(reconciler_.Prepare().ok());
    PutDoc(Document(10, ""));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    bridge_.admin = &admin_;
    for (int i = 0; i < 500; ++i) {
      char row[16];
      std::snprintf(row, sizeof(row), "%d%07d", i % 10, i);
      bridge_.Write("tinawang:check", row);
    }
    options_.zk_root = "/presplit";
    options_.daemon_id = "test:1";
    options_.sleep = [](std::chrono::milliseconds) {};
    options_.ack_timeout = std::chrono::milliseconds(50);
    options_.bulk_staging_dir = "/staging";
    options_.hbase_conf_dir = "/etc/hbase/conf";
    options_.hadoop_conf_dir = "/etc/hadoop/conf";
    options_.bulk_attempts = 2;
  }

  void StartMigration(const std::string& engine = "mapreduce") {
    PutDoc(Document(16, R"({"allowed": true, "grace_period_s": 0, "workers": 3, "engine": ")" +
                            engine + "\"}"));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    ASSERT_TRUE(Plan().is_object());
  }
  std::string JobId() { return Plan()["bulk"]["job_id"].get<std::string>(); }
  size_t TargetRows() {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    return bridge_.tables["tinawang:check__g2"].size();
  }
  void ExpectSwitchedWithEveryRowOnce() {
    {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      const auto& source = bridge_.tables["tinawang:check"];
      const auto& target = bridge_.tables["tinawang:check__g2"];
      ASSERT_EQ(target.size(), source.size());
      for (const auto& [row, cells] : source) ASSERT_TRUE(target.count(row)) << row;
    }
    EXPECT_EQ(Status()["generation"], 2);
    EXPECT_EQ(Status()["physical_table"], "tinawang:check__g2");
    EXPECT_EQ(Status()["migration"]["phase"], "done");
    EXPECT_TRUE(Plan().is_null());
  }

  // The adaptive throttle on, its sampler never due, a health source that is never asked; each
  // source made counts in `sources`.
  void UseQuietThrottle(int& sources) {
    options_.throttle_interval = std::chrono::hours(1);
    options_.throttle.enabled = true;
    options_.health_source = [&sources](const MigrationPlan&) -> std::unique_ptr<HealthSource> {
      sources++;
      return std::make_unique<QuietHealth>();
    };
  }

  FakeAdmin admin_;
  FakeMigrationBridge bridge_;
  Reconciler reconciler_{zk_, admin_, ReconcilerOptions{"/presplit", "test:1"}};
  MigratorOptions options_;
};

TEST_F(MigratorBulkTest, SubmitsOnceReportsProgressLoadsOnceAndSwitches) {
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "copying");
  EXPECT_EQ(plan["engine"], "mapreduce");
  EXPECT_EQ(bridge_.submits, 1);
  EXPECT_EQ(plan["bulk"]["job_id"], "job_fake_1");
  EXPECT_EQ(plan["bulk"]["staging_dir"], "/staging/tinawang_check__g2");
  EXPECT_EQ(plan["bulk"]["snapshot"], "presplit_resalt_tinawang_check__g2");
  EXPECT_EQ(plan["bulk"]["input"], "snapshot") << "hbase_conf_dir names hbase.rootdir";
  EXPECT_EQ(bridge_.snapshot_checks, 1) << "and the daemon's user may read the source's files";
  EXPECT_EQ(bridge_.last_snapshot_check_spec["source"], "tinawang:check");
  EXPECT_EQ(bridge_.last_snapshot_check_spec["hbase_conf_dir"], "/etc/hbase/conf");
  EXPECT_EQ(plan["bulk"]["attempts"], 1);
  // The spec: [0, start_ts), the daemon's Hadoop and HBase configuration.
  // Every cell, whatever its timestamp: the capture peer carries the writes made meanwhile.
  EXPECT_EQ(bridge_.last_spec["min_ts"], 0);
  EXPECT_EQ(bridge_.last_spec["max_ts"], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(bridge_.last_spec["hadoop_conf_dir"], "/etc/hadoop/conf");
  EXPECT_EQ(bridge_.last_spec["target"], "tinawang:check__g2");
  EXPECT_EQ(bridge_.last_spec["new_layout"]["salt"]["buckets"], 16);
  EXPECT_EQ(bridge_.last_spec["local_tasks"], 3) << "the plan's workers";
  EXPECT_TRUE(admin_.tables.count("tinawang:check__g2"));

  // Each run polls the job and returns while it runs; progress lands in plan and status.
  bridge_.jobs.at("job_fake_1").map_progress = 0.5;
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  plan = Plan();
  EXPECT_EQ(bridge_.submits, 1);
  EXPECT_EQ(plan["bulk"]["state"], "RUNNING");
  EXPECT_DOUBLE_EQ(plan["bulk"]["map_progress"].get<double>(), 0.5);
  EXPECT_EQ(plan["bulk"]["rows"], 250);
  json status = Status();
  EXPECT_EQ(status["migration"]["bulk"]["job_id"], "job_fake_1");
  EXPECT_EQ(status["migration"]["rows"], 250);
  EXPECT_EQ(status["migration"]["cells"], 750);
  EXPECT_EQ(bridge_.loads, 0);

  bridge_.Succeed("job_fake_1");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.loads, 1);
  EXPECT_EQ(bridge_.cleanups.size(), 1u) << "snapshot and staging removed after the load";
  EXPECT_EQ(bridge_.submits, 1);
  EXPECT_EQ(bridge_.copy_calls, 0);
  ExpectSwitchedWithEveryRowOnce();
  EXPECT_EQ(migrator.counters().rows_copied, 500u);
}

// A job whose map tasks take from the migration's gate (the local runner reading the live table)
// runs under a throttle from its submission until it is no longer running; any other job, none.
TEST_F(MigratorBulkTest, AJobWhoseTasksTakeFromTheGateRunsUnderTheThrottle) {
  int sources = 0;  // health sources made: one per throttle or ServersBusy sample
  UseQuietThrottle(sources);
  auto throttle_of = [](const Migrator& m) {
    for (const auto& p : m.Snapshot()) {
      if (p.table == "tinawang:check") return p.throttle_cells_per_s;
    }
    return int64_t{-2};
  };
  bridge_.jobs_paced = true;
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(bridge_.submits, 1);
  EXPECT_EQ(sources, 2) << "the sample before the submission, then the job's throttle";
  EXPECT_EQ(throttle_of(migrator), 5000) << "the throttle's start, while the job runs";
  EXPECT_EQ(Status()["migration"]["throttle"]["cells_per_s"], 5000) << Status().dump();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(sources, 2) << "one throttle for the whole job, not one per poll";
  EXPECT_EQ(throttle_of(migrator), 5000);

  bridge_.Succeed("job_fake_1");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectSwitchedWithEveryRowOnce();
  EXPECT_EQ(throttle_of(migrator), -2) << "the migration ended: nothing left in the snapshot";
}

TEST_F(MigratorBulkTest, AJobReadingAtItsOwnPaceGetsNoThrottleAndPauseEndsOne) {
  int sources = 0;  // health sources made: one per throttle or ServersBusy sample
  UseQuietThrottle(sources);
  StartMigration();
  {
    Migrator migrator(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    EXPECT_EQ(Plan()["bulk"]["state"], "RUNNING");
    int sampled = sources;  // ServersBusy's one sample before the submission
    EXPECT_LE(sampled, 1);
    for (const auto& p : migrator.Snapshot()) EXPECT_EQ(p.throttle_cells_per_s, -1) << p.table;

    // The same job, now reported paced (say, resubmitted on the local runner): a throttle; then a
    // pause kills the job and ends it.
    bridge_.jobs_paced = true;
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    EXPECT_EQ(sources, sampled + 1);
    bool throttled = false;
    for (const auto& p : migrator.Snapshot()) throttled |= p.throttle_cells_per_s == 5000;
    EXPECT_TRUE(throttled);
    Request("pause");
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
    EXPECT_EQ(bridge_.kills, 1);
    for (const auto& p : migrator.Snapshot()) EXPECT_EQ(p.throttle_cells_per_s, -1) << p.table;
  }
}

TEST_F(MigratorBulkTest, ARestartedDaemonResubmitsAJobItsJvmDoesNotKnow) {
  StartMigration();
  {
    Migrator first(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(first.RunOnceAndWait().ok());
  }
  EXPECT_EQ(JobId(), "job_fake_1");
  bridge_.Restart();  // SIGKILL: the local runner's job died with the JVM
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2);
  json plan = Plan();
  EXPECT_EQ(plan["bulk"]["job_id"], "job_fake_2");
  EXPECT_EQ(plan["bulk"]["attempts"], 2);
  EXPECT_EQ(plan["bulk"]["failures"], 0) << "a lost job is no failure";
  EXPECT_EQ(plan["phase"], "copying");
  bridge_.Succeed("job_fake_2");
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.loads, 1);
  ExpectSwitchedWithEveryRowOnce();
}

TEST_F(MigratorBulkTest, AnOutputLoadedBeforeTheRestartIsNotLoadedAgain) {
  StartMigration();
  {
    Migrator first(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(first.RunOnceAndWait().ok());
  }
  // The job finished and its HFiles were loaded (_LOADED), then the daemon died before it
  // recorded the load in the plan.
  bridge_.Succeed("job_fake_1");
  ASSERT_TRUE(bridge_.LoadBulkCopy("{}").ok());
  ASSERT_EQ(bridge_.loads, 1);
  bridge_.Restart();
  EXPECT_FALSE(Plan()["bulk"]["loaded"].get<bool>());
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 1) << "nothing recomputed";
  EXPECT_EQ(bridge_.loads, 1) << "nothing loaded twice";
  ExpectSwitchedWithEveryRowOnce();
}

TEST_F(MigratorBulkTest, AFinishedOutputOfALostJobIsLoadedNotRecomputed) {
  StartMigration();
  {
    Migrator first(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(first.RunOnceAndWait().ok());
  }
  bridge_.Succeed("job_fake_1");  // _SUCCESS written, then the daemon died
  bridge_.Restart();
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 1);
  EXPECT_EQ(bridge_.loads, 1);
  ExpectSwitchedWithEveryRowOnce();
}

TEST_F(MigratorBulkTest, AbortKillsTheJobCleansUpAndDropsTheTarget) {
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(admin_.tables.count("tinawang:check__g2"));
  Request("abort");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.kills, 1);
  EXPECT_TRUE(bridge_.jobs.empty());
  EXPECT_EQ(bridge_.cleanups.size(), 1u);
  EXPECT_EQ(bridge_.loads, 0);
  EXPECT_FALSE(admin_.tables.count("tinawang:check__g2"));
  EXPECT_TRUE(Plan().is_null());
  EXPECT_EQ(Status()["migration"]["phase"], "aborted");
  EXPECT_EQ(Status()["generation"], 1);
  EXPECT_EQ(TargetRows(), 0u);
}

TEST_F(MigratorBulkTest, PauseKillsTheRunningJobAndResumeSubmitsItAgain) {
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_EQ(JobId(), "job_fake_1");
  Request("pause");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.kills, 1) << "a paused migration leaves no job using the cluster";
  EXPECT_TRUE(bridge_.jobs.empty());
  EXPECT_TRUE(Plan()["paused"].get<bool>());
  EXPECT_EQ(Plan()["bulk"]["job_id"], "");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 1) << "nothing is submitted while paused";
  Request("resume");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2);
  EXPECT_EQ(JobId(), "job_fake_2");
  EXPECT_EQ(Plan()["bulk"]["failures"], 0) << "a pause is not a failure";
  bridge_.Succeed("job_fake_2");
  for (int i = 0; i < 5 && Plan().is_object(); ++i) ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectSwitchedWithEveryRowOnce();
  EXPECT_EQ(bridge_.loads, 1);
}

TEST_F(MigratorBulkTest, AFailedJobIsRetriedThenReportedUntilResumed) {
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  bridge_.FailJob("job_fake_1", "java.io.IOException: region server went away");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  json plan = Plan();
  EXPECT_EQ(plan["bulk"]["failures"], 1);
  EXPECT_NE(plan["error"].get<std::string>().find("region server went away"), std::string::npos);
  EXPECT_NE(Status()["migration"]["error"].get<std::string>().find("FAILED"), std::string::npos);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2) << "submitted again";
  EXPECT_TRUE(Plan()["error"].is_null()) << "a new attempt clears the error";

  bridge_.FailJob("job_fake_2", "java.io.IOException: disk full");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2) << "bulk_attempts (2) reached: not submitted again";
  plan = Plan();
  EXPECT_EQ(plan["phase"], "copying");
  EXPECT_NE(plan["error"].get<std::string>().find("2 failed jobs: not submitted again"),
            std::string::npos)
      << plan["error"];
  EXPECT_EQ(Status()["generation"], 1) << "nothing switched";

  // An operator's resume tries again.
  Request("resume");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 3);
  bridge_.Succeed("job_fake_3");
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  ExpectSwitchedWithEveryRowOnce();
}

TEST_F(MigratorBulkTest, ASubmitThatFailsIsRetriedNeverThrown) {
  StartMigration();
  bridge_.submit_error = Status::Unavailable("cannot reach the ResourceManager");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_NE(Plan()["error"].get<std::string>().find("cannot reach the ResourceManager"),
            std::string::npos);
  bridge_.submit_error = presplit::Status::Ok();
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2);
  EXPECT_EQ(JobId(), "job_fake_2");
}

TEST_F(MigratorBulkTest, AutoPicksTheEngineBySourceSize) {
  options_.mapreduce_threshold_bytes = 1000;
  options_.table_bytes = [](const std::string& table) -> Result<int64_t> {
    EXPECT_EQ(table, "tinawang:check");
    return 5000;
  };
  StartMigration("auto");
  EXPECT_EQ(Plan()["engine"], "auto");
  Migrator big(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(big.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["engine"], "mapreduce");
  EXPECT_EQ(bridge_.submits, 1);
}

TEST_F(MigratorBulkTest, AutoTakesThePutEngineBelowTheThreshold) {
  options_.mapreduce_threshold_bytes = 1000;
  options_.table_bytes = [](const std::string&) -> Result<int64_t> { return 999; };
  StartMigration("auto");
  Migrator small(zk_, admin_, bridge_, options_);
  (void)small.RunOnceAndWait();
  EXPECT_EQ(bridge_.submits, 0);
  EXPECT_EQ(Status()["migration"]["engine"], "put");
}

TEST_F(MigratorBulkTest, AutoTakesThePutEngineWhenTheSizeIsUnknown) {
  options_.mapreduce_threshold_bytes = 1000;
  options_.table_bytes = [](const std::string&) -> Result<int64_t> {
    return presplit::Status::Unavailable("no RegionServer reports");
  };
  StartMigration("auto");
  Migrator unknown(zk_, admin_, bridge_, options_);
  (void)unknown.RunOnceAndWait();
  EXPECT_EQ(bridge_.submits, 0);
  EXPECT_GT(bridge_.copy_calls, 0) << "the put engine copies chunks";
  json migration = Status()["migration"];
  EXPECT_EQ(migration["engine"], "put");
  EXPECT_FALSE(migration.contains("bulk"));
}

TEST_F(MigratorBulkTest, TheLocalRunnerIsNeverStartedInATooSmallHeap) {
  // The local job runner runs inside presplitd's JVM: with the default 256m heap it would run
  // out of memory and the JVM would exit. "auto" stays on put; "mapreduce" is refused with the
  // reason and submits nothing; a YARN cluster (hadoop_conf_dir) needs no daemon heap.
  options_.hadoop_conf_dir.clear();
  options_.jvm_max_heap_bytes = int64_t{256} << 20;
  options_.mapreduce_threshold_bytes = 1000;
  options_.table_bytes = [](const std::string&) -> Result<int64_t> { return 5000; };
  StartMigration("auto");
  Migrator small_heap(zk_, admin_, bridge_, options_);
  (void)small_heap.RunOnceAndWait();
  EXPECT_EQ(bridge_.submits, 0);
  EXPECT_EQ(Status()["migration"]["engine"], "put");
}

TEST_F(MigratorBulkTest, EngineMapreduceInATooSmallHeapIsRefusedWithTheReason) {
  options_.hadoop_conf_dir.clear();
  options_.jvm_max_heap_bytes = int64_t{256} << 20;
  StartMigration("mapreduce");
  Migrator small_heap(zk_, admin_, bridge_, options_);
  (void)small_heap.RunOnceAndWait();
  EXPECT_EQ(bridge_.submits, 0);
  EXPECT_EQ(bridge_.copy_calls, 0);
  EXPECT_NE(Plan()["error"].get<std::string>().find("raise jvm_max_heap"), std::string::npos);
  // With the heap it needs (a restart with a bigger jvm_max_heap), the job is submitted.
  options_.jvm_max_heap_bytes = int64_t{1} << 30;
  Migrator restarted(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(restarted.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 1);
}

TEST_F(MigratorBulkTest, WithoutHBaseRootDirTheJobReadsTheLiveTable) {
  options_.hbase_conf_dir.clear();
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["bulk"]["input"], "table");
  EXPECT_EQ(bridge_.last_spec["input"], "table");
  EXPECT_FALSE(bridge_.last_spec.contains("hbase_conf_dir"));
  EXPECT_EQ(bridge_.snapshot_checks, 0) << "nothing to check without hbase.rootdir";
}

// A secure HDFS: hbase.rootdir is HBase's (mode 700), presplitd's principal reads none of it.
TEST_F(MigratorBulkTest, AnUnreadableRootDirIsReadThroughTheRegionServersAlsoAfterARestart) {
  const std::string refusal =
      "cannot read hdfs://nn:8020/hbase/.hbase-snapshot: Permission denied: user=presplit, "
      "access=READ_EXECUTE, inode=\"/hbase\":hbase:hbase:drwx------";
  bridge_.snapshot_access = SnapshotAccess{false, refusal};
  bridge_.job_tokens = {"HBASE_AUTH_TOKEN", "HDFS_DELEGATION_TOKEN"};
  StartMigration();
  {
    LogCapture log;
    Migrator first(zk_, admin_, bridge_, options_);
    ASSERT_TRUE(first.RunOnceAndWait().ok());
    EXPECT_EQ(Plan()["bulk"]["input"], "table");
    EXPECT_EQ(bridge_.last_spec["input"], "table");
    EXPECT_EQ(bridge_.last_snapshot_check_spec["input"], "snapshot");
    EXPECT_EQ(log.Count("bulk copy: the job reads the live table through the RegionServers "
                        "(input \"table\"), not a snapshot's files: this daemon's user may not "
                        "read the source's files under hbase.rootdir (" +
                        refusal + ")"),
              1)
        << log.Text();
    EXPECT_EQ(log.Count("bulk copy: job job_fake_1 carries delegation tokens: HBASE_AUTH_TOKEN, "
                        "HDFS_DELEGATION_TOKEN"),
              1)
        << log.Text();
  }
  // Restarted after an operator granted the read: the plan's choice stands (one job, one input).
  bridge_.Restart();
  bridge_.snapshot_access = SnapshotAccess{true, ""};
  LogCapture log;
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  EXPECT_EQ(bridge_.submits, 2);
  EXPECT_EQ(bridge_.last_spec["input"], "table");
  EXPECT_EQ(bridge_.snapshot_checks, 1) << "chosen once per migration";
  EXPECT_EQ(log.Count("not a snapshot's files"), 0) << log.Text();
  bridge_.Succeed("job_fake_2");
  ASSERT_TRUE(second.RunOnceAndWait().ok());
  ExpectSwitchedWithEveryRowOnce();
}

TEST_F(MigratorBulkTest, ACheckThatFailsReadsTheLiveTableAndSaysWhy) {
  bridge_.snapshot_check_error = presplit::Status::Unavailable("NameNode nn:8020 unreachable");
  StartMigration();
  LogCapture log;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_EQ(Plan()["bulk"]["input"], "table");
  EXPECT_EQ(bridge_.submits, 1);
  EXPECT_EQ(log.Count("(input \"table\"), not a snapshot's files: could not check whether this "
                      "daemon's user may read the source's files under hbase.rootdir: NameNode "
                      "nn:8020 unreachable"),
            1)
      << log.Text();
  EXPECT_EQ(log.Count("bulk copy: job job_fake_1 carries delegation tokens: none"), 1)
      << "a cluster without security";
}

// The JSON of ResaltBulkJob's static methods, as JniMigrationBridge hands it over.
TEST(BulkJsonTest, ProgressOutputAndLoadParseAndBadShapesAreErrors) {
  auto progress = ParseBulkJobProgress(
      R"({"job_id":"job_local1_0001","state":"FAILED","map_progress":0.25,)"
      R"("reduce_progress":0.0,"cells":40,"rows":10,"failure":"java.io.IOException: x"})");
  ASSERT_TRUE(progress.ok()) << progress.status().ToString();
  EXPECT_EQ(progress->job_id, "job_local1_0001");
  EXPECT_EQ(progress->state, "FAILED");
  EXPECT_DOUBLE_EQ(progress->map_progress, 0.25);
  EXPECT_EQ(progress->rows, 10);
  EXPECT_EQ(progress->cells, 40);
  EXPECT_EQ(progress->failure, "java.io.IOException: x");
  auto unknown = ParseBulkJobProgress(
      R"({"job_id":"j","state":"UNKNOWN","map_progress":0.0,"reduce_progress":0.0,"cells":0,)"
      R"("rows":0})");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->failure, "");
  EXPECT_FALSE(ParseBulkJobProgress(R"({"state":"RUNNING","cells":0,"rows":0})").ok());
  EXPECT_FALSE(
      ParseBulkJobProgress(R"({"job_id":"j","state":"RUNNING","rows":-1,"cells":0})").ok());
  EXPECT_FALSE(ParseBulkJobProgress("not json").ok());

  auto output = ParseBulkOutput(R"({"finished":true,"loaded":false})");
  ASSERT_TRUE(output.ok());
  EXPECT_TRUE(output->finished);
  EXPECT_FALSE(output->loaded);
  EXPECT_FALSE(ParseBulkOutput(R"({"finished":"yes","loaded":false})").ok());

  auto loaded = ParseBulkLoaded(R"({"files":16,"bytes":4096})");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->files, 16);
  EXPECT_EQ(loaded->bytes, 4096);
  EXPECT_FALSE(ParseBulkLoaded(R"({"files":16})").ok());

  auto submitted = ParseBulkSubmitted(
      R"({"job_id":"job_local7_0001","tokens":["HBASE_AUTH_TOKEN","HDFS_DELEGATION_TOKEN"]})");
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  EXPECT_EQ(submitted->job_id, "job_local7_0001");
  EXPECT_EQ(submitted->tokens,
            (std::vector<std::string>{"HBASE_AUTH_TOKEN", "HDFS_DELEGATION_TOKEN"}));
  auto insecure = ParseBulkSubmitted(R"({"job_id":"job_local7_0002","tokens":[]})");
  ASSERT_TRUE(insecure.ok());
  EXPECT_TRUE(insecure->tokens.empty());
  EXPECT_FALSE(ParseBulkSubmitted(R"({"job_id":"","tokens":[]})").ok());
  EXPECT_FALSE(ParseBulkSubmitted(R"({"job_id":"j","tokens":"HBASE_AUTH_TOKEN"})").ok());
  EXPECT_FALSE(ParseBulkSubmitted("job_local7_0001").ok()) << "the id alone is the old shape";

  auto readable = ParseSnapshotAccess(R"({"readable":true})");
  ASSERT_TRUE(readable.ok());
  EXPECT_TRUE(readable->readable);
  auto refused = ParseSnapshotAccess(R"({"readable":false,"reason":"cannot read /hbase: x"})");
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->readable);
  EXPECT_EQ(refused->reason, "cannot read /hbase: x");
  EXPECT_FALSE(ParseSnapshotAccess(R"({"reason":"x"})").ok());
}

TEST(BulkJsonTest, ThePlansBulkRecordRoundTrips) {
  MigrationPlan plan;
  plan.table = plan.source = "ns:t";
  plan.target = "ns:t__g2";
  plan.old_layout = R"({"salt":{"buckets":10}})";
  plan.new_layout = R"({"salt":{"buckets":16}})";
  plan.source_regions.push_back(SourceRegion{});
  plan.engine = "mapreduce";
  BulkCopyState bulk;
  bulk.job_id = "job_1";
  bulk.snapshot = "presplit_resalt_ns_t__g2";
  bulk.staging_dir = "/staging/ns_t__g2";
  bulk.input = "table";
  bulk.attempts = 2;
  bulk.failures = 1;
  bulk.state = "RUNNING";
  bulk.map_progress = 0.5;
  bulk.rows = 7;
  bulk.cells = 21;
  bulk.loaded = true;
  bulk.files = 16;
  plan.bulk = bulk;
  auto parsed = ParsePlan(PlanToJson(plan));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_TRUE(parsed->bulk.has_value());
  EXPECT_EQ(parsed->engine, "mapreduce");
  EXPECT_EQ(parsed->bulk->job_id, "job_1");
  EXPECT_EQ(parsed->bulk->snapshot, "presplit_resalt_ns_t__g2");
  EXPECT_EQ(parsed->bulk->staging_dir, "/staging/ns_t__g2");
  EXPECT_EQ(parsed->bulk->input, "table");
  EXPECT_EQ(parsed->bulk->attempts, 2);
  EXPECT_EQ(parsed->bulk->failures, 1);
  EXPECT_EQ(parsed->bulk->state, "RUNNING");
  EXPECT_DOUBLE_EQ(parsed->bulk->map_progress, 0.5);
  EXPECT_EQ(parsed->bulk->rows, 7);
  EXPECT_EQ(parsed->bulk->cells, 21);
  EXPECT_TRUE(parsed->bulk->loaded);
  EXPECT_EQ(parsed->bulk->files, 16);
  // A put-engine plan has none; a bulk record without its staging dir is refused.
  plan.bulk.reset();
  parsed = ParsePlan(PlanToJson(plan));
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->bulk.has_value());
  json broken = json::parse(PlanToJson(plan));
  broken["bulk"] = {{"job_id", "job_1"}};
  EXPECT_FALSE(ParsePlan(broken.dump()).ok());
}

}  // namespace
}  // namespace presplit::daemon::migrate
