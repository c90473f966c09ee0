// Phases "switching" and "catching_up": the reverse capture peer (new generation -> old) is
// added first, so that every write made to the new generation from the switch on is also in the
// old one (a rollback loses nothing); the old generation's grants and quotas are copied again;
// then ONE status write moves readers and writers to the target. The catch-up is done when the forward peer has shipped every write made to the old
// generation up to a probe written after the switch. Writers that have not seen the switch yet
// keep writing to the old generation: the forward peer keeps shipping them through the grace
// period (phase_retire.cc).
#include <spdlog/spdlog.h>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {

Migrator::Step Migrator::Switch(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (plan.capture.reverse_started_ms == 0) {
    Status reverse = EnsureCapture(plan, /*reverse=*/true);
    if (!reverse.ok()) {
      return Fail(node, "adding the reverse capture peer " + plan.capture.reverse_peer + ": " +
                            reverse.message());
    }
    // Recorded before the switch: whoever resumes knows the reverse peer exists.
    if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  }
  // Whatever an operator granted or limited on the old generation since it was copied follows it
  // (idempotent: a grant merges, a quota is set to the same value).
  if (!MayAct()) return Step::kStopped;
  auto settings = bridge_.CopyTableSettings(plan.source, plan.target, ReplicationOf(plan));
  if (!settings.ok()) {
    return Fail(node, "copying the grants and quotas of " + plan.source + " to " + plan.target +
                          " before the switch: " + settings.status().message());
  }
  bool request_pending = false;
  Status written =
      WriteStatusGeneration(plan, /*to_target=*/true, PhaseName(Phase::kCatchingUp),
                            &request_pending);
  if (request_pending) return Step::kAdvanced;  // DriveOne handles the request first
  if (!written.ok()) {
    if (!MayAct()) return Step::kStopped;
    return Fail(node, "switching the status: " + written.message());
  }
  counters_.switches++;
  plan.switched_at_ms = NowMs();
  plan.phase = Phase::kCatchingUp;
  plan.error.clear();
  spdlog::info("migration {}: switched: the status names {} (generation {})", plan.table,
               plan.target, plan.target_generation);
  return Save(node);
}

Migrator::Step Migrator::CatchUp(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // The probe is written now, after the switch: once the forward peer acknowledged it in every
  // region, every write the old generation took before (and around) the switch is in the new.
  Status shipped = AwaitShipped(plan.capture.peer, plan.source, plan.target);
  if (!shipped.ok()) {
    if (Halted()) return Step::kStopped;
    return Fail(node, "catching up: " + shipped.message());
  }
  CollectNotices(plan, plan.target);
  plan.capture.caught_up_ms = NowMs();
  plan.phase = Phase::kGrace;
  plan.grace_until_ms = NowMs() + plan.grace_period_s * 1000;
  plan.error.clear();
  spdlog::info(
      "migration {}: caught up: every write to {} up to the switch is in {}; both capture peers "
      "run for the {} s grace period (presplitctl migration rollback {} switches back)",
      plan.table, plan.source, plan.target, plan.grace_period_s, plan.table);
  return Save(node);
}

}  // namespace presplit::daemon::migrate
