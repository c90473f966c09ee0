#include "daemon/migrate/throttler.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace presplit::daemon::migrate {
namespace {

constexpr auto kWaitSlice = std::chrono::milliseconds(50);

std::string Number(double v) {
  char buf[32];
  if ((v == std::floor(v) && std::fabs(v) < 1e15) || std::fabs(v) >= 100) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3g", v);  // 0.95, 85.4
  }
  return buf;
}

// "<what> on <server>: <value> > <limit>"
std::string Over(const char* what, const std::string& server, double value, double limit,
                 const char* unit) {
  return std::string(what) + " on " + server + ": " + Number(value) + unit + " > " + Number(limit) +
         unit;
}

}  // namespace

std::string FirstSignal(const HealthSample& sample, const ThrottleSettings& s,
                        double probe_threshold_ms) {
  for (const ServerHealth& h : sample.servers) {
    if (h.call_queue_length && *h.call_queue_length > s.max_call_queue_length) {
      return Over("call queue", h.server, *h.call_queue_length, s.max_call_queue_length, "");
    }
    if (h.call_queue_time_ms && *h.call_queue_time_ms > s.max_call_queue_time_ms) {
      return Over("call queue time", h.server, *h.call_queue_time_ms, s.max_call_queue_time_ms,
                  " ms");
    }
    if (h.blocked_updates && *h.blocked_updates > s.max_blocked_updates) {
      return Over("blocked updates", h.server, *h.blocked_updates, s.max_blocked_updates, "");
    }
    if (h.memstore_pressure && *h.memstore_pressure > s.max_memstore_pressure) {
      return Over("memstore pressure", h.server, *h.memstore_pressure, s.max_memstore_pressure, "");
    }
    if (h.compaction_queue_length && *h.compaction_queue_length > s.max_compaction_queue_length) {
      return Over("compaction queue", h.server, *h.compaction_queue_length,
                  s.max_compaction_queue_length, "");
    }
    if (h.gc_pause_ms_per_s && *h.gc_pause_ms_per_s > s.max_gc_pause_ms_per_s) {
      return Over("GC pauses", h.server, *h.gc_pause_ms_per_s, s.max_gc_pause_ms_per_s, " ms/s");
    }
  }
  if (sample.probe_p99_ms && *sample.probe_p99_ms > probe_threshold_ms) {
    return "probe p99 " + Number(*sample.probe_p99_ms) + " ms > " + Number(probe_threshold_ms) +
           " ms";
  }
  return "";
}

Throttler::Throttler(ThrottleSettings settings, int64_t ceiling_cells_per_s, Time time)
    : settings_(settings), ceiling_(std::max<int64_t>(0, ceiling_cells_per_s)), time_(time) {
  std::lock_guard<std::mutex> lock(mu_);
  refilled_ = Now();
  if (!settings_.enabled) {
    rate_ = static_cast<double>(ceiling_);
    reason_ = ceiling_ > 0 ? "off (ceiling)" : "unlimited";
  } else {
    ApplyLocked(
        static_cast<double>(std::max(settings_.initial_cells_per_s, settings_.min_cells_per_s)),
        "opening");
  }
  tokens_ = rate_ * std::chrono::duration<double>(settings_.burst).count();
}

Throttler::Clock::time_point Throttler::Now() const {
  return time_.now ? time_.now() : Clock::now();
}

void Throttler::RefillLocked(Clock::time_point now) {
  if (now <= refilled_) return;
  const double elapsed = std::chrono::duration<double>(now - refilled_).count();
  refilled_ = now;
  if (rate_ <= 0) return;
  const double cap = rate_ * std::chrono::duration<double>(settings_.burst).count();
  tokens_ = std::min(cap, tokens_ + elapsed * rate_);
}

void Throttler::SetRateLocked(double rate, std::string reason) {
  RefillLocked(Now());  // what the old rate earned is kept at the old rate
  rate_ = rate;
  reason_ = std::move(reason);
  if (rate_ > 0) {
    tokens_ = std::min(tokens_, rate_ * std::chrono::duration<double>(settings_.burst).count());
  }
}

void Throttler::ApplyLocked(double wanted, std::string reason) {
  aimd_rate_ = wanted;
  if (ceiling_ > 0 && wanted >= static_cast<double>(ceiling_)) {
    aimd_rate_ = static_cast<double>(ceiling_);  // AIMD never runs ahead of the ceiling
    SetRateLocked(static_cast<double>(ceiling_), "ceiling");
    return;
  }
  SetRateLocked(wanted, std::move(reason));
}

void Throttler::Observe(const HealthSample& sample) {
  if (!settings_.enabled) return;
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = Now();
  // The probes are compared with the lowest p99 of the samples before this one: a cluster whose
  // small gets are slow anyway (a remote rack) does not hold the rate at the floor for it.
  const double probe_threshold =
      std::max(settings_.probe_min_ms, settings_.probe_factor * probe_baseline_ms_.value_or(0));
  if (sample.probe_p99_ms && *sample.probe_p99_ms > 0) {
    probe_baseline_ms_ =
        std::min(probe_baseline_ms_.value_or(*sample.probe_p99_ms), *sample.probe_p99_ms);
  }
  const std::string signal = FirstSignal(sample, settings_, probe_threshold);
  const double floor = static_cast<double>(std::max<int64_t>(1, settings_.min_cells_per_s));
  if (!signal.empty()) {
    last_observed_ = now;
    taken_ = 0;
    if (last_decrease_ && now - *last_decrease_ < settings_.decrease_interval) {
      // Decreased a moment ago: the servers have not seen the lower rate yet. The reason says
      // what they show now.
      reason_ = aimd_rate_ <= floor ? "floor: " + signal : signal;
      return;
    }
    last_decrease_ = now;
    const double lower = std::max(floor, aimd_rate_ * settings_.decrease_factor);
    ApplyLocked(lower, lower <= floor ? "floor: " + signal : signal);
    return;
  }
  if (sample.servers.empty() && !sample.probe_p99_ms) {
    reason_ = "holding: no health signal";
    return;  // nothing was measured: never open on missing data
  }
  // Opening beyond what the workers take would only bank headroom that a later signal has to
  // halve away step by step: the rate opens up to twice the cells taken since the last sample.
  const double elapsed =
      last_observed_ ? std::chrono::duration<double>(now - *last_observed_).count() : 0;
  const double taken_per_s = elapsed > 0 ? static_cast<double>(taken_) / elapsed : 0;
  last_observed_ = now;
  taken_ = 0;
  const double step = static_cast<double>(std::max<int64_t>(1, settings_.increase_cells_per_s));
  const double start =
      static_cast<double>(std::max(settings_.initial_cells_per_s, settings_.min_cells_per_s));
  if (elapsed > 0 && aimd_rate_ + step > std::max(2 * taken_per_s, start)) {
    const int64_t taken = std::llround(taken_per_s);
    ApplyLocked(aimd_rate_, "open: the workers take " + std::to_string(taken) + " cells/s");
    return;
  }
  ApplyLocked(aimd_rate_ + step, "opening");
}

void Throttler::ObserveMissing(const std::string& why) {
  if (!settings_.enabled) return;
  std::lock_guard<std::mutex> lock(mu_);
  reason_ = "holding: no health sample (" + why + ")";
}

bool Throttler::Acquire(int64_t cells, const std::function<bool()>& interrupted) {
  if (cells <= 0) return true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (rate_ <= 0) return true;
    RefillLocked(Now());
    taken_ += cells;
    tokens_ -= static_cast<double>(cells);
    if (tokens_ >= 0) return true;
  }
  while (true) {
    if (interrupted && interrupted()) return false;
    std::chrono::microseconds wait;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (rate_ <= 0) return true;  // the limit was lifted meanwhile
      RefillLocked(Now());
      if (tokens_ >= 0) return true;
      wait = std::chrono::microseconds(static_cast<int64_t>(std::ceil(-tokens_ / rate_ * 1e6)));
    }
    wait = std::clamp<std::chrono::microseconds>(wait, std::chrono::microseconds(1), kWaitSlice);
    if (time_.sleep) {
      time_.sleep(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
}

void Throttler::Taken(int64_t cells) {
  if (cells <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  taken_ += cells;
}

ThrottleState Throttler::State() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {static_cast<int64_t>(std::llround(rate_)), reason_};
}

int64_t Throttler::RatePerWorker(int workers) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (rate_ <= 0) return 0;
  return std::max<int64_t>(1, std::llround(rate_ / std::max(1, workers)));
}

}  // namespace presplit::daemon::migrate
