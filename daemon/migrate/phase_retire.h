// Phases "grace", "fencing" and "done": the old generation stays captured until it is fenced.
//   grace:   both peers run until grace_until_ms: a writer that still writes to the old
//            generation reaches the new one; a rollback is possible. A bulk load the capture
//            saw past the guard pauses the migration at its end (StopForBulkLoads), while a
//            rollback still keeps it.
//   fencing: the reverse peer is removed (no rollback from here on), the old generation is
//            made read-only (its RegionServers refuse writes, loudly), and the forward peer
//            drained: the read-only change reopens every region, whose close is the last entry
//            of the region in the WAL; once every close is shipped, nothing of the old
//            generation is left behind. Then the forward peer is removed and the new generation
//            settled in one reopen: its families get the old one's KEEP_DELETED_CELLS (kept
//            since its creation: see FinishCopy) and its MigrationGuard goes. With drop_old a
//            final check (every old cell in the new generation or superseded there) decides
//            the drop; the old generation is disabled.
#pragma once

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class RetirePhase {
 public:
  explicit RetirePhase(PhaseContext& context) : ctx_(context) {}

  // Phase "grace": waits until grace_until_ms, then begins the fence.
  Step Grace(PlanNode& node);
  // Phase "fencing": the old generation read-only and drained, the forward peer removed, the
  // new generation settled; with drop_old a final check, then the old generation disabled (and
  // dropped), the migration done.
  Step Fence(PlanNode& node);

 private:
  // The fence of an old generation that is gone (dropped by the fence before a restart): the
  // forward peer removed, the migration done.
  Step EndFenceWithoutSource(PlanNode& node);

  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
