#include "daemon/watch/watched_tables.h"

#include <algorithm>

namespace presplit::daemon::watch {

LoadSplitSettings SettingsFromDocument(const std::optional<LoadSplitConfig>& load_split) {
  LoadSplitSettings settings;
  if (!load_split) return settings;  // enabled = false
  settings.enabled = true;
  settings.dry_run = load_split->dry_run;
  settings.rule.min_requests_per_s = load_split->min_requests_per_s;
  settings.rule.mean_multiple = load_split->mean_multiple;
  settings.rule.sustain_ms = load_split->sustain_s * 1000;
  settings.max_regions = load_split->max_regions;
  settings.region_cooldown_ms = load_split->cooldown_s * 1000;
  settings.unsplittable_ms = load_split->unsplittable_s * 1000;
  // A split that was accepted has this long to show its halves before the region counts as
  // unsplittable: at most two minutes, and well inside the cool-down.
  settings.split_grace_ms = std::min<int64_t>(120'000, settings.region_cooldown_ms / 2);
  return settings;
}

LoadSplitSettings SettingsFromDocument(const TableConfig& config) {
  LoadSplitSettings settings = SettingsFromDocument(config.load_split);
  settings.point_from_key_sample = !config.split_policy.has_value();
  auto layout = LayoutFromConfig(config.layout);
  // A parsed document's layout is valid; should it not be, no point is computed at all.
  if (layout.ok()) {
    settings.layout = *layout;
  } else if (settings.point_from_key_sample) {
    settings.enabled = false;
  }
  return settings;
}

Result<std::map<std::string, LoadSplitSettings>> ReadWatchedTables(ZkClient& zk,
                                                                   const std::string& tables_path) {
  PRESPLIT_ASSIGN_OR_RETURN(auto names, zk.GetChildren(tables_path, /*watch=*/false));
  std::map<std::string, LoadSplitSettings> tables;
  for (const auto& name : names) {
    auto node = zk.Get(JoinZkPath(tables_path, name), /*watch=*/false);
    if (!node.ok()) continue;
    auto config = ParseTableConfig(node->data);
    if (!config.ok()) continue;
    tables[config->FullName()] = SettingsFromDocument(*config);
  }
  return tables;
}

}  // namespace presplit::daemon::watch
