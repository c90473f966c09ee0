#include "daemon/migrate/migration_bridge.h"

#include <nlohmann/json.hpp>

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

Result<json> ParseObject(const std::string& text, const char* what) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Status::Internal(std::string("bridge call ") + what +
                            " returned something that is not a JSON object");
  }
  return parsed;
}

Result<int64_t> Count(const json& object, const char* key, const char* what) {
  if (!object.contains(key) || !object[key].is_number_integer() || object[key].get<int64_t>() < 0) {
    return Status::Internal(std::string("bridge call ") + what + ": field '" + key +
                            "' missing or not a count");
  }
  return object[key].get<int64_t>();
}

Result<CellDigest> DigestOf(const json& object, const char* what) {
  CellDigest d;
  PRESPLIT_ASSIGN_OR_RETURN(d.rows, Count(object, "rows", what));
  PRESPLIT_ASSIGN_OR_RETURN(d.cells, Count(object, "cells", what));
  if (!object.contains("digest") || !object["digest"].is_string()) {
    return Status::Internal(std::string("bridge call ") + what + ": field 'digest' missing");
  }
  PRESPLIT_ASSIGN_OR_RETURN(d.digest, ParseDigestHex(object["digest"].get<std::string>()));
  return d;
}

}  // namespace

Result<ChunkCopied> ParseChunkCopied(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "copyChunk"));
  ChunkCopied out;
  PRESPLIT_ASSIGN_OR_RETURN(out.copied, DigestOf(o, "copyChunk"));
  PRESPLIT_ASSIGN_OR_RETURN(out.bytes, Count(o, "bytes", "copyChunk"));
  if (!o.contains("next_row")) {
    return Status::Internal("bridge call copyChunk: field 'next_row' missing");
  }
  if (o["next_row"].is_string()) {
    auto row = Base64Decode(o["next_row"].get<std::string>());
    if (!row.ok()) return Status::Internal("bridge call copyChunk: next_row is not base64");
    out.next_row = std::move(row).value();
  } else if (!o["next_row"].is_null()) {
    return Status::Internal("bridge call copyChunk: next_row is neither base64 nor null");
  }
  return out;
}

Result<bool> ParseFlag(const std::string& text, const char* key) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, key));
  if (!o.contains(key) || !o[key].is_boolean()) {
    return Status::Internal(std::string("bridge call: field '") + key + "' missing");
  }
  return o[key].get<bool>();
}

Result<CapturePeerState> ParseCapturePeerState(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "describeCapture"));
  if (!o.contains("exists") || !o["exists"].is_boolean()) {
    return Status::Internal("bridge call describeCapture: field 'exists' missing");
  }
  CapturePeerState out;
  out.exists = o["exists"].get<bool>();
  out.enabled = o.value("enabled", false);
  if (o.contains("source") && o["source"].is_string()) out.source = o["source"];
  if (o.contains("target") && o["target"].is_string()) out.target = o["target"];
  if (o.contains("recovered_queues") && o["recovered_queues"].is_array()) {
    for (const json& queue : o["recovered_queues"]) {
      if (!queue.is_string()) {
        return Status::Internal(
            "bridge call describeCapture: 'recovered_queues' holds a "
            "non-string");
      }
      out.recovered_queues.push_back(queue.get<std::string>());
    }
  }
  return out;
}

namespace {

Result<std::vector<std::string>> Base64List(const json& o, const char* key, const char* what) {
  if (!o.contains(key) || !o[key].is_array()) {
    return Status::Internal(std::string("bridge call ") + what + ": field '" + key + "' missing");
  }
  std::vector<std::string> out;
  for (const json& entry : o[key]) {
    if (!entry.is_string()) {
      return Status::Internal(std::string("bridge call ") + what + ": '" + key +
                              "' holds a non-string");
    }
    auto bytes = Base64Decode(entry.get<std::string>());
    if (!bytes.ok()) {
      return Status::Internal(std::string("bridge call ") + what + ": '" + key +
                              "' holds something that is not base64");
    }
    out.push_back(std::move(bytes).value());
  }
  return out;
}

Result<std::vector<std::string>> StringList(const json& o, const char* key, const char* what) {
  if (!o.contains(key) || !o[key].is_array()) {
    return Status::Internal(std::string("bridge call ") + what + ": field '" + key + "' missing");
  }
  std::vector<std::string> out;
  for (const json& entry : o[key]) {
    if (!entry.is_string()) {
      return Status::Internal(std::string("bridge call ") + what + ": '" + key +
                              "' holds a non-string");
    }
    out.push_back(entry.get<std::string>());
  }
  return out;
}

Result<PartitionDigests> PartitionDigestsOf(const json& o, int partitions, const char* what) {
  PartitionDigests out;
  PRESPLIT_ASSIGN_OR_RETURN(out.total, DigestOf(o, what));
  if (!o.contains("partitions") || !o["partitions"].is_array() ||
      o["partitions"].size() != static_cast<size_t>(partitions)) {
    return Status::Internal(std::string("bridge call ") + what + ": not " +
                            std::to_string(partitions) + " partition digests");
  }
  for (const json& hex : o["partitions"]) {
    if (!hex.is_string()) {
      return Status::Internal(std::string("bridge call ") + what +
                              ": a partition digest is not a string");
    }
    PRESPLIT_ASSIGN_OR_RETURN(uint64_t d, ParseDigestHex(hex.get<std::string>()));
    out.partitions.push_back(d);
  }
  return out;
}

}  // namespace

Result<ProbeRound> ParseProbeRound(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "probe"));
  ProbeRound out;
  PRESPLIT_ASSIGN_OR_RETURN(out.id, Count(o, "probe_id", "probe"));
  PRESPLIT_ASSIGN_OR_RETURN(out.rows, Base64List(o, "rows", "probe"));
  PRESPLIT_ASSIGN_OR_RETURN(out.acks, StringList(o, "acks", "probe"));
  if (out.acks.size() != out.rows.size()) {
    return Status::Internal("bridge call probe: " + std::to_string(out.rows.size()) + " rows but " +
                            std::to_string(out.acks.size()) + " acks");
  }
  return out;
}

Result<QueueMark> ParseQueueMark(const std::string& text) {
  constexpr const char* kWhat = "markCaptureQueues";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  QueueMark out;
  PRESPLIT_ASSIGN_OR_RETURN(out.wals, StringList(o, "wals", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(int64_t rolled, Count(o, "servers_rolled", kWhat));
  out.servers_rolled = static_cast<int>(rolled);
  PRESPLIT_ASSIGN_OR_RETURN(out.roll_failed, StringList(o, "roll_failed", kWhat));
  return out;
}

Result<UnshippedWals> ParseUnshippedWals(const std::string& text) {
  constexpr const char* kWhat = "unshippedCaptureWals";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  UnshippedWals out;
  PRESPLIT_ASSIGN_OR_RETURN(out.count, Count(o, "unshipped", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(out.first, StringList(o, "first", kWhat));
  return out;
}

Result<std::vector<CapturePeerOwner>> ParseCapturePeerOwners(const std::string& text) {
  constexpr const char* kWhat = "listCapturePeers";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("peers") || !o["peers"].is_array()) {
    return Status::Internal("bridge call listCapturePeers: field 'peers' missing");
  }
  std::vector<CapturePeerOwner> out;
  for (const json& peer : o["peers"]) {
    if (!peer.is_object() || !peer.contains("id") || !peer["id"].is_string() ||
        (peer.contains("owner") && !peer["owner"].is_string() && !peer["owner"].is_null())) {
      return Status::Internal("bridge call listCapturePeers: a peer is not {id, owner}");
    }
    CapturePeerOwner entry{peer["id"].get<std::string>(), ""};
    if (peer.contains("owner") && peer["owner"].is_string()) {
      entry.owner = peer["owner"].get<std::string>();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Result<std::vector<CaptureLag>> ParseCaptureLags(const std::string& text) {
  constexpr const char* kWhat = "captureLags";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("peers") || !o["peers"].is_array()) {
    return Status::Internal("bridge call captureLags: field 'peers' missing");
  }
  std::vector<CaptureLag> out;
  for (const json& peer : o["peers"]) {
    if (!peer.is_object() || !peer.contains("id") || !peer["id"].is_string()) {
      return Status::Internal("bridge call captureLags: a peer without an id");
    }
    CaptureLag lag;
    lag.peer_id = peer["id"].get<std::string>();
    PRESPLIT_ASSIGN_OR_RETURN(lag.lag_ms, Count(peer, "lag_ms", kWhat));
    PRESPLIT_ASSIGN_OR_RETURN(lag.age_of_last_shipped_ms,
                              Count(peer, "age_of_last_shipped_ms", kWhat));
    PRESPLIT_ASSIGN_OR_RETURN(lag.wal_queue_files, Count(peer, "wal_queue_files", kWhat));
    PRESPLIT_ASSIGN_OR_RETURN(int64_t sources, Count(peer, "sources", kWhat));
    lag.sources = static_cast<int>(sources);
    out.push_back(std::move(lag));
  }
  return out;
}

Result<CaptureAcks> ParseCaptureAcks(const std::string& text) {
  constexpr const char* kWhat = "captureAcks";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  CaptureAcks out;
  PRESPLIT_ASSIGN_OR_RETURN(out.probe_acks, StringList(o, "probe_acks", kWhat));
  if (o.contains("closed") && o["closed"].is_object()) {
    for (const auto& [region, ts] : o["closed"].items()) {
      if (ts.is_number_integer()) out.closed[region] = ts.get<int64_t>();
    }
  }
  for (const char* key : {"bulk_loads", "unfit"}) {
    if (!o.contains(key) || !o[key].is_array()) continue;
    for (const json& entry : o[key]) {
      if (!entry.is_object()) continue;
      const std::string what = entry.value(std::string(key) == "unfit" ? "row" : "region", "");
      const std::string line = what + "@" + std::to_string(entry.value("ts", int64_t{0}));
      (std::string(key) == "unfit" ? out.unfit : out.bulk_loads).push_back(line);
    }
  }
  return out;
}

Result<PartitionDigests> ParsePartitionDigests(const std::string& text, int partitions) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "digestPartitions"));
  return PartitionDigestsOf(o, partitions, "digestPartitions");
}

Result<std::vector<PartitionDigests>> ParsePartitionDigestList(const std::string& text,
                                                               size_t expected, int partitions) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_array() || parsed.size() != expected) {
    return Status::Internal("bridge call digestTargetPartitions did not return an array of " +
                            std::to_string(expected) + " entries");
  }
  std::vector<PartitionDigests> out;
  for (const json& entry : parsed) {
    if (!entry.is_object()) {
      return Status::Internal("bridge call digestTargetPartitions: an entry is no object");
    }
    PRESPLIT_ASSIGN_OR_RETURN(PartitionDigests d,
                              PartitionDigestsOf(entry, partitions, "digestTargetPartitions"));
    out.push_back(std::move(d));
  }
  return out;
}

Result<RowDifferences> ParseRowDifferences(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "diffPartitions"));
  RowDifferences out;
  PRESPLIT_ASSIGN_OR_RETURN(out.differing, Count(o, "differing", "diffPartitions"));
  PRESPLIT_ASSIGN_OR_RETURN(out.keys, Base64List(o, "keys", "diffPartitions"));
  out.truncated = o.value("truncated", false);
  return out;
}

Result<std::vector<uint64_t>> ParseRowHashes(const std::string& text, size_t expected) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "rowHashes"));
  if (!o.contains("hashes") || !o["hashes"].is_array() || o["hashes"].size() != expected) {
    return Status::Internal("bridge call rowHashes did not return " + std::to_string(expected) +
                            " hashes");
  }
  std::vector<uint64_t> out;
  for (const json& hex : o["hashes"]) {
    if (!hex.is_string()) return Status::Internal("bridge call rowHashes: not a string");
    PRESPLIT_ASSIGN_OR_RETURN(uint64_t h, ParseDigestHex(hex.get<std::string>()));
    out.push_back(h);
  }
  return out;
}

Result<PresenceCheck> ParsePresenceCheck(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "checkPresent"));
  PresenceCheck out;
  PRESPLIT_ASSIGN_OR_RETURN(out.checked, Count(o, "checked", "checkPresent"));
  PRESPLIT_ASSIGN_OR_RETURN(out.missing, Count(o, "missing", "checkPresent"));
  if (o.contains("first_missing") && o["first_missing"].is_string()) {
    out.first_missing = o["first_missing"].get<std::string>();
  }
  return out;
}

Result<BulkJobProgress> ParseBulkJobProgress(const std::string& text) {
  constexpr const char* kWhat = "ResaltBulkJob.progress";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  BulkJobProgress p;
  if (!o.contains("job_id") || !o["job_id"].is_string() || !o.contains("state") ||
      !o["state"].is_string()) {
    return Status::Internal(std::string(kWhat) + ": fields 'job_id' and 'state' are required");
  }
  p.job_id = o["job_id"].get<std::string>();
  p.state = o["state"].get<std::string>();
  p.map_progress = o.value("map_progress", 0.0);
  p.reduce_progress = o.value("reduce_progress", 0.0);
  PRESPLIT_ASSIGN_OR_RETURN(p.rows, Count(o, "rows", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(p.cells, Count(o, "cells", kWhat));
  if (o.contains("failure") && o["failure"].is_string()) p.failure = o["failure"];
  p.paced = o.contains("paced") && o["paced"].is_boolean() && o["paced"].get<bool>();
  return p;
}

Result<BulkOutput> ParseBulkOutput(const std::string& text) {
  constexpr const char* kWhat = "ResaltBulkJob.output";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("finished") || !o["finished"].is_boolean() || !o.contains("loaded") ||
      !o["loaded"].is_boolean()) {
    return Status::Internal(std::string(kWhat) + ": fields 'finished' and 'loaded' are required");
  }
  return BulkOutput{o["finished"].get<bool>(), o["loaded"].get<bool>()};
}

Result<BulkLoaded> ParseBulkLoaded(const std::string& text) {
  constexpr const char* kWhat = "ResaltBulkJob.load";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  BulkLoaded out;
  PRESPLIT_ASSIGN_OR_RETURN(out.files, Count(o, "files", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(out.bytes, Count(o, "bytes", kWhat));
  return out;
}

Result<BulkSubmitted> ParseBulkSubmitted(const std::string& text) {
  constexpr const char* kWhat = "ResaltBulkJob.submitJob";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("job_id") || !o["job_id"].is_string() || o["job_id"].get<std::string>().empty()) {
    return Status::Internal(std::string(kWhat) + ": field 'job_id' is required");
  }
  BulkSubmitted out;
  out.job_id = o["job_id"].get<std::string>();
  if (o.contains("tokens")) {
    if (!o["tokens"].is_array()) {
      return Status::Internal(std::string(kWhat) + ": 'tokens' is not a list");
    }
    for (const json& kind : o["tokens"]) {
      if (!kind.is_string()) {
        return Status::Internal(std::string(kWhat) + ": a token kind is not a string");
      }
      out.tokens.push_back(kind.get<std::string>());
    }
  }
  out.paced = o.contains("paced") && o["paced"].is_boolean() && o["paced"].get<bool>();
  return out;
}

Result<SnapshotAccess> ParseSnapshotAccess(const std::string& text) {
  constexpr const char* kWhat = "ResaltBulkJob.snapshotInput";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("readable") || !o["readable"].is_boolean()) {
    return Status::Internal(std::string(kWhat) + ": field 'readable' is required");
  }
  SnapshotAccess out;
  out.readable = o["readable"].get<bool>();
  if (o.contains("reason") && o["reason"].is_string()) out.reason = o["reason"];
  return out;
}

}  // namespace presplit::daemon::migrate

namespace presplit::daemon::migrate {

Result<GenerationCreated> ParseGenerationCreated(const std::string& text) {
  constexpr const char* kWhat = "createGeneration";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  GenerationCreated out;
  if (o.contains("refused") && o["refused"].is_string()) {
    out.refused = o["refused"].get<std::string>();
    if (out.refused.empty()) return Status::Internal("bridge call createGeneration: empty refusal");
    return out;
  }
  if (!o.contains("created") || !o["created"].is_boolean()) {
    return Status::Internal("bridge call createGeneration: field 'created' is required");
  }
  out.created = o["created"].get<bool>();
  PRESPLIT_ASSIGN_OR_RETURN(int64_t grants, Count(o, "grants", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(int64_t quotas, Count(o, "quotas", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(out.peers_followed, StringList(o, "peers_followed", kWhat));
  out.grants = static_cast<int>(grants);
  out.quotas = static_cast<int>(quotas);
  if (o.contains("replication_scope") && o["replication_scope"].is_string()) {
    out.replication_scope = o["replication_scope"].get<std::string>();
  }
  return out;
}

Result<TableSettingsCopied> ParseTableSettingsCopied(const std::string& text) {
  constexpr const char* kWhat = "copyTableSettings";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  TableSettingsCopied out;
  PRESPLIT_ASSIGN_OR_RETURN(int64_t grants, Count(o, "grants", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(int64_t quotas, Count(o, "quotas", kWhat));
  PRESPLIT_ASSIGN_OR_RETURN(out.peers_followed, StringList(o, "peers_followed", kWhat));
  out.grants = static_cast<int>(grants);
  out.quotas = static_cast<int>(quotas);
  return out;
}

Result<GenerationCheck> ParseGenerationCheck(const std::string& text) {
  constexpr const char* kWhat = "checkGeneration";
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, kWhat));
  if (!o.contains("exists") || !o["exists"].is_boolean() || !o.contains("why_not") ||
      !o["why_not"].is_string()) {
    return Status::Internal(
        "bridge call checkGeneration: fields 'exists' and 'why_not' are "
        "required");
  }
  return GenerationCheck{o["exists"].get<bool>(), o["why_not"].get<std::string>()};
}

Result<GuardChange> ParseGuardChange(const std::string& text, const char* what) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, what));
  if (!o.contains("changed") || !o["changed"].is_boolean() || !o.contains("other_plan") ||
      !(o["other_plan"].is_null() || o["other_plan"].is_string())) {
    return Status::Internal(std::string("bridge call ") + what +
                            ": fields 'changed' and 'other_plan' are required");
  }
  GuardChange out;
  out.changed = o["changed"].get<bool>();
  if (o["other_plan"].is_string()) out.other_plan = o["other_plan"].get<std::string>();
  return out;
}

Result<GuardConfirmed> ParseGuardConfirmed(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(json o, ParseObject(text, "confirmGuard"));
  if (!o.contains("regions") || !o["regions"].is_number_integer() || !o.contains("reopened") ||
      !o["reopened"].is_number_integer()) {
    return Status::Internal(
        "bridge call confirmGuard: fields 'regions' and 'reopened' are required");
  }
  return GuardConfirmed{o["regions"].get<int>(), o["reopened"].get<int>()};
}

}  // namespace presplit::daemon::migrate
