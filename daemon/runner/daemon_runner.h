// presplitd's logic behind a thin main: wires ZooKeeper, the embedded JVM, the reconcile worker
// and the HTTP endpoint around one Asio loop, and returns a Status when it stops.
#pragma once

#include "daemon/runner/daemon_options.h"
#include "presplit/status.h"

namespace presplit::daemon {

// Runs until SIGTERM or SIGINT. SIGHUP asks for an immediate full reconcile pass.
// Returns OK after a clean shutdown, or why the daemon could not start.
Status RunDaemon(const DaemonOptions& options);

}  // namespace presplit::daemon
