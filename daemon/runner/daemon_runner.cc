#include "daemon/runner/daemon_runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <csignal>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "daemon/hbase/jni_hbase_admin.h"
#include "daemon/hbase/jvm_host.h"
#include "daemon/http/http_endpoint.h"
#include "daemon/reconcile/reconciler.h"
#include "daemon/systemd/loop_watchdog.h"
#include "daemon/systemd/notifier.h"
#include "daemon/util/periodic_worker.h"
#include "daemon/watch/load_report.h"
#include "daemon/watch/load_watcher.h"
#include "daemon/watch/watched_tables.h"
#include "daemon/web/status_page.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {
namespace {

namespace asio = boost::asio;

// Connects AdminBridge on first use and again after a failed connect, so the daemon starts and
// keeps serving status while HBase is still coming up.
class ConnectOnDemandAdmin final : public HBaseAdmin, public RegionLoadSource {
 public:
  ConnectOnDemandAdmin(JvmHost& jvm, std::map<std::string, std::string> settings)
      : jvm_(jvm), settings_(std::move(settings)) {}

  Result<TableDescription> DescribeTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    return admin_->DescribeTable(table);
  }
  Status CreateTable(const TableSpec& spec) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    return admin_->CreateTable(spec);
  }
  Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    return admin_->RegionLoads(tables);
  }
  Status SplitRegion(const std::string& encoded_region) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    return admin_->SplitRegion(encoded_region);
  }

 private:
  Status EnsureConnected() {
    if (admin_) return Status::Ok();
    auto admin = JniHBaseAdmin::Connect(jvm_, settings_);
    if (!admin.ok()) return admin.status();
    admin_ = std::move(admin).value();
    spdlog::info("connected to HBase (zookeeper quorum {})",
                 settings_.count("hbase.zookeeper.quorum") ? settings_.at("hbase.zookeeper.quorum")
                                                           : "from hbase-site.xml");
    return Status::Ok();
  }

  JvmHost& jvm_;
  const std::map<std::string, std::string> settings_;
  std::unique_ptr<JniHBaseAdmin> admin_;
};

// A notification systemd did not get is worth a warning, never a stop.
void NotifySystemd(const Status& sent) {
  if (!sent.ok()) spdlog::warn("systemd: {}", sent.ToString());
}

std::string DaemonId() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace

Status RunDaemon(const DaemonOptions& options) {
  asio::io_context io;
  Notifier systemd;
  LoopWatchdog watchdog(io, systemd);

  PRESPLIT_ASSIGN_OR_RETURN(auto classpath, ResolveClasspath(options));
  spdlog::info("starting the embedded JVM ({} classpath entries)", classpath.size());
  JvmOptions jvm_options;
  jvm_options.classpath = classpath;
  jvm_options.max_heap = options.jvm_max_heap;
  jvm_options.options = options.jvm_options;
  PRESPLIT_ASSIGN_OR_RETURN(auto jvm, JvmHost::Start(jvm_options));

  // The HBase client's defaults retry for many minutes while HBase or ZooKeeper is down; the
  // daemon would rather fail a pass, report it, and try again on the next one.
  std::map<std::string, std::string> hbase_settings = {
      {"hbase.client.retries.number", "5"},
      {"zookeeper.recovery.retry", "2"},
      {"hbase.client.operation.timeout", "120000"},
  };
  for (const auto& [k, v] : options.hbase_settings) hbase_settings[k] = v;
  if (!hbase_settings.count("hbase.zookeeper.quorum") && options.hbase_conf_dir.empty()) {
    hbase_settings["hbase.zookeeper.quorum"] = options.zk_quorum;
  }
  auto admin = std::make_unique<ConnectOnDemandAdmin>(*jvm, hbase_settings);

  // Filled in below; the ZooKeeper handler only forwards events to the loop, which triggers it.
  PeriodicWorker* reconcile_worker = nullptr;
  std::atomic<bool> loop_ready{false};
  ZkOptions zk_options;
  zk_options.quorum = options.zk_quorum;
  zk_options.session_timeout_ms = options.zk_session_timeout_ms;
  auto on_zk_event = [&io, &reconcile_worker, &loop_ready](const ZkEvent& event) {
    if (!loop_ready) return;
    asio::post(io, [event, &reconcile_worker] {
      spdlog::debug("zookeeper event {} {}", static_cast<int>(event.type), event.path);
      if (event.type == ZkEventType::kSessionExpired) {
        spdlog::warn("ZooKeeper session expired; watches are re-armed on the next pass");
      }
      if (reconcile_worker != nullptr) reconcile_worker->Trigger();
    });
  };
  spdlog::info("connecting to ZooKeeper {} (root {})", options.zk_quorum, options.zk_root);
  PRESPLIT_ASSIGN_OR_RETURN(auto zk, ConnectZooKeeper(zk_options, on_zk_event));

  ReconcilerOptions reconciler_options;
  reconciler_options.zk_root = options.zk_root;
  reconciler_options.daemon_id = DaemonId();
  Reconciler reconciler(*zk, *admin, reconciler_options);

  std::mutex health_mu;
  std::string last_error = "no reconcile pass yet";
  auto last_success = std::chrono::steady_clock::time_point::min();
  bool prepared = false;
  PeriodicWorker worker("reconcile", std::chrono::seconds(options.resync_interval_s), [&] {
    Status s = prepared ? Status::Ok() : reconciler.Prepare();
    if (s.ok()) {
      prepared = true;
      s = reconciler.ReconcileAll();
    }
    std::lock_guard<std::mutex> lock(health_mu);
    if (s.ok()) {
      last_success = std::chrono::steady_clock::now();
      last_error.clear();
    } else {
      last_error = s.ToString();
      spdlog::warn("reconcile pass failed, retrying on the next event or in {} s: {}",
                   options.resync_interval_s, last_error);
    }
  });
  reconcile_worker = &worker;

  // The load watcher: the leader polls the region load of every documented table, scores it,
  // and splits hot regions of the tables whose documents turn load splits on.
  std::function<bool()> is_leader = [] { return true; };
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  watch::LoadWatcherOptions watch_options;
  watch_options.limits.max_splits = options.load_split_max_per_window;
  watch_options.limits.window_ms = int64_t{options.load_split_window_s} * 1000;
  watch::LoadWatcher load_watcher(*admin, watch_options, now_ms);
  std::atomic<uint64_t> load_polls{0}, load_poll_failures{0};
  auto last_tables_read = std::chrono::steady_clock::time_point::min();
  PeriodicWorker watch_worker(
      "load-watch", std::chrono::seconds(std::max(1, options.load_watch_interval_s)), [&] {
        // Every task on a worker catches what it throws: a bad answer must not end the daemon.
        try {
          if (!is_leader()) return;
          // The documents are re-read at the resync interval; the reconciler holds the watches.
          const auto now = std::chrono::steady_clock::now();
          if (now - last_tables_read >= std::chrono::seconds(options.resync_interval_s) ||
              last_tables_read == std::chrono::steady_clock::time_point::min()) {
            auto tables = watch::ReadWatchedTables(*zk, reconciler.TablesPath());
            if (tables.ok()) {
              load_watcher.SetTables(std::move(tables).value());
              last_tables_read = now;
            } else {
              spdlog::warn("load watcher: cannot read the documents: {}",
                           tables.status().ToString());
            }
          }
          Status polled = load_watcher.Poll();
          ++load_polls;
          if (!polled.ok()) {
            ++load_poll_failures;
            spdlog::warn("load watcher: poll failed, retrying in {} s: {}",
                         options.load_watch_interval_s, polled.ToString());
          }
        } catch (const std::exception& e) {
          ++load_poll_failures;
          spdlog::error("load watcher: poll threw, retrying on the next one: {}", e.what());
        }
      });

  HttpEndpoint http(io);
  if (!options.http_listen.empty()) {
    http.Handle("/healthz", [&]() -> HttpResponse {
      std::lock_guard<std::mutex> lock(health_mu);
      auto stale = std::chrono::seconds(3 * options.resync_interval_s + 30);
      if (last_error.empty() && std::chrono::steady_clock::now() - last_success < stale) {
        return {200, "text/plain", "ok\n"};
      }
      return {503, "text/plain",
              (last_error.empty() ? "no recent reconcile pass" : last_error) + "\n"};
    });
    http.Handle("/", []() -> HttpResponse {
      return {200, "text/html; charset=utf-8", std::string(web::StatusPageHtml())};
    });
    http.Handle("/status", [&]() -> HttpResponse {
      nlohmann::ordered_json status;
      status["daemon"]["id"] = reconciler_options.daemon_id;
      status["daemon"]["leader"] = is_leader();
      status["daemon"]["zk_root"] = options.zk_root;
      status["load"] = watch::LoadSnapshotJson(load_watcher.snapshot());
      return {200, "application/json",
              status.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"};
    });
    http.Handle("/metrics", [&]() -> HttpResponse {
      const auto& c = reconciler.counters();
      std::ostringstream out;
      auto counter = [&out](const char* name, const char* help, uint64_t value, const char* type) {
        out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
            << name << ' ' << value << '\n';
      };
      counter("presplit_reconcile_passes_total", "Reconcile passes run.", c.passes, "counter");
      counter("presplit_reconcile_pass_failures_total", "Passes that could not complete.",
              c.pass_failures, "counter");
      counter("presplit_tables_created_total", "Tables created pre-split.", c.tables_created,
              "counter");
      counter("presplit_documents_invalid_total", "Documents refused by validation.",
              c.documents_invalid, "counter");
      counter("presplit_hbase_errors_total", "HBase operations that failed.", c.hbase_errors,
              "counter");
      counter("presplit_drift_reports_total", "Tables found differing from their document.",
              c.drift_reports, "counter");
      counter("presplit_managed_tables", "Documents under the tables znode.", c.managed_tables,
              "gauge");
      counter("presplit_load_polls_total", "Load watcher polls run.", load_polls, "counter");
      counter("presplit_load_poll_failures_total", "Load watcher polls that failed.",
              load_poll_failures, "counter");
      watch::AppendLoadMetrics(out, load_watcher.snapshot(), now_ms());
      return {200, "text/plain; version=0.0.4", out.str()};
    });
    PRESPLIT_RETURN_IF_ERROR(http.Listen(options.http_listen));
    spdlog::info("serving /, /status, /healthz and /metrics on {}:{}",
                 options.http_listen.substr(0, options.http_listen.rfind(':')), http.port());
  }

  asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signo) {
        if (ec) return;
        if (signo == SIGHUP) {
          spdlog::info("SIGHUP: running a full reconcile pass");
          worker.Trigger();
          signals.async_wait(on_signal);
          return;
        }
        spdlog::info("{}: shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
        NotifySystemd(systemd.Stopping("shutting down"));
        watchdog.Stop();
        http.Close();
        io.stop();
      };
  signals.async_wait(on_signal);

  loop_ready = true;
  worker.Start();
  if (options.load_watch_interval_s > 0) watch_worker.Start();
  spdlog::info("presplitd running as {}", reconciler_options.daemon_id);
  // ZooKeeper is connected and the HTTP endpoint listens: ready, whether or not HBase is up yet.
  NotifySystemd(systemd.Ready("watching " + options.zk_root + " on " + options.zk_quorum));
  watchdog.Start();
  io.run();

  watch_worker.Stop();
  worker.Stop();
  reconcile_worker = nullptr;
  admin.reset();
  zk.reset();
  jvm.reset();
  spdlog::info("presplitd stopped");
  return Status::Ok();
}

}  // namespace presplit::daemon
