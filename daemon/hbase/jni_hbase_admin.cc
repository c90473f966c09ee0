#include "daemon/hbase/jni_hbase_admin.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon {
namespace {
constexpr const char* kBridgeClass = "io/presplit/hbase/admin/AdminBridge";
}  // namespace

Result<std::unique_ptr<JniHBaseAdmin>> JniHBaseAdmin::Connect(
    JvmHost& jvm, const std::map<std::string, std::string>& hbase_settings) {
  std::unique_ptr<JniHBaseAdmin> admin(new JniHBaseAdmin(jvm));
  std::vector<std::string> pairs;
  for (const auto& [k, v] : hbase_settings) {
    pairs.push_back(k);
    pairs.push_back(v);
  }
  JniHBaseAdmin* self = admin.get();
  Status s = jvm.Run([self, &pairs](JNIEnv* env) -> Status {
    jclass cls = env->FindClass(kBridgeClass);
    if (cls == nullptr) {
      return TakeJavaException(env,
                               "cannot load AdminBridge (is presplit-hbase.jar on the "
                               "daemon's classpath?)");
    }
    jmethodID connect = env->GetStaticMethodID(
        cls, "connect", "([Ljava/lang/String;)Lio/presplit/hbase/admin/AdminBridge;");
    self->describe_table_ =
        env->GetMethodID(cls, "describeTable", "(Ljava/lang/String;)Ljava/lang/String;");
    self->create_table_ = env->GetMethodID(cls, "createTable", "(Ljava/lang/String;[[B)V");
    self->region_loads_ =
        env->GetMethodID(cls, "regionLoads", "([Ljava/lang/String;)Ljava/lang/String;");
    self->split_region_ = env->GetMethodID(cls, "splitRegion", "(Ljava/lang/String;)V");
    self->sample_row_keys_ =
        env->GetMethodID(cls, "sampleRowKeys", "(Ljava/lang/String;[B[BIJ)[[B");
    self->split_region_at_ = env->GetMethodID(cls, "splitRegionAt", "(Ljava/lang/String;[B)V");
    self->move_region_ =
        env->GetMethodID(cls, "moveRegion", "(Ljava/lang/String;Ljava/lang/String;)V");
    self->disable_table_ = env->GetMethodID(cls, "disableTable", "(Ljava/lang/String;)V");
    self->delete_table_ = env->GetMethodID(cls, "deleteTable", "(Ljava/lang/String;)V");
    self->check_permissions_ =
        env->GetMethodID(cls, "checkPermissions", "([Ljava/lang/String;Z)Ljava/lang/String;");
    self->close_ = env->GetMethodID(cls, "close", "()V");
    if (connect == nullptr || self->describe_table_ == nullptr || self->create_table_ == nullptr ||
        self->region_loads_ == nullptr || self->split_region_ == nullptr ||
        self->sample_row_keys_ == nullptr || self->split_region_at_ == nullptr ||
        self->move_region_ == nullptr || self->disable_table_ == nullptr ||
        self->delete_table_ == nullptr || self->check_permissions_ == nullptr ||
        self->close_ == nullptr) {
      return TakeJavaException(env,
                               "AdminBridge does not have the expected methods (version "
                               "mismatch between presplitd and presplit-hbase.jar?)");
    }
    jobjectArray conf = NewJavaStringArray(env, pairs);
    if (conf == nullptr) return TakeJavaException(env, "AdminBridge.connect");
    jobject bridge = env->CallStaticObjectMethod(cls, connect, conf);
    if (env->ExceptionCheck()) return TakeJavaException(env, "AdminBridge.connect");
    self->bridge_class_ = static_cast<jclass>(env->NewGlobalRef(cls));
    self->bridge_ = env->NewGlobalRef(bridge);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return admin;
}

JniHBaseAdmin::~JniHBaseAdmin() {
  Status s = jvm_.Run([this](JNIEnv* env) -> Status {
    if (bridge_ != nullptr) {
      env->CallVoidMethod(bridge_, close_);
      Status closed = TakeJavaException(env, "AdminBridge.close");
      env->DeleteGlobalRef(bridge_);
      bridge_ = nullptr;
      if (!closed.ok()) spdlog::warn("{}", closed.message());
    }
    if (bridge_class_ != nullptr) env->DeleteGlobalRef(bridge_class_);
    bridge_class_ = nullptr;
    return Status::Ok();
  });
  (void)s;
}

Result<TableDescription> JniHBaseAdmin::DescribeTable(const std::string& table) {
  std::string json;
  Status s = jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, table);
    if (name == nullptr) return TakeJavaException(env, "describe " + table);
    auto result = static_cast<jstring>(env->CallObjectMethod(bridge_, describe_table_, name));
    if (env->ExceptionCheck()) return TakeJavaException(env, "describe " + table);
    json = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return ParseBridgeDescription(json);
}

Status JniHBaseAdmin::CreateTable(const TableSpec& spec) {
  const std::string spec_json = TableSpecToBridgeJson(spec);
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring j_spec = NewJavaString(env, spec_json);
    jobjectArray keys = NewJavaByteArrays(env, spec.split_keys);
    if (j_spec == nullptr || keys == nullptr) return TakeJavaException(env, "create " + spec.table);
    env->CallVoidMethod(bridge_, create_table_, j_spec, keys);
    return TakeJavaException(env, "create " + spec.table);
  });
}

Result<std::vector<RegionLoadReport>> JniHBaseAdmin::RegionLoads(
    const std::vector<std::string>& tables) {
  std::string json;
  Status s = jvm_.Run([&](JNIEnv* env) -> Status {
    jobjectArray names = NewJavaStringArray(env, tables);
    if (names == nullptr) return TakeJavaException(env, "region loads");
    auto result = static_cast<jstring>(env->CallObjectMethod(bridge_, region_loads_, names));
    if (env->ExceptionCheck()) return TakeJavaException(env, "region loads");
    json = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  PRESPLIT_ASSIGN_OR_RETURN(auto reply, ParseRegionLoadsReply(json));
  {
    std::lock_guard<std::mutex> lock(live_servers_mu_);
    live_servers_ = std::move(reply.servers);
  }
  return std::move(reply.regions);
}

std::vector<std::string> JniHBaseAdmin::LiveServers() {
  std::lock_guard<std::mutex> lock(live_servers_mu_);
  return live_servers_;
}

Status JniHBaseAdmin::MoveRegion(const std::string& encoded_region, const std::string& server) {
  const std::string context = "move region " + encoded_region + " to " + server;
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, encoded_region);
    jstring destination = NewJavaString(env, server);
    if (name == nullptr || destination == nullptr) return TakeJavaException(env, context);
    env->CallVoidMethod(bridge_, move_region_, name, destination);
    return TakeJavaException(env, context);
  });
}

Result<PermissionReport> JniHBaseAdmin::CheckPermissions(const std::vector<std::string>& tables,
                                                         bool replication) {
  std::string json;
  Status s = jvm_.Run([&](JNIEnv* env) -> Status {
    jobjectArray names = NewJavaStringArray(env, tables);
    if (names == nullptr) return TakeJavaException(env, "checking permissions");
    auto result = static_cast<jstring>(env->CallObjectMethod(bridge_, check_permissions_, names,
                                                             static_cast<jboolean>(replication)));
    if (env->ExceptionCheck()) return TakeJavaException(env, "checking permissions");
    json = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return ParsePermissionReport(json);
}

Status JniHBaseAdmin::SplitRegion(const std::string& encoded_region) {
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, encoded_region);
    if (name == nullptr) return TakeJavaException(env, "split region " + encoded_region);
    env->CallVoidMethod(bridge_, split_region_, name);
    return TakeJavaException(env, "split region " + encoded_region);
  });
}

Result<std::vector<std::string>> JniHBaseAdmin::SampleRowKeys(const std::string& table,
                                                              const std::string& start_key,
                                                              const std::string& end_key,
                                                              int max_keys, int64_t max_rows) {
  std::vector<std::string> keys;
  const std::string context = "sample row keys of " + table;
  Status s = jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, table);
    jobjectArray bounds = NewJavaByteArrays(env, {start_key, end_key});
    if (name == nullptr || bounds == nullptr) return TakeJavaException(env, context);
    jobject start = env->GetObjectArrayElement(bounds, 0);
    jobject end = env->GetObjectArrayElement(bounds, 1);
    auto result = static_cast<jobjectArray>(
        env->CallObjectMethod(bridge_, sample_row_keys_, name, start, end,
                              static_cast<jint>(max_keys), static_cast<jlong>(max_rows)));
    if (env->ExceptionCheck()) return TakeJavaException(env, context);
    if (result == nullptr) return Status::Internal(context + ": AdminBridge returned null");
    const jsize count = env->GetArrayLength(result);
    keys.reserve(static_cast<size_t>(count));
    for (jsize i = 0; i < count; ++i) {
      auto key = static_cast<jbyteArray>(env->GetObjectArrayElement(result, i));
      if (key == nullptr) continue;
      const jsize length = env->GetArrayLength(key);
      std::string bytes(static_cast<size_t>(length), '\0');
      env->GetByteArrayRegion(key, 0, length, reinterpret_cast<jbyte*>(bytes.data()));
      env->DeleteLocalRef(key);  // a sample has up to thousands of keys: keep the frame small
      keys.push_back(std::move(bytes));
    }
    return TakeJavaException(env, context);
  });
  if (!s.ok()) return s;
  return keys;
}

Status JniHBaseAdmin::SplitRegionAt(const std::string& encoded_region,
                                    const std::string& split_point) {
  const std::string context = "split region " + encoded_region + " at a point";
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, encoded_region);
    jobjectArray points = NewJavaByteArrays(env, {split_point});
    if (name == nullptr || points == nullptr) return TakeJavaException(env, context);
    jobject point = env->GetObjectArrayElement(points, 0);
    env->CallVoidMethod(bridge_, split_region_at_, name, point);
    return TakeJavaException(env, context);
  });
}

Status JniHBaseAdmin::DisableTable(const std::string& table) {
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, table);
    if (name == nullptr) return TakeJavaException(env, "disable " + table);
    env->CallVoidMethod(bridge_, disable_table_, name);
    return TakeJavaException(env, "disable " + table);
  });
}

Status JniHBaseAdmin::DeleteTable(const std::string& table) {
  return jvm_.Run([&](JNIEnv* env) -> Status {
    jstring name = NewJavaString(env, table);
    if (name == nullptr) return TakeJavaException(env, "delete " + table);
    env->CallVoidMethod(bridge_, delete_table_, name);
    return TakeJavaException(env, "delete " + table);
  });
}

}  // namespace presplit::daemon
