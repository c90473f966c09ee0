// The re-salt migration's records in ZooKeeper, JSON in, JSON out; plain code. Only PlanStore
// (plan_store.h) reads and writes them.
//
//   <root>/migrations/<ns>:<table>            the plan: written by the leading presplitd only
//   <root>/migrations/<ns>:<table>/regions/<i> one checkpoint per source region (chunked copy)
//   <root>/requests/<ns>:<table>              an operator's request (presplitctl migration
//                                             pause|resume|abort|rollback), the portal's to write
//
// Plan:
//   {"table": "ns:t", "source": "ns:t", "target": "ns:t__g2",
//    "source_generation": 1, "target_generation": 2,
//    "old_layout": {...}, "new_layout": {...},          // status `layout` objects
//    "source_regions": [{"start": "<base64>", "end": "<base64>"}, ...],
//    "engine": "put", "workers": 4, "max_cells_per_s": 0, "grace_period_s": 3600,
//    "drop_old": false, "config_version": 3, "document": "<canonical table document>",
//    "plan_id": "<32 hex digits: the marker the target carries>",
//    "phase": "copying", "paused": false,
//    "copy_started_ms": 0, "switched_at_ms": 0, "grace_until_ms": 0, "rolled_back_at_ms": 0,
//    "max_write_pause_ms": 5000, "throttle": "", "writes_paused_until_ms": 0, "paused_table": "",
//    "switch_retry_at_ms": 0,
//    "switch_attempts": 0, "deferred_rows": ["<base64 logical key>", ...],
//    "error": null, "verification": null | {...},
//    "created_at": "...", "updated_at": "...", "daemon": "host:pid",
//    "capture": {...},                                   // below
//    "bulk": null | {...}}                               // engine "mapreduce" only, below
// `engine` is "put", "hfile", "mapreduce", or "auto" until the target is created (then resolved
// from the source's store file bytes against the daemon's migration_mapreduce_threshold_bytes).
//
// Change capture (HBase replication; see daemon/migrate/capture_peers.h):
//   {"peer": "presplit_...", "reverse_peer": "presplit_..._r",   // ids fixed by the target
//    "started_ms": N,          // the forward peer (old -> new) exists since (0: not yet)
//    "reverse_started_ms": N,  // the reverse peer (new -> old) exists since (0: not yet)
//    "caught_up_ms": N,        // the forward peer shipped everything written before the switch
//    "fence_started_ms": N,    // the old generation's fence began (read-only, then drained)
//    "closed_before": {"<encoded region>": ts, ...},  // close acks seen before the fence
//    "drained_ms": N,          // the fenced generation was drained then and has stayed read-only
//    "bulk_loads": N, "unfit": N, "first_unfit": "..."}  // what the peer could not ship
//
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
// Request: see migration_request.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/migrate/migration_phase.h"
#include "presplit/json_bounds.h"
#include "presplit/status.h"

namespace presplit::daemon::migrate {

struct SourceRegion {
  std::string start;  // raw bytes; "" = open
  std::string end;    // raw bytes; "" = open
  bool operator==(const SourceRegion&) const = default;
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

// The change capture's record in the plan.
struct CaptureState {
  std::string peer;
  std::string reverse_peer;
  int64_t started_ms = 0;
  int64_t reverse_started_ms = 0;
  int64_t caught_up_ms = 0;
  int64_t fence_started_ms = 0;
  // Set when a rollback's pause drained the new generation (read-only since): rolling_back need
  // not drain it again. 0 otherwise; cleared whenever the fence is lifted.
  int64_t drained_ms = 0;
  std::map<std::string, int64_t> closed_before;
  int64_t bulk_loads = 0;
  int64_t unfit = 0;
  std::string first_unfit;
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
  std::string engine = "put";
  int workers = 4;
  int64_t max_cells_per_s = 0;
  int64_t grace_period_s = 3600;
  bool drop_old = false;
  int64_t config_version = 0;
  std::string document;  // canonical table document the target is created from
  // Random, made when the plan is written; the target carries it (with the source's name) in
  // its descriptor, and nothing is done to a target without it (see CheckGeneration).
  std::string plan_id;
  int64_t max_write_pause_ms = 5000;  // the document's migration.max_write_pause_ms
  std::string throttle;  // the document's migration.throttle: "adaptive", "off", "" (daemon's)

  Phase phase = Phase::kPlanned;
  bool paused = false;
  int64_t copy_started_ms = 0;
  int64_t switched_at_ms = 0;
  int64_t grace_until_ms = 0;
  int64_t rolled_back_at_ms = 0;
  // The switch's write pause (phase_switch.cc): writers are held until this moment (0: no pause
  // under way) while the old generation is read-only and drains; an attempt that did not drain
  // in time is abandoned and tried again from switch_retry_at_ms on.
  int64_t writes_paused_until_ms = 0;
  std::string paused_table;  // the generation read-only during that pause ("" = the source)
  int64_t switch_retry_at_ms = 0;
  int64_t switch_attempts = 0;
  // Rows that still differed after the verification's re-reads because they kept changing (hot
  // rows: counters, status rows): compared once more while writes are paused at the switch, when
  // neither side changes. At most kMaxDeferredRows; their logical keys.
  std::vector<std::string> deferred_rows;
  std::string error;
  std::string verification;  // JSON text of the last verification report; "" = none
  std::string created_at;
  std::string updated_at;
  std::string daemon;
  CaptureState capture;
  std::optional<BulkCopyState> bulk;  // set once the bulk copy is planned
};

std::string PlanToJson(const MigrationPlan& plan);
// Parses a plan as read from ZooKeeper: the text is bounded (size, nesting) before any JSON
// parser sees it. Parsing says nothing about whether the daemon may act on the plan: see
// plan_check.h.
// `max_bytes`: the plan's JSON with its parts read back in (plan_store.h) may be larger than
// one znode.
Result<MigrationPlan> ParsePlan(const std::string& json, size_t max_bytes = kMaxJsonBytes);

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

// The most rows a verification defers to the switch's pause (MigrationPlan::deferred_rows), and
// the most bytes their keys may take together (they are kept in the plan's znode).
inline constexpr size_t kMaxDeferredRows = 1000;
inline constexpr size_t kMaxDeferredKeyBytes = 128 * 1024;

// The document's migration.replication, how the new generation treats the source's other
// replication peers ("refuse" when the document does not parse).
std::string ReplicationOf(const MigrationPlan& plan);

// 128 random bits as 32 hex digits: a new plan's id (MigrationPlan::plan_id).
std::string NewPlanId();

// The target physical table of generation `generation`: "ns:t__g<N>" (generation 1 is the
// table's own name).
std::string GenerationTableName(const std::string& table, int64_t generation);

// "ns:t__g2" -> "ns_t__g2": a name for HBase snapshots and directories.
std::string PlainName(const std::string& table);

// Where a migration to `target` stages its HFiles (engines "hfile" and "mapreduce"):
// <base>/<PlainName(target)>.
std::string StagingDirOf(const std::string& base, const std::string& target);

// The one snapshot of the source a migration to `target` reads (engines "hfile", "mapreduce").
std::string SourceSnapshotOf(const std::string& target);

// The replication peers of a migration to `target`: the forward one (old generation -> new)
// and the reverse one (new -> old, from the switch on). HBase's peer ids allow letters, digits
// and underscores here; a short hash of the exact name keeps two tables whose names differ only
// in punctuation apart.
std::string CapturePeerOf(const std::string& target);
std::string ReversePeerOf(const std::string& target);

// "<16 lower-case hex digits>" <-> the digest.
std::string DigestHex(uint64_t digest);
Result<uint64_t> ParseDigestHex(const std::string& hex);

}  // namespace presplit::daemon::migrate
