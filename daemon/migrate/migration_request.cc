#include "daemon/migrate/migration_request.h"

#include <array>
#include <nlohmann/json.hpp>

#include "daemon/zk/zk_client.h"
#include "presplit/json_bounds.h"

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 4> kRequestNames = {"pause", "resume", "abort", "rollback"};

}  // namespace

std::string MigrationsPath(const std::string& zk_root) { return JoinZkPath(zk_root, "migrations"); }

std::string PlanPath(const std::string& zk_root, const std::string& table) {
  return JoinZkPath(MigrationsPath(zk_root), table);
}
std::string MigrationPartsPath(const std::string& zk_root) {
  return JoinZkPath(zk_root, "migration-parts");
}
std::string PlanPartsPath(const std::string& zk_root, const std::string& table) {
  return JoinZkPath(MigrationPartsPath(zk_root), table);
}

std::string RequestsPath(const std::string& zk_root) { return JoinZkPath(zk_root, "requests"); }

std::string RequestPath(const std::string& zk_root, const std::string& table) {
  return JoinZkPath(RequestsPath(zk_root), table);
}

const char* RequestName(Request request) { return kRequestNames[static_cast<size_t>(request)]; }

Result<Request> ParseRequestName(const std::string& name) {
  for (size_t i = 0; i < kRequestNames.size(); ++i) {
    if (name == kRequestNames[i]) return static_cast<Request>(i);
  }
  return Status::InvalidArgument("unknown migration request '" + name +
                                 "' (pause, resume, abort or rollback)");
}

std::string RequestToJson(Request request, const std::string& requested_at) {
  return json{{"request", RequestName(request)}, {"requested_at", requested_at}}.dump();
}

Result<Request> ParseRequest(const std::string& text) {
  // A request is a few dozen bytes; anything much larger is not one (and is not parsed).
  if (text.size() > 4096) return Status::InvalidArgument("the migration request is too large");
  PRESPLIT_RETURN_IF_ERROR(CheckJsonBounds(text).WithContext("the migration request"));
  json o = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (o.is_discarded() || !o.is_object() || !o.contains("request") || !o["request"].is_string()) {
    return Status::InvalidArgument("the migration request is not {\"request\": \"...\"}");
  }
  return ParseRequestName(o["request"].get<std::string>());
}

bool IsFinalMigrationPhase(const std::string& phase) {
  return phase == "done" || phase == "aborted" || phase == "rolled_back";
}

}  // namespace presplit::daemon::migrate
