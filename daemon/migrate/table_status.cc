// What a migration reads from and writes into the table's status znode
// (<root>/status/<ns>:<table>, shared with the reconciler and the load watcher): the facts the
// plan check needs, the `migration` object with its progress, and the one write that moves
// readers and writers from one generation to the other. Only the `migration` object and, at a
// switch or rollback, the generation fields are this writer's; the rest is kept as read.
#include <nlohmann/json.hpp>

#include "daemon/migrate/migrator.h"
#include "daemon/migrate/plan_check.h"
#include "daemon/util/utc_time.h"
#include "presplit/json_bounds.h"
#include "presplit/layout_attributes.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

std::string StatusPath(const std::string& root, const std::string& table) {
  return JoinZkPath(JoinZkPath(root, "status"), table);
}

}  // namespace

Status Migrator::CheckAgainstStatus(const MigrationPlan& plan) {
  PlanFacts facts;
  facts.znode = plan.table;
  facts.staging_base = options_.bulk_staging_dir;
  Result<ZkNode> status = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    status = zk_.Get(StatusPath(options_.zk_root, plan.table), /*watch=*/false);
  }
  if (!status.ok() && status.status().code() != StatusCode::kNotFound) return status.status();
  if (status.ok()) {
    json parsed = ParseBoundedJson(status->data);  // out of bounds: as if there were none
    if (parsed.is_object()) {
      facts.status_found = true;
      if (parsed.contains("physical_table") && parsed["physical_table"].is_string()) {
        facts.status_physical_table = parsed["physical_table"];
      }
      if (parsed.contains("generation") && parsed["generation"].is_number_integer()) {
        facts.status_generation = parsed["generation"];
      }
      if (parsed.contains("layout") && parsed["layout"].is_object()) {
        facts.status_layout = parsed["layout"].dump();
      }
    }
  }
  return CheckPlan(plan, facts);
}

void Migrator::RecordRefusal(const std::string& table, const std::string& why) {
  std::lock_guard<std::mutex> lock(zk_mu_);
  const std::string path = StatusPath(options_.zk_root, table);
  auto current = zk_.Get(path, false);
  if (!current.ok() || !LeaseHeldLocked()) return;
  json status = ParseBoundedJson(current->data);
  if (!status.is_object()) return;
  json migration = status.contains("migration") && status["migration"].is_object()
                       ? status["migration"]
                       : json::object();
  migration["refused"] = "plan refused, nothing done with it: " + why;
  status["migration"] = migration;
  (void)zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                current->version);
}

void Migrator::UpdateSnapshot(const MigrationPlan& plan) {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  MigrationProgress& p = snapshot_[plan.table];
  p.table = plan.table;
  p.source = plan.source;
  p.target = plan.target;
  p.target_generation = plan.target_generation;
  p.phase = plan.phase;
  p.paused = plan.paused;
  p.regions_total = static_cast<int>(plan.source_regions.size());
  p.error = plan.error;
  if (plan.phase > Phase::kCopying) {
    p.regions_done = p.regions_total;
    p.eta_s = 0;
  }
}

Status Migrator::PublishProgress(const MigrationPlan& plan, const std::string& extra_phase) {
  UpdateSnapshot(plan);
  MigrationProgress p;
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    p = snapshot_[plan.table];
  }
  const CaptureState& c = plan.capture;
  json capture{{"peer", c.peer},
               {"reverse_peer", c.reverse_peer},
               {"started_ms", c.started_ms},
               {"reverse_started_ms", c.reverse_started_ms},
               {"caught_up_ms", c.caught_up_ms},
               {"fence_started_ms", c.fence_started_ms},
               {"bulk_loads", c.bulk_loads},
               {"unfit", c.unfit}};
  if (!c.first_unfit.empty()) capture["first_unfit"] = c.first_unfit;
  json warnings = json::array();
  if (c.bulk_loads > 0) {
    warnings.push_back(std::to_string(c.bulk_loads) + " bulk loads into " + plan.source +
                       " got past the MigrationGuard during the migration: the WAL does not "
                       "carry their cells, the capture peer cannot ship them (the migration "
                       "stopped for them: see error)");
  }
  if (c.unfit > 0) {
    warnings.push_back(std::to_string(c.unfit) + " rows written to " + plan.source +
                       " do not fit its layout and were not shipped (first: " + c.first_unfit +
                       ")");
  }
  json migration{{"phase", extra_phase.empty() ? PhaseName(plan.phase) : extra_phase},
                 {"paused", plan.paused},
                 {"source", plan.source},
                 {"target", plan.target},
                 {"target_generation", plan.target_generation},
                 {"engine", plan.engine},
                 {"regions_done", p.regions_done},
                 {"regions_total", p.regions_total},
                 {"rows", p.rows},
                 {"cells", p.cells},
                 {"rows_per_s", p.rows_per_s},
                 {"eta_s", p.eta_s < 0 ? json(nullptr) : json(p.eta_s)},
                 {"config_version", plan.config_version},
                 {"capture", capture},
                 {"warnings", warnings},
                 {"grace_until_ms", plan.grace_until_ms},
                 {"switch_attempts", plan.switch_attempts},
                 {"error", plan.error.empty() ? json(nullptr) : json(plan.error)},
                 {"updated_at", UtcNow()}};
  // The SDK holds its writes until then (the switch's pause; absent: writes go on).
  if (plan.writes_paused_until_ms != 0) {
    migration["writes_paused_until_ms"] = plan.writes_paused_until_ms;
  }
  if (plan.bulk) migration["bulk"] = json::parse(PlanToJson(plan))["bulk"];
  if (p.throttle_cells_per_s >= 0 &&
      (plan.phase == Phase::kCopying || plan.phase == Phase::kVerifying)) {
    // The adaptive throttle of the copy or verification running now (0: unlimited); a phase
    // that moved on in this write has none.
    migration["throttle"] = {{"cells_per_s", p.throttle_cells_per_s},
                             {"reason", p.throttle_reason}};
  }
  if (!plan.verification.empty()) {
    json report = json::parse(plan.verification, nullptr, false);
    if (report.is_object()) {
      // A plan of an older presplitd kept every region's digests: not copied into the status.
      if (report.contains("regions") && report["regions"].is_array()) report.erase("regions");
      migration["verification"] = report;
    }
  }
  const bool rolled_back = plan.phase == Phase::kRollingBack || extra_phase == "rolled_back";
  if (rolled_back && extra_phase != "rolled_back") {
    // Readers of the SDK that read both generations read the abandoned one too, until its last
    // writes have reached the old one.
    migration["previous"] = {{"physical_table", plan.target},
                             {"layout", json::parse(plan.new_layout)},
                             {"generation", plan.target_generation}};
  } else if (plan.phase >= Phase::kSwitching && !rolled_back && extra_phase != "aborted" &&
             extra_phase != "done") {
    // Writers and readers of the SDK read this generation too while the catch-up runs.
    migration["previous"] = {{"physical_table", plan.source},
                             {"layout", json::parse(plan.old_layout)},
                             {"generation", plan.source_generation}};
  }
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  const std::string path = StatusPath(options_.zk_root, plan.table);
  std::lock_guard<std::mutex> lock(zk_mu_);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto current = zk_.Get(path, /*watch=*/false);
    if (!current.ok()) return current.status();
    // Not parsed when out of bounds: a copy of a status nested too deep overflows the stack.
    if (Status bounded = CheckJsonBounds(current->data); !bounded.ok()) {
      return Status::FailedPrecondition("status cannot be read: " + bounded.message());
    }
    json status = json::parse(current->data, nullptr, false);
    if (!status.is_object()) return Status::FailedPrecondition("status is not a JSON object");
    // Only the `migration` object is this writer's; the rest of a status written meanwhile by
    // the reconciler or the load watcher is kept as read now.
    status["migration"] = migration;
    if (!LeaseHeldLocked()) return Status::FailedPrecondition("not the leader");
    Status s = zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                       current->version);
    if (s.code() != StatusCode::kFailedPrecondition) return s;
  }
  return Status::FailedPrecondition("status kept changing");
}

Status Migrator::WriteStatusGeneration(const MigrationPlan& plan, bool to_target,
                                       const std::string& migration_phase, bool* request_pending) {
  const std::string& physical = to_target ? plan.target : plan.source;
  const int64_t generation = to_target ? plan.target_generation : plan.source_generation;
  const std::string& layout = to_target ? plan.new_layout : plan.old_layout;
  auto table = admin_.DescribeTable(physical);
  if (!table.ok()) return table.status().WithContext("describing " + physical);
  if (!table->exists) return Status::NotFound(physical + " is gone");
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  // Last look before the write that moves readers and writers: a request written since this
  // step began is handled first, not overtaken.
  if (request_pending != nullptr) {
    auto request = store_.ReadRequest(plan.table);
    *request_pending = request.ok() && request->has_value();
    if (*request_pending) return Status::Ok();
  }
  const std::string path = StatusPath(options_.zk_root, plan.table);
  std::lock_guard<std::mutex> lock(zk_mu_);
  auto current = zk_.Get(path, /*watch=*/false);
  if (!current.ok()) return current.status();
  json status = ParseBoundedJson(current->data);  // out of bounds: replaced, as non-JSON
  if (!status.is_object()) status = json::object();
  const bool already = status.contains("generation") && status["generation"] == generation &&
                       status.contains("physical_table") && status["physical_table"] == physical;
  if (already) return Status::Ok();
  // The one write that moves readers and writers: table, generation and layout together.
  status["physical_table"] = physical;
  status["generation"] = generation;
  status["layout"] = json::parse(layout);
  status["buckets"] = SaltBucketsOfLayoutJson(layout);
  status["phase"] = "ready";
  status["regions"] = table->regions.size();
  status["differences"] = json::array();
  status["error"] = nullptr;
  json migration = status.contains("migration") && status["migration"].is_object()
                       ? status["migration"]
                       : json::object();
  migration["phase"] = migration_phase;
  migration.erase("writes_paused_until_ms");  // this write ends the switch's pause
  migration["target"] = plan.target;
  migration["target_generation"] = plan.target_generation;
  // The generation readers may still find writes in that have not reached this one yet.
  const bool back = !to_target;
  migration["previous"] = {{"physical_table", back ? plan.target : plan.source},
                           {"layout", json::parse(back ? plan.new_layout : plan.old_layout)},
                           {"generation", back ? plan.target_generation : plan.source_generation}};
  status["migration"] = migration;
  status["updated_at"] = UtcNow();
  status["daemon"] = options_.daemon_id;
  if (!LeaseHeldLocked()) return Status::FailedPrecondition("not the leader");
  return zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                 current->version);
}

Result<bool> Migrator::StatusNamesTarget(const MigrationPlan& plan) {
  Result<ZkNode> current = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    current = zk_.Get(StatusPath(options_.zk_root, plan.table), /*watch=*/false);
  }
  if (!current.ok()) {
    if (current.status().code() == StatusCode::kNotFound) return false;
    return current.status();
  }
  json status = ParseBoundedJson(current->data);
  return status.is_object() && status.contains("physical_table") &&
         status["physical_table"] == plan.target;
}

void Migrator::SnapshotThrottle(const std::string& table, const Throttler* throttler) {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  MigrationProgress& p = snapshot_[table];
  if (throttler == nullptr) {
    p.throttle_cells_per_s = -1;
    p.throttle_reason.clear();
    return;
  }
  const ThrottleState state = throttler->State();
  p.throttle_cells_per_s = state.cells_per_s;
  p.throttle_reason = state.reason;
}

}  // namespace presplit::daemon::migrate
