// The key visualizer's history at cluster scale (issue 26): presplitd's LoadHistory fed 2,000
// tables and 100,000 regions (salted keys of 20 bytes; one table of 1,000 regions, the others
// of about 50) on a fake clock until both tiers are full, then measured over a stretch of polls
// at the daemon's interval.
//
// Filling 4 days at 10 s would be 34,560 polls of 100,000 regions. The history keeps one column
// per fine resolution whatever the poll interval, so the fill feeds everything older than the
// measured stretch at one poll per fine resolution (60 s: 6 times fewer Record calls, the same
// columns, merged into the coarse tier by the same code), and the last `--measure-polls` at
// `--interval-s`. Nothing is fed to a tier directly.
//
// Reports: MemoryBytes and the resident memory the history added (VmRSS after the fill minus
// before the first Record, the samples already built), the CPU of one Record call (this
// thread's CPU time, mean and max over the measured stretch) and of building the poll's samples
// (a deep copy, as the runner copies them from the load watcher's snapshot), their share of one
// core at the interval, and the time of one Read of the 1,000-region table over 6 hours.
//
//   keyviz_history_bench [--tables T] [--regions R] [--interval-s S] [--measure-polls P]
//                [--fine-resolution-s S] [--fine-retention-h H] [--coarse-resolution-s S]
//                [--coarse-retention-h H] [--budget-mb M]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/keyviz/load_history.h"

namespace {

using namespace presplit::daemon::keyviz;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

long ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// A salted key of 20 bytes: a one-byte salt, then "user" and 15 digits.
std::string Key(int salt, long n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%cuser%015ld", static_cast<char>(salt), n);
  return std::string(buf, 20);
}

}  // namespace

int main(int argc, char** argv) {
  int tables = 2000, regions = 100000, interval_s = 10, measure_polls = 360;
  int fine_res_s = 60, fine_ret_h = 2, coarse_res_s = 1800, coarse_ret_h = 96, budget_mb = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--tables")
      tables = v;
    else if (flag == "--regions")
      regions = v;
    else if (flag == "--interval-s")
      interval_s = v;
    else if (flag == "--measure-polls")
      measure_polls = v;
    else if (flag == "--fine-resolution-s")
      fine_res_s = v;
    else if (flag == "--fine-retention-h")
      fine_ret_h = v;
    else if (flag == "--coarse-resolution-s")
      coarse_res_s = v;
    else if (flag == "--coarse-retention-h")
      coarse_ret_h = v;
    else if (flag == "--budget-mb")
      budget_mb = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  LoadHistoryOptions options;
  options.fine = {int64_t{fine_res_s} * 1000, int64_t{fine_ret_h} * 3'600'000};
  options.coarse = {int64_t{coarse_res_s} * 1000, int64_t{coarse_ret_h} * 3'600'000};
  options.memory_budget_bytes = size_t(budget_mb) << 20;
  if (auto s = CheckLoadHistoryOptions(options); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 2;
  }

  // The tables: the first has 1,000 regions (the Read), the others share the rest.
  std::vector<TableSample> samples(tables);
  const int big = std::min(1000, regions);
  for (int t = 0; t < tables; ++t) {
    TableSample& s = samples[t];
    s.table = "ns" + std::to_string(t % 20) + ":table" + std::to_string(t);
    s.physical_table = s.table;
    s.layout.buckets = 16;
    s.layout.salt_width = 1;
    const int n =
        t == 0 ? big : (regions - big) / (tables - 1) + (t - 1 < (regions - big) % (tables - 1));
    for (int r = 0; r < n; ++r) {
      TableSample::Region region;
      region.start_key = r == 0 ? "" : Key(r * 16 / n, r);
      region.end_key = r + 1 == n ? "" : Key((r + 1) * 16 / n, r + 1);
      region.has_rate = true;
      region.size_bytes = int64_t{1} << 30;
      s.regions.push_back(std::move(region));
    }
  }
  uint32_t rng = 12345;
  auto vary = [&] {
    for (auto& s : samples) {
      for (auto& r : s.regions) {
        rng = rng * 1664525u + 1013904223u;
        r.read_per_s = (rng >> 20) % 2000;
        r.write_per_s = (rng >> 8) % 500;
        r.size_bytes += (rng >> 28);
      }
    }
  };

  const long rss_before = ResidentKiB();
  LoadHistory history(options);
  const int64_t start = int64_t{1'800'000'000'000};  // a fixed day, any will do
  const int64_t total = options.coarse.retention_ms;
  const int64_t measured = int64_t{measure_polls} * interval_s * 1000;
  int64_t now = start;
  const auto fill_started = std::chrono::steady_clock::now();
  int fill_polls = 0;
  for (; now < start + total - measured; now += options.fine.resolution_ms, ++fill_polls) {
    if (fill_polls % 60 == 0) vary();
    history.Record(now, samples);
  }
  const double fill_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - fill_started).count();

  double record_cpu = 0, record_max = 0, copy_cpu = 0;
  size_t dropped = 0;
  for (int p = 0; p < measure_polls; ++p, now += int64_t{interval_s} * 1000) {
    vary();
    double c0 = ThreadCpuSeconds();
    std::vector<TableSample> copy = samples;  // the runner's conversion from the snapshot
    double c1 = ThreadCpuSeconds();
    auto result = history.Record(now, copy);
    double c2 = ThreadCpuSeconds();
    dropped += result.columns_dropped_by_budget;
    copy_cpu += c1 - c0;
    record_cpu += c2 - c1;
    record_max = std::max(record_max, c2 - c1);
  }
  const long rss_after = ResidentKiB();

  // Read: the 1,000-region table over the last 6 hours.
  const int reads = 20;
  size_t columns_read = 0;
  const auto r0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reads; ++i) {
    auto w = history.Read(samples[0].table, now - 6 * 3'600'000, now);
    if (!w.ok()) {
      std::fprintf(stderr, "read failed: %s\n", w.status().ToString().c_str());
      return 1;
    }
    columns_read = w->columns.size();
  }
  const double read_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count() /
      reads;
  // The first table's oldest column: is the coarse tier full?
  auto all = history.Read(samples[0].table, 0, now);
  const double covered_h =
      all.ok() && !all->columns.empty() ? (now - all->columns.front().start_ms) / 3.6e6 : 0;

  const double per_poll = record_cpu / measure_polls;
  const double copy_per_poll = copy_cpu / measure_polls;
  std::printf("tables %d, regions %d, tiers %d s for %d h + %d s for %d h, budget %d MiB\n", tables,
              regions, fine_res_s, fine_ret_h, coarse_res_s, coarse_ret_h, budget_mb);
  std::printf("fill: %d polls at %d s (%.0f s wall), then %d polls at %d s measured\n", fill_polls,
              fine_res_s, fill_s, measure_polls, interval_s);
  std::printf("history covers %.1f h; columns %zu (table 0: %zu); dropped by budget %zu\n",
              covered_h, history.Columns(), all.ok() ? all->columns.size() : 0,
              static_cast<size_t>(history.counters().columns_dropped_by_budget));
  std::printf("memory: MemoryBytes %.1f MiB, resident added %.1f MiB\n",
              history.MemoryBytes() / 1048576.0, (rss_after - rss_before) / 1024.0);
  std::printf("Record: %.1f ms CPU per poll (max %.1f ms), %.2f%% of one core at %d s\n",
              per_poll * 1e3, record_max * 1e3, 100 * per_poll / interval_s, interval_s);
  std::printf("samples' copy: %.1f ms CPU per poll; with it %.2f%% of one core\n",
              copy_per_poll * 1e3, 100 * (per_poll + copy_per_poll) / interval_s);
  std::printf("Read: table of %zu regions over 6 h: %zu columns in %.2f ms\n",
              samples[0].regions.size(), columns_read, read_ms);
  (void)dropped;
  return 0;
}
