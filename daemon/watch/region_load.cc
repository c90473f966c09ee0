#include "daemon/watch/region_load.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace presplit::daemon::watch {

namespace {

// Counters of the same region can be compared when it is still on the same server (a move or a
// reopen restarts them) and they did not go backwards.
bool Comparable(const RegionLoadReport& before, const RegionLoadReport& now) {
  return before.server == now.server && now.report_time_ms > before.report_time_ms &&
         now.read_requests >= before.read_requests && now.write_requests >= before.write_requests;
}

}  // namespace

void RegionLoadTracker::Update(const std::vector<RegionLoadReport>& reports) {
  // In place: a poll of a large cluster must not rebuild 100,000 entries and their histories.
  ++poll_;
  bool membership_changed = false;
  sampled_this_poll_.clear();
  for (const auto& report : reports) {
    auto [it, inserted] = regions_.try_emplace(report.region);
    Tracked& tracked = it->second;
    tracked.seen_in_poll = poll_;
    if (inserted) {
      membership_changed = true;
      tracked.last = report;
      continue;
    }
    const RegionLoadReport& before = tracked.last;
    if (report.server == before.server && report.report_time_ms == before.report_time_ms) {
      continue;  // the RegionServer has not reported since the last poll: nothing new
    }
    if (Comparable(before, report)) {
      const double seconds = (report.report_time_ms - before.report_time_ms) / 1000.0;
      tracked.samples.push_back(Sample{before.report_time_ms, report.report_time_ms,
                                       (report.read_requests - before.read_requests) / seconds,
                                       (report.write_requests - before.write_requests) / seconds});
      const auto expired = std::find_if(
          tracked.samples.begin(), tracked.samples.end(),
          [&](const Sample& s) { return s.to_ms >= report.report_time_ms - history_ms_; });
      tracked.samples.erase(tracked.samples.begin(), expired);
      sampled_this_poll_.push_back(&tracked);
    } else {
      // The region moved or reopened: its history starts again from this report.
      tracked.samples.clear();
    }
    if (tracked.last.table != report.table) membership_changed = true;
    tracked.last = report;
  }
  // Regions absent from this poll (split, merged, dropped, or their server gone) are forgotten.
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->second.seen_in_poll != poll_) {
      it = regions_.erase(it);
      membership_changed = true;
    } else {
      ++it;
    }
  }
  if (membership_changed) {
    by_table_.clear();
    for (const auto& [name, tracked] : regions_) by_table_[tracked.last.table].push_back(&tracked);
    // Key order once here: an encoded region name always has the same start key.
    for (auto& [table, members] : by_table_) {
      std::sort(members.begin(), members.end(), [](const Tracked* a, const Tracked* b) {
        return a->last.start_key < b->last.start_key;
      });
    }
  }
  // The samples added now are held against their table's mean of now (see HotRegionRule). Only
  // the tables that got a sample are averaged; regions_ did not rehash since (no insertion
  // after the loop), so the pointers are still good.
  std::unordered_map<std::string, double> table_mean;
  for (const Tracked* tracked : sampled_this_poll_) table_mean.try_emplace(tracked->last.table, 0);
  for (auto& [table, mean] : table_mean) {
    double total = 0;
    int with_rate = 0;
    for (const Tracked* member : by_table_[table]) {
      if (member->samples.empty()) continue;
      total += member->samples.back().read_per_s + member->samples.back().write_per_s;
      ++with_rate;
    }
    mean = with_rate > 0 ? total / with_rate : 0;
  }
  for (Tracked* tracked : sampled_this_poll_) {
    tracked->samples.back().table_mean_per_s = table_mean[tracked->last.table];
  }
}

std::vector<std::string> RegionLoadTracker::Tables() const {
  std::vector<std::string> tables;
  for (const auto& [table, regions] : by_table_) tables.push_back(table);
  return tables;
}

TableLoad RegionLoadTracker::Score(const std::string& table, const HotRegionRule& rule) const {
  TableLoad load;
  load.table = table;
  load.physical_table = table;
  std::vector<const Tracked*> members;
  auto names = by_table_.find(table);
  if (names != by_table_.end()) {
    members.assign(names->second.begin(), names->second.end());
  }
  int with_rate = 0;
  for (const Tracked* tracked : members) {
    RegionLoad region;
    region.region = tracked->last.region;
    region.start_key = tracked->last.start_key;
    region.end_key = tracked->last.end_key;
    region.server = tracked->last.server;
    region.size_bytes = tracked->last.store_file_bytes + tracked->last.memstore_bytes;
    region.store_files = tracked->last.store_files;
    region.locality = tracked->last.locality;
    if (!tracked->samples.empty()) {
      region.has_rate = true;
      region.read_per_s = tracked->samples.back().read_per_s;
      region.write_per_s = tracked->samples.back().write_per_s;
      ++with_rate;
      load.total_requests_per_s += region.requests_per_s();
      load.max_requests_per_s = std::max(load.max_requests_per_s, region.requests_per_s());
    }
    load.total_size_bytes += region.size_bytes;
    load.regions.push_back(std::move(region));
  }
  load.region_count = static_cast<int>(load.regions.size());
  if (with_rate > 0) load.mean_requests_per_s = load.total_requests_per_s / with_rate;
  if (load.mean_requests_per_s > 0) {
    load.request_skew = load.max_requests_per_s / load.mean_requests_per_s;
    double squares = 0;
    for (const auto& region : load.regions) {
      if (!region.has_rate) continue;
      const double d = region.requests_per_s() - load.mean_requests_per_s;
      squares += d * d;
    }
    load.coefficient_of_variation = std::sqrt(squares / with_rate) / load.mean_requests_per_s;
  }
  if (load.region_count > 0 && load.total_size_bytes > 0) {
    int64_t largest = 0;
    for (const auto& region : load.regions) largest = std::max(largest, region.size_bytes);
    load.size_skew = static_cast<double>(largest) /
                     (static_cast<double>(load.total_size_bytes) / load.region_count);
  }

  // Hot: every sample of the last sustain_ms above both the absolute rate and the multiple of
  // the table's mean when the sample was taken. With the mean taken over all regions, a table of
  // n regions can only have a hot region when the multiple is below n (one region taking all the
  // load has n times the mean): pre-split tables have many regions, and a table of one or two
  // regions is a case for pre-splitting, not for load splits.
  for (size_t i = 0; i < members.size(); ++i) {
    const auto& samples = members[i]->samples;
    RegionLoad& region = load.regions[i];
    if (samples.empty()) continue;
    int64_t covered_from = samples.back().to_ms;
    for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
      const double threshold =
          std::max(rule.min_requests_per_s, rule.mean_multiple * it->table_mean_per_s);
      if (it->read_per_s + it->write_per_s < threshold) break;
      covered_from = it->from_ms;
    }
    region.above_rule_ms = samples.back().to_ms - covered_from;
    region.hot = region.above_rule_ms >= rule.sustain_ms && region.above_rule_ms > 0;
    if (region.hot) ++load.hot_regions;
  }
  return load;
}

}  // namespace presplit::daemon::watch
