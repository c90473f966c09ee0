#include "daemon/util/periodic_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace presplit::daemon {
namespace {

using std::chrono::milliseconds;

// Records each run's `scheduled` flag and lets a test wait (with a deadline) for the next ones.
class Runs {
 public:
  void Record(bool scheduled) {
    std::lock_guard<std::mutex> lock(mu_);
    flags_.push_back(scheduled);
    cv_.notify_all();
  }
  // Waits until at least `count` runs happened; false after 10 s.
  bool WaitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return flags_.size() >= count; });
  }
  std::vector<bool> Flags() {
    std::lock_guard<std::mutex> lock(mu_);
    return flags_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<bool> flags_;
};

TEST(PeriodicWorkerTest, FirstRunIsScheduledTriggersAreNot) {
  Runs runs;
  PeriodicWorker worker("test", std::chrono::hours(1), [&](bool s) { runs.Record(s); });
  worker.Start();
  ASSERT_TRUE(runs.WaitFor(1));
  worker.Trigger();
  ASSERT_TRUE(runs.WaitFor(2));
  worker.Stop();
  EXPECT_EQ(runs.Flags(), (std::vector<bool>{true, false}));
}

TEST(PeriodicWorkerTest, TheIntervalRunsAreScheduled) {
  Runs runs;
  PeriodicWorker worker("test", milliseconds(20), [&](bool s) { runs.Record(s); });
  worker.Start();
  ASSERT_TRUE(runs.WaitFor(3));
  worker.Stop();
  for (bool scheduled : runs.Flags()) EXPECT_TRUE(scheduled);
}

TEST(PeriodicWorkerTest, AShorterIntervalTakesEffectAtOnce) {
  Runs runs;
  PeriodicWorker worker("test", std::chrono::hours(1), [&](bool s) { runs.Record(s); });
  worker.Start();
  ASSERT_TRUE(runs.WaitFor(1));
  // Without the change the next scheduled run is an hour away: a second one within the
  // deadline can only come from the new interval.
  worker.SetInterval(milliseconds(20));
  ASSERT_TRUE(runs.WaitFor(2));
  worker.Stop();
  EXPECT_EQ(runs.Flags()[1], true);
}

TEST(PeriodicWorkerTest, StopEndsAWorkerThatWaits) {
  Runs runs;
  PeriodicWorker worker("test", std::chrono::hours(1), [&](bool s) { runs.Record(s); });
  worker.Start();
  ASSERT_TRUE(runs.WaitFor(1));
  const auto before = std::chrono::steady_clock::now();
  worker.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  EXPECT_EQ(runs.Flags().size(), 1u);
}

}  // namespace
}  // namespace presplit::daemon
