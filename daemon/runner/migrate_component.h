// The re-salting migrations (leader only), on a worker of their own with their own HBase
// connection and the jar's bridge: a copy runs for minutes and must not hold up the reconcile
// passes. The migrator runs a driver thread per migration (daemon/migrate/migrator.h); this
// component triggers its runs and reports on them in /status and /metrics.
#pragma once

#include <atomic>
#include <memory>

#include "daemon/leader/lease_fence.h"
#include "daemon/migrate/jni_migration_bridge.h"
#include "daemon/migrate/migrator.h"
#include "daemon/runner/component.h"
#include "daemon/runner/connect_on_demand_admin.h"
#include "daemon/runner/daemon_context.h"
#include "daemon/util/periodic_worker.h"

namespace presplit::daemon {

class MigrateComponent final : public Component {
 public:
  explicit MigrateComponent(const DaemonContext& context);
  // Drops the bridge's global references while the JVM is still there.
  ~MigrateComponent() override;

  std::string_view name() const override { return "migrate"; }
  Status Start() override;
  // Ends the runs, then the migrations' drivers (they saw `stopping`), before the connection
  // and the bridge they use go.
  void Stop() override;
  void AppendMetrics(metrics::MetricsText& out) const override;
  void AppendStatus(nlohmann::ordered_json& status) const override;
  uint64_t exceptions_caught() const override;

  // A run now (a reconcile pass may have started a migration).
  void Trigger() { worker_.Trigger(); }
  bool running() const { return !migrator_.Snapshot().empty(); }
  const migrate::MigratorCounters& counters() const { return migrator_.counters(); }

 private:
  void Run();

  const DaemonContext& context_;
  std::unique_ptr<ConnectOnDemandAdmin> admin_;
  std::unique_ptr<migrate::JniMigrationBridge> bridge_;
  LeaseFence lease_;
  migrate::Migrator migrator_;
  std::atomic<uint64_t> run_failures_{0};
  std::atomic<uint64_t> exceptions_caught_{0};
  PeriodicWorker worker_;  // last: its thread uses everything above
};

}  // namespace presplit::daemon
