// The phases' adaptive throttles: see phase_throttles.h.
#include "daemon/migrate/phase_throttles.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon::migrate {

PhaseThrottle::~PhaseThrottle() {
  sampler.reset();
  if (on_end) on_end();
}

PhaseThrottles::PhaseThrottles(MigrationBridge& bridge, DriverControl& control,
                               const MigratorOptions& options, Show show)
    : bridge_(bridge), control_(control), options_(options), show_(std::move(show)) {}

PhaseThrottles::~PhaseThrottles() {
  std::map<std::string, std::unique_ptr<PhaseThrottle>> ended;
  {
    std::lock_guard<std::mutex> lock(job_throttles_mu_);
    ended.swap(job_throttles_);
  }
}

std::unique_ptr<HealthSource> PhaseThrottles::HealthOf(const MigrationPlan& plan) {
  if (options_.health_source) return options_.health_source(plan);
  return std::make_unique<BridgeHealthSource>(
      bridge_, std::vector<std::string>{plan.source, plan.target}, options_.throttle_probes);
}

ThrottleSettings PhaseThrottles::ThrottleOf(const MigrationPlan& plan) const {
  // The document's migration.throttle, when it says, over the daemon's migration_throttle.
  ThrottleSettings throttle = options_.throttle;
  if (!plan.throttle.empty()) throttle.enabled = plan.throttle == "adaptive";
  return throttle;
}

std::unique_ptr<PhaseThrottle> PhaseThrottles::Start(const MigrationPlan& plan) {
  auto t = std::make_unique<PhaseThrottle>();
  const ThrottleSettings throttle = ThrottleOf(plan);
  t->throttler = std::make_unique<Throttler>(throttle, plan.max_cells_per_s);
  t->source = HealthOf(plan);
  t->sampler = std::make_unique<ThrottleSampler>(*t->throttler, *t->source, bridge_,
                                                 std::vector<std::string>{plan.source, plan.target},
                                                 plan.table);
  if (throttle.enabled) {
    const Throttler* throttler = t->throttler.get();
    const std::string table = plan.table;
    ThrottleSampler* sampler = t->sampler.get();
    t->sampler->Start(options_.throttle_interval, [this, table, throttler, sampler] {
      show_(table, throttler);
      // A halted migration's readers must not wait out a throttled debt before they see it.
      if (control_.Halted()) sampler->Open();
    });
  }
  show_(plan.table, t->throttler.get());
  t->on_end = [this, table = plan.table] { show_(table, nullptr); };
  const ThrottleState state = t->throttler->State();
  spdlog::info("migration {}: throttle: {} ({})", plan.table,
               state.cells_per_s > 0 ? std::to_string(state.cells_per_s) + " cells/s to start"
                                     : std::string("unlimited"),
               state.reason);
  return t;
}

void PhaseThrottles::PaceBulkJob(const MigrationPlan& plan, bool paced) {
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
  std::unique_ptr<PhaseThrottle> started = Start(plan);
  std::lock_guard<std::mutex> lock(job_throttles_mu_);
  job_throttles_[plan.table] = std::move(started);
}

std::string PhaseThrottles::ServersBusy(const MigrationPlan& plan) {
  const ThrottleSettings throttle = ThrottleOf(plan);
  if (!throttle.enabled) return "";
  std::unique_ptr<HealthSource> source = HealthOf(plan);
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
