// presplitd's logic behind a thin main: builds what its components share (ZooKeeper, the
// embedded JVM, the leader election, one Asio loop), starts the components (component.h) in their
// declared order, and returns a Status when it stops.
#pragma once

#include "daemon/runner/daemon_options.h"
#include "presplit/status.h"

namespace presplit::daemon {

// Runs until SIGTERM or SIGINT. SIGHUP asks for an immediate full reconcile pass.
// Returns OK after a clean shutdown, or why the daemon could not start.
Status RunDaemon(const DaemonOptions& options);

}  // namespace presplit::daemon
