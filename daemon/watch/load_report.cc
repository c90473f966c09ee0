#include "daemon/watch/load_report.h"

#include <string>

#include "presplit/bytes.h"

namespace presplit::daemon::watch {

using nlohmann::ordered_json;

ordered_json DecisionsJson(const std::deque<SplitDecision>& decisions) {
  ordered_json list = ordered_json::array();
  for (const auto& d : decisions) {
    ordered_json item;
    item["time_ms"] = d.time_ms;
    item["physical_table"] = d.physical_table.empty() ? d.table : d.physical_table;
    item["region"] = d.region;
    item["start_key"] = ToStringBinary(d.start_key);
    item["split_key"] =
        d.split_key.empty() ? ordered_json(nullptr) : ordered_json(ToStringBinary(d.split_key));
    item["requests_per_s"] = d.requests_per_s;
    item["table_mean_per_s"] = d.table_mean_per_s;
    item["action"] = ActionName(d.action);
    item["reason"] = d.reason;
    if (d.reason == "region_budget") item["max_regions"] = d.max_regions;
    if (!d.error.empty()) item["error"] = d.error;
    if (d.is_move()) {
      item["from_server"] = d.from_server;
      item["to_server"] = d.to_server;
      item["sibling"] = d.sibling;
      item["from_server_per_s"] = d.from_server_per_s;
      item["to_server_per_s"] = d.to_server_per_s;
    }
    list.push_back(std::move(item));
  }
  return list;
}

ordered_json LoadSnapshotJson(const LoadSnapshot& snapshot) {
  ordered_json out;
  out["polled_at_ms"] = snapshot.polled_at_ms;
  out["error"] = snapshot.last_error;
  ordered_json tables = ordered_json::array();
  for (const auto& t : snapshot.tables) {
    ordered_json table;
    table["table"] = t.table;
    table["physical_table"] = t.physical_table.empty() ? t.table : t.physical_table;
    table["generation"] = t.generation;
    table["role"] = t.migration_target ? "migration_target" : "serving";
    table["migration"] = t.migration_target_table.empty()
                             ? ordered_json(nullptr)
                             : ordered_json{{"target", t.migration_target_table}};
    table["split_hold"] = t.split_hold.empty() ? ordered_json(nullptr) : ordered_json(t.split_hold);
    table["region_count"] = t.region_count;
    table["requests_per_s"] = t.total_requests_per_s;
    table["mean_requests_per_s"] = t.mean_requests_per_s;
    table["max_requests_per_s"] = t.max_requests_per_s;
    table["request_skew"] = t.request_skew;
    table["coefficient_of_variation"] = t.coefficient_of_variation;
    table["size_bytes"] = t.total_size_bytes;
    table["size_skew"] = t.size_skew;
    table["hot_regions"] = t.hot_regions;
    ordered_json regions = ordered_json::array();
    for (const auto& r : t.regions) {
      ordered_json region;
      region["region"] = r.region;
      region["start_key"] = ToStringBinary(r.start_key);
      region["end_key"] = ToStringBinary(r.end_key);
      region["server"] = r.server;
      region["read_per_s"] = r.has_rate ? ordered_json(r.read_per_s) : ordered_json(nullptr);
      region["write_per_s"] = r.has_rate ? ordered_json(r.write_per_s) : ordered_json(nullptr);
      region["size_bytes"] = r.size_bytes;
      region["store_files"] = r.store_files;
      region["locality"] = r.locality;
      region["hot"] = r.hot;
      // How long its rate has stayed above the hot rule: hot once this reaches sustain_ms.
      region["above_rule_ms"] = r.above_rule_ms;
      regions.push_back(std::move(region));
    }
    table["regions"] = std::move(regions);
    // The document's decisions about this physical table (another generation's stay in the
    // status znode).
    std::deque<SplitDecision> mine;
    if (auto decisions = snapshot.decisions.find(t.table); decisions != snapshot.decisions.end()) {
      const std::string& physical = t.physical_table.empty() ? t.table : t.physical_table;
      for (const auto& d : decisions->second) {
        if ((d.physical_table.empty() ? d.table : d.physical_table) == physical) mine.push_back(d);
      }
    }
    table["decisions"] = DecisionsJson(mine);
    tables.push_back(std::move(table));
  }
  out["tables"] = std::move(tables);
  out["splits_total"] = snapshot.splits_total;
  ordered_json skips = ordered_json::object();
  for (const auto& [reason, count] : snapshot.skips_total) skips[reason] = count;
  out["skips_total"] = std::move(skips);
  out["moves_total"] = snapshot.moves_total;
  ordered_json move_skips = ordered_json::object();
  for (const auto& [reason, count] : snapshot.move_skips_total) move_skips[reason] = count;
  out["move_skips_total"] = std::move(move_skips);
  return out;
}

void AppendLoadMetrics(metrics::MetricsText& out, const LoadSnapshot& snapshot, int64_t now_ms) {
  using metrics::Metric;
  // Labelled by document and physical table: while a migration copies, a document has two.
  auto per_table = [&](Metric metric, auto value) {
    out.Family(metric);
    for (const auto& t : snapshot.tables) {
      out.Value(metric,
                {{"table", t.table},
                 {"physical_table", t.physical_table.empty() ? t.table : t.physical_table}},
                value(t));
    }
  };
  per_table(Metric::presplit_table_region_count, [](const TableLoad& t) { return t.region_count; });
  per_table(Metric::presplit_table_max_region_request_rate,
            [](const TableLoad& t) { return t.max_requests_per_s; });
  per_table(Metric::presplit_table_request_skew, [](const TableLoad& t) { return t.request_skew; });
  per_table(Metric::presplit_table_hot_regions, [](const TableLoad& t) { return t.hot_regions; });
  out.Value(Metric::presplit_load_splits_total, snapshot.splits_total);
  out.Family(Metric::presplit_load_split_skips_total);
  for (const auto& [reason, count] : snapshot.skips_total) {
    out.Value(Metric::presplit_load_split_skips_total, {{"reason", reason}}, count);
  }
  out.Value(Metric::presplit_load_moves_total, snapshot.moves_total);
  out.Family(Metric::presplit_load_move_skips_total);
  for (const auto& [reason, count] : snapshot.move_skips_total) {
    out.Value(Metric::presplit_load_move_skips_total, {{"reason", reason}}, count);
  }
  if (snapshot.polled_at_ms > 0) {
    out.Value(Metric::presplit_load_poll_age_seconds, (now_ms - snapshot.polled_at_ms) / 1000.0);
  }
}

}  // namespace presplit::daemon::watch
