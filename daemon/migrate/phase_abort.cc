// Abort, before the switch only: the capture peers are removed first (a peer whose target is gone
// would refuse every batch and keep the source's WALs forever), the bulk job killed and its
// staging removed, then the target dropped if it carries this plan's marker (a table of that name
// presplit did not create for this plan is left alone), and the source's MigrationGuard removed.
// The source's data was never touched. The status
// says "aborted" before the plan goes, so the reconciler does not start the same migration again
// for this document version.
//
// A table's document removed while its migration runs: presplitctl rm refuses then, but a portal
// writing ZooKeeper directly is not stopped. The reconciler keeps the status while a plan exists
// (the plan check and the abort's last status write need it), and the leader ends the migration
// here: aborted before the switch, finished as usual after it.
#include <spdlog/spdlog.h>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {

Migrator::Step Migrator::Abort(PlanNode& node, const std::string& why) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  spdlog::info("migration {}: aborting in phase {}{}: dropping the target {}; {} stays as it is",
               plan.table, PhaseName(plan.phase), why.empty() ? "" : " (" + why + ")", plan.target,
               plan.source);
  // A switch's write pause under way (the daemon aborting by itself) ends first.
  if (Status lifted = write_pause_.Lift(plan); !lifted.ok()) {
    return Fail(node, "abort: making " + plan.source + " writable again: " + lifted.message());
  }
  for (const std::string* peer : {&plan.capture.reverse_peer, &plan.capture.peer}) {
    Status removed = capture_.RemoveCapture(*peer, "abort");
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
  // Nothing captures the source any more: it takes bulk loads and SKIP_WAL writes again.
  Status unguarded = guards_.Unguard(plan, plan.source, "aborted: the old generation stays");
  if (!unguarded.ok()) {
    return Fail(node, "abort: removing the MigrationGuard from " + plan.source + ": " +
                          unguarded.message());
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
  throttles_.PaceBulkJob(plan, false);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  snapshot_.erase(plan.table);
  return Step::kWaiting;
}

bool Migrator::DocumentGone(const std::string& table) {
  std::lock_guard<std::mutex> lock(zk_mu_);
  auto document = zk_.Get(JoinZkPath(JoinZkPath(options_.zk_root, "tables"), table),
                          /*watch=*/false);
  return !document.ok() && document.status().code() == StatusCode::kNotFound;
}

Migrator::Step Migrator::OnDocumentGone(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // As for an operator's abort, the status decides whether readers use the target: a switch
  // whose status write succeeded and whose plan write did not leaves the plan at `switching`.
  bool switched = IsSwitched(plan.phase);
  if (!switched) {
    auto names_target = StatusNamesTarget(plan);
    if (!names_target.ok()) {
      spdlog::warn(
          "migration {}: its document is gone; reading the status to decide what to do: "
          "{} (tried again on the next run)",
          plan.table, names_target.status().ToString());
      return Step::kWaiting;
    }
    switched = *names_target;
  }
  if (switched) {
    bool first;
    {
      std::lock_guard<std::mutex> lock(refusals_mu_);
      first = document_gone_logged_.insert(plan.table).second;
    }
    if (first) {
      spdlog::warn(
          "migration {}: its document <root>/tables/{} was removed after the switch (phase {}): "
          "{} serves the table's data now, so the migration goes on to its end; the HBase "
          "tables stay, as for any removed document",
          plan.table, plan.table, PhaseName(plan.phase), plan.target);
    }
    return Step::kAdvanced;
  }
  const std::string why = "its document <root>/tables/" + plan.table +
                          " was removed before the switch (phase " + PhaseName(plan.phase) +
                          "): aborted by the daemon";
  spdlog::warn("migration {}: {}; {} is dropped and its capture peers removed", plan.table, why,
               plan.target);
  return Abort(node, why);
}

}  // namespace presplit::daemon::migrate
