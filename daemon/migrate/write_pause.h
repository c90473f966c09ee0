// The switch's write pause: while a plan's writes_paused_until_ms is set, the status tells the
// SDK to hold its writes and the paused generation (paused_table, "" = the source) is read-only.
// Lift ends it without switching; it is asked before an operator's request is handled, before a
// stop for bulk loads and by a rollback, so that nothing leaves writers paused.
//
// A service of the phases: no state of its own; every change asks DriverControl::MayAct first.
#pragma once

#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"

namespace presplit::daemon::migrate {

class WritePause {
 public:
  WritePause(MigrationBridge& bridge, DriverControl& control);

  // The paused generation writable again (a generation that is gone counts as writable) and the
  // pause's fields cleared (in `plan`, not saved); nothing when no pause is under way.
  Status Lift(MigrationPlan& plan);

 private:
  MigrationBridge& bridge_;
  DriverControl& control_;
};

}  // namespace presplit::daemon::migrate
