#include "daemon/zk/zk_client.h"

#include <spdlog/spdlog.h>
#include <zookeeper.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace presplit::daemon {
namespace {

// ZooKeeper's default jute.maxbuffer: no znode can hold more.
constexpr int kMaxZnodeBytes = 1024 * 1024;

// Who a session is, for refusals: the user name only, never the secret.
std::string DescribeIdentity(const ZkCredentials& auth) {
  if (auth.user.empty()) return "an unauthenticated session";
  return "ZooKeeper identity " + auth.scheme + ":" + auth.user;
}

Status FromZkError(int rc, const std::string& op, const std::string& path,
                   const ZkCredentials& auth) {
  std::string what = op + " " + path + ": " + zerror(rc);
  switch (rc) {
    case ZNOAUTH: {
      const bool reads = op == "get" || op == "list" || op == "get ACL";
      return Status::PermissionDenied(
          "not authorised to " + std::string(reads ? "read " : "write ") + path +
          ": its ZooKeeper ACL does not grant " + DescribeIdentity(auth) + " (" + op + " refused)");
    }
    case ZAUTHFAILED:
      return Status::PermissionDenied("ZooKeeper refused the credentials of " +
                                      DescribeIdentity(auth));
    case ZOK:
      return Status::Ok();
    case ZNONODE:
      return Status::NotFound(what);
    case ZNODEEXISTS:
      return Status::AlreadyExists(what);
    case ZBADVERSION:
    case ZNOTEMPTY:
      return Status::FailedPrecondition(what);
    case ZBADARGUMENTS:
      return Status::InvalidArgument(what);
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE:
    case ZCLOSING:
      return Status::Unavailable(what);
    default:
      return Status::Internal(what);
  }
}

void LogFromZooKeeper(const char* message) { spdlog::debug("zookeeper: {}", message); }

// A ZkAcl as the C client's ACL_vector; the strings stay owned by this object.
class CAcl {
 public:
  explicit CAcl(const ZkAcl& acl) : strings_(acl.size() * 2), entries_(acl.size()) {
    for (size_t i = 0; i < acl.size(); ++i) {
      strings_[2 * i] = acl[i].scheme;
      strings_[2 * i + 1] = acl[i].id;
      entries_[i].perms = acl[i].perms;
      entries_[i].id.scheme = strings_[2 * i].data();
      entries_[i].id.id = strings_[2 * i + 1].data();
    }
    vector_.count = static_cast<int32_t>(entries_.size());
    vector_.data = entries_.data();
  }
  struct ACL_vector* get() {
    return &vector_;
  }

 private:
  std::vector<std::string> strings_;
  std::vector<struct ACL> entries_;
  struct ACL_vector vector_ {};
};

// Completion of zoo_add_auth, shared between the waiting caller and the completion thread (which
// may run after the caller gave up waiting).
struct AuthReply {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  int rc = ZOK;
};

void OnAuthReply(int rc, const void* data) {
  auto* reply = static_cast<std::shared_ptr<AuthReply>*>(const_cast<void*>(data));
  {
    std::lock_guard<std::mutex> lock((*reply)->mu);
    (*reply)->done = true;
    (*reply)->rc = rc;
  }
  (*reply)->cv.notify_all();
  delete reply;
}

class RealZkClient;

// What the C client hands back to the watcher: which client, and which of its sessions (a
// replaced session's late events must not change the state of the one that replaced it).
struct WatcherContext {
  RealZkClient* client;
  uint64_t generation;
};

// One session's handle, closed when the last call using it has returned: a call in flight keeps
// it alive, so replacing an expired session never closes a handle under a call.
struct SessionHandle {
  SessionHandle(zhandle_t* handle, std::unique_ptr<WatcherContext> watcher)
      : zh(handle), context(std::move(watcher)) {}
  ~SessionHandle() { zookeeper_close(zh); }
  SessionHandle(const SessionHandle&) = delete;
  SessionHandle& operator=(const SessionHandle&) = delete;

  zhandle_t* const zh;
  // Outlives zh: the C client calls the watcher with it until zookeeper_close has returned.
  const std::unique_ptr<WatcherContext> context;
};

class RealZkClient final : public ZkClient {
 public:
  RealZkClient(ZkOptions options, ZkEventHandler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}

  ~RealZkClient() override {
    {
      // The events of the closing handle change nothing any more.
      std::lock_guard<std::mutex> lock(state_mu_);
      ++generation_;
    }
    std::shared_ptr<SessionHandle> last;
    {
      std::lock_guard<std::mutex> lock(handle_mu_);
      last = std::move(handle_);
    }
  }

  Status Open() {
    std::unique_lock<std::shared_mutex> exclusive(session_mu_);
    return OpenSession();
  }

  Result<ZkNode> Get(const std::string& path, bool watch) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    std::string buffer(kMaxZnodeBytes, '\0');
    int length = static_cast<int>(buffer.size());
    struct Stat stat {};
    int rc = zoo_get(session->zh, path.c_str(), watch ? 1 : 0, buffer.data(), &length, &stat);
    if (rc != ZOK) return FromZkError(rc, "get", path, options_.auth);
    buffer.resize(length < 0 ? 0 : static_cast<size_t>(length));
    return ZkNode{std::move(buffer), stat.version, stat.mzxid, stat.ephemeralOwner};
  }

  Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    struct String_vector children {};
    int rc = zoo_get_children(session->zh, path.c_str(), watch ? 1 : 0, &children);
    if (rc != ZOK) return FromZkError(rc, "list", path, options_.auth);
    std::vector<std::string> names(children.data, children.data + children.count);
    deallocate_String_vector(&children);
    std::sort(names.begin(), names.end());
    return names;
  }

  Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    CAcl c_acl(acl);
    int rc = zoo_create(session->zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                        c_acl.get(), ZOO_PERSISTENT, nullptr, 0);
    return FromZkError(rc, "create", path, options_.auth);
  }

  Status Set(const std::string& path, const std::string& data, int version) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    int rc =
        zoo_set(session->zh, path.c_str(), data.data(), static_cast<int>(data.size()), version);
    return FromZkError(rc, "set", path, options_.auth);
  }

  Status Delete(const std::string& path, int version) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    return FromZkError(zoo_delete(session->zh, path.c_str(), version), "delete", path,
                       options_.auth);
  }

  Result<ZkAcl> GetAcl(const std::string& path) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    struct ACL_vector c_acl {};
    struct Stat stat {};
    int rc = zoo_get_acl(session->zh, path.c_str(), &c_acl, &stat);
    if (rc != ZOK) return FromZkError(rc, "get ACL", path, options_.auth);
    ZkAcl acl;
    for (int32_t i = 0; i < c_acl.count; ++i) {
      acl.push_back({c_acl.data[i].perms, c_acl.data[i].id.scheme, c_acl.data[i].id.id});
    }
    deallocate_ACL_vector(&c_acl);
    return acl;
  }

  Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                const std::string& data,
                                                const ZkAcl& acl) override {
    PRESPLIT_ASSIGN_OR_RETURN(auto session, Handle());
    CAcl c_acl(acl);
    // Room for the prefix plus ZooKeeper's 10-digit sequence suffix.
    std::string created(path_prefix.size() + 32, '\0');
    int rc = zoo_create(session->zh, path_prefix.c_str(), data.data(),
                        static_cast<int>(data.size()), c_acl.get(), ZOO_EPHEMERAL | ZOO_SEQUENCE,
                        created.data(), static_cast<int>(created.size()));
    if (rc != ZOK) return FromZkError(rc, "create", path_prefix, options_.auth);
    created.resize(std::strlen(created.c_str()));
    return created;
  }

  int64_t SessionId() override {
    std::lock_guard<std::mutex> handle_lock(handle_mu_);
    if (handle_ == nullptr) return 0;  // none yet, or a new one still being opened
    std::lock_guard<std::mutex> lock(state_mu_);
    return connected_ && !expired_ ? session_id_ : 0;
  }

  bool SessionExpired() override {
    std::lock_guard<std::mutex> lock(state_mu_);
    return expired_;
  }

  Status StartNewSession() override {
    std::unique_lock<std::shared_mutex> exclusive(session_mu_);
    std::shared_ptr<SessionHandle> old;
    int64_t old_id = 0;
    {
      std::lock_guard<std::mutex> handle_lock(handle_mu_);
      std::lock_guard<std::mutex> lock(state_mu_);
      if (!expired_ && handle_ != nullptr) return Status::Ok();  // still alive: nothing to do
      old = std::move(handle_);
      old_id = session_id_;
    }
    if (old != nullptr) {
      spdlog::info("ZooKeeper session 0x{:x} expired; opening a new one with {}", old_id,
                   options_.quorum);
      old.reset();  // closed now, or when the last call still using it returns
    }
    return OpenSession();
  }

  void WithSession(const std::function<void(int64_t session)>& call) override {
    std::shared_lock<std::shared_mutex> shared(session_mu_);
    call(SessionId());
  }

  // Runs on the ZooKeeper completion thread: record state, hand events over, nothing else.
  void HandleEvent(uint64_t generation, zhandle_t* zh, int type, int state,
                   const std::string& path) {
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      if (generation != generation_) return;  // a replaced (or closing) session
      if (type == ZOO_SESSION_EVENT) {
        if (state == ZOO_CONNECTED_STATE) {
          const clientid_t* client = zoo_client_id(zh);
          connected_ = true;
          session_id_ = client != nullptr ? client->client_id : 0;
        } else {
          connected_ = false;
          if (state == ZOO_EXPIRED_SESSION_STATE) expired_ = true;
        }
      }
    }
    if (type == ZOO_SESSION_EVENT) {
      state_cv_.notify_all();
      if (state == ZOO_CONNECTED_STATE) {
        Emit({ZkEventType::kConnected, ""});
      } else if (state == ZOO_EXPIRED_SESSION_STATE) {
        Emit({ZkEventType::kSessionExpired, ""});
      } else {
        Emit({ZkEventType::kDisconnected, ""});
      }
      return;
    }
    if (type == ZOO_CHILD_EVENT) {
      Emit({ZkEventType::kChildrenChanged, path});
    } else if (type == ZOO_CHANGED_EVENT || type == ZOO_CREATED_EVENT ||
               type == ZOO_DELETED_EVENT) {
      Emit({ZkEventType::kDataChanged, path});
    }
  }

 private:
  static void OnEvent(zhandle_t* zh, int type, int state, const char* path, void* context) {
    auto* watcher = static_cast<WatcherContext*>(context);
    watcher->client->HandleEvent(watcher->generation, zh, type, state, path ? path : "");
  }

  void Emit(const ZkEvent& event) {
    if (handler_) handler_(event);
  }

  // Opens a session and, once it is connected and authenticated, makes it the current one.
  // Runs with session_mu_ held exclusively (no WithSession in progress).
  Status OpenSession() {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      generation = ++generation_;
      connected_ = false;
      expired_ = false;
      session_id_ = 0;
    }
    auto watcher = std::make_unique<WatcherContext>(WatcherContext{this, generation});
    WatcherContext* context = watcher.get();
    zhandle_t* zh =
        zookeeper_init2(options_.quorum.c_str(), &RealZkClient::OnEvent,
                        options_.session_timeout_ms, nullptr, context, 0, &LogFromZooKeeper);
    if (zh == nullptr) {
      MarkNoSession();
      return Status::InvalidArgument("cannot use ZooKeeper quorum '" + options_.quorum + "'");
    }
    // Closed on every early return below: never an unauthenticated session left behind.
    auto session = std::make_shared<SessionHandle>(zh, std::move(watcher));
    {
      std::unique_lock<std::mutex> lock(state_mu_);
      if (!state_cv_.wait_for(lock, std::chrono::milliseconds(options_.connect_timeout_ms),
                              [this] { return connected_ || expired_; }) ||
          !connected_) {
        lock.unlock();
        MarkNoSession();
        return Status::Unavailable("no ZooKeeper session with " + options_.quorum + " within " +
                                   std::to_string(options_.connect_timeout_ms) + " ms");
      }
    }
    Status authenticated = AddAuth(zh);
    if (!authenticated.ok()) {
      MarkNoSession();
      return authenticated;
    }
    std::lock_guard<std::mutex> handle_lock(handle_mu_);
    handle_ = std::move(session);
    return Status::Ok();
  }

  // No usable session: calls fail, and SessionExpired says a StartNewSession is due.
  void MarkNoSession() {
    std::lock_guard<std::mutex> lock(state_mu_);
    ++generation_;  // the handle being closed changes nothing any more
    connected_ = false;
    expired_ = true;
  }

  // Adds the credentials to a new session and waits for ZooKeeper's answer, so that no call
  // runs unauthenticated. The C client re-sends them by itself when it reconnects this session;
  // each new session comes through here again.
  Status AddAuth(zhandle_t* zh) {
    if (options_.auth.user.empty()) return Status::Ok();
    auto reply = std::make_shared<AuthReply>();
    const std::string& secret = options_.auth.secret;
    int rc = zoo_add_auth(zh, options_.auth.scheme.c_str(), secret.data(),
                          static_cast<int>(secret.size()), &OnAuthReply,
                          new std::shared_ptr<AuthReply>(reply));
    if (rc != ZOK) return FromZkError(rc, "authenticate", "", options_.auth);
    std::unique_lock<std::mutex> lock(reply->mu);
    if (!reply->cv.wait_for(lock, std::chrono::milliseconds(options_.connect_timeout_ms),
                            [&reply] { return reply->done; })) {
      return Status::Unavailable("ZooKeeper did not answer the authentication of " +
                                 DescribeIdentity(options_.auth) + " within " +
                                 std::to_string(options_.connect_timeout_ms) + " ms");
    }
    if (reply->rc != ZOK) return FromZkError(reply->rc, "authenticate", "", options_.auth);
    spdlog::debug("ZooKeeper session authenticated as {}", DescribeIdentity(options_.auth));
    return Status::Ok();
  }

  // The current session's handle, kept alive for the call. An expired session is never replaced
  // here: the call fails until the owner calls StartNewSession. A handle that is merely
  // disconnected is used: the C client reconnects by itself and calls fail meanwhile.
  Result<std::shared_ptr<SessionHandle>> Handle() {
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      if (expired_) {
        return Status::Unavailable(
            "ZooKeeper session expired; no call runs until a new session is started");
      }
    }
    std::lock_guard<std::mutex> lock(handle_mu_);
    if (handle_ == nullptr) return Status::Unavailable("no ZooKeeper session yet");
    return handle_;
  }

  const ZkOptions options_;
  const ZkEventHandler handler_;
  // Shared by WithSession, exclusive for opening a session: no new session begins while a
  // caller acts on what it knows of the current one.
  std::shared_mutex session_mu_;
  std::mutex handle_mu_;                   // guards handle_ (taken before state_mu_ when both are)
  std::shared_ptr<SessionHandle> handle_;  // null until the first session is usable
  std::mutex state_mu_;
  std::condition_variable state_cv_;
  uint64_t generation_ = 0;  // of the session being opened or in use; others' events are ignored
  bool connected_ = false;
  bool expired_ = false;    // no usable session until StartNewSession
  int64_t session_id_ = 0;  // of the current session once it reached the connected state
};

}  // namespace

Status ZkClient::EnsurePath(const std::string& path, const ZkAcl& acl) {
  if (path.empty() || path[0] != '/') {
    return Status::InvalidArgument("ZooKeeper path must be absolute: '" + path + "'");
  }
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    std::string prefix = path.substr(0, pos);
    if (prefix.size() <= 1) continue;
    // Look first: creating an existing node needs the CREATE permission on its parent, which a
    // session that only reads (or writes below) does not have. ZooKeeper answers "no such node"
    // before it checks the ACL, so a refused read means the node exists.
    auto existing = Get(prefix, /*watch=*/false);
    if (existing.ok() || existing.status().code() == StatusCode::kPermissionDenied) continue;
    Status s = Create(prefix, "", acl);
    if (!s.ok() && s.code() != StatusCode::kAlreadyExists) return s;
  }
  return Status::Ok();
}

Status ZkClient::Upsert(const std::string& path, const std::string& data, const ZkAcl& acl) {
  Status s = Set(path, data, -1);
  if (s.code() != StatusCode::kNotFound) return s;
  s = Create(path, data, acl);
  // Lost a race with another writer that created it: set it instead.
  if (s.code() == StatusCode::kAlreadyExists) return Set(path, data, -1);
  return s;
}

std::vector<std::string> OpenAclWarnings(ZkClient& zk, const std::string& root,
                                         const ZkAcls& acls) {
  std::vector<std::string> warnings;
  if (acls.open) return warnings;
  struct Checked {
    std::string path;
    const ZkAcl& wanted;
    bool recursive;  // the children share the node's ACL (documents, statuses)
  };
  const Checked nodes[] = {{root, acls.root, false},
                           {JoinZkPath(root, "tables"), acls.tables, true},
                           {JoinZkPath(root, "status"), acls.status_dir, true}};
  for (const auto& node : nodes) {
    auto acl = zk.GetAcl(node.path);
    if (!acl.ok() || !WritableByAnyone(*acl)) continue;
    warnings.push_back(node.path + " already exists with an ACL that lets anyone change it (" +
                       FormatAcl(*acl) +
                       "); presplit does not change existing ACLs. To protect it, as a "
                       "ZooKeeper super user in zkCli.sh: setAcl " +
                       (node.recursive ? "-R " : "") + node.path + " " + FormatAcl(node.wanted));
  }
  return warnings;
}

std::string JoinZkPath(const std::string& parent, const std::string& child) {
  if (!parent.empty() && parent.back() == '/') return parent + child;
  return parent + "/" + child;
}

Result<std::unique_ptr<ZkClient>> ConnectZooKeeper(const ZkOptions& options,
                                                   ZkEventHandler handler) {
  static std::once_flag quiet_library;
  std::call_once(quiet_library, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_WARN); });
  auto client = std::make_unique<RealZkClient>(options, std::move(handler));
  PRESPLIT_RETURN_IF_ERROR(client->Open());
  return std::unique_ptr<ZkClient>(std::move(client));
}

}  // namespace presplit::daemon
