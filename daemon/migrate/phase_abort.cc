// Abort, before the switch only: see phase_abort.h.
#include "daemon/migrate/phase_abort.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon::migrate {

Step AbortPhase::Abort(PlanNode& node, const std::string& why) {
  MigrationPlan& plan = node.plan;
  if (!ctx_.control.MayAct()) return Step::kStopped;
  spdlog::info("migration {}: aborting in phase {}{}: dropping the target {}; {} stays as it is",
               plan.table, PhaseName(plan.phase), why.empty() ? "" : " (" + why + ")", plan.target,
               plan.source);
  // A switch's write pause under way (the daemon aborting by itself) ends first.
  if (Status lifted = ctx_.write_pause.Lift(plan); !lifted.ok()) {
    return ctx_.record.Fail(
        node, "abort: making " + plan.source + " writable again: " + lifted.message());
  }
  for (const std::string* peer : {&plan.capture.reverse_peer, &plan.capture.peer}) {
    Status removed = ctx_.capture.RemoveCapture(*peer, "abort");
    if (!removed.ok())
      return ctx_.record.Fail(node,
                              "abort: removing capture peer " + *peer + ": " + removed.message());
  }
  ctx_.abort_bulk_copy(plan);
  ctx_.cleanup_staging(plan, "abort");
  // Only a target this plan created is dropped: a table of that name without this plan's
  // marker (someone else's, or one a replayed plan names) is left alone.
  auto ours = ctx_.bridge.CheckGeneration(plan.target, plan.source, plan.plan_id);
  if (!ours.ok()) {
    return ctx_.record.Fail(
        node, "abort: looking at the target " + plan.target + ": " + ours.status().message());
  }
  if (ours->exists && !ours->why_not.empty()) {
    spdlog::warn("migration {}: abort: {} is left alone: {}", plan.table, plan.target,
                 ours->why_not);
  } else if (ours->exists) {
    if (!ctx_.control.MayAct()) return Step::kStopped;
    Status deleted = ctx_.admin.DeleteTable(plan.target);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return ctx_.record.Fail(
          node, "abort: dropping the target " + plan.target + ": " + deleted.message());
    }
  }
  // Nothing captures the source any more: it takes bulk loads and SKIP_WAL writes again.
  Status unguarded = ctx_.guards.Unguard(plan, plan.source, "aborted: the old generation stays");
  if (!unguarded.ok()) {
    return ctx_.record.Fail(node, "abort: removing the MigrationGuard from " + plan.source + ": " +
                                      unguarded.message());
  }
  plan.error = why;
  Status published = ctx_.status.PublishProgress(plan, "aborted");
  if (!published.ok()) {
    return ctx_.record.Fail(node, "abort: recording it in the status: " + published.message());
  }
  Status removed = ctx_.record.RemovePlan(plan);
  if (!removed.ok())
    return ctx_.record.Fail(node, "abort: removing the plan: " + removed.message());
  ctx_.counters.aborted++;
  spdlog::info("migration {}: aborted; the status stays at generation {} ({})", plan.table,
               plan.source_generation, plan.source);
  ctx_.throttles.PaceBulkJob(plan, false);  // before the snapshot forgets it: ending shows it
  ctx_.status.Forget(plan.table);
  return Step::kWaiting;
}

}  // namespace presplit::daemon::migrate
