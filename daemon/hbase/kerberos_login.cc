#include "daemon/hbase/kerberos_login.h"

#include <vector>

namespace presplit::daemon {
namespace {

constexpr const char* kLoginClass = "io/presplit/hbase/admin/KerberosLogin";

// The first line of a Status message without the context TakeJavaException puts before the
// Java exception's class: what KerberosLogin said.
Status Plain(const Status& s) {
  std::string message = s.message();
  const std::string marker = "java.io.IOException: ";
  const size_t at = message.find(marker);
  if (at != std::string::npos) message = message.substr(at + marker.size());
  const size_t cause = message.find(" (root cause: ");
  if (cause != std::string::npos && message.rfind("Kerberos login as ", 0) == 0) {
    message = message.substr(0, cause);
  }
  return Status(s.code(), message);
}

Result<KerberosTicket> Call(JvmHost& jvm, const char* method, const char* signature,
                            const std::vector<std::string>& strings, bool with_pairs,
                            const std::vector<std::string>& pairs) {
  std::string json;
  Status s = jvm.RunOnThisThread([&](JNIEnv* env) -> Status {
    jclass cls = env->FindClass(kLoginClass);
    if (cls == nullptr) {
      return TakeJavaException(env,
                               "cannot load KerberosLogin (is presplit-hbase.jar on the "
                               "daemon's classpath, and as new as presplitd?)");
    }
    jmethodID id = env->GetStaticMethodID(cls, method, signature);
    if (id == nullptr) return TakeJavaException(env, std::string("KerberosLogin.") + method);
    std::vector<jvalue> args;
    for (const auto& value : strings) {
      jvalue v;
      v.l = NewJavaString(env, value);
      if (v.l == nullptr) return TakeJavaException(env, std::string("KerberosLogin.") + method);
      args.push_back(v);
    }
    if (with_pairs) {
      jvalue v;
      v.l = NewJavaStringArray(env, pairs);
      if (v.l == nullptr) return TakeJavaException(env, std::string("KerberosLogin.") + method);
      args.push_back(v);
    }
    auto result = static_cast<jstring>(env->CallStaticObjectMethodA(cls, id, args.data()));
    if (env->ExceptionCheck())
      return TakeJavaException(env, std::string("KerberosLogin.") + method);
    json = FromJavaString(env, result);
    return Status::Ok();
  });
  if (!s.ok()) return Plain(s);
  return ParseKerberosTicket(json);
}

}  // namespace

Result<KerberosTicket> KerberosLoginFromKeytab(
    JvmHost& jvm, const std::string& principal, const std::string& keytab,
    const std::map<std::string, std::string>& hbase_settings) {
  std::vector<std::string> pairs;
  for (const auto& [k, v] : hbase_settings) {
    pairs.push_back(k);
    pairs.push_back(v);
  }
  return Call(jvm, "login",
              "(Ljava/lang/String;Ljava/lang/String;[Ljava/lang/String;)Ljava/lang/String;",
              {principal, keytab}, true, pairs);
}

Result<KerberosTicket> KerberosCheckAndRelogin(JvmHost& jvm) {
  return Call(jvm, "checkAndRelogin", "()Ljava/lang/String;", {}, false, {});
}

}  // namespace presplit::daemon
