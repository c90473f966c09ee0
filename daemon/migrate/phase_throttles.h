// The adaptive throttle of the phases that read or write (copy, verification, the final check
// before a drop, a "mapreduce" job reading the live source): one throttler per running phase, fed
// by a sampler thread, its rate in the bridge's gate (which every copy chunk and verification read
// of the migration takes from) and shown through a callback (the migration's snapshot).
//
// A service of the phases. Thread-safe: the drivers of several migrations share it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"
#include "daemon/migrate/migrator_options.h"
#include "daemon/migrate/throttle_sampler.h"
#include "daemon/migrate/throttler.h"

namespace presplit::daemon::migrate {

// The throttle of one phase of a plan: sampling on a thread of its own, its rate in the bridge's
// gate and shown, until it is destroyed (which removes the gate and shows none).
struct PhaseThrottle {
  std::unique_ptr<Throttler> throttler;
  std::unique_ptr<HealthSource> source;
  std::unique_ptr<ThrottleSampler> sampler;
  std::function<void()> on_end;  // shows that the throttle ended
  // The sampler first (it uses the other two), then on_end.
  ~PhaseThrottle();
};

class PhaseThrottles {
 public:
  // Where a throttle's state is shown (a throttle that ended: nullptr). Called from the sampler's
  // thread and from the phase's.
  using Show = std::function<void(const std::string& table, const Throttler* throttler)>;

  PhaseThrottles(MigrationBridge& bridge, DriverControl& control, const MigratorOptions& options,
                 Show show);
  // Ends the bulk jobs' throttles.
  ~PhaseThrottles();
  PhaseThrottles(const PhaseThrottles&) = delete;
  PhaseThrottles& operator=(const PhaseThrottles&) = delete;

  // A throttle for one phase of the plan, running until the result is destroyed.
  std::unique_ptr<PhaseThrottle> Start(const MigrationPlan& plan);
  // The daemon's throttle settings with the document's migration.throttle (when set) deciding
  // whether it is on.
  ThrottleSettings ThrottleOf(const MigrationPlan& plan) const;
  // Engine "mapreduce": keeps a throttle running for the plan's job while `paced` (its map tasks
  // take from the gate), or ends it. Not called where showing a throttle would deadlock (ending
  // one shows it ended).
  void PaceBulkJob(const MigrationPlan& plan, bool paced);
  // Engine "mapreduce": the first signal one health sample of the servers shows ("" when clear,
  // or when no sample could be taken): the job is not submitted, nor its output loaded, while
  // the servers are busy.
  std::string ServersBusy(const MigrationPlan& plan);

 private:
  std::unique_ptr<HealthSource> HealthOf(const MigrationPlan& plan);

  MigrationBridge& bridge_;
  DriverControl& control_;
  const MigratorOptions& options_;
  const Show show_;
  // The throttles of running "mapreduce" jobs whose tasks take from the gate, by table.
  std::mutex job_throttles_mu_;
  std::map<std::string, std::unique_ptr<PhaseThrottle>> job_throttles_;
};

}  // namespace presplit::daemon::migrate
