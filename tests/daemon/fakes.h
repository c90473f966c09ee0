// In-memory stand-ins for ZooKeeper and HBase, for unit tests of the reconcile logic only.
// Integration and end-to-end tests use the real servers.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon::testing {

class FakeZk : public ZkClient {
 public:
  // This client's calls: they fail while the ensemble is down (`available`) or this client's
  // session expired (until StartNewSession), as the real client's do.
  Result<ZkNode> Get(const std::string& path, bool watch) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return GetNode(path, watch);
  }
  Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return ListChildren(path, watch);
  }
  Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return CreateNode(path, data, acl);
  }
  Status Set(const std::string& path, const std::string& data, int version) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return SetNode(path, data, version);
  }
  Status Delete(const std::string& path, int version) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return DeleteNode(path, version);
  }
  Result<ZkAcl> GetAcl(const std::string& path) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return AclOf(path);
  }
  Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                const std::string& data,
                                                const ZkAcl& /*acl*/) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path_prefix);
    return CreateEphemeralSequentialOf(session_id, path_prefix, data);
  }
  int64_t SessionId() override { return available && !expired ? session_id : 0; }
  bool SessionExpired() override { return expired; }
  Status StartNewSession() override {
    if (!expired) return Status::Ok();
    if (!available) return Status::Unavailable("fake zookeeper down");
    session_id = NewSessionId();
    expired = false;
    ++sessions_started;
    return Status::Ok();
  }
  void WithSession(const std::function<void(int64_t session)>& call) override { call(SessionId()); }

  // What ZooKeeper does when this client's session expires: its ephemeral nodes go, and the
  // client makes no call until StartNewSession gives it a session with a new id.
  void ExpireSession() {
    DropEphemeralsOf(session_id);
    expired = true;
  }

  // The ensemble's side, shared by every FakeZkSession of this fake: no session checks.
  Result<ZkNode> GetNode(const std::string& path, bool watch) {
    if (unreadable.count(path)) return Status::Unavailable("fake connection loss reading " + path);
    if (watch) data_watches.insert(path);
    auto it = nodes.find(path);
    if (it == nodes.end()) return Status::NotFound(path);
    return it->second;
  }
  Result<std::vector<std::string>> ListChildren(const std::string& path, bool watch) {
    if (watch) child_watches.insert(path);
    if (!nodes.count(path)) return Status::NotFound(path);
    std::vector<std::string> out;
    const std::string prefix = path + "/";
    for (const auto& [p, n] : nodes) {
      if (p.rfind(prefix, 0) == 0 && p.find('/', prefix.size()) == std::string::npos) {
        out.push_back(p.substr(prefix.size()));
      }
    }
    return out;
  }
  Status CreateNode(const std::string& path, const std::string& data, const ZkAcl& acl) {
    if (before_write) before_write(path);
    if (nodes.count(path)) return Status::AlreadyExists(path);
    std::string parent = path.substr(0, path.rfind('/'));
    if (!parent.empty() && !nodes.count(parent)) return Status::NotFound(parent);
    nodes[path] = ZkNode{data, 0, ++zxid};
    acls[path] = acl;
    writes++;
    return Status::Ok();
  }
  Status SetNode(const std::string& path, const std::string& data, int version) {
    if (before_write) before_write(path);
    auto it = nodes.find(path);
    if (it == nodes.end()) return Status::NotFound(path);
    if (version != -1 && version != it->second.version) return Status::FailedPrecondition(path);
    it->second = ZkNode{data, it->second.version + 1, ++zxid, it->second.ephemeral_owner};
    writes++;
    return Status::Ok();
  }
  Status DeleteNode(const std::string& path, int /*version*/) {
    if (!nodes.erase(path)) return Status::NotFound(path);
    acls.erase(path);
    writes++;
    return Status::Ok();
  }
  Result<ZkAcl> AclOf(const std::string& path) {
    auto it = acls.find(path);
    if (it == acls.end()) return Status::NotFound(path);
    return it->second;
  }
  Result<std::string> CreateEphemeralSequentialOf(int64_t owner, const std::string& path_prefix,
                                                  const std::string& data) {
    std::string parent = path_prefix.substr(0, path_prefix.rfind('/'));
    if (!nodes.count(parent)) return Status::NotFound(parent);
    char suffix[16];
    std::snprintf(suffix, sizeof(suffix), "%010d", next_sequence[parent]++);
    std::string path = path_prefix + suffix;
    nodes[path] = ZkNode{data, 0, ++zxid, owner};
    writes++;
    return path;
  }
  void DropEphemeralsOf(int64_t owner) {
    std::erase_if(nodes,
                  [owner](const auto& entry) { return entry.second.ephemeral_owner == owner; });
  }
  int64_t NewSessionId() { return ++last_session_id; }

  std::map<std::string, ZkNode> nodes;
  std::map<std::string, ZkAcl> acls;  // of the nodes created through Create()
  std::set<std::string> data_watches, child_watches;
  std::map<std::string, int> next_sequence;  // parent -> next sequence number
  int64_t last_session_id = 1;
  int64_t session_id = 1;  // this client's session
  bool expired = false;    // this client's session expired; no new one started yet
  int sessions_started = 0;
  // This client's writes (create, set, delete, ephemeral create), each with the session it was
  // issued on, in order: what a test of fencing reads.
  std::vector<std::pair<int64_t, std::string>> write_log;
  // Runs at the start of Create and Set, before they look at the node: lets a test slip another
  // writer's change in between a read and the write that follows it.
  std::function<void(const std::string& path)> before_write;
  // Reads of these paths fail as a connection loss would (the rest of the tree stays readable).
  std::set<std::string> unreadable;
  int64_t zxid = 0;
  int writes = 0;
  bool available = true;  // false: the ensemble is unreachable, for every client

 private:
  Status Usable() const {
    if (!available) return Status::Unavailable("fake zookeeper down");
    if (expired) return Status::Unavailable("fake zookeeper session expired");
    return Status::Ok();
  }
};

// Another client of the same fake ensemble (as a second presplitd would be): it sees and changes
// the FakeZk's nodes, but holds a session of its own, which can drop or expire on its own.
class FakeZkSession : public ZkClient {
 public:
  explicit FakeZkSession(FakeZk& ensemble)
      : session_id(ensemble.NewSessionId()), ensemble_(ensemble) {}

  Result<ZkNode> Get(const std::string& path, bool watch) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return ensemble_.GetNode(path, watch);
  }
  Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return ensemble_.ListChildren(path, watch);
  }
  Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return ensemble_.CreateNode(path, data, acl);
  }
  Status Set(const std::string& path, const std::string& data, int version) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return ensemble_.SetNode(path, data, version);
  }
  Status Delete(const std::string& path, int version) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path);
    return ensemble_.DeleteNode(path, version);
  }
  Result<ZkAcl> GetAcl(const std::string& path) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    return ensemble_.AclOf(path);
  }
  Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                const std::string& data,
                                                const ZkAcl& /*acl*/) override {
    PRESPLIT_RETURN_IF_ERROR(Usable());
    write_log.emplace_back(session_id, path_prefix);
    return ensemble_.CreateEphemeralSequentialOf(session_id, path_prefix, data);
  }
  int64_t SessionId() override {
    return available && ensemble_.available && !expired ? session_id : 0;
  }
  bool SessionExpired() override { return expired; }
  Status StartNewSession() override {
    if (!expired) return Status::Ok();
    if (!ensemble_.available) return Status::Unavailable("fake zookeeper down");
    if (before_new_session) before_new_session();
    session_id = ensemble_.NewSessionId();
    expired = false;
    ++sessions_started;
    return Status::Ok();
  }
  void WithSession(const std::function<void(int64_t session)>& call) override {
    if (before_with_session) before_with_session();
    call(SessionId());
  }

  // The session expires (or its process dies): its ephemeral nodes go, and this client makes no
  // call until StartNewSession gives it a session with a new id.
  void Expire() {
    ensemble_.DropEphemeralsOf(session_id);
    expired = true;
  }

  int64_t session_id;
  bool available = true;  // false: this client is disconnected, its session still alive
  bool expired = false;   // its session expired; no new one started yet
  int sessions_started = 0;
  // Runs inside StartNewSession, before the new session exists: what the daemon does then.
  std::function<void()> before_new_session;
  // Runs at the start of WithSession, before the session is read. The real client keeps its
  // session in place from there on; this fake does not, so a test can play what another thread
  // might have done just before (an expiry, a new session) and check the second line of defence.
  std::function<void()> before_with_session;
  // This client's writes, each with the session it was issued on, in order.
  std::vector<std::pair<int64_t, std::string>> write_log;

 private:
  Status Usable() const {
    if (!available || !ensemble_.available) {
      return Status::Unavailable("fake zookeeper session disconnected");
    }
    if (expired) return Status::Unavailable("fake zookeeper session expired");
    return Status::Ok();
  }

  FakeZk& ensemble_;
};

class FakeAdmin : public HBaseAdmin {
 public:
  // Thread-safe for the calls (a migrator's drivers make them from several threads); the fields
  // are for a test that looks while no call runs.
  Result<TableDescription> DescribeTable(const std::string& table) override {
    std::lock_guard<std::recursive_mutex> lock(mu);
    describes++;
    if (!next_error.ok()) return next_error;
    auto it = tables.find(table);
    if (it == tables.end()) {
      TableDescription d;
      d.table = table;
      return d;
    }
    return it->second;
  }
  Status CreateTable(const TableSpec& spec) override {
    {
      std::lock_guard<std::recursive_mutex> lock(mu);
      creates++;
    }
    if (on_create) on_create();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!create_error.ok()) return create_error;
    if (tables.count(spec.table)) return Status::AlreadyExists(spec.table);
    TableDescription d;
    d.exists = true;
    d.enabled = true;
    d.table = spec.table;
    d.families = spec.families;
    d.attributes = spec.attributes;
    d.split_keys = spec.split_keys;
    std::string start;
    for (size_t i = 0; i <= spec.split_keys.size(); ++i) {
      std::string end = i < spec.split_keys.size() ? spec.split_keys[i] : "";
      d.regions.push_back(RegionInfo{"r" + std::to_string(i), start, end, "rs,1,1"});
      start = end;
    }
    tables[spec.table] = d;
    return Status::Ok();
  }

  Status DisableTable(const std::string& table) override {
    std::lock_guard<std::recursive_mutex> lock(mu);
    auto it = tables.find(table);
    if (it == tables.end()) return Status::NotFound(table);
    it->second.enabled = false;
    disabled.insert(table);
    return Status::Ok();
  }
  Status DeleteTable(const std::string& table) override {
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!tables.erase(table)) return Status::NotFound(table);
    deleted.insert(table);
    return Status::Ok();
  }

  mutable std::recursive_mutex mu;  // the calls' lock (another fake reading `tables` takes it)
  std::map<std::string, TableDescription> tables;
  std::set<std::string> disabled, deleted;  // what DisableTable / DeleteTable were asked
  std::function<void()> on_create;          // runs when CreateTable is called, before it acts
  Status next_error;
  Status create_error;
  int describes = 0;
  int creates = 0;
};

}  // namespace presplit::daemon::testing
