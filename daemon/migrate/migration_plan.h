// The re-salt migration's records in ZooKeeper: the plan <root>/migrations/<ns>:<table> and one
// checkpoint per source region, <root>/migrations/<ns>:<table>/regions/<i>. A restarted or new
// leader resumes from them alone. JSON in, JSON out; plain code.
//
// Plan (every field written by the leader's Migrator, except `request`, which presplitctl sets):
//   {"table": "ns:t", "source": "ns:t", "target": "ns:t__g2",
//    "source_generation": 1, "target_generation": 2,
//    "old_layout": {...}, "new_layout": {...},          // status `layout` objects
//    "source_regions": [{"start": "<base64>", "end": "<base64>"}, ...],
//    "start_ts": 1700000000000,                          // ms: copy and verify [0, start_ts)
//    "engine": "put", "workers": 4, "max_cells_per_s": 0, "grace_period_s": 3600,
//    "drop_old": false, "config_version": 3, "document": "<canonical table document>",
//    "phase": "copying", "paused": false, "request": null | "pause" | "resume" | "abort",
//    "replayed_to_ts": 0, "switched_at_ms": 0, "catchup_rounds": 0, "grace_until_ms": 0,
//    "copy_started_ms": 0, "error": null, "verification": null | {...},
//    "created_at": "...", "updated_at": "...", "daemon": "host:pid",
//    "bulk": null | {...}}                               // engine "mapreduce" only, below
// `engine` is "put", "mapreduce", or "auto" until the target is created (then resolved from the
// source's store file bytes against the daemon's migration_mapreduce_threshold_bytes).
// Bulk copy ("mapreduce": io.presplit.mapreduce.ResaltBulkJob instead of the chunked copy):
//   {"job_id": "job_local123_0001" | "",   // the running attempt ("" before a submit/after one)
//    "snapshot": "presplit_resalt_ns_t__g2", "staging_dir": "/tmp/presplit-resalt/ns_t__g2",
//    "input": "snapshot" | "table",
//    "attempts": 1,                        // submits so far (a restart that resubmits counts)
//    "failures": 0,                        // jobs that FAILED or were KILLED behind our back
//    "state": "RUNNING", "map_progress": 0.5, "reduce_progress": 0.0,   // last poll
//    "rows": N, "cells": N,                // the job's counters at the last poll
//    "loaded": false, "files": N}          // bulk-loaded into the target (HFiles loaded)
// Checkpoint: {"next_row": "<base64>" | null, "done": false, "rows": N, "cells": N,
//              "bytes": N, "digest": "<16 hex>", "chunks": N}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon::migrate {

// The phases, in order. A migration only moves forward; failed_verification stops it (nothing
// switched) until an operator aborts it.
enum class Phase {
  kPlanned,             // plan written; the target is not created yet
  kCopying,             // target created; source regions copied chunk by chunk
  kReplaying,           // one replay of what arrived at the source since start_ts
  kVerifying,           // per source region: counts and digests of source and target
  kFailedVerification,  // a difference: nothing switched, waits for an abort
  kSwitching,           // verified; the status moves to the target generation
  kCatchingUp,          // switched; replays of the source until one replays nothing
  kGrace,               // caught up; the old generation stays readable until grace_until_ms
  kDone,                // the old generation disabled (dropped when asked); plan removed
};

const char* PhaseName(Phase phase);
Result<Phase> ParsePhase(const std::string& name);
// Whether the status already names the target (abort is refused from here on).
inline bool IsSwitched(Phase phase) { return phase >= Phase::kCatchingUp; }

struct SourceRegion {
  std::string start;  // raw bytes; "" = open
  std::string end;    // raw bytes; "" = open
};

// The bulk copy's record in the plan (engine "mapreduce").
struct BulkCopyState {
  std::string job_id;
  std::string snapshot;
  std::string staging_dir;
  std::string input = "snapshot";
  int attempts = 0;
  int failures = 0;
  std::string state;
  double map_progress = 0;
  double reduce_progress = 0;
  int64_t rows = 0;
  int64_t cells = 0;
  bool loaded = false;
  int64_t files = 0;
};

struct MigrationPlan {
  std::string table;
  std::string source;
  std::string target;
  int64_t source_generation = 1;
  int64_t target_generation = 2;
  std::string old_layout;  // JSON object text
  std::string new_layout;  // JSON object text
  std::vector<SourceRegion> source_regions;
  int64_t start_ts = 0;
  std::string engine = "put";
  int workers = 4;
  int64_t max_cells_per_s = 0;
  int64_t grace_period_s = 3600;
  bool drop_old = false;
  int64_t config_version = 0;
  std::string document;  // canonical table document the target is created from

  Phase phase = Phase::kPlanned;
  bool paused = false;
  std::string request;  // "" | "pause" | "resume" | "abort"
  int64_t replayed_to_ts = 0;
  int64_t switched_at_ms = 0;
  int catchup_rounds = 0;
  int64_t grace_until_ms = 0;
  int64_t copy_started_ms = 0;
  std::string error;
  std::string verification;  // JSON text of the last verification report; "" = none
  std::string created_at;
  std::string updated_at;
  std::string daemon;
  std::optional<BulkCopyState> bulk;  // set once the bulk copy is planned
};

std::string PlanToJson(const MigrationPlan& plan);
Result<MigrationPlan> ParsePlan(const std::string& json);

struct RegionCheckpoint {
  std::optional<std::string> next_row;  // unset with done: finished; unset without: not started
  bool done = false;
  int64_t rows = 0;
  int64_t cells = 0;
  int64_t bytes = 0;
  uint64_t digest = 0;
  int64_t chunks = 0;
};

std::string CheckpointToJson(const RegionCheckpoint& checkpoint);
Result<RegionCheckpoint> ParseCheckpoint(const std::string& json);

// The target physical table of generation `generation`: "ns:t__g<N>" (generation 1 is the
// table's own name).
std::string GenerationTableName(const std::string& table, int64_t generation);

// "ns:t__g2" -> "ns_t__g2": a name for HBase snapshots and directories.
std::string PlainName(const std::string& table);

// Where a migration to `target` stages its HFiles (engines "hfile" and "mapreduce"):
// <base>/<PlainName(target)>.
std::string StagingDirOf(const std::string& base, const std::string& target);

}  // namespace presplit::daemon::migrate
