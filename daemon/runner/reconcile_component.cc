#include "daemon/runner/reconcile_component.h"

#include <spdlog/spdlog.h>

#include "presplit/table_name.h"

namespace presplit::daemon {

namespace {

ReconcilerOptions ReconcilerOptionsOf(const DaemonContext& context, LeaseFence& lease) {
  ReconcilerOptions options;
  options.zk_root = context.options.zk_root;
  options.daemon_id = context.daemon_id;
  options.acls = context.zk_access.acls;
  options.lease = [&lease] { return lease.Check(); };
  options.stop = &context.stopping;
  return options;
}

}  // namespace

ReconcileComponent::ReconcileComponent(const DaemonContext& context, Links links)
    : context_(context),
      links_(std::move(links)),
      admin_(std::make_unique<ConnectOnDemandAdmin>(context.jvm, context.hbase_settings,
                                                    context.kerberos)),
      lease_(context.election, context.zk),
      reconciler_(lease_.zk(), *admin_, ReconcilerOptionsOf(context, lease_)),
      worker_("reconcile", std::chrono::seconds(context.options.resync_interval_s),
              [this](bool scheduled) { Pass(scheduled); }) {}

Status ReconcileComponent::Start() {
  worker_.Start();
  return Status::Ok();
}

void ReconcileComponent::Stop() { worker_.Stop(); }

void ReconcileComponent::Trigger(bool full) {
  if (full) full_pass_requested_ = true;
  worker_.Trigger();
}

std::pair<uint64_t, bool> ReconcileComponent::PermissionInputs() const {
  // What the needed permissions depend on: the documents, and whether a migration runs.
  return std::make_pair(reconciler_.counters().document_changes.load(),
                        links_.migrations_running && links_.migrations_running());
}

// The start-time permission check (permission_check.h): when this daemon becomes the leader, and
// again on the scheduled passes while something is missing or the check failed (a grant shows
// without a restart), or when the documents or the migrations changed since. Only /status,
// /metrics and the log report it: a document HBase refuses gets its own `error` status anyway,
// and the others are served.
void ReconcileComponent::CheckPermissions() {
  auto names = context_.zk.GetChildren(reconciler_.TablesPath(), /*watch=*/false);
  if (!names.ok()) {
    permissions_.Failed(names.status().WithContext("listing table documents").message(), WallMs());
    return;
  }
  std::vector<std::string> tables;
  for (const auto& name : *names) tables.push_back(CanonicalTableName(name));
  permissions_inputs_ = PermissionInputs();
  // Global ADMIN for replication peers only once a migration needs them.
  auto report = admin_->CheckPermissions(tables, /*replication=*/permissions_inputs_.second);
  if (!report.ok()) {
    permissions_.Failed(report.status().message(), WallMs());
    spdlog::warn("HBase permissions: the check failed, trying again on the next full pass: {}",
                 report.status().message());
    return;
  }
  const bool authorization = report->authorization;
  const int checked = report->checked;
  const size_t missing = report->missing.size();
  for (const auto& line : permissions_.Record(std::move(report).value(), WallMs())) {
    spdlog::warn("{}", line);
  }
  // The all-clear is logged when it is news, not on every check.
  const std::string summary = permissions_.Json()["summary"].get<std::string>();
  if (summary != permissions_logged_ && !authorization) {
    spdlog::info("HBase permissions: authorization off, not checked");
  } else if (summary != permissions_logged_ && missing == 0) {
    spdlog::info("HBase permissions: all {} presplitd needs are held", checked);
  }
  permissions_logged_ = summary;
}

void ReconcileComponent::Pass(bool scheduled) {
  LeaderElection& election = context_.election;
  Status s;
  try {
    // Only the leader runs passes; a standby that reached ZooKeeper and knows its place in the
    // election is healthy too.
    s = election.Refresh();
    const bool leading = s.ok() && election.IsLeader();
    if (leading && !was_leading_) {
      // Another daemon may have acted meanwhile: look at every document again, in full.
      reconciler_.ForgetHandled();
      full_pass_requested_ = true;
      permissions_due_ = true;
    }
    was_leading_ = leading;
    if (leading && !context_.may_call_hbase()) {
      // No HBase connection before the Kerberos login: /healthz says why, and the login worker
      // asks for a pass as soon as it succeeds.
      return;
    }
    if (leading) {
      s = prepared_ ? Status::Ok() : reconciler_.Prepare();
      if (s.ok()) {
        prepared_ = true;
        const bool full = scheduled || full_pass_requested_.exchange(false);
        if (permissions_due_ || (scheduled && (permissions_.NeedsRecheck() ||
                                               PermissionInputs() != permissions_inputs_))) {
          permissions_due_ = false;
          CheckPermissions();
        }
        admin_->PassStarted();
        s = reconciler_.ReconcileAll(full ? PassKind::kFull : PassKind::kChanged);
        if (s.ok()) admin_->PassFinished();
        if (links_.after_pass) links_.after_pass();
      }
      if (!s.ok() && !election.IsLeader()) {
        // Deposed during the pass: it stopped before acting; standing by is no failure.
        spdlog::info("reconcile pass stopped: {}", s.ToString());
        was_leading_ = false;
        s = Status::Ok();
      }
    }
  } catch (const std::exception& e) {
    exceptions_caught_++;
    s = Status::Internal(std::string("reconcile pass threw: ") + e.what());
    spdlog::error("{}", s.message());
  }
  std::lock_guard<std::mutex> lock(health_mu_);
  if (s.ok()) {
    last_success_ = std::chrono::steady_clock::now();
    last_error_.clear();
  } else {
    last_error_ = s.ToString();
    spdlog::warn("reconcile pass failed, retrying on the next event or in {} s: {}",
                 context_.resync_interval_s.load(), last_error_);
  }
}

std::string ReconcileComponent::Problem() const {
  std::string hbase = admin_->Problem(context_.stuck_after);
  if (!hbase.empty()) return hbase;
  if (context_.election.IsLeader()) {
    std::string denied = permissions_.Problem();
    if (!denied.empty()) return denied;
  }
  std::lock_guard<std::mutex> lock(health_mu_);
  if (!last_error_.empty()) return last_error_;
  auto stale = std::chrono::seconds(3 * context_.resync_interval_s.load() + 30);
  if (std::chrono::steady_clock::now() - last_success_ >= stale) return "no recent reconcile pass";
  return "";
}

void ReconcileComponent::AppendMetrics(metrics::MetricsText& out) const {
  using metrics::Metric;
  const auto& c = reconciler_.counters();
  out.Value(Metric::presplit_reconcile_passes_total, c.passes);
  out.Value(Metric::presplit_reconcile_full_passes_total, c.full_passes);
  out.Value(Metric::presplit_reconcile_pass_failures_total, c.pass_failures);
  out.Value(Metric::presplit_tables_created_total, c.tables_created);
  out.Value(Metric::presplit_documents_invalid_total, c.documents_invalid);
  out.Value(Metric::presplit_hbase_errors_total, c.hbase_errors);
  out.Value(Metric::presplit_drift_reports_total, c.drift_reports);
  out.Value(Metric::presplit_tables_missing_total, c.tables_missing);
  out.Value(Metric::presplit_statuses_removed_total, c.statuses_removed);
  out.Value(Metric::presplit_managed_tables, c.managed_tables);
  out.Value(Metric::presplit_permissions_missing, permissions_.missing());
  // Only the leader reconciles: a standby's counts would be the ones it last had as leader.
  if (context_.election.IsLeader()) {
    out.Family(Metric::presplit_tables);
    for (const auto& [phase, count] : reconciler_.PhaseCounts()) {
      out.Value(Metric::presplit_tables, {{"phase", phase}}, count);
    }
  }
}

void ReconcileComponent::AppendStatus(nlohmann::ordered_json& status) const {
  status["permissions"] = permissions_.Json();
}

uint64_t ReconcileComponent::exceptions_caught() const {
  return reconciler_.counters().exceptions_caught + exceptions_caught_;
}

}  // namespace presplit::daemon
