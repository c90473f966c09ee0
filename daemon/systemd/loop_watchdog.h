// Keeps systemd's watchdog (WatchdogSec) fed from the daemon's event loop.
//
// What WATCHDOG=1 vouches for here is the loop, not the reconcile passes. The loop handles
// signals, ZooKeeper events and /healthz; if it stalls the daemon is deaf and only a restart
// helps, so the pings stop and systemd restarts it. A pass that fails because HBase or
// ZooKeeper is down is the daemon doing its job (it reports the error, retries on the next
// event or resync, and /healthz answers 503 meanwhile): a restart would not bring HBase back,
// it would only throw away the embedded JVM and the ZooKeeper session and start them again
// in a loop. The passes themselves run on their own thread and every HBase call is bounded by
// the client's timeouts, so a pass does not hang forever behind a healthy loop.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

#include "daemon/systemd/notifier.h"

namespace presplit::daemon {

class LoopWatchdog {
 public:
  // Pings at half of notifier.watchdog_interval() (systemd's advice), on `io`'s thread. Both
  // must outlive this object.
  LoopWatchdog(boost::asio::io_context& io, Notifier& notifier);

  // Sends the first ping and arms the timer; does nothing when systemd asked for no watchdog.
  void Start();
  // Cancels the timer (call from the loop's thread, or after the loop has stopped).
  void Stop();

  // The ping period: half the watchdog interval, or zero when there is no watchdog.
  std::chrono::microseconds period() const { return period_; }

 private:
  void Ping();

  Notifier& notifier_;
  boost::asio::steady_timer timer_;
  std::chrono::microseconds period_;
  bool running_ = false;
};

}  // namespace presplit::daemon
