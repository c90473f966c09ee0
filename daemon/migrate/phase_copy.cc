// Phase "copying" with the "put" and "hfile" engines: a bounded pool of threads, one source
// region each, copies the source chunk by chunk (every live cell, every version, whatever its
// timestamp, with its tags), checkpointed after each chunk; pause/abort/rollback requests and the
// lease are checked between chunks. The "mapreduce" engine is phase_copy_bulk.cc.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <thread>

#include "daemon/migrate/migrator.h"

namespace presplit::daemon::migrate {
namespace {

// What a stopped copy run was told.
enum StopReason : int { kNone = 0, kRequest, kLease, kStopping, kError };

}  // namespace

Migrator::Step Migrator::Copy(PlanNode& node) {
  if (node.plan.engine == "mapreduce") return CopyBulk(node);
  MigrationPlan& plan = node.plan;
  auto loaded = store_.ReadCheckpoints(plan.table, plan.source_regions.size());
  if (!loaded.ok()) return Fail(node, "reading checkpoints: " + loaded.status().message());
  std::vector<PlanStore::Checkpoint> stored = std::move(loaded).value();
  std::vector<RegionCheckpoint> checkpoints;
  for (const auto& s : stored) checkpoints.push_back(s.checkpoint);
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
    PlanStore::Checkpoint saved_cp = stored[index];
    RegionCheckpoint& cp = saved_cp.checkpoint;
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
        chunk = bridge_.CopyChunk(range, from, region.end, chunk_rows, per_worker_rate);
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
      if (!MayAct()) {
        stop = Stopping() ? kStopping : kLease;
        return;
      }
      // Compare-and-set on the version this copy read or wrote: a checkpoint another leader
      // wrote meanwhile stops this copy instead of being overwritten.
      Status saved = store_.WriteCheckpoint(plan.table, index, saved_cp);
      auto request = store_.ReadRequest(plan.table);
      const bool asked = request.ok() && request->has_value();
      counters_.chunks_copied++;
      counters_.rows_copied += chunk->copied.rows;
      counters_.cells_copied += chunk->copied.cells;
      {
        std::lock_guard<std::mutex> lock(mu);
        rows += chunk->copied.rows;
        cells += chunk->copied.cells;
        rows_this_run += chunk->copied.rows;
        if (!saved.ok()) {
          if (!MayAct()) {
            stop = Stopping() ? kStopping : kLease;
            return;
          }
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
      if (asked) stop = kRequest;  // DriveOne handles it once the chunks in flight are done
      if (cp.done) return;
    }
  };

  // The adaptive throttle: every chunk's reads and writes take from its gate in the bridge (the
  // chunk's own per-worker limit above is the ceiling's share).
  std::unique_ptr<PhaseThrottle> throttle = workers > 0 ? throttles_.Start(plan) : nullptr;
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
      if (throttle && (stop != kNone || Halted())) {
        // Stopping: the gate opens, so that no chunk waits out a throttled debt first.
        throttle->sampler->Stop();
      }
      publish();
      lock.lock();
    }
  }
  for (auto& t : threads) t.join();
  throttle.reset();
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
    case kRequest:
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
  return FinishCopy(node);
}

Migrator::Step Migrator::FinishCopy(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // The copy does not bulk-load any more: the target's guard refuses bulk loads from now on (one
  // reopen of the target's regions). The target keeps deleted cells until the fence: the capture
  // peer is not serial, so a region that moved (the balancer, a crash) can have an older put
  // still in its first server's queue after its delete marker arrived from the second one; were
  // the marker compacted away meanwhile, the late put would come back. Only the fence's drain
  // ends that (phase_retire.cc gives the families the source's setting back there).
  if (!MayAct()) return Step::kStopped;
  if (!plan.plan_id.empty()) {
    auto guarded = bridge_.GuardTable(plan.target, plan.plan_id);
    if (!guarded.ok()) {
      return Fail(node, "closing the MigrationGuard of " + plan.target +
                            " to bulk loads after the copy: " + guarded.status().message());
    }
  }
  if (Status moved = EnterPhase(plan, Phase::kVerifying); !moved.ok())
    return Fail(node, moved.message());
  plan.error.clear();
  return Save(node);
}

}  // namespace presplit::daemon::migrate
