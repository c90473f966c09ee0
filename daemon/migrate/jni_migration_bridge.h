// MigrationBridge over the embedded JVM: calls the static methods bridge_calls.def names (the
// classes of io.presplit.migrate, one per concern, and io.presplit.mapreduce.ResaltBulkJob, in
// presplit-hbase.jar) on the calling thread, attached to the JVM, so the copy workers run in
// parallel. Each class is looked up on first use: a jar without it fails the migration's calls
// with a clear error and nothing else.
#pragma once

#include <jni.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/hbase/jvm_host.h"
#include "daemon/migrate/bridge_calls.h"
#include "daemon/migrate/migration_bridge.h"

namespace presplit::daemon::migrate {

class JniMigrationBridge final : public MigrationBridge {
 public:
  // `hbase_settings` are the same HBase client settings the daemon's AdminBridge connects with;
  // they are handed to BridgeConnection.configure before the first call, so the copy threads
  // never fall back to a default configuration (which would look for another cluster's meta).
  JniMigrationBridge(JvmHost& jvm, std::map<std::string, std::string> hbase_settings)
      : jvm_(jvm), hbase_settings_(std::move(hbase_settings)) {}
  ~JniMigrationBridge() override;

  Result<ChunkCopied> CopyChunk(const CopyRange& range, const std::string& from_row,
                                const std::string& end_row, int max_rows,
                                int64_t max_cells_per_s) override;
  Result<PresenceCheck> CheckPresent(const CopyRange& range) override;

  Result<bool> EnsureCapture(const CaptureSpec& spec) override;
  Result<bool> RemoveCapture(const std::string& peer_id) override;
  Result<CapturePeerState> DescribeCapture(const std::string& peer_id) override;
  Result<QueueMark> MarkCaptureQueues(const std::string& peer_id) override;
  Result<UnshippedWals> UnshippedCaptureWals(const std::string& peer_id,
                                             const std::vector<std::string>& marked) override;
  Result<ProbeRound> Probe(const std::string& table, int64_t probe_id) override;
  Result<CaptureAcks> ReadAcks(const std::string& ack_table, int64_t probe_id) override;
  Status SetKeepDeletedCells(const std::string& table, bool keep) override;
  Status SetReadOnly(const std::string& table, bool read_only, bool* changed = nullptr) override;
  Status ReopenRegions(const std::string& table,
                       const std::vector<std::string>& encoded_regions) override;
  Result<std::vector<CapturePeerOwner>> ListCapturePeers() override;
  Result<std::vector<CaptureLag>> CaptureLags(const std::vector<std::string>& peer_ids) override;

  Result<GenerationCreated> CreateGeneration(const TableSpec& spec, const std::string& source,
                                             const std::string& replication,
                                             const std::string& plan_id) override;
  Result<TableSettingsCopied> CopyTableSettings(const std::string& source,
                                                const std::string& target,
                                                const std::string& replication) override;
  Result<GenerationCheck> CheckGeneration(const std::string& table, const std::string& source,
                                          const std::string& plan_id) override;
  Result<GuardChange> SettleNewGeneration(const std::string& target, const std::string& source,
                                          const std::string& plan_id) override;
  Result<GuardChange> GuardTable(const std::string& table, const std::string& plan_id) override;
  Result<GuardChange> UnguardTable(const std::string& table, const std::string& plan_id) override;
  Result<bool> AttachGuard(const std::string& table) override;
  Result<GuardConfirmed> ConfirmGuard(const std::string& table) override;

  Result<PartitionDigests> DigestPartitions(const std::string& table, const std::string& layout,
                                            const std::string& from_row, const std::string& end_row,
                                            int partitions) override;
  Result<std::vector<PartitionDigests>> DigestTargetPartitions(
      const CopyRange& range, const std::vector<std::string>& source_region_starts,
      int partitions) override;
  Result<RowDifferences> DiffPartitions(const CopyRange& range,
                                        const std::vector<std::string>& source_starts,
                                        const std::vector<RegionPartitions>& regions,
                                        int partitions, int max_keys) override;
  Result<std::vector<uint64_t>> RowHashes(const std::string& table, const std::string& layout,
                                          const std::vector<std::string>& keys) override;
  Result<std::string> DescribeRow(const CopyRange& range, const std::string& key) override;

  // The bulk copy: the static methods of io.presplit.mapreduce.ResaltBulkJob (looked up on first
  // use, like the others). The local job runner's jobs run in this JVM's threads.
  Result<BulkSubmitted> SubmitBulkCopy(const std::string& spec) override;
  Result<SnapshotAccess> CheckSnapshotInput(const std::string& spec) override;
  Result<BulkJobProgress> BulkCopyProgress(const std::string& job_id,
                                           const std::string& spec) override;
  Result<BulkOutput> BulkCopyOutput(const std::string& spec) override;
  Result<BulkLoaded> LoadBulkCopy(const std::string& spec) override;
  Status KillBulkCopy(const std::string& job_id, const std::string& spec) override;
  Status CleanupBulkCopy(const std::string& spec) override;
  Result<std::string> ClusterHealth(const std::vector<std::string>& tables, int probes) override;
  Result<int64_t> SetThrottle(const std::vector<std::string>& tables, int64_t cells_per_s) override;

 private:
  // Configures the shared HBase connection of the jar's bridge (BridgeConnection.configure) with
  // the daemon's HBase settings, once, before the first call of any row.
  Status ConfigureOnce(JNIEnv* env);
  // The class of that name (a global reference, looked up once): a jar of another version, or a
  // classpath without HBase's MapReduce jars for ResaltBulkJob, fails here with what to check.
  Result<jclass> ClassOf(JNIEnv* env, const std::string& java_class);
  // The class a row of bridge_calls.def names (resolved) and the row's method (looked up once).
  Status MethodOf(JNIEnv* env, BridgeCall call, jclass* cls, jmethodID* method);
  // Calls a row whose arguments are all Strings and whose result is a String (binary keys travel
  // base64 inside JSON) or void (""). Internal when the row is not of that shape or `args` do not
  // match it: a bug here, not in the jar.
  Result<std::string> Call(BridgeCall call, const std::vector<std::string>& args);
  // Calls a row of any shape: `invoke` passes the arguments; its String result.
  Result<std::string> CallJson(BridgeCall call,
                               const std::function<jobject(JNIEnv*, jclass, jmethodID)>& invoke);

  JvmHost& jvm_;
  const std::map<std::string, std::string> hbase_settings_;
  std::mutex mu_;
  bool configured_ = false;
  std::map<std::string, jclass> classes_;  // by Java class name, as bridge_calls.def names them
  std::vector<jmethodID> methods_ = std::vector<jmethodID>(BridgeCallCount(), nullptr);
};

}  // namespace presplit::daemon::migrate
