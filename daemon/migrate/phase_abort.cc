// Abort, before the switch only: the capture peers are removed first (a peer whose target is gone
// would refuse every batch and keep the source's WALs forever), the bulk job killed and its
// staging removed, then the target dropped if it carries this plan's marker (a table of that name
// presplit did not create for this plan is left alone). The source was never touched. The status
// says "aborted" before the plan goes, so the reconciler does not start the same migration again
// for this document version.
#include <spdlog/spdlog.h>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {

Migrator::Step Migrator::Abort(PlanNode& node, const std::string& why) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  spdlog::info("migration {}: aborting in phase {}{}: dropping the target {}; {} stays as it is",
               plan.table, PhaseName(plan.phase), why.empty() ? "" : " (" + why + ")", plan.target,
               plan.source);
  for (const std::string* peer : {&plan.capture.reverse_peer, &plan.capture.peer}) {
    Status removed = RemoveCapture(*peer, "abort");
    if (!removed.ok())
      return Fail(node, "abort: removing capture peer " + *peer + ": " + removed.message());
  }
  AbortBulkCopy(plan);
  CleanupHfileStaging(plan, "abort");
  // Only a target this plan created is dropped: a table of that name without this plan's
  // marker (someone else's, or one a replayed plan names) is left alone.
  auto ours = bridge_.CheckGeneration(plan.target, plan.source, plan.plan_id);
  if (!ours.ok()) {
    return Fail(node,
                "abort: looking at the target " + plan.target + ": " + ours.status().message());
  }
  if (ours->exists && !ours->why_not.empty()) {
    spdlog::warn("migration {}: abort: {} is left alone: {}", plan.table, plan.target,
                 ours->why_not);
  } else if (ours->exists) {
    if (!MayAct()) return Step::kStopped;
    Status deleted = admin_.DeleteTable(plan.target);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return Fail(node, "abort: dropping the target " + plan.target + ": " + deleted.message());
    }
  }
  plan.error = why;
  Status published = PublishProgress(plan, "aborted");
  if (!published.ok()) {
    return Fail(node, "abort: recording it in the status: " + published.message());
  }
  Status removed = store_.Remove(plan.table);
  if (!removed.ok()) return Fail(node, "abort: removing the plan: " + removed.message());
  counters_.aborted++;
  spdlog::info("migration {}: aborted; the status stays at generation {} ({})", plan.table,
               plan.source_generation, plan.source);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  snapshot_.erase(plan.table);
  return Step::kWaiting;
}

}  // namespace presplit::daemon::migrate
