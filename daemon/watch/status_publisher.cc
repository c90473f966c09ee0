#include "daemon/watch/status_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon/watch/load_report.h"
#include "presplit/json_bounds.h"

namespace presplit::daemon::watch {
namespace {

using nlohmann::json;

// Two decisions are the same when they were taken at the same time on the same region with the
// same outcome: how a decision already in the znode is recognised among the watcher's own.
std::string Identity(const json& decision) {
  if (!decision.is_object()) return decision.dump();
  return std::to_string(decision.value("time_ms", int64_t{0})) + "/" +
         decision.value("region", std::string()) + "/" + decision.value("action", std::string()) +
         "/" + decision.value("reason", std::string());
}

// The znode's decisions followed by the new ones it lacks, oldest first, the last `kept`.
json MergeDecisions(const json& recorded, const json& fresh, size_t kept) {
  json merged = json::array();
  std::set<std::string> fresh_ids;
  for (const auto& d : fresh) fresh_ids.insert(Identity(d));
  if (recorded.is_array()) {
    for (const auto& d : recorded) {
      if (d.is_object() && !fresh_ids.count(Identity(d))) merged.push_back(d);
    }
  }
  for (const auto& d : fresh) merged.push_back(d);
  std::stable_sort(merged.begin(), merged.end(), [](const json& a, const json& b) {
    return a.value("time_ms", int64_t{0}) < b.value("time_ms", int64_t{0});
  });
  if (merged.size() > kept) merged.erase(merged.begin(), merged.end() - static_cast<long>(kept));
  return merged;
}

int64_t LastSampleTime(const json& history) {
  if (!history.is_array() || history.empty() || !history.back().is_object()) return -1;
  return history.back().value("time_ms", int64_t{-1});
}

}  // namespace

StatusPublisher::StatusPublisher(ZkClient& zk, StatusPublisherOptions options)
    : zk_(zk), options_(std::move(options)) {}

PublishResult StatusPublisher::Publish(const LoadSnapshot& snapshot, int64_t now_ms) {
  PublishResult result;
  // Per document: the physical table serving it (its size is the document's) and why splits
  // of any of its tables are held.
  struct Watched {
    const TableLoad* serving = nullptr;
    std::string physical;
    std::string hold;
  };
  std::map<std::string, Watched> watched;
  for (const auto& t : snapshot.tables) {
    Watched& w = watched[t.table];
    if (!t.migration_target) {
      w.serving = &t;
      w.physical = t.physical_table.empty() ? t.table : t.physical_table;
    }
    if (!t.split_hold.empty()) w.hold += (w.hold.empty() ? "" : "; ") + t.split_hold;
  }
  std::set<std::string> tables;
  for (const auto& [table, decisions] : snapshot.decisions) {
    if (!decisions.empty()) tables.insert(table);
  }
  for (const auto& [table, w] : watched) {
    if ((w.serving != nullptr && w.serving->region_count > 0) || !w.hold.empty()) {
      tables.insert(table);
    }
  }
  for (const auto& table : tables) {
    auto found = snapshot.decisions.find(table);
    const std::string decisions =
        found == snapshot.decisions.end() ? "[]" : DecisionsJson(found->second).dump();
    const Watched w = watched.count(table) ? watched.at(table) : Watched{};
    const TableLoad* table_load =
        w.serving != nullptr && w.serving->region_count > 0 ? w.serving : nullptr;
    const std::string watching = w.physical + "\n" + w.hold;
    const Written& before = written_[table];
    const bool decisions_changed = decisions != "[]" && decisions != before.decisions;
    const bool watching_changed = !w.physical.empty() && watching != before.watching;
    const bool size_due = table_load != nullptr && snapshot.polled_at_ms > 0 &&
                          (before.last_size_sample_ms < 0 ||
                           now_ms - before.last_size_sample_ms >= options_.size_sample_interval_ms);
    if (!decisions_changed && !size_due && !watching_changed) continue;
    Result<bool> written = false;
    try {
      written = PublishTable(table, decisions, table_load, size_due, w.physical, w.hold, now_ms);
    } catch (const std::exception& e) {  // a malformed status must not end the worker
      written = Status::Internal(std::string("writing the load decisions threw: ") + e.what());
    }
    if (!written.ok()) {
      ++result.failed;
      spdlog::warn("table {}: load decisions not written to its status (next poll retries): {}",
                   table, written.status().ToString());
    } else if (*written) {
      ++result.written;
    }
  }
  // Tables no longer watched are forgotten.
  std::erase_if(written_, [&](const auto& entry) { return !tables.count(entry.first); });
  return result;
}

Result<bool> StatusPublisher::PublishTable(const std::string& table,
                                           const std::string& decisions_json, const TableLoad* load,
                                           bool size_sample_due, const std::string& physical,
                                           const std::string& hold, int64_t now_ms) {
  const json hold_json = hold.empty() ? json(nullptr) : json(hold);
  const std::string path = JoinZkPath(options_.status_path, table);
  const json fresh = json::parse(decisions_json);
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    auto current = zk_.Get(path, /*watch=*/false);
    if (!current.ok()) {
      if (current.status().code() == StatusCode::kNotFound) {
        // The reconciler writes the status first; until then the decisions stay in /status.
        return false;
      }
      return current.status();
    }
    // Out of json_bounds.h's limits (nested too deep: copying its members would overflow the
    // stack) it is not parsed at all; the reconciler replaces it on its next full pass.
    if (Status bounded = CheckJsonBounds(current->data); !bounded.ok()) {
      return Status::FailedPrecondition("the status cannot be read (" + bounded.message() +
                                        "); left for the reconciler to rewrite");
    }
    json status = json::parse(current->data, nullptr, /*allow_exceptions=*/false);
    if (!status.is_object()) {
      return Status::FailedPrecondition(
          "the status is not a JSON object; left for the "
          "reconciler to rewrite");
    }
    json load_object =
        status.contains("load") && status["load"].is_object() ? status["load"] : json::object();
    const json recorded = load_object.value("decisions", json::array());
    const json merged = MergeDecisions(recorded, fresh, options_.decisions_kept);
    json history = load_object.value("size_history", json::array());
    if (!history.is_array()) history = json::array();
    bool add_sample = false;
    int64_t last_sample_ms = LastSampleTime(history);
    if (size_sample_due && load != nullptr &&
        (last_sample_ms < 0 || now_ms - last_sample_ms >= options_.size_sample_interval_ms)) {
      add_sample = true;
      history.push_back(json{{"time_ms", now_ms},
                             {"size_bytes", load->total_size_bytes},
                             {"region_count", load->region_count}});
      if (history.size() > options_.size_samples_kept) {
        history.erase(history.begin(),
                      history.end() - static_cast<long>(options_.size_samples_kept));
      }
      last_sample_ms = now_ms;
    }
    // What is watched for the document, and why splits are held (not known without a load).
    const bool watching_same =
        physical.empty() || (load_object.value("physical_table", json()) == json(physical) &&
                             load_object.value("split_hold", json()) == hold_json);
    Written& written = written_[table];
    if (merged == recorded && !add_sample && watching_same) {
      // Already there (written before a restart, or by this daemon in an earlier term).
      written.decisions = decisions_json;
      written.last_size_sample_ms = last_sample_ms;
      if (!physical.empty()) written.watching = physical + "\n" + hold;
      return false;
    }
    load_object["decisions"] = merged;
    load_object["size_history"] = history;
    if (!physical.empty()) {
      load_object["physical_table"] = physical;
      load_object["split_hold"] = hold_json;
    }
    load_object["updated_at_ms"] = now_ms;
    status["load"] = load_object;
    if (options_.may_act && !options_.may_act()) {
      return Status::FailedPrecondition("not the leader: load decisions not written");
    }
    Status s = zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                       current->version);
    if (s.ok()) {
      written.decisions = decisions_json;
      written.last_size_sample_ms = last_sample_ms;
      if (!physical.empty()) written.watching = physical + "\n" + hold;
      return true;
    }
    if (s.code() != StatusCode::kFailedPrecondition) {
      return s;  // NotFound (removed meanwhile: its document is gone) or ZooKeeper trouble
    }
    // Another writer changed the status since it was read: merge into the newer one.
  }
  return Status::FailedPrecondition("the status kept changing under " +
                                    std::to_string(options_.max_attempts) + " attempts");
}

}  // namespace presplit::daemon::watch
