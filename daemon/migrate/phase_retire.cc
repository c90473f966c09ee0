// Phases "grace", "fencing" and "done": see phase_retire.h.
#include "daemon/migrate/phase_retire.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon::migrate {

Step RetirePhase::Grace(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  ctx_.status.UpdateSnapshot(plan);
  if (ctx_.control.NowMs() < plan.grace_until_ms) return Step::kWaiting;
  // The last moment a rollback keeps what a bulk load past the guard put into the old generation.
  auto seen = ctx_.capture.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return ctx_.record.Fail(node, "ending the grace period: reading the capture's notices in " +
                                      plan.target + ": " + seen.status().message());
  }
  if (seen->count > 0) return ctx_.record.StopForBulkLoads(node, *seen);
  // The closes the forward peer shipped so far: the drain waits for newer ones.
  auto before = ctx_.capture.ClosesShipped(plan.target);
  if (!before.ok())
    return ctx_.record.Fail(node,
                            "fencing: reading the capture's acks: " + before.status().message());
  plan.capture.closed_before = *before;
  plan.capture.fence_started_ms = ctx_.control.NowMs();
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kFencing); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  spdlog::info("migration {}: grace period over: fencing {}", plan.table, plan.source);
  return ctx_.record.Save(node);
}

Step RetirePhase::Fence(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  Status reverse =
      ctx_.capture.RemoveCapture(plan.capture.reverse_peer, "fencing: no rollback from here on");
  if (!reverse.ok())
    return ctx_.record.Fail(node, "fencing: removing the reverse peer: " + reverse.message());
  if (!ctx_.control.MayAct()) return Step::kStopped;
  // Made read-only by this call: its regions all reopened read-only before it returned, so the
  // drain marks the queues at once instead of waiting for every close to come back (a close
  // acknowledgement can be gone: a major compaction of the target purges it). A run that finds
  // it read-only already waits for the closes, as the change may still be under way.
  bool reopened_now = false;
  Status fenced = ctx_.bridge.SetReadOnly(plan.source, true, &reopened_now);
  if (fenced.code() == StatusCode::kNotFound) return EndFenceWithoutSource(node);
  if (!fenced.ok()) {
    return ctx_.record.Fail(node,
                            "fencing: making " + plan.source + " read-only: " + fenced.message());
  }
  auto drained = ctx_.capture.AwaitDrained(
      plan.capture.peer, plan.source, plan.target, plan.capture.closed_before,
      plan.capture.fence_started_ms, std::chrono::milliseconds(0), reopened_now);
  if (!drained.ok())
    return ctx_.record.Fail(node, "fencing: draining the capture: " + drained.status().message());
  if (!*drained) {
    plan.error = "fencing: the capture peer has not shipped every region's last write of " +
                 plan.source + " yet; looking again on the next run";
    Step saved = ctx_.record.Save(node);
    return saved == Step::kAdvanced ? Step::kWaiting : saved;
  }
  auto seen = ctx_.capture.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return ctx_.record.Fail(node, "fencing: reading the capture's notices in " + plan.target +
                                      ": " + seen.status().message());
  }
  // Paused before the forward peer goes and the old generation is disabled: it has their cells.
  // No peer ships the new generation any more: it takes bulk loads again, those the operator
  // runs again into it too.
  if (seen->count > 0) {
    Status unguarded = ctx_.guards.Unguard(plan, plan.target, "the new generation stays");
    if (!unguarded.ok()) {
      return ctx_.record.Fail(node, "fencing: removing the MigrationGuard from " + plan.target +
                                        ": " + unguarded.message());
    }
    return ctx_.record.StopForBulkLoads(node, *seen);
  }
  spdlog::info("migration {}: {} is read-only and drained: every write it took is in {}",
               plan.table, plan.source, plan.target);
  Status forward = ctx_.capture.RemoveCapture(plan.capture.peer, "the old generation is drained");
  if (!forward.ok())
    return ctx_.record.Fail(node, "fencing: removing the capture peer: " + forward.message());
  // No peer writes into the new generation any more, nor can a late edit of a moved region
  // arrive after its delete marker: it stays, as its owner set it up (KEEP_DELETED_CELLS as the
  // old generation had it; kept since its creation) and without the guard (bulk loads and
  // SKIP_WAL writes again), in one reopen. A replay after the drop finds the old generation
  // gone, which it only is once this was done.
  if (!ctx_.control.MayAct()) return Step::kStopped;
  auto settled = ctx_.bridge.SettleNewGeneration(plan.target, plan.source, plan.plan_id);
  if (!settled.ok() && settled.status().code() != StatusCode::kNotFound) {
    return ctx_.record.Fail(node, "fencing: settling " + plan.target +
                                      " (the KEEP_DELETED_CELLS of " + plan.source +
                                      ", no MigrationGuard): " + settled.status().message());
  }
  if (settled.ok() && !settled->other_plan.empty()) {
    spdlog::warn(
        "migration {}: the MigrationGuard on {} is another migration's (plan {}): left in place",
        plan.table, plan.target, settled->other_plan);
  }
  if (settled.ok() && settled->changed) {
    spdlog::info(
        "migration {}: {} settled (its regions reopened): KEEP_DELETED_CELLS as {} had it, "
        "bulk loads and SKIP_WAL writes taken again",
        plan.table, plan.target, plan.source);
  }

  std::string summary = "done: " + plan.source + " disabled";
  bool drop = plan.drop_old;
  if (drop) {
    // The final check, while the (read-only) old generation can still be read. Its gets land
    // on the new generation, which serves the application now: paced by the adaptive throttle,
    // as the verification is.
    Result<PresenceCheck> check = Status::Internal("unchecked");
    {
      std::unique_ptr<PhaseThrottle> throttle = ctx_.throttles.Start(plan);
      check = ctx_.bridge.CheckPresent(ctx_.range_of(plan));
    }
    if (!check.ok()) return ctx_.record.Fail(node, "final check: " + check.status().message());
    if (check->missing > 0) {
      drop = false;
      summary = "done: " + plan.source +
                " disabled, NOT dropped: " + std::to_string(check->missing) + " of " +
                std::to_string(check->checked) + " cells missing in " + plan.target +
                " (first: " + check->first_missing + ")";
      spdlog::error("migration {}: {}", plan.table, summary);
    } else {
      spdlog::info("migration {}: final check: all {} cells of {} are in {}", plan.table,
                   check->checked, plan.source, plan.target);
    }
  }
  if (!ctx_.control.MayAct()) return Step::kStopped;
  Status disabled = ctx_.admin.DisableTable(plan.source);
  if (!disabled.ok() && disabled.code() != StatusCode::kNotFound) {
    return ctx_.record.Fail(node, "disabling " + plan.source + ": " + disabled.message());
  }
  spdlog::info("migration {}: old generation {} disabled", plan.table, plan.source);
  if (drop) {
    if (!ctx_.control.MayAct()) return Step::kStopped;
    Status deleted = ctx_.admin.DeleteTable(plan.source);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return ctx_.record.Fail(node, "dropping " + plan.source + ": " + deleted.message());
    }
    summary = "done: " + plan.source + " dropped";
    spdlog::info("migration {}: old generation {} dropped", plan.table, plan.source);
  }
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kDone); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.error = summary.find("NOT dropped") != std::string::npos ? summary : "";
  if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  return ctx_.record.Finish(node, summary, "done");
}

Step RetirePhase::EndFenceWithoutSource(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // The old generation is gone: this phase's drop happened and the daemon stopped before it
  // recorded "done" (or an operator dropped the table by hand). Nothing is left to drain or to
  // check; the forward peer goes (it would hold WALs for a table that no longer exists) and the
  // new generation loses its guard if the settling before the drop did not happen.
  Status forward = ctx_.capture.RemoveCapture(plan.capture.peer, "the old generation is gone");
  if (!forward.ok())
    return ctx_.record.Fail(node, "fencing: removing the capture peer: " + forward.message());
  Status unguarded = ctx_.guards.Unguard(plan, plan.target, "the new generation stays");
  if (!unguarded.ok()) {
    return ctx_.record.Fail(node, "fencing: removing the MigrationGuard from " + plan.target +
                                      ": " + unguarded.message());
  }
  spdlog::warn(
      "migration {}: the old generation {} is gone (dropped by this fence before a restart, or "
      "by hand): nothing left to drain; the migration is done",
      plan.table, plan.source);
  const std::string summary = "done: " + plan.source + " dropped";
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kDone); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.error.clear();
  if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  return ctx_.record.Finish(node, summary, "done");
}

}  // namespace presplit::daemon::migrate
