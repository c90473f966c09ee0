// The adaptive throttle of the phases that read or write (copy, verification, the final check
// before a drop, a "mapreduce" job reading the live source): one throttler per running phase, fed
// by a sampler thread, its rate in the bridge's gate (which every copy chunk and verification read
// of the migration takes from) and in the migration's snapshot.
#include <spdlog/spdlog.h>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {

Migrator::PhaseThrottle::~PhaseThrottle() {
  sampler.reset();
  if (on_end) on_end();
}

ThrottleSettings Migrator::ThrottleOf(const MigrationPlan& plan) const {
  // The document's migration.throttle, when it says, over the daemon's migration_throttle.
  ThrottleSettings throttle = options_.throttle;
  if (!plan.throttle.empty()) throttle.enabled = plan.throttle == "adaptive";
  return throttle;
}

std::unique_ptr<Migrator::PhaseThrottle> Migrator::StartThrottle(const MigrationPlan& plan) {
  auto t = std::make_unique<PhaseThrottle>();
  const ThrottleSettings throttle = ThrottleOf(plan);
  t->throttler = std::make_unique<Throttler>(throttle, plan.max_cells_per_s);
  t->source = options_.health_source
                  ? options_.health_source(plan)
                  : std::make_unique<BridgeHealthSource>(
                        bridge_, std::vector<std::string>{plan.source, plan.target},
                        options_.throttle_probes);
  t->sampler = std::make_unique<ThrottleSampler>(*t->throttler, *t->source, bridge_,
                                                 std::vector<std::string>{plan.source, plan.target},
                                                 plan.table);
  if (throttle.enabled) {
    const Throttler* throttler = t->throttler.get();
    const std::string table = plan.table;
    ThrottleSampler* sampler = t->sampler.get();
    t->sampler->Start(options_.throttle_interval, [this, table, throttler, sampler] {
      SnapshotThrottle(table, throttler);
      // A halted migration's readers must not wait out a throttled debt before they see it.
      if (Halted()) sampler->Open();
    });
  }
  SnapshotThrottle(plan.table, t->throttler.get());
  t->on_end = [this, table = plan.table] { SnapshotThrottle(table, nullptr); };
  const ThrottleState state = t->throttler->State();
  spdlog::info("migration {}: throttle: {} ({})", plan.table,
               state.cells_per_s > 0 ? std::to_string(state.cells_per_s) + " cells/s to start"
                                     : std::string("unlimited"),
               state.reason);
  return t;
}

void Migrator::PaceBulkJob(const MigrationPlan& plan, bool paced) {
  std::unique_ptr<PhaseThrottle> ended;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(job_throttles_mu_);
    auto running = job_throttles_.find(plan.table);
    if (paced == (running != job_throttles_.end())) return;
    if (!paced) {
      ended = std::move(running->second);
      job_throttles_.erase(running);
    }
  }
  if (ended) {
    spdlog::info("migration {}: bulk copy: the job's throttle ended", plan.table);
    return;
  }
  // Started outside the lock too (its first sample reads the servers); only this plan's driver
  // calls this for its table, so nobody starts a second one meanwhile.
  spdlog::info(
      "migration {}: bulk copy: the job's map tasks read the live table through the adaptive "
      "throttle's gate",
      plan.table);
  std::unique_ptr<PhaseThrottle> started = StartThrottle(plan);
  std::lock_guard<std::mutex> lock(job_throttles_mu_);
  job_throttles_[plan.table] = std::move(started);
}

void Migrator::SnapshotThrottle(const std::string& table, const Throttler* throttler) {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  MigrationProgress& p = snapshot_[table];
  if (throttler == nullptr) {
    p.throttle_cells_per_s = -1;
    p.throttle_reason.clear();
    return;
  }
  const ThrottleState state = throttler->State();
  p.throttle_cells_per_s = state.cells_per_s;
  p.throttle_reason = state.reason;
}

std::string Migrator::ServersBusy(const MigrationPlan& plan) {
  const ThrottleSettings throttle = ThrottleOf(plan);
  if (!throttle.enabled) return "";
  std::unique_ptr<HealthSource> source =
      options_.health_source ? options_.health_source(plan)
                             : std::make_unique<BridgeHealthSource>(
                                   bridge_, std::vector<std::string>{plan.source, plan.target},
                                   options_.throttle_probes);
  std::vector<std::string> problems;
  auto sample = source->Sample(problems);
  if (!sample.ok()) {
    spdlog::warn("migration {}: bulk copy: no health sample of the RegionServers ({}): going on",
                 plan.table, sample.status().message());
    return "";
  }
  return FirstSignal(*sample, throttle, throttle.probe_min_ms);
}

}  // namespace presplit::daemon::migrate
