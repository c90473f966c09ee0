// Phases "switching" and "catching_up". The switch moves readers and writers to the target only
// once the target has every write the source took, with writers paused for a bounded time:
//   1. the reverse capture peer (new generation -> old) is added, so that every write made to the
//      new generation from the switch on is also in the old one (a rollback loses nothing); the
//      old generation's grants and quotas are copied again;
//   2. the pause: the status says writes are paused until now + max_write_pause_ms (the SDK holds
//      its writes), and the source is made read-only (a raw client's write is refused, loudly);
//      the read-only change reopens every region, whose close is its last WAL entry;
//   3. the drain: once the forward peer has shipped every region's close, every write the source
//      took is in the target; the rows the verification deferred (they kept changing) are
//      compared now, when neither side changes;
//   4. ONE status write names the target (and ends the pause); the source is made writable again
//      (the reverse peer writes into it during the grace period, and a late raw writer's write
//      still reaches the target through the forward peer).
// A drain that does not finish within the pause abandons the attempt: the source writable again,
// the pause lifted, the switch tried again options.switch_retry later, as Vitess's SwitchTraffic
// does. A deferred row that still differs is a broken copy: failed_verification, nothing switched.
// "catching_up" then writes one more probe into the source and waits for it, which is immediate
// after a drain; it is kept for plans that switched before the pause existed. A bulk load the
// capture noticed (one that got past the MigrationGuard) stops the switch before its status
// write, or pauses the migration after it (StopForBulkLoads).
#include <spdlog/spdlog.h>

#include <chrono>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {

Migrator::Step Migrator::Switch(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (plan.capture.reverse_started_ms == 0) {
    Status reverse = capture_.EnsureCapture(plan, /*reverse=*/true);
    if (!reverse.ok()) {
      return Fail(node, "adding the reverse capture peer " + plan.capture.reverse_peer + ": " +
                            reverse.message());
    }
    // Recorded before the switch: whoever resumes knows the reverse peer exists.
    if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  }
  if (plan.writes_paused_until_ms != 0) return SwitchDuringPause(node);
  // A switch whose status write happened and whose end did not (the old generation could not be
  // made writable again, or the daemon stopped) is ended, not paused again.
  auto named = StatusNamesTarget(plan);
  if (!named.ok()) return Fail(node, "switching: reading the status: " + named.status().message());
  if (*named) return EndSwitchPause(node);
  if (NowMs() < plan.switch_retry_at_ms) {
    UpdateSnapshot(plan);
    return Step::kWaiting;
  }
  // Whatever an operator granted or limited on the old generation since it was copied follows it
  // (idempotent: a grant merges, a quota is set to the same value).
  if (!MayAct()) return Step::kStopped;
  auto settings = bridge_.CopyTableSettings(plan.source, plan.target, ReplicationOf(plan));
  if (!settings.ok()) {
    return Fail(node, "copying the grants and quotas of " + plan.source + " to " + plan.target +
                          " before the switch: " + settings.status().message());
  }
  // The closes the forward peer shipped so far: the drain waits for newer ones.
  auto before = capture_.ClosesShipped(plan.target);
  if (!before.ok()) {
    return Fail(node, "switching: reading the capture's acks: " + before.status().message());
  }
  plan.capture.closed_before = *before;
  plan.capture.fence_started_ms = NowMs();
  plan.writes_paused_until_ms = NowMs() + plan.max_write_pause_ms;
  plan.paused_table = plan.source;
  plan.switch_attempts++;
  plan.error.clear();
  spdlog::info(
      "migration {}: switching (attempt {}): writes to {} paused for at most {} ms while the "
      "capture drains it into {}",
      plan.table, plan.switch_attempts, plan.source, plan.max_write_pause_ms, plan.target);
  // Saved (and published in the status) before the source is touched: writers see the pause,
  // and whoever resumes knows to end it.
  if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  return SwitchDuringPause(node);
}

Migrator::Step Migrator::SwitchDuringPause(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // A daemon stopped between the status write and the end of the pause finds the switch done.
  auto named = StatusNamesTarget(plan);
  if (!named.ok()) return Fail(node, "switching: reading the status: " + named.status().message());
  if (*named) return EndSwitchPause(node);
  if (!MayAct()) return Step::kStopped;
  // Where the pause goes (logged at the switch): the read-only change reopens every region of
  // the source, the drain waits for the peer to ship the WAL files that held them.
  const int64_t read_only_from = NowMs();
  bool reopened_now = false;
  Status fenced = bridge_.SetReadOnly(plan.source, true, &reopened_now);
  if (!fenced.ok()) {
    return AbandonSwitch(node, "making " + plan.source + " read-only failed: " + fenced.message());
  }
  const int64_t read_only_at = NowMs();
  const int64_t remaining = plan.writes_paused_until_ms - read_only_at;
  if (remaining <= 0) {
    return AbandonSwitch(node, "the pause of " + std::to_string(plan.max_write_pause_ms) +
                                   " ms was over before " + plan.source + " was read-only");
  }
  auto drained = capture_.AwaitDrained(plan.capture.peer, plan.source, plan.target,
                                       plan.capture.closed_before, plan.capture.fence_started_ms,
                                       std::chrono::milliseconds(remaining), reopened_now);
  if (Halted()) return Step::kStopped;  // the next leader resumes the pause (or abandons it)
  if (!drained.ok()) {
    return AbandonSwitch(node, "draining the capture failed: " + drained.status().message());
  }
  const int64_t drained_at = NowMs();
  if (!*drained) {
    return AbandonSwitch(node, "the capture had not shipped every write of " + plan.source +
                                   " within the pause of " +
                                   std::to_string(plan.max_write_pause_ms) +
                                   " ms (migration.max_write_pause_ms)");
  }
  // Drained: every bulk-load marker the source's WAL holds has reached the capture too. One
  // that got past the guard since the verification read the table may be missing from the
  // target: nothing switches.
  auto seen = capture_.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return AbandonSwitch(node, "reading the capture's notices failed: " + seen.status().message());
  }
  if (seen->count > 0) return StopForBulkLoads(node, *seen);
  // Drained: the target holds every write the source took, and neither changes now. The rows
  // the verification could not catch still are compared at this one point.
  if (!plan.deferred_rows.empty()) {
    auto source_rows = bridge_.RowHashes(plan.source, plan.old_layout, plan.deferred_rows);
    auto target_rows = bridge_.RowHashes(plan.target, plan.new_layout, plan.deferred_rows);
    if (!source_rows.ok() || !target_rows.ok()) {
      return AbandonSwitch(node, "comparing the rows deferred by the verification failed: " +
                                     (source_rows.ok() ? target_rows.status().message()
                                                       : source_rows.status().message()));
    }
    std::vector<std::string> differing;
    for (size_t k = 0; k < plan.deferred_rows.size(); ++k) {
      if ((*source_rows)[k] != (*target_rows)[k]) differing.push_back(plan.deferred_rows[k]);
    }
    if (!differing.empty()) {
      auto described = bridge_.DescribeRow(RangeOf(plan), differing.front());
      const std::string first =
          described.ok() ? *described : "(" + described.status().message() + ")";
      // A row that differs with neither side changing is a broken copy, not a busy one.
      Status lifted = LiftWritePause(plan);
      if (!lifted.ok()) {
        return Fail(
            node, "making " + plan.source + " writable again after the pause: " + lifted.message());
      }
      counters_.verification_failures++;
      if (Status moved = EnterPhase(plan, Phase::kFailedVerification); !moved.ok())
        return Fail(node, moved.message());
      plan.error = "verification failed: " + std::to_string(differing.size()) +
                   " rows differ between " + plan.source + " and " + plan.target +
                   " while writes were paused at the switch (first: " + first +
                   "); nothing switched; find the cause, repair and resume to verify again, or "
                   "abort";
      plan.deferred_rows.clear();
      spdlog::error("migration {}: {}", plan.table, plan.error);
      Step saved = Save(node);
      return saved == Step::kAdvanced ? Step::kWaiting : saved;
    }
    spdlog::info(
        "migration {}: the {} rows that kept changing during the verification are equal in {} "
        "and {} with writes paused",
        plan.table, plan.deferred_rows.size(), plan.source, plan.target);
  }
  bool request_pending = false;
  Status written = WriteStatusGeneration(plan, /*to_target=*/true, PhaseName(Phase::kCatchingUp),
                                         &request_pending);
  if (request_pending) {
    // An operator's request comes first (DriveOne handles it next); writers are not left paused
    // meanwhile.
    Step abandoned = AbandonSwitch(node, "a request arrived during the pause");
    return abandoned == Step::kWaiting ? Step::kAdvanced : abandoned;
  }
  if (!written.ok()) {
    if (!MayAct()) return Step::kStopped;
    return AbandonSwitch(node, "switching the status: " + written.message());
  }
  counters_.switches++;
  plan.switched_at_ms = NowMs();
  spdlog::info(
      "migration {}: switched: the status names {} (generation {}); writes were paused for {} "
      "ms ({} ms to make {} read-only, {} ms to drain it, {} ms to compare {} deferred rows and "
      "write the status)",
      plan.table, plan.target, plan.target_generation,
      plan.switched_at_ms - plan.capture.fence_started_ms, read_only_at - read_only_from,
      plan.source, drained_at - read_only_at, plan.switched_at_ms - drained_at,
      plan.deferred_rows.size());
  return EndSwitchPause(node);
}

Migrator::Step Migrator::EndSwitchPause(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  // The status names the target: its writers are not held, whatever happens to the source next
  // (a failure below is saved, and published, without the pause).
  plan.writes_paused_until_ms = 0;
  plan.paused_table.clear();
  Status writable = bridge_.SetReadOnly(plan.source, false);
  if (!writable.ok()) {
    // The status names the target already: writers are there; retried until it is writable,
    // which only the reverse peer (rollback) and late raw writers need.
    return Fail(node, "switched, but making " + plan.source +
                          " writable again failed: " + writable.message());
  }
  if (plan.switched_at_ms == 0) plan.switched_at_ms = NowMs();
  plan.deferred_rows.clear();
  plan.capture.closed_before.clear();
  plan.capture.fence_started_ms = 0;
  if (Status moved = EnterPhase(plan, Phase::kCatchingUp); !moved.ok())
    return Fail(node, moved.message());
  plan.error.clear();
  return Save(node);
}

Status Migrator::LiftWritePause(MigrationPlan& plan) {
  if (plan.writes_paused_until_ms == 0) return Status::Ok();
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  const std::string& paused = plan.paused_table.empty() ? plan.source : plan.paused_table;
  Status writable = bridge_.SetReadOnly(paused, false);
  if (!writable.ok() && writable.code() != StatusCode::kNotFound) return writable;
  plan.writes_paused_until_ms = 0;
  plan.paused_table.clear();
  plan.capture.closed_before.clear();
  plan.capture.fence_started_ms = 0;
  plan.capture.drained_ms = 0;
  return Status::Ok();
}

Migrator::Step Migrator::AbandonSwitch(PlanNode& node, const std::string& why) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  Status lifted = LiftWritePause(plan);
  if (!lifted.ok()) {
    // Left paused and read-only: the next run abandons again (the pause is over by then) and
    // tries to make the source writable once more.
    return Fail(node, "abandoning the switch (" + why + "): making " + plan.source +
                          " writable again failed: " + lifted.message());
  }
  plan.switch_retry_at_ms = NowMs() + options_.switch_retry.count();
  plan.error = "switch abandoned: " + why + "; writes resumed on " + plan.source +
               "; tried again in " + std::to_string(options_.switch_retry.count() / 1000) + " s";
  counters_.errors++;
  spdlog::warn("migration {}: {}", plan.table, plan.error);
  Step saved = Save(node);
  return saved == Step::kAdvanced ? Step::kWaiting : saved;
}

Migrator::Step Migrator::CatchUp(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // The probe is written now, after the switch: once the forward peer acknowledged it in every
  // region, every write the old generation took before (and around) the switch is in the new.
  Status shipped = capture_.AwaitShipped(plan.capture.peer, plan.source, plan.target);
  if (!shipped.ok()) {
    if (Halted()) return Step::kStopped;
    return Fail(node, "catching up: " + shipped.message());
  }
  auto seen = capture_.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return Fail(node, "catching up: reading the capture's notices in " + plan.target + ": " +
                          seen.status().message());
  }
  if (seen->count > 0) return StopForBulkLoads(node, *seen);  // paused: a rollback keeps them
  plan.capture.caught_up_ms = NowMs();
  if (Status moved = EnterPhase(plan, Phase::kGrace); !moved.ok())
    return Fail(node, moved.message());
  plan.grace_until_ms = NowMs() + plan.grace_period_s * 1000;
  plan.error.clear();
  spdlog::info(
      "migration {}: caught up: every write to {} up to the switch is in {}; both capture peers "
      "run for the {} s grace period (presplitctl migration rollback {} switches back)",
      plan.table, plan.source, plan.target, plan.grace_period_s, plan.table);
  return Save(node);
}

}  // namespace presplit::daemon::migrate
