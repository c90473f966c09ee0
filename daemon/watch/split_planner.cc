#include "daemon/watch/split_planner.h"

#include <set>

namespace presplit::daemon::watch {

const char* ActionName(SplitDecision::Action action) {
  switch (action) {
    case SplitDecision::Action::kSplit:
      return "split";
    case SplitDecision::Action::kMove:
      return "move";
    case SplitDecision::Action::kSkip:
      break;
  }
  return "skip";
}

bool SplitPlanner::ClusterRateAllows(int64_t now_ms) {
  while (!recent_splits_ms_.empty() && recent_splits_ms_.front() <= now_ms - limits_.window_ms) {
    recent_splits_ms_.pop_front();
  }
  return static_cast<int>(recent_splits_ms_.size()) < limits_.max_splits;
}

void SplitPlanner::SplitFailed(const std::string& table, const std::string& region, int64_t now_ms,
                               const LoadSplitSettings& settings) {
  RegionMemory& memory = memory_[region];
  memory.table = table;
  memory.unsplittable_until_ms = now_ms + settings.unsplittable_ms;
}

void SplitPlanner::SplitDeferred(const std::string& table, const std::string& region,
                                 int64_t now_ms, const LoadSplitSettings& settings) {
  RegionMemory& memory = memory_[region];
  memory.table = table;
  memory.split_requested_ms = -1;
  memory.retry_at_ms = now_ms + settings.split_retry_ms;
  // The deferral was reported (by the caller): the polls waiting out the pause report nothing.
  memory.last_action = SplitDecision::Action::kSkip;
  memory.last_reason = "split_deferred";
  // The request made no split: it counts against neither the cluster's rate nor the table's
  // cool-down.
  for (auto it = recent_splits_ms_.rbegin(); it != recent_splits_ms_.rend(); ++it) {
    if (*it == now_ms) {
      recent_splits_ms_.erase(std::next(it).base());
      break;
    }
  }
  if (auto last = last_table_split_ms_.find(table);
      last != last_table_split_ms_.end() && last->second == now_ms) {
    if (memory.table_split_before_ms < 0) {
      last_table_split_ms_.erase(last);
    } else {
      last->second = memory.table_split_before_ms;
    }
  }
}

std::vector<SplitDecision> SplitPlanner::Plan(const TableLoad& load,
                                              const LoadSplitSettings& settings, int64_t now_ms) {
  std::vector<SplitDecision> decisions;
  if (!settings.enabled) return decisions;

  // A split asked for and not done within the grace period (the region is still here under the
  // same name) means the RegionServer found no point: leave the region alone for a while.
  std::set<std::string> present;
  for (const auto& region : load.regions) {
    present.insert(region.region);
    auto memory = memory_.find(region.region);
    if (memory == memory_.end() || memory->second.split_requested_ms < 0) continue;
    if (now_ms - memory->second.split_requested_ms >= settings.split_grace_ms &&
        memory->second.unsplittable_until_ms < memory->second.split_requested_ms) {
      memory->second.unsplittable_until_ms = now_ms + settings.unsplittable_ms;
    }
  }

  // Everything is remembered by physical table: a document's old and new generations are two
  // tables with regions, cool-downs and budgets of their own.
  const std::string& physical = load.physical_table.empty() ? load.table : load.physical_table;
  // The table's cool-down counts from splits of earlier polls: two hot regions seen in the same
  // poll are independent and may both split.
  const auto table_split = last_table_split_ms_.find(physical);
  const int64_t table_split_ms =
      table_split == last_table_split_ms_.end() ? -1 : table_split->second;
  int regions_after = load.region_count;
  for (const auto& region : load.regions) {
    if (!region.hot) continue;
    RegionMemory& memory = memory_[region.region];
    memory.table = physical;
    SplitDecision decision;
    decision.time_ms = now_ms;
    decision.table = load.table;
    decision.physical_table = physical;
    decision.region = region.region;
    decision.start_key = region.start_key;
    decision.end_key = region.end_key;
    decision.requests_per_s = region.requests_per_s();
    decision.table_mean_per_s = load.mean_requests_per_s;

    if (!settings.hold_reason.empty()) {
      decision.reason = settings.hold_reason;
    } else if (now_ms < memory.unsplittable_until_ms) {
      decision.reason = "unsplittable";
    } else if (now_ms < memory.retry_at_ms) {
      decision.reason = "split_deferred";
    } else if (memory.split_requested_ms >= 0 &&
               now_ms - memory.split_requested_ms < settings.region_cooldown_ms) {
      decision.reason = "cooldown";
    } else if (table_split_ms >= 0 && now_ms - table_split_ms < settings.region_cooldown_ms / 4) {
      // The halves of a just-split region report under new names: give the table a quarter of
      // the cool-down before splitting again, so a split's own effect is measured first.
      decision.reason = "cooldown";
    } else if (regions_after + 1 > settings.max_regions) {
      decision.reason = "region_budget";
      decision.max_regions = settings.max_regions;
    } else if (settings.dry_run) {
      decision.reason = "dry_run";
    } else if (!ClusterRateAllows(now_ms)) {
      decision.reason = "cluster_rate";
    } else {
      decision.action = SplitDecision::Action::kSplit;
    }

    if (decision.action == SplitDecision::Action::kSplit) {
      memory.split_requested_ms = now_ms;
      memory.table_split_before_ms = table_split_ms;
      recent_splits_ms_.push_back(now_ms);
      last_table_split_ms_[physical] = now_ms;
      ++regions_after;
    }
    const bool changed =
        decision.action != memory.last_action || decision.reason != memory.last_reason;
    const bool due = memory.last_reported_ms < 0 ||
                     now_ms - memory.last_reported_ms >= settings.region_cooldown_ms;
    if (decision.action == SplitDecision::Action::kSplit || changed || due) {
      memory.last_action = decision.action;
      memory.last_reason = decision.reason;
      memory.last_reported_ms = now_ms;
      decisions.push_back(std::move(decision));
    }
  }

  // Forget this table's regions that no longer exist (split, merged, dropped): their halves
  // report under new names, and the table's own cool-down covers the time after a split.
  for (auto it = memory_.begin(); it != memory_.end();) {
    if (it->second.table == physical && !present.count(it->first)) {
      it = memory_.erase(it);
    } else {
      ++it;
    }
  }
  return decisions;
}

}  // namespace presplit::daemon::watch
