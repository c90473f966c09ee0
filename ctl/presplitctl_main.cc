// presplitctl: the portal's tool. Writes and reads table documents in ZooKeeper, shows what the
// daemon reported, and plans split keys offline. Each command lives in a ctl_*.cc file.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "ctl/common.h"

namespace {

using presplit::ctl::Args;
using presplit::ctl::CommandSpec;
using presplit::ctl::UsageError;

void PrintHelp() {
  std::cout << R"(usage: presplitctl [--zk QUORUM] [--root PATH] [--auth-file FILE] COMMAND [ARGS]

Writes presplit table documents to ZooKeeper (the daemon presplitd creates the tables), plans
split keys offline, and bulk-imports row files into the tables presplitd created.

commands:
)";
  for (const auto& c : presplit::ctl::Commands()) std::cout << c.help;
  std::cout << R"(
Keys are printed in HBase's Bytes.toStringBinary form, one per line and nothing else on stdout,
so the output of plan can be used as the HBase shell's SPLITS_FILE as it is. Keys given on the
command line or in files are read in the same form (\xHH escapes for binary bytes).

options:
  --zk QUORUM   ZooKeeper quorum (default: $PRESPLIT_ZK_QUORUM or 127.0.0.1:2181)
  --root PATH   presplit's root znode (default: /presplit)
  --auth-file FILE
                ZooKeeper credentials and ACL identities (the format of presplitd's
                zk_auth_file; default: $PRESPLIT_ZK_AUTH_FILE, else unauthenticated). With it,
                put creates documents that only the portal identity may change; migration
                pause|resume|abort|rollback need the portal identity too.
  --help        this text

exit codes: 0 ok, 1 failure (including a refused document), 2 usage error.
)";
}

const CommandSpec* FindCommand(const std::string& name) {
  for (const auto& c : presplit::ctl::Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // stdout carries results only (plan's keys feed SPLITS_FILE); diagnostics go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("presplitctl"));
  spdlog::set_level(spdlog::level::warn);
  Args args;
  const char* env_quorum = std::getenv("PRESPLIT_ZK_QUORUM");
  args.zk_quorum = env_quorum && *env_quorum ? env_quorum : "127.0.0.1:2181";
  const char* env_auth_file = std::getenv("PRESPLIT_ZK_AUTH_FILE");
  if (env_auth_file != nullptr) args.zk_auth_file = env_auth_file;

  // The command comes first among the non-flag words; its spec says which flags take values.
  const CommandSpec* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      PrintHelp();
      return presplit::ctl::kOk;
    }
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      std::string name = arg.substr(2), value;
      size_t eq = name.find('=');
      bool has_value = eq != std::string::npos;
      if (has_value) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      bool global = name == "zk" || name == "root" || name == "auth-file";
      bool takes_value = global || (command && command->value_flags.count(name));
      bool is_switch = command && command->switches.count(name);
      if (!takes_value && !is_switch) {
        return UsageError(command ? "--" + name + " does not apply to " + command->name
                                  : "unknown option --" + name + " (before the command?)");
      }
      if (takes_value && !has_value) {
        if (i + 1 >= argc) return UsageError("--" + name + " needs a value");
        value = argv[++i];
      }
      if (name == "zk") {
        args.zk_quorum = value;
      } else if (name == "root") {
        args.root = value;
      } else if (name == "auth-file") {
        args.zk_auth_file = value;
      } else {
        args.flags[name] = value;
      }
    } else if (command == nullptr) {
      command = FindCommand(arg);
      if (command == nullptr) return UsageError("unknown command '" + arg + "'");
      args.command = arg;
      if (command->passes_arguments_through) {
        for (++i; i < argc; ++i) args.positional.push_back(argv[i]);
        break;
      }
    } else {
      args.positional.push_back(arg);
    }
  }
  if (command == nullptr) return UsageError("no command given");
  return command->run(args);
}
