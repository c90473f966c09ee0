// Abort, before the switch only: the capture peers are removed first (a peer whose target is gone
// would refuse every batch and keep the source's WALs forever), the bulk job killed and its
// staging removed, then the target dropped if it carries this plan's marker (a table of that name
// presplit did not create for this plan is left alone), and the source's MigrationGuard removed.
// The source's data was never touched. The status
// says "aborted" before the plan goes, so the reconciler does not start the same migration again
// for this document version.

#pragma once

#include <string>

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class AbortPhase {
 public:
  explicit AbortPhase(PhaseContext& context) : ctx_(context) {}

  // `why` (set when the daemon aborts by itself) stays in the plan's last error and the status's
  // `migration.error`; an operator's abort leaves no error. The phase table decides whether an
  // abort is accepted (never once the status names the target).
  Step Abort(PlanNode& node, const std::string& why);

 private:
  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
