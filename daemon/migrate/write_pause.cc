// The switch's write pause: see write_pause.h.
#include "daemon/migrate/write_pause.h"

namespace presplit::daemon::migrate {

WritePause::WritePause(MigrationBridge& bridge, DriverControl& control)
    : bridge_(bridge), control_(control) {}

Status WritePause::Lift(MigrationPlan& plan) {
  if (plan.writes_paused_until_ms == 0) return Status::Ok();
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  const std::string& paused = plan.paused_table.empty() ? plan.source : plan.paused_table;
  Status writable = bridge_.SetReadOnly(paused, false);
  if (!writable.ok() && writable.code() != StatusCode::kNotFound) return writable;
  plan.writes_paused_until_ms = 0;
  plan.paused_table.clear();
  plan.capture.closed_before.clear();
  plan.capture.fence_started_ms = 0;
  plan.capture.drained_ms = 0;
  return Status::Ok();
}

}  // namespace presplit::daemon::migrate
