// The reconcile worker: it keeps this daemon's place in the leader election and, while it leads,
// runs the reconcile passes (tables created pre-split, statuses written) and the start-time
// permission check. Its HBase connection is its own. Unhealthy while HBase does not answer, the
// permissions presplitd needs are missing (leader only), the last pass failed or none ran lately.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "daemon/hbase/permission_check.h"
#include "daemon/leader/lease_fence.h"
#include "daemon/reconcile/reconciler.h"
#include "daemon/runner/component.h"
#include "daemon/runner/connect_on_demand_admin.h"
#include "daemon/runner/daemon_context.h"
#include "daemon/util/periodic_worker.h"

namespace presplit::daemon {

class ReconcileComponent final : public Component {
 public:
  struct Links {
    // A pass may have started a migration: drive it now, not at the next interval.
    std::function<void()> after_pass;
    // Whether a migration is under way (replication permissions are needed only then).
    std::function<bool()> migrations_running;
  };

  ReconcileComponent(const DaemonContext& context, Links links);

  std::string_view name() const override { return "reconcile"; }
  Status Start() override;
  void Stop() override;
  std::string Problem() const override;
  void AppendMetrics(metrics::MetricsText& out) const override;
  void AppendStatus(nlohmann::ordered_json& status) const override;
  uint64_t exceptions_caught() const override;

  // A pass now (a ZooKeeper event, the Kerberos login); `full` looks at every document.
  void Trigger(bool full = false);
  void SetInterval(std::chrono::seconds interval) { worker_.SetInterval(interval); }

  const Reconciler& reconciler() const { return reconciler_; }
  std::string TablesPath() const { return reconciler_.TablesPath(); }

 private:
  void Pass(bool scheduled);
  void CheckPermissions();
  std::pair<uint64_t, bool> PermissionInputs() const;

  const DaemonContext& context_;
  const Links links_;
  std::unique_ptr<ConnectOnDemandAdmin> admin_;
  LeaseFence lease_;
  Reconciler reconciler_;
  PermissionState permissions_;
  std::pair<uint64_t, bool> permissions_inputs_{0, false};  // at the last check
  std::string permissions_logged_;                          // the summary the log last had
  bool prepared_ = false;                                   // worker only
  bool was_leading_ = false;                                // worker only
  bool permissions_due_ = false;                            // worker only
  std::atomic<bool> full_pass_requested_{false};
  std::atomic<uint64_t> exceptions_caught_{0};
  mutable std::mutex health_mu_;
  std::string last_error_ = "no reconcile pass yet";
  std::chrono::steady_clock::time_point last_success_ =
      std::chrono::steady_clock::time_point::min();
  PeriodicWorker worker_;  // last: its thread uses everything above
};

}  // namespace presplit::daemon
