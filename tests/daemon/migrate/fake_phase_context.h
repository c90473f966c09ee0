// A phase's context made of fakes (phase_context.h): a driver control the test holds (its lease,
// its clock), a plan record that keeps what was saved, a status board that says what the test
// wants and keeps what was written, the real services over the fake bridge and admin. A phase
// class is tested on it without a Migrator or a ZooKeeper.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/migrate/migrator.h"
#include "daemon/migrate/phase_context.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/fake_migration_bridge.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::testing {

using migrate::BulkLoadsSeen;
using migrate::CapturePeers;
using migrate::CaptureWaits;
using migrate::CopyRange;
using migrate::DriverControl;
using migrate::MigrationGuards;
using migrate::MigrationPlan;
using migrate::MigratorCounters;
using migrate::MigratorOptions;
using migrate::Phase;
using migrate::PhaseContext;
using migrate::PlanNode;
using migrate::PlanRecord;
using migrate::StatusBoard;
using migrate::Step;
using migrate::WritePause;

// The driver as a test holds it: the lease it gives, whether the daemon stops, a wall clock it
// moves by hand, a monotonic clock for the waits' deadlines, and the waits counted. Each wait
// moves both clocks by its length and returns at once: no test waits in real time.
class HeldControl : public DriverControl {
 public:
  bool MayAct() override { return lease; }
  bool Halted() const override { return !lease || stopping; }
  bool Interrupted() override { return !lease || stopping; }
  bool Stopping() const override { return stopping; }
  int64_t NowMs() const override { return now_ms; }
  void Sleep(std::chrono::milliseconds duration) const override {
    sleeps++;
    now_ms += duration.count();
    steady += duration;
    if (on_sleep) on_sleep(sleeps);
  }
  std::chrono::steady_clock::time_point Steady() const override { return steady; }

  std::atomic<bool> lease{true};
  std::atomic<bool> stopping{false};
  mutable int64_t now_ms = 1'000'000;
  mutable int sleeps = 0;
  mutable std::chrono::steady_clock::time_point steady{};
  std::function<void(int sleeps)> on_sleep;
};

// The plan record as the Migrator keeps it, without ZooKeeper: every save is kept (a copy of the
// plan as saved), a failure is recorded and waits, phases move along the phase table only.
class FakePlanRecord : public PlanRecord {
 public:
  Step Save(PlanNode& node) override {
    saved.push_back(node.plan);
    node.version++;
    return save_answer;
  }
  Step Fail(PlanNode& node, const std::string& error) override {
    failures.push_back(error);
    node.plan.error = error;
    saved.push_back(node.plan);
    return Step::kWaiting;
  }
  Status EnterPhase(MigrationPlan& plan, Phase to) override {
    if (!migrate::MayMove(plan.phase, to)) {
      return Status::Internal(std::string("no move from ") + migrate::PhaseName(plan.phase) +
                              " to " + migrate::PhaseName(to));
    }
    plan.phase = to;
    return Status::Ok();
  }
  Step StopForBulkLoads(PlanNode& node, const BulkLoadsSeen& seen) override {
    stops_for_bulk_loads.push_back(seen.count);
    node.plan.paused = true;
    return Step::kWaiting;
  }
  Step Abort(PlanNode& node, const std::string& why) override {
    aborts.push_back(why);
    last_aborted = node.plan;
    return Step::kWaiting;
  }
  Status RemovePlan(const MigrationPlan& plan) override {
    if (!remove_error.ok()) return remove_error;
    removed.push_back(plan.table);
    return Status::Ok();
  }
  void ClearRequest(const std::string& table, int version) override {
    requests_cleared.push_back(table + "@" + std::to_string(version));
  }
  Step Finish(PlanNode& node, const std::string& summary, const char* final_phase) override {
    finished.push_back(std::string(final_phase) + ": " + summary);
    last_finished = node.plan;
    return Step::kWaiting;
  }

  std::vector<MigrationPlan> saved;
  std::vector<std::string> failures;
  std::vector<int64_t> stops_for_bulk_loads;
  std::vector<std::string> finished;  // "<final phase>: <summary>" of every Finish
  std::vector<std::string> aborts;    // the `why` of every Abort
  MigrationPlan last_aborted;
  std::vector<std::string> requests_cleared;
  std::vector<std::string> removed;  // the tables whose plan RemovePlan removed
  Status remove_error;               // "<table>@<version>" of every ClearRequest
  MigrationPlan last_finished;
  Step save_answer = Step::kAdvanced;
};

// The table's status as a test sets it: whether it names the target, whether a request is
// pending at the switch's write; the generation writes are kept ("target:<phase>" or
// "source:<phase>").
class FakeStatusBoard : public StatusBoard {
 public:
  Result<bool> StatusNamesTarget(const MigrationPlan&) override {
    if (!read_error.ok()) return read_error;
    return names_target;
  }
  Status WriteStatusGeneration(const MigrationPlan&, bool to_target,
                               const std::string& migration_phase, bool* request_pending) override {
    if (request_pending != nullptr) {
      *request_pending = request_arrives;
      if (request_arrives) return Status::Ok();
    }
    if (!write_error.ok()) return write_error;
    writes.push_back(std::string(to_target ? "target:" : "source:") + migration_phase);
    names_target = to_target;
    return Status::Ok();
  }
  void UpdateSnapshot(const MigrationPlan&) override { snapshots++; }
  void Forget(const std::string& table) override { forgotten.push_back(table); }
  Status PublishProgress(const MigrationPlan& plan, const std::string& extra_phase) override {
    if (!publish_error.ok()) return publish_error;
    published.push_back(extra_phase.empty() ? migrate::PhaseName(plan.phase) : extra_phase);
    return Status::Ok();
  }

  bool names_target = false;
  bool request_arrives = false;
  Status read_error;
  Status write_error;
  Status publish_error;  // PublishProgress's answer when set
  std::vector<std::string> writes;
  int snapshots = 0;
  std::vector<std::string> forgotten;  // the tables Forget was told of
  std::vector<std::string> published;  // the phase of every PublishProgress
};

// Short waits for a phase's tests: a capture that does not ship gives up after 300 ms of the
// held control's clock; a throttle's sampler never asks (its health source is never sampled in a
// test).
inline MigratorOptions PhaseTestOptions() {
  MigratorOptions options;
  options.ack_timeout = std::chrono::milliseconds(300);
  options.ack_poll = std::chrono::milliseconds(50);
  options.recovery_timeout = std::chrono::milliseconds(300);
  options.switch_retry = std::chrono::milliseconds(30000);
  options.throttle_interval = std::chrono::hours(1);
  options.health_source = [](const MigrationPlan&) -> std::unique_ptr<migrate::HealthSource> {
    return std::make_unique<migrate::QuietHealth>();
  };
  return options;
}

// Everything a phase's context holds, over the fake bridge and admin.
struct FakePhaseContext {
  explicit FakePhaseContext(MigratorOptions migrator_options = {})
      : options(std::move(migrator_options)),
        capture(bridge, admin, control,
                CaptureWaits{options.zk_root, options.ack_timeout, options.ack_poll,
                             options.recovery_timeout},
                counters.probes),
        guards(bridge, control),
        write_pause(bridge, control),
        throttles(bridge, control, options,
                  [this](const std::string& table, const migrate::Throttler* throttler) {
                    throttle_shown.push_back(table + (throttler != nullptr ? ": on" : ": ended"));
                  }),
        context{control,
                record,
                status,
                capture,
                guards,
                write_pause,
                throttles,
                bridge,
                admin,
                options,
                counters,
                [](const MigrationPlan& plan) {
                  return CopyRange{plan.source, plan.target, plan.old_layout, plan.new_layout, ""};
                },
                [this](const MigrationPlan& plan, const char* when) {
                  staging_cleanups.push_back(plan.target + ": " + when);
                },
                [this](const std::string& table) -> Result<int64_t> {
                  auto bytes = table_bytes.find(table);
                  if (bytes == table_bytes.end()) return Status::NotFound("size of " + table);
                  return bytes->second;
                },
                [this](const MigrationPlan& plan) { bulk_aborts.push_back(plan.target); }} {
    bridge.admin = &admin;
  }

  // The two generations of tinawang:check in the admin (the old one in three regions, the new
  // one in two) and a plan of their migration at `phase`, its forward capture peer added.
  MigrationPlan TwoGenerations(Phase phase) {
    TableSpec old_generation;
    old_generation.table = "tinawang:check";
    old_generation.split_keys = {"3", "6"};
    EXPECT_TRUE(admin.CreateTable(old_generation).ok());
    TableSpec new_generation;
    new_generation.table = "tinawang:check__g2";
    new_generation.split_keys = {"5"};
    EXPECT_TRUE(admin.CreateTable(new_generation).ok());
    MigrationPlan plan;
    plan.table = plan.source = old_generation.table;
    plan.target = new_generation.table;
    plan.plan_id = "0123456789abcdef";
    plan.phase = phase;
    EXPECT_TRUE(capture.EnsureCapture(plan, /*reverse=*/false).ok());
    return plan;
  }

  MigratorOptions options;
  FakeMigrationBridge bridge;
  FakeAdmin admin;
  HeldControl control;
  FakePlanRecord record;
  FakeStatusBoard status;
  MigratorCounters counters;
  CapturePeers capture;
  MigrationGuards guards;
  WritePause write_pause;
  std::vector<std::string> throttle_shown;     // what the throttles showed, in order
  std::vector<std::string> staging_cleanups;   // "<target>: <when>" of every cleanup_staging
  std::map<std::string, int64_t> table_bytes;  // what the context's table_bytes answers
  std::vector<std::string> bulk_aborts;        // the targets of every abort_bulk_copy
  migrate::PhaseThrottles throttles;
  PhaseContext context;
};

}  // namespace presplit::daemon::testing
