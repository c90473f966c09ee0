// A MigrationBridge over in-memory tables, for the Migrator's unit tests: tables of rows by
// logical key (the real bridge re-salts; here a row keeps its key in both generations), capture
// peers that queue every write of their source table and apply it to their target when they
// ship (which they do whenever acknowledgements are read, unless stalled, all or one), probes and
// region closes acknowledged in order with the writes, read-only tables that refuse writes, the
// MigrationGuard of a table (refusing bulk loads and SKIP_WAL writes; one that gets past it is
// noticed by the capture, not shipped), and a bulk job that a test finishes, fails or forgets. The
// real bridge runs end to end in tests/e2e/test_migration*.py.
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "daemon/migrate/migration_bridge.h"
#include "tests/daemon/fakes.h"

namespace presplit::daemon::testing {

using namespace presplit::daemon::migrate;  // NOLINT: the fake implements that room's interface

class FakeMigrationBridge : public MigrationBridge {
 public:
  struct Row {
    int cells = 3;
    int version = 0;  // different content at the same key
    bool operator==(const Row&) const = default;
  };
  using Rows = std::map<std::string, Row>;

  // What a peer has not shipped yet, in the order its source took it.
  struct Edit {
    enum Kind { kWrite, kDelete, kProbe, kClose } kind;
    std::string key;  // row (kWrite, kDelete, kProbe) or region (kClose)
    Row row;
    int64_t id = 0;  // probe id, or the close's moment
  };
  struct Peer {
    std::string source;
    std::string target;
    std::string mark;  // the migration: writes a peer applies carry it
    std::deque<Edit> pending;
    std::string owner = "";  // the root of the deployment that added it ("": none)
  };
  struct Job {
    std::string state = "RUNNING";
    double map_progress = 0;
    std::string failure;
  };

  static uint64_t Hash(const std::string& key, const Row& row) {
    return std::hash<std::string>{}(key)*31 + static_cast<uint64_t>(row.cells) * 7 +
           static_cast<uint64_t>(row.version);
  }
  static int PartitionOf(const std::string& key, int partitions) {
    return static_cast<int>(std::hash<std::string>{}(key) % static_cast<size_t>(partitions));
  }

  // What acknowledges a probe of `row` (the jar's is a SHA-256; any fixed-size token will do).
  static std::string ProbeAckOf(const std::string& row) {
    return "ack:" + std::to_string(std::hash<std::string>{}(row));
  }

  // ---- what writers do (refused by a read-only table)
  bool Write(const std::string& table, const std::string& key) {
    return Write(table, key, Row{3, 0});
  }
  bool Write(const std::string& table, const std::string& key, Row row) {
    std::lock_guard<std::mutex> lock(mu);
    return WriteLocked(table, key, row, "", Edit::kWrite);
  }
  bool Delete(const std::string& table, const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    return WriteLocked(table, key, Row{0, 0}, "", Edit::kDelete);
  }
  // A bulk load of one row: refused by a guard that refuses bulk loads; else in the table, its
  // cells outside the WAL (no peer ships them), and its marker noticed by every peer of it.
  bool BulkLoad(const std::string& table, const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    auto guard = guards.find(table);
    if (GuardActiveLocked(table) && !guard->second.copy_loads) {
      refused_bulk_loads++;
      return false;
    }
    tables[table][key] = Row{};
    for (const auto& [id, peer] : peers) {
      if (peer.source == table)
        bulk_load_notices.push_back("region-of-" + key + "@" + std::to_string(++clock));
    }
    return true;
  }
  // A write with Durability.SKIP_WAL: refused by a guard; else in the table, no peer ships it.
  bool WriteSkippingWal(const std::string& table, const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    if (GuardActiveLocked(table)) {
      refused_skip_wal++;
      return false;
    }
    tables[table][key] = Row{};
    return true;
  }
  // As the jar's guard: on while its plan's attribute is set, or while a capture peer ships from
  // the table (the endpoint turns the dormant guards of its source on); attached in either case.
  bool GuardActiveLocked(const std::string& table) const {
    auto guard = guards.find(table);
    if (guard == guards.end()) return false;
    if (!guard->second.plan.empty()) return true;
    for (const auto& [id, peer] : peers) {
      if (peer.source == table) return true;
    }
    return false;
  }
  // Behind presplit's back, and outside any WAL: a broken copy.
  void Damage(const std::string& table, const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    tables[table].erase(key);
  }
  // Every peer ships what it has (what a RegionServer does on its own).
  void Ship() {
    std::lock_guard<std::mutex> lock(mu);
    ShipLocked();
  }

  // ---- MigrationBridge
  Result<ChunkCopied> CopyChunk(const CopyRange& range, const std::string& from_row,
                                const std::string& end_row, int max_rows,
                                int64_t max_cells_per_s) override {
    Result<ChunkCopied> out = CopyLocked(range, from_row, end_row, max_rows, max_cells_per_s);
    int calls;
    {
      std::lock_guard<std::mutex> lock(mu);
      calls = copy_calls;
    }
    if (after_chunk) after_chunk(calls);  // outside the lock: it may write to the source
    return out;
  }
  Result<PresenceCheck> CheckPresent(const CopyRange& range) override {
    if (on_check_present) on_check_present();
    std::lock_guard<std::mutex> lock(mu);
    PresenceCheck out;
    const Rows& target = tables[range.target_table];
    for (const auto& [key, row] : tables[range.source_table]) {
      out.checked += row.cells;
      if (!target.count(key)) {
        out.missing += row.cells;
        if (out.first_missing.empty()) out.first_missing = key;
      }
    }
    return out;
  }

  Result<bool> EnsureCapture(const CaptureSpec& spec) override {
    std::lock_guard<std::mutex> lock(mu);
    ensure_calls++;
    auto it = peers.find(spec.peer_id);
    if (it != peers.end()) {
      if (it->second.source != spec.source_table || it->second.target != spec.target_table) {
        return Status::FailedPrecondition("peer " + spec.peer_id + " is another capture");
      }
      return false;
    }
    peers[spec.peer_id] =
        Peer{spec.source_table, spec.target_table, spec.migration, {}, spec.owner};
    peers_ever.insert(spec.peer_id);
    events.push_back("capture " + spec.source_table);
    return true;
  }
  Result<bool> RemoveCapture(const std::string& peer_id) override {
    std::lock_guard<std::mutex> lock(mu);
    if (peers.count(peer_id)) peers_removed.push_back(peer_id);
    return peers.erase(peer_id) > 0;
  }
  Result<CapturePeerState> DescribeCapture(const std::string& peer_id) override {
    if (on_describe_capture) on_describe_capture(peer_id);  // outside the lock
    std::lock_guard<std::mutex> lock(mu);
    describe_capture_calls++;
    CapturePeerState out;
    auto it = peers.find(peer_id);
    if (it == peers.end()) return out;
    out.exists = out.enabled = true;
    out.source = it->second.source;
    out.target = it->second.target;
    auto queues = recovered_queues.find(peer_id);
    if (queues != recovered_queues.end()) out.recovered_queues = queues->second;
    return out;
  }
  Result<QueueMark> MarkCaptureQueues(const std::string& peer_id) override {
    std::lock_guard<std::mutex> lock(mu);
    queue_marks++;
    marks_by_peer[peer_id]++;
    QueueMark out;
    auto queued = queue_wals.find(peer_id);
    if (queued != queue_wals.end()) out.wals = queued->second;
    // A stalled peer (or every peer, `stall`) reads none of its files: its current one stays
    // listed.
    if (stall || stalled_peers.count(peer_id)) out.wals.push_back(kStalledWal);
    out.servers_rolled = 1;
    return out;
  }
  Result<UnshippedWals> UnshippedCaptureWals(const std::string& peer_id,
                                             const std::vector<std::string>& marked) override {
    if (on_unshipped) on_unshipped(peer_id);  // outside the lock
    std::lock_guard<std::mutex> lock(mu);
    UnshippedWals out;
    std::vector<std::string> listed;
    if (auto queued = queue_wals.find(peer_id); queued != queue_wals.end()) listed = queued->second;
    if (stall || stalled_peers.count(peer_id)) listed.push_back(kStalledWal);
    for (const auto& wal : listed) {
      if (std::find(marked.begin(), marked.end(), wal) == marked.end()) continue;
      out.count++;
      out.first.push_back(wal + "@" + peer_id + "@rs1");
    }
    return out;
  }
  Result<ProbeRound> Probe(const std::string& table, int64_t probe_id) override {
    std::lock_guard<std::mutex> lock(mu);
    probes++;
    ProbeRound round{probe_id, {}};
    for (const auto& region : RegionsLocked(table)) {
      const std::string row = region.start_key.empty() ? std::string(1, '\0') : region.start_key;
      round.rows.push_back(row);
      round.acks.push_back(ProbeAckOf(row));
      for (auto& [id, peer] : peers) {
        if (peer.source == table) peer.pending.push_back(Edit{Edit::kProbe, row, {}, probe_id});
      }
    }
    return round;
  }
  Result<CaptureAcks> ReadAcks(const std::string& ack_table, int64_t probe_id) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!stall) ShipLocked();
    CaptureAcks out;
    for (const auto& [id, row] : probe_acks[ack_table]) {
      if (id == probe_id) out.probe_acks.push_back(ProbeAckOf(row));
    }
    out.closed = close_acks[ack_table];
    out.bulk_loads = bulk_load_notices;
    out.unfit = unfit_notices;
    return out;
  }
  Status SetKeepDeletedCells(const std::string& table, bool keep) override {
    std::lock_guard<std::mutex> lock(mu);
    keep_deleted_history.push_back(table + (keep ? "=TRUE" : "=FALSE"));
    return Status::Ok();
  }
  Result<GenerationCreated> CreateGeneration(const TableSpec& spec, const std::string& source,
                                             const std::string& replication,
                                             const std::string& plan_id) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      generation_creates++;
      generation_replication.push_back(replication);
      if (!generation_refusal.empty()) return GenerationCreated{false, generation_refusal};
    }
    if (admin == nullptr) return Status::Internal("the fake bridge has no admin");
    auto check = CheckGeneration(spec.table, source, plan_id);
    if (check.ok() && check->exists && !check->why_not.empty()) {
      return GenerationCreated{false, "a table named " + spec.table + " exists: " + check->why_not};
    }
    TableSpec marked = spec;
    marked.attributes[kMarkerSource] = source;
    marked.attributes[kMarkerPlan] = plan_id;
    Status created = admin->CreateTable(marked);
    if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
    if (created.ok()) {
      // Born guarded, taking the copy's bulk loads: no reopen.
      std::lock_guard<std::mutex> lock(mu);
      guards[spec.table] = Guard{plan_id, /*copy_loads=*/true};
      events.push_back("create " + spec.table);
    }
    GenerationCreated out;
    out.created = created.ok();
    out.replication_scope = "none";
    return out;
  }
  Result<TableSettingsCopied> CopyTableSettings(const std::string& source,
                                                const std::string& target,
                                                const std::string& replication) override {
    (void)source, (void)target;
    std::lock_guard<std::mutex> lock(mu);
    settings_copies++;
    generation_replication.push_back(replication);
    return TableSettingsCopied{};
  }
  Result<GenerationCheck> CheckGeneration(const std::string& table, const std::string& source,
                                          const std::string& plan_id) override {
    if (admin == nullptr) return Status::Internal("the fake bridge has no admin");
    std::lock_guard<std::recursive_mutex> lock(admin->mu);
    auto it = admin->tables.find(table);
    if (it == admin->tables.end()) return GenerationCheck{false, table + " does not exist"};
    const auto& attributes = it->second.attributes;
    auto marked_source = attributes.find(kMarkerSource);
    auto marked_plan = attributes.find(kMarkerPlan);
    if (marked_source == attributes.end() || marked_plan == attributes.end()) {
      return GenerationCheck{true, table + " carries no presplit migration marker"};
    }
    if (marked_source->second != source || marked_plan->second != plan_id) {
      return GenerationCheck{true, table + " was created by presplit for the migration of " +
                                       marked_source->second + " (plan " + marked_plan->second +
                                       ")"};
    }
    return GenerationCheck{true, ""};
  }
  Result<GuardChange> SettleNewGeneration(const std::string& target, const std::string& source,
                                          const std::string& plan_id) override {
    if (admin != nullptr) {
      std::lock_guard<std::recursive_mutex> lock(admin->mu);
      for (const std::string& table : {target, source}) {
        if (!admin->tables.count(table)) return Status::NotFound("table " + table + " not found");
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    if (!unguard_error.ok()) return unguard_error;
    GuardChange out;
    // As HBase: a modifyTable (and its reopen) only when something changes.
    std::string kept;
    for (const std::string& entry : keep_deleted_history) {
      if (entry.rfind(target + "=", 0) == 0) kept = entry.substr(target.size() + 1);
    }
    const bool restore = kept != "SOURCE'S";
    auto it = guards.find(target);
    const bool ours = it != guards.end() && it->second.plan == plan_id;
    if (it != guards.end() && !ours) out.other_plan = it->second.plan;
    if (!restore && !ours) return out;
    if (restore) {
      restored_keep_deleted.push_back(target + "<-" + source);
      keep_deleted_history.push_back(target + "=SOURCE'S");
    }
    if (ours) it->second = Guard{"", false};  // dormant: attached for the next migration
    modifies[target]++;                       // one modifyTable for both
    events.push_back("settle " + target);
    out.changed = true;
    return out;
  }
  Result<GuardChange> GuardTable(const std::string& table, const std::string& plan_id) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!guard_error.ok()) return guard_error;
    GuardChange out;
    auto it = guards.find(table);
    if (it != guards.end() && it->second == Guard{plan_id, false}) return out;
    if (it != guards.end() && it->second.plan != plan_id) out.other_plan = it->second.plan;
    guards[table] = Guard{plan_id, false};
    modifies[table]++;
    events.push_back("guard " + table);
    out.changed = true;
    return out;
  }
  Result<GuardChange> UnguardTable(const std::string& table, const std::string& plan_id) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!unguard_error.ok()) return unguard_error;
    GuardChange out;
    auto it = guards.find(table);
    if (it == guards.end() || it->second.plan.empty()) return out;  // none, or dormant already
    if (it->second.plan != plan_id) {
      out.other_plan = it->second.plan;
      return out;
    }
    it->second = Guard{"", false};
    modifies[table]++;
    events.push_back("unguard " + table);
    out.changed = true;
    return out;
  }
  Result<bool> AttachGuard(const std::string& table) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!guard_error.ok()) return guard_error;
    if (guards.count(table)) return false;
    guards[table] = Guard{"", false};
    modifies[table]++;
    events.push_back("attach guard " + table);
    return true;
  }
  Result<GuardConfirmed> ConfirmGuard(const std::string& table) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!confirm_error.ok()) return confirm_error;
    if (!GuardActiveLocked(table)) {
      return Status::Unavailable("1 region(s) of " + table +
                                 " did not confirm that their MigrationGuard refuses what the "
                                 "capture cannot carry: dormant");
    }
    confirms.push_back(table);  // a read: not one of the changes in `events`
    return GuardConfirmed{1, 0};
  }
  static constexpr const char* kMarkerSource = "presplit.migration.source";
  static constexpr const char* kMarkerPlan = "presplit.migration.plan";

  Status SetReadOnly(const std::string& table, bool read_only_now,
                     bool* changed = nullptr) override {
    // As the bridge's getDescriptor: a table that is gone is NotFound.
    if (admin != nullptr && !AdminHas(table)) return Status::NotFound("table " + table);
    std::lock_guard<std::mutex> lock(mu);
    if (!read_only_now) {
      if (changed != nullptr) *changed = read_only.count(table) > 0;
      read_only_changes += read_only.erase(table);
      return Status::Ok();
    }
    if (changed != nullptr) *changed = read_only.count(table) == 0;
    if (read_only.count(table)) return Status::Ok();
    read_only.insert(table);
    read_only_changes++;
    // The reopen closes every region: the close is each region's last entry in the WAL. A
    // region in crashed_during_reopen was on a RegionServer that died first: it opens again
    // elsewhere (read-only) and no close of it is written.
    for (const auto& region : RegionsLocked(table)) {
      if (crashed_during_reopen.count(region.name)) continue;
      CloseLocked(table, region.name);
    }
    return Status::Ok();
  }
  // The peers named presplit_*, as HBase lists them; on_list_capture_peers runs first (outside
  // the lock: it may add a peer and write a plan, as a migration starting at that moment would).
  // The peers that exist, with the lag a test set in capture_lags (else nothing behind), and the
  // number of edits each has not shipped as its WAL queue.
  Result<std::vector<CaptureLag>> CaptureLags(const std::vector<std::string>& peer_ids) override {
    std::lock_guard<std::mutex> lock(mu);
    capture_lag_calls++;
    if (!capture_lags_error.ok()) return capture_lags_error;
    std::vector<CaptureLag> out;
    for (const auto& id : peer_ids) {
      auto peer = peers.find(id);
      if (peer == peers.end()) continue;
      auto set = capture_lags.find(id);
      CaptureLag lag = set != capture_lags.end() ? set->second : CaptureLag{};
      lag.peer_id = id;
      if (set == capture_lags.end()) {
        lag.wal_queue_files = static_cast<int64_t>(peer->second.pending.size());
        lag.sources = 1;
      }
      out.push_back(lag);
    }
    return out;
  }
  Result<std::vector<CapturePeerOwner>> ListCapturePeers() override {
    if (on_list_capture_peers) on_list_capture_peers();
    std::lock_guard<std::mutex> lock(mu);
    list_capture_peers_calls++;
    if (!list_capture_peers_error.ok()) return list_capture_peers_error;
    std::vector<CapturePeerOwner> out;
    for (const auto& [id, peer] : peers) {
      if (id.rfind("presplit_", 0) == 0) out.push_back(CapturePeerOwner{id, peer.owner});
    }
    return out;
  }
  Status ReopenRegions(const std::string& table,
                       const std::vector<std::string>& encoded_regions) override {
    std::lock_guard<std::mutex> lock(mu);
    reopened.push_back(table);
    for (const auto& region : encoded_regions) {
      reopened.push_back(region);
      CloseLocked(table, region);
    }
    return Status::Ok();
  }
  void CloseLocked(const std::string& table, const std::string& region) {
    ++clock;
    for (auto& [id, peer] : peers) {
      if (peer.source == table) peer.pending.push_back(Edit{Edit::kClose, region, {}, clock});
    }
  }

  Result<PartitionDigests> DigestPartitions(const std::string& table, const std::string&,
                                            const std::string& from_row, const std::string& end_row,
                                            int partitions) override {
    if (before_source_digest) before_source_digest(from_row);
    std::lock_guard<std::mutex> lock(mu);
    PartitionDigests out;
    out.partitions.assign(partitions, 0);
    const Rows& rows = tables[table];
    for (auto it = rows.lower_bound(from_row);
         it != rows.end() && (end_row.empty() || it->first < end_row); ++it) {
      Add(out, it->first, it->second, partitions);
    }
    return out;
  }
  Result<std::vector<PartitionDigests>> DigestTargetPartitions(
      const CopyRange& range, const std::vector<std::string>& starts, int partitions) override {
    if (before_target_digest) before_target_digest();  // outside the lock: it may write
    std::vector<PartitionDigests> out(starts.size());
    for (auto& d : out) d.partitions.assign(partitions, 0);
    {
      std::lock_guard<std::mutex> lock(mu);
      digest_target_calls++;
      for (const auto& [key, row] : tables[range.target_table]) {
        Add(out[RegionOf(starts, key)], key, row, partitions);
      }
    }
    if (after_target_digest) after_target_digest();
    return out;
  }
  Result<RowDifferences> DiffPartitions(const CopyRange& range,
                                        const std::vector<std::string>& starts,
                                        const std::vector<RegionPartitions>& regions,
                                        int partitions, int max_keys) override {
    if (before_diff) before_diff();
    std::lock_guard<std::mutex> lock(mu);
    diff_calls++;
    std::set<std::pair<size_t, int>> asked;
    for (const auto& r : regions) {
      for (int p : r.partitions) asked.insert({RegionOf(starts, r.region.start), p});
    }
    auto wanted = [&](const std::string& key) {
      return asked.count({RegionOf(starts, key), PartitionOf(key, partitions)}) > 0;
    };
    std::set<std::string> differing;
    const Rows& source = tables[range.source_table];
    const Rows& target = tables[range.target_table];
    for (const auto& [key, row] : source) {
      if (!wanted(key)) continue;
      auto t = target.find(key);
      if (t == target.end() || !(t->second == row)) differing.insert(key);
    }
    for (const auto& [key, row] : target) {
      if (wanted(key) && !source.count(key)) differing.insert(key);
    }
    RowDifferences out;
    out.differing = static_cast<int64_t>(differing.size());
    for (const auto& key : differing) {
      if (static_cast<int>(out.keys.size()) == max_keys) break;
      out.keys.push_back(key);
    }
    out.truncated = static_cast<int>(differing.size()) > max_keys;
    return out;
  }
  Result<std::vector<uint64_t>> RowHashes(const std::string& table, const std::string&,
                                          const std::vector<std::string>& keys) override {
    std::vector<uint64_t> out;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& key : keys) {
        auto it = tables[table].find(key);
        out.push_back(it == tables[table].end() ? 0 : Hash(key, it->second));
      }
    }
    if (after_row_hashes) after_row_hashes(table);  // outside the lock: it may write
    return out;
  }
  Result<std::string> DescribeRow(const CopyRange& range, const std::string& key) override {
    std::lock_guard<std::mutex> lock(mu);
    return "'" + key + "': " + std::to_string(tables[range.source_table].count(key)) + " row in " +
           range.source_table + ", " + std::to_string(tables[range.target_table].count(key)) +
           " in " + range.target_table;
  }

  // ---- the bulk copy (engine "mapreduce")
  Result<BulkSubmitted> SubmitBulkCopy(const std::string& spec) override {
    std::lock_guard<std::mutex> lock(mu);
    submits++;
    last_spec = nlohmann::json::parse(spec);
    if (!submit_error.ok()) return submit_error;
    finished = loaded = false;  // an unfinished output of an earlier attempt is replaced
    const std::string id = "job_fake_" + std::to_string(submits);
    jobs[id] = Job{};
    return BulkSubmitted{id, job_tokens, jobs_paced};
  }
  Result<SnapshotAccess> CheckSnapshotInput(const std::string& spec) override {
    std::lock_guard<std::mutex> lock(mu);
    snapshot_checks++;
    last_snapshot_check_spec = nlohmann::json::parse(spec);
    if (!snapshot_check_error.ok()) return snapshot_check_error;
    return snapshot_access;
  }
  Result<BulkJobProgress> BulkCopyProgress(const std::string& job_id, const std::string&) override {
    std::lock_guard<std::mutex> lock(mu);
    progress_calls++;
    BulkJobProgress p;
    p.job_id = job_id;
    auto it = jobs.find(job_id);
    if (it == jobs.end()) {
      p.state = "UNKNOWN";
      return p;
    }
    p.state = it->second.state;
    p.map_progress = it->second.map_progress;
    p.rows = static_cast<int64_t>(tables[source_name].size() * it->second.map_progress);
    p.cells = p.rows * 3;
    p.failure = it->second.failure;
    p.paced = jobs_paced;
    return p;
  }
  Result<BulkOutput> BulkCopyOutput(const std::string&) override {
    std::lock_guard<std::mutex> lock(mu);
    return BulkOutput{finished, loaded};
  }
  Result<BulkLoaded> LoadBulkCopy(const std::string&) override {
    std::lock_guard<std::mutex> lock(mu);
    if (!finished) return Status::FailedPrecondition("no finished job output");
    if (loaded) return BulkLoaded{};
    auto guard = guards.find(target_name);
    if (guard != guards.end() && !guard->second.copy_loads) {
      return Status::FailedPrecondition("a bulk load into " + target_name + " is refused");
    }
    loads++;
    for (const auto& [key, row] : tables[source_name]) tables[target_name][key] = row;
    loaded = true;
    return BulkLoaded{16, 4096};
  }
  Status KillBulkCopy(const std::string& job_id, const std::string&) override {
    std::lock_guard<std::mutex> lock(mu);
    auto it = jobs.find(job_id);
    if (it != jobs.end() && it->second.state == "RUNNING") kills++;
    jobs.erase(job_id);
    return Status::Ok();
  }
  Status CleanupBulkCopy(const std::string& spec) override {
    std::lock_guard<std::mutex> lock(mu);
    cleanups.push_back(nlohmann::json::parse(spec));
    finished = loaded = false;
    return Status::Ok();
  }
  void Succeed(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu);
    jobs.at(id).state = "SUCCEEDED";
    jobs.at(id).map_progress = 1;
    finished = true;
  }
  void FailJob(const std::string& id, const std::string& why) {
    std::lock_guard<std::mutex> lock(mu);
    jobs.at(id).state = "FAILED";
    jobs.at(id).failure = why;
  }
  // The daemon restarted: its JVM, and the local runner's jobs in it, are gone.
  void Restart() {
    std::lock_guard<std::mutex> lock(mu);
    jobs.clear();
  }

  // ---- state the tests look at and set
  std::mutex mu;
  std::string source_name = "tinawang:check";
  std::string target_name = "tinawang:check__g2";
  std::map<std::string, Rows> tables;
  std::set<std::string> read_only;
  std::vector<std::string> keep_deleted_history;
  std::map<std::string, Peer> peers;
  std::set<std::string> peers_ever;
  std::map<std::string, std::set<std::pair<int64_t, std::string>>> probe_acks;  // by ack table
  std::map<std::string, std::map<std::string, int64_t>> close_acks;             // by ack table
  std::vector<std::string> bulk_load_notices, unfit_notices;
  int read_only_changes = 0;            // SetReadOnly calls that changed a table
  bool stall = false;                   // peers ship nothing
  std::set<std::string> stalled_peers;  // these peers ship nothing
  // Targets a copy may write besides target_name (tests with several migrations).
  std::set<std::string> other_targets;
  // Per peer: queues still holding a dead RegionServer's WALs (what probes cannot see).
  std::map<std::string, std::vector<std::string>> recovered_queues;
  // WAL files each peer's queues list (a region's older edits on the server it moved away
  // from): a drain waits until none it marked is listed.
  std::map<std::string, std::vector<std::string>> queue_wals;
  static constexpr const char* kStalledWal = "rs1.example%2C16020%2C1.stalled";
  int queue_marks = 0;
  std::map<std::string, int> marks_by_peer;
  std::function<void(const std::string&)> on_unshipped;
  // Regions whose close a RegionServer's crash prevented during SetReadOnly's reopen.
  std::set<std::string> crashed_during_reopen;
  // ReopenRegions calls: the table, then each region asked for.
  std::vector<std::string> reopened;
  int describe_capture_calls = 0;
  std::function<void(const std::string& peer_id)> on_describe_capture;
  int64_t clock = 1000;
  int refused_writes = 0;
  int copy_calls = 0, probes = 0, ensure_calls = 0, diff_calls = 0, digest_target_calls = 0;
  int copy_error_after = -1;
  int64_t last_rate = 0;
  std::set<std::string> staging_specs;   // CopyRange::hfile_staging_spec of every chunk
  std::set<int> chunk_sizes;             // max_rows of every chunk
  std::vector<nlohmann::json> cleanups;  // CleanupBulkCopy's specs
  int copies_into_a_missing_target = 0;
  std::vector<std::string> peers_removed;          // by RemoveCapture, in order
  std::map<std::string, CaptureLag> capture_lags;  // by peer: what CaptureLags reports
  Status capture_lags_error = Status::Ok();
  int capture_lag_calls = 0;
  int list_capture_peers_calls = 0;
  Status list_capture_peers_error = Status::Ok();
  std::function<void()> on_list_capture_peers;
  FakeAdmin* admin = nullptr;  // regions of the tables; CreateGeneration creates there
  // CreateGeneration: refuses with this reason when set (nothing created).
  std::string generation_refusal;
  int generation_creates = 0, settings_copies = 0;
  std::vector<std::string> generation_replication;  // the `replication` of every create/copy
  std::vector<std::string> restored_keep_deleted;   // "target<-source" of every restore
  // The MigrationGuard of a table: the plan that attached it, and whether presplit's copy may
  // still bulk-load into it.
  struct Guard {
    std::string plan;
    bool copy_loads = false;
    bool operator==(const Guard&) const = default;
  };
  std::map<std::string, Guard> guards;
  Status confirm_error = Status::Ok();  // ConfirmGuard's answer when set
  std::vector<std::string> confirms;    // ConfirmGuard's tables, in order
  std::map<std::string, int> modifies;  // modifyTables (region reopens) of the guard and settle
  // In order: "create <t>", "attach guard <t>", "guard <t>", "capture <source>" (a peer added),
  // "copy" (chunks),
  // "settle <t>", "unguard <t>".
  std::vector<std::string> events;
  Status guard_error, unguard_error;
  int refused_bulk_loads = 0, refused_skip_wal = 0;
  std::function<void(int calls)> after_chunk;
  std::function<void()> after_target_digest;
  std::function<void(const std::string& from_row)> before_source_digest;
  std::function<void(const std::string& table)> after_row_hashes;
  std::function<void()> before_target_digest;
  std::function<void()> before_diff;
  // bulk
  std::map<std::string, Job> jobs;
  bool finished = false, loaded = false;
  nlohmann::json last_spec;
  Status submit_error;
  int submits = 0, loads = 0, kills = 0, progress_calls = 0;
  std::vector<std::string> job_tokens;     // the delegation token kinds of every submitted job
  std::function<void()> on_check_present;  // called as the final check before a drop starts
  bool jobs_paced = false;  // the jobs' tasks take from the throttle gate (BulkJobProgress::paced)
  // What CheckSnapshotInput answers (readable by default), or this error.
  SnapshotAccess snapshot_access{true, ""};
  Status snapshot_check_error;
  int snapshot_checks = 0;
  nlohmann::json last_snapshot_check_spec;

 private:
  bool WriteLocked(const std::string& table, const std::string& key, const Row& row,
                   const std::string& mark, Edit::Kind kind) {
    if (read_only.count(table)) {
      refused_writes++;
      return false;
    }
    if (kind == Edit::kDelete) {
      tables[table].erase(key);
    } else {
      tables[table][key] = row;
    }
    for (auto& [id, peer] : peers) {
      if (peer.source == table && peer.mark != mark)
        peer.pending.push_back(Edit{kind, key, row, 0});
    }
    return true;
  }
  void ShipLocked() {
    for (auto& [id, peer] : peers) {
      if (stalled_peers.count(id)) continue;
      while (!peer.pending.empty()) {
        const Edit& e = peer.pending.front();
        switch (e.kind) {
          case Edit::kWrite:
          case Edit::kDelete:
            // A read-only target refuses the batch: the peer keeps it and offers it again.
            if (!WriteLocked(peer.target, e.key, e.row, peer.mark, e.kind)) return;
            break;
          case Edit::kProbe:
            probe_acks[peer.target].insert({e.id, e.key});
            break;
          case Edit::kClose:
            close_acks[peer.target][e.key] = e.id;
            break;
        }
        peer.pending.pop_front();
      }
    }
  }
  Result<ChunkCopied> CopyLocked(const CopyRange& range, const std::string& from_row,
                                 const std::string& end_row, int max_rows,
                                 int64_t max_cells_per_s) {
    std::lock_guard<std::mutex> lock(mu);
    copy_calls++;
    if (events.empty() || events.back() != "copy") events.push_back("copy");
    last_rate = max_cells_per_s;
    staging_specs.insert(range.hfile_staging_spec);
    chunk_sizes.insert(max_rows);
    if (copy_error_after >= 0 && copy_calls > copy_error_after) {
      return Status::Unavailable("region server went away");
    }
    if (range.target_table != target_name && !other_targets.count(range.target_table)) {
      return Status::NotFound(range.target_table);
    }
    if (admin != nullptr && !AdminHas(range.target_table)) {
      copies_into_a_missing_target++;
      return Status::NotFound(range.target_table);
    }
    ChunkCopied out;
    const Rows& source = tables[range.source_table];
    int copied = 0;
    for (auto it = source.lower_bound(from_row);
         it != source.end() && (end_row.empty() || it->first < end_row); ++it) {
      if (copied == max_rows) {
        out.next_row = it->first;
        break;
      }
      // The copy writes what it read; it carries no mark (it is not a peer).
      tables[range.target_table][it->first] = it->second;
      out.copied.rows++;
      out.copied.cells += it->second.cells;
      out.copied.digest += Hash(it->first, it->second);
      ++copied;
    }
    return out;
  }
  bool AdminHas(const std::string& table) const {
    std::lock_guard<std::recursive_mutex> lock(admin->mu);
    return admin->tables.count(table) > 0;
  }
  std::vector<RegionInfo> RegionsLocked(const std::string& table) const {
    if (admin == nullptr) return {RegionInfo{"r0", "", "", ""}};
    std::lock_guard<std::recursive_mutex> lock(admin->mu);
    auto it = admin->tables.find(table);
    return it == admin->tables.end() ? std::vector<RegionInfo>{} : it->second.regions;
  }
  static size_t RegionOf(const std::vector<std::string>& starts, const std::string& key) {
    return std::upper_bound(starts.begin(), starts.end(), key) - starts.begin() - 1;
  }
  static void Add(PartitionDigests& d, const std::string& key, const Row& row, int partitions) {
    d.total.rows++;
    d.total.cells += row.cells;
    const uint64_t h = Hash(key, row);
    d.total.digest += h;
    d.partitions[PartitionOf(key, partitions)] += h;
  }
};

}  // namespace presplit::daemon::testing
