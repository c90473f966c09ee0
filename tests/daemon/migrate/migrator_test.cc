// The migration engine over fakes: ZooKeeper and HBase in memory (tests/daemon/fakes.h) and a
// MigrationBridge that copies rows between two in-memory tables. The real copy code is tested
// end to end in tests/e2e/test_migration.py.
#include "daemon/migrate/migrator.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "daemon/reconcile/reconciler.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;
using testing::FakeAdmin;
using testing::FakeZk;

// Everything logged while it lives, instead of the default logger's output.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l %v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  int Count(const std::string& text) const {
    const std::string all = out_.str();
    int n = 0;
    for (size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) ++n;
    return n;
  }
  std::string Text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Two in-memory tables: rows -> cell count. A row is re-keyed by prefixing "n" (the real bridge
// re-salts; what matters here is that target keys differ from source keys and map back).
class FakeBridge : public MigrationBridge {
 public:
  static uint64_t Hash(const std::string& logical_row, int cells) {
    return std::hash<std::string>{}(logical_row)*31 + static_cast<uint64_t>(cells);
  }

  Result<ChunkCopied> CopyChunk(const CopyRange& range, const std::string& from_row,
                                const std::string& end_row, int64_t /*min_ts*/, int64_t max_ts,
                                int max_rows, int64_t max_cells_per_s) override {
    auto copied = CopyLocked(range, from_row, end_row, max_ts, max_rows, max_cells_per_s);
    int calls;
    {
      std::lock_guard<std::mutex> lock(mu);
      calls = copy_calls;
    }
    if (after_chunk) after_chunk(calls);  // outside the lock: it may write to the source
    return copied;
  }
  Result<ChunkCopied> CopyLocked(const CopyRange& range, const std::string& from_row,
                                 const std::string& end_row, int64_t max_ts, int max_rows,
                                 int64_t max_cells_per_s) {
    std::lock_guard<std::mutex> lock(mu);
    copy_calls++;
    last_rate = max_cells_per_s;
    staging_specs.insert(range.hfile_staging_spec);
    chunk_sizes.insert(max_rows);
    if (copy_error_after >= 0 && copy_calls > copy_error_after) {
      return Status::Unavailable("region server went away");
    }
    if (range.target_table != target_name) return Status::NotFound(range.target_table);
    // Read only while no other thread changes the admin's tables (the copy threads run between
    // the target's creation and its drop).
    if (admin != nullptr && !admin->tables.count(target_name)) {
      copies_into_a_missing_target++;
      return Status::NotFound(range.target_table);
    }
    ChunkCopied out;
    auto it = source.lower_bound(from_row);
    int copied = 0;
    for (; it != source.end() && (end_row.empty() || it->first < end_row); ++it) {
      if (copied == max_rows) {
        out.next_row = it->first;
        break;
      }
      if (it->second.ts >= max_ts) continue;
      target["n" + it->first] = it->second.cells;
      out.copied.rows++;
      out.copied.cells += it->second.cells;
      out.copied.digest += Hash(it->first, it->second.cells);
      ++copied;
    }
    return out;
  }
  Status CleanupBulkCopy(const std::string& spec) override {
    std::lock_guard<std::mutex> lock(mu);
    cleanups.push_back(json::parse(spec));
    return Status::Ok();
  }
  Result<CellDigest> DigestRange(const std::string& table, const std::string& /*layout*/,
                                 const std::string& from_row, const std::string& end_row,
                                 int64_t /*min_ts*/, int64_t max_ts) override {
    std::lock_guard<std::mutex> lock(mu);
    CellDigest d;
    if (table != source_name) return Status::NotFound(table);
    for (auto it = source.lower_bound(from_row);
         it != source.end() && (end_row.empty() || it->first < end_row); ++it) {
      if (it->second.ts >= max_ts) continue;
      d.rows++;
      d.cells += it->second.cells;
      d.digest += Hash(it->first, it->second.cells);
    }
    return d;
  }
  Result<std::vector<CellDigest>> DigestTargetBySourceRegion(const CopyRange& /*range*/,
                                                             const std::vector<std::string>& starts,
                                                             int64_t /*min_ts*/,
                                                             int64_t /*max_ts*/) override {
    std::lock_guard<std::mutex> lock(mu);
    digest_target_calls++;
    std::vector<CellDigest> out(starts.size());
    for (const auto& [row, cells] : target) {
      const std::string logical = row.substr(1);
      if (late_rows.count(logical)) continue;  // written after start_ts
      size_t i = std::upper_bound(starts.begin(), starts.end(), logical) - starts.begin() - 1;
      out[i].rows++;
      out[i].cells += cells;
      out[i].digest += Hash(logical, cells);
    }
    return out;
  }
  Result<Replayed> ReplayRange(const CopyRange& /*range*/, int64_t min_ts, int64_t max_ts,
                               int64_t /*rate*/) override {
    std::lock_guard<std::mutex> lock(mu);
    replay_calls++;
    Replayed out;
    for (const auto& [row, cell] : source) {
      if (cell.ts >= min_ts && cell.ts < max_ts) {
        target["n" + row] = cell.cells;
        out.cells += cell.cells;
      }
    }
    return out;
  }
  Result<PresenceCheck> CheckPresent(const CopyRange& /*range*/, int64_t /*min_ts*/,
                                     int64_t /*max_ts*/) override {
    std::lock_guard<std::mutex> lock(mu);
    PresenceCheck out;
    for (const auto& [row, cell] : source) {
      out.checked += cell.cells;
      if (!target.count("n" + row)) {
        out.missing += cell.cells;
        if (out.first_missing.empty()) out.first_missing = row;
      }
    }
    return out;
  }

  // A write that arrives at the source while the migration runs (timestamp now).
  void WriteLate(const std::string& row) {
    std::lock_guard<std::mutex> lock(mu);
    source[row] = Cell{2, WallMs()};
    late_rows.insert(row);
  }

  struct Cell {
    int cells = 3;
    int64_t ts = 1;
  };
  std::mutex mu;
  std::string source_name = "tinawang:check";
  std::string target_name = "tinawang:check__g2";
  std::map<std::string, Cell> source;
  std::map<std::string, int> target;
  std::set<std::string> late_rows;
  int copy_calls = 0;
  int replay_calls = 0;
  int digest_target_calls = 0;
  int copy_error_after = -1;
  int64_t last_rate = 0;
  std::set<std::string> staging_specs;  // CopyRange::hfile_staging_spec of every chunk
  std::set<int> chunk_sizes;            // max_rows of every chunk
  std::vector<json> cleanups;           // CleanupBulkCopy's specs
  int copies_into_a_missing_target = 0;
  const FakeAdmin* admin = nullptr;  // set: a copy into a target it does not hold is counted
  std::function<void(int calls)> after_chunk;
};

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

class MigratorTest : public MigrationZnodesTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(reconciler_.Prepare().ok());
    PutDoc(Document(10, ""));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    ASSERT_EQ(Status()["phase"], "ready");
    // 1,000 rows over the ten buckets: "<bucket digit><id>", three cells each.
    for (int i = 0; i < 1000; ++i) {
      char row[16];
      std::snprintf(row, sizeof(row), "%d%07d", i % 10, i);
      bridge_.source[row] = FakeBridge::Cell{};
    }
    options_.zk_root = "/presplit";
    options_.daemon_id = "test:1";
    options_.chunk_rows = 30;
    options_.catchup_interval = std::chrono::milliseconds(1);
    options_.replay_overlap = std::chrono::milliseconds(0);
    options_.progress_interval = std::chrono::milliseconds(5);
  }

  // The document edited to 16 buckets with migrations allowed; the reconciler plans it.
  void StartMigration(const std::string& migration = R"({"allowed": true, "grace_period_s": 0,
                                                          "workers": 3})") {
    PutDoc(Document(16, migration));
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  }
  json MigrateWithTheHfileEngine();
  void ExpectEveryRowCopiedOnce() {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    ASSERT_EQ(bridge_.target.size(), bridge_.source.size());
    for (const auto& [row, cell] : bridge_.source) {
      ASSERT_TRUE(bridge_.target.count("n" + row)) << row;
      EXPECT_EQ(bridge_.target.at("n" + row), cell.cells) << row;
    }
  }

  // What presplitctl does, from inside a hook of the fakes (no re-entry into them): the plan's
  // request written compare-and-set, so its version moves.
  void RequestBehindTheMigratorsBack(const std::string& request) {
    ZkNode& node = zk_.nodes.at("/presplit/migrations/tinawang:check");
    json plan = json::parse(node.data);
    plan["request"] = request;
    node.data = plan.dump();
    node.version++;
  }
  void ExpectSourceAndStatusUntouched() {
    EXPECT_TRUE(admin_.tables.count("tinawang:check"));
    EXPECT_FALSE(admin_.disabled.count("tinawang:check")) << "the source is untouched";
    EXPECT_FALSE(admin_.deleted.count("tinawang:check"));
    json status = Status();
    EXPECT_EQ(status["physical_table"], "tinawang:check") << status.dump();
    EXPECT_EQ(status["generation"], 1);
    EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
    EXPECT_EQ(status["migration"]["phase"], "aborted");
    EXPECT_FALSE(status["migration"].contains("previous"))
        << "no SDK reads a previous generation of an aborted migration";
  }

  HookedAdmin admin_;
  FakeBridge bridge_;
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
  EXPECT_EQ(plan["source"], "tinawang:check");
  EXPECT_EQ(plan["target"], "tinawang:check__g2");
  EXPECT_EQ(plan["source_generation"], 1);
  EXPECT_EQ(plan["target_generation"], 2);
  EXPECT_EQ(plan["old_layout"]["salt"]["buckets"], 10);
  EXPECT_EQ(plan["new_layout"]["salt"]["buckets"], 16);
  EXPECT_EQ(plan["source_regions"].size(), 10u);
  EXPECT_EQ(plan["phase"], "planned");
  EXPECT_GT(plan["start_ts"].get<int64_t>(), 0);
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
  // The status still says what is true: the table differs from its document until the switch.
  json status = Status();
  EXPECT_EQ(status["phase"], "drift");
  // The new layout's region boundaries and the layout itself: both the migration's work.
  ASSERT_EQ(status["differences"].size(), 2u) << status.dump();
  EXPECT_EQ(status["differences"][0].get<std::string>().rfind("regions: ", 0), 0u);
  EXPECT_NE(
      status["differences"][1].get<std::string>().find("a re-salt migration to it is under way"),
      std::string::npos);
  EXPECT_NE(log.Text().find("planned split keys are not region boundaries"), std::string::npos)
      << "named in the one line";
  EXPECT_EQ(reconciler_.counters().migrations_started, 1u);

  // Another difference is still a warning, on every pass.
  json doc = json::parse(Document(16, R"({"allowed": true, "grace_period_s": 0})"));
  doc["families"][0]["max_versions"] = 5;
  PutDoc(doc.dump());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_EQ(log.Count("differs from its document"), 2) << log.Text();
  EXPECT_EQ(log.Count("migrating to its document's layout"), 1) << "the same migration";
}

TEST_F(MigratorTest, RunsToTheEndAndSwitchesTheStatusInOneWrite) {
  StartMigration();
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  // A write that arrives during the copy is replayed.
  bridge_.after_chunk = [&](int calls) {
    if (calls == 5) bridge_.WriteLate("30009999");
  };
  ASSERT_TRUE(migrator.RunOnce().ok());
  ExpectEveryRowCopiedOnce();
  json status = Status();
  EXPECT_EQ(status["physical_table"], "tinawang:check__g2");
  EXPECT_EQ(status["generation"], 2);
  EXPECT_EQ(status["layout"]["salt"]["buckets"], 16);
  EXPECT_EQ(status["buckets"], 16);
  EXPECT_EQ(status["migration"]["phase"], "done");
  EXPECT_EQ(status["migration"]["regions_done"], 10);
  EXPECT_TRUE(Plan().is_null()) << "the plan is removed when done";
  EXPECT_FALSE(zk_.nodes.count("/presplit/migrations/tinawang:check/regions/0"));
  // The old generation is disabled after the grace period, and kept (drop_old is false).
  EXPECT_TRUE(admin_.disabled.count("tinawang:check"));
  EXPECT_TRUE(admin_.tables.count("tinawang:check"));
  ASSERT_TRUE(admin_.tables.count("tinawang:check__g2"));
  EXPECT_EQ(admin_.tables.at("tinawang:check__g2").regions.size(), 16u);
  EXPECT_EQ(migrator.counters().rows_copied, 1000u);
  EXPECT_EQ(migrator.counters().switches, 1u);
  EXPECT_GE(bridge_.replay_calls, 3) << "one before verify, at least two catch-up rounds";

  // The reconciler now compares the document with the new generation: ready.
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  status = Status();
  EXPECT_EQ(status["phase"], "ready") << status.dump();
  EXPECT_EQ(status["physical_table"], "tinawang:check__g2");
  EXPECT_EQ(status["generation"], 2);
  EXPECT_EQ(status["migration"]["phase"], "done") << "the summary is carried over";
  EXPECT_EQ(admin_.creates, 2) << "nothing re-created under the logical name";
}

// Runs a whole migration with the "hfile" engine under options_ and returns the one staging
// spec every chunk was given (null when they were given none or several).
json MigratorTest::MigrateWithTheHfileEngine() {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 3, "engine": "hfile"})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  EXPECT_TRUE(migrator.Prepare().ok());
  EXPECT_TRUE(migrator.RunOnce().ok());
  ExpectEveryRowCopiedOnce();
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
  // Every chunk stages its HFiles with one spec: the directory and the configuration that
  // resolves it (the daemon's conf dirs and HBase settings, as the bulk job's).
  EXPECT_EQ(staging["staging_dir"], "/staging/tinawang_check__g2");
  EXPECT_EQ(staging["hbase_conf_dir"], "/etc/hbase/conf");
  EXPECT_EQ(staging["hadoop_conf_dir"], "/etc/hadoop/conf");
  EXPECT_EQ(staging["hbase_conf"], json({{"hbase.zookeeper.quorum", "zk1"}}));
  // What a daemon killed in the middle of a chunk left in the staging directory goes with it,
  // removed with the very spec the chunks were written with (so on the same file system).
  ASSERT_EQ(bridge_.cleanups.size(), 1u);
  EXPECT_EQ(bridge_.cleanups[0], staging);
  // A snapshot source asked for and hbase_conf_dir naming hbase.rootdir: the chunks read one
  // snapshot of the source, which the cleanup deletes.
  EXPECT_EQ(staging["input"], "snapshot");
  EXPECT_EQ(staging["snapshot"], "presplit_resalt_tinawang_check__g2");
  EXPECT_EQ(Status()["physical_table"], "tinawang:check__g2");
  EXPECT_EQ(Status()["migration"]["phase"], "done");
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
  ASSERT_TRUE(migrator.RunOnce().ok());
  ExpectEveryRowCopiedOnce();
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
  EXPECT_EQ(first.RunOnce().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Plan()["phase"], "copying");
  EXPECT_EQ(Status()["generation"], 1) << "nothing switched";
  int checkpoints = 0;
  for (const auto& [path, node] : zk_.nodes) {
    if (path.rfind("/presplit/migrations/tinawang:check/regions/", 0) == 0) ++checkpoints;
  }
  EXPECT_GE(checkpoints, 3);
  const int calls_before = bridge_.copy_calls;

  bridge_.after_chunk = nullptr;
  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnce().ok());
  ExpectEveryRowCopiedOnce();
  EXPECT_EQ(Status()["generation"], 2);
  // 100 rows per region in chunks of 30: 4 calls per region, 40 in all; the first leader's
  // chunks are not copied again (its last one, copied after the lease was lost, at most).
  EXPECT_LE(bridge_.copy_calls, 41) << "before the resume: " << calls_before;
  EXPECT_EQ(first.counters().rows_copied + second.counters().rows_copied, 1000u + 0u)
      << "each row counted once";
}

TEST_F(MigratorTest, ACorruptedTargetFailsVerificationAndNothingSwitches) {
  // One worker: the test's hook below writes to the fake ZooKeeper from the copy thread.
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  // Pause during the copy, damage the target behind the migration's back, resume.
  bridge_.after_chunk = [&](int calls) {
    if (calls == 3) {
      auto node = zk_.Get("/presplit/migrations/tinawang:check", false);
      json plan = json::parse(node->data);
      plan["request"] = "pause";
      zk_.nodes["/presplit/migrations/tinawang:check"].data = plan.dump();
    }
  };
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(Plan()["paused"], true);
  EXPECT_EQ(Status()["migration"]["paused"], true);
  bridge_.after_chunk = nullptr;
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    ASSERT_FALSE(bridge_.target.empty());
    bridge_.target.erase(bridge_.target.begin());
  }
  // A paused migration stays where it is.
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(Plan()["phase"], "copying");
  Request("resume");
  // The damaged row is in a region copied before the pause: it is not copied again.
  ASSERT_TRUE(migrator.RunOnce().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "failed_verification");
  EXPECT_EQ(plan["verification"]["ok"], false);
  EXPECT_EQ(plan["verification"]["regions_mismatched"], 1);
  EXPECT_NE(plan["error"].get<std::string>().find("verification failed in 1 of 10"),
            std::string::npos);
  json status = Status();
  EXPECT_EQ(status["generation"], 1);
  EXPECT_EQ(status["physical_table"], "tinawang:check");
  EXPECT_EQ(status["migration"]["phase"], "failed_verification");
  EXPECT_EQ(migrator.counters().verification_failures, 1u);
  EXPECT_EQ(migrator.counters().switches, 0u);
  // It waits for an operator.
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(Plan()["phase"], "failed_verification");
}

TEST_F(MigratorTest, AbortBeforeTheSwitchDropsOnlyTheTarget) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 1})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.after_chunk = [&](int calls) {
    if (calls == 4) {
      auto node = zk_.Get("/presplit/migrations/tinawang:check", false);
      json plan = json::parse(node->data);
      plan["request"] = "abort";
      zk_.nodes["/presplit/migrations/tinawang:check"].data = plan.dump();
    }
  };
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_FALSE(zk_.nodes.count("/presplit/migrations/tinawang:check/regions/0"));
  EXPECT_TRUE(admin_.deleted.count("tinawang:check__g2"));
  EXPECT_FALSE(admin_.tables.count("tinawang:check__g2"));
  EXPECT_TRUE(admin_.tables.count("tinawang:check"));
  EXPECT_FALSE(admin_.disabled.count("tinawang:check")) << "the source is untouched";
  json status = Status();
  EXPECT_EQ(status["generation"], 1);
  EXPECT_EQ(status["migration"]["phase"], "aborted");
  EXPECT_EQ(migrator.counters().aborted, 1u);
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
  bridge_.admin = &admin_;
  // The abort lands while one worker writes its checkpoint and the other two are in the middle
  // of a chunk (the hook runs under the migrator's ZooKeeper lock, as a real client's write
  // would race it).
  int checkpoints = 0;
  zk_.before_write = [&](const std::string& path) {
    if (path.find("/regions/") != std::string::npos && ++checkpoints == 5) {
      RequestBehindTheMigratorsBack("abort");
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  zk_.before_write = nullptr;
  EXPECT_TRUE(Plan().is_null());
  EXPECT_FALSE(zk_.nodes.count("/presplit/migrations/tinawang:check/regions/0"));
  EXPECT_TRUE(admin_.deleted.count("tinawang:check__g2"));
  EXPECT_FALSE(admin_.tables.count("tinawang:check__g2"));
  EXPECT_EQ(bridge_.copies_into_a_missing_target, 0)
      << "every chunk in flight finished before the target was dropped";
  EXPECT_LT(bridge_.copy_calls, 40) << "the copy stopped at the request, it did not run out";
  EXPECT_EQ(migrator.counters().switches, 0u);
  EXPECT_EQ(migrator.counters().aborted, 1u);
  ExpectSourceAndStatusUntouched();
}

TEST_F(MigratorTest, AbortArrivingWhileTheSwitchBeginsIsHonouredBeforeTheStatusWrite) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // Verified; the switch has read its plan and describes the target: presplitctl aborts now.
  admin_.on_describe = [&](const std::string& table) {
    if (table == "tinawang:check__g2" && Plan()["phase"] == "switching" &&
        Plan()["request"].is_null()) {
      RequestBehindTheMigratorsBack("abort");
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  admin_.on_describe = nullptr;
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.deleted.count("tinawang:check__g2"));
  EXPECT_EQ(migrator.counters().switches, 0u);
  EXPECT_EQ(migrator.counters().aborted, 1u);
  ExpectSourceAndStatusUntouched();
}

TEST_F(MigratorTest, AbortLandingWithTheStatusWriteIsRefusedAndTheMigrationFinishes) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // The abort lands between the switch's last look at the plan and its status write: too late.
  bool switch_described = false;
  admin_.on_describe = [&](const std::string& table) {
    if (table == "tinawang:check__g2" && Plan()["phase"] == "switching") switch_described = true;
  };
  zk_.before_write = [&](const std::string& path) {
    if (path == "/presplit/status/tinawang:check" && switch_described) {
      switch_described = false;
      RequestBehindTheMigratorsBack("abort");
    }
  };
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  zk_.before_write = nullptr;
  admin_.on_describe = nullptr;
  EXPECT_EQ(migrator.counters().switches, 1u);
  EXPECT_EQ(migrator.counters().aborted, 0u);
  EXPECT_FALSE(admin_.deleted.count("tinawang:check__g2")) << "the table writers use now";
  ExpectEveryRowCopiedOnce();
  json status = Status();
  EXPECT_EQ(status["physical_table"], "tinawang:check__g2");
  EXPECT_EQ(status["generation"], 2);
  EXPECT_EQ(status["migration"]["phase"], "done");
  EXPECT_TRUE(Plan().is_null()) << "finished, not left waiting";
}

TEST_F(MigratorTest, AbortAfterASwitchWhosePlanWriteWasLostIsRefused) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
  // The leader writes the status (the switch) and loses its lease before the plan records it:
  // the plan still says "switching" while writers already use the target.
  MigratorOptions first_options = options_;
  first_options.lease = [&] {
    auto status = zk_.nodes.find("/presplit/status/tinawang:check");
    return json::parse(status->second.data)["generation"] != 2;
  };
  Migrator first(zk_, admin_, bridge_, first_options);
  EXPECT_EQ(first.RunOnce().code(), StatusCode::kFailedPrecondition);
  ASSERT_EQ(Plan()["phase"], "switching");
  ASSERT_EQ(Status()["generation"], 2);
  Request("abort");

  Migrator second(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(second.RunOnce().ok());
  EXPECT_EQ(second.counters().aborted, 0u);
  EXPECT_FALSE(admin_.deleted.count("tinawang:check__g2")) << "the table writers use now";
  ExpectEveryRowCopiedOnce();
  json status = Status();
  EXPECT_EQ(status["physical_table"], "tinawang:check__g2");
  EXPECT_EQ(status["generation"], 2);
  EXPECT_EQ(status["migration"]["phase"], "done");
}

TEST_F(MigratorTest, AbortAfterTheSwitchIsRefused) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(Plan()["phase"], "grace");
  EXPECT_EQ(Status()["generation"], 2);
  // The SDK reads the previous generation too while the catch-up runs: the status names it.
  EXPECT_EQ(Status()["migration"]["previous"]["physical_table"], "tinawang:check");
  EXPECT_EQ(Status()["migration"]["previous"]["generation"], 1);
  EXPECT_EQ(Status()["migration"]["previous"]["layout"]["salt"]["buckets"], 10);
  Request("abort");
  ASSERT_TRUE(migrator.RunOnce().ok());
  json plan = Plan();
  EXPECT_EQ(plan["phase"], "grace");
  EXPECT_TRUE(plan["request"].is_null());
  EXPECT_NE(plan["error"].get<std::string>().find("abort refused"), std::string::npos);
  EXPECT_TRUE(admin_.tables.count("tinawang:check__g2"));
  EXPECT_FALSE(admin_.disabled.count("tinawang:check")) << "still in its grace period";
}

TEST_F(MigratorTest, DropOldDropsOnlyWhenNothingIsMissing) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "drop_old": true})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_TRUE(admin_.deleted.count("tinawang:check"));
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, DropOldKeepsTheOldGenerationWhenACellIsMissing) {
  StartMigration(R"({"allowed": true, "grace_period_s": 3600, "drop_old": true})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  ASSERT_EQ(Plan()["phase"], "grace");
  {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    bridge_.target.erase(bridge_.target.begin());
  }
  // The grace period ends.
  auto node = zk_.Get("/presplit/migrations/tinawang:check", false);
  json plan = json::parse(node->data);
  plan["grace_until_ms"] = 1;
  zk_.nodes["/presplit/migrations/tinawang:check"].data = plan.dump();
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_TRUE(Plan().is_null());
  EXPECT_TRUE(admin_.disabled.count("tinawang:check"));
  EXPECT_FALSE(admin_.deleted.count("tinawang:check"));
  EXPECT_NE(Status()["migration"]["error"].get<std::string>().find("NOT dropped: 3 of"),
            std::string::npos)
      << Status().dump();
}

TEST_F(MigratorTest, ACopyErrorIsRecordedAndRetriedOnTheNextRun) {
  StartMigration();
  options_.chunk_attempts = 1;
  Migrator migrator(zk_, admin_, bridge_, options_);
  bridge_.copy_error_after = 2;
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(Plan()["phase"], "copying");
  EXPECT_NE(Plan()["error"].get<std::string>().find("region server went away"), std::string::npos);
  EXPECT_EQ(Status()["generation"], 1);
  bridge_.copy_error_after = -1;
  ASSERT_TRUE(migrator.RunOnce().ok());
  ExpectEveryRowCopiedOnce();
  EXPECT_EQ(Status()["generation"], 2);
}

TEST_F(MigratorTest, TheRateLimitIsSharedByTheWorkers) {
  StartMigration(R"({"allowed": true, "grace_period_s": 0, "workers": 4,
                     "max_cells_per_s": 1000})");
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnce().ok());
  EXPECT_EQ(bridge_.last_rate, 250);
}

TEST_F(MigratorTest, AStandbyDrivesNothing) {
  StartMigration();
  options_.lease = [] { return false; };
  Migrator standby(zk_, admin_, bridge_, options_);
  EXPECT_EQ(standby.RunOnce().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(bridge_.copy_calls, 0);
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_TRUE(standby.Snapshot().empty());
}

TEST(MigrationRecords, PlanAndCheckpointRoundTrip) {
  MigrationPlan plan;
  plan.table = plan.source = "ns:t";
  plan.target = GenerationTableName("ns:t", 2);
  EXPECT_EQ(plan.target, "ns:t__g2");
  plan.old_layout = R"({"salt":{"buckets":10}})";
  plan.new_layout = R"({"salt":{"buckets":16}})";
  plan.source_regions = {{"", std::string("\x01", 1)}, {std::string("\x01", 1), ""}};
  plan.phase = Phase::kCatchingUp;
  plan.request = "pause";
  auto parsed = ParsePlan(PlanToJson(plan));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->source_regions[0].end, std::string("\x01", 1));
  EXPECT_EQ(parsed->phase, Phase::kCatchingUp);
  EXPECT_EQ(parsed->request, "pause");
  EXPECT_TRUE(IsSwitched(parsed->phase));
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

TEST(MigrationRecords, BridgeResultsAreParsedStrictly) {
  auto chunk = ParseChunkCopied(
      R"({"rows":2,"cells":6,"bytes":100,"digest":"00000000000000ff","next_row":"YWI="})");
  ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
  EXPECT_EQ(chunk->copied.digest, 255u);
  EXPECT_EQ(*chunk->next_row, "ab");
  chunk = ParseChunkCopied(R"({"rows":2,"cells":6,"bytes":1,"digest":"00000000000000ff",
                               "next_row":null})");
  ASSERT_TRUE(chunk.ok());
  EXPECT_FALSE(chunk->next_row.has_value());
  EXPECT_FALSE(ParseChunkCopied(R"({"rows":2})").ok());
  EXPECT_FALSE(ParseChunkCopied("[]").ok());
  auto digests = ParseCellDigests(R"([{"rows":1,"cells":1,"digest":"0000000000000001"}])", 1);
  ASSERT_TRUE(digests.ok());
  EXPECT_FALSE(ParseCellDigests(R"([])", 1).ok());
  EXPECT_FALSE(ParseCellDigest(R"({"rows":1,"cells":1,"digest":"xyz"})").ok());
  EXPECT_EQ(Base64Encode("hello!?"), "aGVsbG8hPw==");
  EXPECT_EQ(*Base64Decode("aGVsbG8hPw=="), "hello!?");
  EXPECT_FALSE(Base64Decode("a=bc").ok());
  auto presence = ParsePresenceCheck(R"({"checked":5,"missing":1,"first_missing":"k"})");
  ASSERT_TRUE(presence.ok());
  EXPECT_EQ(presence->first_missing, "k");
}

}  // namespace
}  // namespace presplit::daemon::migrate
