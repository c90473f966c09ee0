// In-memory stand-ins for ZooKeeper and HBase, for unit tests of the reconcile logic only.
// Integration and end-to-end tests use the real servers.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon::testing {

class FakeZk : public ZkClient {
 public:
  Result<ZkNode> Get(const std::string& path, bool watch) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    if (watch) data_watches.insert(path);
    auto it = nodes.find(path);
    if (it == nodes.end()) return Status::NotFound(path);
    return it->second;
  }
  Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
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
  Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    if (before_write) before_write(path);
    if (nodes.count(path)) return Status::AlreadyExists(path);
    std::string parent = path.substr(0, path.rfind('/'));
    if (!parent.empty() && !nodes.count(parent)) return Status::NotFound(parent);
    nodes[path] = ZkNode{data, 0, ++zxid};
    acls[path] = acl;
    writes++;
    return Status::Ok();
  }
  Status Set(const std::string& path, const std::string& data, int version) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    if (before_write) before_write(path);
    auto it = nodes.find(path);
    if (it == nodes.end()) return Status::NotFound(path);
    if (version != -1 && version != it->second.version) return Status::FailedPrecondition(path);
    it->second = ZkNode{data, it->second.version + 1, ++zxid, it->second.ephemeral_owner};
    writes++;
    return Status::Ok();
  }
  Status Delete(const std::string& path, int version) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    if (!nodes.erase(path)) return Status::NotFound(path);
    acls.erase(path);
    writes++;
    return Status::Ok();
  }
  Result<ZkAcl> GetAcl(const std::string& path) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    auto it = acls.find(path);
    if (it == acls.end()) return Status::NotFound(path);
    return it->second;
  }
  Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                const std::string& data,
                                                const ZkAcl& /*acl*/) override {
    if (!available) return Status::Unavailable("fake zookeeper down");
    return CreateEphemeralSequentialOf(session_id, path_prefix, data);
  }
  int64_t SessionId() override { return available ? session_id : 0; }

  // What ZooKeeper does when this client's session expires: its ephemeral nodes go, the next
  // session has a new id.
  void ExpireSession() {
    DropEphemeralsOf(session_id);
    session_id = NewSessionId();
  }

  // The ensemble's side, shared by every FakeZkSession of this fake.
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
  // Runs at the start of Create and Set, before they look at the node: lets a test slip another
  // writer's change in between a read and the write that follows it.
  std::function<void(const std::string& path)> before_write;
  int64_t zxid = 0;
  int writes = 0;
  bool available = true;
};

// Another client of the same fake ensemble (as a second presplitd would be): it sees and changes
// the FakeZk's nodes, but holds a session of its own, which can drop or expire on its own.
class FakeZkSession : public ZkClient {
 public:
  explicit FakeZkSession(FakeZk& ensemble)
      : session_id(ensemble.NewSessionId()), ensemble_(ensemble) {}

  Result<ZkNode> Get(const std::string& path, bool watch) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.Get(path, watch);
  }
  Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.GetChildren(path, watch);
  }
  Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.Create(path, data, acl);
  }
  Status Set(const std::string& path, const std::string& data, int version) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.Set(path, data, version);
  }
  Status Delete(const std::string& path, int version) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.Delete(path, version);
  }
  Result<ZkAcl> GetAcl(const std::string& path) override { return ensemble_.GetAcl(path); }
  Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                const std::string& data,
                                                const ZkAcl& /*acl*/) override {
    if (!available) return Status::Unavailable("fake zookeeper session disconnected");
    return ensemble_.CreateEphemeralSequentialOf(session_id, path_prefix, data);
  }
  int64_t SessionId() override { return available && ensemble_.available ? session_id : 0; }

  // The session expires (or its process dies): its ephemeral nodes go; the client's next
  // session has a new id.
  void Expire() {
    ensemble_.DropEphemeralsOf(session_id);
    session_id = ensemble_.NewSessionId();
  }

  int64_t session_id;
  bool available = true;  // false: this client is disconnected, its session still alive

 private:
  FakeZk& ensemble_;
};

class FakeAdmin : public HBaseAdmin {
 public:
  Result<TableDescription> DescribeTable(const std::string& table) override {
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
    creates++;
    if (on_create) on_create();
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
    auto it = tables.find(table);
    if (it == tables.end()) return Status::NotFound(table);
    it->second.enabled = false;
    disabled.insert(table);
    return Status::Ok();
  }
  Status DeleteTable(const std::string& table) override {
    if (!tables.erase(table)) return Status::NotFound(table);
    deleted.insert(table);
    return Status::Ok();
  }

  std::map<std::string, TableDescription> tables;
  std::set<std::string> disabled, deleted;  // what DisableTable / DeleteTable were asked
  std::function<void()> on_create;          // runs when CreateTable is called, before it acts
  Status next_error;
  Status create_error;
  int describes = 0;
  int creates = 0;
};

}  // namespace presplit::daemon::testing
