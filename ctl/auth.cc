// presplitctl zk-digest: the hashed identity a credentials file names another user by, so that
// the daemon's file never holds the portal's password (and the other way round).
#include <iostream>
#include <string>

#include "ctl/common.h"
#include "daemon/zk/zk_auth.h"

namespace presplit::ctl {
namespace {

int CmdZkDigest(const Args& args) {
  if (args.positional.size() != 1) return UsageError("zk-digest needs USER:PASSWORD or -");
  std::string credentials = args.positional[0];
  if (credentials == "-") {
    // From stdin, so the password stays out of the process list and the shell's history.
    if (!std::getline(std::cin, credentials)) return Fail("zk-digest: nothing on stdin");
    if (!credentials.empty() && credentials.back() == '\r') credentials.pop_back();
  }
  auto id = daemon::ZkDigestId(credentials);
  if (!id.ok()) return UsageError("zk-digest: " + id.status().message());
  std::cout << *id << "\n";
  return kOk;
}

}  // namespace

std::vector<CommandSpec> AuthCommands() {
  return {{"zk-digest",
           {},
           {},
           "  zk-digest USER:PASSWORD|-\n"
           "                        print USER:base64(sha1(USER:PASSWORD)), ZooKeeper's digest\n"
           "                        identity, for a credentials file's portal/daemon/readers\n"
           "                        (- reads USER:PASSWORD from stdin)\n",
           &CmdZkDigest}};
}

}  // namespace presplit::ctl
