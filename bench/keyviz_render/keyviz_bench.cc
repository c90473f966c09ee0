// GET /keyviz.json's cost (issue 26): the handler's whole work after the store's Read, i.e. the
// query parsed, the matrix rendered over one key axis, the diagnoses and the JSON written, for a
// synthetic history of a salted table: R regions in B buckets, C one-minute columns (6 h = 360),
// two splits mid-window (three epochs), a hot logical range moving up the key space. Prints the
// median and the slowest wall time and the median CPU time of N answers per view and row count
// (target <= 200 ms for 1,000 regions over 6 h), and checks each answer: the moving hot spot found
// in the logical view.
//
//   keyviz_bench [--regions R] [--buckets B] [--columns C] [--runs N] [--dump FILE]
// --dump writes the 200-row answers to FILE.logical and FILE.physical (samples for the page and
// for tools).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/keyviz/keyviz_query.h"
#include "presplit/layout.h"
#include "presplit/split_algorithms.h"

namespace {

using namespace presplit::daemon::keyviz;

// This thread's CPU time in ms: on a loaded machine wall time also counts the waits for a core.
double CpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

constexpr int64_t kMinute = 60'000;
constexpr int64_t kStart = 1'800'000'000'000;

// Region boundaries: every bucket cut at `per_bucket - 1` nearly evenly spaced two-byte logical
// keys; `extra` more cuts in bucket 0 (the splits of later epochs).
HistoryEpoch Epoch(const presplit::KeyLayout& layout, int per_bucket, int extra) {
  HistoryEpoch epoch;
  epoch.physical_table = "bench:t";
  epoch.layout = layout;
  for (int b = 0; b < layout.buckets; ++b) {
    const std::string salt =
        presplit::SaltPrefix(layout.encoding, layout.buckets, b, layout.salt_width).value();
    std::vector<std::string> keys{b == 0 ? "" : salt};
    const int cuts = per_bucket + (b == 0 ? extra : 0);
    for (int k = 1; k < cuts; ++k) {
      // Each bucket cut a little apart from the others (as load splits leave them): every
      // boundary is a logical cut of its own, the logical view's worst case.
      const int at = (k * 65536 + b * 257) / cuts;
      keys.push_back(salt + std::string{static_cast<char>(at >> 8), static_cast<char>(at & 255)});
    }
    keys.push_back(b + 1 < layout.buckets ? presplit::SaltPrefix(layout.encoding, layout.buckets,
                                                                 b + 1, layout.salt_width)
                                                .value()
                                          : "");
    for (size_t k = 0; k + 1 < keys.size(); ++k) epoch.regions.push_back({keys[k], keys[k + 1]});
  }
  return epoch;
}

HistoryWindow Synthetic(int regions, int buckets, int columns) {
  presplit::KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = presplit::SaltEncoding::kDecimal;
  spec.salt_from_key = true;
  const presplit::KeyLayout layout = presplit::MakeLayout(spec).value();
  const int per_bucket = std::max(1, regions / buckets);
  HistoryWindow window;
  window.table = "bench:t";
  for (int e = 0; e < 3; ++e) window.epochs.push_back(Epoch(layout, per_bucket, e));
  for (int c = 0; c < columns; ++c) {
    const int epoch = c * 3 / columns;
    const size_t n = window.epochs[static_cast<size_t>(epoch)].regions.size();
    HistoryColumn column;
    column.start_ms = kStart + c * kMinute;
    column.end_ms = column.start_ms + kMinute;
    column.epoch = epoch;
    column.read_per_s.assign(n, 20);
    column.write_per_s.assign(n, 10);
    column.size_bytes.assign(n, 1e9f);
    column.has_rate.assign(n, true);
    // The hot range: region (c * per_bucket / columns) of every bucket (bucket 0 has more).
    const int hot = c * per_bucket / columns;
    for (size_t i = 0; i < n; ++i) {
      const int in_bucket = static_cast<int>(i < static_cast<size_t>(per_bucket + epoch)
                                                 ? i * per_bucket / (per_bucket + epoch)
                                                 : (i - epoch) % per_bucket);
      if (in_bucket == hot) column.write_per_s[i] = 5000;
    }
    window.columns.push_back(std::move(column));
  }
  window.events.push_back({kStart + columns / 3 * kMinute, "split", "bench:t bucket 0"});
  window.events.push_back({kStart + 2 * columns / 3 * kMinute, "split", "bench:t bucket 0"});
  return window;
}

}  // namespace

int main(int argc, char** argv) {
  int regions = 1000, buckets = 100, columns = 360, runs = 15;
  std::string dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const int value = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dump"))
      dump = argv[i + 1];
    else if (!std::strcmp(argv[i], "--regions"))
      regions = value;
    else if (!std::strcmp(argv[i], "--buckets"))
      buckets = value;
    else if (!std::strcmp(argv[i], "--columns"))
      columns = value;
    else if (!std::strcmp(argv[i], "--runs"))
      runs = value;
    else {
      std::fprintf(stderr,
                   "usage: keyviz_bench [--regions R] [--buckets B] [--columns C] [--runs N] "
                   "[--dump FILE]\n");
      return 2;
    }
  }
  const HistoryWindow window = Synthetic(regions, buckets, columns);
  const int64_t now = kStart + columns * kMinute;
  const HistoryReader shared = [&](const std::string&, int64_t,
                                   int64_t) -> presplit::Result<HistoryWindow> { return window; };
  std::printf("table: %zu regions in %d buckets (3 epochs), %d columns of 1 min\n",
              window.epochs[0].regions.size(), buckets, columns);
  std::printf("%-9s %5s %10s %10s %12s %9s  %s\n", "view", "rows", "median ms", "slowest",
              "median CPU ms", "JSON KiB", "check");
  int failures = 0;
  for (const char* view : {"logical", "physical"}) {
    for (const char* rows : {"200", "1000"}) {
      std::vector<double> ms, cpu;
      size_t bytes = 0;
      std::string check = "ok";
      for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = CpuMs();
        const KeyvizReply reply =
            ServeKeyvizJson({{"table", "bench:t"}, {"from", "-6h"}, {"rows", rows}, {"view", view}},
                            shared, {}, now);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
        cpu.push_back(CpuMs() - cpu_start);
        bytes = reply.body.size();
        if (!dump.empty() && std::string(rows) == "200") {
          std::ofstream(dump + "." + view) << reply.body;
        }
        if (reply.code != 200) {
          check = "HTTP " + std::to_string(reply.code) + ": " + reply.body.substr(0, 200);
        } else if (std::string(view) == "logical" &&
                   reply.body.find("\"moving_hot_spot\"") == std::string::npos) {
          check = "no moving_hot_spot in the logical view";
        }
      }
      std::sort(ms.begin(), ms.end());
      std::sort(cpu.begin(), cpu.end());
      std::printf("%-9s %5s %10.1f %10.1f %12.1f %9zu  %s\n", view, rows, ms[ms.size() / 2],
                  ms.back(), cpu[cpu.size() / 2], bytes / 1024, check.c_str());
      failures += check != "ok";
    }
  }
  return failures == 0 ? 0 : 1;
}
