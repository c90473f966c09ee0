// Moving a load split's hotter daughter off its sibling's server (load_split.move_daughters):
// through the LoadWatcher over a small cluster in memory whose regions split and move as HBase's
// would, and the DaughterMover's cap on its own.
#include "daemon/watch/daughter_mover.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "daemon/watch/load_report.h"
#include "daemon/watch/load_watcher.h"

namespace presplit::daemon::watch {
namespace {

constexpr const char* kTable = "default:t";
constexpr const char* kRs1 = "rs1,16020,1";
constexpr const char* kRs2 = "rs2,16020,2";
constexpr const char* kRs3 = "rs3,16020,3";

// Three servers, one table. Each region has a request rate the test sets; every Advance is one
// round of RegionServer reports 3 s later. A region split or moved starts its counters at 0 on
// its (new) server, as HBase's do.
class FakeCluster : public RegionLoadSource {
 public:
  struct Region {
    std::string name, start, end, server;
    int64_t rate = 0;      // requests per second from now on
    int64_t requests = 0;  // cumulative on its server
  };

  FakeCluster() {
    regions = {{"r0", "", "1", kRs1, 500},
               {"r1", "1", "2", kRs1, 500},
               {"r2", "2", "3", kRs2, 9000},
               {"r3", "3", "", kRs3, 400}};
  }

  Result<std::vector<RegionLoadReport>> RegionLoads(const std::vector<std::string>&) override {
    std::vector<RegionLoadReport> out;
    for (const auto& r : regions) {
      RegionLoadReport report;
      report.table = kTable;
      report.region = r.name;
      report.start_key = r.start;
      report.end_key = r.end;
      report.server = r.server;
      report.report_time_ms = time_ms;
      report.read_requests = r.requests;
      out.push_back(report);
    }
    return out;
  }
  std::vector<std::string> LiveServers() override { return {kRs1, kRs2, kRs3}; }
  Status SplitRegion(const std::string& region) override {
    split_requests.push_back(region);
    return Status::Ok();
  }
  Status MoveRegion(const std::string& region, const std::string& server) override {
    move_requests.emplace_back(region, server);
    if (!move_status.ok()) return move_status;
    Move(region, server);
    return Status::Ok();
  }

  void Advance() {
    time_ms += 3000;
    for (auto& r : regions) r.requests += r.rate * 3;
  }
  Region& Find(const std::string& name) {
    return *std::find_if(regions.begin(), regions.end(),
                         [&](const Region& r) { return r.name == name; });
  }
  // HBase splits `parent` at `key`: both daughters open on the parent's server.
  void Split(const std::string& parent, const std::string& key, int64_t low_rate,
             int64_t high_rate) {
    auto it = std::find_if(regions.begin(), regions.end(),
                           [&](const Region& r) { return r.name == parent; });
    Region low{parent + "a", it->start, key, it->server, low_rate};
    Region high{parent + "b", key, it->end, it->server, high_rate};
    it = regions.erase(it);
    it = regions.insert(it, high);
    regions.insert(it, low);
  }
  // The region opens on `server` (by presplitd, or by the balancer): its counters restart.
  void Move(const std::string& region, const std::string& server) {
    Region& r = Find(region);
    r.server = server;
    r.requests = 0;
  }

  std::vector<Region> regions;
  std::vector<std::string> split_requests;
  std::vector<std::pair<std::string, std::string>> move_requests;
  Status move_status = Status::Ok();
  int64_t time_ms = 1'000'000;
};

LoadSplitSettings MoverSettings(bool move_daughters, bool move_dry_run = false) {
  LoadSplitSettings settings;
  settings.enabled = true;
  settings.dry_run = false;
  settings.max_regions = 16;
  settings.rule.min_requests_per_s = 1000;
  settings.rule.mean_multiple = 2;
  settings.rule.sustain_ms = 9000;
  settings.move_daughters = move_daughters;
  settings.move_after_ms = 30'000;
  settings.move_dry_run = move_dry_run;
  return settings;
}

struct MoverFixture {
  explicit MoverFixture(const LoadSplitSettings& settings, LoadWatcherOptions options = {}) {
    options.may_act = [this] { return leader; };
    watcher = std::make_unique<LoadWatcher>(cluster, options, [this] { return cluster.time_ms; });
    WatchedTable table;
    table.table = kTable;
    table.physical_table = kTable;
    table.settings = settings;
    watcher->SetTables({table});
  }

  void Poll(int rounds = 1) {
    for (int i = 0; i < rounds; ++i) {
      cluster.Advance();
      ASSERT_TRUE(watcher->Poll().ok());
    }
  }
  // r2 is hot until presplitd asks for its split; HBase then splits it, r2a taking 5000/s and
  // r2b 4000/s, both on rs2. Returns the time the split was asked for.
  int64_t SplitTheHotRegion() {
    for (int i = 0; i < 20 && cluster.split_requests.empty(); ++i) Poll();
    EXPECT_EQ(cluster.split_requests, std::vector<std::string>{"r2"});
    const int64_t split_ms = cluster.time_ms;
    cluster.Split("r2", "25", 5000, 4000);
    return split_ms;
  }
  std::vector<SplitDecision> MoveDecisions() const {
    std::vector<SplitDecision> moves;
    const LoadSnapshot snapshot = watcher->snapshot();
    auto decisions = snapshot.decisions.find(kTable);
    if (decisions == snapshot.decisions.end()) return moves;
    for (const auto& d : decisions->second) {
      if (d.is_move()) moves.push_back(d);
    }
    return moves;
  }

  FakeCluster cluster;
  bool leader = true;
  std::unique_ptr<LoadWatcher> watcher;
};

TEST(DaughterMover, MovesTheHotterDaughterToTheLeastLoadedServerAfterTheWindow) {
  std::ostringstream logged;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(logged)));
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  const int64_t split_ms = f.SplitTheHotRegion();
  // Within the window the balancer may still spread them: nothing moves.
  while (f.cluster.time_ms + 3000 < split_ms + 30'000) {
    f.Poll();
    ASSERT_TRUE(f.cluster.move_requests.empty()) << "moved before the window ended";
  }
  f.Poll(2);
  spdlog::set_default_logger(previous);

  // rs2 serves both daughters (9000/s), rs1 1000/s, rs3 400/s: r2a (5000/s) goes to rs3, and
  // the busier of the two servers then serves 5400/s instead of 9000/s.
  ASSERT_EQ(f.cluster.move_requests.size(), 1u);
  EXPECT_EQ(f.cluster.move_requests[0], std::make_pair(std::string("r2a"), std::string(kRs3)));
  const auto moves = f.MoveDecisions();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].action, SplitDecision::Action::kMove);
  EXPECT_EQ(moves[0].reason, "");
  EXPECT_EQ(moves[0].from_server, kRs2);
  EXPECT_EQ(moves[0].to_server, kRs3);
  EXPECT_EQ(moves[0].sibling, "r2b");
  EXPECT_DOUBLE_EQ(moves[0].requests_per_s, 5000);
  EXPECT_DOUBLE_EQ(moves[0].from_server_per_s, 9000);
  EXPECT_DOUBLE_EQ(moves[0].to_server_per_s, 400);
  EXPECT_GE(moves[0].time_ms, split_ms + 30'000);

  const LoadSnapshot snapshot = f.watcher->snapshot();
  EXPECT_EQ(snapshot.moves_total, 1);
  EXPECT_TRUE(snapshot.move_skips_total.empty());
  EXPECT_EQ(snapshot.splits_total, 1);
  metrics::MetricsText metrics;
  AppendLoadMetrics(metrics, snapshot, f.cluster.time_ms);
  EXPECT_NE(metrics.Text().find("presplit_load_moves_total 1\n"), std::string::npos);
  const auto json = DecisionsJson(snapshot.decisions.at(kTable));
  EXPECT_EQ(json.back()["action"], "move");
  EXPECT_EQ(json.back()["to_server"], kRs3);
  EXPECT_EQ(json.back()["from_server"], kRs2);
  EXPECT_NE(logged.str().find("load split move: table default:t region r2a (start 2): 5000 "
                              "requests/s from rs2,16020,2 (9000 requests/s) to rs3,16020,3 (400 "
                              "requests/s): it and its sibling r2b shared a server"),
            std::string::npos)
      << logged.str();

  // The watcher follows the move: r2a on rs3, its counters restarted there, never a negative
  // or a giant rate; once rs3 reported twice, its rate again. And nothing moves a second time.
  for (int i = 0; i < 40; ++i) {
    f.Poll();
    const LoadSnapshot snapshot = f.watcher->snapshot();
    for (const auto& t : snapshot.tables) {
      for (const auto& r : t.regions) {
        if (!r.has_rate) continue;
        EXPECT_GE(r.requests_per_s(), 0) << r.region;
        EXPECT_LE(r.requests_per_s(), 5000) << r.region;
      }
    }
  }
  const LoadSnapshot after = f.watcher->snapshot();
  const auto& regions = after.tables[0].regions;
  const auto r2a = std::find_if(regions.begin(), regions.end(),
                                [](const RegionLoad& r) { return r.region == "r2a"; });
  ASSERT_NE(r2a, regions.end());
  EXPECT_EQ(r2a->server, kRs3);
  EXPECT_TRUE(r2a->has_rate);
  EXPECT_DOUBLE_EQ(r2a->requests_per_s(), 5000);
  EXPECT_EQ(f.cluster.move_requests.size(), 1u);
}

TEST(DaughterMover, NoMoveWhenTheBalancerSpreadTheDaughters) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  f.SplitTheHotRegion();
  f.Poll(3);
  f.cluster.Move("r2b", kRs1);  // the balancer, within the window
  f.Poll(30);
  EXPECT_TRUE(f.cluster.move_requests.empty());
  EXPECT_TRUE(f.MoveDecisions().empty());
  EXPECT_EQ(f.watcher->snapshot().moves_total, 0);
}

TEST(DaughterMover, NoMoveWhenTheDocumentDoesNotAskForIt) {
  MoverFixture f(MoverSettings(/*move_daughters=*/false));
  f.SplitTheHotRegion();
  f.Poll(30);
  EXPECT_TRUE(f.cluster.move_requests.empty());
  EXPECT_TRUE(f.MoveDecisions().empty());
  EXPECT_EQ(f.watcher->snapshot().moves_total, 0);
}

TEST(DaughterMover, NoMoveWhenItWouldNotLowerTheBusierServer) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  f.SplitTheHotRegion();
  // rs1 and rs3 busier than the daughters' server: a move would only make another server the
  // busiest.
  f.cluster.Find("r0").rate = 6000;
  f.cluster.Find("r3").rate = 7000;
  f.Poll(30);
  EXPECT_TRUE(f.cluster.move_requests.empty());
  EXPECT_TRUE(f.MoveDecisions().empty());
}

TEST(DaughterMover, ADryRunRecordsTheMoveOnceAndMovesNothing) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true, /*move_dry_run=*/true));
  f.SplitTheHotRegion();
  f.Poll(30);
  EXPECT_TRUE(f.cluster.move_requests.empty());
  const auto moves = f.MoveDecisions();
  ASSERT_EQ(moves.size(), 1u) << "a would-be move is recorded once, not once a poll";
  EXPECT_EQ(moves[0].action, SplitDecision::Action::kSkip);
  EXPECT_EQ(moves[0].reason, "dry_run");
  EXPECT_EQ(moves[0].region, "r2a");
  EXPECT_EQ(moves[0].to_server, kRs3);
  const LoadSnapshot snapshot = f.watcher->snapshot();
  EXPECT_EQ(snapshot.moves_total, 0);
  EXPECT_EQ(snapshot.move_skips_total.at("dry_run"), 1);
  EXPECT_EQ(snapshot.skips_total.count("dry_run"), 0u) << "not counted as a split's skip";
  metrics::MetricsText metrics;
  AppendLoadMetrics(metrics, snapshot, f.cluster.time_ms);
  EXPECT_NE(metrics.Text().find("presplit_load_move_skips_total{reason=\"dry_run\"} 1\n"),
            std::string::npos);
}

TEST(DaughterMover, ARefusedMoveIsOneLineInTheStatusAndNotRetried) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  f.cluster.move_status = Status::PermissionDenied(
      "move region r2a to rs3,16020,3: HBase denied moving a region of table default:t: "
      "Insufficient permissions (user=presplit/h@R, scope=default:t, action=ADMIN); presplitd's "
      "principal presplit/h@R needs ADMIN on table default:t (hbase shell: grant 'presplit', "
      "'A', 'default:t')\n\tat org.apache.hadoop.hbase.security.access.AccessChecker");
  f.SplitTheHotRegion();
  f.Poll(30);
  ASSERT_EQ(f.cluster.move_requests.size(), 1u) << "asked once, not again every poll";
  const auto moves = f.MoveDecisions();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].action, SplitDecision::Action::kSkip);
  EXPECT_EQ(moves[0].reason, "move_refused");
  EXPECT_EQ(moves[0].error.find('\n'), std::string::npos) << moves[0].error;
  EXPECT_NE(moves[0].error.find("grant 'presplit', 'A', 'default:t'"), std::string::npos);
  const auto json = DecisionsJson(f.watcher->snapshot().decisions.at(kTable));
  EXPECT_EQ(json.back()["reason"], "move_refused");
  EXPECT_EQ(json.back()["error"], moves[0].error);
  EXPECT_EQ(f.watcher->snapshot().move_skips_total.at("move_refused"), 1);
  EXPECT_TRUE(f.watcher->snapshot().last_error.empty()) << "the poll itself did not fail";
}

TEST(DaughterMover, ALeaseLostBeforeTheMoveMovesNothing) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  f.SplitTheHotRegion();
  f.Poll(3);
  f.leader = false;
  f.Poll(30);
  EXPECT_TRUE(f.cluster.move_requests.empty());
  const auto moves = f.MoveDecisions();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].reason, "not_leader");
}

TEST(DaughterMover, AStandbyNeverMoves) {
  MoverFixture f(MoverSettings(/*move_daughters=*/true));
  f.SplitTheHotRegion();
  for (int i = 0; i < 30; ++i) {
    f.cluster.Advance();
    ASSERT_TRUE(f.watcher->Poll(/*plan=*/false).ok());
  }
  EXPECT_TRUE(f.cluster.move_requests.empty());
  EXPECT_TRUE(f.MoveDecisions().empty());
}

// The cap, on the mover itself: at most max_splits moves in any window; the pair over the cap
// is a cluster_rate skip, moved once the window has room (and before it is given up).
TEST(DaughterMover, TheClusterRateCapsMoves) {
  ClusterSplitLimits limits;
  limits.max_splits = 1;
  limits.window_ms = 60'000;
  DaughterMover mover(limits);
  LoadSplitSettings settings = MoverSettings(/*move_daughters=*/true);
  settings.move_after_ms = 0;
  settings.region_cooldown_ms = 600'000;
  const std::map<std::string, const LoadSplitSettings*> settings_of = {{kTable, &settings}};

  auto region = [](const std::string& name, const std::string& start, const std::string& end,
                   const std::string& server, double rate) {
    RegionLoad r;
    r.region = name;
    r.start_key = start;
    r.end_key = end;
    r.server = server;
    r.has_rate = true;
    r.write_per_s = rate;
    return r;
  };
  TableLoad load;
  load.table = kTable;
  load.physical_table = kTable;
  // Two splits' daughters, all four on rs1; rs2 and rs3 idle.
  load.regions = {region("aa", "", "1", kRs1, 3000), region("ab", "1", "2", kRs1, 1000),
                  region("ba", "2", "3", kRs1, 2500), region("bb", "3", "", kRs1, 1500)};
  for (const auto& [parent, start, end] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"a", "", "2"},
                                                                      {"b", "2", ""}}) {
    SplitDecision split;
    split.table = kTable;
    split.physical_table = kTable;
    split.region = parent;
    split.start_key = start;
    split.end_key = end;
    mover.SplitRequested(split, 0);
  }
  const std::vector<std::string> live = {kRs1, kRs2, kRs3};

  auto first = mover.Plan({load}, settings_of, live, 1000);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].action, SplitDecision::Action::kMove);
  EXPECT_EQ(first[0].region, "aa");
  EXPECT_EQ(first[0].to_server, kRs2);
  EXPECT_EQ(first[1].action, SplitDecision::Action::kSkip);
  EXPECT_EQ(first[1].reason, "cluster_rate");
  EXPECT_EQ(first[1].region, "ba");
  // Within the window: nothing new to say.
  EXPECT_TRUE(mover.Plan({load}, settings_of, live, 30'000).empty());
  EXPECT_EQ(mover.pending(), 1u);
  // The window has room again: the second pair moves.
  auto later = mover.Plan({load}, settings_of, live, 61'001);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].action, SplitDecision::Action::kMove);
  EXPECT_EQ(later[0].region, "ba");
  EXPECT_EQ(mover.pending(), 0u);
}

}  // namespace
}  // namespace presplit::daemon::watch
