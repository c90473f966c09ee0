#include "ctl/document_removal.h"

#include <nlohmann/json.hpp>

#include "daemon/migrate/migration_phase.h"
#include "daemon/migrate/migration_request.h"
#include "presplit/json_bounds.h"

namespace presplit::ctl {

using daemon::JoinZkPath;

Status RemoveDocument(daemon::ZkClient& zk, const std::string& root, const std::string& table) {
  const std::string document = JoinZkPath(JoinZkPath(root, "tables"), table);
  auto plan = zk.Get(daemon::migrate::PlanPath(root, table), /*watch=*/false);
  if (!plan.ok() && plan.status().code() != StatusCode::kNotFound) {
    return plan.status().WithContext(
        "rm refused, nothing removed: cannot read the migration "
        "plan of " +
        table);
  }
  if (plan.ok()) {
    const nlohmann::json parsed = ParseBoundedJson(plan->data);
    const std::string phase =
        parsed.is_object() && parsed.contains("phase") && parsed["phase"].is_string()
            ? parsed["phase"].get<std::string>()
            : "";
    const std::string target =
        parsed.is_object() && parsed.contains("target") && parsed["target"].is_string()
            ? parsed["target"].get<std::string>()
            : "its new generation";
    const std::string refused = "rm refused, nothing removed: a re-salt migration of " + table;
    if (phase.empty()) {
      return Status::FailedPrecondition(
          refused + " has a plan (" + daemon::migrate::PlanPath(root, table) +
          ") that cannot be read; see `presplitctl migration status " + table + "`");
    }
    if (daemon::migrate::IsSwitchedPhaseName(phase)) {
      return Status::FailedPrecondition(
          refused + " has switched to " + target + " (phase " + phase +
          "); wait until it ends (`presplitctl migration status " + table +
          "` says done or rolled_back), then remove the document");
    }
    return Status::FailedPrecondition(
        refused + " is under way (phase " + phase + "); `presplitctl migration abort " + table +
        "` first (it drops only " + target +
        "), then remove the document once `presplitctl migration status " + table +
        "` says aborted");
  }
  // ZooKeeper's multi-op (check that the plan is absent, delete the document, atomically) is not
  // in the ZkClient wrapper, so a plan the leader writes between the look above and this delete
  // is possible. It strands nothing: the leader's Migrator aborts a migration whose document is
  // gone before its switch (the switch itself is minutes of copying and verifying away), and
  // the reconciler keeps the table's status for that abort. The window costs at most a target
  // created and dropped again.
  return zk.Delete(document);
}

}  // namespace presplit::ctl
