// The Migrator's drivers: which plans to drive, a thread each, the operators' requests, and what
// every phase shares (saving the plan, failing, finishing). The phases live in phase_*.cc; the
// services they use in their own files (the capture peers and their drains in capture_peers.h,
// the MigrationGuard in guards.h); the look over all migrations' peers in capture_watch.cc; what
// a migration reads from and writes into the table's status in table_status.cc.
#include "daemon/migrate/migrator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "daemon/util/utc_time.h"
#include "presplit/layout_attributes.h"

namespace presplit::daemon::migrate {

Status StartMigration(ZkClient& zk, const std::string& zk_root, const ZkAcls& acls,
                      const MigrationStart& start) {
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
  plan.engine = start.config.engine;
  plan.workers = start.config.workers;
  plan.max_cells_per_s = start.config.max_cells_per_s;
  plan.grace_period_s = start.config.grace_period_s;
  plan.drop_old = start.config.drop_old;
  plan.config_version = start.config_version;
  plan.document = start.document;
  plan.plan_id = NewPlanId();
  plan.max_write_pause_ms = start.config.max_write_pause_ms;
  plan.throttle = start.config.throttle;
  plan.phase = Phase::kPlanned;
  plan.created_at = plan.updated_at = UtcNow();
  plan.daemon = start.daemon_id;
  plan.capture.peer = CapturePeerOf(plan.target);
  plan.capture.reverse_peer = ReversePeerOf(plan.target);
  PlanStore store(zk, zk_root, acls);
  PRESPLIT_RETURN_IF_ERROR(store.Prepare());
  Status created = store.Create(plan);
  if (created.ok()) {
    spdlog::info(
        "migration {}: planned: {} (generation {}, {} buckets) -> {} (generation {}, {} buckets), "
        "{} source regions, capture peer {}",
        plan.table, plan.source, plan.source_generation, SaltBucketsOfLayoutJson(plan.old_layout),
        plan.target, plan.target_generation, SaltBucketsOfLayoutJson(plan.new_layout),
        plan.source_regions.size(), plan.capture.peer);
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
    : zk_(zk),
      admin_(admin),
      bridge_(bridge),
      options_(std::move(options)),
      store_(
          zk, options_.zk_root, options_.acls, [this] { return LeaseHeldLocked(); }, &zk_mu_),
      capture_(bridge, admin_, *this,
               CaptureWaits{options_.zk_root, options_.ack_timeout, options_.ack_poll,
                            options_.recovery_timeout},
               counters_.probes),
      guards_(bridge, *this),
      write_pause_(bridge, *this),
      context_{
          /*control=*/*this,
          /*record=*/*this,
          /*status=*/*this,
          capture_,
          guards_,
          write_pause_,
          throttles_,
          bridge,
          admin_,
          options_,
          counters_,
          [this](const MigrationPlan& plan) { return RangeOf(plan); },
          [this](const MigrationPlan& plan, const char* when) { CleanupHfileStaging(plan, when); },
          [this](const std::string& table) -> Result<int64_t> {
            if (!options_.table_bytes) return Status::FailedPrecondition("no size source");
            return admin_.Locked([&] { return options_.table_bytes(table); });
          },
          [this](const MigrationPlan& plan) { AbortBulkCopy(plan); }},
      abort_phase_(context_),
      create_phase_(context_),
      switch_phase_(context_),
      retire_phase_(context_),
      rollback_phase_(context_),
      verify_phase_(context_),
      throttles_(bridge, *this, options_,
                 [this](const std::string& table, const Throttler* throttler) {
                   SnapshotThrottle(table, throttler);
                 }) {
  store_.set_part_limits(options_.plan_parts);
}

Migrator::~Migrator() { Stop(); }

Result<TableDescription> Migrator::GuardedAdmin::DescribeTable(const std::string& table) {
  std::lock_guard<std::mutex> lock(mu_);
  return admin_.DescribeTable(table);
}
Status Migrator::GuardedAdmin::CreateTable(const TableSpec& spec) {
  std::lock_guard<std::mutex> lock(mu_);
  return admin_.CreateTable(spec);
}
Status Migrator::GuardedAdmin::DisableTable(const std::string& table) {
  std::lock_guard<std::mutex> lock(mu_);
  return admin_.DisableTable(table);
}
Status Migrator::GuardedAdmin::DeleteTable(const std::string& table) {
  std::lock_guard<std::mutex> lock(mu_);
  return admin_.DeleteTable(table);
}

Status Migrator::Prepare() { return store_.Prepare(); }

bool Migrator::MayAct() {
  if (Halted()) return false;
  std::lock_guard<std::mutex> lock(zk_mu_);
  return LeaseHeldLocked();
}

bool Migrator::LeaseHeldLocked() {
  if (Halted()) return false;
  if (options_.lease && !options_.lease()) {
    halted_ = true;  // every driver ends: none may act any more
    return false;
  }
  return true;
}

bool Migrator::Interrupted() {
  if (Halted()) return true;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t asked = lease_asked_ms_.load();
  if (now - asked < 1000 || !lease_asked_ms_.compare_exchange_strong(asked, now)) return false;
  return !MayAct();
}

int64_t Migrator::NowMs() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Migrator::Sleep(std::chrono::milliseconds duration) const {
  if (options_.sleep) {
    options_.sleep(duration);
  } else {
    std::this_thread::sleep_for(duration);
  }
}

CopyRange Migrator::RangeOf(const MigrationPlan& plan) const {
  CopyRange range{plan.source, plan.target, plan.old_layout, plan.new_layout, ""};
  if (plan.engine == "hfile") {
    range.hfile_staging_spec = HfileStagingSpecOf(plan, /*for_cleanup=*/false);
  }
  return range;
}

std::vector<MigrationProgress> Migrator::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  std::vector<MigrationProgress> out;
  for (const auto& [table, progress] : snapshot_) {
    out.push_back(progress);
    auto lags = capture_lags_.find(table);
    if (lags != capture_lags_.end()) out.back().capture = lags->second;
  }
  return out;
}

Status Migrator::RunOnce() { return Run(/*wait=*/false); }

Status Migrator::RunOnceAndWait() { return Run(/*wait=*/true); }

void Migrator::Stop() {
  halted_ = true;
  (void)Reap(/*all=*/true);
}

bool Migrator::Reap(bool all) {
  std::vector<std::unique_ptr<Driver>> ended;
  {
    std::unique_lock<std::mutex> lock(drivers_mu_);
    if (all) {
      drivers_cv_.wait(lock, [&] {
        return std::all_of(drivers_.begin(), drivers_.end(),
                           [](const auto& entry) { return entry.second->finished; });
      });
    }
    for (auto it = drivers_.begin(); it != drivers_.end();) {
      if (it->second->finished) {
        ended.push_back(std::move(it->second));
        it = drivers_.erase(it);
      } else {
        ++it;
      }
    }
  }
  bool stopped = false;
  for (auto& driver : ended) {
    // A finished driver only has its thread's end left to run.
    if (driver->thread.joinable()) driver->thread.join();
    stopped = stopped || driver->step == Step::kStopped;
  }
  return stopped;
}

void Migrator::DriveInThread(const std::string& table, Driver* driver) {
  Step step = Step::kWaiting;
  try {
    step = DriveOne(table);
  } catch (const std::exception& e) {
    counters_.exceptions_caught++;
    spdlog::error("migration {}: internal error (retried on the next run): {}", table, e.what());
  } catch (...) {
    counters_.exceptions_caught++;
    spdlog::error("migration {}: internal error (retried on the next run)", table);
  }
  // The lease is gone or the daemon stops: the other drivers end too.
  if (step == Step::kStopped) halted_ = true;
  {
    std::lock_guard<std::mutex> lock(drivers_mu_);
    driver->step = step;
    driver->finished = true;
  }
  drivers_cv_.notify_all();
}

Status Migrator::Run(bool wait) {
  counters_.runs++;
  const uint64_t run = ++run_number_;
  bool stopped = Reap(/*all=*/false);
  auto verdict = [&]() -> Status {
    if (wait) stopped = Reap(/*all=*/true) || stopped;
    if (!stopped) return Status::Ok();
    return Stopping() ? Status::Unavailable("stopping")
                      : Status::FailedPrecondition("lease lost: migrations stopped");
  };
  if (Stopping()) {
    (void)verdict();
    return Status::Unavailable("stopping");
  }
  if (halted_) {
    // The drivers of a lost lease (or of Stop) end first; then a run starts afresh, asking the
    // lease again.
    size_t running;
    {
      std::lock_guard<std::mutex> lock(drivers_mu_);
      running = drivers_.size();
    }
    if (running > 0 && !wait) {
      return Status::FailedPrecondition("lease lost: " + std::to_string(running) +
                                        " migrations still stopping");
    }
    stopped = Reap(/*all=*/true) || stopped;
    halted_ = false;
  }
  if (!MayAct()) {
    {
      std::lock_guard<std::mutex> lock(snapshot_mu_);
      snapshot_.clear();  // a standby shows nothing it does not drive
      capture_lags_.clear();
    }
    (void)verdict();
    return Status::FailedPrecondition("not the leader: no migration driven");
  }
  SweepOrphanPeers();  // before any driver of this run can add a peer
  PollCaptureLags();
  auto tables = store_.List();
  if (!tables.ok()) {
    (void)verdict();
    return tables.status().WithContext("listing migrations");
  }
  auto listed = [&](const std::string& table) {
    return std::find(tables->begin(), tables->end(), table) != tables->end();
  };
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    std::erase_if(snapshot_, [&](const auto& entry) { return !listed(entry.first); });
  }
  {
    std::lock_guard<std::mutex> lock(drivers_mu_);
    std::erase_if(last_started_, [&](const auto& entry) { return !listed(entry.first); });
    std::erase_if(queued_logged_, [&](const std::string& table) { return !listed(table); });
    // The plans without a driver, the one driven least recently first (never driven: 0), so
    // that plans beyond max_concurrent_migrations take turns.
    std::vector<std::string> idle;
    for (const auto& table : *tables) {
      if (!drivers_.count(table)) idle.push_back(table);
    }
    std::stable_sort(idle.begin(), idle.end(), [&](const std::string& a, const std::string& b) {
      auto at = last_started_.find(a), bt = last_started_.find(b);
      return (at == last_started_.end() ? 0 : at->second) <
             (bt == last_started_.end() ? 0 : bt->second);
    });
    const size_t bound = static_cast<size_t>(std::max(1, options_.max_concurrent_migrations));
    for (const auto& table : idle) {
      if (drivers_.size() >= bound) {
        if (queued_logged_.insert(table).second) {
          spdlog::info(
              "migration {}: waits for a driver ({} migrations run at a time: "
              "migration_max_concurrent)",
              table, bound);
        }
        continue;
      }
      queued_logged_.erase(table);
      auto driver = std::make_unique<Driver>();
      Driver* raw = driver.get();
      try {
        driver->thread = std::thread([this, table, raw] { DriveInThread(table, raw); });
      } catch (const std::exception& e) {
        counters_.exceptions_caught++;
        spdlog::error("migration {}: cannot start its driver (retried on the next run): {}", table,
                      e.what());
        continue;
      }
      drivers_[table] = std::move(driver);
      last_started_[table] = run;
    }
  }
  return verdict();
}

Migrator::Step Migrator::DriveOne(const std::string& table) {
  // Each iteration reads the plan again and takes one step; a step that cannot go on now says so.
  for (int steps = 0; steps < 64; ++steps) {
    if (Halted()) return Step::kStopped;
    auto node = store_.Read(table);
    if (!node.ok()) {
      if (node.status().code() != StatusCode::kNotFound) {
        spdlog::error("migration {}: cannot read the plan: {}", table, node.status().ToString());
      }
      return Step::kWaiting;
    }
    Status checked = CheckAgainstStatus(node->plan);
    if (checked.ok()) checked = CheckTablesAgree(node->plan);
    if (!checked.ok() && checked.code() != StatusCode::kInvalidArgument) {
      // The status or the target could not be read (ZooKeeper or HBase unavailable): not a
      // verdict on the plan, so neither a refusal counted nor one written; the next run reads
      // again.
      spdlog::warn(
          "migration {}: cannot check the plan against the table's status and tables: "
          "{}",
          table, checked.ToString());
      return Step::kWaiting;
    }
    if (!checked.ok()) {
      // Left untouched: no table, snapshot, directory or peer is created, fenced or deleted
      // for a plan this daemon would not have written. Said once per plan version.
      counters_.plans_refused++;
      const std::string key = std::to_string(node->version) + ":" + checked.message();
      bool first;
      {
        std::lock_guard<std::mutex> lock(refusals_mu_);
        first = refusals_logged_[table] != key;
        if (first) refusals_logged_[table] = key;
      }
      if (first) {
        spdlog::error(
            "migration {}: plan refused, nothing done with it: {} (remove <root>/migrations/{} "
            "by hand if nobody should act on it)",
            table, checked.message(), table);
        RecordRefusal(table, checked.message());
      }
      return Step::kWaiting;
    }
    {
      std::lock_guard<std::mutex> lock(refusals_mu_);
      refusals_logged_.erase(table);
    }
    // Before requests and pauses: a plan whose document is gone is ended (OnDocumentGone), never
    // left paused or waiting with its capture peer holding the source's WALs.
    if (DocumentGone(table)) {
      Step gone = OnDocumentGone(*node);
      if (gone != Step::kAdvanced) return gone;
    } else {
      std::lock_guard<std::mutex> lock(refusals_mu_);
      document_gone_logged_.erase(table);
    }
    auto request = store_.ReadRequest(table);
    if (!request.ok()) {
      spdlog::warn("migration {}: ignoring the pending request: {}", table,
                   request.status().message());
    } else if (request->has_value()) {
      Step handled = HandleRequest(*node, **request);
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
        step = create_phase_.CreateTarget(*node);
        break;
      case Phase::kCopying:
        step = Copy(*node);
        break;
      case Phase::kVerifying:
        step = verify_phase_.Verify(*node);
        break;
      case Phase::kFailedVerification:
        UpdateSnapshot(node->plan);
        step = Step::kWaiting;  // until an operator aborts
        break;
      case Phase::kSwitching:
        step = switch_phase_.Switch(*node);
        break;
      case Phase::kCatchingUp:
        step = switch_phase_.CatchUp(*node);
        break;
      case Phase::kGrace:
        step = retire_phase_.Grace(*node);
        break;
      case Phase::kFencing:
        step = retire_phase_.Fence(*node);
        break;
      case Phase::kDone:
        step = Finish(*node, "done", "done");
        break;
      case Phase::kRollingBack:
        step = rollback_phase_.RollingBack(*node);
        break;
    }
    if (step != Step::kAdvanced) return step;
  }
  return Step::kWaiting;
}

Status Migrator::CheckTablesAgree(const MigrationPlan& plan) {
  if (plan.phase == Phase::kPlanned) return Status::Ok();  // CreateGeneration checks the target
  auto refuse = [](const std::string& why) {
    return Status::InvalidArgument("the plan is not one this daemon would have written: " + why);
  };
  if (plan.plan_id.empty()) {
    return refuse(
        "it has no plan_id past phase planned (a plan written by an older presplitd, "
        "or by hand): its target cannot be told from another table");
  }
  auto generation = bridge_.CheckGeneration(plan.target, plan.source, plan.plan_id);
  if (!generation.ok()) return generation.status().WithContext("looking at " + plan.target);
  if (!generation->exists) {
    // An abort or a rollback that dropped the target and was stopped before the plan went.
    if (plan.phase < Phase::kSwitching || plan.phase == Phase::kRollingBack) return Status::Ok();
    return refuse("its target " + plan.target + " does not exist in phase " +
                  PhaseName(plan.phase));
  }
  if (!generation->why_not.empty()) return refuse(generation->why_not);
  return Status::Ok();
}

Migrator::Step Migrator::HandleRequest(PlanNode& node, const PlanStore::PendingRequest& pending) {
  MigrationPlan& plan = node.plan;
  const char* name = RequestName(pending.request);
  if (plan.writes_paused_until_ms != 0) {
    // A request that arrives during the switch's write pause ends the pause first: no request
    // (pause, abort, rollback) leaves writers held and the source read-only.
    Status lifted = write_pause_.Lift(plan);
    if (!lifted.ok()) {
      return Fail(
          node, std::string(name) + ": ending the switch's write pause first: " + lifted.message());
    }
    spdlog::info("migration {}: the switch's write pause is lifted for the {} request", plan.table,
                 name);
  }
  auto refuse = [&](const std::string& refusal) {
    plan.error = refusal;
    spdlog::warn("migration {}: {}", plan.table, plan.error);
    Step saved = Save(node);
    if (saved != Step::kAdvanced) return saved;
    (void)store_.ClearRequest(plan.table, pending.version);
    return Step::kAdvanced;
  };
  // The phase table decides. In `switching` the plan's phase alone does not say whether readers
  // use the target: a switch whose status write succeeded and whose plan write did not leaves the
  // plan at `switching`. The status decides there.
  bool status_names_target = IsSwitched(plan.phase);
  const Verdict verdict = RuleFor(plan.phase, pending.request).verdict;
  if (verdict == Verdict::kAcceptIfSwitched || verdict == Verdict::kAcceptIfNotSwitched) {
    auto names_target = StatusNamesTarget(plan);
    if (!names_target.ok()) {
      return Fail(node,
                  std::string(name) + ": reading the status: " + names_target.status().message());
    }
    status_names_target = *names_target;
  }
  const Decision decision = Decide(plan.phase, pending.request, status_names_target,
                                   {plan.table, plan.source, plan.target});
  if (!decision.accepted) return refuse(decision.refusal);
  switch (pending.request) {
    case Request::kAbort:
      return abort_phase_.Abort(node, "");  // removes the request with the plan
    case Request::kRollback:
      return rollback_phase_.Rollback(node, pending.version);
    case Request::kPause:
      plan.paused = true;
      spdlog::info("migration {}: paused in phase {}", plan.table, PhaseName(plan.phase));
      PauseBulkCopy(plan);
      break;
    case Request::kResume:
      plan.paused = false;
      plan.error.clear();
      if (plan.bulk) plan.bulk->failures = 0;  // a bulk copy that gave up tries again
      // A failed verification is run again (an operator who found the cause, e.g. a bulk load
      // into the source, and repaired the target asks for another look).
      if (plan.phase == Phase::kFailedVerification) {
        if (Status moved = EnterPhase(plan, Phase::kVerifying); !moved.ok()) {
          return Fail(node, moved.message());
        }
      }
      spdlog::info("migration {}: resumed in phase {}", plan.table, PhaseName(plan.phase));
      break;
  }
  Step saved = Save(node);
  if (saved != Step::kAdvanced) return saved;
  // Removed after the plan says what it did: a crash in between handles it again (harmless).
  (void)store_.ClearRequest(plan.table, pending.version);
  return Step::kAdvanced;
}

Status Migrator::EnterPhase(MigrationPlan& plan, Phase to) {
  if (!MayMove(plan.phase, to)) {
    counters_.errors++;
    return Status::Internal(std::string("the phase table has no move from ") +
                            PhaseName(plan.phase) + " to " + PhaseName(to) +
                            " (a presplitd bug: the plan stays where it is)");
  }
  plan.phase = to;
  return Status::Ok();
}

Migrator::Step Migrator::Save(PlanNode& node) {
  node.plan.updated_at = UtcNow();
  node.plan.daemon = options_.daemon_id;
  Status written = store_.CompareAndSet(node);
  if (written.code() == StatusCode::kInvalidArgument) {
    // Too large for its znode (PlanStore): nothing written, and the same step would only grow it
    // again. Said in the status (whose `migration` object carries no per-region part) and the
    // log; the migration waits where the last written plan left it.
    counters_.errors++;
    auto last = store_.Read(node.plan.table);  // what the status may show: the plan as written
    spdlog::error("migration {}: {}; the migration waits in phase {}", node.plan.table,
                  written.message(), PhaseName(last.ok() ? last->plan.phase : node.plan.phase));
    if (last.ok()) {
      last->plan.error = written.message();
      (void)PublishProgress(last->plan);
    }
    return MayAct() ? Step::kWaiting : Step::kStopped;
  }
  if (!written.ok()) {
    if (!MayAct()) return Step::kStopped;
    spdlog::warn("migration {}: {}", node.plan.table, written.message());
    return Step::kWaiting;
  }
  (void)PublishProgress(node.plan);
  return Step::kAdvanced;
}

Migrator::Step Migrator::Fail(PlanNode& node, const std::string& error) {
  counters_.errors++;
  spdlog::error("migration {}: {} (phase {}; retried on the next run)", node.plan.table, error,
                PhaseName(node.plan.phase));
  node.plan.error = error;
  if (!MayAct()) return Step::kStopped;
  Step saved = Save(node);
  return saved == Step::kStopped ? saved : Step::kWaiting;
}

Migrator::Step Migrator::Finish(PlanNode& node, const std::string& summary,
                                const char* final_phase) {
  MigrationPlan& plan = node.plan;
  if (!MayAct()) return Step::kStopped;
  // The status says how the migration ended before the plan goes: once the plan is gone nothing
  // writes the status's `migration` again, and a reader (presplitctl migration status, a portal's
  // awaitApplied, the reconciler deciding whether an aborted document may start again) would see
  // the last phase before the end forever. A status write that lost to other writers is tried
  // again on the next run, from the plan's final phase.
  Status published = PublishProgress(plan, final_phase);
  if (!published.ok()) {
    if (!MayAct()) return Step::kStopped;
    return Fail(node, std::string("writing the final phase '") + final_phase +
                          "' into the status: " + published.message() +
                          " (the plan stays until the status says it)");
  }
  Status removed = store_.Remove(plan.table);
  if (!removed.ok()) return Fail(node, "removing the plan: " + removed.message());
  counters_.finished++;
  // A rollback is counted by rollbacks when it is asked for; "completed" means switched for good.
  if (std::string(final_phase) == "done") counters_.completed++;
  spdlog::info("migration {}: {} (the table is served by {})", plan.table, summary,
               std::string(final_phase) == "rolled_back" ? plan.source : plan.target);
  throttles_.PaceBulkJob(plan, false);  // before the snapshot forgets it: ending shows it
  Forget(plan.table);
  return Step::kWaiting;
}

void Migrator::ClearRequest(const std::string& table, int version) {
  (void)store_.ClearRequest(table, version);
}

// A table's document removed while its migration runs: presplitctl rm refuses then, but a portal
// writing ZooKeeper directly is not stopped. The reconciler keeps the status while a plan exists
// (the plan check and the abort's last status write need it), and the leader ends the migration
// here: aborted before the switch, finished as usual after it.
bool Migrator::DocumentGone(const std::string& table) {
  std::lock_guard<std::mutex> lock(zk_mu_);
  auto document = zk_.Get(JoinZkPath(JoinZkPath(options_.zk_root, "tables"), table),
                          /*watch=*/false);
  return !document.ok() && document.status().code() == StatusCode::kNotFound;
}

Migrator::Step Migrator::OnDocumentGone(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  // As for an operator's abort, the status decides whether readers use the target: a switch
  // whose status write succeeded and whose plan write did not leaves the plan at `switching`.
  bool switched = IsSwitched(plan.phase);
  if (!switched) {
    auto names_target = StatusNamesTarget(plan);
    if (!names_target.ok()) {
      spdlog::warn(
          "migration {}: its document is gone; reading the status to decide what to do: "
          "{} (tried again on the next run)",
          plan.table, names_target.status().ToString());
      return Step::kWaiting;
    }
    switched = *names_target;
  }
  if (switched) {
    bool first;
    {
      std::lock_guard<std::mutex> lock(refusals_mu_);
      first = document_gone_logged_.insert(plan.table).second;
    }
    if (first) {
      spdlog::warn(
          "migration {}: its document <root>/tables/{} was removed after the switch (phase {}): "
          "{} serves the table's data now, so the migration goes on to its end; the HBase "
          "tables stay, as for any removed document",
          plan.table, plan.table, PhaseName(plan.phase), plan.target);
    }
    return Step::kAdvanced;
  }
  const std::string why = "its document <root>/tables/" + plan.table +
                          " was removed before the switch (phase " + PhaseName(plan.phase) +
                          "): aborted by the daemon";
  spdlog::warn("migration {}: {}; {} is dropped and its capture peers removed", plan.table, why,
               plan.target);
  return abort_phase_.Abort(node, why);
}

Migrator::Step Migrator::Abort(PlanNode& node, const std::string& why) {
  return abort_phase_.Abort(node, why);
}

Status Migrator::RemovePlan(const MigrationPlan& plan) { return store_.Remove(plan.table); }

void Migrator::Forget(const std::string& table) {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  snapshot_.erase(table);
}

}  // namespace presplit::daemon::migrate
