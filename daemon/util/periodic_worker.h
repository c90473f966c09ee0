// A background thread that runs one task every `interval`, or at once when triggered; triggers
// that arrive while the task runs collapse into one more run. Start/Stop/Trigger as in Kudu's
// maintenance threads. The task is told whether the interval elapsed (a scheduled run) or it
// was only triggered.
#pragma once

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

  // Changes the interval: the next scheduled run is `interval` from now (a shorter interval
  // takes effect at once, not after the wait already under way).
  void SetInterval(std::chrono::milliseconds interval) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      interval_ = interval;
      next_scheduled_ = std::chrono::steady_clock::now() + interval;
      rescheduled_ = true;
    }
    cv_.notify_one();
  }

  // Waits for a running task to finish, then joins the thread.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  const std::string& name() const { return name_; }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    // The run Start() asks for counts as the first scheduled one.
    next_scheduled_ = std::chrono::steady_clock::now();
    while (!stopping_) {
      rescheduled_ = false;
      cv_.wait_until(lock, next_scheduled_,
                     [this] { return stopping_ || triggered_ || rescheduled_; });
      if (stopping_) break;
      const auto now = std::chrono::steady_clock::now();
      const bool scheduled = now >= next_scheduled_;
      if (!scheduled && !triggered_) continue;  // the interval changed: wait again
      if (scheduled) next_scheduled_ = now + interval_;
      triggered_ = false;
      lock.unlock();
      task_(scheduled);
      lock.lock();
    }
  }

  const std::string name_;
  std::chrono::milliseconds interval_;
  const Task task_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point next_scheduled_;
  bool triggered_ = false;
  bool rescheduled_ = false;
};

}  // namespace presplit::daemon
