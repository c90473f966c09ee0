// Tells the service manager (systemd, Type=notify) how the daemon is doing, over the socket
// named by $NOTIFY_SOCKET. Without that variable the daemon was not started that way and every
// call does nothing and succeeds, so the daemon runs the same under a shell, a test or systemd.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit::daemon {

class Notifier {
 public:
  // Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID once; the environment is left as
  // it is (the embedded JVM and child processes do not see the daemon's notifications anyway).
  Notifier();

  // True when $NOTIFY_SOCKET names a socket to talk to.
  bool enabled() const { return enabled_; }

  // "READY=1": the daemon has started (its dependencies reached) and serves. `status` is a
  // one-line description shown by `systemctl status`.
  Status Ready(std::string_view status);
  // "STATUS=...": a new one-line description, nothing else.
  Status SetStatus(std::string_view status);
  // "WATCHDOG=1": the daemon is alive; systemd restarts it when these stop for WatchdogSec.
  Status Watchdog();
  // "STOPPING=1": the daemon is shutting down on purpose.
  Status Stopping(std::string_view status);

  // WatchdogSec as systemd passed it for this process ($WATCHDOG_USEC, when $WATCHDOG_PID is
  // unset or this process), or zero when no watchdog is asked for.
  std::chrono::microseconds watchdog_interval() const { return watchdog_interval_; }

 private:
  // Sends one datagram of `KEY=VALUE` lines; errors name the state and the errno text.
  Status Send(const std::string& state);

  bool enabled_ = false;
  std::chrono::microseconds watchdog_interval_{0};
};

}  // namespace presplit::daemon
