// presplitctl advise: how many regions a table should start with, and why; with --table, what a
// live table needs (more regions, another split policy, a re-salt) from the load watcher's data.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "ctl/common.h"
#include "ctl/http_get.h"
#include "ctl/live_advice.h"
#include "presplit/json_bounds.h"
#include "presplit/planning.h"
#include "presplit/table_name.h"

namespace presplit::ctl {
namespace {

Result<int64_t> SizeFlag(const Args& args, const std::string& flag) {
  Result<int64_t> size = ParseByteSize(args.flag(flag));
  if (!size.ok()) return size.status().WithContext("--" + flag);
  return size;
}

Result<int> CountFlag(const Args& args, const std::string& flag) {
  const std::string& text = args.flag(flag);
  try {
    size_t used = 0;
    int value = std::stoi(text, &used);
    if (used != text.size() || value < 0) throw std::invalid_argument("bad");
    return value;
  } catch (const std::exception&) {
    return Status::InvalidArgument("--" + flag + " needs a whole number >= 0, got '" + text + "'");
  }
}

// A JSON object from a file, or an error naming it.
Result<nlohmann::json> ReadJsonObject(const std::string& path) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string text, ReadInput(path));
  // A saved status (or /status) nested too deep would overflow the stack in the copies below.
  PRESPLIT_RETURN_IF_ERROR(CheckJsonBounds(text, JsonBounds{std::string::npos, kMaxJsonDepth})
                               .WithContext(path + " cannot be read"));
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return Status::InvalidArgument(path + " is not a JSON object");
  return parsed;
}

int CmdAdviseLive(const Args& args, const std::string& format) {
  if (args.has("size") || args.has("daily-growth") || args.has("region-servers") ||
      args.has("creation-region-size") || args.has("max-regions")) {
    return UsageError(
        "advise --table takes the table's size and growth from the daemon; "
        "--size, --daily-growth, --region-servers, --creation-region-size and "
        "--max-regions are for a new table");
  }
  const std::string table = CanonicalTableName(args.flag("table"));
  AdviceRules rules;
  if (args.has("region-size")) {
    auto v = SizeFlag(args, "region-size");
    if (!v.ok()) return UsageError(v.status().message());
    if (*v <= 0) return UsageError("--region-size must be positive");
    rules.region_size = *v;
  }
  if (args.has("horizon-days")) {
    auto v = CountFlag(args, "horizon-days");
    if (!v.ok()) return UsageError(v.status().message());
    rules.horizon_days = *v;
  }
  // The watcher's live view (/status) and the table's status document, each from a saved file
  // when given, else from the daemon and ZooKeeper. Either may be missing; the advice says what
  // it could not see.
  std::vector<std::string> missing;
  std::optional<nlohmann::json> load, status;
  if (args.has("from")) {
    auto read = ReadJsonObject(args.flag("from"));
    if (!read.ok()) return Fail(read.status().message());
    load = *read;
  } else if (!args.has("status-from")) {
    const std::string daemon = args.has("daemon") ? args.flag("daemon") : "127.0.0.1:9464";
    auto body = HttpGet(daemon, "/status", std::chrono::seconds(5));
    nlohmann::json parsed =
        body.ok() ? nlohmann::json::parse(*body, nullptr, false) : nlohmann::json();
    if (parsed.is_object()) {
      load = parsed;
    } else {
      missing.push_back("the daemon's /status: " +
                        (body.ok() ? std::string("not a JSON object") : body.status().message()));
    }
  }
  if (args.has("status-from")) {
    auto read = ReadJsonObject(args.flag("status-from"));
    if (!read.ok()) return Fail(read.status().message());
    status = *read;
  } else if (!args.has("from")) {
    auto zk = Connect(args);
    Result<daemon::ZkNode> node =
        zk.ok() ? (*zk)->Get(daemon::JoinZkPath(StatusRoot(args), table), false) : zk.status();
    // Before the parser: a status nested too deep would overflow the stack when copied.
    const Status bounded = node.ok() ? CheckJsonBounds(node->data) : Status::Ok();
    nlohmann::json parsed = node.ok() && bounded.ok()
                                ? nlohmann::json::parse(node->data, nullptr, false)
                                : nlohmann::json();
    if (parsed.is_object()) {
      status = parsed;
    } else {
      missing.push_back("the status document: " + (!node.ok() ? node.status().message()
                                                   : !bounded.ok()
                                                       ? bounded.message()
                                                       : std::string("not a JSON object")));
    }
  }
  auto facts = FactsFromStatus(table, load ? &*load : nullptr, status ? &*status : nullptr);
  if (!facts.ok()) {
    std::string why = facts.status().message();
    for (const auto& m : missing) why += "; " + m;
    return Fail(why);
  }
  const LiveAdviceReport report = AdviseLive(*facts, rules);
  if (format == "json") {
    nlohmann::ordered_json out;
    out["table"] = table;
    out["facts"] = report.facts;
    out["daily_growth_bytes"] =
        report.daily_growth_bytes ? nlohmann::ordered_json(*report.daily_growth_bytes) : nullptr;
    out["advice"] = nlohmann::ordered_json::array();
    for (const auto& a : report.advice) {
      out["advice"].push_back({{"kind", a.kind}, {"rule", a.rule}, {"text", a.text}});
    }
    out["unavailable"] = missing;
    std::cout << out.dump(2) << "\n";
    return kOk;
  }
  std::cout << table << "\n";
  for (const auto& line : report.facts) std::cout << "  " << line << "\n";
  for (const auto& m : missing) std::cout << "  not read: " << m << "\n";
  if (report.advice.empty()) {
    std::cout << "advice: none; the table needs no change by these rules\n";
  }
  for (const auto& a : report.advice) std::cout << "advice [" << a.rule << "]: " << a.text << "\n";
  return kOk;
}

int CmdAdvise(const Args& args) {
  const std::string format = args.has("format") ? args.flag("format") : "text";
  if (format != "text" && format != "json") return UsageError("--format is text or json");
  if (!args.positional.empty()) return UsageError("advise takes flags only");
  if (args.has("table")) return CmdAdviseLive(args, format);
  for (const char* live_only : {"daemon", "from", "status-from"}) {
    if (args.has(live_only)) {
      return UsageError(std::string("--") + live_only + " goes with --table");
    }
  }
  if (!args.has("size")) return UsageError("advise needs --size SIZE (e.g. 11GB)");
  AdviseInput in;
  struct SizeSetting {
    const char* flag;
    int64_t* target;
  };
  for (const SizeSetting& s :
       {SizeSetting{"size", &in.table_size}, SizeSetting{"daily-growth", &in.daily_growth},
        SizeSetting{"creation-region-size", &in.creation_region_size},
        SizeSetting{"region-size", &in.grown_region_size}}) {
    if (!args.has(s.flag)) continue;
    auto v = SizeFlag(args, s.flag);
    if (!v.ok()) return UsageError(v.status().message());
    *s.target = *v;
  }
  struct CountSetting {
    const char* flag;
    int* target;
  };
  for (const CountSetting& c : {CountSetting{"horizon-days", &in.horizon_days},
                                CountSetting{"region-servers", &in.region_servers},
                                CountSetting{"max-regions", &in.max_regions}}) {
    if (!args.has(c.flag)) continue;
    auto v = CountFlag(args, c.flag);
    if (!v.ok()) return UsageError(v.status().message());
    *c.target = *v;
  }
  auto advice = Advise(in);
  if (!advice.ok()) return Fail(advice.status().message());
  if (format == "json") {
    nlohmann::ordered_json out;
    out["regions"] = advice->regions;
    out["table_size"] = in.table_size;
    out["projected_size"] = advice->projected_size;
    out["by_creation_size"] = advice->by_creation_size;
    out["by_grown_size"] = advice->by_grown_size;
    out["explanation"] = advice->explanation;
    std::cout << out.dump(2) << "\n";
    return kOk;
  }
  std::cout << advice->regions << "\n";
  for (const std::string& line : advice->explanation) std::cout << "  " << line << "\n";
  return kOk;
}

}  // namespace

std::vector<CommandSpec> AdviseCommands() {
  return {
      {"advise",
       {"size", "daily-growth", "horizon-days", "region-servers", "creation-region-size",
        "region-size", "max-regions", "format", "table", "daemon", "from", "status-from"},
       {},
       "  advise --size SIZE [--daily-growth SIZE --horizon-days D] [--region-servers N]\n"
       "         [--creation-region-size SIZE (2GB)] [--region-size SIZE (10GB)]\n"
       "         [--max-regions N (120)] [--format text|json]\n"
       "                        a region count for a new table, with the reasoning; sizes like\n"
       "                        11GB, 500M (binary units)\n"
       "  advise --table T [--daemon HOST:PORT | --from FILE] [--status-from FILE]\n"
       "         [--region-size SIZE (10GB)] [--horizon-days D (90)] [--format text|json]\n"
       "                        what a live table needs (more regions, another split policy,\n"
       "                        a re-salt to more buckets), with its numbers and the rule behind\n"
       "                        each advice: size and request rates from the leader's GET\n"
       "                        /status (default daemon 127.0.0.1:9464), buckets, decisions and\n"
       "                        size history (growth) from the table's status znode; all of\n"
       "                        the physical table serving the document now (after a re-salt,\n"
       "                        the generation its status names); --from / --status-from read\n"
       "                        saved copies instead (no network)\n",
       &CmdAdvise},
  };
}

}  // namespace presplit::ctl
