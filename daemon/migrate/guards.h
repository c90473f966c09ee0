// The MigrationGuard of a plan's tables (presplit-hbase.jar's table coprocessor): while a capture
// of a table runs it refuses what the capture cannot carry, bulk loads and Durability.SKIP_WAL
// writes. presplitd creates its tables with it, dormant; an older table gets it at its first
// migration (one reopen of its regions) and keeps it. It turns on and off with the capture on
// each RegionServer, without a reopen.
//
// A service of the phases: no state of its own; every change asks DriverControl::MayAct first.
// A plan without an id (written by an older presplitd) never attached a guard: nothing is done
// for it.
#pragma once

#include <string>

#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"

namespace presplit::daemon::migrate {

class MigrationGuards {
 public:
  MigrationGuards(MigrationBridge& bridge, DriverControl& control);

  // Attaches the guard to the plan's source, dormant, when it has none (a reopen of the source's
  // regions, once: the table keeps it); made sure of again when the verification begins (one
  // removed by hand). Whether it was attached now.
  Result<bool> GuardSource(const MigrationPlan& plan);
  // Once the forward capture runs: waits until every region of the source confirms that its
  // guard refuses, with nothing it let through before still being written (no reopen).
  Status ConfirmSourceGuard(const MigrationPlan& plan);
  // Removes this plan's guard from the generation that stays (`why` is for the log): nothing
  // when there is none, another plan's is left in place (logged).
  Status Unguard(const MigrationPlan& plan, const std::string& table, const char* why);

 private:
  MigrationBridge& bridge_;
  DriverControl& control_;
};

}  // namespace presplit::daemon::migrate
