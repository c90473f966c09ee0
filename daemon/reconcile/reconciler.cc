#include "daemon/reconcile/reconciler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "presplit/table_canonical.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"
#include "presplit/table_name.h"

namespace presplit::daemon {
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
  json parsed = json::parse(layout, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("salt")) return 0;
  const json& salt = parsed["salt"];
  return salt.is_object() && salt.contains("buckets") && salt["buckets"].is_number_integer()
             ? salt["buckets"].get<int>()
             : 0;
}

// Fields that change on every write without saying anything new about the table.
json WithoutVolatileFields(json doc) {
  doc.erase("updated_at");
  doc.erase("daemon");
  return doc;
}

}  // namespace

Reconciler::Reconciler(ZkClient& zk, HBaseAdmin& admin, ReconcilerOptions options)
    : zk_(zk), admin_(admin), options_(std::move(options)) {}

std::string Reconciler::TablesPath() const { return JoinZkPath(options_.zk_root, "tables"); }

std::string Reconciler::StatusPath(const std::string& table) const {
  return JoinZkPath(JoinZkPath(options_.zk_root, "status"), table);
}

Status Reconciler::Prepare() {
  const ZkAcls& acls = options_.acls;
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(options_.zk_root, acls.root));
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(TablesPath(), acls.tables));
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(JoinZkPath(options_.zk_root, "status"), acls.status_dir));
  for (const auto& warning : OpenAclWarnings(zk_, options_.zk_root, acls))
    spdlog::warn("{}", warning);
  return Status::Ok();
}

bool Reconciler::MayAct() {
  if (!lease_lost_ && options_.lease && !options_.lease()) lease_lost_ = true;
  return !lease_lost_;
}

Status Reconciler::ReconcileAll() {
  lease_lost_ = false;
  const Status stopped = Status::FailedPrecondition("lease lost: pass stopped before acting");
  if (!MayAct()) return stopped;  // a standby does not even read HBase
  counters_.passes++;
  auto children = zk_.GetChildren(TablesPath(), /*watch=*/true);
  if (!children.ok()) {
    counters_.pass_failures++;
    return children.status().WithContext("listing table documents");
  }
  std::set<std::string> present(children->begin(), children->end());

  for (auto it = handled_.begin(); it != handled_.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    if (!MayAct()) return stopped;
    spdlog::info("table {}: document removed; the table and its data are left in place", it->first);
    Status s = zk_.Delete(StatusPath(it->first));
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      spdlog::warn("table {}: cannot remove status: {}", it->first, s.ToString());
      ++it;
      continue;
    }
    it = handled_.erase(it);
  }

  Status first_failure;
  for (const auto& name : *children) {
    auto node = zk_.Get(JoinZkPath(TablesPath(), name), /*watch=*/true);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) continue;  // removed meanwhile
      counters_.pass_failures++;
      return node.status().WithContext("reading document " + name);
    }
    auto seen = handled_.find(name);
    if (seen != handled_.end() && seen->second.mzxid == node->mzxid && !seen->second.retry) {
      continue;
    }
    Outcome outcome = ReconcileDocument(name, *node);
    if (lease_lost_) return stopped;  // the document stays unhandled for the next leader
    Status written = WriteStatus(name, *node, outcome);
    if (lease_lost_) return stopped;
    if (!written.ok()) {
      spdlog::warn("table {}: cannot write status: {}", name, written.ToString());
      outcome.retry = true;
    }
    handled_[name] = Handled{node->mzxid, outcome.retry};
  }
  counters_.managed_tables = handled_.size();
  return Status::Ok();
}

Reconciler::Outcome Reconciler::ReconcileDocument(const std::string& znode_name,
                                                  const ZkNode& node) {
  Outcome outcome;
  auto config = ParseTableConfig(node.data);
  if (!config.ok()) {
    counters_.documents_invalid++;
    spdlog::error("table {}: document refused: {}", znode_name, config.status().message());
    outcome.phase = kPhaseInvalid;
    outcome.error = config.status().message();
    return outcome;
  }
  if (config->FullName() != CanonicalTableName(znode_name)) {
    counters_.documents_invalid++;
    outcome.phase = kPhaseInvalid;
    outcome.error = "field 'table': the document names " + config->FullName() +
                    " but is stored under " + znode_name;
    spdlog::error("table {}: document refused: {}", znode_name, outcome.error);
    return outcome;
  }
  auto split_keys = ComputeSplitKeys(*config);
  if (!split_keys.ok()) {
    counters_.documents_invalid++;
    outcome.phase = kPhaseInvalid;
    outcome.error = split_keys.status().message();
    spdlog::error("table {}: no valid split plan: {}", znode_name, outcome.error);
    return outcome;
  }
  TableSpec spec;
  spec.table = config->FullName();
  spec.families = config->families;
  spec.attributes = SplitPolicyAttributes(*config);
  spec.split_keys = std::move(split_keys).value();
  outcome.planned_regions = static_cast<int>(spec.split_keys.size()) + 1;
  json canonical = json::parse(TableConfigToJson(*config), nullptr, /*allow_exceptions=*/false);
  if (!canonical.is_discarded() && canonical.contains("layout")) {
    outcome.layout = canonical["layout"].dump();
  }
  outcome.buckets = BucketsOf(outcome.layout);
  return EnsureTable(znode_name, node, spec, std::move(outcome));
}

Reconciler::Outcome Reconciler::EnsureTable(const std::string& znode_name, const ZkNode& node,
                                            const TableSpec& spec, Outcome outcome) {
  auto fail = [&](const Status& s) {
    counters_.hbase_errors++;
    outcome.phase = kPhaseError;
    outcome.error = s.message();
    outcome.retry = s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kInternal;
    spdlog::error("table {}: {}{}", spec.table, s.ToString(), outcome.retry ? " (will retry)" : "");
    return outcome;
  };

  auto existing = admin_.DescribeTable(spec.table);
  if (!existing.ok()) return fail(existing.status());
  // The layout the physical table was built with, as the last status recorded it: the SDK salts
  // with the status's layout, so a document edited for a coming re-salt must not change it.
  const std::string document_layout = outcome.layout;
  std::string built_layout = existing->exists ? RecordedLayout(znode_name, spec.table) : "";
  if (!existing->exists) {
    spdlog::info("table {}: creating with {} regions", spec.table, outcome.planned_regions);
    Outcome creating = outcome;
    creating.phase = kPhaseCreating;
    Status reported = WriteStatus(znode_name, node, creating);
    if (!reported.ok() && !lease_lost_)
      spdlog::warn("table {}: cannot write status: {}", spec.table, reported.ToString());
    // Right before the mutation: a deposed leader must not create what the new one may be
    // creating already.
    if (!MayAct()) {
      spdlog::warn("table {}: not created: this daemon no longer holds the leader lease",
                   spec.table);
      outcome.retry = true;
      return outcome;
    }
    Status created = admin_.CreateTable(spec);
    if (created.code() == StatusCode::kAlreadyExists) {
      spdlog::info("table {}: created meanwhile by someone else; comparing", spec.table);
    } else if (!created.ok()) {
      return fail(created);
    } else {
      counters_.tables_created++;
    }
    existing = admin_.DescribeTable(spec.table);
    if (!existing.ok()) return fail(existing.status());
    if (!existing->exists) return fail(Status::Unavailable("table not visible after create"));
  }
  outcome.regions = static_cast<int>(existing->regions.size());
  outcome.differences = CompareTable(spec, *existing);
  if (!built_layout.empty() &&
      json::parse(built_layout) != json::parse(document_layout, nullptr, false)) {
    outcome.differences.push_back(
        "layout: the table was built with " + built_layout + ", the document asks for " +
        document_layout + "; writers keep the table's layout (a new layout needs a re-salt)");
    outcome.layout = built_layout;
    outcome.buckets = BucketsOf(built_layout);
  }
  if (outcome.differences.empty()) {
    outcome.phase = kPhaseReady;
    spdlog::info("table {}: ready ({} regions)", spec.table, outcome.regions);
  } else {
    counters_.drift_reports++;
    outcome.phase = kPhaseDrift;
    for (const auto& d : outcome.differences) {
      spdlog::warn("table {}: differs from its document and is left untouched: {}", spec.table, d);
    }
  }
  return outcome;
}

std::string Reconciler::RecordedLayout(const std::string& znode_name, const std::string& table) {
  auto current = zk_.Get(StatusPath(znode_name), /*watch=*/false);
  if (!current.ok()) return "";
  json status = json::parse(current->data, nullptr, /*allow_exceptions=*/false);
  if (status.is_discarded() || !status.is_object() || !status.contains("layout") ||
      !status["layout"].is_object() || !status.contains("physical_table") ||
      status["physical_table"] != table) {
    return "";  // a status someone else wrote, or edited by hand, is no record of the table
  }
  return status["layout"].dump();
}

Status Reconciler::WriteStatus(const std::string& table, const ZkNode& node,
                               const Outcome& outcome) {
  const std::string canonical = CanonicalTableName(table);
  json doc{{"table", canonical},
           {"phase", outcome.phase},
           {"physical_table", canonical},
           {"generation", 1},
           {"buckets", outcome.buckets},
           {"layout", outcome.layout.empty() ? json(nullptr) : json::parse(outcome.layout)},
           {"regions", outcome.regions},
           {"planned_regions", outcome.planned_regions},
           {"config_version", node.version},
           {"error", outcome.error.empty() ? json(nullptr) : json(outcome.error)},
           {"differences", outcome.differences},
           {"updated_at", UtcNow()},
           {"daemon", options_.daemon_id}};
  if (!MayAct()) return Status::FailedPrecondition("not the leader: status not written");
  const std::string path = StatusPath(table);
  auto current = zk_.Get(path, /*watch=*/false);
  if (current.ok()) {
    json parsed = json::parse(current->data, nullptr, /*allow_exceptions=*/false);
    // Leave an identical status alone: a restart or a repeated put changes nothing.
    if (!parsed.is_discarded() && WithoutVolatileFields(parsed) == WithoutVolatileFields(doc)) {
      return Status::Ok();
    }
    // Compare-and-set on the version just read: a newer status written meanwhile wins.
    Status s = zk_.Set(path, doc.dump(), current->version);
    if (s.code() == StatusCode::kFailedPrecondition || s.code() == StatusCode::kNotFound) {
      return Status::FailedPrecondition("status changed by another writer since it was read (" +
                                        s.message() + "); not overwritten");
    }
    return s;
  }
  if (current.status().code() != StatusCode::kNotFound) return current.status();
  Status s = zk_.Create(path, doc.dump(), options_.acls.status);  // create only if still absent
  if (s.code() == StatusCode::kAlreadyExists) {
    return Status::FailedPrecondition("status created by another writer meanwhile (" + s.message() +
                                      "); not overwritten");
  }
  return s;
}

}  // namespace presplit::daemon
