#include "daemon/watch/daughter_mover.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace presplit::daemon::watch {

namespace {

// The regions of `load` inside [start, end) (an empty end: to the table's end), in key order.
std::vector<const RegionLoad*> Inside(const TableLoad& load, const std::string& start,
                                      const std::string& end) {
  std::vector<const RegionLoad*> inside;
  for (const auto& region : load.regions) {
    if (region.start_key < start) continue;
    if (!end.empty() && (region.end_key.empty() || region.end_key > end)) continue;
    inside.push_back(&region);
  }
  return inside;
}

}  // namespace

void DaughterMover::SplitRequested(const SplitDecision& split, int64_t now_ms) {
  Pending pending;
  pending.table = split.table;
  pending.physical_table = split.physical_table.empty() ? split.table : split.physical_table;
  pending.parent = split.region;
  pending.start_key = split.start_key;
  pending.end_key = split.end_key;
  pending.split_ms = now_ms;
  pending_[split.region] = std::move(pending);
}

bool DaughterMover::RateAllows(int64_t now_ms) {
  while (!recent_moves_ms_.empty() && recent_moves_ms_.front() <= now_ms - limits_.window_ms) {
    recent_moves_ms_.pop_front();
  }
  return static_cast<int>(recent_moves_ms_.size()) < limits_.max_splits;
}

std::vector<SplitDecision> DaughterMover::Plan(
    const std::vector<TableLoad>& loads,
    const std::map<std::string, const LoadSplitSettings*>& settings_of,
    const std::vector<std::string>& live_servers, int64_t now_ms) {
  std::vector<SplitDecision> decisions;
  if (pending_.empty()) return decisions;

  // The servers' request rates over every region presplit watches; live servers without one
  // count at 0.
  std::map<std::string, double> server_rate;
  for (const auto& server : live_servers) server_rate[server] = 0;
  std::map<std::string, const TableLoad*> load_of;
  for (const auto& load : loads) {
    load_of[load.physical_table.empty() ? load.table : load.physical_table] = &load;
    for (const auto& region : load.regions) {
      if (region.server.empty()) continue;
      server_rate[region.server] += region.has_rate ? region.requests_per_s() : 0;
    }
  }

  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    auto settings = settings_of.find(p.physical_table);
    auto load = load_of.find(p.physical_table);
    // No longer watched, or the document no longer asks for moves: forgotten.
    if (settings == settings_of.end() || load == load_of.end() ||
        !settings->second->move_daughters) {
      it = pending_.erase(it);
      continue;
    }
    const LoadSplitSettings& s = *settings->second;
    // A pair not settled by then is left where it is: the split's effect is old news.
    const int64_t give_up_ms = p.split_ms + s.move_after_ms + s.region_cooldown_ms;
    auto drop = [&](const char* why) {
      spdlog::info("load split daughters of region {} of {}: not moved ({})", p.parent,
                   p.physical_table, why);
      it = pending_.erase(it);
    };

    const auto inside = Inside(*load->second, p.start_key, p.end_key);
    const bool parent_gone = std::none_of(
        inside.begin(), inside.end(), [&](const RegionLoad* r) { return r->region == p.parent; });
    // The daughters: two regions exactly covering the parent's range. More than two: one of them
    // split again, a newer split's daughters to look after.
    if (parent_gone && inside.size() > 2) {
      drop("a daughter split again");
      continue;
    }
    const bool daughters = parent_gone && inside.size() == 2 &&
                           inside[0]->start_key == p.start_key && inside[1]->end_key == p.end_key &&
                           inside[0]->end_key == inside[1]->start_key;
    if (!daughters || !inside[0]->has_rate || !inside[1]->has_rate ||
        now_ms - p.split_ms < s.move_after_ms) {
      if (now_ms >= give_up_ms) {
        drop(daughters ? "their rates came too late" : "the daughters were not seen in time");
      } else {
        ++it;
      }
      continue;
    }
    const RegionLoad& a = *inside[0];
    const RegionLoad& b = *inside[1];
    if (a.server != b.server) {
      spdlog::debug("load split daughters of region {} of {} are on {} and {}", p.parent,
                    p.physical_table, a.server, b.server);
      it = pending_.erase(it);  // spread (by the balancer): nothing to do
      continue;
    }
    const RegionLoad& hot = a.requests_per_s() >= b.requests_per_s() ? a : b;
    const RegionLoad& cold = &hot == &a ? b : a;
    const std::string& from = hot.server;
    // The least-loaded other server (by name among equals, so a decision is reproducible).
    std::string to;
    double to_rate = 0;
    for (const auto& [server, rate] : server_rate) {
      if (server == from) continue;
      if (to.empty() || rate < to_rate) {
        to = server;
        to_rate = rate;
      }
    }
    const double from_rate = server_rate[from];
    // Worth it only if the busier of the two servers gets less busy: after the move the source
    // serves from_rate - hot and the target to_rate + hot, so the target must stay below the
    // source's rate of now.
    if (to.empty() || to_rate + hot.requests_per_s() >= from_rate) {
      if (now_ms >= give_up_ms) {
        drop(to.empty() ? "no other live server"
                        : "moving the hotter daughter would not lower the busier server's rate");
      } else {
        ++it;
      }
      continue;
    }

    SplitDecision decision;
    decision.time_ms = now_ms;
    decision.table = p.table;
    decision.physical_table = p.physical_table;
    decision.region = hot.region;
    decision.start_key = hot.start_key;
    decision.end_key = hot.end_key;
    decision.requests_per_s = hot.requests_per_s();
    decision.table_mean_per_s = load->second->mean_requests_per_s;
    decision.from_server = from;
    decision.to_server = to;
    decision.sibling = cold.region;
    decision.from_server_per_s = from_rate;
    decision.to_server_per_s = to_rate;
    if (s.move_dry_run || s.dry_run) {
      decision.reason = "dry_run";
    } else if (!RateAllows(now_ms)) {
      decision.reason = "cluster_rate";
    } else {
      decision.action = SplitDecision::Action::kMove;
      recent_moves_ms_.push_back(now_ms);
      // The rates the next pairs of this poll are judged by.
      server_rate[from] -= hot.requests_per_s();
      server_rate[to] += hot.requests_per_s();
    }
    const bool move = decision.action == SplitDecision::Action::kMove;
    if (move || decision.reason != p.last_reason) {
      p.last_reason = decision.reason;
      decisions.push_back(std::move(decision));
    }
    // A move is asked for once, whatever HBase answers; a skipped one is decided again until
    // the pair is given up.
    if (move || now_ms >= give_up_ms) {
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return decisions;
}

}  // namespace presplit::daemon::watch
