// MigrationBridge over the embedded JVM: calls the static methods of
// io.presplit.migrate.MigrationBridge (presplit-hbase.jar) on the calling thread, attached to the
// JVM, so the copy workers run in parallel. The class is looked up on first use: a jar without it
// fails the migration's calls with a clear error and nothing else.
#pragma once

#include <jni.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/hbase/jvm_host.h"
#include "daemon/migrate/migration_bridge.h"

namespace presplit::daemon::migrate {

class JniMigrationBridge final : public MigrationBridge {
 public:
  // `hbase_settings` are the same HBase client settings the daemon's AdminBridge connects with;
  // they are handed to MigrationBridge.configure before its first call, so the copy threads
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
  // use, like MigrationBridge). The local job runner's jobs run in this JVM's threads.
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
  // Resolves the class and its methods once (global reference).
  Status Resolve(JNIEnv* env);
  // Calls one static String method with `args` and hands back its result.
  Result<std::string> CallJson(const char* what,
                               const std::function<jobject(JNIEnv*, jclass)>& call);
  // Calls a static method of MigrationBridge that takes `args.size()` Strings and returns a
  // String (binary keys travel base64 inside JSON); its id is looked up once by name and arity.
  Result<std::string> CallStrings(const char* name, const std::vector<std::string>& args);

  // Resolves ResaltBulkJob and its methods once (global reference).
  Status ResolveBulk(JNIEnv* env);
  enum class BulkMethod { kSubmit, kProgress, kOutput, kLoad, kKill, kCleanup, kSnapshotInput };
  // Calls one static method of ResaltBulkJob with String arguments; its String result ("" for
  // the void ones).
  Result<std::string> CallBulk(BulkMethod method, const std::vector<std::string>& args);

  JvmHost& jvm_;
  const std::map<std::string, std::string> hbase_settings_;
  std::mutex mu_;
  jclass class_ = nullptr;
  jmethodID copy_chunk_ = nullptr;
  std::map<std::string, jmethodID> string_methods_;  // "name/arity" -> id
  jclass bulk_class_ = nullptr;
  std::map<BulkMethod, jmethodID> bulk_methods_;
};

}  // namespace presplit::daemon::migrate
