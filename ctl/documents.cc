// presplitctl's ZooKeeper commands: put, get, list, rm, status.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "ctl/common.h"
#include "ctl/document_removal.h"
#include "daemon/zk/zk_client.h"
#include "presplit/json_bounds.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"
#include "presplit/table_name.h"

namespace presplit::ctl {
namespace {

using daemon::JoinZkPath;

std::string ResolveTableName(daemon::ZkClient& zk, const Args& args, const std::string& typed);

int CmdPut(const Args& args) {
  if (args.positional.size() != 1) return UsageError("put needs one FILE (or - for stdin)");
  if (args.flags.count("table") && !args.flags.count("force")) {
    return UsageError("--table goes with --force; a valid document names its own table");
  }
  auto text = ReadInput(args.positional[0]);
  if (!text.ok()) return Fail(text.status().message());
  std::string table;
  size_t regions = 0;
  if (args.flags.count("force")) {
    if (args.flags.count("table")) {
      table = CanonicalTableName(args.flags.at("table"));
    } else {
      auto doc = ParseBoundedJson(*text);
      if (doc.is_discarded() || !doc.is_object() || !doc.contains("table") ||
          !doc["table"].is_string()) {
        return UsageError("--force needs --table NAME when the document does not name its table");
      }
      table = CanonicalTableName(doc["table"].get<std::string>());
    }
  } else {
    auto config = ParseTableConfig(*text);
    if (!config.ok()) {
      return RefuseDocument("document refused, nothing written", config.status());
    }
    auto keys = ComputeSplitKeys(*config);
    if (!keys.ok()) return RefuseDocument("document refused, nothing written", keys.status());
    table = config->FullName();
    regions = keys->size() + 1;
  }
  auto acls = Acls(args);
  if (!acls.ok()) return Fail(acls.status().message());
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  Status s = (*zk)->EnsurePath(args.root, acls->root);
  if (s.ok()) s = (*zk)->EnsurePath(TablesPath(args), acls->tables);
  if (!s.ok()) return Fail(s.message());
  const std::string path = JoinZkPath(TablesPath(args), table);
  auto current = (*zk)->Get(path, false);
  if (current.ok() && current->data == *text) {
    // Nothing to do, and no new revision for the daemon to look at.
    std::cout << path << " is already this document; nothing written\n";
    return kOk;
  }
  s = (*zk)->Upsert(path, *text, acls->document);
  if (!s.ok()) return Fail(s.message());
  if (args.flags.count("force")) {
    std::cout << "wrote " << path << " without validation\n";
  } else {
    std::cout << "wrote " << path << " (" << regions << " regions planned)\n";
  }
  return kOk;
}

int CmdGet(const Args& args) {
  if (args.positional.size() != 1) return UsageError("get needs one TABLE");
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  const std::string table = ResolveTableName(**zk, args, args.positional[0]);
  auto node = (*zk)->Get(JoinZkPath(TablesPath(args), table), false);
  if (!node.ok()) {
    return Fail(node.status().code() == StatusCode::kNotFound ? "no document for " + table
                                                              : node.status().message());
  }
  std::cout << node->data;
  if (node->data.empty() || node->data.back() != '\n') std::cout << "\n";
  return kOk;
}

int CmdRm(const Args& args) {
  if (args.positional.size() != 1) return UsageError("rm needs one TABLE");
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  const std::string table = ResolveTableName(**zk, args, args.positional[0]);
  Status s = RemoveDocument(**zk, args.root, table);
  if (s.code() == StatusCode::kNotFound) return Fail("no document for " + table);
  if (!s.ok()) return Fail(s.message());
  std::cout << "removed the document of " << table << "; the HBase table is left as it is\n";
  return kOk;
}

Result<nlohmann::json> ReadStatus(daemon::ZkClient& zk, const Args& args,
                                  const std::string& table) {
  auto node = zk.Get(JoinZkPath(StatusRoot(args), table), false);
  if (!node.ok()) return node.status();
  // Before the parser: printing a status nested too deep would overflow the stack.
  Status bounded = CheckJsonBounds(node->data);
  if (!bounded.ok()) return bounded.WithContext("status of " + table + " cannot be read");
  auto doc = nlohmann::json::parse(node->data, nullptr, false);
  if (doc.is_discarded()) return Status::Internal("status of " + table + " is not JSON");
  return doc;
}

// The znode name an operator means: the canonical "ns:table" when a document or status has that
// name, else the name exactly as typed when one has it (a document written straight into
// ZooKeeper under a name presplitctl would not use), else the canonical name.
std::string ResolveTableName(daemon::ZkClient& zk, const Args& args, const std::string& typed) {
  const std::string canonical = CanonicalTableName(typed);
  if (canonical == typed) return canonical;
  auto exists = [&](const std::string& name) {
    return zk.Get(JoinZkPath(TablesPath(args), name), false).ok() ||
           zk.Get(JoinZkPath(StatusRoot(args), name), false).ok();
  };
  if (!exists(canonical) && exists(typed)) return typed;
  return canonical;
}

std::string Cell(const nlohmann::json& doc, const char* key) {
  if (!doc.contains(key) || doc[key].is_null()) return "-";
  const auto& v = doc[key];
  return v.is_string() ? v.get<std::string>()
                       : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One aligned row per status, like hbtop's table: TABLE PHASE REGIONS BUCKETS GENERATION
// UPDATED ERROR (the error last, whole, on one line).
void PrintStatusTable(const std::vector<std::pair<std::string, nlohmann::json>>& statuses) {
  const std::vector<std::string> headers = {"TABLE",      "PHASE",   "REGIONS", "BUCKETS",
                                            "GENERATION", "UPDATED", "ERROR"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, doc] : statuses) {
    std::string error = Cell(doc, "error");
    std::replace(error.begin(), error.end(), '\n', ' ');
    rows.push_back({name, Cell(doc, "phase"), Cell(doc, "regions"), Cell(doc, "buckets"),
                    Cell(doc, "generation"), Cell(doc, "updated_at"), error});
  }
  std::vector<size_t> widths(headers.size());
  for (size_t i = 0; i < headers.size(); ++i) widths[i] = headers[i].size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  };
  print(headers);
  for (const auto& row : rows) print(row);
}

int CmdList(const Args& args) {
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  auto names = (*zk)->GetChildren(TablesPath(args), false);
  if (!names.ok()) {
    if (names.status().code() == StatusCode::kNotFound) return kOk;  // nothing written yet
    return Fail(names.status().message());
  }
  for (const auto& name : *names) {
    auto status = ReadStatus(**zk, args, name);
    std::string phase = "pending", regions = "-";
    if (status.ok()) {
      phase = status->value("phase", "unknown");
      regions = std::to_string(status->value("regions", 0));
    }
    std::cout << name << "\t" << phase << "\t" << regions << "\n";
  }
  return kOk;
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int CmdStatus(const Args& args) {
  if (args.positional.size() > 1) return UsageError("status takes at most one TABLE");
  std::string format = args.flags.count("format") ? args.flags.at("format") : "table";
  if (format != "table" && format != "json") return UsageError("--format is table or json");
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  if (args.positional.empty()) {
    auto names = (*zk)->GetChildren(StatusRoot(args), false);
    if (!names.ok() && names.status().code() != StatusCode::kNotFound) {
      return Fail(names.status().message());
    }
    std::vector<std::pair<std::string, nlohmann::json>> statuses;
    for (const auto& name : names.ok() ? *names : std::vector<std::string>{}) {
      auto status = ReadStatus(**zk, args, name);
      if (!status.ok()) {
        // Removed meanwhile is nothing to say; a status that cannot be read is, on stderr so
        // that stdout stays one status a line.
        if (status.status().code() == StatusCode::kInvalidArgument) {
          std::cerr << "presplitctl: warning: " << status.status().message() << "\n";
        }
        continue;
      }
      if (format == "json") {
        std::cout << status->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      } else {
        statuses.emplace_back(name, *status);
      }
    }
    if (format == "table") PrintStatusTable(statuses);
    return kOk;
  }
  const std::string table = ResolveTableName(**zk, args, args.positional[0]);
  std::vector<std::string> wanted;
  if (args.flags.count("wait")) wanted = SplitCommas(args.flags.at("wait"));
  int timeout_s = 60;
  if (args.flags.count("timeout")) {
    try {
      timeout_s = std::stoi(args.flags.at("timeout"));
    } catch (const std::exception&) {
      return UsageError("--timeout needs a number of seconds");
    }
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    // A wait may outlive its session (a long GC pause, a partition). presplitctl holds nothing
    // tied to it, so an expired session is simply replaced; a failure is retried next round.
    if ((*zk)->SessionExpired()) (void)(*zk)->StartNewSession();
    auto status = ReadStatus(**zk, args, table);
    bool reached = false;
    if (status.ok()) {
      const std::string phase = status->value("phase", "");
      reached = wanted.empty() || std::find(wanted.begin(), wanted.end(), phase) != wanted.end();
      if (reached && !wanted.empty()) {
        // The status must describe the document as it is now, not the version before a put.
        auto document = (*zk)->Get(JoinZkPath(TablesPath(args), table), false);
        if (document.ok()) {
          const auto& version = (*status)["config_version"];
          reached = version.is_number_integer() && version.get<int64_t>() == document->version;
        }
      }
      if (reached) {
        std::cout << status->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kOk;
      }
    } else if (wanted.empty()) {
      return Fail(status.status().code() == StatusCode::kNotFound
                      ? "no status for " + table + " (no document, or the daemon has not seen it)"
                      : status.status().message());
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      if (status.ok()) {
        std::cout << status->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      }
      // A status that was there but could not be read says why it never matched.
      const std::string unreadable =
          !status.ok() && status.status().code() == StatusCode::kInvalidArgument
              ? " (" + status.status().message() + ")"
              : "";
      return Fail("timed out after " + std::to_string(timeout_s) + " s waiting for " + table +
                  " to reach " + args.flags.at("wait") + " for its current document version" +
                  unreadable);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

std::vector<CommandSpec> DocumentCommands() {
  return {
      {"put",
       {"table"},
       {"force"},
       "  put FILE|-            validate a table document, then write it to "
       "<root>/tables/<ns>:<table>\n"
       "      [--force]         write without validating (reproduces what a faulty portal would\n"
       "                        write; the daemon refuses it and reports why in the status)\n"
       "      [--table NAME]    with --force: the znode name when the document cannot say\n",
       &CmdPut},
      {"get", {}, {}, "  get TABLE             print a table's document\n", &CmdGet},
      {"list",
       {},
       {},
       "  list                  one line per document: table, phase, regions\n",
       &CmdList},
      {"rm",
       {},
       {},
       "  rm TABLE              remove a document (the HBase table and its data are left alone);\n"
       "                        refused while a re-salt migration of the table is under way\n",
       &CmdRm},
      {"status",
       {"wait", "timeout", "format"},
       {},
       "  status [TABLE]        print the daemon's status for a table (JSON); without TABLE, one\n"
       "                        aligned row per table: TABLE PHASE REGIONS BUCKETS GENERATION\n"
       "                        UPDATED ERROR. TABLE is a document's name (t means default:t,\n"
       "                        unless only a znode named exactly t exists)\n"
       "      [--wait PHASES]   wait until the status describes the document's current version\n"
       "                        and its phase is one of PHASES (comma-separated, e.g. "
       "ready,error)\n"
       "      [--timeout SECS]  how long --wait waits (default 60)\n"
       "      [--format F]      without TABLE: table (default) or json (one object a line)\n",
       &CmdStatus},
  };
}

}  // namespace presplit::ctl
