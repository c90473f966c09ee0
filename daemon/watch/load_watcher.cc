#include "daemon/watch/load_watcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "presplit/bytes.h"
#include "presplit/load_split.h"

namespace presplit::daemon::watch {

namespace {
// History kept beyond the longest sustain window: a few RegionServer reports (3 s apart).
constexpr int64_t kHistoryMarginMs = 10'000;
}  // namespace

LoadWatcher::LoadWatcher(RegionLoadSource& source, LoadWatcherOptions options,
                         std::function<int64_t()> now_ms)
    : source_(source),
      options_(options),
      now_ms_(std::move(now_ms)),
      tracker_(
          std::max(options.min_history_ms, options.default_rule.sustain_ms + kHistoryMarginMs)),
      planner_(options.limits),
      mover_(options.limits) {}

void LoadWatcher::SetTables(std::vector<WatchedTable> tables) {
  // The hot rule needs samples covering its window; a margin of a few reports on top.
  int64_t history =
      std::max(options_.min_history_ms, options_.default_rule.sustain_ms + kHistoryMarginMs);
  for (const auto& table : tables) {
    if (table.settings.enabled) {
      history = std::max(history, table.settings.rule.sustain_ms + kHistoryMarginMs);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  tables_ = std::move(tables);
  tracker_.set_history_ms(history);
}

LoadSnapshot LoadWatcher::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshot_;
}

void LoadWatcher::Record(const SplitDecision& d) {
  auto& kept = snapshot_.decisions[d.table];
  kept.push_back(d);
  while (kept.size() > options_.decisions_kept) kept.pop_front();
  if (d.action == SplitDecision::Action::kSplit) {
    ++snapshot_.splits_total;
  } else if (d.action == SplitDecision::Action::kMove) {
    ++snapshot_.moves_total;
  } else if (d.is_move()) {
    ++snapshot_.move_skips_total[d.reason];
  } else {
    ++snapshot_.skips_total[d.reason];
  }
  // The physical table is named when it is not the document's (another generation).
  const std::string table = d.table + (d.physical_table.empty() || d.physical_table == d.table
                                           ? ""
                                           : " (" + d.physical_table + ")");
  if (d.is_move()) {
    // What, where from, where to and why, on one line: "move" when done, "would move" not.
    spdlog::info(
        "load split {}: table {} region {} (start {}): {:.0f} requests/s from {} ({:.0f} "
        "requests/s) to {} ({:.0f} requests/s): it and its sibling {} shared a server{}",
        d.action == SplitDecision::Action::kMove ? "move" : "would move", table, d.region,
        ToStringBinary(d.start_key), d.requests_per_s, d.from_server, d.from_server_per_s,
        d.to_server, d.to_server_per_s, d.sibling, d.reason.empty() ? "" : " (" + d.reason + ")");
    return;
  }
  spdlog::info(
      "load split {}: table {} region {} (start {}): {:.0f} requests/s, table mean {:.0f}{}",
      ActionName(d.action), table, d.region, ToStringBinary(d.start_key), d.requests_per_s,
      d.table_mean_per_s, d.reason.empty() ? "" : " (" + d.reason + ")");
}

Status LoadWatcher::Poll(bool plan) {
  std::vector<WatchedTable> tables;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tables = tables_;
  }
  std::vector<std::string> names;
  std::map<std::string, const LoadSplitSettings*> settings_of;  // by physical table
  std::set<std::string> documents;
  for (const auto& table : tables) {
    names.push_back(table.physical_table);
    settings_of[table.physical_table] = &table.settings;
    documents.insert(table.table);
  }
  // The cluster call runs without the lock: snapshot() must answer while HBase is slow.
  auto reports = source_.RegionLoads(names);
  const std::vector<std::string> live_servers = source_.LiveServers();
  const int64_t now = now_ms_();

  std::vector<SplitDecision> decisions;
  std::vector<SplitDecision> moves;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reports.ok()) {
      snapshot_.last_error = reports.status().message();
      return reports.status();
    }
    tracker_.Update(*reports);
    snapshot_.tables.clear();
    snapshot_.last_error.clear();
    snapshot_.polled_at_ms = now;
    for (const auto& table : tables) {
      const LoadSplitSettings& settings = table.settings;
      const HotRegionRule& rule = settings.enabled ? settings.rule : options_.default_rule;
      TableLoad load = tracker_.Score(table.physical_table, rule);
      load.table = table.table;
      load.generation = table.generation;
      load.migration_target = table.migration_target;
      load.migration_target_table = table.migration_target_table;
      load.split_hold = table.split_hold;
      if (plan) {
        for (auto& decision : planner_.Plan(load, settings, now)) decisions.push_back(decision);
      }
      snapshot_.tables.push_back(std::move(load));
    }
    // The daughters of earlier polls' splits, over this poll's rates.
    if (plan) moves = mover_.Plan(snapshot_.tables, settings_of, live_servers, now);
    // Tables no longer watched keep no decisions.
    for (auto it = snapshot_.decisions.begin(); it != snapshot_.decisions.end();) {
      it = documents.count(it->first) ? std::next(it) : snapshot_.decisions.erase(it);
    }
  }

  // The splits, again without the lock. Only Poll() touches the planner, and Poll() runs on one
  // worker, so the planner needs no lock of its own.
  for (auto& decision : decisions) {
    if (decision.action != SplitDecision::Action::kSplit) continue;
    CarryOut(decision, *settings_of.at(decision.physical_table), now);
    // Accepted: its daughters are looked after, if the document asks for it.
    if (decision.action == SplitDecision::Action::kSplit &&
        settings_of.at(decision.physical_table)->move_daughters) {
      mover_.SplitRequested(decision, now);
    }
  }
  for (auto& move : moves) {
    if (move.action == SplitDecision::Action::kMove) CarryOutMove(move);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& decision : decisions) Record(decision);
  for (const auto& move : moves) Record(move);
  return Status::Ok();
}

void LoadWatcher::CarryOutMove(SplitDecision& decision) {
  auto skip = [&](const char* reason) {
    decision.action = SplitDecision::Action::kSkip;
    decision.reason = reason;
  };
  // As for a split: a deposed leader must not move what the new one may move too.
  if (options_.may_act && !options_.may_act()) {
    skip("not_leader");
    return;
  }
  Status moved = source_.MoveRegion(decision.region, decision.to_server);
  if (!moved.ok()) {
    skip("move_refused");
    // One line for the status: HBase's answer can carry a remote stack trace.
    decision.error = moved.message().substr(0, moved.message().find('\n'));
    spdlog::warn("load split move of region {} of {} to {} refused: {}", decision.region,
                 decision.physical_table, decision.to_server, decision.error);
  }
}

void LoadWatcher::CarryOut(SplitDecision& decision, const LoadSplitSettings& settings,
                           int64_t now_ms) {
  auto skip = [&](const char* reason) {
    decision.action = SplitDecision::Action::kSkip;
    decision.reason = reason;
  };
  // Asked right before each split request, not before the key sample: sampling reads many rows
  // and takes a while, and a lease confirmed before it says nothing about the moment of the
  // split. A deposed leader must not split what the new one may split too.
  auto may_split = [&] {
    if (options_.may_act && !options_.may_act()) {
      skip("not_leader");
      return false;
    }
    return true;
  };
  Status split;
  if (settings.point_from_key_sample) {
    // HBase's own policy would split at the largest store's mid key, blind to groups and load:
    // the point comes from the region's keys, at a group boundary, instead.
    auto keys = source_.SampleRowKeys(decision.physical_table, decision.start_key, decision.end_key,
                                      options_.sample_max_keys, options_.sample_max_rows);
    if (!keys.ok()) {
      split = keys.status().WithContext("sampling the region's row keys");
    } else {
      const size_t sampled = keys->size();
      auto point = ChooseKeySampleSplitPoint(settings.layout, decision.start_key, decision.end_key,
                                             std::move(keys).value());
      if (!point.ok()) {
        split = point.status().WithContext("choosing a point from the key sample");
      } else if (!point->has_value()) {
        planner_.SplitFailed(decision.physical_table, decision.region, now_ms, settings);
        skip("no_split_point");
        spdlog::warn(
            "load split of region {} of {}: its {} sampled keys have no group boundary that "
            "divides them; left alone for a while",
            decision.region, decision.physical_table, sampled);
        return;
      } else {
        decision.split_key = (*point)->key;
        spdlog::info(
            "load split of region {} of {}: point {} from {} sampled keys ({} | {}, keys "
            "balanced, not requests)",
            decision.region, decision.physical_table, ToStringBinary(decision.split_key), sampled,
            (*point)->left, (*point)->right);
        if (!may_split()) return;
        split = source_.SplitRegionAt(decision.region, decision.split_key);
      }
    }
  } else {
    if (!may_split()) return;
    split = source_.SplitRegion(decision.region);
  }
  if (!split.ok() && split.code() == StatusCode::kUnavailable) {
    // Not a verdict on the region: it was in transition (moving, opening), or HBase did not
    // answer. Asked again shortly, without the cool-down a refusal brings.
    planner_.SplitDeferred(decision.physical_table, decision.region, now_ms, settings);
    skip("split_deferred");
    decision.error = split.message().substr(0, split.message().find('\n'));
    spdlog::warn("load split of region {} of {} deferred ({} s): {}", decision.region,
                 decision.physical_table, settings.split_retry_ms / 1000, decision.error);
  } else if (!split.ok()) {
    planner_.SplitFailed(decision.physical_table, decision.region, now_ms, settings);
    skip("split_refused");
    decision.error = split.message();
    spdlog::warn("load split of region {} of {} refused: {}", decision.region,
                 decision.physical_table, split.message());
  }
}

}  // namespace presplit::daemon::watch
