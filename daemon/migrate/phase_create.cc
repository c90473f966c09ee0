// Phase "planned": see phase_create.h.
#include "daemon/migrate/phase_create.h"

#include <spdlog/spdlog.h>

#include "presplit/layout_attributes.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

namespace presplit::daemon::migrate {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

Step CreatePhase::CreateTarget(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  if (plan.plan_id.empty()) {
    // A plan written by a presplitd before plans had ids: nothing is created yet, so it gets one
    // now, saved before the target carries it.
    plan.plan_id = NewPlanId();
    if (Step saved = ctx_.record.Save(node); saved != Step::kAdvanced) return saved;
  }
  if (Step resolved = ResolveEngine(node); resolved != Step::kAdvanced) return resolved;
  auto config = ParseTableConfig(plan.document);
  if (!config.ok())
    return ctx_.record.Fail(node, "the plan's document: " + config.status().message());
  auto keys = ComputeSplitKeys(*config);
  if (!keys.ok())
    return ctx_.record.Fail(node, "the plan's split keys: " + keys.status().message());
  TableSpec spec;
  spec.table = plan.target;
  spec.families = config->families;
  spec.attributes = TableAttributes(*config);
  spec.split_keys = std::move(keys).value();
  if (!ctx_.control.MayAct()) return Step::kStopped;
  // The same table in the new layout: the source's settings, grants and quotas, the document's
  // layout, this plan's marker; KEEP_DELETED_CELLS on from the start (see below).
  auto created = ctx_.bridge.CreateGeneration(spec, plan.source, ReplicationOf(plan), plan.plan_id);
  if (!created.ok()) {
    return ctx_.record.Fail(
        node, "creating the target " + plan.target + ": " + created.status().message());
  }
  if (!created->refused.empty()) {
    // Nothing was created: the migration ends here, saying why, and is not started again for
    // this document version (the status says "aborted" with the reason).
    return ctx_.record.Abort(node, "not started: " + created->refused);
  }
  spdlog::info(
      "migration {}: target {} {} with {} regions, the settings of {} (grants copied: {}, "
      "quotas copied: {}, REPLICATION_SCOPE {}{}{})",
      plan.table, plan.target, created->created ? "created" : "already there (resumed)",
      spec.split_keys.size() + 1, plan.source, created->grants, created->quotas,
      created->replication_scope.empty() ? "none" : created->replication_scope,
      created->peers_followed.empty() ? "" : "; replication peers now shipping it too: ",
      JoinNames(created->peers_followed));
  // Before the capture and the copy begin: the source carries the guard (dormant; attached now
  // only if presplitd did not create the table), which the capture turns on below. The target
  // was created guarded (taking only the copy's bulk loads).
  auto guarded = ctx_.guards.GuardSource(plan);
  if (!guarded.ok()) {
    return ctx_.record.Fail(
        node, "attaching the MigrationGuard to " + plan.source +
                  " (it refuses bulk loads and SKIP_WAL writes during the migration): " +
                  guarded.status().message() +
                  " (the HMaster and every RegionServer need presplit-hbase.jar on their "
                  "classpath)");
  }
  // The peer may ship a delete marker before the copy writes the cell it masks; the target keeps
  // deleted cells and markers until the copy is complete, so no compaction drops that marker
  // first (FinishCopy gives the families the source's setting back). CreateGeneration made it so
  // already; asked again for a target an older presplitd created.
  if (!ctx_.control.MayAct()) return Step::kStopped;
  Status kept = ctx_.bridge.SetKeepDeletedCells(plan.target, true);
  if (!kept.ok()) {
    return ctx_.record.Fail(node, "keeping deleted cells in " + plan.target +
                                      " while the copy runs: " + kept.message());
  }
  Status captured = ctx_.capture.EnsureCapture(plan, /*reverse=*/false);
  if (!captured.ok()) {
    return ctx_.record.Fail(
        node, "adding the capture peer " + plan.capture.peer + ": " + captured.message());
  }
  // The capture's endpoints turn the source's guards on, region by region; the copy starts once
  // every region confirmed (and nothing it let through before is still being written).
  Status confirmed = ctx_.guards.ConfirmSourceGuard(plan);
  if (!confirmed.ok()) {
    return ctx_.record.Fail(
        node, "confirming the MigrationGuard of " + plan.source + ": " + confirmed.message());
  }
  if (Status moved = ctx_.record.EnterPhase(plan, Phase::kCopying); !moved.ok())
    return ctx_.record.Fail(node, moved.message());
  plan.error.clear();
  plan.copy_started_ms = ctx_.control.NowMs();
  return ctx_.record.Save(node);
}

Step CreatePhase::ResolveEngine(PlanNode& node) {
  MigrationPlan& plan = node.plan;
  const bool heap_too_small_for_local_runner =
      ctx_.options.hadoop_conf_dir.empty() && ctx_.options.jvm_max_heap_bytes > 0 &&
      ctx_.options.jvm_max_heap_bytes < MigratorOptions::kLocalRunnerMinHeapBytes;
  if (plan.engine == "auto") {
    Result<int64_t> bytes = ctx_.table_bytes(plan.source);
    if (bytes.ok()) {
      plan.engine = *bytes >= ctx_.options.mapreduce_threshold_bytes ? "mapreduce" : "put";
      spdlog::info(
          "migration {}: engine auto: {} holds {} bytes (threshold {} bytes): the {} engine",
          plan.table, plan.source, *bytes, ctx_.options.mapreduce_threshold_bytes, plan.engine);
      if (plan.engine == "mapreduce" && heap_too_small_for_local_runner) {
        plan.engine = "put";
        spdlog::warn(
            "migration {}: engine auto: the put engine after all: the local job runner would run "
            "inside presplitd's JVM, whose heap ({} bytes, jvm_max_heap) is below the {} bytes "
            "it needs; raise jvm_max_heap or name a YARN cluster with hadoop_conf_dir",
            plan.table, ctx_.options.jvm_max_heap_bytes, MigratorOptions::kLocalRunnerMinHeapBytes);
      }
    } else {
      plan.engine = "put";
      spdlog::warn("migration {}: engine auto: the size of {} is unknown ({}): the put engine",
                   plan.table, plan.source, bytes.status().message());
    }
  }
  if (plan.engine != "put" && plan.engine != "hfile" && plan.engine != "mapreduce") {
    return ctx_.record.Fail(node,
                            "engine '" + plan.engine +
                                "' is not available in this presplitd (use \"put\", \"hfile\", "
                                "\"mapreduce\" or \"auto\")");
  }
  if (plan.engine == "mapreduce" && heap_too_small_for_local_runner) {
    return ctx_.record.Fail(
        node,
        "engine mapreduce: Hadoop's local job runner would run inside presplitd's "
        "JVM, whose heap (jvm_max_heap, " +
            std::to_string(ctx_.options.jvm_max_heap_bytes) + " bytes) is below the " +
            std::to_string(MigratorOptions::kLocalRunnerMinHeapBytes) +
            " bytes it needs: raise jvm_max_heap and restart presplitd, name a "
            "YARN cluster with hadoop_conf_dir, or use engine \"put\"");
  }
  return Step::kAdvanced;
}

}  // namespace presplit::daemon::migrate
