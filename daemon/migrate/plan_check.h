// Whether presplitd may act on a migration plan it read from ZooKeeper: only a plan it would
// have written itself. The plan decides which tables a migration creates, fences, disables and
// drops, which snapshot and staging directory it deletes and which replication peers it adds and
// removes; ZooKeeper's access control keeps others from writing it, and this check keeps a plan
// that got there anyway (no access control, a bug, a hand-written znode) from driving anything.
//
// Plain code: the caller reads the plan and the table's status (written by the daemon only).
#pragma once

#include <string>

#include "daemon/migrate/migration_plan.h"
#include "presplit/status.h"

namespace presplit::daemon::migrate {

// What the daemon knows independently of the plan.
struct PlanFacts {
  std::string znode;                  // the plan's znode name under <root>/migrations
  bool status_found = false;          // <root>/status/<znode> exists and is a JSON object
  std::string status_physical_table;  // its physical_table ("" = the document's own name)
  int64_t status_generation = 1;      // its generation
  std::string status_layout;          // its layout object (JSON text; "" = none)
  std::string staging_base;           // the daemon's migration_staging_dir
};

// Ok when the plan is one this daemon would have planned for `facts`, else InvalidArgument
// naming the first field that is not (the plan is then left untouched):
//   - table = the znode's name; source = generation `source_generation` of that table and
//     target = generation `source_generation + 1` (`ns:t`, `ns:t__g<N>`);
//   - the status names the source (at its generation, with the plan's old layout) or, once
//     switched, the target (with the new layout);
//   - the document parses, names the table and has the new layout; the old layout is a layout;
//   - engine, workers, max_cells_per_s, max_write_pause_ms and grace_period_s within the
//     document's bounds;
//   - capture peers, snapshot and staging directory are the ones derived from the target, the
//     staging directory under the daemon's own migration_staging_dir.
Status CheckPlan(const MigrationPlan& plan, const PlanFacts& facts);

}  // namespace presplit::daemon::migrate
