// ZooKeeper access control for presplit: the credentials file shared by presplitd and
// presplitctl, and the ACLs of every znode presplit creates.
//
// The credentials file is `key = value` lines ('#' starts a comment):
//
//   scheme   = digest                 the only scheme the C client supports here
//   identity = user:password          who this process authenticates as (zoo_add_auth)
//   portal   = user | user:DIGEST     the identity allowed to write documents (<root>/tables/*)
//   daemon   = user | user:DIGEST     the identity allowed to write statuses (<root>/status/*)
//   readers  = world | ID[,ID...]     who may read both (default: world)
//
// An ID that is the identity's own user name needs no digest (it is computed from the password);
// any other user is given in ZooKeeper's hashed form `user:base64(sha1(user:password))`, so that
// no process ever holds another identity's password. `presplitctl zk-digest user:password` prints
// that form.
//
// Nothing in this module puts a password into an error message or a log line.
#pragma once

#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon {

// ZooKeeper's permission bits (ZooDefs.Perms), so ACLs can be built and tested without a server.
inline constexpr int kZkPermRead = 1;
inline constexpr int kZkPermWrite = 2;
inline constexpr int kZkPermCreate = 4;
inline constexpr int kZkPermDelete = 8;
inline constexpr int kZkPermAdmin = 16;
inline constexpr int kZkPermAll = 31;

struct ZkAclEntry {
  int perms = 0;
  std::string scheme;  // "world", "digest"
  std::string id;      // "anyone", "user:base64digest"
  bool operator==(const ZkAclEntry&) const = default;
};
using ZkAcl = std::vector<ZkAclEntry>;

// world:anyone with every permission: what presplit creates without access control.
ZkAcl OpenAcl();
// True when an unauthenticated client may change the node or its children.
bool WritableByAnyone(const ZkAcl& acl);
// The zkCli form: "digest:portal:Xyz=:cdrwa,world:anyone:r".
std::string FormatAcl(const ZkAcl& acl);

// The credentials a process authenticates with. `secret` is "user:password" for digest; it is
// never printed.
struct ZkCredentials {
  std::string scheme = "digest";
  std::string user;
  std::string secret;
};

struct ZkAuthConfig {
  ZkCredentials identity;
  std::string portal;                // digest id "user:base64digest"
  std::string daemon;                // digest id
  std::vector<std::string> readers;  // digest ids; empty means world-readable
};

// base64(sha1("user:password")): the digest ZooKeeper's DigestAuthenticationProvider derives.
std::string ZkDigest(const std::string& user, const std::string& password);
// "user:base64digest" from "user:password" (the `presplitctl zk-digest` form).
Result<std::string> ZkDigestId(const std::string& user_colon_password);

// Parses the file's text. Errors name the line and key, never a password.
Result<ZkAuthConfig> ParseZkAuthConfig(const std::string& text);

struct LoadedZkAuth {
  ZkAuthConfig config;
  std::string warning;  // non-empty when the file is readable by its group or by others
};
// Reads and parses a credentials file.
Result<LoadedZkAuth> LoadZkAuthFile(const std::string& path);

// The ACL of each kind of znode presplit creates.
struct ZkAcls {
  bool open = true;  // no access control: everything world:anyone:cdrwa
  ZkAcl root;        // <root>: the daemon administers it, everyone else reads
  ZkAcl tables;      // <root>/tables: the portal creates and deletes documents
  ZkAcl document;    // <root>/tables/<t>: written by the portal only
  ZkAcl status_dir;  // <root>/status: the daemon creates and deletes statuses
  ZkAcl status;      // <root>/status/<t>: written by the daemon only
  // <root>/migrations/<t> (and its checkpoints): a migration's plan, written by the daemon only:
  // it names the tables a migration creates, fences and drops.
  ZkAcl migration_plan;
  // <root>/requests: the portal creates and deletes the operators' requests there
  // (presplitctl migration pause|resume|abort|rollback); <root>/requests/<t>: one request, which
  // the portal may overwrite and the daemon removes once handled.
  ZkAcl migration_requests;
  ZkAcl migration_request;
  ZkAcl leader;  // <root>/leader: only daemons queue (and remove candidates) there
};
ZkAcls OpenAcls();
// Every node readable by the portal, the daemon and the readers (world when none are named). The
// portal may also create children of <root>, so that `presplitctl put` before the daemon's first
// start can create <root>/tables; only the daemon may delete them or change <root>'s ACL.
ZkAcls BuildZkAcls(const ZkAuthConfig& config);

// What a process needs to use ZooKeeper with (or without) access control.
struct ZkAccess {
  ZkCredentials credentials;  // none (empty user) without access control
  ZkAcls acls = OpenAcls();
};
// presplitd's start: loads `auth_file` (empty: access control off) and logs once what it means
// for the znodes under `root`: who may write documents and statuses, or a warning that anyone
// may; and a warning when the file is readable by others. Errors name the file, never a
// password.
Result<ZkAccess> LoadZkAccess(const std::string& auth_file, const std::string& root);

}  // namespace presplit::daemon
