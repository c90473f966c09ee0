// The one owner of the daemon's embedded JVM (JNI invocation API, as Hadoop's libhdfs does).
//
// The JVM is created on a dedicated worker thread, and every Java call runs on that thread:
// callers hand it a closure and wait. That keeps JNI off the daemon's event loop, keeps one
// attached thread (no attach/detach churn) and gives each call a fresh local-reference frame.
#pragma once

#include <jni.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/hbase/jdk_options.h"
#include "presplit/status.h"

namespace presplit::daemon {

struct JvmOptions {
  std::vector<std::string> classpath;  // entries joined with ':'
  std::vector<std::string> options;    // extra -X / -D / --add-opens options
  std::string max_heap = "256m";
};

class JvmHost {
 public:
  // Starts the JVM. It runs with -Xrs so that SIGTERM/SIGHUP stay the daemon's to handle, and
  // with -XX:+ExitOnOutOfMemoryError so that an exhausted heap ends the process (to be restarted).
  // A process can create only one JVM in its lifetime.
  static Result<std::unique_ptr<JvmHost>> Start(const JvmOptions& options);
  ~JvmHost();

  JvmHost(const JvmHost&) = delete;
  JvmHost& operator=(const JvmHost&) = delete;

  // Runs `fn` on the JVM thread inside a local-reference frame and returns its Status. A C++
  // exception thrown by `fn` becomes an Internal error; it never unwinds through the JVM.
  Status Run(const std::function<Status(JNIEnv*)>& fn);

  // Runs `fn` on the CALLING thread, attached to the JVM as a daemon thread (attached once per
  // thread, detached when the thread ends), inside a local-reference frame. For the few callers
  // that need Java calls in parallel (the migration's copy workers); everything else uses Run.
  // Same error handling as Run.
  Status RunOnThisThread(const std::function<Status(JNIEnv*)>& fn);

 private:
  JvmHost() = default;
  void WorkerLoop(std::vector<std::string> vm_options, std::promise<Status>* started);

  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(JNIEnv*)>> queue_;
  bool stopping_ = false;
  JavaVM* vm_ = nullptr;
};

// Takes the pending Java exception (clearing it) and turns it into a Status that names the
// exception's class, message and root cause. DoNotRetryIOException and IllegalArgumentException
// map to FailedPrecondition/InvalidArgument (retrying cannot help), TableExistsException to
// AlreadyExists, TableNotFoundException to NotFound, anything else to Unavailable. An
// AccessDeniedException is PermissionDenied with its message's first line only: java-shim's
// AccessDenial words it as one line with HBase's reason in it. Returns OK when no exception is
// pending.
Status TakeJavaException(JNIEnv* env, const std::string& context);

// Conversions used by the JNI callers. They return nullptr with a Java exception pending on
// failure (out of memory), which TakeJavaException reports.
jstring NewJavaString(JNIEnv* env, const std::string& utf8);
std::string FromJavaString(JNIEnv* env, jstring s);
jobjectArray NewJavaStringArray(JNIEnv* env, const std::vector<std::string>& values);
jobjectArray NewJavaByteArrays(JNIEnv* env, const std::vector<std::string>& values);

}  // namespace presplit::daemon
