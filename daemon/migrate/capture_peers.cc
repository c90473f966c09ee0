// The capture peers' service: see capture_peers.h.
#include "daemon/migrate/capture_peers.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

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

CapturePeers::CapturePeers(MigrationBridge& bridge, HBaseAdmin& admin, DriverControl& control,
                           CaptureWaits waits, std::atomic<uint64_t>& probes)
    : bridge_(bridge),
      admin_(admin),
      control_(control),
      waits_(std::move(waits)),
      probes_(probes) {}

Status CapturePeers::Interrupted() const {
  return Status::Unavailable(control_.Stopping() ? "stopping" : "the lease is lost");
}

Status CapturePeers::EnsureCapture(MigrationPlan& plan, bool reverse) {
  std::string& peer = reverse ? plan.capture.reverse_peer : plan.capture.peer;
  int64_t& started_ms = reverse ? plan.capture.reverse_started_ms : plan.capture.started_ms;
  if (peer.empty()) peer = reverse ? ReversePeerOf(plan.target) : CapturePeerOf(plan.target);
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  // Both peers carry the mark of the migration (its target): neither ships the other's writes.
  CaptureSpec spec =
      reverse
          ? CaptureSpec{peer,        plan.target,   plan.source, plan.new_layout, plan.old_layout,
                        plan.target, waits_.zk_root}
          : CaptureSpec{peer,        plan.source,   plan.target, plan.old_layout, plan.new_layout,
                        plan.target, waits_.zk_root};
  // Never while a drain's WAL roll is under way (see wal_roll_mu_).
  PRESPLIT_ASSIGN_OR_RETURN(bool added, [&] {
    std::lock_guard<std::mutex> roll(wal_roll_mu_);
    return bridge_.EnsureCapture(spec);
  }());
  if (started_ms == 0) started_ms = control_.NowMs();
  spdlog::info("migration {}: {}capture peer {} {}: every write to {} is shipped to {}{}",
               plan.table, reverse ? "reverse " : "", peer, added ? "added" : "already there",
               spec.source_table, spec.target_table, reverse ? " (a rollback loses nothing)" : "");
  return Status::Ok();
}

Status CapturePeers::RemoveCapture(const std::string& peer, const char* why) {
  if (peer.empty()) return Status::Ok();
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  PRESPLIT_ASSIGN_OR_RETURN(bool removed, bridge_.RemoveCapture(peer));
  if (removed) spdlog::info("capture peer {} removed ({})", peer, why);
  return Status::Ok();
}

Status CapturePeers::AwaitShipped(const std::string& peer, const std::string& table,
                                  const std::string& ack_table) {
  if (!control_.MayAct()) return Status::FailedPrecondition("not the leader");
  // A probe id is a moment of this daemon's clock, made unique: it is compared for equality
  // only, never with a RegionServer's clock.
  static std::atomic<int64_t> last_id{0};
  int64_t id = control_.NowMs();
  for (int64_t seen = last_id.load();
       !last_id.compare_exchange_weak(seen, std::max(seen + 1, id));) {
  }
  id = last_id.load();
  PRESPLIT_ASSIGN_OR_RETURN(ProbeRound round, bridge_.Probe(table, id));
  const std::set<std::string> wanted(round.acks.begin(), round.acks.end());
  const auto start = control_.Steady();
  const auto deadline = start + waits_.ack_timeout;
  size_t acked = 0;
  while (true) {
    PRESPLIT_ASSIGN_OR_RETURN(CaptureAcks acks, bridge_.ReadAcks(ack_table, round.id));
    std::set<std::string> got(acks.probe_acks.begin(), acks.probe_acks.end());
    acked = 0;
    for (const auto& row : wanted) acked += got.count(row);
    if (acked == wanted.size()) break;
    if (control_.Interrupted()) return Interrupted();
    if (control_.Steady() >= deadline) {
      std::string first_missing;
      for (size_t i = 0; i < round.acks.size() && first_missing.empty(); ++i) {
        if (!got.count(round.acks[i])) first_missing = ShownRow(round.rows[i]);
      }
      return Status::Unavailable(
          "the capture peer shipping " + table + " into " + ack_table + " acknowledged " +
          std::to_string(acked) + " of " + std::to_string(wanted.size()) + " probes within " +
          std::to_string(waits_.ack_timeout.count() / 1000) + " s (first missing: the region at '" +
          first_missing +
          "'; is the peer running? hbase shell: list_peers, status 'replication'; the "
          "RegionServers' logs say why a batch was refused)");
    }
    control_.Sleep(waits_.ack_poll);
  }
  // Every live server shipped past the probe; a server that died may still have edits in WALs
  // no live server has shipped yet (HBase claims them after processing the crash).
  const auto recovery_deadline = control_.Steady() + waits_.recovery_timeout;
  auto last_log = std::chrono::steady_clock::time_point{};
  std::string waiting_for;
  while (true) {
    auto recovered = RecoveredQueues(peer);
    if (recovered.ok() && recovered->empty()) {
      if (!waiting_for.empty()) {
        spdlog::info("capture peer {}: the dead RegionServer's WALs are shipped", peer);
      }
      PRESPLIT_RETURN_IF_ERROR(AwaitQueuesShipped(peer, table));
      probes_++;
      return Status::Ok();
    }
    waiting_for =
        recovered.ok()
            ? recovered->front() + (recovered->size() > 1
                                        ? " and " + std::to_string(recovered->size() - 1) + " more"
                                        : "")
            : "(cannot read them: " + recovered.status().message() + ")";
    const auto now = control_.Steady();
    if (now - last_log >= std::chrono::minutes(1)) {
      last_log = now;
      spdlog::info(
          "capture peer {}: probes acknowledged; waiting for the WALs of a RegionServer "
          "that died to be shipped: {}",
          peer, waiting_for);
    }
    if (control_.Interrupted()) return Interrupted();
    if (now >= recovery_deadline) {
      return Status::Unavailable(
          "the capture peer " + peer + " still holds the WALs of a RegionServer that died after " +
          std::to_string(waits_.recovery_timeout.count() / 1000) + " s: " + waiting_for +
          " (hbase shell: status 'replication'; the RegionServer that claimed the queue logs "
          "why it does not ship)");
    }
    control_.Sleep(waits_.ack_poll);
  }
}

Result<QueueMark> CapturePeers::MarkQueues(const std::string& peer) {
  std::lock_guard<std::mutex> roll(wal_roll_mu_);  // never while a peer is being added
  return bridge_.MarkCaptureQueues(peer);
}

Status CapturePeers::AwaitQueuesShipped(const std::string& peer, const std::string& table) {
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
  const auto deadline = control_.Steady() + waits_.ack_timeout;
  while (true) {
    PRESPLIT_ASSIGN_OR_RETURN(UnshippedWals unshipped,
                              bridge_.UnshippedCaptureWals(peer, marked->wals));
    if (unshipped.count == 0) return Status::Ok();
    if (control_.Interrupted()) return Interrupted();
    if (control_.Steady() >= deadline) {
      return Status::Unavailable(
          "the capture peer " + peer + " shipping " + table + " acknowledged its probes, but " +
          std::to_string(unshipped.count) + " WAL files its queues held then were not shipped " +
          "within " + std::to_string(waits_.ack_timeout.count() / 1000) +
          " s (first: " + (unshipped.first.empty() ? std::string("?") : unshipped.first.front()) +
          "; hbase shell: status 'replication'; the RegionServer holding it logs why)");
    }
    control_.Sleep(waits_.ack_poll);
  }
}

Result<std::vector<std::string>> CapturePeers::RecoveredQueues(const std::string& peer) {
  if (peer.empty()) return std::vector<std::string>{};
  PRESPLIT_ASSIGN_OR_RETURN(CapturePeerState state, bridge_.DescribeCapture(peer));
  if (!state.exists) return std::vector<std::string>{};
  return state.recovered_queues;
}

Result<BulkLoadsSeen> CapturePeers::CollectNotices(MigrationPlan& plan,
                                                   const std::string& ack_table) {
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

Result<std::map<std::string, int64_t>> CapturePeers::ClosesShipped(const std::string& ack_table) {
  PRESPLIT_ASSIGN_OR_RETURN(CaptureAcks acks, bridge_.ReadAcks(ack_table, 0));
  return acks.closed;
}

Result<bool> CapturePeers::AwaitDrained(const std::string& peer, const std::string& table,
                                        const std::string& ack_table,
                                        const std::map<std::string, int64_t>& before,
                                        int64_t fence_started_ms, std::chrono::milliseconds timeout,
                                        bool reopened_now) {
  PRESPLIT_ASSIGN_OR_RETURN(TableDescription described, admin_.DescribeTable(table));
  if (!described.exists) return Status::NotFound(table + " is gone");
  const auto deadline = control_.Steady() + (timeout.count() > 0 ? timeout : waits_.ack_timeout);
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
    const bool interrupted = control_.Interrupted();
    if (interrupted || control_.Steady() >= deadline) {
      spdlog::info("{}: {} of {} regions drained into {} (waiting for {})", table, drained,
                   described.regions.size(), ack_table, waiting);
      if (!interrupted && !unclosed.empty() &&
          control_.NowMs() - fence_started_ms >= waits_.ack_timeout.count()) {
        ReopenUnclosed(table, unclosed);
      }
      return false;
    }
    control_.Sleep(waits_.ack_poll);
  }
}

void CapturePeers::ReopenUnclosed(const std::string& table,
                                  const std::vector<std::string>& unclosed) {
  if (!control_.MayAct()) return;
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
