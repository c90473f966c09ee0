// The migration engine's view of the Java code that moves and checks cells
// (package io.presplit.migrate in presplit-hbase.jar): an interface, so the engine is
// plain code unit-tested with a fake, and its production implementation over the embedded JVM.
//
// Layouts travel as the JSON of a status's `layout` object; row keys as raw bytes ("" = open
// end). No call selects cells by timestamp: a cell's timestamp is its writer's data, not a clock.
// Every call may run on several threads at once (one source region per thread).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/migrate/migration_plan.h"
#include "presplit/base64.h"
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

struct PresenceCheck {
  int64_t checked = 0;
  int64_t missing = 0;
  std::string first_missing;  // printable; "" when nothing is missing
};

// A change-capture peer of a migration (presplit-hbase.jar's RekeyingReplicationEndpoint on the
// RegionServers): ships every WAL edit of `source_table` to `target_table`, re-keyed, marked with
// the migration's mark (derived from `migration`, the migration's target table) so that the two
// peers of one migration never ship each other's writes back.
struct CaptureSpec {
  std::string peer_id;
  std::string source_table;
  std::string target_table;
  std::string source_layout;  // JSON
  std::string target_layout;  // JSON
  std::string migration;      // the migration's target table (new generation)
  // The ZooKeeper root of the deployment adding the peer, recorded in the peer's configuration
  // (presplit.capture.owner) when it is added: its leader removes the peer once no plan under
  // that root names it, and never another deployment's peer. "" = no mark.
  std::string owner;
};

// How far behind a capture peer is, as the RegionServers report its replication sources (one per
// server running it, and one per recovered queue of a dead server's WALs).
struct CaptureLag {
  std::string peer_id;
  int64_t lag_ms = 0;                  // the largest replication lag among its sources
  int64_t age_of_last_shipped_ms = 0;  // the largest age of the last edit shipped
  int64_t wal_queue_files = 0;         // WAL files its sources hold, summed
  int sources = 0;
  bool operator==(const CaptureLag&) const = default;
};

// A replication peer whose id is a presplit capture peer's (presplit_...), and the ZooKeeper root
// of the deployment that added it ("" when it carries none: added by an older version).
struct CapturePeerOwner {
  std::string peer_id;
  std::string owner;
  bool operator==(const CapturePeerOwner&) const = default;
};

struct CapturePeerState {
  bool exists = false;
  bool enabled = false;
  std::string source;
  std::string target;
  // Queues of the peer that still hold the WALs of a RegionServer that died ("queue@server"):
  // edits a probe acknowledged by the region's new server does not prove shipped.
  std::vector<std::string> recovered_queues;
};

// A capture peer's replication queues marked once writes to its table stopped: the WAL files they
// listed then, after which every live RegionServer rolled its WAL so that each of them ends
// (CaptureQueues in presplit-hbase.jar). Every edit the table took is in one of these files, on
// the server that wrote it, wherever its region has moved since.
struct QueueMark {
  std::vector<std::string> wals;
  int servers_rolled = 0;
  std::vector<std::string> roll_failed;  // "<server>: why"
};

// The marked files the peer's queues still list: the peer has shipped every edit of the table
// when there are none.
struct UnshippedWals {
  int64_t count = 0;
  std::vector<std::string> first;  // a few of them, "<file>@<queue>@<server>"
};

// One probe written into every region of a table (see CaptureSignals in presplit-hbase.jar).
struct ProbeRound {
  int64_t id = 0;
  std::vector<std::string> rows;  // one row per region probed (any length)
  // What acknowledges the probe of rows[i], as CaptureAcks.probe_acks lists it: opaque, of a
  // fixed size whatever the row's length, computed by the jar for both sides (CaptureSignals).
  std::vector<std::string> acks;
};

// What the capture endpoints acknowledged into a table's ack row.
struct CaptureAcks {
  std::vector<std::string> probe_acks;    // ProbeRound.acks of the asked probe that were shipped
  std::map<std::string, int64_t> closed;  // encoded region -> latest close shipped (WAL ms)
  std::vector<std::string> bulk_loads;    // "<region>@<ts>": bulk loads the WAL cannot carry
  std::vector<std::string> unfit;         // printable rows that do not fit the layout
};

// Per-partition digests of a set of rows: a row's partition is a hash of its logical key
// modulo the partition count, so both generations put a row into the same partition.
struct PartitionDigests {
  CellDigest total;
  std::vector<uint64_t> partitions;  // digest sum per partition
};

// A source region and the partitions of it to compare row by row.
struct RegionPartitions {
  SourceRegion region;
  std::vector<int> partitions;
};

// The logical keys whose rows differ between source and target.
struct RowDifferences {
  int64_t differing = 0;
  std::vector<std::string> keys;  // at most the asked number (raw logical keys)
  bool truncated = false;
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
  // Its map tasks take from the migration's throttle gate as they read the live source (a job
  // of this JVM's local runner with input "table"): the daemon keeps a throttle running.
  bool paced = false;
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

// A submitted job: its id and the kinds of delegation token it carries (sorted; none on a
// cluster without security), e.g. HBASE_AUTH_TOKEN and HDFS_DELEGATION_TOKEN.
struct BulkSubmitted {
  std::string job_id;
  std::vector<std::string> tokens;
  bool paced = false;  // as BulkJobProgress::paced
};

// Whether the daemon's user may read the source's files under hbase.rootdir (what a snapshot
// input reads); when not, `reason` names the path refused and the file system's message.
struct SnapshotAccess {
  bool readable = false;
  std::string reason;
};

// What MigrationBridge::CreateGeneration did: the new generation created now (false: found,
// created by this plan before), or `refused` (nothing created) with the reason; the grants and
// quotas copied from the old generation, the replication peers it joined ("follow"), and what
// became of REPLICATION_SCOPE ("kept", "cleared", "none": no family had one).
struct GenerationCreated {
  bool created = false;
  std::string refused;
  int grants = 0;
  int quotas = 0;
  std::vector<std::string> peers_followed;
  std::string replication_scope;
};

// What MigrationBridge::CopyTableSettings copied again.
struct TableSettingsCopied {
  int grants = 0;
  int quotas = 0;
  std::vector<std::string> peers_followed;
};

// What MigrationBridge::GuardTable or UnguardTable did: `changed` (the table's regions were
// reopened), and the other plan whose guard the table carried ("" when none): replaced by
// GuardTable, left in place by UnguardTable.
struct GuardChange {
  bool changed = false;
  std::string other_plan;
  bool operator==(const GuardChange&) const = default;
};

// What MigrationBridge::ConfirmGuard saw: the regions whose guard confirmed, and how many of them
// only after a reopen of their own.
struct GuardConfirmed {
  int regions = 0;
  int reopened = 0;
  bool operator==(const GuardConfirmed&) const = default;
};

// Whether a table is a generation this plan created (MigrationBridge::CheckGeneration).
struct GenerationCheck {
  bool exists = false;
  std::string why_not;  // "" when it carries this plan's marker
};

class MigrationBridge {
 public:
  virtual ~MigrationBridge() = default;
  // Copies at most max_rows rows of [from_row, end_row), every live cell (every version the
  // families keep, whatever its timestamp), re-keyed, with its timestamp and tags, durable on
  // return. Idempotent.
  virtual Result<ChunkCopied> CopyChunk(const CopyRange& range, const std::string& from_row,
                                        const std::string& end_row, int max_rows,
                                        int64_t max_cells_per_s) = 0;
  // Every live source cell is in the target (or superseded there).
  virtual Result<PresenceCheck> CheckPresent(const CopyRange& range) = 0;

  // ---- change capture
  // Adds the peer (enabled) unless it exists; an existing peer that is not this capture is an
  // error and is left alone. Returns whether it was added now.
  virtual Result<bool> EnsureCapture(const CaptureSpec& spec) = 0;
  // Removes the peer; false when there was none.
  virtual Result<bool> RemoveCapture(const std::string& peer_id) = 0;
  virtual Result<CapturePeerState> DescribeCapture(const std::string& peer_id) = 0;
  // Marks the peer's queues (see QueueMark); call it once writes to its table have stopped.
  virtual Result<QueueMark> MarkCaptureQueues(const std::string& peer_id) = 0;
  // Which of `marked` (QueueMark.wals) the peer's queues still list.
  virtual Result<UnshippedWals> UnshippedCaptureWals(const std::string& peer_id,
                                                     const std::vector<std::string>& marked) = 0;
  // Writes a probe with this id into every region of `table`.
  virtual Result<ProbeRound> Probe(const std::string& table, int64_t probe_id) = 0;
  // The acknowledgements in `ack_table` (the peer's target), the probe rows of `probe_id` among
  // them.
  virtual Result<CaptureAcks> ReadAcks(const std::string& ack_table, int64_t probe_id) = 0;
  // A table's families' KEEP_DELETED_CELLS (the target keeps delete markers while the copy
  // runs, so a marker the peer shipped first is not compacted away before the copy's cell).
  virtual Status SetKeepDeletedCells(const std::string& table, bool keep) = 0;
  // READONLY: writes refused by the RegionServers (the fence of a generation).
  // `changed` (when given): whether the table's READONLY was changed now (false: it was so).
  virtual Status SetReadOnly(const std::string& table, bool read_only, bool* changed = nullptr) = 0;
  // Closes and reopens these regions of `table` (encoded names), each on a server HBase picks:
  // the close is the region's last entry in its server's WAL. For a fenced generation whose
  // regions a RegionServer's crash reopened elsewhere without writing a close. Every region is
  // tried; the error names the ones that failed.
  virtual Status ReopenRegions(const std::string& table,
                               const std::vector<std::string>& encoded_regions) = 0;
  // Every replication peer of the cluster whose id is a presplit capture peer's, with its owner.
  virtual Result<std::vector<CapturePeerOwner>> ListCapturePeers() = 0;
  // The lag of these capture peers (one HMaster call); a peer no RegionServer reports is left out.
  virtual Result<std::vector<CaptureLag>> CaptureLags(const std::vector<std::string>& peer_ids) = 0;

  // ---- the new generation: the same table in a new layout
  // Creates spec.table (the document's families, presplit's attributes, its split keys) as the
  // next generation of `source`: the source's table attributes and family settings are kept
  // (only the layout is the document's), KEEP_DELETED_CELLS on while the copy runs, the marker
  // of `plan_id` set; then the source's grants and quotas are copied and, with `replication`
  // "follow", the peers naming the source are told to ship the new generation too. Refuses,
  // creating nothing, a cluster with visibility labels, a source another replication peer ships
  // while `replication` is "refuse", and an existing table of that name this plan did not make.
  virtual Result<GenerationCreated> CreateGeneration(const TableSpec& spec,
                                                     const std::string& source,
                                                     const std::string& replication,
                                                     const std::string& plan_id) = 0;
  // The source's grants and quotas (and, "follow", the peers naming it) copied to the target
  // again: right before the switch, for what an operator changed during the copy.
  virtual Result<TableSettingsCopied> CopyTableSettings(const std::string& source,
                                                        const std::string& target,
                                                        const std::string& replication) = 0;
  // Whether `table` carries the marker of plan `plan_id` migrating `source`.
  virtual Result<GenerationCheck> CheckGeneration(const std::string& table,
                                                  const std::string& source,
                                                  const std::string& plan_id) = 0;
  // The new generation once no capture peer writes into it any more, in one modifyTable of
  // `target` (a reopen of its regions; none when nothing changes): every family gets the
  // KEEP_DELETED_CELLS of the same family of `source` (FALSE for a family the source lacks), the
  // setting its owner chose; the MigrationGuard of `plan_id` is removed (another plan's is left,
  // and named in `other_plan`). kNotFound when either table is gone.
  virtual Result<GuardChange> SettleNewGeneration(const std::string& target,
                                                  const std::string& source,
                                                  const std::string& plan_id) = 0;

  // ---- the guard: presplit-hbase.jar's MigrationGuard, a table coprocessor refusing what the
  // capture cannot carry (bulk loads, Durability.SKIP_WAL writes), with the table attribute
  // naming the plan that attached it. Each change is a modifyTable, which reopens the table's
  // regions; none when the table is so already.
  // Attaches the guard of `plan_id` (refusing bulk loads too), replacing another plan's.
  virtual Result<GuardChange> GuardTable(const std::string& table, const std::string& plan_id) = 0;
  // Attaches the guard, dormant, when the table does not carry it (a reopen of its regions;
  // nothing when it does: a table keeps it after its first migration). Whether it changed anything.
  virtual Result<bool> AttachGuard(const std::string& table) = 0;
  // Waits (with a deadline) until every region of `table` confirms that its guard refuses what
  // the capture cannot carry, with nothing it let through before still being written: a dormant
  // guard turns on by itself once a capture of its table runs on its RegionServer (no reopen). A
  // region that does not confirm in time is reopened and waited for again; then an error.
  virtual Result<GuardConfirmed> ConfirmGuard(const std::string& table) = 0;
  // Puts the guard of `plan_id` (its plan attribute) to sleep: it stays attached, dormant;
  // another plan's is left in place (GuardChange::other_plan). A table that is gone, or whose
  // guard is dormant already: nothing changed.
  virtual Result<GuardChange> UnguardTable(const std::string& table,
                                           const std::string& plan_id) = 0;

  // ---- verification
  // Digests of the live cells of a table's rows [from_row, end_row), per partition.
  virtual Result<PartitionDigests> DigestPartitions(const std::string& table,
                                                    const std::string& layout,
                                                    const std::string& from_row,
                                                    const std::string& end_row, int partitions) = 0;
  // One pass over the target: its cells attributed to the source region (by sorted start keys)
  // their old key falls in, per partition. One entry per start key.
  virtual Result<std::vector<PartitionDigests>> DigestTargetPartitions(
      const CopyRange& range, const std::vector<std::string>& source_region_starts,
      int partitions) = 0;
  // Row by row over the given partitions of the given source regions (and the target's rows that
  // belong there): the logical keys whose rows differ, at most max_keys of them.
  virtual Result<RowDifferences> DiffPartitions(const CopyRange& range,
                                                const std::vector<std::string>& source_starts,
                                                const std::vector<RegionPartitions>& regions,
                                                int partitions, int max_keys) = 0;
  // One hash per logical key of the row as the table holds it now (0: no such row).
  virtual Result<std::vector<uint64_t>> RowHashes(const std::string& table,
                                                  const std::string& layout,
                                                  const std::vector<std::string>& keys) = 0;
  // A printable comparison of one logical key's row in source and target (for the report).
  virtual Result<std::string> DescribeRow(const CopyRange& range, const std::string& key) = 0;

  // The bulk copy. Defaults: FailedPrecondition (a bridge without the "mapreduce" engine).
  // Takes (or reuses) the spec's snapshot, deletes an unfinished output of an earlier attempt,
  // submits the job and returns its id at once.
  virtual Result<BulkSubmitted> SubmitBulkCopy(const std::string& spec) {
    (void)spec;
    return Status::FailedPrecondition("this migration bridge has no bulk copy");
  }
  // Whether a snapshot input of the spec's source could be read by the daemon's user: tried on
  // the files under hbase.rootdir (on a secure HDFS they are HBase's own, mode 700). An error
  // is a file system that could not be asked, not a refusal.
  virtual Result<SnapshotAccess> CheckSnapshotInput(const std::string& spec) {
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

  // ---- the adaptive throttle (throttler.h, throttle_sampler.h). Defaults: FailedPrecondition
  // (a bridge without it: the migration runs at its ceiling).
  // One health sample of the RegionServers holding `tables` and `probes` timed small gets per
  // table: the JSON of ClusterHealth.sample in presplit-hbase.jar (parsed by ParseClusterHealth).
  virtual Result<std::string> ClusterHealth(const std::vector<std::string>& tables, int probes) {
    (void)tables, (void)probes;
    return Status::FailedPrecondition("this migration bridge has no health samples");
  }
  // Sets the rate (cells/s; 0 = open; negative: removed) of the throttle gate every copy chunk
  // and verification read of `tables` takes from; returns the cells taken through it since the
  // last call.
  virtual Result<int64_t> SetThrottle(const std::vector<std::string>& tables, int64_t cells_per_s) {
    (void)tables, (void)cells_per_s;
    return Status::FailedPrecondition("this migration bridge has no throttle gate");
  }
};

// The JSON results of the bridge's Java methods (the contract's shapes).
Result<GuardConfirmed> ParseGuardConfirmed(const std::string& json);
Result<ChunkCopied> ParseChunkCopied(const std::string& json);
Result<CellDigest> ParseCellDigest(const std::string& json);
Result<std::vector<CellDigest>> ParseCellDigests(const std::string& json, size_t expected);
Result<bool> ParseFlag(const std::string& json, const char* key);
Result<CapturePeerState> ParseCapturePeerState(const std::string& json);
Result<ProbeRound> ParseProbeRound(const std::string& json);
Result<QueueMark> ParseQueueMark(const std::string& json);
Result<UnshippedWals> ParseUnshippedWals(const std::string& json);
Result<std::vector<CapturePeerOwner>> ParseCapturePeerOwners(const std::string& json);
Result<std::vector<CaptureLag>> ParseCaptureLags(const std::string& json);
Result<CaptureAcks> ParseCaptureAcks(const std::string& json);
Result<PartitionDigests> ParsePartitionDigests(const std::string& json, int partitions);
Result<std::vector<PartitionDigests>> ParsePartitionDigestList(const std::string& json,
                                                               size_t expected, int partitions);
Result<RowDifferences> ParseRowDifferences(const std::string& json);
Result<std::vector<uint64_t>> ParseRowHashes(const std::string& json, size_t expected);
Result<PresenceCheck> ParsePresenceCheck(const std::string& json);
Result<BulkJobProgress> ParseBulkJobProgress(const std::string& json);
Result<BulkOutput> ParseBulkOutput(const std::string& json);
Result<BulkLoaded> ParseBulkLoaded(const std::string& json);
Result<BulkSubmitted> ParseBulkSubmitted(const std::string& json);
Result<SnapshotAccess> ParseSnapshotAccess(const std::string& json);
Result<GenerationCreated> ParseGenerationCreated(const std::string& json);
Result<TableSettingsCopied> ParseTableSettingsCopied(const std::string& json);
Result<GenerationCheck> ParseGenerationCheck(const std::string& json);
Result<GuardChange> ParseGuardChange(const std::string& json, const char* what);

}  // namespace presplit::daemon::migrate
