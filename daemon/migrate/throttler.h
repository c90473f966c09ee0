// The adaptive throttle of a re-salt migration: how many cells per second its copy and
// verification may read and write, decided from the health of the RegionServers that hold the
// source and the target, so that the application's own requests keep their latency.
//
// AIMD, as TCP's congestion control, Vitess's throttler and TiKV's flow control do it: each
// health sample (about one a second, from a HealthSource on a thread of the migration's own)
// either shows a signal over its threshold, and the rate is multiplied by decrease_factor, or
// shows every signal clear, and the rate grows by increase_cells_per_s. A sample that could not
// be taken is no signal: the rate holds where it is (it never opens on missing data). The rate
// never falls below the floor (a migration always progresses) and never rises above the
// ceiling (the document's max_cells_per_s, 0 = none), nor beyond twice what the workers took
// since the last sample (headroom nobody uses would have to be halved away step by step once a
// signal comes).
//
// The copy and verification workers take their permits from a token bucket at the current rate
// (Acquire): a worker pays for the cells it is about to move, or has just moved, and waits while
// the bucket is in debt, so the sum of all workers' cells follows the rate whatever each worker's
// share. Waiting is in slices, asking `interrupted` between them: a halted migration never hangs
// on its throttle.
//
// Pure: no I/O; the clock (and the wait) are injected, so tests run on a fake clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace presplit::daemon::migrate {

// One RegionServer's health in one sample. Unset fields are signals the source could not read
// (a JMX port it may not reach, a metric HBase did not publish): they are no signal, not "clear".
struct ServerHealth {
  std::string server;                             // "host" or "host:port", for the reason
  std::optional<double> call_queue_length;        // calls waiting in the general call queue
  std::optional<double> call_queue_time_ms;       // time a call waited in the queue (p99)
  std::optional<double> blocked_updates;          // updates blocked (memstore full) this interval
  std::optional<double> memstore_pressure;        // memstores / their global limit, 0..1
  std::optional<double> compaction_queue_length;  // compactions waiting
  std::optional<double> gc_pause_ms_per_s;        // GC time per second of this interval
};

struct HealthSample {
  std::vector<ServerHealth> servers;
  // The throttler's own probe reads (small gets against source and target): their p99 in ms.
  std::optional<double> probe_p99_ms;
};

struct ThrottleSettings {
  bool enabled = true;  // false: the ceiling alone (0: unlimited)
  int64_t initial_cells_per_s = 5000;
  int64_t min_cells_per_s = 200;        // the floor
  int64_t increase_cells_per_s = 1000;  // additive increase per clear sample
  double decrease_factor = 0.5;         // multiplicative decrease per signal
  // At most one decrease per this long: a queue that built up needs a moment to drain after the
  // rate fell, and halving on every sample meanwhile would overshoot to the floor.
  std::chrono::milliseconds decrease_interval{2000};
  // Thresholds: a value above one is a signal.
  double max_call_queue_length = 10;
  double max_call_queue_time_ms = 20;
  double max_blocked_updates = 0;
  double max_memstore_pressure = 0.9;
  double max_compaction_queue_length = 20;
  // One young-generation pause of 60-130 ms every few seconds was what raised the application's
  // p99 most during a copy (bench/RESULTS.md): a single pause of more than 50 ms within a sample's
  // second is a signal.
  double max_gc_pause_ms_per_s = 50;
  // The probes' p99 is a signal above max(probe_min_ms, probe_factor x the lowest p99 seen): a
  // probe's latency is relative to what the cluster answers when the copy is slow. The probes are
  // ten a second over the last 2 s (ClusterHealth), so their p99 is the slowest of about 20 reads:
  // a floor of 5 ms lets 3 x the calm value decide (8 ms on the development host, where 20 ms let
  // the copy hold the application's p99 at 2.6x-3x: bench/RESULTS.md).
  double probe_min_ms = 5;
  double probe_factor = 3;
  // Burst: the bucket holds at most this long's worth of cells at the current rate.
  std::chrono::milliseconds burst{1000};
};

// What the throttle allows now, and why.
struct ThrottleState {
  int64_t cells_per_s = 0;  // 0: unlimited (no throttle and no ceiling)
  // "ceiling", "opening", "call queue on rs1: 37 > 10", "probe p99 85 ms > 20 ms", "floor: ...",
  // "open: the workers take N cells/s", "holding: no health sample (...)", "unlimited",
  // "off (ceiling)".
  std::string reason;
};

class Throttler {
 public:
  using Clock = std::chrono::steady_clock;
  struct Time {
    std::function<Clock::time_point()> now;                // unset: the steady clock
    std::function<void(std::chrono::microseconds)> sleep;  // unset: this thread sleeps
  };

  // `ceiling_cells_per_s`: the document's max_cells_per_s (0 = none).
  Throttler(ThrottleSettings settings, int64_t ceiling_cells_per_s, Time time = {});
  Throttler(const Throttler&) = delete;
  Throttler& operator=(const Throttler&) = delete;

  // One AIMD step from a health sample (the sampler thread).
  void Observe(const HealthSample& sample);
  // Cells the workers took outside Acquire (the bridge's gate paces them inside the JVM): they
  // count for how far the rate may open, like acquired ones.
  void Taken(int64_t cells);
  // A sample that could not be taken: the rate holds; `why` goes into the reason.
  void ObserveMissing(const std::string& why);

  // Takes `cells` permits: returns at once while the bucket holds them, else waits (in slices of
  // at most 50 ms, asking `interrupted` between them) until the rate has paid for them. False
  // when interrupted first (the permits stay taken: the work they stood for is not done, and a
  // halted migration does not care). Never waits with no rate (unlimited). Thread-safe.
  bool Acquire(int64_t cells, const std::function<bool()>& interrupted = nullptr);

  ThrottleState State() const;
  // The current rate shared by `workers` (at least 1 each; 0 = unlimited), for a call that paces
  // itself inside (the bridge's chunk copy).
  int64_t RatePerWorker(int workers) const;

 private:
  Clock::time_point Now() const;
  void RefillLocked(Clock::time_point now);
  void SetRateLocked(double rate, std::string reason);
  // The rate capped by the ceiling, with "ceiling" as the reason when it caps.
  void ApplyLocked(double wanted, std::string reason);

  const ThrottleSettings settings_;
  const int64_t ceiling_;
  Time time_;
  mutable std::mutex mu_;
  double aimd_rate_ = 0;  // what AIMD wants (before the ceiling)
  double rate_ = 0;       // in force: 0 = unlimited
  std::string reason_;
  double tokens_ = 0;  // may be negative: a debt the workers wait for
  Clock::time_point refilled_;
  std::optional<Clock::time_point> last_decrease_;
  std::optional<double> probe_baseline_ms_;
  int64_t taken_ = 0;  // cells acquired since the last sample
  std::optional<Clock::time_point> last_observed_;
};

// The first signal of a sample over its threshold ("call queue on rs1: 37 > 10"), "" when every
// signal is clear. `probe_threshold_ms` is the probes' threshold in force.
std::string FirstSignal(const HealthSample& sample, const ThrottleSettings& settings,
                        double probe_threshold_ms);

}  // namespace presplit::daemon::migrate
