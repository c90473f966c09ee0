// Phase "copying" with the "mapreduce" engine: the copy as one ResaltBulkJob instead of the
// chunked copy (see migrator.h for the states and what a restart does). No thread waits for the
// job: each run polls it once, loads a finished output once (`_LOADED`), then FinishCopy. Like
// every engine it copies every cell the source holds, whatever its timestamp: the capture peer
// added before the job carries the writes made meanwhile.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

}  // namespace

std::string Migrator::BulkSpecOf(const MigrationPlan& plan) const {
  const BulkCopyState& bulk = *plan.bulk;
  return SpecOf(plan, bulk.staging_dir, bulk.input, bulk.snapshot);
}

bool Migrator::KnowsHBaseRootDir() const {
  return !options_.hbase_conf_dir.empty() || options_.hbase_settings.count("hbase.rootdir") > 0;
}

std::string Migrator::WhySnapshotUnreadable(const MigrationPlan& plan,
                                            const std::string& staging_dir) const {
  auto access = bridge_.CheckSnapshotInput(
      SpecOf(plan, staging_dir, "snapshot", SourceSnapshotOf(plan.target)));
  if (!access.ok()) {
    return "could not check whether this daemon's user may read the source's files under "
           "hbase.rootdir: " +
           access.status().message();
  }
  if (!access->readable) {
    return "this daemon's user may not read the source's files under hbase.rootdir (" +
           access->reason + ")";
  }
  return "";
}

std::string Migrator::ChooseBulkInput(const MigrationPlan& plan, const BulkCopyState& bulk) const {
  // A snapshot is read from the files under hbase.rootdir: without it, the live table.
  if (!KnowsHBaseRootDir()) return "table";
  const std::string why = WhySnapshotUnreadable(plan, bulk.staging_dir);
  if (why.empty()) return "snapshot";
  spdlog::info(
      "migration {}: bulk copy: the job reads the live table through the RegionServers (input "
      "\"table\"), not a snapshot's files: {}",
      plan.table, why);
  return "table";
}

bool Migrator::HfileChunksReadSnapshot(const MigrationPlan& plan) const {
  if (!options_.hfile_source_snapshot || !KnowsHBaseRootDir()) return false;
  std::lock_guard<std::mutex> lock(hfile_inputs_mu_);
  auto known = hfile_reads_snapshot_.find(plan.target);
  if (known != hfile_reads_snapshot_.end()) return known->second;
  const std::string why =
      WhySnapshotUnreadable(plan, StagingDirOf(options_.bulk_staging_dir, plan.target));
  if (!why.empty()) {
    spdlog::warn(
        "migration {}: hfile copy: the chunks read the live table through the RegionServers, "
        "not a snapshot's files (migration_hfile_source = snapshot): {}",
        plan.table, why);
  }
  hfile_reads_snapshot_[plan.target] = why.empty();
  return why.empty();
}

std::string Migrator::HfileStagingSpecOf(const MigrationPlan& plan, bool for_cleanup) const {
  // Asked for, with hbase.rootdir known and readable, the chunks read the source from one
  // snapshot's files in the daemon (no RegionServer scan). The cleanup names that snapshot
  // whenever one was asked for: a daemon that read it before a restart, and is refused now, still
  // deletes it (the cleanup deletes only a snapshot that exists).
  const bool snapshot = for_cleanup ? options_.hfile_source_snapshot && KnowsHBaseRootDir()
                                    : HfileChunksReadSnapshot(plan);
  return SpecOf(plan, StagingDirOf(options_.bulk_staging_dir, plan.target),
                snapshot ? "snapshot" : "table", snapshot ? SourceSnapshotOf(plan.target) : "");
}

std::string Migrator::SpecOf(const MigrationPlan& plan, const std::string& staging_dir,
                             const std::string& input, const std::string& snapshot) const {
  json spec{{"source", plan.source},
            {"target", plan.target},
            {"old_layout", json::parse(plan.old_layout, nullptr, false)},
            {"new_layout", json::parse(plan.new_layout, nullptr, false)},
            // Every cell, whatever its timestamp (the bulk job's [min_ts, max_ts) stays open).
            {"min_ts", 0},
            {"max_ts", std::numeric_limits<int64_t>::max()},
            {"staging_dir", staging_dir},
            {"input", input},
            {"hbase_conf", options_.hbase_settings},
            {"local_tasks", options_.bulk_local_tasks > 0 ? options_.bulk_local_tasks
                                                          : std::max(1, plan.workers)}};
  if (!snapshot.empty()) spec["snapshot"] = snapshot;
  if (!options_.hadoop_conf_dir.empty()) spec["hadoop_conf_dir"] = options_.hadoop_conf_dir;
  if (!options_.hbase_conf_dir.empty()) spec["hbase_conf_dir"] = options_.hbase_conf_dir;
  return spec.dump(-1, ' ', false, json::error_handler_t::replace);
}

void Migrator::SnapshotBulk(const MigrationPlan& plan) {
  UpdateSnapshot(plan);
  if (!plan.bulk) return;
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  MigrationProgress& p = snapshot_[plan.table];
  p.rows = plan.bulk->rows;
  p.cells = plan.bulk->cells;
  p.regions_done = plan.bulk->loaded ? p.regions_total : 0;
  const double elapsed_s = (NowMs() - plan.copy_started_ms) / 1000.0;
  p.rows_per_s = elapsed_s > 0 ? plan.bulk->rows / elapsed_s : 0;
  // The map phase is most of the job: its progress is the best guess of what is left.
  const double done = plan.bulk->map_progress * 0.7 + plan.bulk->reduce_progress * 0.3;
  p.eta_s = done > 0.01 && elapsed_s > 0 ? static_cast<int64_t>(elapsed_s * (1 - done) / done) : -1;
}

Migrator::Step Migrator::CopyBulk(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (!plan.bulk) {
    BulkCopyState bulk;
    bulk.staging_dir = StagingDirOf(options_.bulk_staging_dir, plan.target);
    bulk.snapshot = SourceSnapshotOf(plan.target);
    // Chosen once: a restarted daemon resubmits with the input the plan saved.
    bulk.input = ChooseBulkInput(plan, bulk);
    plan.bulk = bulk;
    if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  }
  BulkCopyState& bulk = *plan.bulk;
  const std::string spec = BulkSpecOf(plan);
  if (bulk.loaded) return FinishBulkCopy(node, spec);

  if (!bulk.job_id.empty()) {
    auto progress = bridge_.BulkCopyProgress(bulk.job_id, spec);
    if (!progress.ok()) {
      return Fail(node, "bulk copy: reading the progress of job " + bulk.job_id + ": " +
                            progress.status().message());
    }
    bulk.state = progress->state;
    // While the job's tasks read the live source through the gate, a throttle sets its rate.
    const bool running = progress->state == "PREP" || progress->state == "RUNNING";
    throttles_.PaceBulkJob(plan, running && progress->paced);
    if (progress->state == "UNKNOWN") {
      spdlog::warn(
          "migration {}: bulk copy: job {} is unknown to this daemon's JVM (the local job "
          "runner's jobs end with the daemon that ran them): submitting it again",
          plan.table, bulk.job_id);
      bulk.job_id.clear();
      return SubmitBulk(node, spec);
    }
    bulk.map_progress = progress->map_progress;
    bulk.reduce_progress = progress->reduce_progress;
    bulk.rows = progress->rows;
    bulk.cells = progress->cells;
    if (progress->state == "SUCCEEDED") {
      spdlog::info("migration {}: bulk copy: job {} succeeded: {} rows, {} cells", plan.table,
                   bulk.job_id, bulk.rows, bulk.cells);
      return LoadBulk(node, spec);
    }
    if (progress->state == "FAILED" || progress->state == "KILLED") {
      bulk.failures++;
      std::string error = "bulk copy: job " + bulk.job_id + " " + progress->state +
                          (progress->failure.empty() ? "" : ": " + progress->failure);
      bulk.job_id.clear();
      if (bulk.failures >= options_.bulk_attempts) {
        error += " (" + std::to_string(bulk.failures) +
                 " failed jobs: not submitted again; resume the migration to try again, or "
                 "abort it)";
      } else {
        error += " (submitted again on the next run: failure " + std::to_string(bulk.failures) +
                 " of " + std::to_string(options_.bulk_attempts) + ")";
      }
      return Fail(node, error);
    }
    // PREP or RUNNING: progress into the plan and the status, and look again on the next run.
    SnapshotBulk(plan);
    if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
    SnapshotBulk(plan);
    return Step::kWaiting;
  }
  return SubmitBulk(node, spec);
}

Migrator::Step Migrator::SubmitBulk(PlanNode& node, const std::string& spec) {
  MigrationPlan& plan = node.plan;
  BulkCopyState& bulk = *plan.bulk;
  if (bulk.failures >= options_.bulk_attempts) {
    SnapshotBulk(plan);
    return Step::kWaiting;  // until an operator resumes or aborts
  }
  // What an earlier attempt left decides: load its output, or never load twice.
  auto output = bridge_.BulkCopyOutput(spec);
  if (!output.ok()) {
    return Fail(node, "bulk copy: reading the staging directory " + bulk.staging_dir + ": " +
                          output.status().message());
  }
  if (output->loaded) {
    spdlog::info("migration {}: bulk copy: the output in {} was loaded already: not loaded again",
                 plan.table, bulk.staging_dir);
    bulk.loaded = true;
    if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
    return FinishBulkCopy(node, spec);
  }
  if (output->finished) {
    spdlog::info("migration {}: bulk copy: a finished job's output waits in {}: loading it",
                 plan.table, bulk.staging_dir);
    return LoadBulk(node, spec);
  }
  // Submitted only while the RegionServers show no signal of the adaptive throttle's. A job of
  // this JVM's local runner reading the live table then takes from the throttle's gate, task by
  // task (`paced`); one on YARN, or reading a snapshot's files, reads at its own pace.
  if (const std::string busy = throttles_.ServersBusy(plan); !busy.empty()) {
    spdlog::info(
        "migration {}: bulk copy: job not submitted while the RegionServers are busy ({}); "
        "looked at again on the next run",
        plan.table, busy);
    SnapshotBulk(plan);
    return Step::kWaiting;
  }
  if (!MayAct()) return Step::kStopped;
  auto submitted = bridge_.SubmitBulkCopy(spec);
  if (!submitted.ok()) {
    bulk.failures++;
    return Fail(node, "bulk copy: submitting the job (failure " + std::to_string(bulk.failures) +
                          " of " + std::to_string(options_.bulk_attempts) +
                          "): " + submitted.status().message());
  }
  throttles_.PaceBulkJob(plan, submitted->paced);
  bulk.job_id = submitted->job_id;
  bulk.attempts++;
  bulk.state = "PREP";
  bulk.map_progress = bulk.reduce_progress = 0;
  bulk.rows = bulk.cells = 0;
  plan.error.clear();
  spdlog::info(
      "migration {}: bulk copy: submitted job {} (attempt {}): {} -> {}, every cell, {} input, "
      "staging {}",
      plan.table, bulk.job_id, bulk.attempts, plan.source, plan.target, bulk.input,
      bulk.staging_dir);
  // What a task on YARN authenticates with on a secure cluster (none on one without security).
  std::string tokens;
  for (const std::string& kind : submitted->tokens) tokens += (tokens.empty() ? "" : ", ") + kind;
  spdlog::info("migration {}: bulk copy: job {} carries delegation tokens: {}", plan.table,
               bulk.job_id, tokens.empty() ? "none" : tokens);
  SnapshotBulk(plan);
  if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  SnapshotBulk(plan);
  return Step::kWaiting;
}

Migrator::Step Migrator::LoadBulk(PlanNode& node, const std::string& spec) {
  MigrationPlan& plan = node.plan;
  BulkCopyState& bulk = *plan.bulk;
  if (const std::string busy = throttles_.ServersBusy(plan); !busy.empty()) {
    spdlog::info(
        "migration {}: bulk copy: output not loaded while the RegionServers are busy ({}); "
        "looked at again on the next run",
        plan.table, busy);
    SnapshotBulk(plan);
    return Step::kWaiting;
  }
  if (!MayAct()) return Step::kStopped;
  auto loaded = bridge_.LoadBulkCopy(spec);
  if (!loaded.ok()) {
    return Fail(node, "bulk copy: loading the HFiles of " + bulk.staging_dir + " into " +
                          plan.target + ": " + loaded.status().message());
  }
  bulk.loaded = true;
  bulk.files = loaded->files;
  spdlog::info("migration {}: bulk copy: loaded {} HFiles ({} bytes) into {}", plan.table,
               loaded->files, loaded->bytes, plan.target);
  if (Step saved = Save(node); saved != Step::kAdvanced) return saved;
  return FinishBulkCopy(node, spec);
}

Migrator::Step Migrator::FinishBulkCopy(PlanNode& node, const std::string& spec) {
  MigrationPlan& plan = node.plan;
  BulkCopyState& bulk = *plan.bulk;
  if (!bulk.job_id.empty()) (void)bridge_.KillBulkCopy(bulk.job_id, spec);  // forgets it
  Status cleaned = bridge_.CleanupBulkCopy(spec);
  if (!cleaned.ok()) {
    // Not worth stopping the migration for: only space is lost.
    spdlog::warn(
        "migration {}: bulk copy: could not remove snapshot {} and staging directory {} (remove "
        "them by hand): {}",
        plan.table, bulk.snapshot, bulk.staging_dir, cleaned.message());
  }
  counters_.rows_copied += bulk.rows;
  counters_.cells_copied += bulk.cells;
  counters_.regions_done += plan.source_regions.size();
  spdlog::info("migration {}: copy finished by the bulk job: {} rows, {} cells", plan.table,
               bulk.rows, bulk.cells);
  bulk.job_id.clear();
  bulk.state = "LOADED";
  bulk.map_progress = bulk.reduce_progress = 1;
  return FinishCopy(node);
}

void Migrator::CleanupHfileStaging(const MigrationPlan& plan, const char* when) {
  if (plan.engine != "hfile") return;
  // The bulk job's cleanup with the chunks' own spec: it removes the directory and, when the
  // chunks read the source from a snapshot, that snapshot.
  const std::string staging_dir = StagingDirOf(options_.bulk_staging_dir, plan.target);
  Status cleaned = bridge_.CleanupBulkCopy(HfileStagingSpecOf(plan, /*for_cleanup=*/true));
  if (!cleaned.ok()) {
    spdlog::warn(
        "migration {}: {}: could not remove the staging directory {} (remove it by hand): {}",
        plan.table, when, staging_dir, cleaned.message());
  }
}

void Migrator::PauseBulkCopy(MigrationPlan& plan) {
  if (!plan.bulk || plan.bulk->job_id.empty() || plan.bulk->loaded) return;
  const std::string job_id = plan.bulk->job_id;
  Status killed = bridge_.KillBulkCopy(job_id, BulkSpecOf(plan));
  if (!killed.ok()) {
    spdlog::warn(
        "migration {}: pause: could not kill bulk copy job {} (it runs on; the daemon looks at "
        "it again on resume): {}",
        plan.table, job_id, killed.message());
    return;
  }
  throttles_.PaceBulkJob(plan, false);
  plan.bulk->job_id.clear();
  plan.bulk->state = "KILLED";
  spdlog::info("migration {}: pause: bulk copy job {} killed; resume submits it again", plan.table,
               job_id);
}

void Migrator::AbortBulkCopy(const MigrationPlan& plan) {
  if (!plan.bulk) return;
  throttles_.PaceBulkJob(plan, false);
  const std::string spec = BulkSpecOf(plan);
  if (!plan.bulk->job_id.empty()) {
    Status killed = bridge_.KillBulkCopy(plan.bulk->job_id, spec);
    if (killed.ok()) {
      spdlog::info("migration {}: abort: bulk copy job {} killed", plan.table, plan.bulk->job_id);
    } else {
      spdlog::warn("migration {}: abort: killing bulk copy job {}: {}", plan.table,
                   plan.bulk->job_id, killed.message());
    }
  }
  Status cleaned = bridge_.CleanupBulkCopy(spec);
  if (!cleaned.ok()) {
    spdlog::warn(
        "migration {}: abort: could not remove snapshot {} and staging directory {} (remove them "
        "by hand): {}",
        plan.table, plan.bulk->snapshot, plan.bulk->staging_dir, cleaned.message());
  }
}

}  // namespace presplit::daemon::migrate
