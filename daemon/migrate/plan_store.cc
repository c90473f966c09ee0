#include "daemon/migrate/plan_store.h"

namespace presplit::daemon::migrate {
namespace {

// The plan's JSON, or InvalidArgument when ZooKeeper would refuse it for its size.
Result<std::string> BoundedPlanJson(const MigrationPlan& plan) {
  std::string json = PlanToJson(plan);
  if (json.size() > kMaxPlanBytes) {
    return Status::InvalidArgument(
        "the plan of " + plan.table + " would be " + std::to_string(json.size()) +
        " bytes, more than the " + std::to_string(kMaxPlanBytes) +
        " a plan znode may hold (ZooKeeper's jute.maxbuffer, 1 MiB by default): not written (" +
        std::to_string(plan.source_regions.size()) + " source regions)");
  }
  return json;
}

}  // namespace

bool PlanStore::Leads() { return !lease_ || lease_(); }

std::string PlanStore::CheckpointsPath(const std::string& table) const {
  return JoinZkPath(PlanPath(root_, table), "regions");
}

Status PlanStore::Prepare() {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(MigrationsPath(root_), acls_.status_dir));
  return zk_.EnsurePath(RequestsPath(root_), acls_.migration_requests);
}

Result<std::vector<std::string>> PlanStore::List() {
  std::lock_guard<std::mutex> lock(mu_);
  auto tables = zk_.GetChildren(MigrationsPath(root_), /*watch=*/false);
  if (!tables.ok() && tables.status().code() == StatusCode::kNotFound) {
    return std::vector<std::string>{};
  }
  return tables;
}

Result<PlanStore::Versioned> PlanStore::Read(const std::string& table) {
  Result<ZkNode> node = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(mu_);
    node = zk_.Get(PlanPath(root_, table), /*watch=*/false);
  }
  if (!node.ok()) return node.status();
  PRESPLIT_ASSIGN_OR_RETURN(MigrationPlan plan, ParsePlan(node->data));
  return Versioned{std::move(plan), node->version};
}

Status PlanStore::Create(const MigrationPlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, BoundedPlanJson(plan));
  if (!Leads()) return Status::FailedPrecondition("not the leader: plan not created");
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(MigrationsPath(root_), acls_.status_dir));
  return zk_.Create(PlanPath(root_, plan.table), json, acls_.migration_plan);
}

Status PlanStore::CompareAndSet(Versioned& node) {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, BoundedPlanJson(node.plan));
  if (!Leads()) return Status::FailedPrecondition("not the leader: plan not written");
  Status s = zk_.Set(PlanPath(root_, node.plan.table), json, node.version);
  if (s.ok()) {
    node.version++;
    return s;
  }
  if (s.code() == StatusCode::kFailedPrecondition) {
    return Status::FailedPrecondition("the plan of " + node.plan.table +
                                      " changed since this daemon read it (another leader?): "
                                      "read again, nothing written");
  }
  return s;
}

Status PlanStore::Remove(const std::string& table) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Leads()) return Status::FailedPrecondition("not the leader: plan not removed");
  const std::string regions = CheckpointsPath(table);
  auto children = zk_.GetChildren(regions, /*watch=*/false);
  if (children.ok()) {
    for (const auto& child : *children) {
      Status s = zk_.Delete(JoinZkPath(regions, child), -1);
      if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    }
    Status s = zk_.Delete(regions, -1);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  Status s = zk_.Delete(PlanPath(root_, table), -1);
  if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  Status r = zk_.Delete(RequestPath(root_, table), -1);
  return r.code() == StatusCode::kNotFound ? Status::Ok() : r;
}

Result<std::vector<PlanStore::Checkpoint>> PlanStore::ReadCheckpoints(const std::string& table,
                                                                       size_t regions) {
  std::vector<Checkpoint> out(regions);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < regions; ++i) {
    auto node = zk_.Get(JoinZkPath(CheckpointsPath(table), std::to_string(i)), /*watch=*/false);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) continue;
      return node.status();
    }
    out[i].version = node->version;
    auto parsed = ParseCheckpoint(node->data);
    if (parsed.ok()) out[i].checkpoint = *parsed;  // unreadable: that region starts over
  }
  return out;
}

Status PlanStore::WriteCheckpoint(const std::string& table, size_t region, Checkpoint& cp) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Leads()) return Status::FailedPrecondition("not the leader: checkpoint not written");
  const std::string path = JoinZkPath(CheckpointsPath(table), std::to_string(region));
  const std::string data = CheckpointToJson(cp.checkpoint);
  if (cp.version < 0) {
    PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(CheckpointsPath(table), acls_.status));
    Status created = zk_.Create(path, data, acls_.status);
    if (created.code() == StatusCode::kAlreadyExists) {
      return Status::FailedPrecondition("the checkpoint of region " + std::to_string(region) +
                                        " of " + table + " appeared meanwhile (another leader?)");
    }
    if (created.ok()) cp.version = 0;
    return created;
  }
  Status s = zk_.Set(path, data, cp.version);
  if (s.ok()) {
    cp.version++;
  } else if (s.code() == StatusCode::kFailedPrecondition) {
    return Status::FailedPrecondition("the checkpoint of region " + std::to_string(region) +
                                      " of " + table + " changed meanwhile (another leader?)");
  }
  return s;
}

Result<std::optional<PlanStore::PendingRequest>> PlanStore::ReadRequest(const std::string& table) {
  Result<ZkNode> node = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(mu_);
    node = zk_.Get(RequestPath(root_, table), /*watch=*/false);
  }
  if (!node.ok()) {
    if (node.status().code() == StatusCode::kNotFound) return std::optional<PendingRequest>();
    return node.status();
  }
  PRESPLIT_ASSIGN_OR_RETURN(Request request, ParseRequest(node->data));
  return std::optional<PendingRequest>(PendingRequest{request, node->version});
}

Status PlanStore::ClearRequest(const std::string& table, int version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Leads()) return Status::FailedPrecondition("not the leader: request not cleared");
  Status s = zk_.Delete(RequestPath(root_, table), version);
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  return s;
}

}  // namespace presplit::daemon::migrate
