// A way back, and phase "rolling_back": see phase_rollback.h.
#include "daemon/migrate/phase_rollback.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace presplit::daemon::migrate {

Step RollbackPhase::Rollback(PlanNode& node, int request_version) {
  MigrationPlan& plan = node.plan;
  // The reverse peer exists from the switch on; made sure of before the status moves back.
  Status reverse = ctx_.capture.EnsureCapture(plan, /*reverse=*/true);
  if (!reverse.ok())
    return ctx_.record.Fail(node, "rollback: the reverse capture peer: " + reverse.message());
  // As at the switch, the status names the old generation only once it has every write the new
  // one took: writers paused, the new generation read-only and drained through the reverse peer.
  // A status that names the old generation already (a rollback stopped after its status write)
  // only needs the plan to follow.
  auto named = ctx_.status.StatusNamesTarget(plan);
  if (!named.ok())
    return ctx_.record.Fail(node, "rollback: reading the status: " + named.status().message());
  if (*named) {
    auto before = ctx_.capture.ClosesShipped(plan.source);
    if (!before.ok()) {
      return ctx_.record.Fail(node,
                              "rollback: reading the capture's acks: " + before.status().message());
    }
    plan.capture.closed_before = *before;
    plan.capture.fence_started_ms = ctx_.control.NowMs();
    plan.writes_paused_until_ms = ctx_.control.NowMs() + plan.max_write_pause_ms;
    plan.paused_table = plan.target;
    spdlog::info(
        "migration {}: rolling back: writes to {} paused for at most {} ms while the "
        "reverse capture drains it into {}",
        plan.table, plan.target, plan.max_write_pause_ms, plan.source);
    // Saved (and published) before the target is touched: writers see the pause, and whoever
    // resumes lifts it (the request is still pending: HandleRequest lifts a pause first).
    if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
    if (!ctx_.control.MayAct()) return Step::kStopped;
    bool reopened_now = false;
    Status fenced = ctx_.bridge.SetReadOnly(plan.target, true, &reopened_now);
    const int64_t remaining = plan.writes_paused_until_ms - ctx_.control.NowMs();
    Result<bool> drained =
        !fenced.ok() ? Result<bool>(fenced)
        : remaining <= 0
            ? Result<bool>(false)
            : ctx_.capture.AwaitDrained(plan.capture.reverse_peer, plan.target, plan.source,
                                        plan.capture.closed_before, plan.capture.fence_started_ms,
                                        std::chrono::milliseconds(remaining), reopened_now);
    if (ctx_.control.Halted()) return Step::kStopped;
    if (!drained.ok() || !*drained) {
      const std::string why =
          !drained.ok() ? drained.status().message()
                        : "the reverse capture had not shipped every write of " + plan.target +
                              " within the pause of " + std::to_string(plan.max_write_pause_ms) +
                              " ms (migration.max_write_pause_ms)";
      Status lifted = ctx_.write_pause.Lift(plan);
      if (!lifted.ok()) {
        return ctx_.record.Fail(
            node, "rollback: making " + plan.target + " writable again: " + lifted.message());
      }
      // The request stays: the next run tries again, as long as the grace period lasts.
      return ctx_.record.Fail(node, "rollback: " + why + "; writes resumed on " + plan.target +
                                        "; tried again on the next run");
    }
    // This write is the request being handled: it does not wait for pending requests.
    Status written = ctx_.status.WriteStatusGeneration(plan, /*to_target=*/false,
                                                       PhaseName(Phase::kRollingBack), nullptr);
    if (!written.ok()) {
      if (!ctx_.control.MayAct()) return Step::kStopped;
      Status lifted = ctx_.write_pause.Lift(plan);
      return ctx_.record.Fail(node, "rollback: switching the status back: " + written.message() +
                                        (lifted.ok() ? ""
                                                     : "; making " + plan.target +
                                                           " writable again: " + lifted.message()));
    }
    spdlog::info("migration {}: rolled back with writes paused for {} ms", plan.table,
                 ctx_.control.NowMs() - plan.capture.fence_started_ms);
    // The new generation stays read-only and drained: RollingBack need not drain it again (its
    // closes may be gone from the ack row by then: a major compaction of the old generation,
    // after a split, purges them) and drops it.
    plan.writes_paused_until_ms = 0;
    plan.paused_table.clear();
    plan.capture.drained_ms = ctx_.control.NowMs();
  }
  ctx_.counters.rollbacks++;
  plan.rolled_back_at_ms = ctx_.control.NowMs();
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kRollingBack); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.error.clear();
  spdlog::info(
      "migration {}: rolled back: the status names {} (generation {}) again; writes made to {} "
      "meanwhile are in it (drained through the reverse peer {})",
      plan.table, plan.source, plan.source_generation, plan.target, plan.capture.reverse_peer);
  Step saved = ctx_.record.Save(node);
  if (saved != Step::kAdvanced) return saved;
  // Removed once the plan says it is done: a crash before handles it again (the status names
  // the old generation by then, so only the plan follows).
  ctx_.record.ClearRequest(plan.table, request_version);
  return Step::kAdvanced;
}

Step RollbackPhase::RollingBack(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // Writers follow the status back through a watch: give them a moment before their writes to
  // the new generation are refused (until then the reverse peer carries them).
  if (ctx_.control.NowMs() < plan.rolled_back_at_ms + ctx_.options.rollback_settle.count()) {
    ctx_.status.UpdateSnapshot(plan);
    return Step::kWaiting;
  }
  Status forward =
      ctx_.capture.RemoveCapture(plan.capture.peer, "rolled back: the old generation leads");
  if (!forward.ok())
    return ctx_.record.Fail(node, "rolling back: removing the capture peer: " + forward.message());
  // No peer ships the old generation any more: it stays, and takes bulk loads and SKIP_WAL
  // writes again. (The new one keeps its guard until it is dropped.)
  Status unguarded =
      ctx_.guards.Unguard(plan, plan.source, "rolled back: the old generation stays");
  if (!unguarded.ok()) {
    return ctx_.record.Fail(node, "rolling back: removing the MigrationGuard from " + plan.source +
                                      ": " + unguarded.message());
  }
  if (plan.capture.fence_started_ms == 0) {
    auto before = ctx_.capture.ClosesShipped(plan.source);
    if (!before.ok()) {
      return ctx_.record.Fail(
          node, "rolling back: reading the capture's acks: " + before.status().message());
    }
    plan.capture.closed_before = *before;
    plan.capture.fence_started_ms = ctx_.control.NowMs();
    if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  }
  if (!ctx_.control.MayAct()) return Step::kStopped;
  bool made_read_only = false;
  Status fenced = ctx_.bridge.SetReadOnly(plan.target, true, &made_read_only);
  if (!fenced.ok() && fenced.code() != StatusCode::kNotFound) {
    return ctx_.record.Fail(
        node, "rolling back: making " + plan.target + " read-only: " + fenced.message());
  }
  // Writable meanwhile (by hand): whatever it took since the rollback's drain is drained now.
  if (made_read_only) plan.capture.drained_ms = 0;
  // Gone: an earlier run of this step drained and dropped it, and stopped before the end was
  // written (a crash, a status write that lost to another writer); nothing is left to drain.
  auto target = ctx_.admin.DescribeTable(plan.target);
  if (!target.ok()) {
    return ctx_.record.Fail(
        node, "rolling back: describing " + plan.target + ": " + target.status().message());
  }
  // Drained at the rollback's pause and read-only since (SetReadOnly above changed nothing):
  // nothing more can have been written to it.
  auto drained =
      target->exists && plan.capture.drained_ms == 0
          ? ctx_.capture.AwaitDrained(plan.capture.reverse_peer, plan.target, plan.source,
                                      plan.capture.closed_before, plan.capture.fence_started_ms)
          : Result<bool>(true);
  if (!drained.ok()) {
    return ctx_.record.Fail(
        node, "rolling back: draining the reverse capture: " + drained.status().message());
  }
  if (!*drained) {
    plan.error =
        "rolling back: the reverse capture peer has not shipped every region's last "
        "write of " +
        plan.target + " yet; looking again on the next run";
    Step saved = ctx_.record.Save(node);
    return saved == Step::kAdvanced ? Step::kWaiting : saved;
  }
  Status reverse = ctx_.capture.RemoveCapture(plan.capture.reverse_peer, "rolled back and drained");
  if (!reverse.ok()) {
    return ctx_.record.Fail(node, "rolling back: removing the reverse peer: " + reverse.message());
  }
  // Every write the new generation took is in the old one: it is a copy, and goes.
  if (!ctx_.control.MayAct()) return Step::kStopped;
  Status deleted = ctx_.admin.DeleteTable(plan.target);
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
    return ctx_.record.Fail(node,
                            "rolling back: dropping " + plan.target + ": " + deleted.message());
  }
  ctx_.cleanup_staging(plan, "rollback");
  return ctx_.record.Finish(
      node, "rolled back: " + plan.target + " drained into " + plan.source + " and dropped",
      "rolled_back");
}

}  // namespace presplit::daemon::migrate
