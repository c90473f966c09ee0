#include "daemon/migrate/migrator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "presplit/json_bounds.h"
#include "presplit/layout_attributes.h"
#include "presplit/table_derived.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

std::string UtcNow() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int BucketsOf(const std::string& layout) {
  json parsed = json::parse(layout, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("salt") || !parsed["salt"].is_object()) return 0;
  const json& salt = parsed["salt"];
  return salt.contains("buckets") && salt["buckets"].is_number_integer()
             ? salt["buckets"].get<int>()
             : 0;
}

// What a stopped copy run was told.
enum StopReason : int { kNone = 0, kPause, kAbort, kLease, kStopping, kError };

}  // namespace

std::string MigrationsPath(const std::string& zk_root) { return JoinZkPath(zk_root, "migrations"); }

std::string PlanPath(const std::string& zk_root, const std::string& table) {
  return JoinZkPath(MigrationsPath(zk_root), table);
}

Status StartMigration(ZkClient& zk, const std::string& zk_root, const ZkAcls& acls,
                      const MigrationStart& start) {
  PRESPLIT_RETURN_IF_ERROR(zk.EnsurePath(MigrationsPath(zk_root), acls.status_dir));
  MigrationPlan plan;
  plan.table = start.table;
  plan.source = start.source;
  plan.source_generation = start.source_generation;
  plan.target_generation = start.source_generation + 1;
  plan.target = GenerationTableName(
      start.canonical_table.empty() ? start.table : start.canonical_table, plan.target_generation);
  plan.old_layout = start.old_layout;
  plan.new_layout = start.new_layout;
  plan.source_regions = start.source_regions;
  if (plan.source_regions.empty()) plan.source_regions.push_back(SourceRegion{});
  plan.start_ts = start.now_ms;
  plan.engine = start.config.engine;
  plan.workers = start.config.workers;
  plan.max_cells_per_s = start.config.max_cells_per_s;
  plan.grace_period_s = start.config.grace_period_s;
  plan.drop_old = start.config.drop_old;
  plan.config_version = start.config_version;
  plan.document = start.document;
  plan.phase = Phase::kPlanned;
  plan.created_at = plan.updated_at = UtcNow();
  plan.daemon = start.daemon_id;
  // presplitctl writes the plan's `request` with the operators' (portal) credentials.
  Status created = zk.Create(PlanPath(zk_root, start.table), PlanToJson(plan), acls.migration_plan);
  if (created.ok()) {
    spdlog::info(
        "migration {}: planned: {} (generation {}, {} buckets) -> {} (generation {}, {} buckets), "
        "{} source regions, start_ts {}",
        plan.table, plan.source, plan.source_generation, BucketsOf(plan.old_layout), plan.target,
        plan.target_generation, BucketsOf(plan.new_layout), plan.source_regions.size(),
        plan.start_ts);
  }
  return created;
}

Result<bool> MigrationUnderWay(ZkClient& zk, const std::string& zk_root, const std::string& table) {
  auto node = zk.Get(PlanPath(zk_root, table), /*watch=*/false);
  if (node.ok()) return true;
  if (node.status().code() == StatusCode::kNotFound) return false;
  return node.status();
}

Migrator::Migrator(ZkClient& zk, HBaseAdmin& admin, MigrationBridge& bridge,
                   MigratorOptions options)
    : zk_(zk), admin_(admin), bridge_(bridge), options_(std::move(options)) {}

Status Migrator::Prepare() {
  std::lock_guard<std::mutex> lock(zk_mu_);
  return zk_.EnsurePath(MigrationsPath(options_.zk_root), options_.acls.status_dir);
}

bool Migrator::MayAct() {
  if (Stopping()) return false;
  std::lock_guard<std::mutex> lock(zk_mu_);
  return !options_.lease || options_.lease();
}

int64_t Migrator::NowMs() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

CopyRange Migrator::RangeOf(const MigrationPlan& plan) const {
  CopyRange range{plan.source, plan.target, plan.old_layout, plan.new_layout, ""};
  if (plan.engine == "hfile") {
    range.hfile_staging_spec = HfileStagingSpecOf(plan);
  }
  return range;
}

std::string Migrator::CheckpointPath(const std::string& table, size_t region) const {
  return JoinZkPath(JoinZkPath(PlanPath(options_.zk_root, table), "regions"),
                    std::to_string(region));
}

std::vector<MigrationProgress> Migrator::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  std::vector<MigrationProgress> out;
  for (const auto& [table, progress] : snapshot_) out.push_back(progress);
  return out;
}

Status Migrator::RunOnce() {
  counters_.runs++;
  if (!MayAct()) {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    snapshot_.clear();  // a standby shows nothing it does not drive
    return Status::FailedPrecondition("not the leader: no migration driven");
  }
  Result<std::vector<std::string>> tables = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    tables = zk_.GetChildren(MigrationsPath(options_.zk_root), /*watch=*/false);
  }
  if (!tables.ok()) {
    if (tables.status().code() == StatusCode::kNotFound) return Status::Ok();
    return tables.status().WithContext("listing migrations");
  }
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    std::erase_if(snapshot_, [&](const auto& entry) {
      return std::find(tables->begin(), tables->end(), entry.first) == tables->end();
    });
  }
  for (const auto& table : *tables) {
    Step step;
    try {
      step = DriveOne(table);
    } catch (const std::exception& e) {
      counters_.exceptions_caught++;
      spdlog::error("migration {}: internal error (retried on the next run): {}", table, e.what());
      continue;
    }
    if (step == Step::kStopped) {
      return Stopping() ? Status::Unavailable("stopping")
                        : Status::FailedPrecondition("lease lost: migrations stopped");
    }
  }
  return Status::Ok();
}

Result<Migrator::PlanNode> Migrator::ReadPlan(const std::string& table) {
  Result<ZkNode> node = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    node = zk_.Get(PlanPath(options_.zk_root, table), /*watch=*/false);
  }
  if (!node.ok()) return node.status();
  PRESPLIT_ASSIGN_OR_RETURN(MigrationPlan plan, ParsePlan(node->data));
  return PlanNode{std::move(plan), node->version};
}

Status Migrator::WritePlan(PlanNode& node) {
  if (!MayAct()) return Status::FailedPrecondition("not the leader: plan not written");
  node.plan.updated_at = UtcNow();
  node.plan.daemon = options_.daemon_id;
  const std::string path = PlanPath(options_.zk_root, node.plan.table);
  for (int attempt = 0; attempt < 5; ++attempt) {
    Status s;
    {
      std::lock_guard<std::mutex> lock(zk_mu_);
      s = zk_.Set(path, PlanToJson(node.plan), node.version);
    }
    if (s.ok()) {
      node.version++;
      return s;
    }
    if (s.code() != StatusCode::kFailedPrecondition) return s;
    // presplitctl wrote a request meanwhile: keep it, and our own fields.
    auto current = ReadPlan(node.plan.table);
    if (!current.ok()) return current.status();
    node.plan.request = current->plan.request;
    node.version = current->version;
  }
  return Status::FailedPrecondition("the plan kept changing under the migrator");
}

Migrator::Step Migrator::Fail(PlanNode& node, const std::string& error) {
  counters_.errors++;
  spdlog::error("migration {}: {} (phase {}; retried on the next run)", node.plan.table, error,
                PhaseName(node.plan.phase));
  node.plan.error = error;
  if (!MayAct()) return Step::kStopped;
  (void)WritePlan(node);
  (void)PublishProgress(node.plan);
  return Step::kWaiting;
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
  json migration{{"phase", extra_phase.empty() ? PhaseName(plan.phase) : extra_phase},
                 {"paused", plan.paused},
                 {"source", plan.source},
                 {"target", plan.target},
                 {"target_generation", plan.target_generation},
                 {"regions_done", p.regions_done},
                 {"regions_total", p.regions_total},
                 {"rows", p.rows},
                 {"cells", p.cells},
                 {"rows_per_s", p.rows_per_s},
                 {"eta_s", p.eta_s < 0 ? json(nullptr) : json(p.eta_s)},
                 {"config_version", plan.config_version},
                 {"error", plan.error.empty() ? json(nullptr) : json(plan.error)},
                 {"updated_at", UtcNow()}};
  if (plan.bulk) migration["bulk"] = json::parse(PlanToJson(plan))["bulk"];
  if (plan.phase >= Phase::kSwitching && extra_phase != "aborted") {
    // Writers and readers of the SDK read this generation too while the catch-up runs.
    migration["previous"] = {{"physical_table", plan.source},
                             {"layout", json::parse(plan.old_layout)},
                             {"generation", plan.source_generation}};
  }
  if (!MayAct()) return Status::FailedPrecondition("not the leader");
  const std::string path = JoinZkPath(JoinZkPath(options_.zk_root, "status"), plan.table);
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
    status["migration"] = migration;
    Status s = zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                       current->version);
    if (s.code() != StatusCode::kFailedPrecondition) return s;
  }
  return Status::FailedPrecondition("status kept changing");
}

Migrator::Step Migrator::DriveOne(const std::string& table) {
  // Each iteration takes one step; a step that cannot go on now says so.
  for (int steps = 0; steps < 64; ++steps) {
    if (Stopping()) return Step::kStopped;
    auto node = ReadPlan(table);
    if (!node.ok()) {
      if (node.status().code() != StatusCode::kNotFound) {
        spdlog::error("migration {}: cannot read the plan: {}", table, node.status().ToString());
      }
      return Step::kWaiting;
    }
    if (!node->plan.request.empty()) {
      Step handled = HandleRequest(*node);
      if (handled != Step::kAdvanced) return handled;
      continue;
    }
    if (node->plan.paused) {
      UpdateSnapshot(node->plan);
      return Step::kWaiting;
    }
    Step step = Step::kWaiting;
    switch (node->plan.phase) {
      case Phase::kPlanned:
        step = CreateTarget(*node);
        break;
      case Phase::kCopying:
        step = Copy(*node);
        break;
      case Phase::kReplaying:
        step = Replay(*node);
        break;
      case Phase::kVerifying:
        step = Verify(*node);
        break;
      case Phase::kFailedVerification:
        UpdateSnapshot(node->plan);
        step = Step::kWaiting;  // until an operator aborts
        break;
      case Phase::kSwitching:
        step = Switch(*node);
        break;
      case Phase::kCatchingUp:
        step = CatchUp(*node);
        break;
      case Phase::kGrace:
        step = Retire(*node);
        break;
      case Phase::kDone:
        step = Finish(*node, "done");
        break;
    }
    if (step != Step::kAdvanced) return step;
  }
  return Step::kWaiting;
}

Migrator::Step Migrator::HandleRequest(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  const std::string request = plan.request;
  plan.request.clear();
  if (request == "abort") {
    // The plan's phase alone is not enough: a switch whose status write succeeded and whose
    // plan write did not (lease lost, ZooKeeper gone) leaves the plan at `switching` while
    // readers and writers already use the target. The status decides.
    bool switched = IsSwitched(plan.phase);
    if (!switched) {
      auto names_target = StatusNamesTarget(plan);
      if (!names_target.ok()) {
        plan.request = request;  // decided on the next run
        return Fail(node, "abort: reading the status: " + names_target.status().message());
      }
      switched = *names_target;
    }
    if (switched) {
      plan.error = "abort refused: the status already names " + plan.target + " (generation " +
                   std::to_string(plan.target_generation) + "); the migration finishes";
      spdlog::warn("migration {}: {}", plan.table, plan.error);
      if (!WritePlan(node).ok()) return Step::kStopped;
      (void)PublishProgress(plan);
      return Step::kAdvanced;
    }
    return Abort(node);
  }
  if (request == "pause") {
    plan.paused = true;
    spdlog::info("migration {}: paused in phase {}", plan.table, PhaseName(plan.phase));
    PauseBulkCopy(plan);
  } else if (request == "resume") {
    plan.paused = false;
    plan.error.clear();
    if (plan.bulk) plan.bulk->failures = 0;  // a bulk copy that gave up tries again
    spdlog::info("migration {}: resumed in phase {}", plan.table, PhaseName(plan.phase));
  } else {
    spdlog::warn("migration {}: unknown request '{}' ignored", plan.table, request);
  }
  Status written = WritePlan(node);
  if (!written.ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(plan);
  return Step::kAdvanced;
}

Migrator::Step Migrator::CreateTarget(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (Step resolved = ResolveEngine(node); resolved != Step::kAdvanced) return resolved;
  auto config = ParseTableConfig(plan.document);
  if (!config.ok()) return Fail(node, "the plan's document: " + config.status().message());
  auto keys = ComputeSplitKeys(*config);
  if (!keys.ok()) return Fail(node, "the plan's split keys: " + keys.status().message());
  TableSpec spec;
  spec.table = plan.target;
  spec.families = config->families;
  spec.attributes = TableAttributes(*config);
  spec.split_keys = std::move(keys).value();
  if (!MayAct()) return Step::kStopped;
  Status created = admin_.CreateTable(spec);
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) {
    return Fail(node, "creating the target " + plan.target + ": " + created.message());
  }
  spdlog::info("migration {}: target {} {} with {} regions for {} buckets", plan.table, plan.target,
               created.ok() ? "created" : "already there (resumed)", spec.split_keys.size() + 1,
               BucketsOf(plan.new_layout));
  plan.phase = Phase::kCopying;
  plan.error.clear();
  plan.copy_started_ms = NowMs();
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(plan);
  return Step::kAdvanced;
}

Result<std::vector<RegionCheckpoint>> Migrator::ReadCheckpoints(const MigrationPlan& plan) {
  std::vector<RegionCheckpoint> out(plan.source_regions.size());
  std::lock_guard<std::mutex> lock(zk_mu_);
  for (size_t i = 0; i < out.size(); ++i) {
    auto node = zk_.Get(CheckpointPath(plan.table, i), /*watch=*/false);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) continue;
      return node.status();
    }
    auto parsed = ParseCheckpoint(node->data);
    if (parsed.ok()) out[i] = *parsed;  // an unreadable checkpoint: that region starts over
  }
  return out;
}

Migrator::Step Migrator::Copy(PlanNode& node) {
  if (node.plan.engine == "mapreduce") return CopyBulk(node);
  MigrationPlan& plan = node.plan;
  auto loaded = ReadCheckpoints(plan);
  if (!loaded.ok()) return Fail(node, "reading checkpoints: " + loaded.status().message());
  std::vector<RegionCheckpoint> checkpoints = std::move(loaded).value();
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    Status dir = zk_.EnsurePath(JoinZkPath(PlanPath(options_.zk_root, plan.table), "regions"),
                                options_.acls.status);
    if (!dir.ok()) {
      return Step::kWaiting;
    }
  }
  std::vector<size_t> pending;
  int64_t rows_before = 0, cells_before = 0;
  int done_before = 0;
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    rows_before += checkpoints[i].rows;
    cells_before += checkpoints[i].cells;
    if (checkpoints[i].done) {
      ++done_before;
    } else {
      pending.push_back(i);
    }
  }
  const int total = static_cast<int>(checkpoints.size());
  if (!pending.empty()) {
    spdlog::info(
        "migration {}: copying {} of {} source regions with {} workers ({} regions, {} rows "
        "already copied)",
        plan.table, pending.size(), total, std::min<size_t>(plan.workers, pending.size()),
        done_before, rows_before);
  }

  std::mutex mu;  // guards the shared state below
  std::condition_variable cv;
  size_t next = 0;
  int running = 0;
  std::atomic<int> stop{kNone};
  std::string error;
  int64_t rows = rows_before, cells = cells_before;
  int done = done_before;
  const auto started = std::chrono::steady_clock::now();
  int64_t rows_this_run = 0;
  const int workers = static_cast<int>(std::min<size_t>(plan.workers, pending.size()));
  const int64_t per_worker_rate =
      plan.max_cells_per_s > 0 ? std::max<int64_t>(1, plan.max_cells_per_s / std::max(1, workers))
                               : 0;
  const CopyRange range = RangeOf(plan);
  const int chunk_rows = plan.engine == "hfile" ? options_.hfile_chunk_rows : options_.chunk_rows;

  auto copy_region = [&](size_t index) {
    RegionCheckpoint cp = checkpoints[index];
    const SourceRegion& region = plan.source_regions[index];
    while (true) {
      if (stop != kNone) return;
      if (Stopping()) {
        stop = kStopping;
        return;
      }
      if (!MayAct()) {
        stop = kLease;
        return;
      }
      const std::string from = cp.next_row.value_or(region.start);
      Result<ChunkCopied> chunk = Status::Internal("not run");
      for (int attempt = 1; attempt <= options_.chunk_attempts; ++attempt) {
        chunk = bridge_.CopyChunk(range, from, region.end, 0, plan.start_ts, chunk_rows,
                                  per_worker_rate);
        if (chunk.ok() || stop != kNone) break;
        spdlog::warn("migration {}: region {} chunk failed (attempt {} of {}): {}", plan.table,
                     index, attempt, options_.chunk_attempts, chunk.status().message());
        std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
      }
      if (!chunk.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        error = "copying region " + std::to_string(index) + ": " + chunk.status().message();
        stop = kError;
        return;
      }
      cp.rows += chunk->copied.rows;
      cp.cells += chunk->copied.cells;
      cp.bytes += chunk->bytes;
      cp.digest += chunk->copied.digest;
      cp.chunks++;
      cp.next_row = chunk->next_row;
      cp.done = !chunk->next_row.has_value();
      if (chunk->next_row && !region.end.empty() && *chunk->next_row >= region.end) {
        cp.done = true;  // a bridge that hands back the region's end is finished too
        cp.next_row.reset();
      }
      Status saved;
      std::string request;
      {
        std::lock_guard<std::mutex> lock(zk_mu_);
        if (options_.lease && !options_.lease()) {
          stop = kLease;
          return;
        }
        saved = zk_.Upsert(CheckpointPath(plan.table, index), CheckpointToJson(cp),
                           options_.acls.status);
        auto current = zk_.Get(PlanPath(options_.zk_root, plan.table), /*watch=*/false);
        if (current.ok()) {
          auto parsed = ParsePlan(current->data);
          if (parsed.ok()) request = parsed->request;
        } else if (current.status().code() == StatusCode::kNotFound) {
          request = "abort";  // the plan is gone: nothing more to copy for it
        }
      }
      counters_.chunks_copied++;
      counters_.rows_copied += chunk->copied.rows;
      counters_.cells_copied += chunk->copied.cells;
      {
        std::lock_guard<std::mutex> lock(mu);
        rows += chunk->copied.rows;
        cells += chunk->copied.cells;
        rows_this_run += chunk->copied.rows;
        if (!saved.ok()) {
          error =
              "writing the checkpoint of region " + std::to_string(index) + ": " + saved.message();
          stop = kError;
          return;
        }
        if (cp.done) {
          ++done;
          counters_.regions_done++;
          spdlog::info("migration {}: region {} copied: {} rows, {} cells in {} chunks ({}/{})",
                       plan.table, index, cp.rows, cp.cells, cp.chunks, done, total);
        }
      }
      if (request == "pause") stop = kPause;
      if (request == "abort") stop = kAbort;
      if (cp.done) return;
    }
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++running;
    }
    threads.emplace_back([&] {
      while (true) {
        size_t index;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (next >= pending.size() || stop != kNone) break;
          index = pending[next++];
        }
        try {
          copy_region(index);
        } catch (const std::exception& e) {
          counters_.exceptions_caught++;
          std::lock_guard<std::mutex> lock(mu);
          error = std::string("internal error while copying: ") + e.what();
          stop = kError;
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        --running;
      }
      cv.notify_all();
    });
  }
  // Progress into the status while the workers copy.
  auto publish = [&] {
    {
      std::lock_guard<std::mutex> lock(snapshot_mu_);
      MigrationProgress& p = snapshot_[plan.table];
      std::lock_guard<std::mutex> state(mu);
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      p.rows = rows;
      p.cells = cells;
      p.regions_done = done;
      p.regions_total = total;
      p.rows_per_s = elapsed > 0 ? rows_this_run / elapsed : 0;
      // Regions are of similar size (pre-split buckets): the remaining ones take as long as the
      // finished ones did.
      const int done_this_run = done - done_before;
      p.eta_s = done >= total       ? 0
                : done_this_run > 0 ? static_cast<int64_t>(elapsed * (total - done) / done_this_run)
                                    : -1;
    }
    (void)PublishProgress(plan);
  };
  UpdateSnapshot(plan);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      cv.wait_for(lock, options_.progress_interval);
      if (running == 0) break;
      lock.unlock();
      publish();
      lock.lock();
    }
  }
  for (auto& t : threads) t.join();
  publish();

  switch (stop.load()) {
    case kLease:
    case kStopping:
      spdlog::info(
          "migration {}: copy interrupted ({}); {} of {} regions done, resumed from the "
          "checkpoints",
          plan.table, stop == kLease ? "lease lost" : "stopping", done, total);
      return Step::kStopped;
    case kError:
      return Fail(node, error);
    case kPause:
    case kAbort:
      spdlog::info("migration {}: copy stopped for a request; {} of {} regions done", plan.table,
                   done, total);
      return Step::kAdvanced;  // DriveOne reads the request next
    default:
      break;
  }
  if (done < total) return Step::kWaiting;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  spdlog::info(
      "migration {}: copy finished: {} rows, {} cells from {} regions ({:.0f} rows/s in "
      "this run)",
      plan.table, rows, cells, total, elapsed > 0 ? rows_this_run / elapsed : 0.0);
  CleanupHfileStaging(plan, "copy finished");
  auto fresh = ReadPlan(plan.table);
  if (!fresh.ok()) return Step::kWaiting;
  node = std::move(fresh).value();
  if (!node.plan.request.empty()) return Step::kAdvanced;
  node.plan.phase = Phase::kReplaying;
  node.plan.error.clear();
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(node.plan);
  return Step::kAdvanced;
}

Migrator::Step Migrator::Replay(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  const int64_t until = NowMs();
  auto replayed = bridge_.ReplayRange(RangeOf(plan), plan.start_ts, until, plan.max_cells_per_s);
  if (!replayed.ok()) return Fail(node, "replaying: " + replayed.status().message());
  counters_.replayed_cells += replayed->cells + replayed->deletes;
  spdlog::info("migration {}: replayed [{}, {}): {} cells, {} deletes", plan.table, plan.start_ts,
               until, replayed->cells, replayed->deletes);
  plan.replayed_to_ts = until;
  plan.phase = Phase::kVerifying;
  plan.error.clear();
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(plan);
  return Step::kAdvanced;
}

Migrator::Step Migrator::Verify(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  const CopyRange range = RangeOf(plan);
  std::vector<std::string> starts;
  for (const auto& r : plan.source_regions) starts.push_back(r.start);
  // The target's one pass and the source regions' digests run at the same time, the source
  // regions `workers` at a time (as the copy ran): verification costs about one read of the
  // larger side, not the sum of every scan one after the other.
  const size_t count = plan.source_regions.size();
  std::vector<Result<CellDigest>> sources(count, Result<CellDigest>(Status::Internal("unread")));
  Result<std::vector<CellDigest>> target = Status::Internal("unread");
  std::atomic<size_t> next_region{0};
  auto digest_sources = [&] {
    for (size_t i = next_region++; i < count; i = next_region++) {
      if (Stopping()) return;
      const SourceRegion& r = plan.source_regions[i];
      try {
        sources[i] =
            bridge_.DigestRange(plan.source, plan.old_layout, r.start, r.end, 0, plan.start_ts);
      } catch (const std::exception& e) {
        counters_.exceptions_caught++;
        sources[i] = Status::Internal(std::string("internal error: ") + e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  const size_t source_threads = std::clamp<size_t>(plan.workers, 1, std::max<size_t>(1, count));
  for (size_t t = 0; t < source_threads; ++t) threads.emplace_back(digest_sources);
  threads.emplace_back([&] {
    try {
      target = bridge_.DigestTargetBySourceRegion(range, starts, 0, plan.start_ts);
    } catch (const std::exception& e) {
      counters_.exceptions_caught++;
      target = Status::Internal(std::string("internal error: ") + e.what());
    }
  });
  for (auto& thread : threads) thread.join();
  if (Stopping()) return Step::kStopped;
  if (!target.ok()) return Fail(node, "verifying the target: " + target.status().message());
  json regions = json::array();
  CellDigest source_total, target_total;
  int mismatched = 0;
  std::string first_difference;
  for (size_t i = 0; i < count; ++i) {
    const Result<CellDigest>& source = sources[i];
    if (!source.ok()) {
      return Fail(
          node, "verifying source region " + std::to_string(i) + ": " + source.status().message());
    }
    const CellDigest& t = (*target)[i];
    const bool same = *source == t;
    source_total.rows += source->rows;
    source_total.cells += source->cells;
    source_total.digest += source->digest;
    target_total.rows += t.rows;
    target_total.cells += t.cells;
    target_total.digest += t.digest;
    if (!same) {
      ++mismatched;
      std::string line = "region " + std::to_string(i) + ": source " +
                         std::to_string(source->rows) + " rows, " + std::to_string(source->cells) +
                         " cells, digest " + DigestHex(source->digest) + "; target " +
                         std::to_string(t.rows) + " rows, " + std::to_string(t.cells) +
                         " cells, digest " + DigestHex(t.digest);
      spdlog::error("migration {}: verification: {}", plan.table, line);
      if (first_difference.empty()) first_difference = line;
    }
    regions.push_back(
        {{"region", i},
         {"ok", same},
         {"source",
          {{"rows", source->rows},
           {"cells", source->cells},
           {"digest", DigestHex(source->digest)}}},
         {"target", {{"rows", t.rows}, {"cells", t.cells}, {"digest", DigestHex(t.digest)}}}});
  }
  const bool ok = mismatched == 0 && source_total == target_total;
  json report{{"ok", ok},
              {"checked_at", UtcNow()},
              {"max_ts", plan.start_ts},
              {"regions_mismatched", mismatched},
              {"source",
               {{"rows", source_total.rows},
                {"cells", source_total.cells},
                {"digest", DigestHex(source_total.digest)}}},
              {"target",
               {{"rows", target_total.rows},
                {"cells", target_total.cells},
                {"digest", DigestHex(target_total.digest)}}},
              {"regions", regions}};
  plan.verification = report.dump();
  if (!ok) {
    counters_.verification_failures++;
    plan.phase = Phase::kFailedVerification;
    plan.error = "verification failed in " + std::to_string(mismatched) + " of " +
                 std::to_string(plan.source_regions.size()) + " source regions (" +
                 first_difference + "); nothing switched; abort the migration";
    spdlog::error("migration {}: {}", plan.table, plan.error);
  } else {
    spdlog::info("migration {}: verified: {} rows, {} cells, digest {} in {} source regions",
                 plan.table, source_total.rows, source_total.cells, DigestHex(source_total.digest),
                 plan.source_regions.size());
    plan.phase = Phase::kSwitching;
    plan.error.clear();
  }
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(plan);
  return ok ? Step::kAdvanced : Step::kWaiting;
}

Migrator::Step Migrator::Switch(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  const std::string path = JoinZkPath(JoinZkPath(options_.zk_root, "status"), plan.table);
  auto target = admin_.DescribeTable(plan.target);
  if (!target.ok()) return Fail(node, "describing the target: " + target.status().message());
  if (!target->exists) return Fail(node, "the target " + plan.target + " is gone");
  Status written;
  bool request_pending = false;
  {
    if (!MayAct()) return Step::kStopped;
    std::lock_guard<std::mutex> lock(zk_mu_);
    // Last look at the plan before the write that cannot be taken back: an abort (or pause)
    // that presplitctl wrote since this step began is honoured, not overtaken. One that lands
    // after this read is refused once the status names the target.
    auto latest = zk_.Get(PlanPath(options_.zk_root, plan.table), /*watch=*/false);
    if (latest.ok()) {
      auto parsed = ParsePlan(latest->data);
      request_pending = parsed.ok() && !parsed->request.empty();
    }
    auto current = latest.ok() ? zk_.Get(path, /*watch=*/false) : Result<ZkNode>(latest.status());
    if (request_pending) {
      // Nothing written: DriveOne reads the request next.
    } else if (!current.ok()) {
      written = current.status();
    } else {
      json status = ParseBoundedJson(current->data);  // out of bounds: replaced, as non-JSON
      if (!status.is_object()) status = json::object();
      const bool already =
          status.contains("generation") && status["generation"] == plan.target_generation &&
          status.contains("physical_table") && status["physical_table"] == plan.target;
      if (!already) {
        // The one write that moves readers and writers: table, generation and layout together.
        status["physical_table"] = plan.target;
        status["generation"] = plan.target_generation;
        status["layout"] = json::parse(plan.new_layout);
        status["buckets"] = BucketsOf(plan.new_layout);
        status["phase"] = "ready";
        status["regions"] = target->regions.size();
        status["differences"] = json::array();
        status["error"] = nullptr;
        // In the same write: the catch-up starts, and the generation it reads from.
        json migration = status.contains("migration") && status["migration"].is_object()
                             ? status["migration"]
                             : json::object();
        migration["phase"] = PhaseName(Phase::kCatchingUp);
        migration["target"] = plan.target;
        migration["target_generation"] = plan.target_generation;
        migration["previous"] = {{"physical_table", plan.source},
                                 {"layout", json::parse(plan.old_layout)},
                                 {"generation", plan.source_generation}};
        status["migration"] = migration;
        status["updated_at"] = UtcNow();
        status["daemon"] = options_.daemon_id;
        written = zk_.Set(path, status.dump(-1, ' ', false, json::error_handler_t::replace),
                          current->version);
      }
    }
  }
  if (request_pending) return Step::kAdvanced;
  if (!written.ok()) return Fail(node, "switching the status: " + written.message());
  counters_.switches++;
  plan.switched_at_ms = NowMs();
  plan.phase = Phase::kCatchingUp;
  plan.catchup_rounds = 0;
  plan.error.clear();
  spdlog::info("migration {}: switched: the status names {} (generation {}, {} buckets)",
               plan.table, plan.target, plan.target_generation, BucketsOf(plan.new_layout));
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  (void)PublishProgress(plan);
  return Step::kAdvanced;
}

Migrator::Step Migrator::CatchUp(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  while (true) {
    // Writers follow the switch through a watch: leave them a moment between two rounds.
    const int64_t due =
        plan.switched_at_ms + (plan.catchup_rounds + 1) * options_.catchup_interval.count();
    while (NowMs() < due) {
      if (Stopping()) return Step::kStopped;
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::min<int64_t>(100, std::max<int64_t>(1, due - NowMs()))));
    }
    if (!MayAct()) return Step::kStopped;
    const int64_t from =
        std::max(plan.start_ts, plan.replayed_to_ts - options_.replay_overlap.count());
    const int64_t until = NowMs();
    auto replayed = bridge_.ReplayRange(RangeOf(plan), from, until, plan.max_cells_per_s);
    if (!replayed.ok()) return Fail(node, "catching up: " + replayed.status().message());
    counters_.replayed_cells += replayed->cells + replayed->deletes;
    plan.catchup_rounds++;
    plan.replayed_to_ts = until;
    const bool quiet = replayed->cells == 0 && replayed->deletes == 0;
    spdlog::info("migration {}: catch-up round {}: [{}, {}) replayed {} cells, {} deletes",
                 plan.table, plan.catchup_rounds, from, until, replayed->cells, replayed->deletes);
    const bool enough = quiet && plan.catchup_rounds >= options_.min_catchup_rounds;
    if (enough || plan.catchup_rounds >= options_.max_catchup_rounds) {
      if (!enough) {
        spdlog::warn(
            "migration {}: still replaying after {} catch-up rounds; writers still use "
            "{}? Going on to the grace period",
            plan.table, plan.catchup_rounds, plan.source);
      }
      plan.phase = Phase::kGrace;
      plan.grace_until_ms = NowMs() + plan.grace_period_s * 1000;
      spdlog::info("migration {}: caught up; {} stays readable for {} s", plan.table, plan.source,
                   plan.grace_period_s);
    }
    if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
    (void)PublishProgress(plan);
    if (plan.phase != Phase::kCatchingUp) return Step::kAdvanced;
    // A request (pause) written meanwhile is handled by DriveOne.
    auto fresh = ReadPlan(plan.table);
    if (fresh.ok() && !fresh->plan.request.empty()) return Step::kAdvanced;
  }
}

Migrator::Step Migrator::Retire(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  UpdateSnapshot(plan);
  if (NowMs() < plan.grace_until_ms) return Step::kWaiting;
  std::string summary = "done: " + plan.source + " disabled";
  bool drop = plan.drop_old;
  if (drop) {
    // The final check, while the old generation can still be read.
    auto check = bridge_.CheckPresent(RangeOf(plan), 0, NowMs());
    if (!check.ok()) return Fail(node, "final check: " + check.status().message());
    if (check->missing > 0) {
      drop = false;
      summary = "done: " + plan.source +
                " disabled, NOT dropped: " + std::to_string(check->missing) + " of " +
                std::to_string(check->checked) + " cells missing in " + plan.target +
                " (first: " + check->first_missing + ")";
      spdlog::error("migration {}: {}", plan.table, summary);
    } else {
      spdlog::info("migration {}: final check: all {} cells of {} are in {}", plan.table,
                   check->checked, plan.source, plan.target);
    }
  }
  if (!MayAct()) return Step::kStopped;
  Status disabled = admin_.DisableTable(plan.source);
  if (!disabled.ok() && disabled.code() != StatusCode::kNotFound) {
    return Fail(node, "disabling " + plan.source + ": " + disabled.message());
  }
  spdlog::info("migration {}: old generation {} disabled", plan.table, plan.source);
  if (drop) {
    if (!MayAct()) return Step::kStopped;
    Status deleted = admin_.DeleteTable(plan.source);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return Fail(node, "dropping " + plan.source + ": " + deleted.message());
    }
    summary = "done: " + plan.source + " dropped";
    spdlog::info("migration {}: old generation {} dropped", plan.table, plan.source);
  }
  plan.phase = Phase::kDone;
  plan.error = summary.find("NOT dropped") != std::string::npos ? summary : "";
  if (!WritePlan(node).ok()) return MayAct() ? Step::kWaiting : Step::kStopped;
  return Finish(node, summary);
}

Status Migrator::DeleteMigrationNodes(const MigrationPlan& plan) {
  std::lock_guard<std::mutex> lock(zk_mu_);
  const std::string regions = JoinZkPath(PlanPath(options_.zk_root, plan.table), "regions");
  auto children = zk_.GetChildren(regions, /*watch=*/false);
  if (children.ok()) {
    for (const auto& child : *children) {
      Status s = zk_.Delete(JoinZkPath(regions, child), -1);
      if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    }
    Status s = zk_.Delete(regions, -1);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  Status s = zk_.Delete(PlanPath(options_.zk_root, plan.table), -1);
  return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
}

Migrator::Step Migrator::Finish(PlanNode& node, const std::string& summary) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  if (!plan.error.empty()) {
    // Kept in the status's summary.
  }
  (void)PublishProgress(plan, "done");
  Status removed = DeleteMigrationNodes(plan);
  if (!removed.ok()) return Fail(node, "removing the plan: " + removed.message());
  counters_.completed++;
  spdlog::info("migration {}: {} (now generation {} in {})", plan.table, summary,
               plan.target_generation, plan.target);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  snapshot_.erase(plan.table);
  return Step::kWaiting;
}

Result<bool> Migrator::StatusNamesTarget(const MigrationPlan& plan) {
  const std::string path = JoinZkPath(JoinZkPath(options_.zk_root, "status"), plan.table);
  Result<ZkNode> current = Status::Internal("unread");
  {
    std::lock_guard<std::mutex> lock(zk_mu_);
    current = zk_.Get(path, /*watch=*/false);
  }
  if (!current.ok()) {
    if (current.status().code() == StatusCode::kNotFound) return false;
    return current.status();
  }
  json status = ParseBoundedJson(current->data);
  return status.is_object() && status.contains("physical_table") &&
         status["physical_table"] == plan.target;
}

Migrator::Step Migrator::Abort(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  spdlog::info("migration {}: aborting in phase {}: dropping the target {}; {} stays as it is",
               plan.table, PhaseName(plan.phase), plan.target, plan.source);
  AbortBulkCopy(plan);
  CleanupHfileStaging(plan, "abort");
  Status deleted = admin_.DeleteTable(plan.target);
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
    plan.request = "abort";  // try again on the next run
    return Fail(node, "abort: dropping the target " + plan.target + ": " + deleted.message());
  }
  plan.error.clear();
  // The status says "aborted" before the plan goes: the reconciler reads it there and does not
  // start the same migration again.
  Status published = PublishProgress(plan, "aborted");
  if (!published.ok()) {
    plan.request = "abort";  // try again on the next run
    return Fail(node, "abort: recording it in the status: " + published.message());
  }
  Status removed = DeleteMigrationNodes(plan);
  if (!removed.ok()) return Fail(node, "abort: removing the plan: " + removed.message());
  counters_.aborted++;
  spdlog::info("migration {}: aborted; the status stays at generation {} ({})", plan.table,
               plan.source_generation, plan.source);
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  snapshot_.erase(plan.table);
  return Step::kWaiting;
}

}  // namespace presplit::daemon::migrate
