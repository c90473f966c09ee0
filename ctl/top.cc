// presplitctl top: the load watcher's view as an hbtop-like terminal table, refreshed in place:
// per watched table a summary line, then its regions sorted by request rate. Reads the daemon's
// GET /status (the leader's: a standby watches nothing), or a saved copy with --from.
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "ctl/common.h"
#include "ctl/http_get.h"

namespace presplit::ctl {
namespace {

using nlohmann::json;

double Number(const json& v) { return v.is_number() ? v.get<double>() : 0.0; }

// A string member, "" when absent or null (a daemon before generations has none).
std::string Text(const json& object, const char* key) {
  return object.contains(key) && object.at(key).is_string() ? object.at(key).get<std::string>()
                                                            : "";
}

std::string Rate(const json& v) {
  if (!v.is_number()) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(v.get<double>() >= 100 ? 0 : 1) << v.get<double>();
  return out.str();
}

std::string Bytes(double b) {
  static const char* units[] = {"B", "K", "M", "G", "T"};
  int i = 0;
  while (b >= 1024 && i < 4) {
    b /= 1024;
    ++i;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(i == 0 ? 0 : 1) << b << units[i];
  return out.str();
}

// The screen for one /status answer; `rows` limits the regions shown per table (0 = all).
std::string Render(const json& status, const std::string& only_table, int rows) {
  std::ostringstream out;
  const json& load = status.contains("load") ? status.at("load") : json::object();
  const json& daemon = status.contains("daemon") ? status.at("daemon") : json::object();
  out << "presplitd " << daemon.value("id", "?") << "  "
      << (daemon.value("leader", false) ? "leader" : "standby") << "  load splits "
      << load.value("splits_total", 0) << "\n";
  if (!load.value("error", std::string()).empty()) {
    out << "last load poll failed: " << load.at("error").get<std::string>() << "\n";
  }
  if (!load.contains("tables") || load.at("tables").empty()) {
    out << "no watched tables" << (daemon.value("leader", true) ? "" : " (a standby watches none)")
        << "\n";
    return out.str();
  }
  for (const json& t : load.at("tables")) {
    const std::string name = t.value("table", "");
    // The physical table whose regions these are: the document's own, another generation after
    // a re-salting migration's switch, or a migration's target shown beside it while it runs.
    const std::string physical =
        Text(t, "physical_table").empty() ? name : Text(t, "physical_table");
    if (!only_table.empty() && name != only_table && physical != only_table) continue;
    std::string title = name;
    if (physical != name) {
      title += " -> " + physical + " (generation " + std::to_string(t.value("generation", 1)) + ")";
    }
    if (Text(t, "role") == "migration_target") title += " [migration target]";
    out << "\n"
        << title << "  regions " << t.value("region_count", 0) << "  req/s "
        << Rate(t.value("requests_per_s", json())) << "  busiest "
        << Rate(t.value("max_requests_per_s", json())) << "  skew " << std::fixed
        << std::setprecision(2) << Number(t.value("request_skew", json())) << "  hot "
        << t.value("hot_regions", 0) << "  size " << Bytes(Number(t.value("size_bytes", json())))
        << "\n";
    if (!Text(t, "split_hold").empty())
      out << "load splits held: " << Text(t, "split_hold") << "\n";
    std::vector<json> regions(t.at("regions").begin(), t.at("regions").end());
    auto rate = [](const json& r) {
      return Number(r.value("read_per_s", json())) + Number(r.value("write_per_s", json()));
    };
    std::stable_sort(regions.begin(), regions.end(),
                     [&](const json& a, const json& b) { return rate(a) > rate(b); });
    out << std::left << std::setw(34) << "REGION" << std::setw(22) << "START KEY" << std::right
        << std::setw(10) << "READ/S" << std::setw(10) << "WRITE/S" << std::setw(9) << "SIZE"
        << std::setw(7) << "FILES" << std::setw(7) << "LOCAL"
        << "  SERVER\n";
    int shown = 0;
    for (const json& r : regions) {
      if (rows > 0 && shown++ >= rows) break;
      std::string start = r.value("start_key", "");
      if (start.size() > 20) start = start.substr(0, 19) + "~";
      std::ostringstream locality;
      locality << std::fixed << std::setprecision(2) << Number(r.value("locality", json()));
      out << std::left << std::setw(34)
          << (r.value("hot", false) ? "*" : " ") + r.value("region", "") << std::setw(22) << start
          << std::right << std::setw(10) << Rate(r.value("read_per_s", json())) << std::setw(10)
          << Rate(r.value("write_per_s", json())) << std::setw(9)
          << Bytes(Number(r.value("size_bytes", json()))) << std::setw(7)
          << r.value("store_files", 0) << std::setw(7) << locality.str() << "  "
          << r.value("server", "") << "\n";
    }
    if (t.contains("decisions") && !t.at("decisions").empty()) {
      const json& last = t.at("decisions").back();
      out << "last decision: " << last.value("action", "") << " " << last.value("region", "")
          << " at " << Rate(last.value("requests_per_s", json())) << " req/s (table mean "
          << Rate(last.value("table_mean_per_s", json())) << ")"
          << (last.contains("to_server") && last["to_server"].is_string()
                  ? " from " + last.value("from_server", "") + " to " +
                        last["to_server"].get<std::string>()
                  : "")
          << (last.value("reason", "").empty() ? "" : ": " + last.value("reason", "")) << "\n";
    }
  }
  return out.str();
}

int CmdTop(const Args& args) {
  if (!args.positional.empty()) return UsageError("top takes flags only");
  const std::string daemon = args.has("daemon") ? args.flag("daemon") : "127.0.0.1:9464";
  int rows = 20;
  double interval_s = 3;
  try {
    if (args.has("rows")) rows = std::stoi(args.flag("rows"));
    if (args.has("interval")) interval_s = std::stod(args.flag("interval"));
  } catch (const std::exception&) {
    return UsageError("--rows takes a whole number, --interval seconds");
  }
  if (rows < 0 || interval_s <= 0) return UsageError("--rows >= 0, --interval > 0");
  const bool once = args.has("once") || args.has("from");
  const std::string table = args.has("table") ? args.flag("table") : "";
  while (true) {
    Result<std::string> body = args.has("from")
                                   ? ReadInput(args.flag("from"))
                                   : HttpGet(daemon, "/status", std::chrono::seconds(5));
    std::string screen;
    if (body.ok()) {
      json status = json::parse(*body, nullptr, /*allow_exceptions=*/false);
      if (status.is_discarded() || !status.is_object()) {
        if (once) return Fail("/status is not a JSON object");
        screen = "/status is not a JSON object\n";
      } else {
        try {
          screen = Render(status, table, rows);
        } catch (const json::exception& e) {
          if (once) return Fail(std::string("unexpected /status: ") + e.what());
          screen = std::string("unexpected /status: ") + e.what() + "\n";
        }
      }
    } else {
      if (once) return Fail(body.status().message());
      screen = body.status().message() + "\n";
    }
    if (once) {
      std::cout << screen;
      return kOk;
    }
    // Home, clear, then the screen: the terminal shows one refreshing table, like hbtop.
    std::cout << "\x1b[H\x1b[2J" << screen << std::flush;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  }
}

}  // namespace

std::vector<CommandSpec> TopCommands() {
  return {
      {"top",
       {"daemon", "table", "rows", "interval", "from"},
       {"once"},
       "  top [--daemon HOST:PORT] [--table T] [--rows N] [--interval S] [--once] [--from FILE]\n"
       "                    the load watcher's view like hbtop: per watched table (the\n"
       "                    physical table serving each document, and a re-salting\n"
       "                    migration's target while it runs) its request rate, skew and hot\n"
       "                    regions, then its regions by request rate (* = hot), from the\n"
       "                    leader's GET /status (--table: a document or a physical table;\n"
       "                    default daemon 127.0.0.1:9464; --rows 20, 0 = all; refreshes every\n"
       "                    --interval 3 s until interrupted; --once prints one screen; --from\n"
       "                    reads a saved /status, - for stdin)\n",
       CmdTop}};
}

}  // namespace presplit::ctl
