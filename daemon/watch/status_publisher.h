// Puts what the load watcher decided into each watched document's status znode
// (<root>/status/<ns>:<table>), so the decisions outlive the leader and can be read without its
// HTTP endpoint. The status belongs to the reconciler, which carries this object over when it
// rewrites the status; the publisher only ever changes the "load" member:
//   "load": {"decisions": [...DecisionsJson, oldest first, at most decisions_kept...],
//            "size_history": [{"time_ms", "size_bytes", "region_count"}, ...],
//            "physical_table": "ns:t__g2",   (the table watched and split for the document)
//            "split_hold": null | "migration under way (...)",  (why splits are held)
//            "updated_at_ms": ...}
// Decisions are appended: those already in the znode (e.g. from a previous leader, or about an
// earlier generation: each names its physical_table) are kept ahead of the new ones, the last
// decisions_kept in all. size_history gains one sample per size_sample_interval_ms (the last
// size_samples_kept) of the serving physical table, so `presplitctl advise` can tell growth.
//
// A znode is written only when its document's decisions changed since the last write, a size
// sample is due, or the physical table watched or the hold changed: never one write per poll.
// Writes are compare-and-set on the version just read; on a conflict (the reconciler or a migration
// wrote meanwhile) the status is read again and the "load" member merged into the newer status,
// never overwriting it. A table without a status yet is skipped until the reconciler has written
// one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "daemon/watch/load_watcher.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon::watch {

struct StatusPublisherOptions {
  std::string status_path;  // <root>/status
  // "May I act?": asked right before every write; false writes nothing (a deposed leader).
  std::function<bool()> may_act = nullptr;
  size_t decisions_kept = 20;
  int64_t size_sample_interval_ms = 3'600'000;
  size_t size_samples_kept = 48;
  int max_attempts = 3;  // per table and call, on version conflicts
};

struct PublishResult {
  int written = 0;  // status znodes written
  int failed = 0;   // tables left for the next call (ZooKeeper errors, lost races, lease lost)
};

class StatusPublisher {
 public:
  StatusPublisher(ZkClient& zk, StatusPublisherOptions options);

  // Writes the documents of `snapshot` whose decisions, physical table or hold changed or whose
  // size sample is due, at `now_ms`. Errors are logged and counted in the result; the document
  // is tried again next call.
  PublishResult Publish(const LoadSnapshot& snapshot, int64_t now_ms);

  // Forgets what was written (e.g. on becoming leader again: another daemon may have written
  // meanwhile); the next call compares with the znodes afresh.
  void Forget() { written_.clear(); }

 private:
  struct Written {
    std::string decisions;  // DecisionsJson of the watcher's list, as last written
    int64_t last_size_sample_ms = -1;
    std::string watching;  // physical table and hold, as last written
  };
  // One document: true when written, false when there was nothing to write (or no status yet).
  // `physical` is "" when the snapshot has no serving table for it (nothing said about it).
  Result<bool> PublishTable(const std::string& table, const std::string& decisions_json,
                            const TableLoad* load, bool size_sample_due,
                            const std::string& physical, const std::string& hold, int64_t now_ms);

  ZkClient& zk_;
  const StatusPublisherOptions options_;
  std::map<std::string, Written> written_;  // by table
};

}  // namespace presplit::daemon::watch
