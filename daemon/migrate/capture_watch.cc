// The Migrator's look after the capture peers of all its migrations, run by Run() between the
// drivers: the sweep of orphan peers and the poll of their lags; and the stop of a migration
// whose capture saw bulk loads it cannot ship. The peers themselves: capture_peers.h.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

#include "daemon/migrate/migrator.h"
#include "presplit/bytes.h"

namespace presplit::daemon::migrate {

void Migrator::SweepOrphanPeers() {
  const auto now = std::chrono::steady_clock::now();
  if (last_orphan_sweep_ != std::chrono::steady_clock::time_point{} &&
      now - last_orphan_sweep_ < options_.orphan_sweep_interval) {
    return;
  }
  last_orphan_sweep_ = now;
  try {
    SweepOrphanPeersNow();
  } catch (const std::exception& e) {
    counters_.exceptions_caught++;
    spdlog::error("capture peers: sweeping orphan peers failed (tried again later): {}", e.what());
  } catch (...) {
    counters_.exceptions_caught++;
    spdlog::error("capture peers: sweeping orphan peers failed (tried again later)");
  }
}

void Migrator::SweepOrphanPeersNow() {
  if (!MayAct()) return;
  // The peers first, the plans after (see the header).
  auto peers = bridge_.ListCapturePeers();
  if (!peers.ok()) {
    // Once until a listing works: without global ADMIN it fails every time.
    if (!sweep_list_failure_logged_) {
      spdlog::warn(
          "capture peers: cannot list them to look for orphans (tried again every minute, "
          "logged again once it worked): {}",
          peers.status().ToString());
      sweep_list_failure_logged_ = true;
    }
    return;
  }
  sweep_list_failure_logged_ = false;
  if (peers->empty()) {
    counters_.orphan_peers_left = 0;
    return;
  }
  auto tables = store_.List();
  if (!tables.ok()) {
    spdlog::warn("capture peers: cannot list the migration plans to look for orphan peers: {}",
                 tables.status().ToString());
    return;
  }
  std::set<std::string> named;  // every peer a plan under this root has or will have
  for (const auto& table : *tables) {
    auto node = store_.Read(table);
    if (!node.ok() && node.status().code() == StatusCode::kNotFound) continue;  // it just ended
    if (!node.ok()) {
      // A plan that cannot be read may name any peer: remove none until it can.
      if (sweep_blockers_logged_.insert(table).second) {
        spdlog::warn(
            "capture peers: orphan peers are not removed while the plan of {} cannot be read: {}",
            table, node.status().ToString());
      }
      return;
    }
    sweep_blockers_logged_.erase(table);
    const MigrationPlan& plan = node->plan;
    for (const std::string& peer : {plan.capture.peer, plan.capture.reverse_peer,
                                    CapturePeerOf(plan.target), ReversePeerOf(plan.target)}) {
      if (!peer.empty()) named.insert(peer);
    }
  }
  uint64_t left = 0;
  for (const CapturePeerOwner& peer : *peers) {
    if (named.count(peer.peer_id)) continue;
    if (peer.owner.empty()) {
      left++;
      if (unowned_peers_logged_.insert(peer.peer_id).second) {
        spdlog::warn(
            "capture peer {} belongs to no migration plan under {} but carries no owner (added by "
            "an older presplitd, or by another presplit deployment on this cluster): it keeps "
            "HBase from deleting the WALs of the table it ships. If no migration of any presplit "
            "deployment uses it, remove it: hbase shell: remove_peer '{}'",
            peer.peer_id, options_.zk_root, peer.peer_id);
      }
      continue;
    }
    if (peer.owner != options_.zk_root) continue;  // another deployment's
    if (!MayAct()) return;
    auto removed = bridge_.RemoveCapture(peer.peer_id);
    if (!removed.ok()) {
      left++;
      spdlog::warn(
          "capture peer {}: no migration plan under {} names it, but removing it "
          "failed (tried again later): {}",
          peer.peer_id, options_.zk_root, removed.status().ToString());
      continue;
    }
    if (*removed) {
      counters_.orphan_peers_removed++;
      spdlog::warn(
          "capture peer {} removed: no migration plan under {} names it (its migration ended "
          "without removing it: a daemon stopped between two steps, a plan removed by hand); it "
          "kept HBase from deleting the WALs of the table it shipped",
          peer.peer_id, options_.zk_root);
    }
  }
  std::erase_if(unowned_peers_logged_, [&](const std::string& id) {
    return std::none_of(peers->begin(), peers->end(),
                        [&](const CapturePeerOwner& p) { return p.peer_id == id; });
  });
  counters_.orphan_peers_left = left;
}

void Migrator::PollCaptureLags() {
  const auto now = std::chrono::steady_clock::now();
  if (last_lag_poll_ != std::chrono::steady_clock::time_point{} &&
      now - last_lag_poll_ < options_.capture_lag_interval) {
    return;
  }
  std::map<std::string, std::vector<CaptureLag>> by_table;
  try {
    std::map<std::string, std::string> table_of;  // peer -> table
    for (const auto& m : Snapshot()) {
      if (m.target.empty()) continue;
      table_of[CapturePeerOf(m.target)] = m.table;
      table_of[ReversePeerOf(m.target)] = m.table;
    }
    if (!table_of.empty()) {
      last_lag_poll_ = now;  // no migration: nothing asked, the next run looks again
      std::vector<std::string> peers;
      for (const auto& [peer, table] : table_of) peers.push_back(peer);
      auto lags = bridge_.CaptureLags(peers);
      if (!lags.ok()) {
        if (!lag_failure_logged_) {
          spdlog::warn(
              "capture peers: cannot read their lag from HBase (the metrics show none "
              "until it can): {}",
              lags.status().ToString());
          lag_failure_logged_ = true;
        }
      } else {
        lag_failure_logged_ = false;
        for (const CaptureLag& lag : *lags) {
          auto table = table_of.find(lag.peer_id);
          if (table != table_of.end()) by_table[table->second].push_back(lag);
        }
      }
    }
  } catch (const std::exception& e) {
    counters_.exceptions_caught++;
    spdlog::error("capture peers: reading their lag failed: {}", e.what());
  }
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  capture_lags_ = std::move(by_table);
}

Migrator::Step Migrator::StopForBulkLoads(PlanNode& node, const BulkLoadsSeen& seen) {
  MigrationPlan& plan = node.plan;
  counters_.errors++;
  const std::string loads =
      std::to_string(seen.count) + " bulk loads into " + plan.source + " (" + seen.example + ")";
  if (!IsSwitched(plan.phase)) {
    Status lifted = write_pause_.Lift(plan);
    if (!lifted.ok()) {
      return Fail(node, "stopping for bulk loads the capture cannot ship: making " + plan.source +
                            " writable again: " + lifted.message());
    }
    counters_.verification_failures++;
    if (Status moved = EnterPhase(plan, Phase::kFailedVerification); !moved.ok())
      return Fail(node, moved.message());
    plan.deferred_rows.clear();
    plan.error = "verification failed: " + loads +
                 " reached the capture, which cannot ship a bulk load's cells to " + plan.target +
                 ": they got past the MigrationGuard (removed from " + plan.source +
                 " by hand?); nothing switched; resume to verify again (the comparison shows "
                 "whether the copy read them), or abort and start the migration again (its copy "
                 "reads them)";
  } else if (plan.phase == Phase::kCatchingUp || plan.phase == Phase::kGrace) {
    plan.paused = true;
    plan.error = "paused: " + loads + " reached the capture, which cannot ship a bulk load's " +
                 "cells to " + plan.target + ": they got past the MigrationGuard (removed from " +
                 plan.source + " by hand?); `presplitctl migration rollback " + plan.table +
                 "` (then `resume`) switches back to " + plan.source +
                 ", which has them and every write made to " + plan.target +
                 " since the switch; or resume, and run the load again into the table once the "
                 "migration is done";
  } else {
    plan.paused = true;
    plan.error = "paused: " + loads + " reached the capture, which cannot ship a bulk load's " +
                 "cells to " + plan.target + ": they got past the MigrationGuard (removed from " +
                 plan.source + " by hand?); " + plan.source +
                 " stays (read-only) until you resume; run the load again into the table (its "
                 "status names " +
                 plan.target + ", which takes bulk loads again), then resume";
  }
  spdlog::error("migration {}: {}", plan.table, plan.error);
  Step saved = Save(node);
  return saved == Step::kAdvanced ? Step::kWaiting : saved;
}

}  // namespace presplit::daemon::migrate
