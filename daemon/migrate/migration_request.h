// Where a migration's records live in ZooKeeper, and an operator's request: the one part of a
// migration presplitctl writes. Shared by presplitctl (which writes requests and reads plans)
// and presplitd (which acts on them), so both agree on paths and format.
//
//   <root>/migrations/<ns>:<table>   the plan (presplitd's; see migration_plan.h)
//   <root>/migration-parts/<ns>:<table>/<md5>.<k>   its per-region fields when large (plan_store.h)
//   <root>/requests/<ns>:<table>     {"request": "pause"|"resume"|"abort"|"rollback",
//                                     "requested_at": "<UTC>"}
// A request is written by the portal's identity (presplitctl migration ...), read and removed
// by the leading presplitd once handled; a newer request overwrites a pending one.
#pragma once

#include <string>

#include "presplit/status.h"

namespace presplit::daemon::migrate {

std::string MigrationsPath(const std::string& zk_root);
std::string PlanPath(const std::string& zk_root, const std::string& table);
std::string MigrationPartsPath(const std::string& zk_root);
std::string PlanPartsPath(const std::string& zk_root, const std::string& table);
std::string RequestsPath(const std::string& zk_root);
std::string RequestPath(const std::string& zk_root, const std::string& table);

enum class Request { kPause, kResume, kAbort, kRollback };
const char* RequestName(Request request);
// InvalidArgument naming the accepted requests.
Result<Request> ParseRequestName(const std::string& name);
std::string RequestToJson(Request request, const std::string& requested_at);
Result<Request> ParseRequest(const std::string& json);

// Whether a table status's `migration.phase` says the migration is over: "done", "aborted" or
// "rolled_back", the phases only the status carries once the plan is gone. Readers of the status
// (the load watcher, presplitctl's advice) treat any other non-empty phase as under way.
bool IsFinalMigrationPhase(const std::string& phase);


}  // namespace presplit::daemon::migrate
