// Change capture: the replication peers that ship every write of one generation to the other
// (presplit-hbase.jar's RekeyingReplicationEndpoint on the RegionServers), and the ways a
// migration learns how far a peer has shipped:
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
//
// CapturePeers is a service of the phases: it holds no plan, only the lock that keeps a peer's
// addition and a drain's WAL roll apart. Thread-safe: the drivers of several migrations share
// it. Every mutation asks DriverControl::MayAct first; every wait ends when Interrupted says so.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/migrate/driver_control.h"
#include "daemon/migrate/migration_bridge.h"
#include "daemon/migrate/migration_plan.h"

namespace presplit::daemon::migrate {

// Bulk loads the capture noticed for the first time (CapturePeers::CollectNotices).
struct BulkLoadsSeen {
  int64_t count = 0;
  std::string example;  // one of them: "<region>@<ms>"
};

// How long the capture's waits last (MigratorOptions has the daemon's values and their docs).
struct CaptureWaits {
  std::string zk_root = "/presplit";  // the peers' owner mark
  std::chrono::milliseconds ack_timeout{120000};
  std::chrono::milliseconds ack_poll{250};
  std::chrono::milliseconds recovery_timeout{900000};
};

class CapturePeers {
 public:
  // `probes` counts the probe rounds a peer acknowledged (the daemon's metric).
  CapturePeers(MigrationBridge& bridge, HBaseAdmin& admin, DriverControl& control,
               CaptureWaits waits, std::atomic<uint64_t>& probes);
  CapturePeers(const CapturePeers&) = delete;
  CapturePeers& operator=(const CapturePeers&) = delete;

  // Adds the forward peer (old generation -> new) or the reverse one (new -> old) unless it
  // exists, recording its id and start in the plan.
  Status EnsureCapture(MigrationPlan& plan, bool reverse);
  // Removes a peer of the plan's (NotFound-safe); `why` is for the log.
  Status RemoveCapture(const std::string& peer, const char* why);
  // Writes a probe into every region of `table` and waits (up to ack_timeout) until `peer`,
  // shipping `table` into `ack_table`, acknowledged every one and holds no dead RegionServer's
  // WALs any more (up to recovery_timeout more), then until the WAL files its queues held at
  // that moment (every live WAL rolled) are shipped (up to ack_timeout more): every write made
  // to `table` before the probe has been applied to `ack_table`, also one a region took on a
  // server it has since moved away from. Unavailable when it did not in time.
  Status AwaitShipped(const std::string& peer, const std::string& table,
                      const std::string& ack_table);
  // The WAL files the peer's queues hold now, every live RegionServer's WAL rolled (never while
  // a peer is being added).
  Result<QueueMark> MarkQueues(const std::string& peer);
  // Marks the peer's queues (every live WAL rolled) and waits, up to ack_timeout, until none of
  // the files they held is listed any more. Unavailable when they were not shipped in time.
  Status AwaitQueuesShipped(const std::string& peer, const std::string& table);
  // The peer's queues that still hold a dead RegionServer's WALs (empty: none, or no peer).
  Result<std::vector<std::string>> RecoveredQueues(const std::string& peer);
  // What the peer shipping into `ack_table` could not ship (bulk loads, rows that do not fit
  // the layout), into the plan's capture record; logs what is new. Returns the bulk loads seen
  // for the first time: the guard refuses bulk loads from before the peer existed (and its
  // reopen puts every earlier WAL entry below what the peer skips), so each one got past it.
  Result<BulkLoadsSeen> CollectNotices(MigrationPlan& plan, const std::string& ack_table);
  // The latest close of every region of `table` the peer shipped into `ack_table`.
  Result<std::map<std::string, int64_t>> ClosesShipped(const std::string& ack_table);
  // Whether `peer` has shipped every edit of the fenced (read-only) `table` into `ack_table`:
  // every region of it has been closed since `before` and the close shipped, no queue of the peer
  // holds a dead RegionServer's WALs, and then, since a close on a region's current server says
  // nothing of the edits a server it moved, split or merged away from has still to ship, none of
  // the WAL files the peer's queues listed once the closes were in (the queue mark, taken once a
  // call, every live server's WAL rolled) is listed any more. Waits up to ack_timeout (or
  // `timeout`, when it is positive: the switch's bounded pause). The drain of a fenced generation,
  // which began at fence_started_ms. A region still without a close once the fence has lasted
  // ack_timeout is reopened (ReopenUnclosed).
  // `reopened_now`: this caller's SetReadOnly changed the table just now, and that change
  // returns only once every region reopened read-only: no write can follow, so the queues are
  // marked at once, without waiting for the closes (which shortens the switch's pause). A drain
  // resumed on a table read-only already has no such proof and waits for the closes.
  Result<bool> AwaitDrained(const std::string& peer, const std::string& table,
                            const std::string& ack_table,
                            const std::map<std::string, int64_t>& before, int64_t fence_started_ms,
                            std::chrono::milliseconds timeout = std::chrono::milliseconds(0),
                            bool reopened_now = false);
  // Closes and reopens the regions of a fenced `table` that show no close since the fence
  // began. A RegionServer that dies while the read-only change reopens its regions writes no
  // close for them; they open read-only elsewhere and no close of them would ever come, so the
  // drain would wait forever. Their edits from before the crash are in the dead server's WALs,
  // which AwaitDrained waits for anyway. Harmless to a region that was only slow to ship: the
  // generation is read-only, and any close after `before` ends its wait.
  void ReopenUnclosed(const std::string& table, const std::vector<std::string>& unclosed);

 private:
  // The reason an interrupted wait gives.
  Status Interrupted() const;

  MigrationBridge& bridge_;
  HBaseAdmin& admin_;
  DriverControl& control_;
  const CaptureWaits waits_;
  std::atomic<uint64_t>& probes_;
  // Held while a capture peer is added and while a drain rolls the RegionServers' WALs: a peer
  // added while a roll is half done has made HBase abort the RegionServer (its queue lost the new
  // file's position), and a RegionServer answers a roll before it is done.
  std::mutex wal_roll_mu_;
};

}  // namespace presplit::daemon::migrate
