// The migration engine's view of the Java code that moves and checks cells
// (io.presplit.migrate.MigrationBridge in presplit-hbase.jar): an interface, so the engine is
// plain code unit-tested with a fake, and its production implementation over the embedded JVM.
//
// Layouts travel as the JSON of a status's `layout` object; row keys as raw bytes ("" = open
// end); timestamps in milliseconds, ranges [min_ts, max_ts). Every call may run on several
// threads at once (one source region per thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon::migrate {

// Row and cell counts and the order-independent digest (a sum mod 2^64 of one 64-bit hash per
// cell) of a set of cells. Digests of disjoint sets add up.
struct CellDigest {
  int64_t rows = 0;
  int64_t cells = 0;
  uint64_t digest = 0;

  bool operator==(const CellDigest&) const = default;
};

struct ChunkCopied {
  CellDigest copied;
  int64_t bytes = 0;
  std::optional<std::string> next_row;  // where the next chunk starts; unset: region finished
};

struct Replayed {
  int64_t cells = 0;
  int64_t deletes = 0;
};

struct PresenceCheck {
  int64_t checked = 0;
  int64_t missing = 0;
  std::string first_missing;  // printable; "" when nothing is missing
};

struct CopyRange {
  std::string source_table;
  std::string target_table;
  std::string old_layout;  // JSON
  std::string new_layout;  // JSON
  // The "hfile" engine: the JSON of the bulk job's spec (below) whose staging_dir, hbase_conf_dir,
  // hadoop_conf_dir and hbase_conf say where CopyChunk writes its HFiles (a directory per chunk
  // under staging_dir, on a file system the RegionServers read) before bulk-loading them: the
  // same spec the staging directory's cleanup (CleanupBulkCopy) gets, so that both resolve the
  // directory on the same file system. "" = the "put" engine (a BufferedMutator).
  std::string hfile_staging_spec;
};

// The bulk copy (the "mapreduce" engine): io.presplit.mapreduce.ResaltBulkJob. Its spec is JSON
// (source, target, layouts, [min_ts, max_ts), staging_dir, input, snapshot, hadoop_conf_dir,
// hbase_conf_dir, hbase_conf, local_tasks), built by the Migrator from the plan.
struct BulkJobProgress {
  std::string job_id;
  // PREP | RUNNING | SUCCEEDED | FAILED | KILLED, or UNKNOWN: a job of the local job runner of a
  // JVM that is gone (a restarted daemon): submit it again.
  std::string state;
  double map_progress = 0;     // 0..1
  double reduce_progress = 0;  // 0..1
  int64_t rows = 0;            // source rows mapped so far
  int64_t cells = 0;           // cells written to HFiles so far
  std::string failure;         // why a FAILED job failed; "" when nothing says
};

// What a job's output directory holds.
struct BulkOutput {
  bool finished = false;  // the job's complete output (its _SUCCESS marker) waits there
  bool loaded = false;    // and was bulk-loaded already (the _LOADED marker)
};

struct BulkLoaded {
  int64_t files = 0;
  int64_t bytes = 0;
};

class MigrationBridge {
 public:
  virtual ~MigrationBridge() = default;
  // Copies at most max_rows rows of [from_row, end_row) with cells in [min_ts, max_ts), re-keyed,
  // timestamps kept, durable on return. Idempotent.
  virtual Result<ChunkCopied> CopyChunk(const CopyRange& range, const std::string& from_row,
                                        const std::string& end_row, int64_t min_ts, int64_t max_ts,
                                        int max_rows, int64_t max_cells_per_s) = 0;
  // Counts and digest of a table's live cells in [from_row, end_row), [min_ts, max_ts).
  virtual Result<CellDigest> DigestRange(const std::string& table, const std::string& layout,
                                         const std::string& from_row, const std::string& end_row,
                                         int64_t min_ts, int64_t max_ts) = 0;
  // One pass over the target: its cells attributed to the source region (by sorted start keys)
  // their old key falls in. One entry per start key.
  virtual Result<std::vector<CellDigest>> DigestTargetBySourceRegion(
      const CopyRange& range, const std::vector<std::string>& source_region_starts, int64_t min_ts,
      int64_t max_ts) = 0;
  // Replays the source's puts and delete markers of [min_ts, max_ts) onto the target, re-keyed.
  virtual Result<Replayed> ReplayRange(const CopyRange& range, int64_t min_ts, int64_t max_ts,
                                       int64_t max_cells_per_s) = 0;
  // Every live source cell of [min_ts, max_ts) is in the target (or superseded there).
  virtual Result<PresenceCheck> CheckPresent(const CopyRange& range, int64_t min_ts,
                                             int64_t max_ts) = 0;

  // The bulk copy. Defaults: FailedPrecondition (a bridge without the "mapreduce" engine).
  // Takes (or reuses) the spec's snapshot, deletes an unfinished output of an earlier attempt,
  // submits the job and returns its id at once.
  virtual Result<std::string> SubmitBulkCopy(const std::string& spec) {
    (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  // Progress of a job by id (a job of this JVM, or on YARN one the cluster knows).
  virtual Result<BulkJobProgress> BulkCopyProgress(const std::string& job_id,
                                                   const std::string& spec) {
    (void)job_id, (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  virtual Result<BulkOutput> BulkCopyOutput(const std::string& spec) {
    (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  // Bulk-loads a finished job's HFiles into the target; a second call loads nothing.
  virtual Result<BulkLoaded> LoadBulkCopy(const std::string& spec) {
    (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  // Kills a running job and forgets it (a finished or unknown job: only forgotten).
  virtual Status KillBulkCopy(const std::string& job_id, const std::string& spec) {
    (void)job_id, (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  // Deletes the job's snapshot and staging directory.
  virtual Status CleanupBulkCopy(const std::string& spec) {
    (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
};

// The JSON results of MigrationBridge's Java methods (the contract's shapes).
Result<ChunkCopied> ParseChunkCopied(const std::string& json);
Result<CellDigest> ParseCellDigest(const std::string& json);
Result<std::vector<CellDigest>> ParseCellDigests(const std::string& json, size_t expected);
Result<Replayed> ParseReplayed(const std::string& json);
Result<PresenceCheck> ParsePresenceCheck(const std::string& json);
Result<BulkJobProgress> ParseBulkJobProgress(const std::string& json);
Result<BulkOutput> ParseBulkOutput(const std::string& json);
Result<BulkLoaded> ParseBulkLoaded(const std::string& json);

// "<16 lower-case hex digits>" <-> the digest.
std::string DigestHex(uint64_t digest);
Result<uint64_t> ParseDigestHex(const std::string& hex);

// Standard base64 with padding (row keys in JSON).
std::string Base64Encode(const std::string& bytes);
Result<std::string> Base64Decode(const std::string& text);

}  // namespace presplit::daemon::migrate
