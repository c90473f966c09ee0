// Phase "planned": the target is created pre-split for the new layout, the source guarded, and
// the forward capture peer is added, before the copy reads a single row: the copy then covers
// what was written before the peer existed, the peer everything after, and the guard
// (presplit-hbase.jar's MigrationGuard) refuses what neither can carry, bulk loads and
// Durability.SKIP_WAL writes. The target is the same table as the source in a new layout: the
// source's table attributes, family settings, grants and quotas, the document's layout, a marker
// naming this plan and the plan's guard (MigrationBridge::CreateGeneration). A migration
// presplit cannot carry out without losing something (visibility labels; a table whose own
// DURABILITY is SKIP_WAL; a table another replication peer ships while the document's
// migration.replication is "refuse") is refused
// here, before anything is created: the status says "aborted" with the reason.
#pragma once

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class CreatePhase {
 public:
  explicit CreatePhase(PhaseContext& context) : ctx_(context) {}

  // Phase "planned": the engine resolved, the target created, the source guarded, the forward
  // peer added and the guard confirmed; copying next (or the migration refused and aborted).
  Step CreateTarget(PlanNode& node);

 private:
  // Engine "auto" resolved by the source's size (put below mapreduce_threshold_bytes), and an
  // engine this presplitd cannot run refused with what to do.
  Step ResolveEngine(PlanNode& node);

  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
