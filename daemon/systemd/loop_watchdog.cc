#include "daemon/systemd/loop_watchdog.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon {

LoopWatchdog::LoopWatchdog(boost::asio::io_context& io, Notifier& notifier)
    : notifier_(notifier), timer_(io), period_(notifier.watchdog_interval() / 2) {}

void LoopWatchdog::Start() {
  if (period_.count() <= 0 || running_) return;
  running_ = true;
  spdlog::info("systemd watchdog: pinging every {} ms from the event loop",
               std::chrono::duration_cast<std::chrono::milliseconds>(period_).count());
  Ping();
}

void LoopWatchdog::Stop() {
  running_ = false;
  timer_.cancel();
}

void LoopWatchdog::Ping() {
  if (!running_) return;
  if (Status s = notifier_.Watchdog(); !s.ok()) {
    // Keep trying: systemd restarts the daemon if the pings really stop reaching it.
    spdlog::warn("systemd watchdog: {}", s.ToString());
  }
  timer_.expires_after(period_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) Ping();
  });
}

}  // namespace presplit::daemon
