#include "daemon/migrate/migration_plan.h"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "presplit/base64.h"
#include "presplit/json_bounds.h"
#include "presplit/table_config.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

template <typename T>
T Field(const json& o, const char* key, T fallback) {
  if (!o.contains(key)) return fallback;
  try {
    return o[key].get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

std::string StringOrEmpty(const json& o, const char* key) {
  return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

}  // namespace

std::string NewPlanId() {
  std::random_device device;
  std::mt19937_64 generator((static_cast<uint64_t>(device()) << 32) ^ device());
  char out[33];
  std::snprintf(out, sizeof(out), "%016llx%016llx", static_cast<unsigned long long>(generator()),
                static_cast<unsigned long long>(generator()));
  return out;
}

std::string GenerationTableName(const std::string& table, int64_t generation) {
  if (generation <= 1) return table;
  return table + "__g" + std::to_string(generation);
}

std::string PlanToJson(const MigrationPlan& p) {
  json regions = json::array();
  for (const auto& r : p.source_regions) {
    regions.push_back({{"start", Base64Encode(r.start)}, {"end", Base64Encode(r.end)}});
  }
  auto object_or_null = [](const std::string& text) {
    json parsed = json::parse(text, nullptr, false);
    return parsed.is_discarded() ? json(nullptr) : parsed;
  };
  json deferred = json::array();
  for (const auto& key : p.deferred_rows) deferred.push_back(Base64Encode(key));
  const CaptureState& c = p.capture;
  json doc{
      {"table", p.table},
      {"source", p.source},
      {"target", p.target},
      {"source_generation", p.source_generation},
      {"target_generation", p.target_generation},
      {"old_layout", object_or_null(p.old_layout)},
      {"new_layout", object_or_null(p.new_layout)},
      {"source_regions", regions},
      {"engine", p.engine},
      {"workers", p.workers},
      {"max_cells_per_s", p.max_cells_per_s},
      {"grace_period_s", p.grace_period_s},
      {"drop_old", p.drop_old},
      {"config_version", p.config_version},
      {"document", p.document},
      {"plan_id", p.plan_id},
      {"max_write_pause_ms", p.max_write_pause_ms},
      {"throttle", p.throttle},
      {"writes_paused_until_ms", p.writes_paused_until_ms},
      {"paused_table", p.paused_table},
      {"switch_retry_at_ms", p.switch_retry_at_ms},
      {"switch_attempts", p.switch_attempts},
      {"deferred_rows", deferred},
      {"phase", PhaseName(p.phase)},
      {"paused", p.paused},
      {"copy_started_ms", p.copy_started_ms},
      {"switched_at_ms", p.switched_at_ms},
      {"grace_until_ms", p.grace_until_ms},
      {"rolled_back_at_ms", p.rolled_back_at_ms},
      {"error", p.error.empty() ? json(nullptr) : json(p.error)},
      {"verification", p.verification.empty() ? json(nullptr) : object_or_null(p.verification)},
      {"created_at", p.created_at},
      {"updated_at", p.updated_at},
      {"daemon", p.daemon},
      {"capture",
       {{"peer", c.peer},
        {"reverse_peer", c.reverse_peer},
        {"started_ms", c.started_ms},
        {"reverse_started_ms", c.reverse_started_ms},
        {"caught_up_ms", c.caught_up_ms},
        {"fence_started_ms", c.fence_started_ms},
        {"drained_ms", c.drained_ms},
        {"closed_before", c.closed_before},
        {"bulk_loads", c.bulk_loads},
        {"unfit", c.unfit},
        {"first_unfit", c.first_unfit}}}};
  if (p.bulk) {
    const BulkCopyState& b = *p.bulk;
    doc["bulk"] = {{"job_id", b.job_id},
                   {"snapshot", b.snapshot},
                   {"staging_dir", b.staging_dir},
                   {"input", b.input},
                   {"attempts", b.attempts},
                   {"failures", b.failures},
                   {"state", b.state},
                   {"map_progress", b.map_progress},
                   {"reduce_progress", b.reduce_progress},
                   {"rows", b.rows},
                   {"cells", b.cells},
                   {"loaded", b.loaded},
                   {"files", b.files}};
  } else {
    doc["bulk"] = nullptr;
  }
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<MigrationPlan> ParsePlan(const std::string& text, size_t max_bytes) {
  // A plan nested too deep would overflow the stack when its layouts are dumped below.
  PRESPLIT_RETURN_IF_ERROR(CheckJsonBounds(text, JsonBounds{max_bytes, kMaxJsonDepth})
                               .WithContext("the migration plan"));
  json o = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (o.is_discarded() || !o.is_object()) {
    return Status::InvalidArgument("the migration plan is not a JSON object");
  }
  MigrationPlan p;
  p.table = StringOrEmpty(o, "table");
  p.source = StringOrEmpty(o, "source");
  p.target = StringOrEmpty(o, "target");
  if (p.table.empty() || p.source.empty() || p.target.empty()) {
    return Status::InvalidArgument("the migration plan lacks table, source or target");
  }
  if (!o.contains("old_layout") || !o["old_layout"].is_object() || !o.contains("new_layout") ||
      !o["new_layout"].is_object()) {
    return Status::InvalidArgument("the migration plan lacks its layouts");
  }
  p.old_layout = o["old_layout"].dump();
  p.new_layout = o["new_layout"].dump();
  p.source_generation = Field<int64_t>(o, "source_generation", 1);
  p.target_generation = Field<int64_t>(o, "target_generation", p.source_generation + 1);
  if (!o.contains("source_regions") || !o["source_regions"].is_array() ||
      o["source_regions"].empty()) {
    return Status::InvalidArgument("the migration plan lacks its source regions");
  }
  for (const json& r : o["source_regions"]) {
    if (!r.is_object()) return Status::InvalidArgument("a source region is not an object");
    auto start = Base64Decode(StringOrEmpty(r, "start"));
    auto end = Base64Decode(StringOrEmpty(r, "end"));
    if (!start.ok() || !end.ok()) {
      return Status::InvalidArgument("a source region's keys are not base64");
    }
    p.source_regions.push_back(SourceRegion{*start, *end});
  }
  p.engine = StringOrEmpty(o, "engine");
  if (p.engine.empty()) p.engine = "put";
  // Kept as written (not clamped): the plan check refuses a plan whose workers are out of bounds.
  p.workers = Field<int>(o, "workers", 4);
  p.max_cells_per_s = Field<int64_t>(o, "max_cells_per_s", 0);
  p.grace_period_s = Field<int64_t>(o, "grace_period_s", 3600);
  p.drop_old = Field<bool>(o, "drop_old", false);
  p.config_version = Field<int64_t>(o, "config_version", 0);
  p.document = StringOrEmpty(o, "document");
  p.plan_id = StringOrEmpty(o, "plan_id");
  p.max_write_pause_ms = Field<int64_t>(o, "max_write_pause_ms", 5000);
  p.throttle = StringOrEmpty(o, "throttle");
  p.writes_paused_until_ms = Field<int64_t>(o, "writes_paused_until_ms", 0);
  p.paused_table = StringOrEmpty(o, "paused_table");
  p.switch_retry_at_ms = Field<int64_t>(o, "switch_retry_at_ms", 0);
  p.switch_attempts = Field<int64_t>(o, "switch_attempts", 0);
  if (o.contains("deferred_rows") && o["deferred_rows"].is_array()) {
    if (o["deferred_rows"].size() > kMaxDeferredRows) {
      return Status::InvalidArgument("more than " + std::to_string(kMaxDeferredRows) +
                                     " deferred rows");
    }
    for (const auto& key : o["deferred_rows"]) {
      if (!key.is_string()) return Status::InvalidArgument("a deferred row is not a string");
      auto decoded = Base64Decode(key.get<std::string>());
      if (!decoded.ok()) return Status::InvalidArgument("a deferred row is not base64");
      p.deferred_rows.push_back(std::move(decoded).value());
    }
  }
  PRESPLIT_ASSIGN_OR_RETURN(p.phase, ParsePhase(StringOrEmpty(o, "phase")));
  p.paused = Field<bool>(o, "paused", false);
  p.copy_started_ms = Field<int64_t>(o, "copy_started_ms", 0);
  p.switched_at_ms = Field<int64_t>(o, "switched_at_ms", 0);
  p.grace_until_ms = Field<int64_t>(o, "grace_until_ms", 0);
  p.rolled_back_at_ms = Field<int64_t>(o, "rolled_back_at_ms", 0);
  p.error = StringOrEmpty(o, "error");
  if (o.contains("verification") && o["verification"].is_object()) {
    p.verification = o["verification"].dump();
  }
  p.created_at = StringOrEmpty(o, "created_at");
  p.updated_at = StringOrEmpty(o, "updated_at");
  p.daemon = StringOrEmpty(o, "daemon");
  if (o.contains("capture") && o["capture"].is_object()) {
    const json& c = o["capture"];
    CaptureState& capture = p.capture;
    capture.peer = StringOrEmpty(c, "peer");
    capture.reverse_peer = StringOrEmpty(c, "reverse_peer");
    capture.started_ms = Field<int64_t>(c, "started_ms", 0);
    capture.reverse_started_ms = Field<int64_t>(c, "reverse_started_ms", 0);
    capture.caught_up_ms = Field<int64_t>(c, "caught_up_ms", 0);
    capture.fence_started_ms = Field<int64_t>(c, "fence_started_ms", 0);
    capture.drained_ms = Field<int64_t>(c, "drained_ms", 0);
    if (c.contains("closed_before") && c["closed_before"].is_object()) {
      for (const auto& [region, ts] : c["closed_before"].items()) {
        if (ts.is_number_integer()) capture.closed_before[region] = ts.get<int64_t>();
      }
    }
    capture.bulk_loads = Field<int64_t>(c, "bulk_loads", 0);
    capture.unfit = Field<int64_t>(c, "unfit", 0);
    capture.first_unfit = StringOrEmpty(c, "first_unfit");
  }
  if (o.contains("bulk") && o["bulk"].is_object()) {
    const json& b = o["bulk"];
    BulkCopyState bulk;
    bulk.job_id = StringOrEmpty(b, "job_id");
    bulk.snapshot = StringOrEmpty(b, "snapshot");
    bulk.staging_dir = StringOrEmpty(b, "staging_dir");
    bulk.input = StringOrEmpty(b, "input");
    if (bulk.input.empty()) bulk.input = "snapshot";
    bulk.attempts = Field<int>(b, "attempts", 0);
    bulk.failures = Field<int>(b, "failures", 0);
    bulk.state = StringOrEmpty(b, "state");
    bulk.map_progress = Field<double>(b, "map_progress", 0);
    bulk.reduce_progress = Field<double>(b, "reduce_progress", 0);
    bulk.rows = Field<int64_t>(b, "rows", 0);
    bulk.cells = Field<int64_t>(b, "cells", 0);
    bulk.loaded = Field<bool>(b, "loaded", false);
    bulk.files = Field<int64_t>(b, "files", 0);
    if (bulk.staging_dir.empty()) {
      return Status::InvalidArgument("the migration plan's bulk copy lacks its staging_dir");
    }
    p.bulk = std::move(bulk);
  }
  return p;
}

std::string CheckpointToJson(const RegionCheckpoint& c) {
  json doc{{"next_row", c.next_row ? json(Base64Encode(*c.next_row)) : json(nullptr)},
           {"done", c.done},
           {"rows", c.rows},
           {"cells", c.cells},
           {"bytes", c.bytes},
           {"digest", DigestHex(c.digest)},
           {"chunks", c.chunks}};
  return doc.dump();
}

Result<RegionCheckpoint> ParseCheckpoint(const std::string& text) {
  PRESPLIT_RETURN_IF_ERROR(CheckJsonBounds(text).WithContext("a region checkpoint"));
  json o = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (o.is_discarded() || !o.is_object()) {
    return Status::InvalidArgument("a region checkpoint is not a JSON object");
  }
  RegionCheckpoint c;
  if (o.contains("next_row") && o["next_row"].is_string()) {
    auto row = Base64Decode(o["next_row"].get<std::string>());
    if (!row.ok()) return Status::InvalidArgument("a checkpoint's next_row is not base64");
    c.next_row = std::move(row).value();
  }
  c.done = Field<bool>(o, "done", false);
  c.rows = Field<int64_t>(o, "rows", 0);
  c.cells = Field<int64_t>(o, "cells", 0);
  c.bytes = Field<int64_t>(o, "bytes", 0);
  auto digest = ParseDigestHex(StringOrEmpty(o, "digest"));
  c.digest = digest.ok() ? *digest : 0;
  c.chunks = Field<int64_t>(o, "chunks", 0);
  return c;
}

std::string PlainName(const std::string& table) {
  std::string out = table;
  for (char& c : out) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.';
    if (!plain) c = '_';
  }
  return out;
}

std::string SourceSnapshotOf(const std::string& target) {
  return "presplit_resalt_" + PlainName(target);
}

namespace {

// HBase's peer ids: no '-' (HBASE-11394); presplit's are letters, digits and underscores.
std::string PeerBase(const std::string& target) {
  std::string name;
  for (char c : target) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    name += plain ? c : '_';
    if (name.size() == 100) break;
  }
  uint32_t hash = 2166136261u;  // FNV-1a of the exact name
  for (unsigned char c : target) {
    hash ^= c;
    hash *= 16777619u;
  }
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08x", hash);
  return "presplit_" + name + "_" + hex;
}

}  // namespace

std::string CapturePeerOf(const std::string& target) { return PeerBase(target); }

std::string ReversePeerOf(const std::string& target) { return PeerBase(target) + "_r"; }

std::string StagingDirOf(const std::string& base, const std::string& target) {
  const std::string name = PlainName(target);
  if (base.empty()) return name;
  return base.back() == '/' ? base + name : base + "/" + name;
}

std::string DigestHex(uint64_t digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kHex[digest & 0xF];
    digest >>= 4;
  }
  return out;
}

Result<uint64_t> ParseDigestHex(const std::string& hex) {
  if (hex.size() != 16)
    return Status::InvalidArgument("a digest is 16 hex digits, got '" + hex + "'");
  uint64_t value = 0;
  for (char c : hex) {
    int nibble;
    if (c >= '0' && c <= '9') {
      nibble = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      nibble = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      nibble = c - 'A' + 10;
    } else {
      return Status::InvalidArgument("a digest is 16 hex digits, got '" + hex + "'");
    }
    value = (value << 4) | static_cast<uint64_t>(nibble);
  }
  return value;
}

std::string ReplicationOf(const MigrationPlan& plan) {
  auto config = ParseTableConfig(plan.document);
  return config.ok() && config->migration ? config->migration->replication : "refuse";
}

}  // namespace presplit::daemon::migrate
