// Phase "verifying": see phase_verify.h.
#include "daemon/migrate/phase_verify.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "daemon/util/utc_time.h"
#include "presplit/bytes.h"

namespace presplit::daemon::migrate {
namespace {

// A key in a log line or the status: at most this many bytes of it, then "...".
constexpr size_t kPrintedKeyBytes = 120;

using nlohmann::json;

// What the report keeps at most (see above): ~10 regions of ~200 bytes, 5 rows of at most 1 KiB.
constexpr size_t kReportRegions = 10;
constexpr size_t kReportRows = 5;
constexpr size_t kReportRowBytes = 1024;

// A row's description cut to kReportRowBytes (a row of many cells, or large values, describes
// long), on a UTF-8 character boundary, saying how long it was.
std::string Bounded(std::string text) {
  if (text.size() <= kReportRowBytes) return text;
  const size_t full = text.size();
  size_t cut = kReportRowBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "... (" + std::to_string(full) + " bytes)";
}

json DigestJson(const CellDigest& d) {
  return {{"rows", d.rows}, {"cells", d.cells}, {"digest", DigestHex(d.digest)}};
}

}  // namespace

Step VerifyPhase::Verify(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  const int partitions = std::max(1, ctx_.options.verify_partitions);
  // The guard is there from the start; one removed by hand (or never attached: a migration an
  // older presplitd started) is attached again before anything is compared.
  auto guarded = ctx_.guards.GuardSource(plan);
  if (!guarded.ok()) {
    return ctx_.record.Fail(node, "verification: attaching the MigrationGuard to " + plan.source +
                                      ": " + guarded.status().message());
  }
  if (*guarded) {
    spdlog::warn(
        "migration {}: the MigrationGuard was missing from {} (removed by hand, or the migration "
        "was started by an older presplitd): attached again",
        plan.table, plan.source);
  }
  if (Status confirmed = ctx_.guards.ConfirmSourceGuard(plan); !confirmed.ok()) {
    return ctx_.record.Fail(node, "verification: confirming the MigrationGuard of " + plan.source +
                                      ": " + confirmed.message());
  }
  // A bulk load the capture saw got past the guard: its cells may be missing from the target,
  // and nothing switches until an operator looked (a row that does not fit fails below anyway).
  auto seen = ctx_.capture.CollectNotices(plan, plan.target);
  if (!seen.ok()) {
    return ctx_.record.Fail(node, "verification: reading the capture's notices in " + plan.target +
                                      ": " + seen.status().message());
  }
  if (seen->count > 0 && plan.capture.unfit == 0) return ctx_.record.StopForBulkLoads(node, *seen);

  // Every digest, comparison and re-read takes from the adaptive throttle's gate in the bridge,
  // until this returns.
  std::unique_ptr<PhaseThrottle> throttle = ctx_.throttles.Start(plan);
  (void)ctx_.status.PublishProgress(plan, "");

  // 1. Digests per region and partition, both sides at once.
  const CopyRange range = ctx_.range_of(plan);
  std::vector<std::string> starts;
  for (const auto& r : plan.source_regions) starts.push_back(r.start);
  const size_t count = plan.source_regions.size();
  std::vector<Result<PartitionDigests>> sources(
      count, Result<PartitionDigests>(Status::Internal("unread")));
  Result<std::vector<PartitionDigests>> target = Status::Internal("unread");
  std::atomic<size_t> next_region{0};
  auto digest_sources = [&] {
    for (size_t i = next_region++; i < count; i = next_region++) {
      if (ctx_.control.Halted()) return;
      const SourceRegion& r = plan.source_regions[i];
      try {
        sources[i] =
            ctx_.bridge.DigestPartitions(plan.source, plan.old_layout, r.start, r.end, partitions);
      } catch (const std::exception& e) {
        ctx_.counters.exceptions_caught++;
        sources[i] = Status::Internal(std::string("internal error: ") + e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  const size_t source_threads = std::clamp<size_t>(plan.workers, 1, std::max<size_t>(1, count));
  for (size_t t = 0; t < source_threads; ++t) threads.emplace_back(digest_sources);
  threads.emplace_back([&] {
    try {
      target = ctx_.bridge.DigestTargetPartitions(range, starts, partitions);
    } catch (const std::exception& e) {
      ctx_.counters.exceptions_caught++;
      target = Status::Internal(std::string("internal error: ") + e.what());
    }
  });
  for (auto& thread : threads) thread.join();
  if (ctx_.control.Halted()) return Step::kStopped;
  (void)ctx_.status.PublishProgress(plan,
                                    "");  // the throttle's rate and reason now, into the status
  if (!target.ok())
    return ctx_.record.Fail(node, "verifying the target: " + target.status().message());

  json first_regions = json::array();  // the first kReportRegions regions that differ
  CellDigest source_total, target_total;
  std::vector<RegionPartitions> differing;
  int64_t partitions_differing = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!sources[i].ok()) {
      return ctx_.record.Fail(node, "verifying source region " + std::to_string(i) + ": " +
                                        sources[i].status().message());
    }
    const PartitionDigests& s = *sources[i];
    const PartitionDigests& t = (*target)[i];
    RegionPartitions region{plan.source_regions[i], {}};
    for (int p = 0; p < partitions; ++p) {
      if (s.partitions[p] != t.partitions[p]) region.partitions.push_back(p);
    }
    source_total.rows += s.total.rows;
    source_total.cells += s.total.cells;
    source_total.digest += s.total.digest;
    target_total.rows += t.total.rows;
    target_total.cells += t.total.cells;
    target_total.digest += t.total.digest;
    partitions_differing += static_cast<int64_t>(region.partitions.size());
    if (!region.partitions.empty() && first_regions.size() < kReportRegions) {
      first_regions.push_back({{"region", i},
                               {"partitions_differing", region.partitions.size()},
                               {"source", DigestJson(s.total)},
                               {"target", DigestJson(t.total)}});
    }
    if (!region.partitions.empty()) differing.push_back(std::move(region));
  }
  spdlog::info(
      "migration {}: verification: {} rows, {} cells in {}, {} rows, {} cells in {}; {} of {} "
      "partitions differ in {} of {} regions{}",
      plan.table, source_total.rows, source_total.cells, plan.source, target_total.rows,
      target_total.cells, plan.target, partitions_differing,
      static_cast<int64_t>(partitions) * static_cast<int64_t>(count), differing.size(), count,
      differing.empty() ? "" : ": comparing them row by row once the capture has shipped past");

  // 2. The differing partitions row by row, after the peer shipped past the digests.
  std::vector<std::string> suspects;
  bool too_many = false;
  int64_t rechecked = 0;
  // The source's hash of each suspect at its first re-read, and the suspects whose source row
  // changed between two re-reads: a row written all the time (a counter, a status row) differs
  // at every re-read because the two sides are read at different moments, a broken copy because
  // the target lacks something; only the second keeps its source row still.
  std::map<std::string, uint64_t> source_reads;
  std::set<std::string> changing;
  if (!differing.empty()) {
    Status shipped = ctx_.capture.AwaitShipped(plan.capture.peer, plan.source, plan.target);
    if (!shipped.ok()) {
      return ctx_.control.Halted() ? Step::kStopped
                                   : ctx_.record.Fail(node, "verification: " + shipped.message());
    }
    auto diff = ctx_.bridge.DiffPartitions(range, starts, differing, partitions,
                                           ctx_.options.verify_max_rows);
    if (!diff.ok())
      return ctx_.record.Fail(node, "verification: comparing rows: " + diff.status().message());
    (void)ctx_.status.PublishProgress(plan, "");
    suspects = diff->keys;
    too_many = diff->truncated;
    rechecked += diff->differing;
    // 3. Each row read again, source first, target once the peer shipped past that read.
    for (int round = 0; round < ctx_.options.verify_rounds && !suspects.empty() && !too_many;
         ++round) {
      auto source_rows = ctx_.bridge.RowHashes(plan.source, plan.old_layout, suspects);
      if (!source_rows.ok()) {
        return ctx_.record.Fail(
            node, "verification: re-reading the source: " + source_rows.status().message());
      }
      for (size_t k = 0; k < suspects.size(); ++k) {
        auto [seen, first_read] = source_reads.try_emplace(suspects[k], (*source_rows)[k]);
        if (!first_read && seen->second != (*source_rows)[k]) changing.insert(suspects[k]);
      }
      Status again = ctx_.capture.AwaitShipped(plan.capture.peer, plan.source, plan.target);
      if (!again.ok()) {
        return ctx_.control.Halted() ? Step::kStopped
                                     : ctx_.record.Fail(node, "verification: " + again.message());
      }
      auto target_rows = ctx_.bridge.RowHashes(plan.target, plan.new_layout, suspects);
      if (!target_rows.ok()) {
        return ctx_.record.Fail(
            node, "verification: re-reading the target: " + target_rows.status().message());
      }
      std::vector<std::string> still;
      for (size_t k = 0; k < suspects.size(); ++k) {
        if ((*source_rows)[k] != (*target_rows)[k]) still.push_back(suspects[k]);
      }
      spdlog::info("migration {}: verification: re-read {} rows: {} still differ", plan.table,
                   suspects.size(), still.size());
      suspects = std::move(still);
    }
  }
  ctx_.counters.rows_rechecked += rechecked;
  // The rows that kept changing are compared once more at the switch, while writes are paused and
  // neither side changes (phase_switch.cc); a row whose source stayed the same and still differs
  // is a difference now. More than kMaxDeferredRows changing rows, or keys longer than
  // kMaxDeferredKeyBytes together (the plan keeps them): all of them count, as before.
  std::vector<std::string> deferred;
  if (!too_many) {
    std::vector<std::string> still;
    size_t deferred_bytes = 0;
    for (const auto& key : suspects) {
      if (changing.count(key)) {
        deferred.push_back(key);
        deferred_bytes += key.size();
      } else {
        still.push_back(key);
      }
    }
    if (deferred.size() <= kMaxDeferredRows && deferred_bytes <= kMaxDeferredKeyBytes) {
      suspects = std::move(still);
    } else {
      deferred.clear();
    }
  }

  json first = json::array();
  for (size_t k = 0; k < suspects.size() && k < kReportRows; ++k) {
    auto described = ctx_.bridge.DescribeRow(range, suspects[k]);
    first.push_back(Bounded(described.ok()
                                ? *described
                                : "'" + ToStringBinaryPrefix(suspects[k], kPrintedKeyBytes) +
                                      "': " + described.status().message()));
  }
  const bool unfit = plan.capture.unfit > 0;
  const bool ok = suspects.empty() && !too_many && !unfit;
  json report{{"ok", ok},
              {"checked_at", UtcNow()},
              {"partitions", partitions},
              {"partitions_differing", partitions_differing},
              {"rows_rechecked", rechecked},
              {"rows_differing", too_many ? json(nullptr) : json(suspects.size())},
              {"rows_deferred_to_the_switch", deferred.size()},
              {"first_differences", first},
              {"source", DigestJson(source_total)},
              {"target", DigestJson(target_total)},
              {"regions", count},
              {"regions_differing", differing.size()},
              {"first_regions_differing", first_regions}};
  plan.verification = report.dump();
  if (!ok) {
    ctx_.counters.verification_failures++;
    if (Status moved = ctx_.record.EnterPhase(plan, Phase::kFailedVerification); !moved.ok())
      return ctx_.record.Fail(node, moved.message());
    if (unfit) {
      plan.error = "verification failed: " + std::to_string(plan.capture.unfit) + " rows of " +
                   plan.source + " do not fit its layout (first: " + plan.capture.first_unfit +
                   "); nothing switched; abort the migration, then delete or rewrite those rows "
                   "in the source and fix their writer before starting again (a row that does not "
                   "fit cannot be re-keyed)";
    } else if (too_many) {
      plan.error = "verification failed: too many rows to compare one by one (more than " +
                   std::to_string(ctx_.options.verify_max_rows) +
                   " differ, or the partitions that differed hold more than a million) between " +
                   plan.source + " and " + plan.target +
                   "; nothing switched; verify again when writes are fewer (resume) or abort";
    } else {
      plan.error = "verification failed: " + std::to_string(suspects.size()) + " rows differ " +
                   "between " + plan.source + " and " + plan.target + " after " +
                   std::to_string(ctx_.options.verify_rounds) + " re-reads (first: " +
                   (first.empty() ? std::string("?") : first[0].get<std::string>()) +
                   "); nothing switched; find the cause (a bulk load or SKIP_WAL writes into the "
                   "source, a cell removed from the target), repair and resume to verify again, or "
                   "abort";
    }
    spdlog::error("migration {}: {}", plan.table, plan.error);
    for (const auto& line : first)
      spdlog::error("migration {}: verification: {}", plan.table, line.get<std::string>());
  } else {
    spdlog::info(
        "migration {}: verified: every row of {} is in {} ({} partitions differed while "
        "writes arrived, {} rows compared again until they matched{})",
        plan.table, plan.source, plan.target, partitions_differing, rechecked,
        deferred.empty() ? std::string()
                         : "; " + std::to_string(deferred.size()) +
                               " rows kept changing and are compared again at the switch, "
                               "with writes paused");
    plan.deferred_rows = std::move(deferred);
    if (Status moved = ctx_.record.EnterPhase(plan, Phase::kSwitching); !moved.ok())
      return ctx_.record.Fail(node, moved.message());
    plan.error.clear();
  }
  throttle.reset();  // the status written with the outcome shows no throttle
  Step saved = ctx_.record.Save(node);
  if (saved != Step::kAdvanced) return saved;
  return ok ? Step::kAdvanced : Step::kWaiting;
}

}  // namespace presplit::daemon::migrate
