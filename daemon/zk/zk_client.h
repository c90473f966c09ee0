// presplit's view of ZooKeeper: the few operations the daemon and presplitctl need, behind an
// interface so the reconcile logic can be tested with an in-memory fake.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/zk/zk_auth.h"
#include "presplit/status.h"

namespace presplit::daemon {

struct ZkNode {
  std::string data;
  int version = 0;    // the znode's data version, for compare-and-set
  int64_t mzxid = 0;  // zxid of the last modification; identifies one revision of a document
  int64_t ephemeral_owner = 0;  // the session owning an ephemeral node; 0 for a persistent one
};

enum class ZkEventType {
  kConnected,  // (re)connected: watches may have been lost with a new session; rescan
  // ZooKeeper ended the session: its ephemeral nodes and watches are gone, and every call fails
  // until the owner of the client opens a new session with StartNewSession (never on its own).
  kSessionExpired,
  kDisconnected,  // the connection dropped; the session may survive if it comes back in time
  kChildrenChanged,
  kDataChanged,  // data changed, node created or deleted
};

struct ZkEvent {
  ZkEventType type;
  std::string path;
};

class ZkClient {
 public:
  virtual ~ZkClient() = default;

  // Reads a znode. `watch` arms a one-shot data watch reported through the event handler.
  // NotFound when the node does not exist.
  virtual Result<ZkNode> Get(const std::string& path, bool watch) = 0;
  // Children names (not full paths), sorted. NotFound when the parent does not exist.
  virtual Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) = 0;
  // Creates a persistent node with `acl`. AlreadyExists when it is there; NotFound when the parent
  // is not; PermissionDenied when this session may not create children of the parent.
  virtual Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) = 0;
  // Sets data; version -1 matches any. NotFound / FailedPrecondition (version mismatch) /
  // PermissionDenied (the node's ACL does not let this session write).
  virtual Status Set(const std::string& path, const std::string& data, int version = -1) = 0;
  // Deletes a node; NotFound when it is not there.
  virtual Status Delete(const std::string& path, int version = -1) = 0;
  // The node's ACL. NotFound when it does not exist.
  virtual Result<ZkAcl> GetAcl(const std::string& path) = 0;

  // Creates an EPHEMERAL|SEQUENCE node: ZooKeeper appends a 10-digit counter to `path_prefix`
  // (".../n_" becomes ".../n_0000000007") and removes the node when this session ends. Returns
  // the full path created, with `acl`. NotFound when the parent does not exist.
  virtual Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                        const std::string& data,
                                                        const ZkAcl& acl) = 0;
  // The id of the session this client holds right now; 0 while disconnected or expired. Two
  // calls returning the same non-zero id mean the ephemeral nodes created between them live on.
  virtual int64_t SessionId() = 0;

  // Sessions. The client never replaces an expired session by itself: whatever rests on the old
  // one (the leader's election node, and the lease every leader-only write checks) must end
  // before a call can run on a new one, and only the owner of the client knows when it has.
  //
  // True once ZooKeeper has ended the session (and after a StartNewSession that failed), until
  // a StartNewSession succeeds: every call fails with Unavailable meanwhile. A session that is
  // merely disconnected and may still come back is not expired.
  virtual bool SessionExpired() = 0;
  // Opens a new session in place of an expired one and waits until it is usable (connected, and
  // its credentials accepted), at most ZkOptions::connect_timeout_ms; Unavailable when it is not
  // by then (the next call to this tries again). Ok and nothing done while the current session
  // has not expired. Waits for the `WithSession` calls in progress.
  virtual Status StartNewSession() = 0;
  // Runs `call` with the id of the current session (0 while disconnected or expired), and keeps
  // that session current until `call` returns: no StartNewSession completes meanwhile. So a
  // call made from inside `call` runs on that session or fails (it may still expire), never on
  // a later one: what was decided about one session never acts on the next. `call` must not
  // call StartNewSession (it would wait for itself).
  virtual void WithSession(const std::function<void(int64_t session)>& call) = 0;

  // Creates `path` and its missing ancestors with empty data and `acl`. Existing nodes are left
  // as they are (ACL included), so a session that may only read them passes.
  Status EnsurePath(const std::string& path, const ZkAcl& acl = OpenAcl());
  // Replaces the node's data, or creates it with `acl`.
  Status Upsert(const std::string& path, const std::string& data, const ZkAcl& acl = OpenAcl());
};

using ZkEventHandler = std::function<void(const ZkEvent&)>;

struct ZkOptions {
  std::string quorum = "127.0.0.1:2181";  // host:port[,host:port...][/chroot]
  int session_timeout_ms = 15000;
  // How long ConnectZooKeeper and StartNewSession wait for a session.
  int connect_timeout_ms = 10000;
  // Credentials added to every session (the first and each one StartNewSession opens); none
  // when `auth.user` is empty. Never logged.
  ZkCredentials auth;
};

// Opens a session with the ZooKeeper C client (multi-threaded flavour). Events, including those
// of the armed watches, are delivered to `handler` on the client's own completion thread: the
// handler must only hand them over (e.g. post to an event loop), never call back into the client.
// An expired session is reported as kSessionExpired and stays expired (calls fail) until
// StartNewSession, whose session is then reported as kConnected. With `options.auth`, a session
// is usable only once ZooKeeper has accepted the credentials; a refusal is an error naming the
// user, never the password. Every method may be called from any thread.
Result<std::unique_ptr<ZkClient>> ConnectZooKeeper(const ZkOptions& options,
                                                   ZkEventHandler handler = nullptr);

// With access control on (`!acls.open`): one warning per existing node among <root>,
// <root>/tables and <root>/status whose ACL lets anyone change it, saying how an operator
// protects it (zkCli's setAcl, as a ZooKeeper super user). presplit never changes an existing
// ACL by itself. Nodes that cannot be read are skipped: they are not open.
std::vector<std::string> OpenAclWarnings(ZkClient& zk, const std::string& root, const ZkAcls& acls);

// Joins ZooKeeper path components: JoinZkPath("/presplit", "tables") == "/presplit/tables".
std::string JoinZkPath(const std::string& parent, const std::string& child);

}  // namespace presplit::daemon
