// Change capture: the Migrator's side of the replication peers that ship every write of one
// generation to the other (presplit-hbase.jar's RekeyingReplicationEndpoint on the
// RegionServers), and the ways presplitd learns how far a peer has shipped:
//   - probes: a marker written into every region of the shipped table; once the peer has
//     acknowledged all of them, every write each region's current server took before the probe
//     has been applied to the other (a RegionServer ships its WAL in order);
//   - closes: a fenced (read-only) table's regions are closed and reopened; the WAL's close
//     marker is the last entry of each region on its current server;
//   - the queue mark: a region moved, split or merged leaves its older edits in the WAL of the
//     server it left, shipped by that server's queue at its own pace (the peer is not serial:
//     HBase's serial replication needs REPLICATION_SCOPE 1, which presplit leaves alone). So a
//     drain, once the closes are in, lists the WAL files the peer's queues hold, has every live
//     server roll its WAL, and waits until none of those files is listed: each queue has then
//     read its files to their end, whichever regions they held.
// Probes serve the verification, which compares again what differs; the drains that precede an
// irreversible step (the switch, the fence, a rollback) wait for the queue mark.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

#include "daemon/migrate/migrator.h"
#include "presplit/bytes.h"

namespace presplit::daemon::migrate {
namespace {

// A row for a message: printable, its first 64 bytes (a row key may be 32 KiB long).
std::string ShownRow(const std::string& row) {
  constexpr size_t kShown = 64;
  if (row.size() <= kShown) return ToStringBinary(row);
  return ToStringBinary(row.substr(0, kShown)) + "... (" + std::to_string(row.size()) + " bytes)";
}

}  // namespace

Status Migrator::EnsureCapture(MigrationPlan& plan, bool reverse) {
  std::string& peer = reverse ? plan.capture.reverse_peer : plan.capture.peer;
  int64_t& started_ms = reverse ? plan.capture.reverse_started_ms : plan.capture.started_ms;
  if (peer.empty()) peer = reverse ? ReversePeerOf(plan.target) : CapturePeerOf(plan.target);
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  // Both peers carry the mark of the migration (its target): neither ships the other's writes.
  CaptureSpec spec =
      reverse
          ? CaptureSpec{peer,        plan.target,     plan.source, plan.new_layout, plan.old_layout,
                        plan.target, options_.zk_root}
          : CaptureSpec{peer,        plan.source,     plan.target, plan.old_layout, plan.new_layout,
                        plan.target, options_.zk_root};
  // Never while a drain's WAL roll is under way (see wal_roll_mu_).
  PRESPLIT_ASSIGN_OR_RETURN(bool added, [&] {
    std::lock_guard<std::mutex> roll(wal_roll_mu_);
    return bridge_.EnsureCapture(spec);
  }());
  if (started_ms == 0) started_ms = NowMs();
  spdlog::info("migration {}: {}capture peer {} {}: every write to {} is shipped to {}{}",
               plan.table, reverse ? "reverse " : "", peer, added ? "added" : "already there",
               spec.source_table, spec.target_table, reverse ? " (a rollback loses nothing)" : "");
  return Status::Ok();
}

Status Migrator::RemoveCapture(const std::string& peer, const char* why) {
  if (peer.empty()) return Status::Ok();
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(bool removed, bridge_.RemoveCapture(peer));
  if (removed) spdlog::info("capture peer {} removed ({})", peer, why);
  return Status::Ok();
}

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

Status Migrator::AwaitShipped(const std::string& peer, const std::string& table,
                              const std::string& ack_table) {
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  // A probe id is a moment of this daemon's clock, made unique: it is compared for equality
  // only, never with a RegionServer's clock.
  static std::atomic<int64_t> last_id{0};
  int64_t id = NowMs();
  for (int64_t seen = last_id.load();
       !last_id.compare_exchange_weak(seen, std::max(seen + 1, id));) {
  }
  id = last_id.load();
  PRESPLIT_ASSIGN_OR_RETURN(ProbeRound round, bridge_.Probe(table, id));
  const std::set<std::string> wanted(round.acks.begin(), round.acks.end());
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + options_.ack_timeout;
  size_t acked = 0;
  while (true) {
    PRESPLIT_ASSIGN_OR_RETURN(CaptureAcks acks, bridge_.ReadAcks(ack_table, round.id));
    std::set<std::string> got(acks.probe_acks.begin(), acks.probe_acks.end());
    acked = 0;
    for (const auto& row : wanted) acked += got.count(row);
    if (acked == wanted.size()) break;
    if (Interrupted()) return Status::Unavailable(Stopping() ? "stopping" : "the lease is lost");
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string first_missing;
      for (size_t i = 0; i < round.acks.size() && first_missing.empty(); ++i) {
        if (!got.count(round.acks[i])) first_missing = ShownRow(round.rows[i]);
      }
      return Status::Unavailable(
          "the capture peer shipping " + table + " into " + ack_table + " acknowledged " +
          std::to_string(acked) + " of " + std::to_string(wanted.size()) + " probes within " +
          std::to_string(options_.ack_timeout.count() / 1000) +
          " s (first missing: the region at '" + first_missing +
          "'; is the peer running? hbase shell: list_peers, status 'replication'; the "
          "RegionServers' logs say why a batch was refused)");
    }
    Sleep(options_.ack_poll);
  }
  // Every live server shipped past the probe; a server that died may still have edits in WALs
  // no live server has shipped yet (HBase claims them after processing the crash).
  const auto recovery_deadline = std::chrono::steady_clock::now() + options_.recovery_timeout;
  auto last_log = std::chrono::steady_clock::time_point{};
  std::string waiting_for;
  while (true) {
    auto recovered = RecoveredQueues(peer);
    if (recovered.ok() && recovered->empty()) {
      if (!waiting_for.empty()) {
        spdlog::info("capture peer {}: the dead RegionServer's WALs are shipped", peer);
      }
      PRESPLIT_RETURN_IF_ERROR(AwaitQueuesShipped(peer, table));
      counters_.probes++;
      return Status::Ok();
    }
    waiting_for =
        recovered.ok()
            ? recovered->front() + (recovered->size() > 1
                                        ? " and " + std::to_string(recovered->size() - 1) + " more"
                                        : "")
            : "(cannot read them: " + recovered.status().message() + ")";
    const auto now = std::chrono::steady_clock::now();
    if (now - last_log >= std::chrono::minutes(1)) {
      last_log = now;
      spdlog::info(
          "capture peer {}: probes acknowledged; waiting for the WALs of a RegionServer "
          "that died to be shipped: {}",
          peer, waiting_for);
    }
    if (Interrupted()) return Status::Unavailable(Stopping() ? "stopping" : "the lease is lost");
    if (now >= recovery_deadline) {
      return Status::Unavailable(
          "the capture peer " + peer + " still holds the WALs of a RegionServer that died after " +
          std::to_string(options_.recovery_timeout.count() / 1000) + " s: " + waiting_for +
          " (hbase shell: status 'replication'; the RegionServer that claimed the queue logs "
          "why it does not ship)");
    }
    Sleep(options_.ack_poll);
  }
}

Result<QueueMark> Migrator::MarkQueues(const std::string& peer) {
  std::lock_guard<std::mutex> roll(wal_roll_mu_);  // never while a peer is being added
  return bridge_.MarkCaptureQueues(peer);
}

Status Migrator::AwaitQueuesShipped(const std::string& peer, const std::string& table) {
  // A probe rides in the queue of its region's current server. A region that moved (the
  // balancer, a split's daughter mover, a crash) can still have older edits in the queue of the
  // server it left, which its probe does not wait for: the queues as they are now, every live
  // WAL rolled, are waited for too. Once none of those files is listed, every edit written
  // before this moment is shipped, whichever server took it.
  if (peer.empty()) return Status::Ok();
  auto marked = MarkQueues(peer);
  if (!marked.ok()) {
    return Status::Unavailable("marking the queues of the capture peer " + peer + ": " +
                               marked.status().message());
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.ack_timeout;
  while (true) {
    PRESPLIT_ASSIGN_OR_RETURN(UnshippedWals unshipped,
                              bridge_.UnshippedCaptureWals(peer, marked->wals));
    if (unshipped.count == 0) return Status::Ok();
    if (Interrupted()) return Status::Unavailable(Stopping() ? "stopping" : "the lease is lost");
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Unavailable(
          "the capture peer " + peer + " shipping " + table + " acknowledged its probes, but " +
          std::to_string(unshipped.count) + " WAL files its queues held then were not shipped " +
          "within " + std::to_string(options_.ack_timeout.count() / 1000) +
          " s (first: " + (unshipped.first.empty() ? std::string("?") : unshipped.first.front()) +
          "; hbase shell: status 'replication'; the RegionServer holding it logs why)");
    }
    Sleep(options_.ack_poll);
  }
}

Result<std::vector<std::string>> Migrator::RecoveredQueues(const std::string& peer) {
  if (peer.empty()) return std::vector<std::string>{};
  PRESPLIT_ASSIGN_OR_RETURN(CapturePeerState state, bridge_.DescribeCapture(peer));
  if (!state.exists) return std::vector<std::string>{};
  return state.recovered_queues;
}

Result<BulkLoadsSeen> Migrator::CollectNotices(MigrationPlan& plan, const std::string& ack_table) {
  PRESPLIT_ASSIGN_OR_RETURN(CaptureAcks acks, bridge_.ReadAcks(ack_table, 0));
  CaptureState& c = plan.capture;
  BulkLoadsSeen seen;
  if (static_cast<int64_t>(acks.bulk_loads.size()) > c.bulk_loads) {
    seen.count = static_cast<int64_t>(acks.bulk_loads.size()) - c.bulk_loads;
    seen.example = acks.bulk_loads.front();
    c.bulk_loads = static_cast<int64_t>(acks.bulk_loads.size());
  }
  if (static_cast<int64_t>(acks.unfit.size()) > c.unfit) {
    c.unfit = static_cast<int64_t>(acks.unfit.size());
    c.first_unfit = acks.unfit.front();
    spdlog::error(
        "migration {}: {} rows written to {} do not fit its layout and were not shipped (first: "
        "{})",
        plan.table, c.unfit, plan.source, c.first_unfit);
  }
  return seen;
}

Migrator::Step Migrator::StopForBulkLoads(PlanNode& node, const BulkLoadsSeen& seen) {
  MigrationPlan& plan = node.plan;
  counters_.errors++;
  const std::string loads =
      std::to_string(seen.count) + " bulk loads into " + plan.source + " (" + seen.example + ")";
  if (!IsSwitched(plan.phase)) {
    Status lifted = LiftWritePause(plan);
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

Result<bool> Migrator::GuardSource(const MigrationPlan& plan) {
  if (plan.plan_id.empty()) return false;
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(bool attached, bridge_.AttachGuard(plan.source));
  if (attached) {
    spdlog::info(
        "migration {}: MigrationGuard attached to {}, dormant (its regions reopened, once: "
        "the table keeps it): it refuses bulk loads and Durability.SKIP_WAL "
        "writes while a capture of the table runs",
        plan.table, plan.source);
  }
  return attached;
}

Status Migrator::ConfirmSourceGuard(const MigrationPlan& plan) {
  if (plan.plan_id.empty()) return Status::Ok();
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(GuardConfirmed confirmed, bridge_.ConfirmGuard(plan.source));
  spdlog::info(
      "migration {}: MigrationGuard on in {} ({} regions confirmed, no reopen{}): bulk loads and "
      "Durability.SKIP_WAL writes, which the capture cannot ship, are refused until the capture "
      "ends",
      plan.table, plan.source, confirmed.regions,
      confirmed.reopened > 0 ? "; " + std::to_string(confirmed.reopened) +
                                   " reopened because they did not confirm in time"
                             : std::string());
  return Status::Ok();
}

Status Migrator::Unguard(const MigrationPlan& plan, const std::string& table, const char* why) {
  if (plan.plan_id.empty()) return Status::Ok();
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(GuardChange change, bridge_.UnguardTable(table, plan.plan_id));
  if (!change.other_plan.empty()) {
    spdlog::warn(
        "migration {}: the MigrationGuard on {} is another migration's (plan {}): left in place; "
        "if no migration of {} is under way, remove it: hbase shell: alter '{}', METHOD => "
        "'table_att_unset', NAME => 'coprocessor$<n>'",
        plan.table, table, change.other_plan, plan.table, table);
  }
  if (change.changed) {
    spdlog::info(
        "migration {}: MigrationGuard removed from {} ({}; its regions reopened): bulk loads and "
        "Durability.SKIP_WAL writes are accepted again",
        plan.table, table, why);
  }
  return Status::Ok();
}

Result<std::map<std::string, int64_t>> Migrator::ClosesShipped(const std::string& ack_table) {
  PRESPLIT_ASSIGN_OR_RETURN(CaptureAcks acks, bridge_.ReadAcks(ack_table, 0));
  return acks.closed;
}

Result<bool> Migrator::AwaitDrained(const std::string& peer, const std::string& table,
                                    const std::string& ack_table,
                                    const std::map<std::string, int64_t>& before,
                                    int64_t fence_started_ms, std::chrono::milliseconds timeout,
                                    bool reopened_now) {
  PRESPLIT_ASSIGN_OR_RETURN(TableDescription described, admin_.DescribeTable(table));
  if (!described.exists) return Status::NotFound(table + " is gone");
  const auto deadline =
      std::chrono::steady_clock::now() + (timeout.count() > 0 ? timeout : options_.ack_timeout);
  std::optional<QueueMark> mark;  // taken once, after the closes: see the header
  while (true) {
    PRESPLIT_ASSIGN_OR_RETURN(auto closed, ClosesShipped(ack_table));
    std::vector<std::string> unclosed;
    for (const auto& region : described.regions) {
      auto now = closed.find(region.name);
      auto then = before.find(region.name);
      const bool new_close =
          now != closed.end() && (then == before.end() || now->second > then->second);
      if (!new_close) unclosed.push_back(region.name);
    }
    const size_t drained = described.regions.size() - unclosed.size();
    std::string waiting = unclosed.empty() ? "" : unclosed.front();
    if (unclosed.empty() || reopened_now) {
      // Closes come from the live servers; a dead one's WALs may still hold earlier edits.
      auto recovered = RecoveredQueues(peer);
      if (recovered.ok() && recovered->empty()) {
        // Every region closed on its current server: the table takes no write any more, so
        // every edit it took is in a file the peer's queues list now.
        if (!mark) {
          auto marked = MarkQueues(peer);
          if (marked.ok()) {
            mark = std::move(*marked);
            spdlog::info(
                "capture peer {}: {} {}; {} WAL files of its queues marked, {} RegionServers "
                "rolled: drained once none of them is listed",
                peer, table,
                unclosed.empty() ? "closed on its current servers" : "reopened read-only just now",
                mark->wals.size(), mark->servers_rolled);
            if (!mark->roll_failed.empty()) {
              spdlog::warn(
                  "capture peer {}: {} RegionServers did not roll their WAL ({}); the drain of {} "
                  "waits for their next roll",
                  peer, mark->roll_failed.size(), mark->roll_failed.front(), table);
            }
          } else {
            waiting = "a mark of the peer's queues (" + marked.status().message() + ")";
          }
        }
        if (mark) {
          auto unshipped = bridge_.UnshippedCaptureWals(peer, mark->wals);
          if (unshipped.ok() && unshipped->count == 0) {
            if (!unclosed.empty()) {
              spdlog::info("{}: drained into {} by its queues ({} of {} regions' closes in yet)",
                           table, ack_table, drained, described.regions.size());
            }
            return true;
          }
          waiting = unshipped.ok()
                        ? std::to_string(unshipped->count) +
                              " WAL files the peer's queues held when the table stopped taking "
                              "writes (first: " +
                              (unshipped->first.empty() ? "?" : unshipped->first.front()) + ")"
                        : "the peer's queues (" + unshipped.status().message() + ")";
        }
      } else {
        waiting = recovered.ok() ? "the WALs of a RegionServer that died: " + recovered->front()
                                 : "the peer's queues (" + recovered.status().message() + ")";
      }
    }
    if (Interrupted() || std::chrono::steady_clock::now() >= deadline) {
      spdlog::info("{}: {} of {} regions drained into {} (waiting for {})", table, drained,
                   described.regions.size(), ack_table, waiting);
      if (!Interrupted() && !unclosed.empty() &&
          NowMs() - fence_started_ms >= options_.ack_timeout.count()) {
        ReopenUnclosed(table, unclosed);
      }
      return false;
    }
    Sleep(options_.ack_poll);
  }
}

void Migrator::ReopenUnclosed(const std::string& table, const std::vector<std::string>& unclosed) {
  if (!MayAct()) return;
  spdlog::warn(
      "{}: {} of its regions show no close since the fence began (first: {}); a RegionServer "
      "that died while they reopened writes none: reopening them, so that their close reaches "
      "the capture",
      table, unclosed.size(), unclosed.front());
  Status reopened = bridge_.ReopenRegions(table, unclosed);
  if (!reopened.ok()) {
    spdlog::warn("{}: reopening its unclosed regions: {} (tried again on the next run)", table,
                 reopened.message());
  }
}

}  // namespace presplit::daemon::migrate
