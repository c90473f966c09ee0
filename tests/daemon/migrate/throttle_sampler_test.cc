// The throttle's health samples: ClusterHealth's JSON into signals (running totals into
// per-interval values), and the sampler that feeds the throttler and pushes its rate into the
// bridge's gate, over a fake source and a bridge that records the gate.
#include "daemon/migrate/throttle_sampler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/daemon/migrate/fake_migration_bridge.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const auto kT0 = std::chrono::steady_clock::time_point(100s);

std::string Server(const std::string& name, double blocked, double gc_ms) {
  return json{{"server", name},
              {"call_queue_length", 3},
              {"queue_call_time_p99_ms", 4.5},
              {"blocked_requests", blocked},
              {"updates_blocked_ms", 0},
              {"compaction_queue_length", 1},
              {"gc_time_ms", gc_ms},
              {"memstore_bytes", 300},
              {"memstore_limit_bytes", 1000}}
      .dump();
}

TEST(ParseClusterHealth, ReadsEverySignalAndTurnsTotalsIntoIntervals) {
  std::map<std::string, HealthTotals> totals;
  std::vector<std::string> problems;
  auto first = ParseClusterHealth(
      R"({"servers":[)" + Server("rs1:16020", 10, 1000) + R"(],"probes_ms":[3,9,5]})", totals, kT0,
      problems);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->servers.size(), 1u);
  const ServerHealth& h = first->servers[0];
  EXPECT_EQ(h.server, "rs1:16020");
  EXPECT_EQ(h.call_queue_length, 3);
  EXPECT_EQ(h.call_queue_time_ms, 4.5);
  EXPECT_EQ(h.compaction_queue_length, 1);
  EXPECT_DOUBLE_EQ(*h.memstore_pressure, 0.3);
  EXPECT_FALSE(h.blocked_updates) << "no interval yet";
  EXPECT_FALSE(h.gc_pause_ms_per_s);
  EXPECT_EQ(first->probe_p99_ms, 9);
  EXPECT_TRUE(problems.empty());

  auto second = ParseClusterHealth(R"({"servers":[)" + Server("rs1:16020", 13, 1400) + "]}", totals,
                                   kT0 + 2s, problems);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->servers[0].blocked_updates, 3);
  EXPECT_DOUBLE_EQ(*second->servers[0].gc_pause_ms_per_s, 200);
  EXPECT_FALSE(second->probe_p99_ms);

  // A total that went down: the server restarted; no interval value, a new start.
  auto third = ParseClusterHealth(R"({"servers":[)" + Server("rs1:16020", 1, 10) + "]}", totals,
                                  kT0 + 3s, problems);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->servers[0].blocked_updates);
  EXPECT_FALSE(third->servers[0].gc_pause_ms_per_s);
}

TEST(ParseClusterHealth, AServerThatCouldNotBeReadIsAProblemNotASignal) {
  std::map<std::string, HealthTotals> totals;
  std::vector<std::string> problems;
  auto sample = ParseClusterHealth(
      R"({"servers":[{"server":"rs2:16020","error":"HTTP 401 for Hadoop:..."},)" +
          Server("rs1:16020", 0, 0) + R"(],"probes_ms":[2],"probe_errors":1})",
      totals, kT0, problems);
  ASSERT_TRUE(sample.ok());
  ASSERT_EQ(sample->servers.size(), 1u);
  EXPECT_EQ(sample->servers[0].server, "rs1:16020");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "rs2:16020: HTTP 401 for Hadoop:...");
  EXPECT_EQ(problems[1], "1 of 1 probe reads failed");
}

TEST(ParseClusterHealth, NothingReadIsNoSampleAndGarbageIsRefused) {
  std::map<std::string, HealthTotals> totals;
  std::vector<std::string> problems;
  auto none = ParseClusterHealth(R"({"servers":[{"server":"rs1","error":"refused"}]})", totals, kT0,
                                 problems);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "no server could be read (rs1: refused)");
  for (const char* bad : {"", "[]", R"({"servers":3})", R"({"servers":[{"name":1}]})"}) {
    auto parsed = ParseClusterHealth(bad, totals, kT0, problems);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

// The gate as the bridge's JVM would hold it: its rate, and the cells the readers took.
class GateBridge : public presplit::daemon::testing::FakeMigrationBridge {
 public:
  Result<int64_t> SetThrottle(const std::vector<std::string>& tables,
                              int64_t cells_per_s) override {
    gate_tables = tables;
    rates.push_back(cells_per_s);
    const int64_t taken = pending_taken;
    pending_taken = 0;
    return taken;
  }
  std::vector<std::string> gate_tables;
  std::vector<int64_t> rates;
  int64_t pending_taken = 0;
};

class ScriptedSource : public HealthSource {
 public:
  Result<HealthSample> Sample(std::vector<std::string>& problems) override {
    for (const auto& p : problems_each_time) problems.push_back(p);
    if (!next.ok()) return next.status();
    return *next;
  }
  Result<HealthSample> next = Status::Unavailable("nothing yet");
  std::vector<std::string> problems_each_time;
};

// A server of which only the call queue was read.
ServerHealth QueueOf(const std::string& server, double queue) {
  ServerHealth h;
  h.server = server;
  h.call_queue_length = queue;
  return h;
}

HealthSample Busy() {
  HealthSample s;
  s.servers = {QueueOf("rs1", 50)};
  return s;
}

TEST(ThrottleSampler, PushesTheRateIntoTheGateBacksOffAndRemovesTheGateAtTheEnd) {
  GateBridge bridge;
  ScriptedSource source;
  Throttler throttler(ThrottleSettings{}, 0);
  {
    ThrottleSampler sampler(throttler, source, bridge, {"ns:t", "ns:t__g2"}, "ns:t");
    EXPECT_EQ(bridge.gate_tables, (std::vector<std::string>{"ns:t", "ns:t__g2"}));
    ASSERT_EQ(bridge.rates.back(), 5000) << "the gate holds the starting rate at once";
    source.next = Busy();
    sampler.Tick();
    EXPECT_EQ(bridge.rates.back(), 2500);
    EXPECT_EQ(throttler.State().reason, "call queue on rs1: 50 > 10");
  }
  EXPECT_EQ(bridge.rates.back(), -1) << "the gate is removed when the phase ends";
}

TEST(ThrottleSampler, AMissingSampleHoldsTheRateAndIsLoggedOnce) {
  GateBridge bridge;
  ScriptedSource source;
  source.problems_each_time = {"rs2: HTTP 401"};
  Throttler throttler(ThrottleSettings{}, 0);
  ThrottleSampler sampler(throttler, source, bridge, {"ns:t", "ns:t__g2"}, "ns:t");
  LogCapture log;
  source.next = Status::Unavailable("no server could be read");
  sampler.Tick();
  sampler.Tick();
  EXPECT_EQ(throttler.State().cells_per_s, 5000);
  EXPECT_EQ(throttler.State().reason, "holding: no health sample (no server could be read)");
  EXPECT_EQ(log.Count("rs2: HTTP 401"), 1) << log.Text();
  EXPECT_EQ(log.Count("no health sample: no server could be read"), 1) << log.Text();
}

TEST(ThrottleSampler, TheCellsTakenInTheGateLetTheRateOpen) {
  GateBridge bridge;
  ScriptedSource source;
  HealthSample clear;
  clear.servers = {QueueOf("rs1", 0)};
  source.next = clear;
  Throttler throttler(ThrottleSettings{}, 0);
  ThrottleSampler sampler(throttler, source, bridge, {"ns:t", "ns:t__g2"}, "ns:t");
  sampler.Tick();  // the first step opens (nothing to compare with)
  ASSERT_EQ(throttler.State().cells_per_s, 6000);
  // Nothing taken through the gate: the rate does not open further.
  sampler.Tick();
  EXPECT_EQ(throttler.State().cells_per_s, 6000);
  EXPECT_EQ(throttler.State().reason.rfind("open: the workers take", 0), 0u)
      << throttler.State().reason;
  // The readers took a lot: it opens.
  bridge.pending_taken = 1'000'000;
  sampler.Tick();
  EXPECT_EQ(throttler.State().cells_per_s, 7000);
}

TEST(ThrottleSampler, OpenSetsTheGateOpenForGood) {
  GateBridge bridge;
  ScriptedSource source;
  source.next = Busy();
  Throttler throttler(ThrottleSettings{}, 0);
  ThrottleSampler sampler(throttler, source, bridge, {"ns:t", "ns:t__g2"}, "ns:t");
  sampler.Open();
  EXPECT_EQ(bridge.rates.back(), 0);
  sampler.Tick();
  EXPECT_EQ(bridge.rates.back(), 0) << "a halted migration's gate stays open";
}

TEST(ThrottleSampler, TheThreadSamplesUntilStopped) {
  GateBridge bridge;
  ScriptedSource source;
  source.next = Busy();
  ThrottleSettings settings;
  settings.decrease_interval = 0ms;
  Throttler throttler(settings, 0);
  ThrottleSampler sampler(throttler, source, bridge, {"ns:t", "ns:t__g2"}, "ns:t");
  std::atomic<int> ticks{0};
  sampler.Start(1ms, [&] { ticks++; });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (ticks < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  sampler.Stop();
  EXPECT_GE(ticks.load(), 3);
  EXPECT_LT(throttler.State().cells_per_s, 5000);
  EXPECT_EQ(bridge.rates.back(), -1);
}

}  // namespace
}  // namespace presplit::daemon::migrate
