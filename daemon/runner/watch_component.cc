#include "daemon/runner/watch_component.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "daemon/keyviz/load_samples.h"
#include "daemon/watch/load_report.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {

namespace {

keyviz::LoadHistoryOptions HistoryOptionsOf(const DaemonOptions& options) {
  keyviz::LoadHistoryOptions history;
  history.fine = {int64_t{options.keyviz_fine_resolution_s} * 1000,
                  int64_t{options.keyviz_fine_retention_h} * 3'600'000};
  history.coarse = {int64_t{options.keyviz_coarse_resolution_s} * 1000,
                    int64_t{options.keyviz_coarse_retention_h} * 3'600'000};
  history.memory_budget_bytes = size_t(options.keyviz_memory_budget_mb) << 20;
  return history;
}

watch::LoadWatcherOptions WatcherOptionsOf(const DaemonContext& context) {
  watch::LoadWatcherOptions options;
  options.limits.max_splits = context.options.load_split_max_per_window;
  options.limits.window_ms = int64_t{context.options.load_split_window_s} * 1000;
  LeaderElection* election = &context.election;
  options.may_act = [election] { return election->HoldsLease(); };
  return options;
}

watch::StatusPublisherOptions PublisherOptionsOf(const DaemonContext& context, LeaseFence& lease) {
  watch::StatusPublisherOptions options;
  options.status_path = JoinZkPath(context.options.zk_root, "status");
  options.may_act = [&lease] { return lease.Check(); };
  options.decisions_kept = WatcherOptionsOf(context).decisions_kept;  // as the watcher keeps
  return options;
}

}  // namespace

Result<std::unique_ptr<WatchComponent>> WatchComponent::Create(const DaemonContext& context,
                                                               Links links) {
  keyviz::LoadHistoryOptions history = HistoryOptionsOf(context.options);
  PRESPLIT_RETURN_IF_ERROR(keyviz::CheckLoadHistoryOptions(history));
  return std::unique_ptr<WatchComponent>(new WatchComponent(context, std::move(links), history));
}

WatchComponent::WatchComponent(const DaemonContext& context, Links links,
                               keyviz::LoadHistoryOptions history)
    : context_(context),
      links_(std::move(links)),
      history_options_(history),
      admin_(std::make_unique<ConnectOnDemandAdmin>(context.jvm, context.hbase_settings,
                                                    context.kerberos)),
      publish_lease_(context.election, context.zk),
      load_watcher_(*admin_, WatcherOptionsOf(context), WallMs),
      status_publisher_(publish_lease_.zk(), PublisherOptionsOf(context, publish_lease_)),
      load_history_(history),
      worker_("load-watch",
              std::chrono::seconds(std::max(1, context.options.load_watch_interval_s)),
              [this](bool /*scheduled*/) { Poll(); }) {}

Status WatchComponent::Start() {
  if (context_.options.load_watch_interval_s > 0) worker_.Start();
  return Status::Ok();
}

void WatchComponent::Stop() { worker_.Stop(); }

void WatchComponent::RecordHistory(const watch::LoadSnapshot& snapshot) {
  auto result = load_history_.Record(snapshot.polled_at_ms,
                                     keyviz::SamplesFromLoad(snapshot, watched_tables_));
  const bool refusing =
      result.tables_refused + result.regions_truncated + result.regions_overlapping > 0;
  // Once when it starts, not at every poll: the counters on /metrics say how much since.
  if (refusing && !history_was_refusing_) {
    spdlog::warn(
        "key visualizer: this poll's load is more than its history takes: {} tables refused "
        "(more than {} tables, or a key longer than {} bytes), {} regions beyond {} per "
        "table, {} regions overlapping another",
        result.tables_refused, history_options_.max_tables, history_options_.max_key_bytes,
        result.regions_truncated, history_options_.max_regions_per_table,
        result.regions_overlapping);
  }
  history_was_refusing_ = refusing;
  if (result.histories_restarted > 0) {
    spdlog::warn(
        "key visualizer: the wall clock stepped back (this poll at {} ms): the history of {} "
        "tables starts again",
        snapshot.polled_at_ms, result.histories_restarted);
  }
}

void WatchComponent::Poll() {
  // Every task on a worker catches what it throws: a bad answer must not end the daemon.
  try {
    if (!context_.may_call_hbase()) return;
    // A standby polls too, for the key visualizer's history (and the rates, so that it can split
    // at once when it leads), but decides nothing and writes nothing.
    const bool leading = context_.election.IsLeader();
    if (leading && !was_leading_) status_publisher_.Forget();  // others wrote
    was_leading_ = leading;
    // The documents and their statuses are re-read as soon as a reconcile pass saw a document
    // created, edited or removed or a migration moved, and at the resync interval anyway. Not
    // only at the interval: a table documented a second after a read would go unwatched for up
    // to a minute, and its hot regions with it; after a switch, the old generation would be
    // watched instead of the new one.
    const auto now = std::chrono::steady_clock::now();
    const uint64_t changes = links_.table_changes ? links_.table_changes() : 0;
    if (now - last_tables_read_ >= std::chrono::seconds(context_.options.resync_interval_s) ||
        last_tables_read_ == std::chrono::steady_clock::time_point::min() ||
        changes != tables_read_at_changes_) {
      auto tables = watch::ReadWatchedTables(context_.zk, links_.tables_path,
                                             JoinZkPath(context_.options.zk_root, "status"));
      if (tables.ok()) {
        watched_tables_ = *tables;
        load_watcher_.SetTables(std::move(tables).value());
        last_tables_read_ = now;
        tables_read_at_changes_ = changes;
      } else {
        spdlog::warn("load watcher: cannot read the documents: {}", tables.status().ToString());
      }
    }
    Status polled = load_watcher_.Poll(/*plan=*/leading);
    if (leading) ++polls_;  // the counters are the leader's (docs/reference/metrics.md)
    if (!polled.ok()) {
      if (leading) ++poll_failures_;
      spdlog::warn("load watcher: poll failed, retrying in {} s: {}",
                   context_.options.load_watch_interval_s, polled.ToString());
    } else {
      const watch::LoadSnapshot snapshot = load_watcher_.snapshot();
      if (leading) status_writes_ += status_publisher_.Publish(snapshot, WallMs()).written;
      RecordHistory(snapshot);
    }
  } catch (const std::exception& e) {
    ++poll_failures_;
    spdlog::error("load watcher: poll threw, retrying on the next one: {}", e.what());
  }
}

void WatchComponent::AppendStatus(nlohmann::ordered_json& status) const {
  status["load"] = watch::LoadSnapshotJson(load_watcher_.snapshot());
}

void WatchComponent::AppendMetrics(metrics::MetricsText& out) const {
  using metrics::Metric;
  out.Value(Metric::presplit_load_polls_total, polls_);
  out.Value(Metric::presplit_load_poll_failures_total, poll_failures_);
  out.Value(Metric::presplit_load_status_writes_total, status_writes_);
  watch::AppendLoadMetrics(out, load_watcher_.snapshot(), WallMs());
  const auto history = load_history_.counters();
  out.Value(Metric::presplit_keyviz_history_bytes, load_history_.MemoryBytes());
  out.Value(Metric::presplit_keyviz_history_columns, load_history_.Columns());
  out.Value(Metric::presplit_keyviz_history_tables, load_history_.Tables().size());
  out.Value(Metric::presplit_keyviz_columns_dropped_total, history.columns_dropped_by_budget);
  out.Value(Metric::presplit_keyviz_input_refused_total,
            history.tables_refused + history.regions_refused);
}

keyviz::HistoryReader WatchComponent::history_reader() const {
  const keyviz::LoadHistory* history = &load_history_;
  return [history](const std::string& table, int64_t from_ms, int64_t to_ms) {
    return history->Read(table, from_ms, to_ms);
  };
}

keyviz::TableLister WatchComponent::history_tables() const {
  const keyviz::LoadHistory* history = &load_history_;
  return [history] { return history->Tables(); };
}

}  // namespace presplit::daemon
