#include "daemon/migrate/throttle_sampler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

std::optional<double> Number(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

}  // namespace

Result<HealthSample> ParseClusterHealth(const std::string& text,
                                        std::map<std::string, HealthTotals>& totals,
                                        std::chrono::steady_clock::time_point now,
                                        std::vector<std::string>& problems) {
  const json doc = json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("servers") || !doc["servers"].is_array()) {
    return Status::InvalidArgument("a health sample must be an object with a \"servers\" array");
  }
  HealthSample sample;
  std::string first_error;
  for (const json& s : doc["servers"]) {
    if (!s.is_object() || !s.contains("server") || !s["server"].is_string()) {
      return Status::InvalidArgument("a health sample's server must be an object with a name");
    }
    const std::string name = s["server"].get<std::string>();
    if (s.contains("error") && s["error"].is_string()) {
      const std::string error = name + ": " + s["error"].get<std::string>();
      problems.push_back(error);
      if (first_error.empty()) first_error = error;
      totals.erase(name);  // the next interval starts again
      continue;
    }
    ServerHealth h;
    h.server = name;
    h.call_queue_length = Number(s, "call_queue_length");
    h.call_queue_time_ms = Number(s, "queue_call_time_p99_ms");
    h.compaction_queue_length = Number(s, "compaction_queue_length");
    const auto memstore = Number(s, "memstore_bytes");
    const auto limit = Number(s, "memstore_limit_bytes");
    if (memstore && limit && *limit > 0) h.memstore_pressure = *memstore / *limit;
    // Running totals into this interval's values; a total that went down is a restarted server.
    HealthTotals next;
    next.at = now;
    next.blocked_requests = Number(s, "blocked_requests").value_or(-1);
    next.gc_time_ms = Number(s, "gc_time_ms").value_or(-1);
    auto before = totals.find(name);
    if (before != totals.end()) {
      const HealthTotals& b = before->second;
      const double seconds = std::chrono::duration<double>(now - b.at).count();
      if (b.blocked_requests >= 0 && next.blocked_requests >= b.blocked_requests) {
        h.blocked_updates = next.blocked_requests - b.blocked_requests;
      }
      if (b.gc_time_ms >= 0 && next.gc_time_ms >= b.gc_time_ms && seconds > 0) {
        h.gc_pause_ms_per_s = (next.gc_time_ms - b.gc_time_ms) / seconds;
      }
    }
    totals[name] = next;
    sample.servers.push_back(std::move(h));
  }
  std::vector<double> probes;
  if (doc.contains("probes_ms") && doc["probes_ms"].is_array()) {
    for (const json& p : doc["probes_ms"]) {
      if (p.is_number() && std::isfinite(p.get<double>())) probes.push_back(p.get<double>());
    }
  }
  const int64_t probe_errors = doc.value("probe_errors", int64_t{0});
  if (probe_errors > 0) {
    problems.push_back(std::to_string(probe_errors) + " of " + std::to_string(probes.size()) +
                       " probe reads failed");
  }
  if (!probes.empty()) {
    std::sort(probes.begin(), probes.end());
    const size_t rank = static_cast<size_t>(std::ceil(0.99 * probes.size()));
    sample.probe_p99_ms = probes[std::clamp<size_t>(rank, 1, probes.size()) - 1];
  }
  if (sample.servers.empty() && !sample.probe_p99_ms) {
    return Status::Unavailable(first_error.empty()
                                   ? "no server holds the tables"
                                   : "no server could be read (" + first_error + ")");
  }
  return sample;
}

BridgeHealthSource::BridgeHealthSource(MigrationBridge& bridge, std::vector<std::string> tables,
                                       int probes)
    : bridge_(bridge), tables_(std::move(tables)), probes_(probes) {}

Result<HealthSample> BridgeHealthSource::Sample(std::vector<std::string>& problems) {
  auto text = bridge_.ClusterHealth(tables_, probes_);
  if (!text.ok()) return text.status();
  return ParseClusterHealth(*text, totals_, std::chrono::steady_clock::now(), problems);
}

ThrottleSampler::ThrottleSampler(Throttler& throttler, HealthSource& source,
                                 MigrationBridge& bridge, std::vector<std::string> tables,
                                 std::string label)
    : throttler_(throttler),
      source_(source),
      bridge_(bridge),
      tables_(std::move(tables)),
      label_(std::move(label)) {
  Push();
}

ThrottleSampler::~ThrottleSampler() { Stop(); }

void ThrottleSampler::Start(std::chrono::milliseconds interval, std::function<void()> after_tick) {
  thread_ = std::thread([this, interval, after_tick] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, interval, [this] { return stop_; })) {
      lock.unlock();
      try {
        Tick();
        if (after_tick) after_tick();
      } catch (const std::exception& e) {
        LogOnce(std::string("internal error: ") + e.what());
      }
      lock.lock();
    }
  });
}

void ThrottleSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  auto removed = bridge_.SetThrottle(tables_, -1);
  if (removed.ok()) throttler_.Taken(*removed);
}

void ThrottleSampler::Tick() {
  std::vector<std::string> problems;
  auto sample = source_.Sample(problems);
  for (const auto& p : problems) LogOnce(p);
  Push();  // the cells taken at the old rate count for this step
  const ThrottleState before = throttler_.State();
  if (sample.ok()) {
    throttler_.Observe(*sample);
  } else {
    LogOnce("no health sample: " + sample.status().message());
    throttler_.ObserveMissing(sample.status().message());
  }
  const ThrottleState after = throttler_.State();
  if (after.cells_per_s < before.cells_per_s) {
    spdlog::info("migration {}: throttle: {} cells/s ({})", label_, after.cells_per_s,
                 after.reason);
  }
  Push();
}

void ThrottleSampler::Open() {
  opened_ = true;
  Push();
}

void ThrottleSampler::Push() {
  const int64_t rate = opened_ ? 0 : throttler_.State().cells_per_s;
  auto taken = bridge_.SetThrottle(tables_, rate);
  if (!taken.ok()) {
    if (!gate_missing_logged_) {
      gate_missing_logged_ = true;
      spdlog::warn(
          "migration {}: throttle: the bridge's gate cannot be set ({}): the copy runs at the "
          "ceiling alone",
          label_, taken.status().message());
    }
    return;
  }
  throttler_.Taken(*taken);
}

void ThrottleSampler::LogOnce(const std::string& problem) {
  // Bounded: a message that varies (counts, addresses) must not grow the set without end.
  if (logged_.size() >= 64 || !logged_.insert(problem).second) return;
  spdlog::warn("migration {}: throttle: {} (no signal from it; logged once)", label_, problem);
}

}  // namespace presplit::daemon::migrate
