#include "daemon/hbase/jvm_host.h"

#include <spdlog/spdlog.h>

#include <future>

namespace presplit::daemon {
namespace {

// Local references one Java call may create before its frame is popped.
constexpr jint kLocalFrameCapacity = 64;

// Calls a no-argument method returning a String; empty on any failure (never leaves an
// exception pending: this runs while an exception is being reported).
std::string CallStringMethod(JNIEnv* env, jobject obj, const char* cls_name, const char* method) {
  if (obj == nullptr) return "";
  jclass cls = env->FindClass(cls_name);
  if (cls == nullptr) {
    env->ExceptionClear();
    return "";
  }
  jmethodID id = env->GetMethodID(cls, method, "()Ljava/lang/String;");
  if (id == nullptr) {
    env->ExceptionClear();
    return "";
  }
  auto s = static_cast<jstring>(env->CallObjectMethod(obj, id));
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
    return "";
  }
  return FromJavaString(env, s);
}

bool IsInstanceOfNamed(JNIEnv* env, jobject obj, const char* cls_name) {
  jclass cls = env->FindClass(cls_name);
  if (cls == nullptr) {
    env->ExceptionClear();
    return false;
  }
  return env->IsInstanceOf(obj, cls);
}

std::string Describe(JNIEnv* env, jthrowable t) {
  jclass throwable = env->GetObjectClass(t);
  jclass class_class = env->FindClass("java/lang/Class");
  jmethodID get_name = env->GetMethodID(class_class, "getName", "()Ljava/lang/String;");
  auto name = static_cast<jstring>(env->CallObjectMethod(throwable, get_name));
  std::string out = env->ExceptionCheck() ? "java exception" : FromJavaString(env, name);
  env->ExceptionClear();
  std::string message = CallStringMethod(env, t, "java/lang/Throwable", "getMessage");
  // Remote exceptions carry the server's whole stack trace in the message: its first line
  // says what happened, the rest belongs in the server's log, not in a status document.
  message = message.substr(0, message.find('\n'));
  if (!message.empty()) out += ": " + message;
  return out;
}

jthrowable RootCause(JNIEnv* env, jthrowable t) {
  jclass throwable = env->FindClass("java/lang/Throwable");
  jmethodID get_cause = env->GetMethodID(throwable, "getCause", "()Ljava/lang/Throwable;");
  jthrowable current = t;
  for (int depth = 0; depth < 32; ++depth) {  // cause chains can be cyclic
    auto cause = static_cast<jthrowable>(env->CallObjectMethod(current, get_cause));
    if (env->ExceptionCheck()) {
      env->ExceptionClear();
      break;
    }
    if (cause == nullptr || env->IsSameObject(cause, current)) break;
    current = cause;
  }
  return current;
}

}  // namespace

Result<std::unique_ptr<JvmHost>> JvmHost::Start(const JvmOptions& options) {
  std::vector<std::string> vm_options;
  vm_options.push_back("-Djava.class.path=" + JoinClasspath(options.classpath));
  vm_options.push_back("-Xrs");
  // An OutOfMemoryError leaves the HBase client in an unknown state: end the process so the
  // service manager starts a fresh one, rather than limp on.
  vm_options.push_back("-XX:+ExitOnOutOfMemoryError");
  if (!options.max_heap.empty()) vm_options.push_back("-Xmx" + options.max_heap);
  for (const auto& o : HBaseJdk17Options()) vm_options.push_back(o);
  for (const auto& o : options.options) vm_options.push_back(o);

  std::unique_ptr<JvmHost> host(new JvmHost());
  std::promise<Status> started;
  auto started_future = started.get_future();
  host->worker_ = std::thread(&JvmHost::WorkerLoop, host.get(), std::move(vm_options), &started);
  Status s = started_future.get();
  if (!s.ok()) {
    host->worker_.join();
    return s;
  }
  return host;
}

void JvmHost::WorkerLoop(std::vector<std::string> vm_options, std::promise<Status>* started) {
  std::vector<JavaVMOption> jvm_options(vm_options.size());
  for (size_t i = 0; i < vm_options.size(); ++i) {
    jvm_options[i].optionString = vm_options[i].data();
    jvm_options[i].extraInfo = nullptr;
  }
  JavaVMInitArgs args{};
  args.version = JNI_VERSION_10;
  args.nOptions = static_cast<jint>(jvm_options.size());
  args.options = jvm_options.data();
  args.ignoreUnrecognized = JNI_FALSE;

  JNIEnv* env = nullptr;
  jint rc = JNI_CreateJavaVM(&vm_, reinterpret_cast<void**>(&env), &args);
  if (rc != JNI_OK) {
    started->set_value(Status::Internal("JNI_CreateJavaVM failed with code " + std::to_string(rc) +
                                        (rc == JNI_EEXIST ? " (a JVM already exists)" : "")));
    return;
  }
  spdlog::info("embedded JVM started ({} options)", vm_options.size());
  started->set_value(Status::Ok());

  while (true) {
    std::function<void(JNIEnv*)> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task(env);
  }
  // The JVM is not destroyed: DestroyJavaVM waits for every non-daemon Java thread, which a
  // client library may leave behind, and a process cannot create a second JVM anyway. The VM
  // goes away with the process.
  vm_->DetachCurrentThread();
}

JvmHost::~JvmHost() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

Status JvmHost::Run(const std::function<Status(JNIEnv*)>& fn) {
  std::promise<Status> done;
  auto result = done.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Status::Unavailable("the embedded JVM is shutting down");
    queue_.push_back([&fn, &done](JNIEnv* env) {
      if (env->PushLocalFrame(kLocalFrameCapacity) != JNI_OK) {
        done.set_value(TakeJavaException(env, "cannot reserve JNI local references"));
        return;
      }
      Status s;
      try {
        s = fn(env);
      } catch (const std::exception& e) {
        s = Status::Internal(std::string("unexpected C++ exception in a Java call: ") + e.what());
      } catch (...) {
        s = Status::Internal("unexpected C++ exception in a Java call");
      }
      if (env->ExceptionCheck()) {
        Status pending = TakeJavaException(env, "java call");
        if (s.ok()) s = pending;
      }
      env->PopLocalFrame(nullptr);
      done.set_value(std::move(s));
    });
  }
  cv_.notify_one();
  return result.get();
}

namespace {
// Detaches a thread attached by RunOnThisThread when it ends (a JVM keeps a java.lang.Thread for
// every attached native thread until it detaches).
struct AttachedThread {
  JavaVM* vm = nullptr;
  JNIEnv* env = nullptr;
  ~AttachedThread() {
    if (vm != nullptr) vm->DetachCurrentThread();
  }
};
thread_local AttachedThread attached_thread;
}  // namespace

Status JvmHost::RunOnThisThread(const std::function<Status(JNIEnv*)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || vm_ == nullptr)
      return Status::Unavailable("the embedded JVM is shutting down");
  }
  if (attached_thread.env == nullptr) {
    JNIEnv* env = nullptr;
    JavaVMAttachArgs args{JNI_VERSION_1_8, const_cast<char*>("presplit-worker"), nullptr};
    if (vm_->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), &args) != JNI_OK) {
      return Status::Unavailable("cannot attach a worker thread to the embedded JVM");
    }
    attached_thread.vm = vm_;
    attached_thread.env = env;
  }
  JNIEnv* env = attached_thread.env;
  if (env->PushLocalFrame(kLocalFrameCapacity) != JNI_OK) {
    return TakeJavaException(env, "cannot reserve JNI local references");
  }
  Status s;
  try {
    s = fn(env);
  } catch (const std::exception& e) {
    s = Status::Internal(std::string("unexpected C++ exception in a Java call: ") + e.what());
  } catch (...) {
    s = Status::Internal("unexpected C++ exception in a Java call");
  }
  if (env->ExceptionCheck()) {
    Status pending = TakeJavaException(env, "java call");
    if (s.ok()) s = pending;
  }
  env->PopLocalFrame(nullptr);
  return s;
}

Status TakeJavaException(JNIEnv* env, const std::string& context) {
  jthrowable t = env->ExceptionOccurred();
  if (t == nullptr) return Status::Ok();
  env->ExceptionClear();
  if (IsInstanceOfNamed(env, t, "org/apache/hadoop/hbase/security/AccessDeniedException")) {
    // presplit-hbase.jar's AccessDenial made it one line naming the operation, the table, the
    // permission, the principal and the grant; HBase's reason (the cause) is in it already.
    std::string message = CallStringMethod(env, t, "java/lang/Throwable", "getMessage");
    env->DeleteLocalRef(t);
    message = message.substr(0, message.find('\n'));
    // One HBase sent without going through AccessDenial starts with its class name (the RPC's).
    const std::string prefix = "org.apache.hadoop.hbase.security.AccessDeniedException: ";
    while (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    return Status::PermissionDenied(context + ": " + message);
  }
  std::string what = Describe(env, t);
  jthrowable root = RootCause(env, t);
  if (!env->IsSameObject(root, t)) what += " (root cause: " + Describe(env, root) + ")";

  StatusCode code = StatusCode::kUnavailable;
  if (IsInstanceOfNamed(env, t, "org/apache/hadoop/hbase/TableExistsException")) {
    code = StatusCode::kAlreadyExists;
  } else if (IsInstanceOfNamed(env, t, "org/apache/hadoop/hbase/TableNotFoundException")) {
    code = StatusCode::kNotFound;  // before DoNotRetryIOException, its superclass
  } else if (IsInstanceOfNamed(env, t, "java/lang/IllegalArgumentException")) {
    code = StatusCode::kInvalidArgument;
  } else if (IsInstanceOfNamed(env, t, "org/apache/hadoop/hbase/DoNotRetryIOException") ||
             IsInstanceOfNamed(env, root, "org/apache/hadoop/hbase/DoNotRetryIOException")) {
    code = StatusCode::kFailedPrecondition;
  } else if (IsInstanceOfNamed(env, t, "java/lang/Error") ||
             IsInstanceOfNamed(env, t, "java/lang/RuntimeException")) {
    code = StatusCode::kInternal;
  }
  env->DeleteLocalRef(t);
  return Status(code, context + ": " + what);
}

jstring NewJavaString(JNIEnv* env, const std::string& utf8) {
  // Documents and table names are validated UTF-8 without NULs, so modified UTF-8 is the same.
  return env->NewStringUTF(utf8.c_str());
}

std::string FromJavaString(JNIEnv* env, jstring s) {
  if (s == nullptr) return "";
  const char* chars = env->GetStringUTFChars(s, nullptr);
  if (chars == nullptr) return "";
  std::string out(chars);
  env->ReleaseStringUTFChars(s, chars);
  return out;
}

jobjectArray NewJavaStringArray(JNIEnv* env, const std::vector<std::string>& values) {
  jclass string_class = env->FindClass("java/lang/String");
  if (string_class == nullptr) return nullptr;
  jobjectArray array =
      env->NewObjectArray(static_cast<jsize>(values.size()), string_class, nullptr);
  if (array == nullptr) return nullptr;
  for (size_t i = 0; i < values.size(); ++i) {
    jstring s = NewJavaString(env, values[i]);
    if (s == nullptr) return nullptr;
    env->SetObjectArrayElement(array, static_cast<jsize>(i), s);
    env->DeleteLocalRef(s);
  }
  return array;
}

jobjectArray NewJavaByteArrays(JNIEnv* env, const std::vector<std::string>& values) {
  jclass bytes_class = env->FindClass("[B");
  if (bytes_class == nullptr) return nullptr;
  jobjectArray array = env->NewObjectArray(static_cast<jsize>(values.size()), bytes_class, nullptr);
  if (array == nullptr) return nullptr;
  for (size_t i = 0; i < values.size(); ++i) {
    jbyteArray b = env->NewByteArray(static_cast<jsize>(values[i].size()));
    if (b == nullptr) return nullptr;
    env->SetByteArrayRegion(b, 0, static_cast<jsize>(values[i].size()),
                            reinterpret_cast<const jbyte*>(values[i].data()));
    env->SetObjectArrayElement(array, static_cast<jsize>(i), b);
    env->DeleteLocalRef(b);
  }
  return array;
}

}  // namespace presplit::daemon
