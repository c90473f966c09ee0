#include "daemon/migrate/plan_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "presplit/md5.h"

namespace presplit::daemon::migrate {
namespace {

using json = nlohmann::json;

// The fields that may go to parts, where they sit in the plan's JSON.
struct PartField {
  const char* name;
  const char* pointer;
};
constexpr PartField kPartFields[] = {
    {"source_regions", "/source_regions"},
    {"closed_before", "/capture/closed_before"},
};

std::string ChunkName(const std::string& md5, size_t k) { return md5 + "." + std::to_string(k); }

bool IsMd5Hex(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Status TooLarge(const MigrationPlan& plan, size_t bytes) {
  return Status::InvalidArgument(
      "the plan of " + plan.table + " would be " + std::to_string(bytes) + " bytes, more than the " +
      std::to_string(kMaxPlanBytes) +
      " a plan znode may hold (ZooKeeper's jute.maxbuffer, 1 MiB by default): not written (" +
      std::to_string(plan.source_regions.size()) + " source regions)");
}

Status PartTooLarge(const MigrationPlan& plan, const char* field, size_t bytes, size_t limit) {
  return Status::InvalidArgument(
      "the plan of " + plan.table + " would hold " + std::to_string(bytes) + " bytes of " + field +
      ", more than the " + std::to_string(limit) +
      " its parts may hold: not written (" + std::to_string(plan.source_regions.size()) +
      " source regions)");
}

}  // namespace

Result<PlanStore::StoredPlan> PlanStore::ToStored(const MigrationPlan& plan) const {
  StoredPlan out;
  std::string text = PlanToJson(plan);
  if (text.size() <= parts_.inline_bytes) {
    out.json = std::move(text);
    return out;
  }

  json doc = json::parse(text);
  json parts = json::object();
  for (const PartField& field : kPartFields) {
    const json::json_pointer pointer(field.pointer);
    if (!doc.contains(pointer)) continue;
    std::string value = doc[pointer].dump();
    if (value.size() <= parts_.inline_bytes) continue;
    const size_t chunks = (value.size() + parts_.chunk_bytes - 1) / parts_.chunk_bytes;
    if (chunks > parts_.max_chunks) {
      return PartTooLarge(plan, field.name, value.size(), parts_.max_chunks * parts_.chunk_bytes);
    }
    const std::string md5 = Md5Hex(value);
    for (size_t k = 0; k < chunks; ++k) {
      out.chunks.push_back(
          PartChunk{ChunkName(md5, k), value.substr(k * parts_.chunk_bytes, parts_.chunk_bytes)});
    }
    parts[field.name] = {{"md5", md5}, {"chunks", chunks}, {"bytes", value.size()}};
    doc[pointer] = nullptr;
  }
  if (!parts.empty()) doc["parts"] = parts;
  out.json = doc.dump();
  if (out.json.size() > kMaxPlanBytes) {
    return TooLarge(plan, out.json.size());
  }
  return out;
}

Status PlanStore::WriteChunksLocked(const std::string& table,
                                    const std::vector<PartChunk>& chunks) {
  if (chunks.empty()) return Status::Ok();
  const std::string dir = PlanPartsPath(root_, table);
  std::set<std::string>& known = chunks_known_[table];
  bool ensured = false;
  for (const PartChunk& chunk : chunks) {
    if (known.count(chunk.name)) continue;
    if (!ensured) {
      PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(dir, acls_.migration_plan));
      ensured = true;
    }
    Status created = zk_.Create(JoinZkPath(dir, chunk.name), chunk.data, acls_.migration_plan);
    // There already: a chunk's name is the MD5 of its field and its index, so it holds these
    // bytes (written by an earlier write of the same field).
    if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
    known.insert(chunk.name);
  }
  return Status::Ok();
}

void PlanStore::DeleteOtherChunksLocked(const std::string& table,
                                        const std::vector<PartChunk>& kept) {
  const std::string dir = PlanPartsPath(root_, table);
  auto children = zk_.GetChildren(dir, /*watch=*/false);
  if (!children.ok()) return;  // none, or tried again after the next write
  std::set<std::string> keep;
  for (const PartChunk& chunk : kept) keep.insert(chunk.name);
  std::set<std::string>& known = chunks_known_[table];
  for (const std::string& child : *children) {
    if (keep.count(child)) continue;
    known.erase(child);
    Status s = zk_.Delete(JoinZkPath(dir, child), -1);
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      spdlog::warn("migration {}: removing the plan part {} no plan names: {}", table, child,
                   s.message());
    }
  }
}

Result<std::string> PlanStore::WithPartsLocked(const std::string& table,
                                               const std::string& text) {
  // Bounded like any plan before the parser sees it; a plan without parts is returned as read.
  if (text.find("\"parts\"") == std::string::npos) return text;
  PRESPLIT_RETURN_IF_ERROR(CheckJsonBounds(text).WithContext("the migration plan"));
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("parts")) return text;
  const json& parts = doc["parts"];
  if (!parts.is_object()) return Status::InvalidArgument("the migration plan's parts are not an object");
  const std::string dir = PlanPartsPath(root_, table);
  for (const PartField& field : kPartFields) {
    if (!parts.contains(field.name)) continue;
    const json& ref = parts[field.name];
    if (!ref.is_object() || !ref.contains("md5") || !ref["md5"].is_string() ||
        !IsMd5Hex(ref["md5"].get<std::string>()) || !ref.contains("chunks") ||
        !ref["chunks"].is_number_unsigned() || !ref.contains("bytes") ||
        !ref["bytes"].is_number_unsigned()) {
      return Status::InvalidArgument(std::string("the migration plan's part ") + field.name +
                                     " is not {md5, chunks, bytes}");
    }
    const std::string md5 = ref["md5"].get<std::string>();
    const size_t chunks = ref["chunks"].get<size_t>();
    const size_t bytes = ref["bytes"].get<size_t>();
    if (chunks == 0 || chunks > parts_.max_chunks || bytes > chunks * parts_.chunk_bytes) {
      return Status::InvalidArgument(std::string("the migration plan's part ") + field.name +
                                     " names " + std::to_string(chunks) + " chunks of " +
                                     std::to_string(bytes) + " bytes (at most " +
                                     std::to_string(parts_.max_chunks) + ")");
    }
    std::string value;
    for (size_t k = 0; k < chunks; ++k) {
      auto chunk = zk_.Get(JoinZkPath(dir, ChunkName(md5, k)), /*watch=*/false);
      if (!chunk.ok()) {
        return Status(chunk.status().code(), std::string("reading the migration plan's part ") +
                                                 field.name + " (" + ChunkName(md5, k) +
                                                 "): " + chunk.status().message());
      }
      if (value.size() + chunk->data.size() > bytes) break;  // the size check below says it
      value += chunk->data;
    }
    if (value.size() != bytes || Md5Hex(value) != md5) {
      return Status::InvalidArgument(std::string("the migration plan's part ") + field.name +
                                     " does not match its MD5 and size (" + md5 + ", " +
                                     std::to_string(bytes) + " bytes)");
    }
    PRESPLIT_RETURN_IF_ERROR(
        CheckJsonBounds(value, JsonBounds{bytes, kMaxJsonDepth}).WithContext(
            std::string("the migration plan's part ") + field.name));
    json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Status::InvalidArgument(std::string("the migration plan's part ") + field.name +
                                     " is not JSON");
    }
    doc[json::json_pointer(field.pointer)] = std::move(parsed);
  }
  doc.erase("parts");
  return doc.dump();
}

bool PlanStore::Leads() { return !lease_ || lease_(); }

std::string PlanStore::CheckpointsPath(const std::string& table) const {
  return JoinZkPath(PlanPath(root_, table), "regions");
}

Status PlanStore::Prepare() {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(MigrationsPath(root_), acls_.status_dir));
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(MigrationPartsPath(root_), acls_.status_dir));
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
  Result<std::string> text = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(mu_);
    node = zk_.Get(PlanPath(root_, table), /*watch=*/false);
    if (!node.ok()) return node.status();
    text = WithPartsLocked(table, node->data);
  }
  if (!text.ok()) return text.status();
  PRESPLIT_ASSIGN_OR_RETURN(
      MigrationPlan plan,
      ParsePlan(*text, kMaxPlanBytes + std::size(kPartFields) * parts_.max_chunks *
                                            parts_.chunk_bytes));
  return Versioned{std::move(plan), node->version};
}

Status PlanStore::Create(const MigrationPlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_ASSIGN_OR_RETURN(StoredPlan stored, ToStored(plan));
  if (!Leads()) return Status::FailedPrecondition("not the leader: plan not created");
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(MigrationsPath(root_), acls_.status_dir));
  PRESPLIT_RETURN_IF_ERROR(WriteChunksLocked(plan.table, stored.chunks));
  Status created = zk_.Create(PlanPath(root_, plan.table), stored.json, acls_.migration_plan);
  // A plan created: parts an earlier plan of the table left (a daemon stopped between its
  // chunks and its plan) go.
  if (created.ok()) DeleteOtherChunksLocked(plan.table, stored.chunks);
  return created;
}

Status PlanStore::CompareAndSet(Versioned& node) {
  std::lock_guard<std::mutex> lock(mu_);
  PRESPLIT_ASSIGN_OR_RETURN(StoredPlan stored, ToStored(node.plan));
  if (!Leads()) return Status::FailedPrecondition("not the leader: plan not written");
  PRESPLIT_RETURN_IF_ERROR(WriteChunksLocked(node.plan.table, stored.chunks));
  Status s = zk_.Set(PlanPath(root_, node.plan.table), stored.json, node.version);
  if (s.ok()) {
    node.version++;
    DeleteOtherChunksLocked(node.plan.table, stored.chunks);
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
  DeleteOtherChunksLocked(table, {});
  chunks_known_.erase(table);
  Status parts = zk_.Delete(PlanPartsPath(root_, table), -1);
  if (!parts.ok() && parts.code() != StatusCode::kNotFound) {
    spdlog::warn("migration {}: removing its plan parts: {}", table, parts.message());
  }
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
