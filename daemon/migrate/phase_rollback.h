// A way back: `presplitctl migration rollback TABLE` during catching_up or grace, by the same rule
// as the switch: writers paused (at most max_write_pause_ms), the new generation made read-only
// and drained into the old one through the reverse peer, then ONE status write names the old
// generation again (the SDK follows it like any switch), so a reader there sees every write the
// new generation took. A drain that does not finish within the pause lifts it and fails the
// step; the request stays and is tried again on the next run. Then, in phase "rolling_back", the
// new generation is fenced like the old one would have been: the forward peer removed, the new
// generation made read-only and drained through the reverse peer, the reverse peer removed, and the
// new generation, a copy whose every write reached the old one, dropped. The old generation loses
// its MigrationGuard once the forward peer is gone. The status says
// "rolled_back", and the reconciler does not start the same migration again for this document
// version.
#pragma once

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class RollbackPhase {
 public:
  explicit RollbackPhase(PhaseContext& context) : ctx_(context) {}

  // The rollback request (of version `request_version`, removed once the plan says it is done),
  // accepted by the phase table: the bounded pause, the drain through the reverse peer, the one
  // status write naming the old generation, then phase "rolling_back".
  Step Rollback(PlanNode& node, int request_version);
  // Phase "rolling_back": after rollback_settle, the new generation fenced, drained and dropped.
  Step RollingBack(PlanNode& node);

 private:
  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
