#include "ctl/common.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "presplit/bytes.h"
#include "presplit/field_pointer.h"

namespace presplit::ctl {

using daemon::JoinZkPath;

int Fail(const std::string& message) {
  std::cerr << "presplitctl: " << message << "\n";
  return kFailure;
}

int RefuseDocument(const std::string& what, const Status& refusal) {
  const FieldErrorParts parts = SplitFieldError(refusal.message());
  return Fail(what + ": " +
              (parts.pointer.empty() ? parts.message : parts.pointer + ": " + parts.message));
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

namespace {

Result<daemon::LoadedZkAuth> LoadAuth(const Args& args) {
  auto loaded = daemon::LoadZkAuthFile(args.zk_auth_file);
  if (loaded.ok() && !loaded->warning.empty())
    std::cerr << "presplitctl: warning: " << loaded->warning << "\n";
  return loaded;
}

}  // namespace

Result<daemon::ZkAcls> Acls(const Args& args) {
  if (args.zk_auth_file.empty()) return daemon::OpenAcls();
  auto loaded = daemon::LoadZkAuthFile(args.zk_auth_file);
  if (!loaded.ok()) return loaded.status();
  return daemon::BuildZkAcls(loaded->config);
}

Result<std::unique_ptr<daemon::ZkClient>> Connect(const Args& args) {
  daemon::ZkOptions options;
  options.quorum = args.zk_quorum;
  options.connect_timeout_ms = 10000;
  if (!args.zk_auth_file.empty()) {
    auto loaded = LoadAuth(args);
    if (!loaded.ok()) return loaded.status();
    options.auth = loaded->config.identity;
  }
  auto zk = daemon::ConnectZooKeeper(options);
  if (!zk.ok()) return zk.status().WithContext("ZooKeeper " + args.zk_quorum);
  return zk;
}

std::string TablesPath(const Args& a) { return JoinZkPath(a.root, "tables"); }
std::string StatusRoot(const Args& a) { return JoinZkPath(a.root, "status"); }

int PrintKeys(const std::vector<std::string>& keys) {
  for (const auto& k : keys) std::cout << ToStringBinary(k) << "\n";
  return kOk;
}

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec> commands = [] {
    std::vector<CommandSpec> all;
    for (auto& c : DocumentCommands()) all.push_back(std::move(c));
    for (auto& c : PlanCommands()) all.push_back(std::move(c));
    for (auto& c : AdviseCommands()) all.push_back(std::move(c));
    for (auto& c : SimulateCommands()) all.push_back(std::move(c));
    for (auto& c : KeyCommands()) all.push_back(std::move(c));
    for (auto& c : AuthCommands()) all.push_back(std::move(c));
    for (auto& c : TopCommands()) all.push_back(std::move(c));
    for (auto& c : KeyvizCommands()) all.push_back(std::move(c));
    for (auto& c : MigrationCommands()) all.push_back(std::move(c));
    for (auto& c : ImportCommands()) all.push_back(std::move(c));
    return all;
  }();
  return commands;
}

}  // namespace presplit::ctl
