// presplitctl migration status|pause|resume|abort|rollback TABLE: an operator's view of, and hand
// on, a re-salt migration. It reads the plan (<root>/migrations/<ns>:<table>, the daemon's) and
// the table's status (whose `migration` object the leading presplitd keeps up to date), and
// writes only a request (<root>/requests/<ns>:<table>, see daemon/migrate/migration_request.h);
// the leader acts on it between two chunks of the copy or on its next step.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ctl/common.h"
#include "daemon/migrate/migration_phase.h"
#include "daemon/migrate/migration_request.h"
#include "daemon/util/utc_time.h"
#include "presplit/json_bounds.h"
#include "presplit/table_name.h"

namespace presplit::ctl {
namespace {

using nlohmann::json;

std::string Duration(const json& seconds) {
  if (!seconds.is_number()) return "unknown";
  int64_t s = seconds.get<int64_t>();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return buf;
}

int PrintStatus(const std::string& table, const json& plan, const json& progress,
                const std::string& request, bool as_json) {
  json out{{"table", table}};
  out["request"] = request.empty() ? json(nullptr) : json(request);
  if (plan.is_object()) {
    out["phase"] = plan.value("phase", "");
    out["paused"] = plan.value("paused", false);
    out["source"] = plan.value("source", "");
    out["target"] = plan.value("target", "");
    out["target_generation"] = plan.value("target_generation", 0);
    out["old_buckets"] = plan["old_layout"].is_object()
                             ? plan["old_layout"].value("/salt/buckets"_json_pointer, 0)
                             : 0;
    out["new_buckets"] = plan["new_layout"].is_object()
                             ? plan["new_layout"].value("/salt/buckets"_json_pointer, 0)
                             : 0;
    out["regions_total"] = plan.contains("source_regions") ? plan["source_regions"].size() : 0;
    out["error"] = plan.contains("error") ? plan["error"] : json(nullptr);
    if (plan.contains("verification")) out["verification"] = plan["verification"];
    out["engine"] = plan.value("engine", "put");
    if (plan.contains("bulk") && plan["bulk"].is_object()) out["bulk"] = plan["bulk"];
    if (plan.contains("capture") && plan["capture"].is_object()) out["capture"] = plan["capture"];
    out["grace_until_ms"] = plan.value("grace_until_ms", int64_t{0});
    // The switch (phase_switch.cc): its attempts, a pause under way, the next try after an
    // abandoned one, when it happened.
    for (const char* key : {"max_write_pause_ms", "writes_paused_until_ms", "switch_attempts",
                            "switch_retry_at_ms", "switched_at_ms"}) {
      out[key] = plan.value(key, int64_t{0});
    }
  } else {
    out["phase"] = progress.value("phase", "");
    out["error"] = progress.contains("error") ? progress["error"] : json(nullptr);
    if (progress.is_object() && progress.contains("bulk") && progress["bulk"].is_object()) {
      out["bulk"] = progress["bulk"];
    }
  }
  for (const char* key : {"regions_done", "regions_total", "rows", "cells", "rows_per_s", "eta_s",
                          "warnings", "refused", "throttle"}) {
    if (progress.is_object() && progress.contains(key)) out[key] = progress[key];
  }
  if (as_json) {
    std::cout << out.dump() << "\n";
    return kOk;
  }
  std::cout << "table:      " << table << "\n";
  std::cout << "phase:      " << out.value("phase", "")
            << (out.value("paused", false) ? " (paused)" : "")
            << (plan.is_object() ? "" : " (no migration under way; its last outcome)") << "\n";
  if (plan.is_object()) {
    std::cout << "from -> to: " << out["source"].get<std::string>() << " (" << out["old_buckets"]
              << " buckets) -> " << out["target"].get<std::string>() << " (" << out["new_buckets"]
              << " buckets, generation " << out["target_generation"] << ")\n";
  }
  if (out.contains("bulk") && out["bulk"].is_object()) {
    // The "mapreduce" engine: one job instead of per-region chunks.
    const json& bulk = out["bulk"];
    char progress[64];
    std::snprintf(progress, sizeof(progress), "map %.0f%%, reduce %.0f%%",
                  100 * bulk.value("map_progress", 0.0), 100 * bulk.value("reduce_progress", 0.0));
    const std::string job = bulk.value("job_id", "");
    std::cout << "bulk job:   " << (job.empty() ? "-" : job) << " " << bulk.value("state", "")
              << " (" << progress << "; attempt " << bulk.value("attempts", 0) << ", "
              << bulk.value("failures", 0) << " failed"
              << (bulk.value("loaded", false) ? "; loaded" : "") << ")\n";
  }
  std::cout << "regions:    " << out.value("regions_done", 0) << "/"
            << out.value("regions_total", 0) << "\n";
  std::cout << "rows:       " << out.value("rows", int64_t{0}) << " (cells "
            << out.value("cells", int64_t{0}) << ")\n";
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%.0f", out.value("rows_per_s", 0.0));
  std::cout << "rows/s:     " << rate << "\n";
  std::cout << "eta:        " << Duration(out.contains("eta_s") ? out["eta_s"] : json()) << "\n";
  if (out.contains("throttle") && out["throttle"].is_object()) {
    // The adaptive throttle of the copy or verification: its rate now and why.
    const json& t = out["throttle"];
    const int64_t rate = t.value("cells_per_s", int64_t{0});
    std::cout << "throttle:   " << (rate > 0 ? std::to_string(rate) + " cells/s" : "unlimited")
              << " (" << t.value("reason", "") << ")\n";
  }
  if (out.value("switch_attempts", int64_t{0}) > 0) {
    // Writers paused now (the SDK holds its writes until then), or when the next try comes.
    std::cout << "switch:     attempt " << out.value("switch_attempts", int64_t{0});
    const int64_t paused_until = out.value("writes_paused_until_ms", int64_t{0});
    const int64_t retry_at = out.value("switch_retry_at_ms", int64_t{0});
    const int64_t switched_at = out.value("switched_at_ms", int64_t{0});
    if (switched_at > 0) {
      std::cout << ", switched at " << daemon::UtcFromMillis(switched_at, true);
    } else if (paused_until > 0) {
      std::cout << ", writes paused until " << daemon::UtcFromMillis(paused_until, true)
                << " (at most " << out.value("max_write_pause_ms", int64_t{0}) << " ms)";
    } else if (retry_at > 0) {
      std::cout << " abandoned, tried again at " << daemon::UtcFromMillis(retry_at, true);
    }
    std::cout << "\n";
  }
  if (out.contains("capture") && out["capture"].is_object()) {
    const json& c = out["capture"];
    std::cout << "capture:    " << c.value("peer", "") << " (old -> new)"
              << (c.value("reverse_started_ms", int64_t{0}) > 0
                      ? ", " + c.value("reverse_peer", "") + " (new -> old)"
                      : std::string())
              << (c.value("caught_up_ms", int64_t{0}) > 0 ? "; caught up" : "") << "\n";
  }
  if (out.contains("request") && out["request"].is_string()) {
    std::cout << "request:    " << out["request"].get<std::string>() << " (pending)\n";
  }
  if (out.contains("warnings") && out["warnings"].is_array()) {
    for (const auto& w : out["warnings"]) {
      if (w.is_string()) std::cout << "warning:    " << w.get<std::string>() << "\n";
    }
  }
  if (out.contains("refused") && out["refused"].is_string()) {
    std::cout << "refused:    " << out["refused"].get<std::string>() << "\n";
  }
  if (out.contains("error") && out["error"].is_string()) {
    std::cout << "error:      " << out["error"].get<std::string>() << "\n";
  }
  return kOk;
}

int CmdMigration(const Args& args) {
  if (args.positional.size() != 2) {
    return UsageError(
        "migration needs an action and a table: migration status|pause|resume|abort|rollback "
        "TABLE");
  }
  const std::string& action = args.positional[0];
  auto request = daemon::migrate::ParseRequestName(action);
  if (action != "status" && !request.ok()) {
    return UsageError("unknown migration action '" + action +
                      "' (expected status, pause, resume, abort or rollback)");
  }
  const std::string table = CanonicalTableName(args.positional[1]);
  auto zk = Connect(args);
  if (!zk.ok()) return Fail(zk.status().message());
  const std::string plan_path = daemon::migrate::PlanPath(args.root, table);
  const std::string request_path = daemon::migrate::RequestPath(args.root, table);

  auto node = (*zk)->Get(plan_path, /*watch=*/false);
  if (!node.ok() && node.status().code() != StatusCode::kNotFound) {
    return Fail("cannot read the migration plan of " + table + ": " + node.status().message());
  }
  if (node.ok()) {
    // Before the parser: printing a plan nested too deep would overflow the stack.
    Status bounded = CheckJsonBounds(node->data);
    if (!bounded.ok()) {
      return Fail("the migration plan of " + table + " cannot be read: " + bounded.message());
    }
  }
  json plan = node.ok() ? json::parse(node->data, nullptr, false) : json();
  if (node.ok() && !plan.is_object())
    return Fail("the migration plan of " + table + " is not JSON");
  auto pending = (*zk)->Get(request_path, /*watch=*/false);
  std::string pending_request;
  if (pending.ok()) {
    json parsed = ParseBoundedJson(pending->data);
    if (parsed.is_object()) pending_request = parsed.value("request", "");
  }

  if (action == "status") {
    json progress;
    auto status = (*zk)->Get(daemon::JoinZkPath(StatusRoot(args), table), false);
    if (status.ok()) {
      json parsed = ParseBoundedJson(status->data);  // out of bounds: no progress to show
      if (parsed.is_object() && parsed.contains("migration")) progress = parsed["migration"];
    }
    if (!plan.is_object() && !progress.is_object()) {
      return Fail("no migration of " + table + " (none under way, none recorded in its status)");
    }
    return PrintStatus(table, plan, progress, pending_request, args.has("json"));
  }
  if (!plan.is_object()) return Fail("no migration of " + table + " is under way");
  const std::string phase = plan.value("phase", "");
  auto parsed_phase = daemon::migrate::ParsePhase(phase);
  if (!parsed_phase.ok()) {
    return Fail("the migration plan of " + table + " is in phase '" + phase +
                "', which this presplitctl does not know (older than the presplitd that wrote "
                "it?); nothing requested");
  }
  // The daemon's own phase table (migration_phase.h) decides, as presplitd will. In `switching`
  // the status says whether readers use the target already.
  bool status_names_target = daemon::migrate::IsSwitched(*parsed_phase);
  const auto verdict = daemon::migrate::RuleFor(*parsed_phase, *request).verdict;
  if (verdict == daemon::migrate::Verdict::kAcceptIfSwitched ||
      verdict == daemon::migrate::Verdict::kAcceptIfNotSwitched) {
    auto status = (*zk)->Get(daemon::JoinZkPath(StatusRoot(args), table), false);
    json parsed = status.ok() ? ParseBoundedJson(status->data) : json();
    if (!parsed.is_object() || !parsed.contains("physical_table")) {
      return Fail("the status of " + table +
                  " cannot be read to tell whether the switch "
                  "happened; nothing requested (try again)");
    }
    status_names_target = parsed.value("physical_table", "") == plan.value("target", "");
  }
  const auto decision =
      daemon::migrate::Decide(*parsed_phase, *request, status_names_target,
                              {table, plan.value("source", ""), plan.value("target", "")});
  if (!decision.accepted) return Fail(decision.refusal);
  // Resume also clears an error a migration waits on (a bulk copy that gave up after its
  // attempts), so it is refused only when there is nothing to resume.
  const bool waits_on_error = plan.contains("error") && plan["error"].is_string() &&
                              !plan["error"].get<std::string>().empty();
  if (*request == daemon::migrate::Request::kResume && !plan.value("paused", false) &&
      phase != "failed_verification" && pending_request != "pause" && !waits_on_error) {
    std::cout << "migration of " << table << " is not paused (phase " << phase << ")\n";
    return kOk;
  }
  auto acls = Acls(args);
  if (!acls.ok()) return Fail(acls.status().message());
  const std::string data = daemon::migrate::RequestToJson(*request, daemon::UtcNow());
  Status written = pending.ok() ? (*zk)->Set(request_path, data, pending->version)
                                : (*zk)->Create(request_path, data, acls->migration_request);
  if (written.code() == StatusCode::kNotFound && !pending.ok()) {
    // <root>/requests is created by presplitd; before its first start it may be missing.
    written = (*zk)->EnsurePath(daemon::migrate::RequestsPath(args.root), acls->migration_requests);
    if (written.ok()) written = (*zk)->Create(request_path, data, acls->migration_request);
  }
  if (written.code() == StatusCode::kFailedPrecondition ||
      written.code() == StatusCode::kAlreadyExists) {
    return Fail("another request for " + table +
                " was written at the same moment; look at "
                "`presplitctl migration status " +
                table + "` and try again");
  }
  if (written.code() == StatusCode::kPermissionDenied) {
    // With ZooKeeper access control the requests are writable by the portal identity only.
    return Fail("cannot write the request: " + written.message() +
                "; pause, resume, abort and rollback need the portal's credentials (--auth-file "
                "FILE or $PRESPLIT_ZK_AUTH_FILE, the file presplitctl put uses)");
  }
  if (!written.ok()) return Fail("cannot write the request: " + written.message());
  std::cout << action << " requested for the migration of " << table << " (phase " << phase
            << "); the leading presplitd acts on it "
            << (phase == "copying" ? "after the chunks in flight" : "on its next step") << "\n";
  return kOk;
}

}  // namespace

std::vector<CommandSpec> MigrationCommands() {
  return {
      {"migration",
       {},
       {"json"},
       "  migration status|pause|resume|abort|rollback TABLE [--json]\n"
       "                    a re-salt migration: status prints its phase, regions done/total,\n"
       "                    rows, rows/s, ETA, the throttle's rate and why, capture peers and\n"
       "                    warnings (--json: one object);\n"
       "                    pause holds it between two chunks or phases, resume goes on (after\n"
       "                    a failed verification: verifies again), abort (before the switch\n"
       "                    only) drops the new generation and leaves the table as it was,\n"
       "                    rollback (after the switch, until the grace period ends) switches\n"
       "                    back to the old generation keeping every write made to the new one;\n"
       "                    with ZooKeeper access control, the requests need the portal's\n"
       "                    --auth-file (the identity that may put documents)\n",
       CmdMigration}};
}

}  // namespace presplit::ctl
