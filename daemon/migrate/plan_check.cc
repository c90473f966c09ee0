#include "daemon/migrate/plan_check.h"

#include <nlohmann/json.hpp>

#include "presplit/layout_attributes.h"
#include "presplit/table_config.h"
#include "presplit/table_name.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

Status Refuse(const std::string& why) {
  return Status::InvalidArgument("the plan is not one this daemon would have written: " + why);
}

bool SameJson(const std::string& a, const std::string& b) {
  json pa = json::parse(a, nullptr, false);
  json pb = json::parse(b, nullptr, false);
  return !pa.is_discarded() && !pb.is_discarded() && pa == pb;
}

}  // namespace

Status CheckPlan(const MigrationPlan& plan, const PlanFacts& facts) {
  if (plan.table != facts.znode) {
    return Refuse("its table '" + plan.table + "' is not its znode's name '" + facts.znode + "'");
  }
  if (ValidateTableName(facts.znode).code() != StatusCode::kOk) {
    return Refuse("'" + facts.znode + "' is not a table name");
  }
  const std::string canonical = CanonicalTableName(facts.znode);
  if (plan.source_generation < 1 || plan.target_generation != plan.source_generation + 1) {
    return Refuse("generations " + std::to_string(plan.source_generation) + " -> " +
                  std::to_string(plan.target_generation) + " do not follow each other");
  }
  const std::string source = GenerationTableName(canonical, plan.source_generation);
  const std::string target = GenerationTableName(canonical, plan.target_generation);
  // A document named without its namespace ("t") has a source named that way too.
  if (plan.source != source && !(plan.source_generation == 1 && plan.source == facts.znode)) {
    return Refuse("its source '" + plan.source + "' is not generation " +
                  std::to_string(plan.source_generation) + " of " + canonical + " (" + source +
                  ")");
  }
  if (plan.target != target) {
    return Refuse("its target '" + plan.target + "' is not generation " +
                  std::to_string(plan.target_generation) + " of " + canonical + " (" + target +
                  ")");
  }

  // The status (the daemon's own record) names one of the two generations.
  if (!facts.status_found) return Refuse("the table has no status");
  const std::string physical =
      facts.status_physical_table.empty() ? facts.znode : facts.status_physical_table;
  const bool names_source = (physical == plan.source || physical == source) &&
                            facts.status_generation == plan.source_generation;
  const bool names_target =
      physical == plan.target && facts.status_generation == plan.target_generation;
  if (!names_source && !names_target) {
    return Refuse("the table's status names " + physical + " (generation " +
                  std::to_string(facts.status_generation) + "), neither its source nor its target");
  }
  // The phase agrees with the generation the status names: before the switch the source, once
  // the old generation is being fenced the target. Between the two (switching, catching_up,
  // grace, rolling_back) either: a switch or a rollback stopped between its status write and its
  // plan write leaves the plan one step behind the status, and the next step catches up.
  const bool before_switch = plan.phase < Phase::kSwitching || plan.phase == Phase::kFailedVerification;
  const bool after_grace = plan.phase == Phase::kFencing || plan.phase == Phase::kDone;
  if (before_switch && !names_source) {
    return Refuse(std::string("it is in phase ") + PhaseName(plan.phase) +
                  ", before the switch, but the table's status names " + physical + " (generation " +
                  std::to_string(facts.status_generation) + "), not its source");
  }
  if (after_grace && !names_target) {
    return Refuse(std::string("it is in phase ") + PhaseName(plan.phase) +
                  ", after the switch, but the table's status names " + physical + " (generation " +
                  std::to_string(facts.status_generation) + "), not its target");
  }
  if (!facts.status_layout.empty()) {
    const std::string& expected = names_source ? plan.old_layout : plan.new_layout;
    if (!SameJson(facts.status_layout, expected)) {
      return Refuse(std::string("its ") + (names_source ? "old" : "new") +
                    " layout is not the layout the table's status records");
    }
  }

  // The document the target is created from.
  auto config = ParseTableConfig(plan.document);
  if (!config.ok()) return Refuse("its document does not parse: " + config.status().message());
  if (config->FullName() != canonical) {
    return Refuse("its document is for " + config->FullName() + ", not " + canonical);
  }
  if (!SameJson(LayoutToJson(config->layout), plan.new_layout)) {
    return Refuse("its new layout is not its document's layout");
  }
  json old_layout = json::parse(plan.old_layout, nullptr, false);
  if (!old_layout.is_object()) return Refuse("its old layout is not a JSON object");

  if (plan.engine != "put" && plan.engine != "hfile" && plan.engine != "mapreduce" &&
      plan.engine != "auto") {
    return Refuse("engine '" + plan.engine + "' is not put, hfile, mapreduce or auto");
  }
  if (plan.workers < 1 || plan.workers > 64) {
    return Refuse("workers " + std::to_string(plan.workers) + " is not within 1..64");
  }
  if (plan.max_cells_per_s < 0 || plan.max_cells_per_s > 1'000'000'000) {
    return Refuse("max_cells_per_s " + std::to_string(plan.max_cells_per_s) +
                  " is not within 0..1000000000");
  }
  if (plan.max_write_pause_ms < 500 || plan.max_write_pause_ms > 600'000) {
    return Refuse("max_write_pause_ms " + std::to_string(plan.max_write_pause_ms) +
                  " is not within 500..600000");
  }
  if (!plan.throttle.empty() && plan.throttle != "adaptive" && plan.throttle != "off") {
    return Refuse("throttle '" + plan.throttle + "' is neither adaptive nor off");
  }
  if (!plan.paused_table.empty() && plan.paused_table != plan.source &&
      plan.paused_table != plan.target) {
    return Refuse("its paused table '" + plan.paused_table +
                  "' is neither its source nor its "
                  "target");
  }
  if (plan.grace_period_s < 0 || plan.grace_period_s > 31'536'000) {
    return Refuse("grace_period_s " + std::to_string(plan.grace_period_s) +
                  " is not within 0..31536000");
  }

  // What the migration adds and deletes outside its tables: derived from the target only.
  if (!plan.capture.peer.empty() && plan.capture.peer != CapturePeerOf(plan.target)) {
    return Refuse("its capture peer '" + plan.capture.peer + "' is not " +
                  CapturePeerOf(plan.target));
  }
  if (!plan.capture.reverse_peer.empty() &&
      plan.capture.reverse_peer != ReversePeerOf(plan.target)) {
    return Refuse("its reverse capture peer '" + plan.capture.reverse_peer + "' is not " +
                  ReversePeerOf(plan.target));
  }
  if (plan.bulk) {
    const std::string staging = StagingDirOf(facts.staging_base, plan.target);
    if (plan.bulk->staging_dir != staging) {
      return Refuse("its staging directory '" + plan.bulk->staging_dir + "' is not " + staging +
                    " (under this daemon's migration_staging_dir)");
    }
    if (plan.bulk->snapshot != SourceSnapshotOf(plan.target)) {
      return Refuse("its snapshot '" + plan.bulk->snapshot + "' is not " +
                    SourceSnapshotOf(plan.target));
    }
    if (plan.bulk->input != "snapshot" && plan.bulk->input != "table") {
      return Refuse("its bulk input '" + plan.bulk->input + "' is not snapshot or table");
    }
  }
  return Status::Ok();
}

}  // namespace presplit::daemon::migrate
