// The load watcher at cluster scale (issue 9): a synthetic RegionLoadSource with T tables and R
// regions in all reports every region each poll, with counters that advance like a live
// cluster's (a few hot regions, one region moving to another server now and then). The
// LoadWatcher polls it as presplitd does: tracker update, scoring every table, planning. Reports
// CPU per poll (this process's user + system time, so the source's own work is included and the
// figure is an upper bound), the share of one core at the daemon's poll interval, and the
// resident memory after the run. The synthetic source's own work (advancing the counters and
// copying the reports, which stands in for parsing AdminBridge's JSON) is timed with the rest.
//
//   watch_bench [--tables T] [--regions R] [--polls P] [--interval-s S]
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/watch/load_watcher.h"

namespace {

using presplit::Result;
using presplit::Status;
using presplit::daemon::RegionLoadReport;
using presplit::daemon::RegionLoadSource;
using namespace presplit::daemon::watch;

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec / 1e6;
}

long ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

class SyntheticCluster : public RegionLoadSource {
 public:
  SyntheticCluster(int tables, int regions) : tables_(tables) {
    reports_.reserve(regions);
    for (int i = 0; i < regions; ++i) {
      RegionLoadReport r;
      const int table = i % tables;
      r.table = "ns" + std::to_string(table % 20) + ":table" + std::to_string(table);
      r.region = "region" + std::to_string(i) + "0123456789abcdef0123456789";
      char key[16];
      std::snprintf(key, sizeof key, "%08d", i / tables);
      r.start_key = key;
      r.server = "rs" + std::to_string(i % 50) + ".example,16020,1700000000000";
      r.store_file_bytes = 1LL << 30;
      r.store_files = 3;
      r.locality = 1;
      reports_.push_back(std::move(r));
    }
  }

  Result<std::vector<RegionLoadReport>> RegionLoads(const std::vector<std::string>&) override {
    ++poll_;
    time_ms_ += 3000;
    for (size_t i = 0; i < reports_.size(); ++i) {
      RegionLoadReport& r = reports_[i];
      r.report_time_ms = time_ms_;
      // One region of every twentieth table is hot; every region has some load.
      const bool hot = static_cast<int>(i) / tables_ == 7 && (i % tables_) % 20 == 0;
      const int64_t rate = hot ? 20000 : 100 + static_cast<int64_t>(i % 13) * 10;
      r.write_requests += rate * 3;
      r.read_requests += rate;
      // Now and then a region moves: its counters restart on the new server.
      if ((i + poll_) % 5000 == 0) {
        r.server = "moved" + std::to_string(poll_) + ".example,16020,1";
        r.read_requests = r.write_requests = 0;
      }
    }
    return reports_;
  }
  Status SplitRegion(const std::string&) override { return Status::Ok(); }
  int64_t now() const { return time_ms_; }

 private:
  const int tables_;
  std::vector<RegionLoadReport> reports_;
  int64_t time_ms_ = 1'700'000'000'000;
  int poll_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int tables = 2000, regions = 100000, polls = 20;
  double interval_s = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--tables")
      tables = std::atoi(argv[i + 1]);
    else if (flag == "--regions")
      regions = std::atoi(argv[i + 1]);
    else if (flag == "--polls")
      polls = std::atoi(argv[i + 1]);
    else if (flag == "--interval-s")
      interval_s = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: watch_bench [--tables T] [--regions R] [--polls P] [--interval-s S]\n");
      return 2;
    }
  }
  if (tables < 1 || regions < tables || polls < 2 || interval_s <= 0) {
    std::fprintf(stderr,
                 "watch_bench: need tables >= 1, regions >= tables, polls >= 2, interval > 0\n");
    return 2;
  }
  spdlog::set_level(spdlog::level::warn);  // one decision line per hot region would swamp it
  SyntheticCluster cluster(tables, regions);
  LoadWatcherOptions options;
  LoadWatcher watcher(cluster, options, [&cluster] { return cluster.now(); });
  std::vector<WatchedTable> watched;
  LoadSplitSettings settings;
  settings.enabled = true;
  settings.dry_run = true;
  settings.max_regions = 10000;
  settings.rule.sustain_ms = 6000;
  for (int t = 0; t < tables; ++t) {
    WatchedTable table;
    table.table = "ns" + std::to_string(t % 20) + ":table" + std::to_string(t);
    table.physical_table = table.table;
    table.settings = settings;
    watched.push_back(std::move(table));
  }
  watcher.SetTables(std::move(watched));

  // The first polls fill the histories; measure the steady state after them.
  for (int i = 0; i < 3; ++i) {
    if (!watcher.Poll().ok()) return 1;
  }
  const double cpu_before = CpuSeconds();
  const auto wall_before = std::chrono::steady_clock::now();
  for (int i = 0; i < polls; ++i) {
    if (!watcher.Poll().ok()) return 1;
  }
  const double cpu = (CpuSeconds() - cpu_before) / polls;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count() / polls;
  const LoadSnapshot snapshot = watcher.snapshot();
  int hot = 0, scored = 0;
  for (const auto& t : snapshot.tables) {
    hot += t.hot_regions;
    scored += t.region_count;
  }
  // The result must be right before its cost means anything: every region scored, and the hot
  // ones (one in each twentieth table, minus any that just moved) found.
  if (static_cast<int>(snapshot.tables.size()) != tables || scored != regions || hot == 0) {
    std::fprintf(stderr, "watch_bench: wrong result: %zu tables, %d regions scored, %d hot\n",
                 snapshot.tables.size(), scored, hot);
    return 1;
  }
  std::printf("watcher at scale: %d tables, %d regions, %d polls\n", tables, regions, polls);
  std::printf(
      "  CPU per poll %.1f ms (wall %.1f ms); at a %.0f s interval %.2f%% of one core "
      "(target <= 5%%)\n",
      cpu * 1e3, wall * 1e3, interval_s, 100 * cpu / interval_s);
  std::printf("  resident memory %.1f MiB; %d hot regions found, %lld dry-run decisions\n",
              ResidentKiB() / 1024.0, hot,
              static_cast<long long>(
                  snapshot.skips_total.count("dry_run") ? snapshot.skips_total.at("dry_run") : 0));
  return 0;
}
