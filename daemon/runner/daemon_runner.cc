#include "daemon/runner/daemon_runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "daemon/hbase/jni_hbase_admin.h"
#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/kerberos_login.h"
#include "daemon/hbase/permission_check.h"
#include "daemon/http/http_endpoint.h"
#include "daemon/keyviz/keyviz_query.h"
#include "daemon/keyviz/load_history.h"
#include "daemon/keyviz/load_samples.h"
#include "daemon/leader/leader_election.h"
#include "daemon/leader/lease_fence.h"
#include "daemon/migrate/jni_migration_bridge.h"
#include "daemon/metrics/metrics_text.h"
#include "daemon/migrate/migrator.h"
#include "daemon/reconcile/reconciler.h"
#include "daemon/systemd/loop_watchdog.h"
#include "daemon/systemd/notifier.h"
#include "daemon/util/periodic_worker.h"
#include "daemon/watch/load_report.h"
#include "daemon/watch/load_watcher.h"
#include "daemon/watch/status_publisher.h"
#include "daemon/watch/watched_tables.h"
#include "daemon/web/keyviz_page.h"
#include "daemon/web/status_page.h"
#include "daemon/zk/zk_client.h"
#include "presplit/table_name.h"

namespace presplit::daemon {
namespace {

namespace asio = boost::asio;

// Connects AdminBridge on first use and again after a failed connect, so the daemon starts and
// keeps serving status while HBase is still coming up. A connection-level failure (HBase
// unreachable, or the connection closed under us) drops the admin: the next call reconnects.
// Not thread-safe: each worker has its own. It also tells /healthz whether HBase answered last time
// and whether a JVM call is stuck.
class ConnectOnDemandAdmin final : public HBaseAdmin, public RegionLoadSource {
 public:
  // `kerberos`: the daemon's Kerberos login, or null without one; no connection is opened before
  // it has logged in (it would fail with a less helpful SASL error).
  ConnectOnDemandAdmin(JvmHost& jvm, std::map<std::string, std::string> settings,
                       const KerberosLoginState* kerberos)
      : jvm_(jvm), settings_(std::move(settings)), kerberos_(kerberos) {}

  Result<TableDescription> DescribeTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    auto described = admin_->DescribeTable(table);
    Observe(kDescribe, described.ok() ? Status::Ok() : described.status());
    return described;
  }
  Status CreateTable(const TableSpec& spec) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    {
      std::lock_guard<std::mutex> lock(mu_);
      create_called_ = true;
    }
    Status created = admin_->CreateTable(spec);
    Observe(kCreate, created);
    return created;
  }

  // Reads (meta, on the RegionServers) can work while creates (the HMaster) fail: each kind of
  // call keeps its own problem. A failed create stays reported until a create reaches HBase, or
  // until a pass no longer needs one.
  void PassStarted() {
    std::lock_guard<std::mutex> lock(mu_);
    create_called_ = false;
  }
  void PassFinished() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!create_called_) problems_[kCreate].clear();
  }

  // Why HBase looks unusable ("" when the last call reached it).
  std::string Problem(std::chrono::seconds stuck_after) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (call_started_) {
      auto running = std::chrono::steady_clock::now() - *call_started_;
      if (running > stuck_after) {
        return "embedded JVM: an HBase call has been running for " +
               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(running).count()) +
               " s";
      }
    }
    if (!problems_[kConnect].empty()) return problems_[kConnect];
    if (!problems_[kDescribe].empty()) return problems_[kDescribe];
    return problems_[kCreate];
  }
  Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    auto loads = admin_->RegionLoads(tables);
    Observe(kDescribe, loads.ok() ? Status::Ok() : loads.status());
    return loads;
  }
  Status SplitRegion(const std::string& encoded_region) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status split = admin_->SplitRegion(encoded_region);
    Observe(kDescribe, split);
    return split;
  }
  Result<std::vector<std::string>> SampleRowKeys(const std::string& table,
                                                 const std::string& start_key,
                                                 const std::string& end_key, int max_keys,
                                                 int64_t max_rows) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    auto keys = admin_->SampleRowKeys(table, start_key, end_key, max_keys, max_rows);
    Observe(kDescribe, keys.ok() ? Status::Ok() : keys.status());
    return keys;
  }
  Status SplitRegionAt(const std::string& encoded_region, const std::string& split_point) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status split = admin_->SplitRegionAt(encoded_region, split_point);
    Observe(kDescribe, split);
    return split;
  }
  std::vector<std::string> LiveServers() override {
    return admin_ ? admin_->LiveServers() : std::vector<std::string>{};
  }
  Status MoveRegion(const std::string& encoded_region, const std::string& server) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status moved = admin_->MoveRegion(encoded_region, server);
    Observe(kDescribe, moved);
    return moved;
  }
  Status DisableTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    Status disabled = admin_->DisableTable(table);
    Observe(kDescribe, disabled);
    return disabled;
  }
  Status DeleteTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    Status deleted = admin_->DeleteTable(table);
    Observe(kDescribe, deleted);
    return deleted;
  }
  Result<PermissionReport> CheckPermissions(const std::vector<std::string>& tables,
                                            bool replication) {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    auto report = admin_->CheckPermissions(tables, replication);
    Observe(kDescribe, report.ok() ? Status::Ok() : report.status());
    return report;
  }

 private:
  // Marks a JVM call in flight for the health check.
  struct InFlight {
    explicit InFlight(ConnectOnDemandAdmin& a) : admin(a) {
      std::lock_guard<std::mutex> lock(admin.mu_);
      admin.call_started_ = std::chrono::steady_clock::now();
    }
    ~InFlight() {
      std::lock_guard<std::mutex> lock(admin.mu_);
      admin.call_started_.reset();
    }
    ConnectOnDemandAdmin& admin;
  };

  static bool IsConnectionLevel(const Status& s) {
    if (s.code() == StatusCode::kUnavailable) return true;
    std::string lower = s.message();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return lower.find("connection is closed") != std::string::npos ||
           lower.find("hconnection is closed") != std::string::npos ||
           lower.find("connection closed") != std::string::npos;
  }

  enum Call { kConnect, kDescribe, kCreate, kCalls };

  void Observe(Call call, const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (s.ok() || !IsConnectionLevel(s)) {
      problems_[call].clear();  // HBase answered, even if it refused
      return;
    }
    problems_[call] = "HBase unreachable: " + s.message();
    spdlog::warn("HBase connection failed ({}); reconnecting on the next call", s.message());
    drop_ = true;
  }

  Status EnsureConnected() {
    if (drop_) {
      drop_ = false;
      admin_.reset();  // closes the old connection
    }
    if (admin_) return Status::Ok();
    if (kerberos_ != nullptr && !kerberos_->logged_in()) {
      return Status::Unavailable("not connected to HBase: no Kerberos login as " +
                                 kerberos_->principal() + " yet");
    }
    Result<std::unique_ptr<JniHBaseAdmin>> admin = Status::Internal("not connected");
    {
      InFlight call(*this);
      admin = JniHBaseAdmin::Connect(jvm_, settings_);
    }
    if (!admin.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      problems_[kConnect] =
          (admin.status().code() == StatusCode::kUnavailable ? "HBase unreachable: "
                                                             : "embedded JVM unusable: ") +
          admin.status().message();
      return admin.status();
    }
    admin_ = std::move(admin).value();
    {
      std::lock_guard<std::mutex> lock(mu_);
      problems_[kConnect].clear();
    }
    spdlog::info("connected to HBase (zookeeper quorum {})",
                 settings_.count("hbase.zookeeper.quorum") ? settings_.at("hbase.zookeeper.quorum")
                                                           : "from hbase-site.xml");
    return Status::Ok();
  }

  JvmHost& jvm_;
  const std::map<std::string, std::string> settings_;
  const KerberosLoginState* const kerberos_;
  std::unique_ptr<JniHBaseAdmin> admin_;  // used on the reconcile worker only
  bool drop_ = false;                     // reconcile worker only
  mutable std::mutex mu_;                 // guards what /healthz reads
  std::string problems_[kCalls];
  bool create_called_ = false;
  std::optional<std::chrono::steady_clock::time_point> call_started_;
};

// A notification systemd did not get is worth a warning, never a stop.
void NotifySystemd(const Status& sent) {
  if (!sent.ok()) spdlog::warn("systemd: {}", sent.ToString());
}

// How long a stop may take before the process ends anyway; below the unit's TimeoutStopSec (30 s)
// so systemd never has to SIGKILL. An HBase call still running then is abandoned.
constexpr std::chrono::seconds kStopBudget{20};

// A JVM call running longer than the HBase client's operation timeout plus this margin is stuck.
constexpr std::chrono::seconds kStuckCallMargin{60};

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string DaemonId() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace

Status RunDaemon(const DaemonOptions& initial_options) {
  // What SIGHUP can change live: the log level and the resync interval.
  DaemonOptions options = initial_options;
  std::atomic<int> resync_interval_s{options.resync_interval_s};
  asio::io_context io;
  Notifier systemd;
  LoopWatchdog watchdog(io, systemd);
  std::atomic<uint64_t> exceptions_caught{0};  // on the loop and the worker, outside a pass

  // Access control first, so a bad credentials file fails before anything starts.
  PRESPLIT_ASSIGN_OR_RETURN(ZkAccess zk_access,
                            LoadZkAccess(options.zk_auth_file, options.zk_root));

  PRESPLIT_ASSIGN_OR_RETURN(auto classpath, ResolveClasspath(options));
  spdlog::info("starting the embedded JVM ({} classpath entries)", classpath.size());
  JvmOptions jvm_options;
  jvm_options.classpath = classpath;
  jvm_options.max_heap = options.jvm_max_heap;
  jvm_options.options = options.jvm_options;
  const char* krb5_config = std::getenv("KRB5_CONFIG");
  for (auto& o : KerberosJvmOptions(options, krb5_config == nullptr ? "" : krb5_config)) {
    spdlog::info("Kerberos: the embedded JVM reads {} (KRB5_CONFIG)", krb5_config);
    jvm_options.options.push_back(std::move(o));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto jvm, JvmHost::Start(jvm_options));

  // The HBase client's defaults retry for many minutes while HBase or ZooKeeper is down; the
  // daemon would rather fail a pass, report it, and try again on the next one.
  std::map<std::string, std::string> hbase_settings = {
      {"hbase.client.retries.number", "5"},
      {"zookeeper.recovery.retry", "2"},
      {"hbase.client.operation.timeout", "120000"},
  };
  for (const auto& [k, v] : options.hbase_settings) hbase_settings[k] = v;
  // Kerberos: the JVM logs in from the keytab (the worker below) before any connection is opened.
  std::unique_ptr<KerberosLoginState> kerberos;
  if (!options.kerberos_principal.empty()) {
    hbase_settings.emplace("hbase.security.authentication", "kerberos");
    // The login worker below renews the ticket and reports on it; HBase's client would renew
    // the same login user on a chore of its own, out of sight.
    hbase_settings.emplace("hbase.client.keytab.automatic.renewal", "false");
    kerberos =
        std::make_unique<KerberosLoginState>(options.kerberos_principal, options.kerberos_keytab);
  }
  if (!hbase_settings.count("hbase.zookeeper.quorum") && options.hbase_conf_dir.empty()) {
    hbase_settings["hbase.zookeeper.quorum"] = options.zk_quorum;
  }
  std::chrono::seconds stuck_after = kStuckCallMargin;
  try {
    stuck_after +=
        std::chrono::seconds(std::stol(hbase_settings["hbase.client.operation.timeout"]) / 1000);
  } catch (const std::exception&) {
    stuck_after += std::chrono::seconds(120);
  }
  auto admin = std::make_unique<ConnectOnDemandAdmin>(*jvm, hbase_settings, kerberos.get());

  // Filled in below; the ZooKeeper handler only forwards events to the loop, which triggers it.
  PeriodicWorker* reconcile_worker = nullptr;
  LeaderElection* election = nullptr;
  std::atomic<bool> loop_ready{false};
  std::atomic<bool> zk_connected{false};
  std::atomic<bool> stopping{false};
  ZkOptions zk_options;
  zk_options.quorum = options.zk_quorum;
  zk_options.session_timeout_ms = options.zk_session_timeout_ms;
  zk_options.auth = zk_access.credentials;
  auto on_zk_event = [&io, &reconcile_worker, &election, &loop_ready,
                      &zk_connected](const ZkEvent& event) {
    // The connection state is recorded at once (it is what /healthz reports); the rest goes to
    // the loop.
    if (event.type == ZkEventType::kConnected) zk_connected = true;
    if (event.type == ZkEventType::kDisconnected || event.type == ZkEventType::kSessionExpired) {
      zk_connected = false;
    }
    if (!loop_ready) return;
    asio::post(io, [event, &reconcile_worker, &election] {
      spdlog::debug("zookeeper event {} {}", static_cast<int>(event.type), event.path);
      if (event.type == ZkEventType::kSessionExpired) {
        spdlog::warn(
            "ZooKeeper session expired; the reconcile worker opens a new one and joins the "
            "election again, and watches are re-armed on the next pass");
        // Its election node went with the session: stop acting now, not at the next lease check.
        // The client opens no new session by itself: the worker's election Refresh does, after
        // the leadership ended.
        if (election != nullptr) election->OnSessionExpired();
      }
      if (event.type == ZkEventType::kDisconnected) {
        spdlog::warn("disconnected from ZooKeeper; the client reconnects on its own");
        return;
      }
      // Every event may change the election too (the watched predecessor went, a reconnect), so
      // the worker refreshes the election before anything else.
      if (reconcile_worker != nullptr) reconcile_worker->Trigger();
    });
  };
  spdlog::info("connecting to ZooKeeper {} (root {})", options.zk_quorum, options.zk_root);
  PRESPLIT_ASSIGN_OR_RETURN(auto zk, ConnectZooKeeper(zk_options, on_zk_event));
  zk_connected = true;

  // Several presplitd may watch one root; the one whose election node is lowest acts.
  LeaderElection leader_election(*zk, LeaderElectionOptions{JoinZkPath(options.zk_root, "leader"),
                                                            DaemonId(), zk_access.acls.leader});
  election = &leader_election;

  // Each leader-only component writes through a fence of its own: a write runs on the session
  // that component's last lease check was confirmed on, or not at all (lease_fence.h).
  LeaseFence reconcile_lease(leader_election, *zk);
  LeaseFence migrate_lease(leader_election, *zk);
  LeaseFence publish_lease(leader_election, *zk);

  ReconcilerOptions reconciler_options;
  reconciler_options.zk_root = options.zk_root;
  reconciler_options.daemon_id = DaemonId();
  reconciler_options.acls = zk_access.acls;
  reconciler_options.lease = [&reconcile_lease] { return reconcile_lease.Check(); };
  reconciler_options.stop = &stopping;
  Reconciler reconciler(reconcile_lease.zk(), *admin, reconciler_options);

  // Re-salting migrations (leader only), on a worker of their own with their own HBase
  // connection: a copy runs for minutes and must not hold up the reconcile passes. The copy
  // threads call the jar's bridge on their own (attached) JVM threads.
  auto migrate_admin = std::make_unique<ConnectOnDemandAdmin>(*jvm, hbase_settings, kerberos.get());
  // Owned here and released before the JVM: its destructor drops global references through it.
  auto migration_bridge = std::make_unique<migrate::JniMigrationBridge>(*jvm, hbase_settings);
  migrate::MigratorOptions migrator_options;
  migrator_options.zk_root = options.zk_root;
  migrator_options.daemon_id = reconciler_options.daemon_id;
  migrator_options.acls = zk_access.acls;
  migrator_options.lease = [&migrate_lease] { return migrate_lease.Check(); };
  migrator_options.stop = &stopping;
  migrator_options.chunk_rows = options.migration_chunk_rows;
  migrator_options.hfile_chunk_rows = options.migration_hfile_chunk_rows;
  migrator_options.bulk_staging_dir = options.migration_staging_dir;
  migrator_options.hfile_source_snapshot = options.migration_hfile_source == "snapshot";
  migrator_options.hadoop_conf_dir = options.hadoop_conf_dir;
  migrator_options.hbase_conf_dir = options.hbase_conf_dir;
  migrator_options.hbase_settings = hbase_settings;
  migrator_options.mapreduce_threshold_bytes = options.migration_mapreduce_threshold_bytes;
  if (auto heap = ParseByteCount("jvm_max_heap", options.jvm_max_heap); heap.ok()) {
    migrator_options.jvm_max_heap_bytes = *heap;
  }
  migrator_options.max_concurrent_migrations = options.migration_max_concurrent;
  migrator_options.throttle = ThrottleSettingsOf(options);
  migrator_options.table_bytes = [&migrate_admin](const std::string& table) -> Result<int64_t> {
    // What the RegionServers last reported: store files and memstores of every region.
    PRESPLIT_ASSIGN_OR_RETURN(auto loads, migrate_admin->RegionLoads({table}));
    if (loads.empty()) return Status::Unavailable("no RegionServer reports a region of " + table);
    int64_t bytes = 0;
    for (const auto& region : loads) bytes += region.store_file_bytes + region.memstore_bytes;
    return bytes;
  };
  migrate::Migrator migrator(migrate_lease.zk(), *migrate_admin, *migration_bridge,
                             migrator_options);
  std::atomic<uint64_t> migrate_failures{0};
  PeriodicWorker migrate_worker(
      "migrate", std::chrono::seconds(std::max(1, options.migration_interval_s)),
      [&](bool /*scheduled*/) {
        try {
          if (!leader_election.IsLeader()) return;
          if (kerberos != nullptr && !kerberos->logged_in()) return;  // no HBase without it
          Status s = migrator.RunOnce();
          if (!s.ok() && leader_election.IsLeader() && !stopping) {
            ++migrate_failures;
            spdlog::warn("migrations: run failed, retrying in {} s: {}",
                         options.migration_interval_s, s.ToString());
          }
        } catch (const std::exception& e) {
          exceptions_caught++;
          spdlog::error("migrations: run threw, retrying on the next one: {}", e.what());
        }
      });

  // The start-time permission check (permission_check.h): when this daemon becomes the leader,
  // and again on the scheduled passes while something is missing or the check failed (a grant
  // shows without a restart), or when the documents or the migrations changed since. Only /status,
  // /metrics and the log report it: a document HBase refuses gets its own `error` status anyway,
  // and the others are served.
  PermissionState permissions;
  // What the needed permissions depend on: the documents, and whether a migration runs.
  auto permission_inputs = [&] {
    return std::make_pair(reconciler.counters().document_changes.load(),
                          !migrator.Snapshot().empty());
  };
  std::pair<uint64_t, bool> permissions_inputs{0, false};  // at the last check
  std::string permissions_logged;                          // the summary the log last had
  auto check_permissions = [&] {
    auto names = zk->GetChildren(reconciler.TablesPath(), /*watch=*/false);
    if (!names.ok()) {
      permissions.Failed(names.status().WithContext("listing table documents").message(), WallMs());
      return;
    }
    std::vector<std::string> tables;
    for (const auto& name : *names) tables.push_back(CanonicalTableName(name));
    // Global ADMIN for replication peers only once a migration needs them.
    const bool replication = !migrator.Snapshot().empty();
    permissions_inputs = permission_inputs();
    auto report = admin->CheckPermissions(tables, replication);
    if (!report.ok()) {
      permissions.Failed(report.status().message(), WallMs());
      spdlog::warn("HBase permissions: the check failed, trying again on the next full pass: {}",
                   report.status().message());
      return;
    }
    const bool authorization = report->authorization;
    const int checked = report->checked;
    const size_t missing = report->missing.size();
    for (const auto& line : permissions.Record(std::move(report).value(), WallMs())) {
      spdlog::warn("{}", line);
    }
    // The all-clear is logged when it is news, not on every check.
    const std::string summary = permissions.Json()["summary"].get<std::string>();
    if (summary != permissions_logged && !authorization) {
      spdlog::info("HBase permissions: authorization off, not checked");
    } else if (summary != permissions_logged && missing == 0) {
      spdlog::info("HBase permissions: all {} presplitd needs are held", checked);
    }
    permissions_logged = summary;
  };

  std::mutex health_mu;
  std::string last_error = "no reconcile pass yet";
  auto last_success = std::chrono::steady_clock::time_point::min();
  bool prepared = false;
  bool was_leading = false;
  bool permissions_due = false;  // reconcile worker only
  std::atomic<bool> full_pass_requested{false};
  PeriodicWorker worker(
      "reconcile", std::chrono::seconds(options.resync_interval_s), [&](bool scheduled) {
        Status s;
        try {
          // Only the leader runs passes; a standby that reached ZooKeeper and knows its place in
          // the election is healthy too.
          s = leader_election.Refresh();
          const bool leading = s.ok() && leader_election.IsLeader();
          if (leading && !was_leading) {
            // Another daemon may have acted meanwhile: look at every document again, in full.
            reconciler.ForgetHandled();
            full_pass_requested = true;
            permissions_due = true;
          }
          was_leading = leading;
          if (leading && kerberos != nullptr && !kerberos->logged_in()) {
            // No HBase connection before the Kerberos login: /healthz says why, and the login
            // worker asks for a pass as soon as it succeeds.
            return;
          }
          if (leading) {
            s = prepared ? Status::Ok() : reconciler.Prepare();
            if (s.ok()) {
              prepared = true;
              const bool full = scheduled || full_pass_requested.exchange(false);
              if (permissions_due || (scheduled && (permissions.NeedsRecheck() ||
                                                    permission_inputs() != permissions_inputs))) {
                permissions_due = false;
                check_permissions();
              }
              admin->PassStarted();
              s = reconciler.ReconcileAll(full ? PassKind::kFull : PassKind::kChanged);
              if (s.ok()) admin->PassFinished();
              // A pass may have started a migration: drive it now, not at the next interval.
              migrate_worker.Trigger();
            }
            if (!s.ok() && !leader_election.IsLeader()) {
              // Deposed during the pass: it stopped before acting; standing by is no failure.
              spdlog::info("reconcile pass stopped: {}", s.ToString());
              was_leading = false;
              s = Status::Ok();
            }
          }
        } catch (const std::exception& e) {
          exceptions_caught++;
          s = Status::Internal(std::string("reconcile pass threw: ") + e.what());
          spdlog::error("{}", s.message());
        }
        std::lock_guard<std::mutex> lock(health_mu);
        if (s.ok()) {
          last_success = std::chrono::steady_clock::now();
          last_error.clear();
        } else {
          last_error = s.ToString();
          spdlog::warn("reconcile pass failed, retrying on the next event or in {} s: {}",
                       resync_interval_s.load(), last_error);
        }
      });
  reconcile_worker = &worker;

  // Kerberos: the first login, then a look at the ticket when 80 % of its lifetime has passed (a
  // new login from the keytab then), on a thread of its own attached to the JVM, so that a slow
  // KDC holds up neither startup nor the HBase calls. A failure is logged, counted and reported
  // on /healthz (503), and tried again every 30 s; presplitd keeps running.
  std::unique_ptr<PeriodicWorker> kerberos_worker;
  if (kerberos != nullptr) {
    kerberos_worker = std::make_unique<PeriodicWorker>(
        "kerberos", KerberosLoginState::kRetryAfterFailure, [&](bool /*scheduled*/) {
          try {
            const bool first = !kerberos->logged_in();
            auto ticket = first ? KerberosLoginFromKeytab(*jvm, options.kerberos_principal,
                                                          options.kerberos_keytab, hbase_settings)
                                : KerberosCheckAndRelogin(*jvm);
            if (ticket.ok()) {
              const uint64_t logins = kerberos->logins();
              kerberos->Succeeded(*ticket);
              if (first) {
                spdlog::info("Kerberos: logged in as {} from keytab {} (ticket valid until {})",
                             ticket->principal, options.kerberos_keytab,
                             UtcFromMillis(ticket->end_ms));
                worker.Trigger();  // the passes waited for it
              } else if (kerberos->logins() != logins) {
                spdlog::info("Kerberos: new ticket for {} from the keytab (valid until {})",
                             ticket->principal, UtcFromMillis(ticket->end_ms));
              }
            } else {
              kerberos->Failed(ticket.status().message());
              spdlog::error("{}; presplitd answers 503 on /healthz and tries again in {} s",
                            ticket.status().message(),
                            KerberosLoginState::kRetryAfterFailure.count());
            }
          } catch (const std::exception& e) {
            exceptions_caught++;
            kerberos->Failed(std::string("Kerberos login threw: ") + e.what());
            spdlog::error("Kerberos login threw, retrying later: {}", e.what());
          }
          kerberos_worker->SetInterval(kerberos->NextCheck(WallMs()));
        });
  }

  // Why this daemon is not healthy, or "" when it is. A standby leader (leader election) will
  // count as healthy: it adds its own check here, before the ones that need the active role.
  auto unhealthy_reason = [&]() -> std::string {
    if (!zk_connected) return "not connected to ZooKeeper " + options.zk_quorum;
    if (kerberos != nullptr) {
      std::string login = kerberos->Problem(WallMs());
      if (!login.empty()) return login;
    }
    std::string hbase = admin->Problem(stuck_after);
    if (!hbase.empty()) return hbase;
    if (leader_election.IsLeader()) {
      std::string denied = permissions.Problem();
      if (!denied.empty()) return denied;
    }
    std::lock_guard<std::mutex> lock(health_mu);
    if (!last_error.empty()) return last_error;
    auto stale = std::chrono::seconds(3 * resync_interval_s.load() + 30);
    if (std::chrono::steady_clock::now() - last_success >= stale) return "no recent reconcile pass";
    return "";
  };

  // The load watcher: the leader polls the region load of every documented table, scores it,
  // and splits hot regions of the tables whose documents turn load splits on.
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  watch::LoadWatcherOptions watch_options;
  watch_options.limits.max_splits = options.load_split_max_per_window;
  watch_options.limits.window_ms = int64_t{options.load_split_window_s} * 1000;
  watch_options.may_act = [&leader_election] { return leader_election.HoldsLease(); };
  // Its own HBase connection: the reconcile worker's admin is not shared across threads.
  auto watch_admin = std::make_unique<ConnectOnDemandAdmin>(*jvm, hbase_settings, kerberos.get());
  watch::LoadWatcher load_watcher(*watch_admin, watch_options, now_ms);
  // The decisions also go into the tables' status znodes, written only when they change.
  watch::StatusPublisherOptions publisher_options;
  publisher_options.status_path = JoinZkPath(options.zk_root, "status");
  publisher_options.may_act = [&publish_lease] { return publish_lease.Check(); };
  publisher_options.decisions_kept = watch_options.decisions_kept;
  watch::StatusPublisher status_publisher(publish_lease.zk(), publisher_options);
  // The key visualizer's history, recorded after every successful poll by every presplitd,
  // standbys too: a new leader has it already (docs/key-visualizer.md).
  keyviz::LoadHistoryOptions history_options;
  history_options.fine = {int64_t{options.keyviz_fine_resolution_s} * 1000,
                          int64_t{options.keyviz_fine_retention_h} * 3'600'000};
  history_options.coarse = {int64_t{options.keyviz_coarse_resolution_s} * 1000,
                            int64_t{options.keyviz_coarse_retention_h} * 3'600'000};
  history_options.memory_budget_bytes = size_t(options.keyviz_memory_budget_mb) << 20;
  PRESPLIT_RETURN_IF_ERROR(keyviz::CheckLoadHistoryOptions(history_options));
  keyviz::LoadHistory load_history(history_options);
  std::vector<watch::WatchedTable> watched_tables;  // as the load watcher has them
  bool history_was_refusing = false;
  auto record_history = [&](const watch::LoadSnapshot& snapshot) {
    auto result = load_history.Record(snapshot.polled_at_ms,
                                      keyviz::SamplesFromLoad(snapshot, watched_tables));
    const bool refusing =
        result.tables_refused + result.regions_truncated + result.regions_overlapping > 0;
    // Once when it starts, not at every poll: the counters on /metrics say how much since.
    if (refusing && !history_was_refusing) {
      spdlog::warn(
          "key visualizer: this poll's load is more than its history takes: {} tables refused "
          "(more than {} tables, or a key longer than {} bytes), {} regions beyond {} per "
          "table, {} regions overlapping another",
          result.tables_refused, history_options.max_tables, history_options.max_key_bytes,
          result.regions_truncated, history_options.max_regions_per_table,
          result.regions_overlapping);
    }
    history_was_refusing = refusing;
    if (result.histories_restarted > 0) {
      spdlog::warn(
          "key visualizer: the wall clock stepped back (this poll at {} ms): the history of {} "
          "tables starts again",
          snapshot.polled_at_ms, result.histories_restarted);
    }
  };
  bool watcher_was_leading = false;
  std::atomic<uint64_t> load_polls{0}, load_poll_failures{0}, load_status_writes{0};
  auto last_tables_read = std::chrono::steady_clock::time_point::min();
  uint64_t tables_read_at_changes = 0;
  // What moves when the watched tables may have changed: a document created, edited or removed
  // (the reconciler holds the watches), and a migration started, switched (the status names
  // another physical table), finished or aborted (its target is watched until the switch).
  auto watch_changes = [&] {
    const auto& r = reconciler.counters();
    const auto& m = migrator.counters();
    return r.document_changes.load() + r.migrations_started.load() + m.switches.load() +
           m.finished.load() + m.aborted.load();
  };
  PeriodicWorker watch_worker(
      "load-watch", std::chrono::seconds(std::max(1, options.load_watch_interval_s)),
      [&](bool /*scheduled*/) {
        // Every task on a worker catches what it throws: a bad answer must not end the daemon.
        try {
          // No HBase connection before the Kerberos login.
          if (kerberos != nullptr && !kerberos->logged_in()) return;
          // A standby polls too, for the key visualizer's history (and the rates, so that it
          // can split at once when it leads), but decides nothing and writes nothing.
          const bool leading = leader_election.IsLeader();
          if (leading && !watcher_was_leading) status_publisher.Forget();  // others wrote
          watcher_was_leading = leading;
          // The documents and their statuses are re-read as soon as a reconcile pass saw a
          // document created, edited or removed or a migration moved (watch_changes), and at
          // the resync interval anyway. Not only at the interval: a table documented a second
          // after a read would go unwatched for up to a minute, and its hot regions with it;
          // after a switch, the old generation would be watched instead of the new one.
          const auto now = std::chrono::steady_clock::now();
          const uint64_t changes = watch_changes();
          if (now - last_tables_read >= std::chrono::seconds(options.resync_interval_s) ||
              last_tables_read == std::chrono::steady_clock::time_point::min() ||
              changes != tables_read_at_changes) {
            auto tables = watch::ReadWatchedTables(*zk, reconciler.TablesPath(),
                                                   JoinZkPath(options.zk_root, "status"));
            if (tables.ok()) {
              watched_tables = *tables;
              load_watcher.SetTables(std::move(tables).value());
              last_tables_read = now;
              tables_read_at_changes = changes;
            } else {
              spdlog::warn("load watcher: cannot read the documents: {}",
                           tables.status().ToString());
            }
          }
          Status polled = load_watcher.Poll(/*plan=*/leading);
          if (leading) ++load_polls;  // the counters are the leader's (docs/reference/metrics.md)
          if (!polled.ok()) {
            if (leading) ++load_poll_failures;
            spdlog::warn("load watcher: poll failed, retrying in {} s: {}",
                         options.load_watch_interval_s, polled.ToString());
          } else {
            const watch::LoadSnapshot snapshot = load_watcher.snapshot();
            if (leading) load_status_writes += status_publisher.Publish(snapshot, now_ms()).written;
            record_history(snapshot);
          }
        } catch (const std::exception& e) {
          ++load_poll_failures;
          spdlog::error("load watcher: poll threw, retrying on the next one: {}", e.what());
        }
      });

  // GET /keyviz.json and the page GET /keyviz read the load history (thread-safe: recorded on
  // the load worker, read on the HTTP endpoint's worker).
  keyviz::HistoryReader read_history = [&load_history](const std::string& table, int64_t from_ms,
                                                       int64_t to_ms) {
    return load_history.Read(table, from_ms, to_ms);
  };
  keyviz::TableLister history_tables = [&load_history] { return load_history.Tables(); };

  HttpEndpoint http(io);
  if (!options.http_listen.empty()) {
    http.Handle("/healthz", [&]() -> HttpResponse {
      std::string reason = unhealthy_reason();
      if (reason.empty()) return {200, "text/plain", "ok\n"};
      return {503, "text/plain", reason + "\n"};
    });
    http.Handle("/", []() -> HttpResponse {
      return {200, "text/html; charset=utf-8", std::string(web::StatusPageHtml())};
    });
    http.Handle("/keyviz", []() -> HttpResponse {
      return {200, "text/html; charset=utf-8", std::string(web::KeyvizPageHtml())};
    });
    // Off the loop: a big table's matrix takes up to about a hundred milliseconds to build, which
    // /healthz and /metrics must not wait for.
    http.HandleOffLoop("/keyviz.json", [&](const HttpRequest& request) -> HttpResponse {
      auto reply = keyviz::ServeKeyvizJson(request.query, read_history, history_tables, now_ms());
      return {reply.code, "application/json", std::move(reply.body)};
    });
    http.Handle("/status", [&]() -> HttpResponse {
      nlohmann::ordered_json status;
      status["daemon"]["id"] = reconciler_options.daemon_id;
      status["daemon"]["leader"] = leader_election.IsLeader();
      status["daemon"]["zk_root"] = options.zk_root;
      status["permissions"] = permissions.Json();
      status["load"] = watch::LoadSnapshotJson(load_watcher.snapshot());
      status["migrations"] = nlohmann::ordered_json::array();
      for (const auto& m : migrator.Snapshot()) {
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
          entry["throttle"] = {{"cells_per_s", m.throttle_cells_per_s},
                               {"reason", m.throttle_reason}};
        }
        entry["error"] =
            m.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.error);
        status["migrations"].push_back(std::move(entry));
      }
      return {200, "application/json",
              status.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"};
    });
    http.Handle("/metrics", [&]() -> HttpResponse {
      using metrics::Metric;
      const auto& c = reconciler.counters();
      metrics::MetricsText out;
      out.Value(Metric::presplit_reconcile_passes_total, c.passes);
      out.Value(Metric::presplit_reconcile_full_passes_total, c.full_passes);
      out.Value(Metric::presplit_reconcile_pass_failures_total, c.pass_failures);
      out.Value(Metric::presplit_tables_created_total, c.tables_created);
      out.Value(Metric::presplit_documents_invalid_total, c.documents_invalid);
      out.Value(Metric::presplit_hbase_errors_total, c.hbase_errors);
      out.Value(Metric::presplit_drift_reports_total, c.drift_reports);
      out.Value(Metric::presplit_tables_missing_total, c.tables_missing);
      out.Value(Metric::presplit_statuses_removed_total, c.statuses_removed);
      out.Value(Metric::presplit_exceptions_caught_total,
                c.exceptions_caught + migrator.counters().exceptions_caught +
                         exceptions_caught);
      out.Value(Metric::presplit_managed_tables, c.managed_tables);
      out.Value(Metric::presplit_permissions_missing, permissions.missing());
      // Only the leader reconciles: a standby's counts would be the ones it last had as leader.
      if (leader_election.IsLeader()) {
        out.Family(Metric::presplit_tables);
        for (const auto& [phase, count] : reconciler.PhaseCounts()) {
          out.Value(Metric::presplit_tables, {{"phase", phase}}, count);
        }
      }
      out.Value(Metric::presplit_leader, leader_election.IsLeader() ? 1 : 0);
      out.Value(Metric::presplit_healthy, unhealthy_reason().empty() ? 1 : 0);
      out.Value(Metric::presplit_kerberos_logins_total,
                kerberos ? kerberos->logins() : 0);
      out.Value(Metric::presplit_kerberos_login_failures_total,
                kerberos ? kerberos->failures() : 0);
      out.Value(Metric::presplit_kerberos_ticket_end_seconds,
                kerberos ? kerberos->ticket_end_ms() / 1000 : int64_t{0});
      out.Value(Metric::presplit_load_polls_total, load_polls);
      out.Value(Metric::presplit_load_poll_failures_total, load_poll_failures);
      out.Value(Metric::presplit_load_status_writes_total, load_status_writes);
      watch::AppendLoadMetrics(out, load_watcher.snapshot(), now_ms());
      const auto history = load_history.counters();
      out.Value(Metric::presplit_keyviz_history_bytes, load_history.MemoryBytes());
      out.Value(Metric::presplit_keyviz_history_columns, load_history.Columns());
      out.Value(Metric::presplit_keyviz_history_tables, load_history.Tables().size());
      out.Value(Metric::presplit_keyviz_columns_dropped_total,
                history.columns_dropped_by_budget);
      out.Value(Metric::presplit_keyviz_input_refused_total,
                history.tables_refused + history.regions_refused);
      const auto& m = migrator.counters();
      out.Value(Metric::presplit_migration_rows_copied_total, m.rows_copied);
      out.Value(Metric::presplit_migration_cells_copied_total, m.cells_copied);
      out.Value(Metric::presplit_migration_chunks_total, m.chunks_copied);
      out.Value(Metric::presplit_migration_capture_probes_total, m.probes);
      out.Value(Metric::presplit_migration_rows_rechecked_total, m.rows_rechecked);
      out.Value(Metric::presplit_migration_rollbacks_total, m.rollbacks);
      out.Value(Metric::presplit_migration_plans_refused_total, m.plans_refused);
      out.Value(Metric::presplit_migration_verification_failures_total,
                m.verification_failures);
      out.Value(Metric::presplit_migration_switches_total, m.switches);
      out.Value(Metric::presplit_migration_completed_total, m.completed);
      out.Value(Metric::presplit_migration_aborted_total, m.aborted);
      out.Value(Metric::presplit_migration_run_failures_total,
                migrate_failures + m.errors);
      out.Value(Metric::presplit_migration_orphan_peers_removed_total,
                m.orphan_peers_removed);
      out.Value(Metric::presplit_migration_orphan_peers, m.orphan_peers_left);
      const auto migrations = migrator.Snapshot();
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
        out.Value(Metric::presplit_migration_regions_done, {{"table", p.table}},
                  p.regions_done);
      }
      out.Family(Metric::presplit_migration_regions_total);
      for (const auto& p : migrations) {
        out.Value(Metric::presplit_migration_regions_total, {{"table", p.table}},
                  p.regions_total);
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
      return {200, "text/plain; version=0.0.4", out.Text()};
    });
    PRESPLIT_RETURN_IF_ERROR(http.Listen(options.http_listen));
    spdlog::info("serving /, /status, /keyviz, /keyviz.json, /healthz and /metrics on {}:{}",
                 options.http_listen.substr(0, options.http_listen.rfind(':')), http.port());
  }

  auto reload_config = [&] {
    if (!options.reload) return;
    auto reloaded = options.reload();
    if (!reloaded.ok()) {
      spdlog::error("SIGHUP: config not reloaded, the current settings stay: {}",
                    reloaded.status().message());
      return;
    }
    for (const auto& name : ChangedSettings(options, *reloaded)) {
      if (!IsLiveSetting(name)) {  // settings.def says which settings SIGHUP applies
        spdlog::warn("SIGHUP: setting {} changed; it takes effect after a restart", name);
      } else if (name == "log_level") {
        spdlog::set_level(spdlog::level::from_str(reloaded->log_level));
        spdlog::info("SIGHUP: log_level is now {}", reloaded->log_level);
        options.log_level = reloaded->log_level;
      } else if (name == "resync_interval_s") {
        resync_interval_s = reloaded->resync_interval_s;
        worker.SetInterval(std::chrono::seconds(reloaded->resync_interval_s));
        spdlog::info("SIGHUP: resync_interval_s is now {}", reloaded->resync_interval_s);
        options.resync_interval_s = reloaded->resync_interval_s;
      } else {
        spdlog::error(
            "SIGHUP: setting {} is live in settings.def but nothing here applies it (a presplitd "
            "bug); it takes effect after a restart",
            name);
      }
    }
    spdlog::info("SIGHUP: config reloaded");
  };

  asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signo) {
        if (ec) return;
        if (signo == SIGHUP) {
          reload_config();
          spdlog::info("SIGHUP: running a full reconcile pass");
          full_pass_requested = true;
          worker.Trigger();
          signals.async_wait(on_signal);
          return;
        }
        spdlog::info("{}: shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
        stopping = true;
        NotifySystemd(systemd.Stopping("shutting down"));
        watchdog.Stop();
        http.Close();
        io.stop();
      };
  signals.async_wait(on_signal);

  loop_ready = true;
  if (kerberos_worker != nullptr) kerberos_worker->Start();
  worker.Start();
  if (options.load_watch_interval_s > 0) watch_worker.Start();
  migrate_worker.Start();
  spdlog::info("presplitd running as {}", reconciler_options.daemon_id);
  // ZooKeeper is connected and the HTTP endpoint listens: ready, whether or not HBase is up yet.
  NotifySystemd(systemd.Ready("watching " + options.zk_root + " on " + options.zk_quorum));
  watchdog.Start();
  // A handler that throws must not end the daemon: log it, count it, and keep serving.
  while (true) {
    try {
      io.run();
      break;
    } catch (const std::exception& e) {
      exceptions_caught++;
      spdlog::error("event loop task threw (the daemon goes on): {}", e.what());
    }
  }

  // Bounded stop: a pass stops between documents, but an HBase call in flight (a long create)
  // cannot be interrupted; past the budget it is abandoned and the process ends at once.
  std::thread([] {
    std::this_thread::sleep_for(kStopBudget);
    spdlog::warn("stop took longer than {} s; abandoning the HBase call in flight",
                 kStopBudget.count());
    spdlog::shutdown();
    std::_Exit(0);
  }).detach();
  watch_worker.Stop();
  migrate_worker.Stop();
  // The migrations' drivers end before the admin and the bridge they use go (they saw `stopping`).
  migrator.Stop();
  worker.Stop();
  if (kerberos_worker != nullptr) kerberos_worker->Stop();
  reconcile_worker = nullptr;
  election = nullptr;
  // A standby takes over at once instead of after this session's timeout.
  leader_election.Resign();
  watch_admin.reset();
  migrate_admin.reset();
  admin.reset();
  zk.reset();
  // Everything that calls into the JVM goes before it (a bridge destroyed after the JVM would
  // attach to a JVM that is gone).
  migration_bridge.reset();
  jvm.reset();
  spdlog::info("presplitd stopped");
  return Status::Ok();
}

}  // namespace presplit::daemon
