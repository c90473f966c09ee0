// Re-salting migrations, run by the leader: a table whose document asks for another salt layout
// and allows it ("migration": {"allowed": true}) is copied, re-keyed, into a new physical table
// (the next generation, "ns:t__g2"), verified, and switched to, online, without losing a row.
//
// The reconciler starts a migration (StartMigration writes the plan); the Migrator, on its own
// worker, drives every plan under <root>/migrations through the phases of migration_plan.h:
//   planned     -> the target is created pre-split for the new layout (from the document);
//   copying     -> engine "put": a bounded pool of threads, one source region each, copies
//                  [0, start_ts) chunk by chunk; after each chunk a checkpoint znode (next_row,
//                  rows, cells, digest); pause/abort requests and the lease are checked between
//                  chunks.
//                  engine "hfile": the same chunks, each written as HFiles and bulk-loaded; with
//                  hfile_source_snapshot, read from one snapshot of the source (taken by the
//                  first chunk, deleted with the staging directory) instead of a RegionServer
//                  scan.
//                  engine "mapreduce": one ResaltBulkJob (snapshot of the source, re-keying
//                  mappers, HFiles per target region) copies [0, start_ts); the plan's `bulk`
//                  record keeps its job id, snapshot and staging dir; each run polls the job
//                  (progress into the plan and the status) and returns; a finished job's HFiles
//                  are bulk-loaded once (the `_LOADED` marker), then snapshot and staging dir are
//                  removed. A job id the JVM does not know (the local job runner's jobs die with
//                  the daemon; a new leader has a new JVM) is submitted again after checking what
//                  the old attempt left: a finished output is loaded, a loaded one is not loaded
//                  again, anything else is recomputed. On YARN the job outlives the daemon and is
//                  found again by its id. A FAILED or KILLED job is resubmitted up to
//                  bulk_attempts times, then the migration waits with the error (resume: try
//                  again; abort: kill, clean up, drop the target);
//   replaying   -> one replay of the source's [start_ts, now) onto the target;
//   verifying   -> per source region, counts and digests of the source's cells of [0, start_ts)
//                  against the target's cells attributed back to that region; any difference
//                  stops at failed_verification, nothing switched (source regions digested
//                  `workers` at a time while one pass digests the target);
//   switching   -> ONE status write: physical_table, generation, layout and buckets together;
//                  not made while a request is pending (the plan is read again right before);
//                  an abort is refused as soon as the status names the target, whatever the
//                  plan's phase says;
//   catching_up -> replays of the source from (a little before) the last replayed timestamp until
//   one replays
//                  nothing (at most max_catchup_rounds);
//   grace       -> after grace_period_s the old generation is disabled; dropped only with
//                  drop_old and when a final check finds every source cell in the target;
//   done        -> checkpoints and plan removed; the status keeps a summary.
// Every step can be interrupted (SIGKILL, lost leadership) and is resumed from the plan and the
// checkpoints by whichever daemon leads next; every write to HBase or ZooKeeper is preceded by a
// lease check, and plan/status writes are compare-and-set.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"
#include "daemon/zk/zk_client.h"
#include "presplit/table_config.h"

namespace presplit::daemon::migrate {

// <root>/migrations and <root>/migrations/<ns>:<table>.
std::string MigrationsPath(const std::string& zk_root);
std::string PlanPath(const std::string& zk_root, const std::string& table);

// What the reconciler knows when it starts a migration.
struct MigrationStart {
  std::string table;            // the document's znode name (the plan's and status's name)
  std::string canonical_table;  // "ns:t": the target is "ns:t__g<N>"
  std::string source;           // the physical table serving now
  int64_t source_generation = 1;
  std::string old_layout;  // JSON: the layout the source was built with
  std::string new_layout;  // JSON: the document's layout
  std::vector<SourceRegion> source_regions;
  MigrationConfig config;
  int64_t config_version = 0;
  std::string document;  // canonical document: the target is created from it
  std::string daemon_id;
  int64_t now_ms = 0;
};

// Writes the plan (created only if absent: AlreadyExists when a migration of the table is under
// way). The caller checks the lease first. The migrations znode is created when missing.
Status StartMigration(ZkClient& zk, const std::string& zk_root, const ZkAcls& acls,
                      const MigrationStart& start);

// Whether a plan exists for the table (NotFound-safe; an unreadable ZooKeeper is an error).
Result<bool> MigrationUnderWay(ZkClient& zk, const std::string& zk_root, const std::string& table);

struct MigratorOptions {
  std::string zk_root = "/presplit";
  std::string daemon_id;
  // Asked right before every mutation (HBase or ZooKeeper); false stops at once. Unset: always.
  std::function<bool()> lease = nullptr;
  const std::atomic<bool>* stop = nullptr;  // set: the daemon is stopping
  ZkAcls acls = OpenAcls();
  int chunk_rows = 5000;  // rows per copyChunk call (one checkpoint each), engine "put"
  // Engine "hfile": rows per copyChunk call, each one bulk load of up to one HFile per target
  // region and family; larger than chunk_rows, as every chunk adds files to the target's stores.
  int hfile_chunk_rows = 100000;
  // Engine "hfile": the chunks read one snapshot of the source in the daemon's JVM instead of
  // scanning it through the RegionServers (migration_hfile_source = snapshot). Only taken when
  // the daemon knows hbase.rootdir (KnowsHBaseRootDir); the daemon refuses the setting without.
  bool hfile_source_snapshot = false;
  int max_catchup_rounds = 20;  // replays after the switch before giving up on "quiet"
  int min_catchup_rounds = 2;   // writers need a moment to follow the switch
  std::chrono::milliseconds catchup_interval{2000};  // between two catch-up replays
  // Each catch-up replay starts this far before where the previous one ended: a write whose
  // timestamp is older than the previous round's end but which landed after its scan is not
  // missed (replaying a cell twice changes nothing).
  std::chrono::milliseconds replay_overlap{2000};
  std::chrono::milliseconds progress_interval{1000};  // status progress writes while copying
  int chunk_attempts = 3;  // a failed chunk is retried this often before the run gives up
  // Wall clock in ms (HBase timestamps); tests pass their own.
  std::function<int64_t()> now_ms = nullptr;

  // The "mapreduce" engine (ResaltBulkJob) and the "hfile" engine stage their HFiles under
  // <bulk_staging_dir>/<target> on the cluster's default file system (fs.defaultFS), which the
  // RegionServers must be able to read.
  std::string bulk_staging_dir = "/tmp/presplit-resalt";
  // A Hadoop configuration directory (core-, hdfs-, mapred-, yarn-site.xml): with
  // mapreduce.framework.name = yarn the job runs on YARN; empty: Hadoop's local job runner in
  // the daemon's JVM.
  std::string hadoop_conf_dir;
  // HBase's configuration directory (hbase-site.xml) for the job; with it, or with hbase.rootdir
  // in hbase_settings, the job reads a snapshot of the source, else the live source table.
  std::string hbase_conf_dir;
  std::map<std::string, std::string> hbase_settings;  // the daemon's HBase client settings
  int bulk_attempts = 3;     // failed jobs before the migration waits for an operator
  int bulk_local_tasks = 0;  // local runner: tasks at a time (0: the plan's workers)
  // Engine "auto": mapreduce for a source of at least this many bytes (store files and
  // memstores, summed over its regions), put below. table_bytes measures it (unset or failing:
  // put).
  int64_t mapreduce_threshold_bytes = int64_t{10} << 30;
  // The daemon's JVM heap limit (jvm_max_heap; 0 = unknown). Hadoop's local job runner runs the
  // job's tasks inside that JVM: below kLocalRunnerMinHeapBytes it would run out of memory and
  // take the daemon with it (the JVM exits on OutOfMemoryError), so without a hadoop_conf_dir
  // "auto" stays on put and "mapreduce" is refused with the reason.
  int64_t jvm_max_heap_bytes = 0;
  static constexpr int64_t kLocalRunnerMinHeapBytes = int64_t{768} << 20;
  std::function<Result<int64_t>(const std::string& table)> table_bytes = nullptr;
};

// One migration as /status, /metrics and the status znode show it.
struct MigrationProgress {
  std::string table;
  std::string source;
  std::string target;
  int64_t target_generation = 0;
  Phase phase = Phase::kPlanned;
  bool paused = false;
  int regions_done = 0;
  int regions_total = 0;
  int64_t rows = 0;
  int64_t cells = 0;
  double rows_per_s = 0;
  int64_t eta_s = -1;  // -1: unknown
  std::string error;
};

struct MigratorCounters {
  std::atomic<uint64_t> runs{0};
  std::atomic<uint64_t> rows_copied{0};
  std::atomic<uint64_t> cells_copied{0};
  std::atomic<uint64_t> chunks_copied{0};
  std::atomic<uint64_t> regions_done{0};
  std::atomic<uint64_t> replayed_cells{0};
  std::atomic<uint64_t> verification_failures{0};
  std::atomic<uint64_t> switches{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> aborted{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> exceptions_caught{0};
};

class Migrator {
 public:
  Migrator(ZkClient& zk, HBaseAdmin& admin, MigrationBridge& bridge, MigratorOptions options);

  // Creates <root>/migrations when missing.
  Status Prepare();

  // Drives every plan as far as it can go now: returns when each one waits (paused, failed
  // verification, grace period) or is done, or when the lease is lost or the daemon stops
  // (FailedPrecondition / Unavailable). An error of one migration is recorded in its plan and
  // status and the others go on. Never throws.
  Status RunOnce();

  // The migrations this daemon drove last (empty on a standby).
  std::vector<MigrationProgress> Snapshot() const;
  const MigratorCounters& counters() const { return counters_; }

 private:
  enum class Step { kAdvanced, kWaiting, kStopped };
  struct PlanNode {
    MigrationPlan plan;
    int version = 0;
  };

  Step DriveOne(const std::string& table);
  Step HandleRequest(PlanNode& node);
  Step CreateTarget(PlanNode& node);
  Step Copy(PlanNode& node);
  // The "mapreduce" engine's copy phase (migrator_bulk.cc).
  Step ResolveEngine(PlanNode& node);
  Step CopyBulk(PlanNode& node);
  Step SubmitBulk(PlanNode& node, const std::string& spec);
  Step LoadBulk(PlanNode& node, const std::string& spec);
  Step FinishBulkCopy(PlanNode& node, const std::string& spec);
  void AbortBulkCopy(const MigrationPlan& plan);
  // A pause stops a running bulk job too (an operator pauses to give the cluster its capacity
  // back): the job is killed and its id forgotten, so that resume submits it again (not counted
  // as a failure; a job that finished meanwhile is loaded, not run again). If the kill fails the
  // job runs on and is only no longer polled until resume.
  void PauseBulkCopy(MigrationPlan& plan);
  // Engine "hfile": removes the chunks' staging directory (a chunk removes its own files, but a
  // daemon killed in the middle of one leaves them). `when` is for the log.
  void CleanupHfileStaging(const MigrationPlan& plan, const char* when);
  std::string BulkSpecOf(const MigrationPlan& plan) const;
  // Engine "hfile": the spec of every chunk's CopyRange and of the staging directory's cleanup
  // (one spec, so copy and cleanup resolve the directory with the same configuration). With
  // hfile_source_snapshot (and hbase.rootdir known) it names the source snapshot the chunks read
  // (input "snapshot"), which the cleanup deletes with the staging directory.
  std::string HfileStagingSpecOf(const MigrationPlan& plan) const;
  // hbase_conf_dir or an hbase.rootdir setting: the daemon can read a snapshot's files.
  bool KnowsHBaseRootDir() const;
  // The one snapshot of the source that a migration's copy reads (both engines).
  static std::string SourceSnapshotOf(const MigrationPlan& plan);
  // The JSON spec ResaltBulkJob's static methods take (snapshot "" = none named).
  std::string SpecOf(const MigrationPlan& plan, const std::string& staging_dir,
                     const std::string& input, const std::string& snapshot) const;
  void SnapshotBulk(const MigrationPlan& plan);
  Step Replay(PlanNode& node);
  Step Verify(PlanNode& node);
  Step Switch(PlanNode& node);
  Step CatchUp(PlanNode& node);
  Step Retire(PlanNode& node);
  Step Abort(PlanNode& node);
  Step Finish(PlanNode& node, const std::string& summary);

  Result<PlanNode> ReadPlan(const std::string& table);
  // CAS write of the plan at node.version (version updated); a refused write re-reads the plan,
  // keeps its request field, and applies `change` again.
  Status WritePlan(PlanNode& node);
  // Records an error in the plan and the status, logs it, and waits for the next run.
  Step Fail(PlanNode& node, const std::string& error);
  // The status's `migration` object (read-modify-CAS of the status; other fields kept).
  Status PublishProgress(const MigrationPlan& plan, const std::string& extra_phase = "");
  void UpdateSnapshot(const MigrationPlan& plan);
  // Whether the table's status already names the plan's target (the switch happened, whatever
  // the plan's phase says): then the target must never be dropped.
  Result<bool> StatusNamesTarget(const MigrationPlan& plan);
  Result<std::vector<RegionCheckpoint>> ReadCheckpoints(const MigrationPlan& plan);
  Status DeleteMigrationNodes(const MigrationPlan& plan);

  bool MayAct();
  bool Stopping() const { return options_.stop != nullptr && *options_.stop; }
  int64_t NowMs() const;
  CopyRange RangeOf(const MigrationPlan& plan) const;
  std::string CheckpointPath(const std::string& table, size_t region) const;

  ZkClient& zk_;
  HBaseAdmin& admin_;
  MigrationBridge& bridge_;
  const MigratorOptions options_;
  // ZooKeeper and the lease check are used from the copy threads too: one at a time.
  std::mutex zk_mu_;
  mutable std::mutex snapshot_mu_;
  std::map<std::string, MigrationProgress> snapshot_;
  MigratorCounters counters_;
};

}  // namespace presplit::daemon::migrate
