// The Migrator's drivers: two migrations at once, one of them with a capture peer that never
// acknowledges. The other must not wait for it (issue 22: a migration starved behind a stuck
// one), and stopping or losing the lease must end both drivers at once, leaving both plans to
// resume.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon/migrate/migrator.h"
#include "daemon/reconcile/reconciler.h"
#include "tests/daemon/fakes.h"
#include "tests/daemon/migrate/fake_migration_bridge.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;
using testing::FakeAdmin;
using testing::FakeMigrationBridge;
using Clock = std::chrono::steady_clock;

constexpr const char* kStuck = "tinawang:check";  // listed first: its capture never ships
constexpr const char* kOther = "tinawang:other";
// Far below the stuck migration's ack_timeout (60 s).
constexpr auto kDeadline = std::chrono::seconds(15);

class MigratorDriversTest : public MigrationZnodesTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(reconciler_.Prepare().ok());
    PutDocOf(kStuck, 10, "");
    PutDocOf(kOther, 10, "");
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    bridge_.admin = &admin_;
    bridge_.other_targets.insert(TargetOf(kOther));
    for (const char* table : {kStuck, kOther}) {
      for (int i = 0; i < 200; ++i)
        bridge_.Write(table, std::to_string(i % 10) + "row" + std::to_string(i));
    }
    options_.zk_root = "/presplit";
    options_.daemon_id = "test:1";
    options_.chunk_rows = 30;
    options_.progress_interval = std::chrono::milliseconds(5);
    options_.ack_timeout = std::chrono::seconds(60);
    options_.ack_poll = std::chrono::milliseconds(2);
    options_.rollback_settle = std::chrono::milliseconds(0);
    options_.stop = &stop_;
    options_.lease = [this] { return leading_.load(); };
  }
  void TearDown() override { stop_ = true; }

  static std::string TargetOf(const std::string& table) { return table + "__g2"; }
  void PutDocOf(const std::string& table, int buckets, const std::string& migration) {
    json doc = json::parse(Document(buckets, migration));
    doc["table"] = table;
    ASSERT_TRUE(zk_.Upsert("/presplit/tables/" + table, doc.dump()).ok());
  }
  // Both documents edited to 16 buckets with migrations allowed; the reconciler plans both.
  void StartBoth() {
    for (const char* table : {kStuck, kOther}) {
      PutDocOf(table, 16, R"({"allowed": true, "grace_period_s": 0, "workers": 2})");
    }
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    ASSERT_TRUE(PlanOf(kStuck).is_object());
    ASSERT_TRUE(PlanOf(kOther).is_object());
  }
  json Read(const std::string& path) {
    auto node = zk_.Get(path, false);
    return node.ok() ? json::parse(node->data) : json();
  }
  json PlanOf(const std::string& table) { return Read("/presplit/migrations/" + table); }
  json StatusOf(const std::string& table) { return Read("/presplit/status/" + table); }
  // Polls `done` (under the test's view of the fakes) until it holds or the deadline passes.
  template <typename Fn>
  bool Eventually(Fn done, Clock::duration deadline = kDeadline) {
    const auto until = Clock::now() + deadline;
    while (Clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return done();
  }
  // At least `sources` old generations read-only: their switches' write pauses are under way.
  bool Pausing(int sources) {
    std::lock_guard<std::mutex> lock(bridge_.mu);
    return static_cast<int>(bridge_.read_only.size()) >= sources;
  }

  FakeAdmin admin_;
  FakeMigrationBridge bridge_;
  Reconciler reconciler_{zk_, admin_, ReconcilerOptions{"/presplit", "test:1"}};
  MigratorOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{true};
};

// What the daemon's migrate worker does: RunOnce every few milliseconds, from a thread of its
// own, until told to quit.
class Runner {
 public:
  explicit Runner(Migrator& migrator) : migrator_(migrator) {
    thread_ = std::thread([this] {
      while (!quit_) {
        (void)migrator_.RunOnce();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~Runner() { Quit(); }
  void Quit() {
    quit_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  Migrator& migrator_;
  std::atomic<bool> quit_{false};
  std::thread thread_;
};

TEST_F(MigratorDriversTest, AMigrationWhoseCaptureNeverShipsDoesNotHoldUpAnother) {
  StartBoth();
  bridge_.stalled_peers.insert(CapturePeerOf(TargetOf(kStuck)));
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.Prepare().ok());
  // Only the counters are read while the drivers run (the fake ZooKeeper is not thread-safe: the
  // znodes are read once the drivers ended).
  const auto started = Clock::now();
  Runner runner(migrator);
  const bool other_done = Eventually([&] { return migrator.counters().completed.load() >= 1; });
  const auto took = Clock::now() - started;
  // The stuck one waits at its switch for its capture to drain (it may have been slower to get
  // there than the other was to finish).
  const bool stuck_waits = Eventually([&] {
    for (const auto& m : migrator.Snapshot()) {
      if (m.table == kStuck) return m.phase == Phase::kSwitching;
    }
    return false;
  });
  stop_ = true;
  runner.Quit();
  migrator.Stop();
  ASSERT_TRUE(other_done) << "the other migration waited for the stuck capture";
  EXPECT_TRUE(stuck_waits);
  EXPECT_LT(took, kDeadline);
  EXPECT_TRUE(PlanOf(kOther).is_null()) << "finished: plan removed";
  EXPECT_EQ(StatusOf(kOther)["migration"]["phase"], "done") << StatusOf(kOther).dump();
  EXPECT_EQ(StatusOf(kOther)["physical_table"], TargetOf(kOther));
  // Not failed: it waits.
  json stuck = PlanOf(kStuck);
  ASSERT_TRUE(stuck.is_object());
  EXPECT_EQ(stuck["phase"], "switching") << stuck.dump();
  EXPECT_EQ(StatusOf(kStuck)["generation"], 1) << "nothing switched before the drain";
  EXPECT_EQ(migrator.counters().completed, 1u);
  EXPECT_EQ(migrator.counters().exceptions_caught, 0u);
}

// Both migrations wait for captures that never ship; `end` ends their drivers (stop or a lost
// lease), which must return within the deadline, far below ack_timeout, with nothing written
// after; a migrator that may act again then takes both to the end.
class MigratorDriversEndTest : public MigratorDriversTest {
 protected:
  void EndsPromptlyAndResumes(const std::function<void()>& end, StatusCode expected) {
    StartBoth();
    bridge_.stalled_peers.insert(CapturePeerOf(TargetOf(kStuck)));
    bridge_.stalled_peers.insert(CapturePeerOf(TargetOf(kOther)));
    {
      Migrator migrator(zk_, admin_, bridge_, options_);
      ASSERT_TRUE(migrator.Prepare().ok());
      presplit::Status ran;
      std::atomic<bool> returned{false};
      std::thread run([&] {
        ran = migrator.RunOnceAndWait();
        returned = true;
      });
      // Both drivers wait for their capture to drain, in their switches' write pauses.
      const bool both_waiting = Eventually([&] { return Pausing(2); });
      const auto ended_at = Clock::now();
      end();
      const bool ended = Eventually([&] { return returned.load(); });
      const auto took = Clock::now() - ended_at;
      if (!ended) stop_ = true;  // the test ends either way
      run.join();
      ASSERT_TRUE(both_waiting) << "both migrations wait for their capture";
      ASSERT_TRUE(ended) << "the drivers did not end";
      EXPECT_LT(took, std::chrono::seconds(5));
      EXPECT_EQ(ran.code(), expected) << ran.ToString();
      EXPECT_EQ(migrator.counters().errors, 0u) << "ended, not failed";
    }
    for (const char* table : {kStuck, kOther}) {
      json plan = PlanOf(table);
      ASSERT_TRUE(plan.is_object()) << table;
      EXPECT_EQ(plan["phase"], "switching") << plan.dump();
      EXPECT_TRUE(plan["error"].is_null()) << plan.dump();
      EXPECT_GT(plan["writes_paused_until_ms"].get<int64_t>(), 0)
          << "the pause is left for the next leader to end";
    }
    // Resumable: the captures ship again, the daemon may act again.
    stop_ = false;
    leading_ = true;
    {
      std::lock_guard<std::mutex> lock(bridge_.mu);
      bridge_.stalled_peers.clear();
    }
    Migrator next(zk_, admin_, bridge_, options_);
    for (int run = 0; run < 20 && (PlanOf(kStuck).is_object() || PlanOf(kOther).is_object());
         ++run) {
      ASSERT_TRUE(next.RunOnceAndWait().ok());
    }
    for (const char* table : {kStuck, kOther}) {
      EXPECT_TRUE(PlanOf(table).is_null()) << table;
      EXPECT_EQ(StatusOf(table)["migration"]["phase"], "done") << StatusOf(table).dump();
    }
  }
};

TEST_F(MigratorDriversEndTest, StoppingEndsEveryDriverAndLeavesThePlansResumable) {
  EndsPromptlyAndResumes([&] { stop_ = true; }, StatusCode::kUnavailable);
}

TEST_F(MigratorDriversEndTest, LosingTheLeaseEndsEveryDriverAndLeavesThePlansResumable) {
  EndsPromptlyAndResumes([&] { leading_ = false; }, StatusCode::kFailedPrecondition);
}

// More plans than max_concurrent_migrations: the ones beyond wait for a driver, and all finish.
TEST_F(MigratorDriversTest, PlansBeyondTheBoundWaitTheirTurn) {
  StartBoth();
  options_.max_concurrent_migrations = 1;
  Migrator migrator(zk_, admin_, bridge_, options_);
  ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  EXPECT_NE(PlanOf(kStuck)["phase"], "planned") << "the first plan listed went first";
  EXPECT_EQ(PlanOf(kOther)["phase"], "planned") << "the second waited for a driver";
  for (int run = 0; run < 40 && (PlanOf(kStuck).is_object() || PlanOf(kOther).is_object()); ++run) {
    ASSERT_TRUE(migrator.RunOnceAndWait().ok());
  }
  EXPECT_TRUE(PlanOf(kStuck).is_null());
  EXPECT_TRUE(PlanOf(kOther).is_null());
  EXPECT_EQ(migrator.counters().completed, 2u);
}

}  // namespace
}  // namespace presplit::daemon::migrate
