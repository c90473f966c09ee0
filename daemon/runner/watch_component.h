// The load watcher: every presplitd polls the region load of every documented table (its own
// HBase connection) and records it in the key visualizer's history, standbys too, so that a new
// leader has it already; the leader also scores it, splits the hot regions of the tables whose
// documents turn load splits on, moves hot daughters, and writes the decisions into the tables'
// statuses. Not started when load_watch_interval_s is 0.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/keyviz/keyviz_query.h"
#include "daemon/keyviz/load_history.h"
#include "daemon/leader/lease_fence.h"
#include "daemon/runner/component.h"
#include "daemon/runner/connect_on_demand_admin.h"
#include "daemon/runner/daemon_context.h"
#include "daemon/util/periodic_worker.h"
#include "daemon/watch/load_watcher.h"
#include "daemon/watch/status_publisher.h"
#include "daemon/watch/watched_tables.h"

namespace presplit::daemon {

class WatchComponent final : public Component {
 public:
  struct Links {
    // Where the table documents are (the reconciler's tables path).
    std::string tables_path;
    // A number that moves when the watched tables may have changed: a document created, edited
    // or removed, a migration started, switched, finished or aborted. The documents are read
    // again when it moves, and at the resync interval anyway.
    std::function<uint64_t()> table_changes;
  };

  // InvalidArgument when the key visualizer's settings do not fit together.
  static Result<std::unique_ptr<WatchComponent>> Create(const DaemonContext& context, Links links);

  std::string_view name() const override { return "watch"; }
  Status Start() override;
  void Stop() override;
  void AppendMetrics(metrics::MetricsText& out) const override;
  void AppendStatus(nlohmann::ordered_json& status) const override;
  uint64_t exceptions_caught() const override { return 0; }  // counted as poll failures

  // The key visualizer's history, for GET /keyviz.json (thread-safe).
  keyviz::HistoryReader history_reader() const;
  keyviz::TableLister history_tables() const;

 private:
  WatchComponent(const DaemonContext& context, Links links, keyviz::LoadHistoryOptions history);
  void Poll();
  void RecordHistory(const watch::LoadSnapshot& snapshot);

  const DaemonContext& context_;
  const Links links_;
  const keyviz::LoadHistoryOptions history_options_;
  std::unique_ptr<ConnectOnDemandAdmin> admin_;
  LeaseFence publish_lease_;
  watch::LoadWatcher load_watcher_;
  watch::StatusPublisher status_publisher_;
  keyviz::LoadHistory load_history_;
  std::vector<watch::WatchedTable> watched_tables_;  // worker only, as the load watcher has them
  bool history_was_refusing_ = false;                // worker only
  bool was_leading_ = false;                         // worker only
  std::chrono::steady_clock::time_point last_tables_read_ =
      std::chrono::steady_clock::time_point::min();  // worker only
  uint64_t tables_read_at_changes_ = 0;              // worker only
  std::atomic<uint64_t> polls_{0}, poll_failures_{0}, status_writes_{0};
  PeriodicWorker worker_;  // last: its thread uses everything above
};

}  // namespace presplit::daemon
