#include "daemon/runner/migrate_component.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace presplit::daemon {

namespace {

migrate::MigratorOptions MigratorOptionsOf(const DaemonContext& context, LeaseFence& lease,
                                           ConnectOnDemandAdmin& admin) {
  const DaemonOptions& options = context.options;
  migrate::MigratorOptions m;
  m.zk_root = options.zk_root;
  m.daemon_id = context.daemon_id;
  m.acls = context.zk_access.acls;
  m.lease = [&lease] { return lease.Check(); };
  m.stop = &context.stopping;
  m.chunk_rows = options.migration_chunk_rows;
  m.hfile_chunk_rows = options.migration_hfile_chunk_rows;
  m.bulk_staging_dir = options.migration_staging_dir;
  m.hfile_source_snapshot = options.migration_hfile_source == "snapshot";
  m.hadoop_conf_dir = options.hadoop_conf_dir;
  m.hbase_conf_dir = options.hbase_conf_dir;
  m.hbase_settings = context.hbase_settings;
  m.mapreduce_threshold_bytes = options.migration_mapreduce_threshold_bytes;
  if (auto heap = ParseByteCount("jvm_max_heap", options.jvm_max_heap); heap.ok()) {
    m.jvm_max_heap_bytes = *heap;
  }
  m.max_concurrent_migrations = options.migration_max_concurrent;
  m.throttle = ThrottleSettingsOf(options);
  m.table_bytes = [&admin](const std::string& table) -> Result<int64_t> {
    // What the RegionServers last reported: store files and memstores of every region.
    PRESPLIT_ASSIGN_OR_RETURN(auto loads, admin.RegionLoads({table}));
    if (loads.empty()) return Status::Unavailable("no RegionServer reports a region of " + table);
    int64_t bytes = 0;
    for (const auto& region : loads) bytes += region.store_file_bytes + region.memstore_bytes;
    return bytes;
  };
  return m;
}

}  // namespace

MigrateComponent::MigrateComponent(const DaemonContext& context)
    : context_(context),
      admin_(std::make_unique<ConnectOnDemandAdmin>(context.jvm, context.hbase_settings,
                                                    context.kerberos)),
      bridge_(std::make_unique<migrate::JniMigrationBridge>(context.jvm, context.hbase_settings)),
      lease_(context.election, context.zk),
      migrator_(lease_.zk(), *admin_, *bridge_, MigratorOptionsOf(context, lease_, *admin_)),
      worker_("migrate", std::chrono::seconds(std::max(1, context.options.migration_interval_s)),
              [this](bool /*scheduled*/) { Run(); }) {}

MigrateComponent::~MigrateComponent() {
  worker_.Stop();
  migrator_.Stop();
}

Status MigrateComponent::Start() {
  worker_.Start();
  return Status::Ok();
}

void MigrateComponent::Stop() {
  worker_.Stop();
  migrator_.Stop();
}

void MigrateComponent::Run() {
  try {
    if (!context_.election.IsLeader()) return;
    if (!context_.may_call_hbase()) return;
    Status s = migrator_.RunOnce();
    if (!s.ok() && context_.election.IsLeader() && !context_.stopping) {
      ++run_failures_;
      spdlog::warn("migrations: run failed, retrying in {} s: {}",
                   context_.options.migration_interval_s, s.ToString());
    }
  } catch (const std::exception& e) {
    exceptions_caught_++;
    spdlog::error("migrations: run threw, retrying on the next one: {}", e.what());
  }
}

void MigrateComponent::AppendStatus(nlohmann::ordered_json& status) const {
  status["migrations"] = nlohmann::ordered_json::array();
  for (const auto& m : migrator_.Snapshot()) {
    nlohmann::ordered_json entry;
    entry["table"] = m.table;
    entry["source"] = m.source;
    entry["target"] = m.target;
    entry["target_generation"] = m.target_generation;
    entry["phase"] = migrate::PhaseName(m.phase);
    entry["paused"] = m.paused;
    // The capture peers' lag, as HBase last reported it (empty: none running).
    entry["capture"] = nlohmann::ordered_json::array();
    for (const auto& c : m.capture) {
      entry["capture"].push_back(
          {{"peer", c.peer_id},
           {"lag_s", static_cast<double>(c.lag_ms) / 1000.0},
           {"age_of_last_shipped_s", static_cast<double>(c.age_of_last_shipped_ms) / 1000.0},
           {"wal_queue_files", c.wal_queue_files},
           {"sources", c.sources}});
    }
    entry["regions_done"] = m.regions_done;
    entry["regions_total"] = m.regions_total;
    entry["rows"] = m.rows;
    entry["cells"] = m.cells;
    entry["rows_per_s"] = m.rows_per_s;
    entry["eta_s"] =
        m.eta_s < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.eta_s);
    if (m.throttle_cells_per_s >= 0) {
      entry["throttle"] = {{"cells_per_s", m.throttle_cells_per_s}, {"reason", m.throttle_reason}};
    }
    entry["error"] =
        m.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.error);
    status["migrations"].push_back(std::move(entry));
  }
}

void MigrateComponent::AppendMetrics(metrics::MetricsText& out) const {
  using metrics::Metric;
  const auto& m = migrator_.counters();
  out.Value(Metric::presplit_migration_rows_copied_total, m.rows_copied);
  out.Value(Metric::presplit_migration_cells_copied_total, m.cells_copied);
  out.Value(Metric::presplit_migration_chunks_total, m.chunks_copied);
  out.Value(Metric::presplit_migration_capture_probes_total, m.probes);
  out.Value(Metric::presplit_migration_rows_rechecked_total, m.rows_rechecked);
  out.Value(Metric::presplit_migration_rollbacks_total, m.rollbacks);
  out.Value(Metric::presplit_migration_plans_refused_total, m.plans_refused);
  out.Value(Metric::presplit_migration_verification_failures_total, m.verification_failures);
  out.Value(Metric::presplit_migration_switches_total, m.switches);
  out.Value(Metric::presplit_migration_completed_total, m.completed);
  out.Value(Metric::presplit_migration_aborted_total, m.aborted);
  out.Value(Metric::presplit_migration_run_failures_total, run_failures_ + m.errors);
  out.Value(Metric::presplit_migration_orphan_peers_removed_total, m.orphan_peers_removed);
  out.Value(Metric::presplit_migration_orphan_peers, m.orphan_peers_left);
  const auto migrations = migrator_.Snapshot();
  out.Family(Metric::presplit_migration_capture_lag_seconds);
  for (const auto& p : migrations) {
    for (const auto& lag : p.capture) {
      out.Value(Metric::presplit_migration_capture_lag_seconds,
                {{"table", p.table}, {"peer", lag.peer_id}},
                static_cast<double>(lag.lag_ms) / 1000.0);
    }
  }
  out.Family(Metric::presplit_migration_capture_wal_queue_files);
  for (const auto& p : migrations) {
    for (const auto& lag : p.capture) {
      out.Value(Metric::presplit_migration_capture_wal_queue_files,
                {{"table", p.table}, {"peer", lag.peer_id}}, lag.wal_queue_files);
    }
  }
  // The phases' numbers come from the phase table, whatever phases it has.
  std::string phases;
  for (int i = 0; i < migrate::kPhaseCount; ++i) {
    phases += (i == 0 ? ": " : ", ") + std::to_string(i) + " " +
              migrate::PhaseName(static_cast<migrate::Phase>(i));
  }
  out.Family(Metric::presplit_migration_phase, phases);
  for (const auto& p : migrations) {
    out.Value(Metric::presplit_migration_phase,
              {{"table", p.table}, {"phase", migrate::PhaseName(p.phase)}},
              static_cast<int>(p.phase));
  }
  out.Family(Metric::presplit_migration_regions_done);
  for (const auto& p : migrations) {
    out.Value(Metric::presplit_migration_regions_done, {{"table", p.table}}, p.regions_done);
  }
  out.Family(Metric::presplit_migration_regions_total);
  for (const auto& p : migrations) {
    out.Value(Metric::presplit_migration_regions_total, {{"table", p.table}}, p.regions_total);
  }
  out.Family(Metric::presplit_migration_rows);
  for (const auto& p : migrations) {
    out.Value(Metric::presplit_migration_rows, {{"table", p.table}}, p.rows);
  }
  out.Family(Metric::presplit_migration_throttle_cells_per_s);
  for (const auto& p : migrations) {
    if (p.throttle_cells_per_s < 0) continue;  // no copy or verification running
    out.Value(Metric::presplit_migration_throttle_cells_per_s, {{"table", p.table}},
              p.throttle_cells_per_s);
  }
}

uint64_t MigrateComponent::exceptions_caught() const {
  return migrator_.counters().exceptions_caught + exceptions_caught_;
}

}  // namespace presplit::daemon
