// A background thread that runs one task every `interval`, or at once when triggered; triggers
// that arrive while the task runs collapse into one more run. Start/Stop/Trigger as in Kudu's
// maintenance threads. The task is told whether the interval elapsed (a scheduled run) or it
// was only triggered.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace presplit::daemon {

class PeriodicWorker {
 public:
  using Task = std::function<void(bool scheduled)>;
  PeriodicWorker(std::string name, std::chrono::milliseconds interval, Task task)
      : name_(std::move(name)), interval_(interval), task_(std::move(task)) {}
  ~PeriodicWorker() { Stop(); }

  // Starts the thread; the first run happens at once.
  void Start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (thread_.joinable()) return;
    stopping_ = false;
    triggered_ = true;
    thread_ = std::thread([this] { Loop(); });
  }

  // Asks for a run as soon as the current one (if any) ends.
  void Trigger() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      triggered_ = true;
    }
    cv_.notify_one();
  }

  // Changes the interval; the next wait uses it.
  void SetInterval(std::chrono::milliseconds interval) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      interval_ = interval;
    }
    cv_.notify_one();
  }

  // Waits for a running task to finish, then joins the thread.
  void Stop() {
    RequestStop();
    if (thread_.joinable()) thread_.join();
  }

  // Like Stop(), but waits at most `limit` for a running task. Returns false when the task is
  // still running: the thread is then detached and the caller must not destroy what it uses
  // (it is about to end the process).
  bool StopWithin(std::chrono::milliseconds limit) {
    RequestStop();
    if (!thread_.joinable()) return true;
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, limit, [this] { return exited_; })) {
      lock.unlock();
      thread_.detach();
      return false;
    }
    lock.unlock();
    thread_.join();
    return true;
  }

  const std::string& name() const { return name_; }

 private:
  void RequestStop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
  }

  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    auto next_scheduled = std::chrono::steady_clock::now() + interval_;
    bool first = true;
    while (!stopping_) {
      cv_.wait_until(lock, std::min(next_scheduled, std::chrono::steady_clock::now() + interval_),
                     [this] { return stopping_ || triggered_; });
      if (stopping_) break;
      const auto now = std::chrono::steady_clock::now();
      const bool scheduled = first || now >= next_scheduled || !triggered_;
      if (scheduled) next_scheduled = now + interval_;
      first = false;
      triggered_ = false;
      lock.unlock();
      task_(scheduled);
      lock.lock();
    }
    exited_ = true;
    cv_.notify_all();
  }

  const std::string name_;
  std::chrono::milliseconds interval_;
  const Task task_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  bool stopping_ = false;
  bool triggered_ = false;
  bool exited_ = false;
};

}  // namespace presplit::daemon
