// What a phase of a migration works with, named: the plan record it changes, the table's status
// it reads and writes, the services it uses (capture peers, the MigrationGuard, the switch's
// write pause, the throttles), the admin, the bridge to HBase, the driver's control (lease, clock,
// wait), the settings and the counters. A phase class takes a PhaseContext and nothing else, so
// that it can be tested over fakes of each part without a Migrator
// (tests/daemon/migrate/phase_*_test.cc).
//
// The Migrator builds the context of its drivers; today it also answers for the plan record and
// the status (PlanRecord, StatusBoard), which later carves may move into services of their own.
#pragma once

#include <functional>
#include <string>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/migrate/capture_peers.h"
#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/guards.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_phase.h"
#include "daemon/migrate/migration_plan.h"
#include "daemon/migrate/migrator_options.h"
#include "daemon/migrate/phase_throttles.h"
#include "daemon/migrate/plan_store.h"
#include "daemon/migrate/write_pause.h"

namespace presplit::daemon::migrate {

// How far one step of a phase got: it advanced (the driver reads the plan again and takes the
// next step), it waits for the next run (a peer still shipping, a grace period, an error
// recorded), or the driver must stop (the lease is gone, the daemon stops).
enum class Step { kAdvanced, kWaiting, kStopped };

// The plan as read, with the version its next compare-and-set write must match.
using PlanNode = PlanStore::Versioned;

// The plan record as a phase changes it.
class PlanRecord {
 public:
  virtual ~PlanRecord() = default;
  // CAS write of the plan, then its progress into the status; Waiting (or Stopped when the lease
  // is gone) when the write is refused: the driver reads the plan again.
  virtual Step Save(PlanNode& node) = 0;
  // Records an error in the plan and the status, logs it, and waits for the next run.
  virtual Step Fail(PlanNode& node, const std::string& error) = 0;
  // Moves the plan to `to` when the phase table allows it (MayMove); an Internal error naming
  // both phases otherwise, the plan unchanged. Every phase change goes through here.
  virtual Status EnterPhase(MigrationPlan& plan, Phase to) = 0;
  // Stops a migration whose capture saw bulk loads it cannot ship (CollectNotices): before the
  // switch the verification fails, after it the migration is paused (see migrator.h).
  virtual Step StopForBulkLoads(PlanNode& node, const BulkLoadsSeen& seen) = 0;
  // Ends a migration before the switch (phase_abort.cc): peers removed, the target dropped, the
  // source unguarded; `why` (set when the daemon aborts by itself) stays in the status's error.
  virtual Step Abort(PlanNode& node, const std::string& why) = 0;
  // Removes the plan and its records (the migration ended or was aborted); the status keeps
  // what was published last.
  virtual Status RemovePlan(const MigrationPlan& plan) = 0;
  // Removes the operator's request of `version` once the plan says it was handled (a newer
  // request is left alone; a failure is harmless: the request is handled again).
  virtual void ClearRequest(const std::string& table, int version) = 0;
  // Removes the plan and its records at the migration's end; the status keeps `final_phase`
  // ("done", "rolled_back") and the summary is logged.
  virtual Step Finish(PlanNode& node, const std::string& summary, const char* final_phase) = 0;
};

// The table's status znode as a phase reads and writes it (table_status.cc).
class StatusBoard {
 public:
  virtual ~StatusBoard() = default;
  // Whether the status already names the plan's target (the switch happened, whatever the
  // plan's phase says): then the target must never be dropped.
  virtual Result<bool> StatusNamesTarget(const MigrationPlan& plan) = 0;
  // Moves the status's physical table, generation and layout (one CAS write) to the given
  // generation, with the status's `migration` object in the same write. Not written while a
  // request is pending (then `*request_pending` is set and nothing is written), unless
  // `request_pending` is null (the write is the handling of a request).
  virtual Status WriteStatusGeneration(const MigrationPlan& plan, bool to_target,
                                       const std::string& migration_phase,
                                       bool* request_pending) = 0;
  // The plan's state into what /status and /metrics show (no ZooKeeper write).
  virtual void UpdateSnapshot(const MigrationPlan& plan) = 0;
  // The status's `migration` object: the plan's progress (read-modify-CAS of the status; other
  // fields kept). `extra_phase` ("" = the plan's) names an outcome only the status carries.
  virtual Status PublishProgress(const MigrationPlan& plan, const std::string& extra_phase) = 0;
  // What /status and /metrics show forgets the table's migration (its plan is gone).
  virtual void Forget(const std::string& table) = 0;
};

struct PhaseContext {
  DriverControl& control;
  PlanRecord& record;
  StatusBoard& status;
  CapturePeers& capture;
  MigrationGuards& guards;
  WritePause& write_pause;
  PhaseThrottles& throttles;
  MigrationBridge& bridge;
  // The daemon's admin (its calls one at a time: the Migrator's lock).
  HBaseAdmin& admin;
  const MigratorOptions& options;
  MigratorCounters& counters;
  // The copy's range of a plan (its tables, layouts and, engine "hfile", its staging spec): what
  // the bridge's row calls (DescribeRow) take.
  std::function<CopyRange(const MigrationPlan&)> range_of;
  // Engine "hfile": removes the chunks' staging directory (and the snapshot they read), `when`
  // for the log; nothing for the other engines.
  std::function<void(const MigrationPlan&, const char* when)> cleanup_staging;
  // The bytes a table holds (store files and memstores, summed over its regions), asked under the
  // admin's lock: engine "auto" decides by it. An error when unknown.
  std::function<Result<int64_t>(const std::string& table)> table_bytes;
  // Engines "mapreduce" and "hfile": the bulk job killed and its output removed (an abort).
  std::function<void(const MigrationPlan&)> abort_bulk_copy;
};

}  // namespace presplit::daemon::migrate
