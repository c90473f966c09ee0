// What a migration's phases and the services they use ask of the driver that runs them: whether
// they may act now (the lease), whether a wait should end early, the time, and a wait.
//
// The Migrator answers for its drivers (the lease, the daemon stopping, halted drivers); a unit
// test of one service or phase passes its own, with a clock it moves by hand.
#pragma once

#include <chrono>
#include <cstdint>

namespace presplit::daemon::migrate {

class DriverControl {
 public:
  virtual ~DriverControl() = default;

  // Asked right before every mutation (HBase or ZooKeeper): false when the lease is gone, the
  // daemon is stopping or the drivers were halted. A lease found gone halts every driver.
  virtual bool MayAct() = 0;
  // The drivers must end now: the daemon is stopping, or they were halted (the lease was found
  // gone, or the Migrator stops). Cheap: reads no ZooKeeper.
  virtual bool Halted() const = 0;
  // Asked by every wait between two polls: true when the wait should end now (halted, stopping,
  // or the lease gone; the lease itself is read at most once a second).
  virtual bool Interrupted() = 0;
  // The daemon is stopping (so an interrupted wait says "stopping", not "the lease is lost").
  virtual bool Stopping() const = 0;
  // Wall clock, in ms: plan times and probe ids. Compared with this daemon's own clock only.
  virtual int64_t NowMs() const = 0;
  // A monotonic clock for the waits' deadlines (a wall clock may jump). The Migrator's is the
  // steady clock; a test's moves only when its Sleep is called, so no test waits in real time.
  virtual std::chrono::steady_clock::time_point Steady() const = 0;
  // Waits between two polls.
  virtual void Sleep(std::chrono::milliseconds duration) const = 0;
};

}  // namespace presplit::daemon::migrate
