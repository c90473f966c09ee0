// A background thread that runs one task every `interval`, or at once when triggered; triggers
// that arrive while the task runs collapse into one more run. Start/Stop/Trigger as in Kudu's
// maintenance threads.
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
  PeriodicWorker(std::string name, std::chrono::milliseconds interval, std::function<void()> task)
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
    while (!stopping_) {
      cv_.wait_for(lock, interval_, [this] { return stopping_ || triggered_; });
      if (stopping_) break;
      triggered_ = false;
      lock.unlock();
      task_();
      lock.lock();
    }
  }

  const std::string name_;
  const std::chrono::milliseconds interval_;
  const std::function<void()> task_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  bool stopping_ = false;
  bool triggered_ = false;
};

}  // namespace presplit::daemon
