// Re-salting migrations, run by the leader: a table whose document asks for another salt layout
// and allows it ("migration": {"allowed": true}) is copied, re-keyed, into a new physical table
// (the next generation, "ns:t__g2"), verified, and switched to, online, without losing a write.
//
// A cell's timestamp is its writer's data, not a clock, so nothing here selects cells by
// timestamp. Changes are captured by HBase replication instead: a peer per migration whose
// endpoint (presplit-hbase.jar's RekeyingReplicationEndpoint, on every RegionServer) ships every
// WAL edit of the source table to the target, re-keyed, whatever its timestamp, delete markers
// and tags included. The copy covers what was written before the peer existed, the peer
// everything after; where they overlap both write the same cells. What the WAL does not carry
// (bulk loads, Durability.SKIP_WAL writes) is refused by a table coprocessor, presplit-hbase.jar's
// MigrationGuard, on both generations from before the peer exists until the migration ends.
//
// The reconciler starts a migration (StartMigration writes the plan); the Migrator drives every
// plan through the phases of migration_plan.h, one file per phase, each plan on a driver thread
// of its own (see "Drivers" below):
//   planned      (phase_create.h: CreatePhase, a class over a PhaseContext) the target is
//                created pre-split for the new layout, keeping delete markers
//                (KEEP_DELETED_CELLS) while the copy runs, guarded (the copy's bulk loads
//                allowed); the source is guarded; the forward capture peer (old -> new) is
//                added;
//   copying      (phase_copy.cc, phase_copy_bulk.cc) engine "put" or "hfile": a bounded pool of
//                threads copies the source region by region, chunk by chunk, checkpointed;
//                engine "mapreduce": one ResaltBulkJob. Then the target's guard refuses bulk
//                loads too (it keeps deleted cells until the fence);
//   verifying    (phase_verify.h: VerifyPhase) source and target compared cell by cell, live:
//                digests per region and partition, the partitions that differ compared row by
//                row after the peer shipped past the reads, and only rows that still differ
//                then count;
//                failed_verification stops it, nothing switched;
//   switching    (phase_switch.h: SwitchPhase, a class over a PhaseContext) the reverse peer
//                (new -> old) is added, then ONE status write moves readers and writers to
//                the target;
//   catching_up  the forward peer has shipped every write made to the old generation up to a
//                probe written after the switch;
//   grace        (phase_retire.h: RetirePhase, a class over a PhaseContext) both peers run: a
//                late writer of the old generation still reaches the new one, and `rollback`
//                can switch back without losing the writes made to the new one;
//   fencing      the reverse peer is removed, the old generation made read-only (writes
//                refused, loudly), the forward peer drained (every old region's close shipped)
//                and removed, the new generation settled (the old one's KEEP_DELETED_CELLS, no
//                guard); then, with drop_old, a final check and the drop;
//   done         the old generation disabled (dropped when asked); plan removed.
//   rolling_back (phase_rollback.h: RollbackPhase, a class over a PhaseContext) after a
//                rollback: the status names the old generation again, which loses its guard;
//                the new one is fenced, drained through the reverse peer, and dropped.
// Abort (phase_abort.h: AbortPhase, before the switch only) removes the peers, drops the target
// and the source's guard. A bulk load the capture sees anyway got past the guard: the migration
// stops (StopForBulkLoads).
//
// Every step can be interrupted (SIGKILL, lost leadership) and is resumed from the plan and the
// checkpoints by whichever daemon leads next; every write to ZooKeeper is compare-and-set and
// checked against the lease (plan_store.h); a plan is acted on only when it is one this daemon
// would have written (plan_check.h).
//
// Drivers. Several steps block for minutes: a capture peer's acknowledgements are waited for up
// to ack_timeout, verification re-reads, copies run long. So that one migration's wait never
// holds up another's progress, RunOnce starts a driver thread per plan that has none running
// (at most max_concurrent_migrations at a time; the plans beyond wait their turn, the ones
// driven least recently first), reaps the drivers that ended, and returns without waiting for
// the others. A driver takes its plan as far as it can go now (DriveOne) and ends; the next run
// starts it again. What the drivers share is guarded: every ZooKeeper call under zk_mu_ (plan
// store and status writes alike), every HBaseAdmin call (and options.table_bytes) under
// admin_mu_ (the daemon's admin is not thread-safe), the snapshot and the refusal log under
// their own locks; the bridge is thread-safe (the copy's threads call it too). A driver that
// finds the lease gone (or the daemon stopping) halts them all: every wait polls for it, no
// driver starts again until all have ended, and every mutation asks the lease first anyway.
// Stop() (and the destructor) halts and joins them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/migrate/capture_peers.h"
#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/guards.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"
#include "daemon/migrate/migrator_options.h"
#include "daemon/migrate/phase_abort.h"
#include "daemon/migrate/phase_context.h"
#include "daemon/migrate/phase_create.h"
#include "daemon/migrate/phase_retire.h"
#include "daemon/migrate/phase_rollback.h"
#include "daemon/migrate/phase_switch.h"
#include "daemon/migrate/phase_throttles.h"
#include "daemon/migrate/phase_verify.h"
#include "daemon/migrate/plan_store.h"
#include "daemon/migrate/throttle_sampler.h"
#include "daemon/migrate/throttler.h"
#include "daemon/migrate/write_pause.h"
#include "daemon/zk/zk_client.h"
#include "presplit/table_config.h"

namespace presplit::daemon::migrate {

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
  // The adaptive throttle while the copy or verification runs (-1: none running; 0: unlimited)
  // and why it is where it is.
  int64_t throttle_cells_per_s = -1;
  std::string throttle_reason;
  // Its capture peers as HBase last reported them (PollCaptureLags): empty while none runs, or
  // when HBase could not be asked.
  std::vector<CaptureLag> capture;
};

class Migrator : private DriverControl, private PlanRecord, private StatusBoard {
 public:
  Migrator(ZkClient& zk, HBaseAdmin& admin, MigrationBridge& bridge, MigratorOptions options);
  // Stop().
  ~Migrator();
  Migrator(const Migrator&) = delete;
  Migrator& operator=(const Migrator&) = delete;

  // Creates <root>/migrations and <root>/requests when missing.
  Status Prepare();

  // Starts a driver for every plan that has none running (up to max_concurrent_migrations),
  // reaps the drivers that ended, and returns at once. Each driver takes its plan as far as it
  // can go now: until it waits (paused, failed verification, grace period, a capture still
  // shipping) or is done, or the lease is lost or the daemon stops. An error of one migration is
  // recorded in its plan and status and the others go on. FailedPrecondition without the lease
  // (also while the drivers of a lost lease are still ending, or when one ended so since the
  // last run), Unavailable when stopping. Never throws.
  Status RunOnce();
  // RunOnce, then waits until every driver has ended: the run of the unit tests (a synchronous
  // step), with RunOnce's verdict on what this run's drivers met.
  Status RunOnceAndWait();
  // Halts every driver (they end at their next look at the lease: between chunks, polls and
  // steps) and joins them. Plans are left as they are, resumable. RunOnce after Stop starts
  // drivers again (when the lease allows).
  void Stop();

  // The migrations this daemon drove last (empty on a standby).
  std::vector<MigrationProgress> Snapshot() const;
  const MigratorCounters& counters() const { return counters_; }

 private:
  using Step = migrate::Step;
  using PlanNode = migrate::PlanNode;

  // One plan's driver thread; `finished` and `step` are written under drivers_mu_.
  struct Driver {
    std::thread thread;
    bool finished = false;
    Step step = Step::kWaiting;
  };

  // HBaseAdmin calls one at a time (the daemon's admin is not thread-safe; neither are the
  // unit tests' fakes).
  class GuardedAdmin final : public HBaseAdmin {
   public:
    explicit GuardedAdmin(HBaseAdmin& admin) : admin_(admin) {}
    Result<TableDescription> DescribeTable(const std::string& table) override;
    Status CreateTable(const TableSpec& spec) override;
    Status DisableTable(const std::string& table) override;
    Status DeleteTable(const std::string& table) override;
    // Runs `fn` under the same lock (options.table_bytes uses the same admin).
    template <typename Fn>
    auto Locked(Fn&& fn) {
      std::lock_guard<std::mutex> lock(mu_);
      return fn();
    }

   private:
    HBaseAdmin& admin_;
    std::mutex mu_;
  };

  // ---- migrator.cc: the drivers
  // Starts the drivers of this run (after reaping the ones that ended).
  Status Run(bool wait);
  // Joins the drivers that ended (all of them with `all`, waiting for each); true when one of
  // them ended stopped (lease lost or stopping).
  bool Reap(bool all);
  void DriveInThread(const std::string& table, Driver* driver);
  // Stopping, or the drivers were halted (the lease was found gone, or Stop()).
  bool Halted() const override { return Stopping() || halted_; }
  // DriverControl (driver_control.h), for the phases and their services: halted, or the lease
  // is gone (the lease itself read at most once a second, it reads ZooKeeper).
  bool Interrupted() override;

  // ---- migrator.cc: the driver, requests, and what every phase shares
  Step DriveOne(const std::string& table);
  Step HandleRequest(PlanNode& node, const PlanStore::PendingRequest& pending);
  // CAS write of the plan, then its progress into the status; Waiting (or Stopped when the lease
  // is gone) when the write is refused: DriveOne reads the plan again.
  Step Save(PlanNode& node) override;
  // Records an error in the plan and the status, logs it, and waits for the next run.
  Step Fail(PlanNode& node, const std::string& error) override;
  // Moves the plan to `to` when the phase table allows it (MayMove, migration_phase.h); an
  // Internal error naming both phases otherwise, the plan unchanged. Every phase change goes
  // through here.
  Status EnterPhase(MigrationPlan& plan, Phase to) override;
  // Removes the plan and its records; the status keeps `final_phase` and the summary.
  Step Finish(PlanNode& node, const std::string& summary, const char* final_phase) override;
  void ClearRequest(const std::string& table, int version) override;
  // The lease (and not stopping, not halted), asked under zk_mu_ (MayAct takes it;
  // LeaseHeldLocked is for a caller that holds it). A lease found gone halts every driver.
  bool MayAct() override;
  bool LeaseHeldLocked();
  bool Stopping() const override { return options_.stop != nullptr && *options_.stop; }
  int64_t NowMs() const override;
  void Sleep(std::chrono::milliseconds duration) const override;
  std::chrono::steady_clock::time_point Steady() const override {
    return std::chrono::steady_clock::now();
  }
  CopyRange RangeOf(const MigrationPlan& plan) const;

  // ---- table_status.cc: what a migration reads from and writes into the table's status
  // The plan check of plan_check.h with what the daemon reads itself (the status).
  Status CheckAgainstStatus(const MigrationPlan& plan);
  // The status's `migration.refused`: why a plan was left untouched.
  void RecordRefusal(const std::string& table, const std::string& why);
  // The status's `migration` object (read-modify-CAS of the status; other fields kept).
  Status PublishProgress(const MigrationPlan& plan, const std::string& extra_phase = "") override;
  void UpdateSnapshot(const MigrationPlan& plan) override;
  // A phase's throttle state into the snapshot (a throttle that ended: none): PhaseThrottles'
  // Show.
  void SnapshotThrottle(const std::string& table, const Throttler* throttler);
  // Whether the table's status already names the plan's target (the switch happened, whatever
  // the plan's phase says): then the target must never be dropped.
  Result<bool> StatusNamesTarget(const MigrationPlan& plan) override;
  // Moves the status's physical table, generation and layout (one CAS write) to the given
  // generation, with the status's `migration` object in the same write. Not written while a
  // request is pending (then `*request_pending` is set and nothing is written), unless
  // `request_pending` is null (the write is the handling of a request).
  Status WriteStatusGeneration(const MigrationPlan& plan, bool to_target,
                               const std::string& migration_phase, bool* request_pending) override;

  // ---- capture_watch.cc: the capture peers of all migrations, and a stop for bulk loads
  // Stops a migration whose capture saw bulk loads it cannot ship (capture_.CollectNotices): before
  // the switch the verification fails (nothing switched; resume verifies again, the comparison
  // covering the loaded cells); after it the migration is paused, the old generation kept, with
  // what to do (a rollback while one is possible). A switch's write pause is lifted first.
  Step StopForBulkLoads(PlanNode& node, const BulkLoadsSeen& seen) override;
  // Removes the capture peers (presplit_*) that carry this daemon's root as owner and that no
  // plan under that root names: a migration that ended without removing its peer (a daemon
  // killed between steps, a plan removed by hand) leaves one, and it keeps HBase from deleting
  // the source's WALs. The peers are listed BEFORE the plans: a plan is written before its peer
  // is added, so a listed peer of a live migration is in a plan listed after it. A peer without
  // an owner (an older version's) is only logged, once. At most once per
  // orphan_sweep_interval; run by Run() before it starts the drivers, never throws.
  void SweepOrphanPeers();
  void SweepOrphanPeersNow();
  // Reads the lag of every capture peer of the migrations in the snapshot (both peers of each,
  // named after its target) into the snapshot's `capture`: at most once per
  // capture_lag_interval, from Run() (the snapshot of its earlier runs); never throws. A failed
  // read leaves them empty (no stale value is shown) and is logged once until one works.
  void PollCaptureLags();

  // ---- migrator.cc: the plan check against the tables
  // Whether the tables agree with a plan beyond its first phase: its target exists and carries
  // the marker of this plan migrating this source (set by CreateGeneration), or, before the
  // switch and while rolling back, is gone (an abort or a rollback dropped it). InvalidArgument
  // (the plan is refused, nothing done with it) when not; another error when HBase could not
  // tell.
  Status CheckTablesAgree(const MigrationPlan& plan);

  // ---- phase_copy.cc
  Step Copy(PlanNode& node);
  // The copy is complete: the target stops keeping deleted cells and its guard refuses bulk
  // loads (one modifyTable); verification next.
  Step FinishCopy(PlanNode& node);

  // ---- phase_copy_bulk.cc: the "mapreduce" engine's copy
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
  // (the same configuration, so copy and cleanup resolve the directory alike). With
  // hfile_source_snapshot (and hbase.rootdir known) the chunks read the source snapshot (input
  // "snapshot") if HfileChunksReadSnapshot says so; the cleanup's spec names that snapshot
  // whenever one was asked for, and deletes it with the staging directory.
  std::string HfileStagingSpecOf(const MigrationPlan& plan, bool for_cleanup) const;
  // Engine "hfile" with hfile_source_snapshot: whether this daemon's user may read the source's
  // files under hbase.rootdir (on a secure HDFS they are HBase's alone). Asked through the bridge
  // once per migration and daemon process, with one warning when not: the chunks then scan the
  // live table. Either source is a correct copy (the capture peer carries every later write), so
  // a restart that decides otherwise mixes them safely.
  bool HfileChunksReadSnapshot(const MigrationPlan& plan) const;
  // "" when the daemon's user may read the files a snapshot of plan's source is made of, else why
  // not (the file system's refusal, or why it could not be asked).
  std::string WhySnapshotUnreadable(const MigrationPlan& plan,
                                    const std::string& staging_dir) const;
  // hbase_conf_dir or an hbase.rootdir setting: the daemon can find a snapshot's files.
  bool KnowsHBaseRootDir() const;
  // Engine "mapreduce": the job's input, chosen once per migration (the plan keeps it): "snapshot"
  // when the daemon knows hbase.rootdir and its user may read the source's files there (asked
  // through the bridge), else "table" (a scan through the RegionServers), with one line saying
  // why. On a secure HDFS the files there are HBase's alone.
  std::string ChooseBulkInput(const MigrationPlan& plan, const BulkCopyState& bulk) const;
  // The JSON spec ResaltBulkJob's static methods take (snapshot "" = none named).
  std::string SpecOf(const MigrationPlan& plan, const std::string& staging_dir,
                     const std::string& input, const std::string& snapshot) const;
  void SnapshotBulk(const MigrationPlan& plan);

  // ---- migrator.cc: a document removed under a migration, the abort (phase_abort.h)
  // The PlanRecord's abort: AbortPhase.
  Step Abort(PlanNode& node, const std::string& why) override;
  Status RemovePlan(const MigrationPlan& plan) override;
  void Forget(const std::string& table) override;
  // Whether the table's document (<root>/tables/<table>) is gone; false when it is there or
  // cannot be read now (only a NotFound is taken for gone).
  bool DocumentGone(const std::string& table);
  // The document of a table under migration was removed (straight in ZooKeeper: presplitctl rm
  // refuses while a plan exists). Not switched yet: aborted (nothing would ever serve the
  // target, and its capture peer would hold the source's WALs forever). Switched: the target
  // serves the table's data, so the migration goes on to its end, logged once. kAdvanced: go on
  // with the plan as usual.
  Step OnDocumentGone(PlanNode& node);

  ZkClient& zk_;
  GuardedAdmin admin_;
  MigrationBridge& bridge_;
  const MigratorOptions options_;
  // The drivers by table; RunOnce (one caller at a time) starts and reaps them.
  std::mutex drivers_mu_;
  std::condition_variable drivers_cv_;  // a driver ended
  std::map<std::string, std::unique_ptr<Driver>> drivers_;
  std::map<std::string, uint64_t> last_started_;  // run number: the longest-waiting plan first
  std::set<std::string> queued_logged_;           // plans said to wait for a driver
  uint64_t run_number_ = 0;
  std::atomic<bool> halted_{false};
  std::atomic<int64_t> lease_asked_ms_{0};  // steady clock: Interrupted's last lease check
  // Every ZooKeeper call of the migrator and its store, one at a time (the fake in the unit tests
  // is not thread-safe, and the lease check reads ZooKeeper too).
  std::mutex zk_mu_;
  PlanStore store_;
  mutable std::mutex snapshot_mu_;
  std::map<std::string, MigrationProgress> snapshot_;
  // The plan versions whose refusal was logged already (a refused plan is looked at every run).
  std::mutex refusals_mu_;
  std::map<std::string, std::string> refusals_logged_;
  // The switched migrations whose missing document was logged already (OnDocumentGone); under
  // refusals_mu_.
  std::set<std::string> document_gone_logged_;
  MigratorCounters counters_;
  // The phases' services (after what they use), the context the phase classes see, and the
  // phases that are classes of their own.
  CapturePeers capture_;
  MigrationGuards guards_;
  WritePause write_pause_;
  PhaseContext context_;
  AbortPhase abort_phase_;
  CreatePhase create_phase_;
  SwitchPhase switch_phase_;
  RetirePhase retire_phase_;
  RollbackPhase rollback_phase_;
  VerifyPhase verify_phase_;
  // SweepOrphanPeers' state (Run's thread only): its last sweep, and the unowned orphan peers
  // and unreadable plans already logged.
  std::chrono::steady_clock::time_point last_orphan_sweep_{};
  std::set<std::string> unowned_peers_logged_;
  std::set<std::string> sweep_blockers_logged_;
  bool sweep_list_failure_logged_ = false;
  // PollCaptureLags' state (Run's thread only) and its last answer, by table (under snapshot_mu_).
  std::chrono::steady_clock::time_point last_lag_poll_{};
  bool lag_failure_logged_ = false;
  std::map<std::string, std::vector<CaptureLag>> capture_lags_;
  // HfileChunksReadSnapshot's answers, by target table.
  mutable std::mutex hfile_inputs_mu_;
  mutable std::map<std::string, bool> hfile_reads_snapshot_;
  // The phases' throttles, with those of running "mapreduce" jobs. Last: destroyed first,
  // while what their samplers use (the bridge, the snapshot) still exists.
  PhaseThrottles throttles_;
};

}  // namespace presplit::daemon::migrate
