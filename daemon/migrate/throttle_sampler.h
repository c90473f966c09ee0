// Where the migration's adaptive throttle (throttler.h) gets its health samples, and the thread
// that feeds it: about once a second, one sample of the RegionServers holding the migration's
// source and target, one AIMD step, and the new rate pushed into the bridge's throttle gate, the
// token bucket every copy chunk and verification read of the migration takes from inside the
// daemon's JVM (a call of minutes follows a back-off within a moment). Never on a hot path: the
// copy and verification threads only ever take permits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/throttler.h"
#include "presplit/status.h"

namespace presplit::daemon::migrate {

// One health sample of the servers involved. An error is "no signal" (the throttle holds).
class HealthSource {
 public:
  virtual ~HealthSource() = default;
  // The sample, and in `problems` what could not be read of it (a server's JMX refused, a probe
  // that failed): the sampler logs each once.
  virtual Result<HealthSample> Sample(std::vector<std::string>& problems) = 0;
};

// The running totals a server reported last (blocked requests, GC time), to turn the next ones
// into per-interval values.
struct HealthTotals {
  double blocked_requests = -1;  // -1: not read
  double gc_time_ms = -1;
  std::chrono::steady_clock::time_point at;
};

// ClusterHealth.sample's JSON (presplit-hbase.jar) into a sample; `totals` (by server) are read
// and updated. A server's first sample has no blocked updates nor GC pauses yet (no interval).
// InvalidArgument when the JSON is not that shape.
Result<HealthSample> ParseClusterHealth(const std::string& json,
                                        std::map<std::string, HealthTotals>& totals,
                                        std::chrono::steady_clock::time_point now,
                                        std::vector<std::string>& problems);

// The real source: the bridge's ClusterHealth (each server's JMX over its info port, and timed
// small gets against the tables).
class BridgeHealthSource final : public HealthSource {
 public:
  BridgeHealthSource(MigrationBridge& bridge, std::vector<std::string> tables, int probes);
  Result<HealthSample> Sample(std::vector<std::string>& problems) override;

 private:
  MigrationBridge& bridge_;
  const std::vector<std::string> tables_;
  const int probes_;
  std::map<std::string, HealthTotals> totals_;
};

// Feeds a throttler from a health source, and its rate into the bridge's gate for `tables`.
class ThrottleSampler {
 public:
  // `label` names the migration in the log. The gate is set to the throttle's rate at once.
  ThrottleSampler(Throttler& throttler, HealthSource& source, MigrationBridge& bridge,
                  std::vector<std::string> tables, std::string label);
  // Stop().
  ~ThrottleSampler();
  ThrottleSampler(const ThrottleSampler&) = delete;
  ThrottleSampler& operator=(const ThrottleSampler&) = delete;

  // Samples every `interval` on a thread of its own until Stop, calling `after_tick` after each
  // round (the migrator copies the state into its snapshot).
  void Start(std::chrono::milliseconds interval, std::function<void()> after_tick = nullptr);
  // Ends the thread (at once: it waits on a condition) and removes the gate (opened first).
  void Stop();
  // Opens the gate for good (the migration halts: no reader waits out a throttled debt). Safe
  // from the sampler's own thread.
  void Open();
  // One round: sample, account for the cells taken, AIMD step, push the rate. What the thread
  // does; tests call it directly.
  void Tick();

 private:
  // Sets the gate to the throttle's rate, accounting the cells taken since the last push.
  void Push();
  void LogOnce(const std::string& problem);

  Throttler& throttler_;
  HealthSource& source_;
  MigrationBridge& bridge_;
  const std::vector<std::string> tables_;
  const std::string label_;
  std::set<std::string> logged_;
  bool gate_missing_logged_ = false;
  std::atomic<bool> opened_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace presplit::daemon::migrate
