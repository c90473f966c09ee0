#include "daemon/migrate/jni_migration_bridge.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace presplit::daemon::migrate {
namespace {

// "CopyBridge.copyChunk": how errors name a call.
std::string CallName(BridgeCall call) {
  const std::string_view java_class = InfoOf(call).java_class;
  return std::string(java_class.substr(java_class.rfind('.') + 1)) + "." + InfoOf(call).method;
}

jbyteArray NewBytes(JNIEnv* env, const std::string& bytes) {
  jbyteArray array = env->NewByteArray(static_cast<jsize>(bytes.size()));
  if (array != nullptr) {
    env->SetByteArrayRegion(array, 0, static_cast<jsize>(bytes.size()),
                            reinterpret_cast<const jbyte*>(bytes.data()));
  }
  return array;
}

}  // namespace

JniMigrationBridge::~JniMigrationBridge() {
  std::vector<jclass> classes;
  for (const auto& [name, cls] : classes_) classes.push_back(cls);
  if (classes.empty()) return;
  (void)jvm_.Run([classes](JNIEnv* env) {
    for (jclass cls : classes) env->DeleteGlobalRef(cls);
    return Status::Ok();
  });
}

Result<jclass> JniMigrationBridge::ClassOf(JNIEnv* env, const std::string& java_class) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = classes_.find(java_class); it != classes_.end()) return it->second;
  jclass cls = env->FindClass(JniClassName(java_class).c_str());
  if (cls == nullptr) {
    return TakeJavaException(
        env, "cannot load " + java_class +
                 " (does the daemon's classpath have this version's presplit-hbase.jar" +
                 (java_class.rfind("io.presplit.mapreduce.", 0) == 0
                      ? std::string(" and HBase's MapReduce jars?)")
                      : std::string("?)")));
  }
  jclass global = static_cast<jclass>(env->NewGlobalRef(cls));
  env->DeleteLocalRef(cls);
  classes_.emplace(java_class, global);
  return global;
}

Status JniMigrationBridge::ConfigureOnce(JNIEnv* env) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (configured_) return Status::Ok();
  }
  const BridgeCallInfo& info = InfoOf(BridgeCall::kConfigure);
  PRESPLIT_ASSIGN_OR_RETURN(jclass cls, ClassOf(env, info.java_class));
  PRESPLIT_ASSIGN_OR_RETURN(std::string signature, JniSignature(info.shape));
  jmethodID configure = env->GetStaticMethodID(cls, info.method, signature.c_str());
  if (configure == nullptr) {
    return TakeJavaException(env, CallName(BridgeCall::kConfigure) +
                                      " is missing (version mismatch between presplitd and "
                                      "presplit-hbase.jar?)");
  }
  std::vector<std::string> settings;
  for (const auto& [key, value] : hbase_settings_) {
    settings.push_back(key);
    settings.push_back(value);
  }
  jobjectArray pairs = NewJavaStringArray(env, settings);
  if (pairs == nullptr) return TakeJavaException(env, "the bridge's HBase settings");
  env->CallStaticVoidMethod(cls, configure, pairs);
  env->DeleteLocalRef(pairs);
  if (env->ExceptionCheck()) return TakeJavaException(env, CallName(BridgeCall::kConfigure));
  std::lock_guard<std::mutex> lock(mu_);
  configured_ = true;
  return Status::Ok();
}

Status JniMigrationBridge::MethodOf(JNIEnv* env, BridgeCall call, jclass* cls, jmethodID* method) {
  const BridgeCallInfo& info = InfoOf(call);
  // Every call shares the connection configured here (the bulk job's too, on the local runner).
  PRESPLIT_RETURN_IF_ERROR(ConfigureOnce(env));
  PRESPLIT_ASSIGN_OR_RETURN(*cls, ClassOf(env, std::string(info.java_class)));
  std::lock_guard<std::mutex> lock(mu_);
  jmethodID& id = methods_.at(static_cast<size_t>(call));
  if (id == nullptr) {
    PRESPLIT_ASSIGN_OR_RETURN(std::string signature, JniSignature(info.shape));
    id = env->GetStaticMethodID(*cls, info.method, signature.c_str());
    if (id == nullptr) {
      return TakeJavaException(env, CallName(call) +
                                        " is missing (version mismatch between presplitd and "
                                        "presplit-hbase.jar?)");
    }
  }
  *method = id;
  return Status::Ok();
}

Result<std::string> JniMigrationBridge::CallJson(
    BridgeCall call, const std::function<jobject(JNIEnv*, jclass, jmethodID)>& invoke) {
  const std::string what = CallName(call);
  std::string json;
  Status s = jvm_.RunOnThisThread([&](JNIEnv* env) -> Status {
    jclass cls = nullptr;
    jmethodID method = nullptr;
    PRESPLIT_RETURN_IF_ERROR(MethodOf(env, call, &cls, &method));
    auto result = static_cast<jstring>(invoke(env, cls, method));
    if (env->ExceptionCheck()) return TakeJavaException(env, what);
    if (result == nullptr) return Status::Internal(what + " returned null");
    json = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return json;
}

Result<std::string> JniMigrationBridge::Call(BridgeCall call,
                                             const std::vector<std::string>& args) {
  const std::string what = CallName(call);
  const std::string_view shape = InfoOf(call).shape;
  const size_t count = ArgumentCount(shape);
  const char result_type = shape.back();
  if (shape.substr(0, count).find_first_not_of('S') != std::string_view::npos ||
      (result_type != 'S' && result_type != 'V') || args.size() != count) {
    return Status::Internal(what + ": called with " + std::to_string(args.size()) +
                            " String arguments, its shape is " + std::string(shape));
  }
  std::string out;
  Status s = jvm_.RunOnThisThread([&](JNIEnv* env) -> Status {
    jclass cls = nullptr;
    jmethodID method = nullptr;
    PRESPLIT_RETURN_IF_ERROR(MethodOf(env, call, &cls, &method));
    std::vector<jvalue> values(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      values[i].l = NewJavaString(env, args[i]);
      if (env->ExceptionCheck()) return TakeJavaException(env, what);
    }
    if (result_type == 'V') {
      env->CallStaticVoidMethodA(cls, method, values.data());
      if (env->ExceptionCheck()) return TakeJavaException(env, what);
      return Status::Ok();
    }
    auto result = static_cast<jstring>(env->CallStaticObjectMethodA(cls, method, values.data()));
    if (env->ExceptionCheck()) return TakeJavaException(env, what);
    if (result == nullptr) return Status::Internal(what + " returned null");
    out = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<ChunkCopied> JniMigrationBridge::CopyChunk(const CopyRange& range,
                                                  const std::string& from_row,
                                                  const std::string& end_row, int max_rows,
                                                  int64_t max_cells_per_s) {
  PRESPLIT_ASSIGN_OR_RETURN(
      std::string json,
      CallJson(BridgeCall::kCopyChunk, [&](JNIEnv* env, jclass cls, jmethodID method) -> jobject {
        jstring source = NewJavaString(env, range.source_table);
        jstring target = NewJavaString(env, range.target_table);
        jstring old_layout = NewJavaString(env, range.old_layout);
        jstring new_layout = NewJavaString(env, range.new_layout);
        jbyteArray from = NewBytes(env, from_row);
        jbyteArray end = NewBytes(env, end_row);
        jstring staging = NewJavaString(env, range.hfile_staging_spec);
        if (env->ExceptionCheck()) return nullptr;
        return env->CallStaticObjectMethod(cls, method, source, target, old_layout, new_layout,
                                           from, end, jint{max_rows}, jlong{max_cells_per_s},
                                           staging);
      }));
  return ParseChunkCopied(json);
}

Result<PresenceCheck> JniMigrationBridge::CheckPresent(const CopyRange& range) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kCheckPresent, {range.source_table, range.target_table,
                                                             range.old_layout, range.new_layout}));
  return ParsePresenceCheck(json);
}

Result<bool> JniMigrationBridge::EnsureCapture(const CaptureSpec& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(
      std::string json, Call(BridgeCall::kEnsureCapture,
                             {spec.peer_id, spec.source_table, spec.target_table,
                              spec.source_layout, spec.target_layout, spec.migration, spec.owner}));
  return ParseFlag(json, "added");
}

Result<bool> JniMigrationBridge::RemoveCapture(const std::string& peer_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kRemoveCapture, {peer_id}));
  return ParseFlag(json, "removed");
}

Result<CapturePeerState> JniMigrationBridge::DescribeCapture(const std::string& peer_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kDescribeCapture, {peer_id}));
  return ParseCapturePeerState(json);
}

Result<QueueMark> JniMigrationBridge::MarkCaptureQueues(const std::string& peer_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kMarkCaptureQueues, {peer_id}));
  return ParseQueueMark(json);
}

Result<UnshippedWals> JniMigrationBridge::UnshippedCaptureWals(
    const std::string& peer_id, const std::vector<std::string>& marked) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kUnshippedCaptureWals,
                                                   {peer_id, nlohmann::json(marked).dump()}));
  return ParseUnshippedWals(json);
}

Result<ProbeRound> JniMigrationBridge::Probe(const std::string& table, int64_t probe_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kProbe, {table, std::to_string(probe_id)}));
  return ParseProbeRound(json);
}

Result<CaptureAcks> JniMigrationBridge::ReadAcks(const std::string& ack_table, int64_t probe_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kCaptureAcks, {ack_table, std::to_string(probe_id)}));
  return ParseCaptureAcks(json);
}

Status JniMigrationBridge::SetKeepDeletedCells(const std::string& table, bool keep) {
  return Call(BridgeCall::kSetKeepDeletedCells, {table, keep ? "true" : "false"}).status();
}

Result<GenerationCreated> JniMigrationBridge::CreateGeneration(const TableSpec& spec,
                                                               const std::string& source,
                                                               const std::string& replication,
                                                               const std::string& plan_id) {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& key : spec.split_keys) keys.push_back(Base64Encode(key));
  PRESPLIT_ASSIGN_OR_RETURN(std::string out, Call(BridgeCall::kCreateGeneration,
                                                  {TableSpecToBridgeJson(spec), keys.dump(), source,
                                                   replication, plan_id}));
  return ParseGenerationCreated(out);
}

Result<TableSettingsCopied> JniMigrationBridge::CopyTableSettings(const std::string& source,
                                                                  const std::string& target,
                                                                  const std::string& replication) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out,
                            Call(BridgeCall::kCopyTableSettings, {source, target, replication}));
  return ParseTableSettingsCopied(out);
}

Result<GenerationCheck> JniMigrationBridge::CheckGeneration(const std::string& table,
                                                            const std::string& source,
                                                            const std::string& plan_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out,
                            Call(BridgeCall::kCheckGeneration, {table, source, plan_id}));
  return ParseGenerationCheck(out);
}

Result<GuardChange> JniMigrationBridge::SettleNewGeneration(const std::string& target,
                                                            const std::string& source,
                                                            const std::string& plan_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out,
                            Call(BridgeCall::kSettleNewGeneration, {target, source, plan_id}));
  return ParseGuardChange(out, "settleNewGeneration");
}

Result<GuardChange> JniMigrationBridge::GuardTable(const std::string& table,
                                                   const std::string& plan_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out, Call(BridgeCall::kGuardTable, {table, plan_id}));
  return ParseGuardChange(out, "guardTable");
}

Result<GuardChange> JniMigrationBridge::UnguardTable(const std::string& table,
                                                     const std::string& plan_id) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out, Call(BridgeCall::kUnguardTable, {table, plan_id}));
  return ParseGuardChange(out, "unguardTable");
}

Result<bool> JniMigrationBridge::AttachGuard(const std::string& table) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out, Call(BridgeCall::kAttachGuard, {table}));
  return ParseFlag(out, "changed");
}

Result<GuardConfirmed> JniMigrationBridge::ConfirmGuard(const std::string& table) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string out, Call(BridgeCall::kConfirmGuard, {table}));
  return ParseGuardConfirmed(out);
}

Status JniMigrationBridge::SetReadOnly(const std::string& table, bool read_only, bool* changed) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kSetReadOnly, {table, read_only ? "true" : "false"}));
  if (changed != nullptr) {
    PRESPLIT_ASSIGN_OR_RETURN(*changed, ParseFlag(json, "changed"));
  }
  return Status::Ok();
}

Status JniMigrationBridge::ReopenRegions(const std::string& table,
                                         const std::vector<std::string>& encoded_regions) {
  std::string names;
  for (const auto& region : encoded_regions) names += (names.empty() ? "" : ",") + region;
  return Call(BridgeCall::kReopenRegions, {table, names}).status();
}

Result<std::vector<CapturePeerOwner>> JniMigrationBridge::ListCapturePeers() {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kListCapturePeers, {}));
  return ParseCapturePeerOwners(json);
}

Result<std::vector<CaptureLag>> JniMigrationBridge::CaptureLags(
    const std::vector<std::string>& peer_ids) {
  std::string ids;
  for (const auto& id : peer_ids) ids += (ids.empty() ? "" : ",") + id;
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kCaptureLags, {ids}));
  return ParseCaptureLags(json);
}

namespace {

std::string Base64Array(const std::vector<std::string>& keys) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& key : keys) out.push_back(Base64Encode(key));
  return out.dump();
}

}  // namespace

Result<PartitionDigests> JniMigrationBridge::DigestPartitions(const std::string& table,
                                                              const std::string& layout,
                                                              const std::string& from_row,
                                                              const std::string& end_row,
                                                              int partitions) {
  PRESPLIT_ASSIGN_OR_RETURN(
      std::string json,
      Call(BridgeCall::kDigestPartitions, {table, layout, Base64Encode(from_row),
                                           Base64Encode(end_row), std::to_string(partitions)}));
  return ParsePartitionDigests(json, partitions);
}

Result<std::vector<PartitionDigests>> JniMigrationBridge::DigestTargetPartitions(
    const CopyRange& range, const std::vector<std::string>& source_region_starts, int partitions) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kDigestTargetPartitions,
                                 {range.target_table, range.new_layout, range.old_layout,
                                  Base64Array(source_region_starts), std::to_string(partitions)}));
  return ParsePartitionDigestList(json, source_region_starts.size(), partitions);
}

Result<RowDifferences> JniMigrationBridge::DiffPartitions(
    const CopyRange& range, const std::vector<std::string>& source_starts,
    const std::vector<RegionPartitions>& regions, int partitions, int max_keys) {
  nlohmann::json asked = nlohmann::json::array();
  for (const auto& r : regions) {
    asked.push_back({{"start", Base64Encode(r.region.start)},
                     {"end", Base64Encode(r.region.end)},
                     {"partitions", r.partitions}});
  }
  PRESPLIT_ASSIGN_OR_RETURN(
      std::string json,
      Call(BridgeCall::kDiffPartitions, {range.source_table, range.target_table, range.old_layout,
                                         range.new_layout, Base64Array(source_starts), asked.dump(),
                                         std::to_string(partitions), std::to_string(max_keys)}));
  return ParseRowDifferences(json);
}

Result<std::vector<uint64_t>> JniMigrationBridge::RowHashes(const std::string& table,
                                                            const std::string& layout,
                                                            const std::vector<std::string>& keys) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json,
                            Call(BridgeCall::kRowHashes, {table, layout, Base64Array(keys)}));
  return ParseRowHashes(json, keys.size());
}

Result<std::string> JniMigrationBridge::DescribeRow(const CopyRange& range,
                                                    const std::string& key) {
  PRESPLIT_ASSIGN_OR_RETURN(
      std::string json,
      Call(BridgeCall::kDescribeRow, {range.source_table, range.target_table, range.old_layout,
                                      range.new_layout, Base64Encode(key)}));
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("text") || !parsed["text"].is_string()) {
    return Status::Internal("bridge call describeRow returned no text");
  }
  return parsed["text"].get<std::string>();
}

Result<BulkSubmitted> JniMigrationBridge::SubmitBulkCopy(const std::string& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kSubmitJob, {spec}));
  return ParseBulkSubmitted(json);
}

Result<SnapshotAccess> JniMigrationBridge::CheckSnapshotInput(const std::string& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kSnapshotInput, {spec}));
  return ParseSnapshotAccess(json);
}

Result<BulkJobProgress> JniMigrationBridge::BulkCopyProgress(const std::string& job_id,
                                                             const std::string& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kJobProgress, {job_id, spec}));
  return ParseBulkJobProgress(json);
}

Result<BulkOutput> JniMigrationBridge::BulkCopyOutput(const std::string& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kJobOutput, {spec}));
  return ParseBulkOutput(json);
}

Result<BulkLoaded> JniMigrationBridge::LoadBulkCopy(const std::string& spec) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string json, Call(BridgeCall::kJobLoad, {spec}));
  return ParseBulkLoaded(json);
}

Status JniMigrationBridge::KillBulkCopy(const std::string& job_id, const std::string& spec) {
  return Call(BridgeCall::kJobKill, {job_id, spec}).status();
}

Status JniMigrationBridge::CleanupBulkCopy(const std::string& spec) {
  return Call(BridgeCall::kJobCleanup, {spec}).status();
}

namespace {

std::string JoinTables(const std::vector<std::string>& tables) {
  std::string csv;
  for (const auto& t : tables) csv += (csv.empty() ? "" : ",") + t;
  return csv;
}

}  // namespace

Result<std::string> JniMigrationBridge::ClusterHealth(const std::vector<std::string>& tables,
                                                      int probes) {
  return Call(BridgeCall::kClusterHealth, {JoinTables(tables), std::to_string(probes)});
}

Result<int64_t> JniMigrationBridge::SetThrottle(const std::vector<std::string>& tables,
                                                int64_t cells_per_s) {
  auto json = Call(BridgeCall::kSetThrottle, {JoinTables(tables), std::to_string(cells_per_s)});
  if (!json.ok()) return json.status();
  auto parsed = nlohmann::json::parse(*json, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("taken") || !parsed["taken"].is_number_integer()) {
    return Status::Internal("bridge call setThrottle returned " + *json);
  }
  return parsed["taken"].get<int64_t>();
}

}  // namespace presplit::daemon::migrate
