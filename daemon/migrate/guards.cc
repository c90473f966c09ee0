// The MigrationGuard of a plan's tables: see guards.h.
#include "daemon/migrate/guards.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon::migrate {

MigrationGuards::MigrationGuards(MigrationBridge& bridge, DriverControl& control)
    : bridge_(bridge), control_(control) {}

Result<bool> MigrationGuards::GuardSource(const MigrationPlan& plan) {
  if (plan.plan_id.empty()) return false;
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(bool attached, bridge_.AttachGuard(plan.source));
  if (attached) {
    spdlog::info(
        "migration {}: MigrationGuard attached to {}, dormant (its regions reopened, once: "
        "the table keeps it): it refuses bulk loads and Durability.SKIP_WAL "
        "writes while a capture of the table runs",
        plan.table, plan.source);
  }
  return attached;
}

Status MigrationGuards::ConfirmSourceGuard(const MigrationPlan& plan) {
  if (plan.plan_id.empty()) return Status::Ok();
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(GuardConfirmed confirmed, bridge_.ConfirmGuard(plan.source));
  spdlog::info(
      "migration {}: MigrationGuard on in {} ({} regions confirmed, no reopen{}): bulk loads and "
      "Durability.SKIP_WAL writes, which the capture cannot ship, are refused until the capture "
      "ends",
      plan.table, plan.source, confirmed.regions,
      confirmed.reopened > 0 ? "; " + std::to_string(confirmed.reopened) +
                                   " reopened because they did not confirm in time"
                             : std::string());
  return Status::Ok();
}

Status MigrationGuards::Unguard(const MigrationPlan& plan, const std::string& table,
                                const char* why) {
  if (plan.plan_id.empty()) return Status::Ok();
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(GuardChange change, bridge_.UnguardTable(table, plan.plan_id));
  if (!change.other_plan.empty()) {
    spdlog::warn(
        "migration {}: the MigrationGuard on {} is another migration's (plan {}): left in place; "
        "if no migration of {} is under way, remove it: hbase shell: alter '{}', METHOD => "
        "'table_att_unset', NAME => 'coprocessor$<n>'",
        plan.table, table, change.other_plan, plan.table, table);
  }
  if (change.changed) {
    spdlog::info(
        "migration {}: MigrationGuard removed from {} ({}; its regions reopened): bulk loads and "
        "Durability.SKIP_WAL writes are accepted again",
        plan.table, table, why);
  }
  return Status::Ok();
}

}  // namespace presplit::daemon::migrate
