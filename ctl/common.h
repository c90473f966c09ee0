// presplitctl's shared pieces: parsed arguments, error helpers and the command registry. Each
// command lives in its own ctl_*.cc and registers a CommandSpec.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "daemon/zk/zk_client.h"
#include "presplit/status.h"

namespace presplit::ctl {

inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;
inline constexpr int kUsage = 2;

struct Args {
  std::string zk_quorum;
  std::string root = "/presplit";
  std::string zk_auth_file;  // --auth-file, else $PRESPLIT_ZK_AUTH_FILE; empty: unauthenticated
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // --flag value, or "" for switches

  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  const std::string& flag(const std::string& name) const { return flags.at(name); }
};

struct CommandSpec {
  std::string name;
  std::set<std::string> value_flags;  // --flag VALUE
  std::set<std::string> switches;     // --flag
  std::string help;                   // lines for --help, already indented
  int (*run)(const Args&);
  // The words after the command go to `run` as they are (Args::positional, --help included):
  // for a command that hands them on to another program (import).
  bool passes_arguments_through = false;
};

// Every command, in the order --help lists them.
const std::vector<CommandSpec>& Commands();
std::vector<CommandSpec> DocumentCommands();
std::vector<CommandSpec> PlanCommands();
std::vector<CommandSpec> AdviseCommands();
std::vector<CommandSpec> SimulateCommands();
std::vector<CommandSpec> KeyCommands();
std::vector<CommandSpec> AuthCommands();
std::vector<CommandSpec> TopCommands();
std::vector<CommandSpec> KeyvizCommands();
std::vector<CommandSpec> MigrationCommands();
std::vector<CommandSpec> ImportCommands();

// Prints "presplitctl: message" on stderr; returns kFailure / kUsage.
int Fail(const std::string& message);
int UsageError(const std::string& message);
// Prints "presplitctl: <what>: <pointer>: <message>" for a document the parser refused, the
// field named by its JSON Pointer ("/layout/salt/buckets") as a portal's PresplitAdmin names it;
// an error about the whole document (malformed JSON) has no pointer. Returns kFailure.
int RefuseDocument(const std::string& what, const Status& refusal);
// Reads a file, or stdin for "-".
Result<std::string> ReadInput(const std::string& path);
// One Bytes.toStringBinary key a line on stdout; returns kOk.
int PrintKeys(const std::vector<std::string>& keys);
// A ZooKeeper session, authenticated with the credentials file when one is given.
Result<std::unique_ptr<daemon::ZkClient>> Connect(const Args& args);
// The ACLs presplitctl gives the znodes it creates: the credentials file's, else open ones.
Result<daemon::ZkAcls> Acls(const Args& args);
std::string TablesPath(const Args& args);
std::string StatusRoot(const Args& args);

}  // namespace presplit::ctl
