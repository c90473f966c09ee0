// presplitd: creates the tables the portal describes in ZooKeeper, pre-split. Thin main: parse
// flags, set up logging, hand over to RunDaemon.
#include <spdlog/spdlog.h>

#include <cstring>
#include <iostream>
#include <string>

#include "daemon/runner/daemon_options.h"
#include "daemon/runner/daemon_runner.h"

namespace {

constexpr const char* kUsage =
    R"(usage: presplitd [--config FILE] [--set KEY=VALUE ...] [--log-level LEVEL]

Watches <zk_root>/tables in ZooKeeper and creates each described HBase table pre-split,
reporting to <zk_root>/status/<namespace>:<table>. Runs in the foreground (for systemd).
Several presplitd may share one zk_root: they elect a leader under <zk_root>/leader and only
the leader acts; the others stand by (healthy, presplit_leader 0 on /metrics).

options:
  --config FILE      key = value settings (default: /etc/presplit/presplitd.conf if it exists)
  --set KEY=VALUE    override one setting (repeatable), e.g. --set zk_quorum=127.0.0.1:2181
  --log-level LEVEL  trace, debug, info, warn, error, critical, off (default: info)
  --help             this text
  --version          print the version

settings (key = default  [range]  (SIGHUP applies it)), in the config file or --set; see
conf/presplitd.conf, presplitd(8) and the reference (docs/reference/config.md):
)";

constexpr const char* kUsageEnd = R"(

signals: SIGTERM/SIGINT stop cleanly (within 20 s: an HBase call still running then is
abandoned); SIGHUP re-reads the config file (the settings marked so above apply at once,
other changed settings are logged as needing a restart) and runs a full reconcile pass.
systemd: with $NOTIFY_SOCKET (a Type=notify unit) it sends READY=1 once ZooKeeper is connected
and the HTTP endpoint listens, WATCHDOG=1 from its event loop when WatchdogSec is set, and
STOPPING=1 on SIGTERM/SIGINT.
exit codes: 0 clean stop, 1 failure, 2 usage error.
)";

std::string Usage() { return std::string(kUsage) + presplit::daemon::SettingsUsage() + kUsageEnd; }

}  // namespace

int main(int argc, char** argv) {
  using presplit::daemon::DaemonOptions;
  DaemonOptions options;
  std::string config_path;
  std::vector<std::pair<std::string, std::string>> overrides;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "presplitd: " << flag << " needs a value\n" << Usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << Usage();
      return 0;
    } else if (arg == "--version") {
      std::cout << "presplitd " << PRESPLIT_VERSION << "\n";
      return 0;
    } else if (arg == "--config") {
      config_path = next("--config");
    } else if (arg == "--set") {
      std::string kv = next("--set");
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        std::cerr << "presplitd: --set expects KEY=VALUE, got '" << kv << "'\n";
        return 2;
      }
      overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (arg == "--log-level") {
      overrides.emplace_back("log_level", next("--log-level"));
    } else {
      std::cerr << "presplitd: unknown argument '" << arg << "'\n" << Usage();
      return 2;
    }
  }

  // Read at start and again on SIGHUP: the same file, then the same command-line overrides.
  auto load = [config_path, overrides]() -> presplit::Result<DaemonOptions> {
    DaemonOptions loaded;
    presplit::Status s;
    if (!config_path.empty()) {
      s = presplit::daemon::ApplyConfigFile(config_path, loaded);
    } else if (FILE* f = std::fopen("/etc/presplit/presplitd.conf", "r")) {
      std::fclose(f);
      s = presplit::daemon::ApplyConfigFile("/etc/presplit/presplitd.conf", loaded);
    }
    for (const auto& [k, v] : overrides) {
      if (!s.ok()) break;
      s = presplit::daemon::ApplyOption(k, v, loaded).WithContext("--set " + k);
    }
    if (s.ok()) s = presplit::daemon::CheckOptions(loaded);
    if (!s.ok()) return s;
    return loaded;
  };
  auto loaded = load();
  if (!loaded.ok()) {
    std::cerr << "presplitd: " << loaded.status().message() << "\n";
    return 2;
  }
  options = std::move(loaded).value();
  options.reload = load;

  spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ [%t] %v");
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  spdlog::flush_on(spdlog::level::info);

  presplit::Status s = presplit::daemon::RunDaemon(options);
  if (!s.ok()) {
    spdlog::critical("presplitd cannot run: {}", s.ToString());
    return 1;
  }
  return 0;
}
