// presplitctl: the portal's tool. Writes and reads table documents in ZooKeeper, shows what the
// daemon reported, and plans split keys offline.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "presplit/table_config.h"
#include "reconciler.h"
#include "zk_client.h"

namespace {

using presplit::Result;
using presplit::Status;
using presplit::StatusCode;
using presplit::daemon::CanonicalTableName;
using presplit::daemon::JoinZkPath;

constexpr int kOk = 0;
constexpr int kFailure = 1;
constexpr int kUsage = 2;

constexpr const char* kHelp = R"(usage: presplitctl [--zk QUORUM] [--root PATH] COMMAND [ARGS]

Writes presplit table documents to ZooKeeper (the daemon presplitd creates the tables) and plans
split keys offline.

commands:
  put FILE|-            validate a table document, then write it to <root>/tables/<ns>:<table>
      [--force]         write without validating (reproduces what a faulty portal would
                        write; the daemon refuses it and reports why in the status)
      [--table NAME]    with --force: the znode name when the document cannot say
  get TABLE             print a table's document
  list                  one line per document: table, phase, regions
  rm TABLE              remove a document (the HBase table and its data are left alone)
  status [TABLE]        print the daemon's status for a table (JSON), or for all tables
      [--wait PHASES]   wait until the phase is one of PHASES (comma-separated, e.g. ready,error)
      [--timeout SECS]  how long --wait waits (default 60)
  plan FILE|-           print the split keys a document plans, one per line
  plan --algorithm ALGO --regions N [--first-row R] [--last-row R] [--salt-encoding ENC]
                        ALGO: hex-string, decimal-string, uniform, salt-buckets
                        ENC (salt-buckets): byte, decimal, hex (default decimal)

Keys are printed in HBase's Bytes.toStringBinary form, one per line and nothing else on stdout,
so the output of plan can be used as the HBase shell's SPLITS_FILE as it is.

options:
  --zk QUORUM   ZooKeeper quorum (default: $PRESPLIT_ZK_QUORUM or 127.0.0.1:2181)
  --root PATH   presplit's root znode (default: /presplit)
  --help        this text

exit codes: 0 ok, 1 failure (including a refused document), 2 usage error.
)";

struct Args {
  std::string zk_quorum;
  std::string root = "/presplit";
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // --flag value, or "" for switches
};

int Fail(const std::string& message) {
  std::cerr << "presplitctl: " << message << "\n";
  return kFailure;
}

int UsageError(const std::string& message) {
  std::cerr << "presplitctl: " << message << "\n(see presplitctl --help)\n";
  return kUsage;
}

Result<std::string> ReadInput(const std::string& path) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
  } else {
    std::ifstream in(path);
    if (!in) return Status::NotFound("cannot read " + path);
    buffer << in.rdbuf();
  }
  return buffer.str();
}

Result<std::unique_ptr<presplit::daemon::ZkClient>> Connect(const Args& args) {
  presplit::daemon::ZkOptions options;
  options.quorum = args.zk_quorum;
  options.connect_timeout_ms = 10000;
  auto zk = presplit::daemon::ConnectZooKeeper(options);
  if (!zk.ok()) return zk.status().WithContext("ZooKeeper " + args.zk_quorum);
  return zk;
}

std::string TablesPath(const Args& a) { return JoinZkPath(a.root, "tables"); }
std::string StatusRoot(const Args& a) { return JoinZkPath(a.root, "status"); }

int PrintKeys(const std::vector<std::string>& keys) {
  for (const auto& k : keys) std::cout << presplit::ToStringBinary(k) << "\n";
  return kOk;
}

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
      auto doc = nlohmann::json::parse(*text, nullptr, false);
      if (doc.is_discarded() || !doc.is_object() || !doc.contains("table") ||
          !doc["table"].is_string()) {
        return UsageError("--force needs --table NAME when the document does not name its table");
      }
      table = CanonicalTableName(doc["table"].get<std::string>());
    }
  } else {
    auto config = presplit::ParseTableConfig(*text);
    if (!config.ok()) {
      return Fail("document refused, nothing written: " + config.status().message());
    }
    auto keys = presplit::ComputeSplitKeys(*config);
    if (!keys.ok()) return Fail("document refused, nothing written: " + keys.status().message());
    table = config->FullName();
    regions = keys->size() + 1;
  }
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  Status s = (*zk)->EnsurePath(TablesPath(args));
  if (!s.ok()) return Fail(s.message());
  const std::string path = JoinZkPath(TablesPath(args), table);
  auto current = (*zk)->Get(path, false);
  if (current.ok() && current->data == *text) {
    // Nothing to do, and no new revision for the daemon to look at.
    std::cout << path << " is already this document; nothing written\n";
    return kOk;
  }
  s = (*zk)->Upsert(path, *text);
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
  auto node =
      (*zk)->Get(JoinZkPath(TablesPath(args), CanonicalTableName(args.positional[0])), false);
  if (!node.ok()) {
    return Fail(node.status().code() == StatusCode::kNotFound
                    ? "no document for " + CanonicalTableName(args.positional[0])
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
  const std::string table = CanonicalTableName(args.positional[0]);
  Status s = (*zk)->Delete(JoinZkPath(TablesPath(args), table));
  if (s.code() == StatusCode::kNotFound) return Fail("no document for " + table);
  if (!s.ok()) return Fail(s.message());
  std::cout << "removed the document of " << table << "; the HBase table is left as it is\n";
  return kOk;
}

Result<nlohmann::json> ReadStatus(presplit::daemon::ZkClient& zk, const Args& args,
                                  const std::string& table) {
  auto node = zk.Get(JoinZkPath(StatusRoot(args), table), false);
  if (!node.ok()) return node.status();
  auto doc = nlohmann::json::parse(node->data, nullptr, false);
  if (doc.is_discarded()) return Status::Internal("status of " + table + " is not JSON");
  return doc;
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
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  if (args.positional.empty()) {
    auto names = (*zk)->GetChildren(StatusRoot(args), false);
    if (!names.ok() && names.status().code() != StatusCode::kNotFound) {
      return Fail(names.status().message());
    }
    for (const auto& name : names.ok() ? *names : std::vector<std::string>{}) {
      auto status = ReadStatus(**zk, args, name);
      if (status.ok()) std::cout << status->dump() << "\n";
    }
    return kOk;
  }
  const std::string table = CanonicalTableName(args.positional[0]);
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
    auto status = ReadStatus(**zk, args, table);
    bool reached = false;
    if (status.ok()) {
      const std::string phase = status->value("phase", "");
      reached = wanted.empty() || std::find(wanted.begin(), wanted.end(), phase) != wanted.end();
      if (reached) {
        std::cout << status->dump(2) << "\n";
        return kOk;
      }
    } else if (wanted.empty()) {
      return Fail(status.status().code() == StatusCode::kNotFound
                      ? "no status for " + table + " (no document, or the daemon has not seen it)"
                      : status.status().message());
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      if (status.ok()) std::cout << status->dump(2) << "\n";
      return Fail("timed out after " + std::to_string(timeout_s) + " s waiting for " + table +
                  " to reach " + args.flags.at("wait"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

int CmdPlan(const Args& args) {
  if (!args.flags.count("algorithm")) {
    if (args.positional.size() != 1) {
      return UsageError("plan needs a document FILE, or --algorithm and --regions");
    }
    auto text = ReadInput(args.positional[0]);
    if (!text.ok()) return Fail(text.status().message());
    auto config = presplit::ParseTableConfig(*text);
    if (!config.ok()) return Fail("document refused: " + config.status().message());
    auto keys = presplit::ComputeSplitKeys(*config);
    if (!keys.ok()) return Fail(keys.status().message());
    return PrintKeys(*keys);
  }
  if (!args.positional.empty()) return UsageError("plan takes a FILE or --algorithm, not both");
  auto algorithm = presplit::ParseSplitAlgorithm(args.flags.at("algorithm"));
  if (!algorithm.ok()) return UsageError(algorithm.status().message());
  if (!args.flags.count("regions")) return UsageError("plan --algorithm needs --regions N");
  int regions = 0;
  try {
    size_t used = 0;
    regions = std::stoi(args.flags.at("regions"), &used);
    if (used != args.flags.at("regions").size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    return UsageError("--regions needs a whole number, got '" + args.flags.at("regions") + "'");
  }
  std::optional<std::string> first, last;
  if (args.flags.count("first-row")) first = args.flags.at("first-row");
  if (args.flags.count("last-row")) last = args.flags.at("last-row");
  Result<std::vector<std::string>> keys = Status::InvalidArgument("unsupported algorithm");
  switch (*algorithm) {
    case presplit::SplitAlgorithm::kHexString:
      keys = presplit::HexStringSplit(regions, first, last);
      break;
    case presplit::SplitAlgorithm::kDecimalString:
      keys = presplit::DecimalStringSplit(regions, first, last);
      break;
    case presplit::SplitAlgorithm::kUniform: {
      // Rows on the command line are in toStringBinary form, like every key presplit reads.
      if (first) first = presplit::ToBytesBinary(*first);
      if (last) last = presplit::ToBytesBinary(*last);
      keys = presplit::UniformSplit(regions, first, last);
      break;
    }
    case presplit::SplitAlgorithm::kSaltBuckets: {
      auto encoding = presplit::ParseSaltEncoding(args.flags.count("salt-encoding")
                                                      ? args.flags.at("salt-encoding")
                                                      : std::string("decimal"));
      if (!encoding.ok()) return UsageError(encoding.status().message());
      keys = presplit::SaltBucketSplit(regions, *encoding);
      break;
    }
    case presplit::SplitAlgorithm::kExplicit:
      return UsageError("explicit keys come from a document: use plan FILE");
  }
  if (!keys.ok()) return Fail(keys.status().message());
  return PrintKeys(*keys);
}

}  // namespace

int main(int argc, char** argv) {
  // stdout carries results only (plan's keys feed SPLITS_FILE); diagnostics go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("presplitctl"));
  spdlog::set_level(spdlog::level::warn);
  Args args;
  const char* env_quorum = std::getenv("PRESPLIT_ZK_QUORUM");
  args.zk_quorum = env_quorum && *env_quorum ? env_quorum : "127.0.0.1:2181";
  static const std::set<std::string> kValueFlags = {
      "zk",        "root",    "table",     "wait",     "timeout",
      "algorithm", "regions", "first-row", "last-row", "salt-encoding"};
  static const std::set<std::string> kSwitches = {"force"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kHelp;
      return kOk;
    }
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      std::string name = arg.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (kValueFlags.count(name)) {
        if (i + 1 >= argc) return UsageError("--" + name + " needs a value");
        value = argv[++i];
      }
      if (!kValueFlags.count(name) && !kSwitches.count(name)) {
        return UsageError("unknown option --" + name);
      }
      if (name == "zk") {
        args.zk_quorum = value;
      } else if (name == "root") {
        args.root = value;
      } else {
        args.flags[name] = value;
      }
    } else if (args.command.empty()) {
      args.command = arg;
    } else {
      args.positional.push_back(arg);
    }
  }
  if (args.command.empty()) return UsageError("no command given");
  // Which flags each command accepts, so a misplaced flag is an error rather than ignored.
  static const std::map<std::string, std::set<std::string>> kCommandFlags = {
      {"put", {"force", "table"}},
      {"get", {}},
      {"list", {}},
      {"rm", {}},
      {"status", {"wait", "timeout"}},
      {"plan", {"algorithm", "regions", "first-row", "last-row", "salt-encoding"}},
  };
  auto allowed = kCommandFlags.find(args.command);
  if (allowed == kCommandFlags.end()) return UsageError("unknown command '" + args.command + "'");
  for (const auto& [flag, value] : args.flags) {
    if (!allowed->second.count(flag)) {
      return UsageError("--" + flag + " does not apply to " + args.command);
    }
  }
  if (args.command == "put") return CmdPut(args);
  if (args.command == "get") return CmdGet(args);
  if (args.command == "list") return CmdList(args);
  if (args.command == "rm") return CmdRm(args);
  if (args.command == "status") return CmdStatus(args);
  return CmdPlan(args);
}
