#include "daemon/runner/daemon_runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/kerberos_login.h"
#include "daemon/leader/leader_election.h"
#include "daemon/runner/component.h"
#include "daemon/runner/daemon_context.h"
#include "daemon/runner/http_component.h"
#include "daemon/runner/kerberos_component.h"
#include "daemon/runner/migrate_component.h"
#include "daemon/runner/reconcile_component.h"
#include "daemon/runner/watch_component.h"
#include "daemon/systemd/loop_watchdog.h"
#include "daemon/systemd/notifier.h"
#include "daemon/zk/zk_auth.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {
namespace {

namespace asio = boost::asio;

// A notification systemd did not get is worth a warning, never a stop.
void NotifySystemd(const Status& sent) {
  if (!sent.ok()) spdlog::warn("systemd: {}", sent.ToString());
}

// How long a stop may take before the process ends anyway; below the unit's TimeoutStopSec (30 s)
// so systemd never has to SIGKILL. An HBase call still running then is abandoned.
constexpr std::chrono::seconds kStopBudget{20};

// A JVM call running longer than the HBase client's operation timeout plus this margin is stuck.
constexpr std::chrono::seconds kStuckCallMargin{60};

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
  std::atomic<uint64_t> exceptions_caught{0};  // by the event loop's handlers

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
  // Filled in below; the ZooKeeper handler only forwards events to the loop, which triggers it.
  ReconcileComponent* reconcile = nullptr;
  LeaderElection* election = nullptr;
  std::atomic<bool> loop_ready{false};
  std::atomic<bool> zk_connected{false};
  std::atomic<bool> stopping{false};
  ZkOptions zk_options;
  zk_options.quorum = options.zk_quorum;
  zk_options.session_timeout_ms = options.zk_session_timeout_ms;
  zk_options.auth = zk_access.credentials;
  auto on_zk_event = [&io, &reconcile, &election, &loop_ready,
                      &zk_connected](const ZkEvent& event) {
    // The connection state is recorded at once (it is what /healthz reports); the rest goes to
    // the loop.
    if (event.type == ZkEventType::kConnected) zk_connected = true;
    if (event.type == ZkEventType::kDisconnected || event.type == ZkEventType::kSessionExpired) {
      zk_connected = false;
    }
    if (!loop_ready) return;
    asio::post(io, [event, &reconcile, &election] {
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
      if (reconcile != nullptr) reconcile->Trigger();
    });
  };
  spdlog::info("connecting to ZooKeeper {} (root {})", options.zk_quorum, options.zk_root);
  PRESPLIT_ASSIGN_OR_RETURN(auto zk, ConnectZooKeeper(zk_options, on_zk_event));
  zk_connected = true;

  // Several presplitd may watch one root; the one whose election node is lowest acts.
  LeaderElection leader_election(*zk, LeaderElectionOptions{JoinZkPath(options.zk_root, "leader"),
                                                            DaemonId(), zk_access.acls.leader});
  election = &leader_election;

  DaemonContext context{.options = options,
                        .io = io,
                        .jvm = *jvm,
                        .zk = *zk,
                        .election = leader_election,
                        .zk_access = zk_access,
                        .hbase_settings = hbase_settings,
                        .kerberos = kerberos.get(),
                        .daemon_id = DaemonId(),
                        .stopping = stopping,
                        .resync_interval_s = resync_interval_s,
                        .stuck_after = stuck_after};

  // The components, each with the links to the others it needs; they start in the order they
  // are added below and stop in the reverse one: the HTTP endpoint first (an address in use
  // fails the start before anything acts), then the Kerberos login the HBase calls wait for, the
  // reconcile passes, the migrations they start, and the load watcher that reads what both
  // changed. Stopping goes the other way.
  MigrateComponent migrate(context);
  ReconcileComponent reconciler(context,
                                {.after_pass = [&migrate] { migrate.Trigger(); },
                                 .migrations_running = [&migrate] { return migrate.running(); }});
  KerberosComponent kerberos_login(context, [&reconciler] { reconciler.Trigger(); });
  // What moves when the watched tables may have changed: a document created, edited or removed
  // (the reconciler holds the watches), and a migration started, switched (the status names
  // another physical table), finished or aborted (its target is watched until the switch).
  auto table_changes = [&reconciler, &migrate] {
    const auto& r = reconciler.reconciler().counters();
    const auto& m = migrate.counters();
    return r.document_changes.load() + r.migrations_started.load() + m.switches.load() +
           m.finished.load() + m.aborted.load();
  };
  PRESPLIT_ASSIGN_OR_RETURN(auto watch,
                            WatchComponent::Create(context, {.tables_path = reconciler.TablesPath(),
                                                             .table_changes = table_changes}));
  ComponentSet components;
  HttpComponent http(context, {.components = &components,
                               .read_history = watch->history_reader(),
                               .history_tables = watch->history_tables(),
                               .zk_connected = &zk_connected,
                               .loop_exceptions = &exceptions_caught});
  components.Add(http);
  components.Add(kerberos_login);
  components.Add(reconciler);
  components.Add(migrate);
  components.Add(*watch);
  reconcile = &reconciler;

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
        reconciler.SetInterval(std::chrono::seconds(reloaded->resync_interval_s));
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
          reconciler.Trigger(/*full=*/true);
          signals.async_wait(on_signal);
          return;
        }
        spdlog::info("{}: shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
        stopping = true;
        NotifySystemd(systemd.Stopping("shutting down"));
        watchdog.Stop();
        // The endpoint closes at once, not in its turn at the end of the stop: a health check
        // during the stop is refused instead of waiting on a loop that no longer runs.
        http.Stop();
        io.stop();
      };
  signals.async_wait(on_signal);

  loop_ready = true;
  if (Status started = components.Start(); !started.ok()) {
    reconcile = nullptr;
    election = nullptr;
    return started;
  }
  spdlog::info("presplitd running as {} ({})", context.daemon_id, components.Names());
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
  // The load watcher, the migrations (their drivers end before the connection and the bridge
  // they use go: they saw `stopping`), the passes, the login, the endpoint.
  components.Stop();
  reconcile = nullptr;
  election = nullptr;
  // A standby takes over at once instead of after this session's timeout.
  leader_election.Resign();
  spdlog::info("presplitd stopped");
  // Going out of scope in the reverse order of their making: the components, the ZooKeeper
  // session they used, the JVM last (a bridge destroyed after the JVM would attach to a JVM
  // that is gone).
  return Status::Ok();
}

}  // namespace presplit::daemon
