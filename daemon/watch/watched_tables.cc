#include "daemon/watch/watched_tables.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "daemon/migrate/migration_request.h"
#include "presplit/json_bounds.h"

namespace presplit::daemon::watch {
namespace {

using nlohmann::json;

std::string StringField(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

int64_t IntField(const json& object, const char* key, int64_t fallback) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer()
             ? object[key].get<int64_t>()
             : fallback;
}

// The status records a layout in the document's form: it is read with the document's parser, in
// the smallest document around it (as LayoutToJson writes it). Unset when it does not parse.
std::optional<KeyLayout> LayoutOfStatus(const json& layout) {
  if (!layout.is_object()) return std::nullopt;
  const json document = {{"version", kTableConfigVersion},
                         {"table", "presplit:layout_record"},
                         {"layout", layout},
                         {"split", {{"algorithm", "hex-string"}, {"regions", 1}}},
                         {"families", json::array({{{"name", "f"}}})}};
  auto config = ParseTableConfig(document.dump());
  if (!config.ok()) return std::nullopt;
  auto made = LayoutFromConfig(config->layout);
  if (!made.ok()) return std::nullopt;
  return *made;
}

// Why a status znode is left unread: out of json_bounds.h's limits (a status nested too deep
// would overflow the stack of the copies below; standbys read it too), or not a JSON object.
// "" when it is a JSON object within the limits.
std::string WhyStatusUnreadable(const std::string& text, json& parsed) {
  if (Status bounded = CheckJsonBounds(text); !bounded.ok()) return bounded.message();
  parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? "" : "it is not a JSON object";
}

// Said once per status revision: the documents are re-read every few seconds to a minute.
void LogUnreadableStatus(const std::string& name, int64_t mzxid, const std::string& why) {
  static std::mutex mu;
  static std::map<std::string, int64_t> logged;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto [it, inserted] = logged.emplace(name, mzxid);
    if (!inserted && it->second == mzxid) return;
    it->second = mzxid;
  }
  spdlog::error(
      "load watcher: table {}: its status cannot be read ({}): the table is not watched or split "
      "by load until the status is rewritten (the reconciler's next full pass does)",
      name, why);
}

}  // namespace

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
  if (load_split->move_daughters) {
    settings.move_daughters = true;
    settings.move_after_ms = load_split->move_daughters->after_s * 1000;
    settings.move_dry_run = load_split->dry_run || load_split->move_daughters->dry_run;
  }
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

std::vector<WatchedTable> WatchedTablesOf(const TableConfig& config, const json& status) {
  WatchedTable serving;
  serving.table = config.FullName();
  serving.physical_table = serving.table;
  serving.settings = SettingsFromDocument(config);
  // The reconciler's rule: a generation above 1 (written by a migration's switch) names the
  // physical table; the daemon's own statuses of generation 1 name the document's table.
  const int64_t generation = IntField(status, "generation", 1);
  const std::string named = StringField(status, "physical_table");
  if (generation > 1 && !named.empty()) {
    serving.physical_table = named;
    serving.generation = generation;
  }
  // The layout the physical table was built with, when the status records it for that table: a
  // document edited for a coming migration names the next generation's layout, not this one's.
  if (named == serving.physical_table && status.is_object() && status.contains("layout")) {
    if (auto layout = LayoutOfStatus(status["layout"])) serving.settings.layout = *layout;
  }

  std::vector<WatchedTable> watched;
  const json migration =
      status.is_object() && status.contains("migration") ? status["migration"] : json();
  const std::string phase = StringField(migration, "phase");
  const std::string target = StringField(migration, "target");
  // "rolled_back": the status serves the old generation again and the target is gone.
  const bool under_way = !phase.empty() && !migrate::IsFinalMigrationPhase(phase);
  if (under_way) serving.migration_target_table = target;
  watched.push_back(serving);
  if (under_way && !target.empty() && target != serving.physical_table) {
    // Not switched yet: the target fills with the copy. Watched and shown, never split.
    WatchedTable copy = serving;
    copy.physical_table = target;
    copy.generation = IntField(migration, "target_generation", serving.generation + 1);
    copy.migration_target = true;
    // The migration re-salts to the document's layout: the target is built with it.
    copy.settings = SettingsFromDocument(config);
    copy.settings.hold_reason = kMigrationUnderWay;
    copy.split_hold = "migration under way: " + target +
                      " is its target and is not split by load until the switch (its load is "
                      "the copy's)";
    watched.push_back(std::move(copy));
  }
  return watched;
}

Result<std::vector<WatchedTable>> ReadWatchedTables(ZkClient& zk, const std::string& tables_path,
                                                    const std::string& status_path) {
  PRESPLIT_ASSIGN_OR_RETURN(auto names, zk.GetChildren(tables_path, /*watch=*/false));
  std::vector<WatchedTable> serving, targets;
  for (const auto& name : names) {
    auto node = zk.Get(JoinZkPath(tables_path, name), /*watch=*/false);
    if (!node.ok()) continue;
    auto config = ParseTableConfig(node->data);
    if (!config.ok()) continue;
    auto recorded = zk.Get(JoinZkPath(status_path, name), /*watch=*/false);
    json status;
    if (recorded.ok()) {
      // A status that cannot be read is not taken for none: after a switch the document's own
      // name is the old, fenced generation, which must not be polled and split in its place.
      const std::string why = WhyStatusUnreadable(recorded->data, status);
      if (!why.empty()) {
        LogUnreadableStatus(name, recorded->mzxid, why);
        continue;
      }
    }
    for (auto& table : WatchedTablesOf(*config, status)) {
      (table.migration_target ? targets : serving).push_back(std::move(table));
    }
  }
  // Serving tables first, so that a table serving one document is never held as another's
  // migration target.
  std::vector<WatchedTable> watched;
  std::set<std::string> physical;
  for (auto* list : {&serving, &targets}) {
    for (auto& table : *list) {
      if (physical.insert(table.physical_table).second) watched.push_back(std::move(table));
    }
  }
  return watched;
}

}  // namespace presplit::daemon::watch
