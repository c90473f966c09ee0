// The migration's adaptive throttle on a fake clock with hand-made health samples: it backs off
// on every kind of signal, opens again when all is clear, never passes the ceiling or the floor,
// holds on missing data, says why, and its bucket paces (and lets go of) its workers.
#include "daemon/migrate/throttler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace presplit::daemon::migrate {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::atomic<int64_t> micros{1'000'000};
  std::atomic<int64_t> slept{0};
  Throttler::Time Time() {
    return {[this] { return Throttler::Clock::time_point(std::chrono::microseconds(micros)); },
            [this](std::chrono::microseconds d) {
              micros += d.count();
              slept += d.count();
            }};
  }
  void Advance(std::chrono::milliseconds d) { micros += d.count() * 1000; }
};

ThrottleSettings Settings() {
  ThrottleSettings s;
  s.initial_cells_per_s = 10000;
  s.min_cells_per_s = 500;
  s.increase_cells_per_s = 1000;
  s.decrease_factor = 0.5;
  s.decrease_interval = 2000ms;
  s.probe_min_ms = 20;
  return s;
}

HealthSample Clear() {
  ServerHealth h;
  h.server = "rs1";
  h.call_queue_length = 0;
  h.call_queue_time_ms = 1;
  h.blocked_updates = 0;
  h.compaction_queue_length = 0;
  h.gc_pause_ms_per_s = 5;
  HealthSample s;
  s.servers = {h};
  s.probe_p99_ms = 2;
  return s;
}

HealthSample CallQueue(double length) {
  HealthSample s = Clear();
  s.servers[0].call_queue_length = length;
  return s;
}

// One sample a second, with the workers taking `taken` cells in between.
void Tick(Throttler& t, FakeClock& clock, const HealthSample& sample, int64_t taken = 1'000'000) {
  clock.Advance(1000ms);
  if (taken > 0) t.Acquire(taken, [] { return true; });  // taken, not waited for
  t.Observe(sample);
}

TEST(Throttler, StartsAtTheInitialRateOpening) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  EXPECT_EQ(t.State().cells_per_s, 10000);
  EXPECT_EQ(t.State().reason, "opening");
}

TEST(Throttler, BacksOffMultiplicativelyOnASignalAndSaysWhy) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  Tick(t, clock, CallQueue(37));
  EXPECT_EQ(t.State().cells_per_s, 5000);
  EXPECT_EQ(t.State().reason, "call queue on rs1: 37 > 10");
}

TEST(Throttler, DecreasesAtMostOncePerInterval) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  Tick(t, clock, CallQueue(37));
  Tick(t, clock, CallQueue(30));  // 1 s later: the servers have not seen the lower rate yet
  EXPECT_EQ(t.State().cells_per_s, 5000);
  EXPECT_EQ(t.State().reason, "call queue on rs1: 30 > 10");
  Tick(t, clock, CallQueue(30));  // 2 s after the decrease
  EXPECT_EQ(t.State().cells_per_s, 2500);
}

TEST(Throttler, RecoversAdditivelyWhenAllIsClear) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  Tick(t, clock, CallQueue(50));
  ASSERT_EQ(t.State().cells_per_s, 5000);
  for (int i = 0; i < 3; ++i) Tick(t, clock, Clear());
  EXPECT_EQ(t.State().cells_per_s, 8000);
  EXPECT_EQ(t.State().reason, "opening");
}

TEST(Throttler, NeverFallsBelowTheFloor) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  for (int i = 0; i < 40; ++i) Tick(t, clock, CallQueue(100));
  EXPECT_EQ(t.State().cells_per_s, 500);
  EXPECT_EQ(t.State().reason, "floor: call queue on rs1: 100 > 10");
  // The floor still lets cells through.
  EXPECT_TRUE(t.Acquire(100, [] { return false; }));
}

TEST(Throttler, NeverRisesAboveTheCeiling) {
  FakeClock clock;
  Throttler t(Settings(), 12000, clock.Time());
  for (int i = 0; i < 10; ++i) Tick(t, clock, Clear());
  EXPECT_EQ(t.State().cells_per_s, 12000);
  EXPECT_EQ(t.State().reason, "ceiling");
  // A signal backs off from the ceiling, not from what AIMD would have opened to beyond it.
  Tick(t, clock, CallQueue(11));
  EXPECT_EQ(t.State().cells_per_s, 6000);
}

TEST(Throttler, ACeilingBelowTheInitialRateIsTheRate) {
  FakeClock clock;
  Throttler t(Settings(), 2000, clock.Time());
  EXPECT_EQ(t.State().cells_per_s, 2000);
  EXPECT_EQ(t.State().reason, "ceiling");
}

TEST(Throttler, HoldsOnMissingData) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  Tick(t, clock, CallQueue(50));
  ASSERT_EQ(t.State().cells_per_s, 5000);
  clock.Advance(1000ms);
  t.ObserveMissing("rs1: connection refused");
  EXPECT_EQ(t.State().cells_per_s, 5000);
  EXPECT_EQ(t.State().reason, "holding: no health sample (rs1: connection refused)");
  Tick(t, clock, HealthSample{});  // a sample in which nothing could be read
  EXPECT_EQ(t.State().cells_per_s, 5000);
  EXPECT_EQ(t.State().reason, "holding: no health signal");
}

TEST(Throttler, UnreadFieldsAreNoSignal) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  HealthSample partial;
  partial.servers = {ServerHealth()};
  partial.servers[0].server = "rs1";
  partial.servers[0].call_queue_length = 0;  // only this one read
  Tick(t, clock, partial);
  EXPECT_EQ(t.State().cells_per_s, 11000);
}

TEST(Throttler, EverySignalBacksOff) {
  struct Case {
    const char* name;
    std::function<void(HealthSample&)> make;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"queue time", [](HealthSample& s) { s.servers[0].call_queue_time_ms = 85; },
       "call queue time on rs1: 85 ms > 20 ms"},
      {"blocked", [](HealthSample& s) { s.servers[0].blocked_updates = 3; },
       "blocked updates on rs1: 3 > 0"},
      {"memstore", [](HealthSample& s) { s.servers[0].memstore_pressure = 0.95; },
       "memstore pressure on rs1: 0.95 > 0.9"},
      {"compaction", [](HealthSample& s) { s.servers[0].compaction_queue_length = 25; },
       "compaction queue on rs1: 25 > 20"},
      {"gc", [](HealthSample& s) { s.servers[0].gc_pause_ms_per_s = 300; },
       "GC pauses on rs1: 300 ms/s > 50 ms/s"},
      {"probe", [](HealthSample& s) { s.probe_p99_ms = 85; }, "probe p99 85 ms > 20 ms"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeClock clock;
    Throttler t(Settings(), 0, clock.Time());
    HealthSample sample = Clear();
    c.make(sample);
    Tick(t, clock, sample);
    EXPECT_EQ(t.State().cells_per_s, 5000);
    EXPECT_EQ(t.State().reason, c.reason);
  }
}

TEST(Throttler, TheSecondServerIsWatchedToo) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  HealthSample s = Clear();
  ServerHealth rs2 = s.servers[0];
  rs2.server = "rs2:16020";
  rs2.compaction_queue_length = 40;
  s.servers.push_back(rs2);
  Tick(t, clock, s);
  EXPECT_EQ(t.State().reason, "compaction queue on rs2:16020: 40 > 20");
}

TEST(Throttler, ProbeThresholdFollowsTheBaseline) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  HealthSample s = Clear();
  s.probe_p99_ms = 15;  // the lowest seen: from now on the threshold is max(20, 3 x 15) = 45 ms
  Tick(t, clock, s);
  EXPECT_EQ(t.State().cells_per_s, 11000);
  s.probe_p99_ms = 40;
  Tick(t, clock, s);
  EXPECT_EQ(t.State().cells_per_s, 12000);
  s.probe_p99_ms = 50;
  Tick(t, clock, s);
  EXPECT_EQ(t.State().cells_per_s, 6000);
  EXPECT_EQ(t.State().reason, "probe p99 50 ms > 45 ms");
}

TEST(Throttler, ASlowClusterIsItsOwnBaseline) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  HealthSample s = Clear();
  s.probe_p99_ms = 60;  // over the 20 ms of the first sample: one back-off
  Tick(t, clock, s);
  EXPECT_EQ(t.State().cells_per_s, 5000);
  for (int i = 0; i < 2; ++i) Tick(t, clock, s);  // then 60 ms is this cluster's normal
  EXPECT_EQ(t.State().cells_per_s, 7000);
}

TEST(Throttler, DoesNotOpenBeyondTwiceWhatTheWorkersTake) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  Tick(t, clock, Clear(), 4000);  // the first sample has nothing to compare with: opens
  ASSERT_EQ(t.State().cells_per_s, 11000);
  for (int i = 0; i < 5; ++i) Tick(t, clock, Clear(), 4000);
  EXPECT_EQ(t.State().cells_per_s, 11000);
  EXPECT_EQ(t.State().reason, "open: the workers take 4000 cells/s");
  for (int i = 0; i < 3; ++i) Tick(t, clock, Clear(), 9000);
  EXPECT_EQ(t.State().cells_per_s, 14000);
}

TEST(Throttler, OffMeansTheCeilingAlone) {
  FakeClock clock;
  ThrottleSettings off = Settings();
  off.enabled = false;
  Throttler t(off, 3000, clock.Time());
  Tick(t, clock, CallQueue(100));
  EXPECT_EQ(t.State().cells_per_s, 3000);
  EXPECT_EQ(t.State().reason, "off (ceiling)");
  Throttler unlimited(off, 0, clock.Time());
  EXPECT_EQ(unlimited.State().cells_per_s, 0);
  EXPECT_EQ(unlimited.State().reason, "unlimited");
  EXPECT_TRUE(unlimited.Acquire(1'000'000'000));
  EXPECT_EQ(unlimited.RatePerWorker(4), 0);
}

TEST(Throttler, BucketPacesAtTheRate) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  // The burst (one second at 10000 cells/s) goes at once, the next 20000 cells take 2 s.
  ASSERT_TRUE(t.Acquire(10000));
  EXPECT_EQ(clock.slept, 0);
  ASSERT_TRUE(t.Acquire(20000));
  EXPECT_NEAR(clock.slept.load(), 2'000'000, 1000);
}

TEST(Throttler, BucketFollowsABackOff) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  ASSERT_TRUE(t.Acquire(10000));
  clock.Advance(1000ms);
  t.Observe(CallQueue(99));  // 5000 cells/s now
  ASSERT_TRUE(t.Acquire(5000));
  const int64_t before = clock.slept;
  ASSERT_TRUE(t.Acquire(10000));
  EXPECT_NEAR(clock.slept.load() - before, 2'000'000, 1000);
}

TEST(Throttler, AcquireGivesUpWhenInterrupted) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  int asked = 0;
  // A debt of 100 s at 10000 cells/s: the stop is seen within a slice of waiting.
  EXPECT_FALSE(t.Acquire(1'010'000, [&] { return ++asked > 3; }));
  EXPECT_LE(clock.slept.load(), 4 * 50'000);
}

TEST(Throttler, RatePerWorkerSharesTheRate) {
  FakeClock clock;
  Throttler t(Settings(), 0, clock.Time());
  EXPECT_EQ(t.RatePerWorker(4), 2500);
  EXPECT_EQ(t.RatePerWorker(0), 10000);
}

TEST(Throttler, WorkersOnRealThreadsAreReleasedByAStop) {
  ThrottleSettings s = Settings();
  s.initial_cells_per_s = 500;  // the floor: a debt of 2000 cells is 4 s
  Throttler t(s, 0);
  std::atomic<bool> stop{false};
  std::atomic<int> gave_up{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      if (!t.Acquire(2000, [&] { return stop.load(); })) gave_up++;
    });
  }
  stop = true;
  for (auto& w : workers) w.join();
  // The burst (500 cells) covers none of them: every one gave up instead of waiting 4 s.
  EXPECT_EQ(gave_up.load(), 3);
}

}  // namespace
}  // namespace presplit::daemon::migrate
