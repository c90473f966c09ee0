#include "daemon/systemd/notifier.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>
#include <cstring>

namespace presplit::daemon {
namespace {

// A STATUS= value is one line: the protocol separates assignments with newlines.
std::string OneLine(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

}  // namespace

Notifier::Notifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID is unset or names this process.
  if (sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0) {
    watchdog_interval_ = std::chrono::microseconds(usec);
  }
}

Status Notifier::Ready(std::string_view status) {
  return Send("READY=1\nSTATUS=" + OneLine(status));
}

Status Notifier::SetStatus(std::string_view status) { return Send("STATUS=" + OneLine(status)); }

Status Notifier::Watchdog() { return Send("WATCHDOG=1"); }

Status Notifier::Stopping(std::string_view status) {
  return Send("STOPPING=1\nSTATUS=" + OneLine(status));
}

Status Notifier::Send(const std::string& state) {
  if (!enabled_) return Status::Ok();
  int rc = sd_notify(/*unset_environment=*/0, state.c_str());
  if (rc < 0) {
    return Status::Unavailable("sd_notify(" + state.substr(0, state.find('\n')) +
                               ") failed: " + std::strerror(-rc));
  }
  return Status::Ok();
}

}  // namespace presplit::daemon
