// Phases "switching" and "catching_up": see phase_switch.h.
#include "daemon/migrate/phase_switch.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace presplit::daemon::migrate {

Step SwitchPhase::Switch(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (plan.capture.reverse_started_ms == 0) {
    Status reverse = ctx_.capture.EnsureCapture(plan, /*reverse=*/true);
    if (!reverse.ok()) {
      return ctx_.record.Fail(node, "adding the reverse capture peer " + plan.capture.reverse_peer +
                                        ": " + reverse.message());
    }
    // Recorded before the switch: whoever resumes knows the reverse peer exists.
    if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  }
  if (plan.writes_paused_until_ms != 0) return SwitchDuringPause(node);
  // A switch whose status write happened and whose end did not (the old generation could not be
  // made writable again, or the daemon stopped) is ended, not paused again.
  auto named = ctx_.status.StatusNamesTarget(plan);
  if (!named.ok())
    return ctx_.record.Fail(node, "switching: reading the status: " + named.status().message());
  if (*named) return EndSwitchPause(node);
  if (ctx_.control.NowMs() < plan.switch_retry_at_ms) {
    ctx_.status.UpdateSnapshot(plan);
    return Step::kWaiting;
  }
  // Whatever an operator granted or limited on the old generation since it was copied follows it
  // (idempotent: a grant merges, a quota is set to the same value).
  if (!ctx_.control.MayAct()) return Step::kStopped;
  auto settings = ctx_.bridge.CopyTableSettings(plan.source, plan.target, ReplicationOf(plan));
  if (!settings.ok()) {
    return ctx_.record.Fail(node, "copying the grants and quotas of " + plan.source + " to " +
                                      plan.target +
                                      " before the switch: " + settings.status().message());
  }
  // The closes the forward peer shipped so far: the drain waits for newer ones.
  auto before = ctx_.capture.ClosesShipped(plan.target);
  if (!before.ok()) {
    return ctx_.record.Fail(node,
                            "switching: reading the capture's acks: " + before.status().message());
  }
  plan.capture.closed_before = *before;
  plan.capture.fence_started_ms = ctx_.control.NowMs();
  plan.writes_paused_until_ms = ctx_.control.NowMs() + plan.max_write_pause_ms;
  plan.paused_table = plan.source;
  plan.switch_attempts++;
  plan.error.clear();
  spdlog::info(
      "migration {}: switching (attempt {}): writes to {} paused for at most {} ms while the "
      "capture drains it into {}",
      plan.table, plan.switch_attempts, plan.source, plan.max_write_pause_ms, plan.target);
  // Saved (and published in the status) before the source is touched: writers see the pause,
  // and whoever resumes knows to end it.
  if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  return SwitchDuringPause(node);
}

Step SwitchPhase::SwitchDuringPause(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // A daemon stopped between the status write and the end of the pause finds the switch done.
  auto named = ctx_.status.StatusNamesTarget(plan);
  if (!named.ok())
    return ctx_.record.Fail(node, "switching: reading the status: " + named.status().message());
  if (*named) return EndSwitchPause(node);
  if (!ctx_.control.MayAct()) return Step::kStopped;
  // Where the pause goes (logged at the switch): the read-only change reopens every region of
  // the source, the drain waits for the peer to ship the WAL files that held them.
  const int64_t read_only_from = ctx_.control.NowMs();
  bool reopened_now = false;
  Status fenced = ctx_.bridge.SetReadOnly(plan.source, true, &reopened_now);
  if (!fenced.ok()) {
    return AbandonSwitch(node, "making " + plan.source + " read-only failed: " + fenced.message());
  }
  const int64_t read_only_at = ctx_.control.NowMs();
  const int64_t remaining = plan.writes_paused_until_ms - read_only_at;
  if (remaining <= 0) {
    return AbandonSwitch(node, "the pause of " + std::to_string(plan.max_write_pause_ms) +
                                   " ms was over before " + plan.source + " was read-only");
  }
  auto drained = ctx_.capture.AwaitDrained(
      plan.capture.peer, plan.source, plan.target, plan.capture.closed_before,
      plan.capture.fence_started_ms, std::chrono::milliseconds(remaining), reopened_now);
  if (ctx_.control.Halted())
    return Step::kStopped;  // the next leader resumes the pause (or abandons it)
  if (!drained.ok()) {
    return AbandonSwitch(node, "draining the capture failed: " + drained.status().message());
  }
  const int64_t drained_at = ctx_.control.NowMs();
  if (!*drained) {
    return AbandonSwitch(node, "the capture had not shipped every write of " + plan.source +
                                   " within the pause of " +
                                   std::to_string(plan.max_write_pause_ms) +
                                   " ms (migration.max_write_pause_ms)");
  }
  // Drained: every bulk-load marker the source's WAL holds has reached the capture too. One
  // that got past the guard since the verification read the table may be missing from the
  // target: nothing switches.
  auto seen = ctx_.capture.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return AbandonSwitch(node, "reading the capture's notices failed: " + seen.status().message());
  }
  if (seen->count > 0) return ctx_.record.StopForBulkLoads(node, *seen);
  // Drained: the target holds every write the source took, and neither changes now. The rows
  // the verification could not catch still are compared at this one point.
  if (!plan.deferred_rows.empty()) {
    auto source_rows = ctx_.bridge.RowHashes(plan.source, plan.old_layout, plan.deferred_rows);
    auto target_rows = ctx_.bridge.RowHashes(plan.target, plan.new_layout, plan.deferred_rows);
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
      auto described = ctx_.bridge.DescribeRow(ctx_.range_of(plan), differing.front());
      const std::string first =
          described.ok() ? *described : "(" + described.status().message() + ")";
      // A row that differs with neither side changing is a broken copy, not a busy one.
      Status lifted = ctx_.write_pause.Lift(plan);
      if (!lifted.ok()) {
        return ctx_.record.Fail(
            node, "making " + plan.source + " writable again after the pause: " + lifted.message());
      }
      ctx_.counters.verification_failures++;
      if (Status moved = ctx_.record.EnterPhase(plan, Phase::kFailedVerification); !moved.ok())
        return ctx_.record.Fail(node, moved.message());
      plan.error = "verification failed: " + std::to_string(differing.size()) +
                   " rows differ between " + plan.source + " and " + plan.target +
                   " while writes were paused at the switch (first: " + first +
                   "); nothing switched; find the cause, repair and resume to verify again, or "
                   "abort";
      plan.deferred_rows.clear();
      spdlog::error("migration {}: {}", plan.table, plan.error);
      Step saved = ctx_.record.Save(node);
      return saved == Step::kAdvanced ? Step::kWaiting : saved;
    }
    spdlog::info(
        "migration {}: the {} rows that kept changing during the verification are equal in {} "
        "and {} with writes paused",
        plan.table, plan.deferred_rows.size(), plan.source, plan.target);
  }
  bool request_pending = false;
  Status written = ctx_.status.WriteStatusGeneration(
      plan, /*to_target=*/true, PhaseName(Phase::kCatchingUp), &request_pending);
  if (request_pending) {
    // An operator's request comes first (DriveOne handles it next); writers are not left paused
    // meanwhile.
    Step abandoned = AbandonSwitch(node, "a request arrived during the pause");
    return abandoned == Step::kWaiting ? Step::kAdvanced : abandoned;
  }
  if (!written.ok()) {
    if (!ctx_.control.MayAct()) return Step::kStopped;
    return AbandonSwitch(node, "switching the status: " + written.message());
  }
  ctx_.counters.switches++;
  plan.switched_at_ms = ctx_.control.NowMs();
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

Step SwitchPhase::EndSwitchPause(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (!ctx_.control.MayAct()) return Step::kStopped;
  // The status names the target: its writers are not held, whatever happens to the source next
  // (a failure below is saved, and published, without the pause).
  plan.writes_paused_until_ms = 0;
  plan.paused_table.clear();
  Status writable = ctx_.bridge.SetReadOnly(plan.source, false);
  if (!writable.ok()) {
    // The status names the target already: writers are there; retried until it is writable,
    // which only the reverse peer (rollback) and late raw writers need.
    return ctx_.record.Fail(node, "switched, but making " + plan.source +
                                      " writable again failed: " + writable.message());
  }
  if (plan.switched_at_ms == 0) plan.switched_at_ms = ctx_.control.NowMs();
  plan.deferred_rows.clear();
  plan.capture.closed_before.clear();
  plan.capture.fence_started_ms = 0;
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kCatchingUp); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.error.clear();
  return ctx_.record.Save(node);
}

Step SwitchPhase::AbandonSwitch(PlanNode& node, const std::string& why) {
  MigrationPlan& plan = node.plan;
  if (!ctx_.control.MayAct()) return Step::kStopped;
  Status lifted = ctx_.write_pause.Lift(plan);
  if (!lifted.ok()) {
    // Left paused and read-only: the next run abandons again (the pause is over by then) and
    // tries to make the source writable once more.
    return ctx_.record.Fail(node, "abandoning the switch (" + why + "): making " + plan.source +
                                      " writable again failed: " + lifted.message());
  }
  plan.switch_retry_at_ms = ctx_.control.NowMs() + ctx_.options.switch_retry.count();
  plan.error = "switch abandoned: " + why + "; writes resumed on " + plan.source +
               "; tried again in " + std::to_string(ctx_.options.switch_retry.count() / 1000) +
               " s";
  ctx_.counters.errors++;
  spdlog::warn("migration {}: {}", plan.table, plan.error);
  Step saved = ctx_.record.Save(node);
  return saved == Step::kAdvanced ? Step::kWaiting : saved;
}

Step SwitchPhase::CatchUp(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // The probe is written now, after the switch: once the forward peer acknowledged it in every
  // region, every write the old generation took before (and around) the switch is in the new.
  Status shipped = ctx_.capture.AwaitShipped(plan.capture.peer, plan.source, plan.target);
  if (!shipped.ok()) {
    if (ctx_.control.Halted()) return Step::kStopped;
    return ctx_.record.Fail(node, "catching up: " + shipped.message());
  }
  auto seen = ctx_.capture.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return ctx_.record.Fail(node, "catching up: reading the capture's notices in " + plan.target +
                                      ": " + seen.status().message());
  }
  if (seen->count > 0)
    return ctx_.record.StopForBulkLoads(node, *seen);  // paused: a rollback keeps them
  plan.capture.caught_up_ms = ctx_.control.NowMs();
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kGrace); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.grace_until_ms = ctx_.control.NowMs() + plan.grace_period_s * 1000;
  plan.error.clear();
  spdlog::info(
      "migration {}: caught up: every write to {} up to the switch is in {}; both capture peers "
      "run for the {} s grace period (presplitctl migration rollback {} switches back)",
      plan.table, plan.source, plan.target, plan.grace_period_s, plan.table);
  return ctx_.record.Save(node);
}

}  // namespace presplit::daemon::migrate
