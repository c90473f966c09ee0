#include "daemon/reconcile/reconciler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon/migrate/migrator.h"
#include "daemon/util/utc_time.h"
#include "presplit/bytes.h"
#include "presplit/field_pointer.h"
#include "presplit/json_bounds.h"
#include "presplit/layout_attributes.h"
#include "presplit/table_canonical.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"
#include "presplit/table_name.h"

namespace presplit::daemon {
namespace {

using nlohmann::json;

// Members of a status that other writers own (the leader's load watcher: "load"; the re-salt
// migrator: "migration"); a status the reconciler rewrites keeps them as they are.
const char* const kCarriedOverFields[] = {"load", "migration"};

// Fields that change on every write without saying anything new about the table.
json WithoutVolatileFields(json doc) {
  doc.erase("updated_at");
  doc.erase("daemon");
  return doc;
}

// A status znode as JSON, or null when it is not a JSON object within json_bounds.h's limits: a
// status nested too deep would overflow the stack in the copies and comparisons below.
json ParseStatus(const std::string& text) {
  json parsed = ParseBoundedJson(text);
  return parsed.is_object() ? parsed : json();
}

// The generation of a status document; 1 when it does not say (the daemon's own statuses).
int64_t GenerationOf(const json& status) {
  if (status.is_object() && status.contains("generation") &&
      status["generation"].is_number_integer()) {
    return status["generation"].get<int64_t>();
  }
  return 1;
}

}  // namespace

Reconciler::Reconciler(ZkClient& zk, HBaseAdmin& admin, ReconcilerOptions options)
    : zk_(zk), admin_(admin), options_(std::move(options)) {}

std::string Reconciler::TablesPath() const { return JoinZkPath(options_.zk_root, "tables"); }

std::string Reconciler::StatusPath(const std::string& table) const {
  return JoinZkPath(JoinZkPath(options_.zk_root, "status"), table);
}

Status Reconciler::Prepare() {
  // Creating the root nodes is a write like any other: the leader's, its lease checked first.
  if (options_.lease && !options_.lease()) {
    return Status::FailedPrecondition("lease lost: root nodes not prepared");
  }
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

Status Reconciler::ReconcileAll(PassKind kind) {
  if (!first_pass_done_) kind = PassKind::kFull;
  lease_lost_ = false;
  const Status stopped = Status::FailedPrecondition("lease lost: pass stopped before acting");
  if (!MayAct()) return stopped;  // a standby does not even read HBase
  counters_.passes++;
  if (kind == PassKind::kFull) counters_.full_passes++;
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
    // A migration under way keeps the status: its plan is checked against it, and its end (the
    // leader aborts one whose document is gone before the switch) is written into it. A full
    // pass removes it once the plan is gone.
    auto migrating = migrate::MigrationUnderWay(zk_, options_.zk_root, it->first);
    spdlog::info("table {}: document removed; the table and its data are left in place{}",
                 EscapeNonPrintable(it->first),
                 migrating.ok() && *migrating
                     ? "; its re-salt migration is ended by the leader, its status stays until then"
                     : "");
    auto recorded = zk_.Get(StatusPath(it->first), /*watch=*/false);
    Status s = recorded.ok() ? Status::Ok() : recorded.status();
    if (!migrating.ok()) s = migrating.status();
    if (recorded.ok() && migrating.ok() && !*migrating &&
        GenerationOf(ParseStatus(recorded->data)) <= 1) {
      // Only a status of the version read: one a migration writes meanwhile stays.
      s = zk_.Delete(StatusPath(it->first), recorded->version);
    }
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      spdlog::warn("table {}: cannot remove status: {}", EscapeNonPrintable(it->first),
                   s.ToString());
      ++it;
      continue;
    }
    it = handled_.erase(it);
    counters_.document_changes++;
  }
  if (kind == PassKind::kFull) RemoveOrphanStatuses(present);
  if (lease_lost_) return stopped;

  for (const auto& name : *children) {
    if (options_.stop != nullptr && *options_.stop) {
      return Status::Unavailable("stopping; pass abandoned between documents");
    }
    auto node = zk_.Get(JoinZkPath(TablesPath(), name), /*watch=*/true);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) continue;  // removed meanwhile
      counters_.pass_failures++;
      return node.status().WithContext("reading document " + EscapeNonPrintable(name));
    }
    auto seen = handled_.find(name);
    if (kind == PassKind::kChanged && seen != handled_.end() && seen->second.mzxid == node->mzxid &&
        !seen->second.retry) {
      continue;
    }
    auto recorded = zk_.Get(StatusPath(name), /*watch=*/false);
    if (!recorded.ok() && recorded.status().code() != StatusCode::kNotFound) {
      counters_.pass_failures++;
      return recorded.status().WithContext("reading the status of " + EscapeNonPrintable(name));
    }
    const std::string recorded_status = recorded.ok() ? recorded->data : "";

    Outcome outcome;
    try {
      // After a restart nothing is known in memory: the status tells which version was built.
      const bool revision_seen = seen == handled_.end() || seen->second.mzxid == node->mzxid;
      outcome = ReconcileDocument(name, *node, recorded_status, revision_seen);
    } catch (const std::exception& e) {
      counters_.exceptions_caught++;
      outcome = Outcome{};
      outcome.phase = kPhaseError;
      outcome.error = "internal error while handling the document: " + EscapeNonPrintable(e.what());
      spdlog::error("table {}: {}", EscapeNonPrintable(name), outcome.error);
    }
    if (lease_lost_) return stopped;  // the document stays unhandled for the next leader
    Status written;
    try {
      written = WriteStatus(name, *node, outcome);
    } catch (const std::exception& e) {
      counters_.exceptions_caught++;
      written = Status::Internal("internal error while writing the status: " +
                                 EscapeNonPrintable(e.what()));
    }
    if (lease_lost_) return stopped;
    if (!written.ok()) {
      spdlog::warn("table {}: cannot write status: {}", EscapeNonPrintable(name),
                   written.ToString());
      outcome.retry = true;
    }
    if (seen == handled_.end() || seen->second.mzxid != node->mzxid) {
      counters_.document_changes++;
    }
    handled_[name] = Handled{node->mzxid, outcome.retry, outcome.phase};
  }
  counters_.managed_tables = handled_.size();
  std::map<std::string, uint64_t> phases;
  for (const char* phase :
       {kPhaseCreating, kPhaseReady, kPhaseInvalid, kPhaseError, kPhaseDrift, kPhaseMissing}) {
    phases[phase] = 0;
  }
  for (const auto& [name, handled] : handled_) phases[handled.phase]++;
  {
    std::lock_guard<std::mutex> lock(phase_counts_mu_);
    phase_counts_ = std::move(phases);
  }
  first_pass_done_ = true;
  return Status::Ok();
}

std::map<std::string, uint64_t> Reconciler::PhaseCounts() const {
  std::lock_guard<std::mutex> lock(phase_counts_mu_);
  return phase_counts_;
}

void Reconciler::RemoveOrphanStatuses(const std::set<std::string>& documents) {
  auto statuses = zk_.GetChildren(JoinZkPath(options_.zk_root, "status"), /*watch=*/false);
  if (!statuses.ok()) {
    spdlog::warn("cannot list statuses: {}", statuses.status().ToString());
    return;
  }
  for (const auto& name : *statuses) {
    if (documents.count(name)) continue;
    if (!MayAct()) return;  // only the leader removes statuses
    auto node = zk_.Get(StatusPath(name), /*watch=*/false);
    if (!node.ok()) continue;
    if (GenerationOf(ParseStatus(node->data)) > 1) continue;  // a migration's to clean up
    // Kept while a migration of the table is under way (its plan check and end need it); an
    // unreadable plan counts as one.
    auto migrating = migrate::MigrationUnderWay(zk_, options_.zk_root, name);
    if (!migrating.ok() || *migrating) continue;
    Status s = zk_.Delete(StatusPath(name), node->version);
    if (s.ok()) {
      counters_.statuses_removed++;
      spdlog::info("table {}: status removed, its document is gone", EscapeNonPrintable(name));
    } else if (s.code() != StatusCode::kNotFound && s.code() != StatusCode::kFailedPrecondition) {
      spdlog::warn("table {}: cannot remove status: {}", EscapeNonPrintable(name), s.ToString());
    }
  }
}

Reconciler::Outcome Reconciler::ReconcileDocument(const std::string& znode_name, const ZkNode& node,
                                                  const std::string& recorded_status,
                                                  bool revision_seen) {
  Outcome outcome;
  // The physical table serving the document: its own name, or after a migration's switch the
  // generation the status names.
  const json recorded = ParseStatus(recorded_status);
  if (GenerationOf(recorded) > 1 && recorded.contains("physical_table") &&
      recorded["physical_table"].is_string()) {
    outcome.physical_table = recorded["physical_table"].get<std::string>();
    outcome.generation = GenerationOf(recorded);
  }
  auto refuse = [&](const std::string& error) {
    counters_.documents_invalid++;
    outcome.phase = kPhaseInvalid;
    // The field by its JSON Pointer ("/families/0/compression: ..."), as presplitctl and a
    // portal's PresplitAdmin.validate name it: one name for a field wherever it is refused.
    const FieldErrorParts parts = SplitFieldError(error);
    outcome.error = EscapeNonPrintable(
        parts.pointer.empty() ? parts.message : parts.pointer + ": " + parts.message);
    spdlog::error("table {}: document refused: {}", EscapeNonPrintable(znode_name), outcome.error);
    // A refused document changes nothing, the layout writers salt with included.
    outcome.layout = KnownLayoutOfTable(znode_name, outcome.physical_table.empty()
                                                        ? CanonicalTableName(znode_name)
                                                        : outcome.physical_table);
    outcome.buckets = SaltBucketsOfLayoutJson(outcome.layout);
    return outcome;
  };
  auto config = ParseTableConfig(node.data);
  if (!config.ok()) return refuse(config.status().message());
  if (config->FullName() != CanonicalTableName(znode_name)) {
    return refuse("/table: the document names " + config->FullName() + " but is stored under " +
                  znode_name);
  }
  auto split_keys = ComputeSplitKeys(*config);
  if (!split_keys.ok()) return refuse(split_keys.status().message());
  TableSpec spec;
  spec.table = config->FullName();
  spec.families = config->families;
  // Every table records its layout in its own descriptor, where no document edit can reach it.
  spec.attributes = TableAttributes(*config);
  spec.split_keys = std::move(split_keys).value();
  outcome.planned_regions = static_cast<int>(spec.split_keys.size()) + 1;
  outcome.layout = LayoutToJson(config->layout);
  outcome.buckets = SaltBucketsOfLayoutJson(outcome.layout);
  return EnsureTable(znode_name, node, spec, *config, recorded_status, revision_seen,
                     std::move(outcome));
}

Reconciler::Outcome Reconciler::EnsureTable(const std::string& znode_name, const ZkNode& node,
                                            const TableSpec& document_spec,
                                            const TableConfig& config,
                                            const std::string& recorded_status, bool revision_seen,
                                            Outcome outcome) {
  const json recorded = ParseStatus(recorded_status);
  // After a migration's switch the status names the physical table serving the document (its
  // next generation); that one is compared with the document, never the logical name.
  const int64_t generation = GenerationOf(recorded);
  TableSpec spec = document_spec;
  if (generation > 1 && recorded.contains("physical_table") &&
      recorded["physical_table"].is_string() &&
      !recorded["physical_table"].get<std::string>().empty()) {
    spec.table = recorded["physical_table"].get<std::string>();
    outcome.physical_table = spec.table;
    outcome.generation = generation;
  }
  // An error reports the layout of the table as last known (never the document's, which may be
  // an edit the table does not follow); `layout` is that, or "" when no table is known to exist.
  auto fail = [&](const Status& s, const std::string& layout) {
    counters_.hbase_errors++;
    outcome.phase = kPhaseError;
    outcome.error = EscapeNonPrintable(s.message());
    outcome.layout = layout;
    outcome.buckets = SaltBucketsOfLayoutJson(layout);
    outcome.retry = s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kInternal;
    spdlog::error("table {}: {}{}", spec.table, s.ToString(), outcome.retry ? " (will retry)" : "");
    return outcome;
  };

  const std::string document_layout = outcome.layout;
  auto existing = admin_.DescribeTable(spec.table);
  if (!existing.ok()) return fail(existing.status(), RecordedLayout(znode_name, spec.table));
  const bool existed = existing->exists;
  // The status describes this physical table (not one someone else wrote or edited by hand).
  const bool recorded_is_ours = recorded.is_object() && recorded.contains("physical_table") &&
                                recorded["physical_table"] == spec.table;
  const bool was_built_for_this_version =
      revision_seen && recorded_is_ours && recorded.contains("config_version") &&
      recorded["config_version"] == node.version && recorded.contains("phase") &&
      (recorded["phase"] == kPhaseReady || recorded["phase"] == kPhaseDrift ||
       recorded["phase"] == kPhaseMissing);
  if (!existed && (was_built_for_this_version || generation > 1)) {
    counters_.tables_missing++;
    outcome.phase = kPhaseMissing;
    outcome.error =
        "the table was dropped outside presplit after it was built for this document version; "
        "it is not re-created until the document changes";
    // No table, so no layout for writers to salt with.
    outcome.layout.clear();
    outcome.buckets = 0;
    spdlog::warn("table {}: {}", spec.table, outcome.error);
    return outcome;
  }
  if (!existed) {
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
      return fail(created, "");  // nothing was created: there is no table, so no layout
    } else {
      counters_.tables_created++;
    }
    existing = admin_.DescribeTable(spec.table);
    // Created (or found) with the document's layout a moment ago.
    if (!existing.ok()) return fail(existing.status(), document_layout);
    if (!existing->exists) {
      return fail(Status::Unavailable("table not visible after create"), document_layout);
    }
  }
  outcome.regions = static_cast<int>(existing->regions.size());
  // The layout is compared as a whole below, against the record in the descriptor (or, for a
  // table built before layouts were recorded there, the status's): a table without the record
  // is no drift, and one changed layout is one line, not one per attribute. The MigrationGuard
  // set at creation is not compared either: a table created before has none yet.
  TableSpec compared = spec;
  std::erase_if(compared.attributes, [](const auto& a) {
    return IsLayoutAttribute(a.first) || IsCreationOnlyAttribute(a.first);
  });
  outcome.differences = CompareTable(compared, *existing);
  BuiltLayout built = BuiltLayoutOf(znode_name, spec.table, *existing, existed);
  if (!built.problem.empty()) outcome.differences.push_back(built.problem);
  if (!built.layout.empty() &&
      json::parse(built.layout) != json::parse(document_layout, nullptr, false)) {
    outcome.differences.push_back(
        "layout: the table was built with " + built.layout + ", the document asks for " +
        document_layout + "; writers keep the table's layout (a new layout needs a re-salt)");
    outcome.layout = built.layout;
    outcome.buckets = SaltBucketsOfLayoutJson(built.layout);
    HandleLayoutChange(znode_name, node, config, *existing, built.layout, document_layout, recorded,
                       outcome);
  }
  if (outcome.differences.empty()) {
    outcome.phase = kPhaseReady;
    spdlog::info("table {}: ready ({} regions)", spec.table, outcome.regions);
  } else {
    counters_.drift_reports++;
    outcome.phase = kPhaseDrift;
    // While a migration to the document's layout runs, the layout line and the region
    // boundaries planned for that layout are its work, not drift to warn about on every pass:
    // logged once per migration (the migrator logs its own progress).
    std::string migration_lines;
    for (size_t i = 0; i < outcome.differences.size(); ++i) {
      const std::string& d = outcome.differences[i];
      if (outcome.migrating && (i == outcome.migration_line || d.rfind("regions: ", 0) == 0)) {
        migration_lines += (migration_lines.empty() ? "" : "; ") + EscapeNonPrintable(d);
        continue;
      }
      spdlog::warn("table {}: differs from its document and is left untouched: {}", spec.table,
                   EscapeNonPrintable(d));
    }
    if (outcome.migrating) {
      auto [logged, first] = migration_logged_.try_emplace(znode_name, outcome.generation);
      if (first || logged->second != outcome.generation) {
        logged->second = outcome.generation;
        spdlog::info(
            "table {}: migrating to its document's layout (logged once per migration; the status "
            "says drift until the switch): {}",
            spec.table, migration_lines);
      }
    }
  }
  if (!outcome.migrating) migration_logged_.erase(znode_name);
  return outcome;
}

void Reconciler::HandleLayoutChange(const std::string& znode_name, const ZkNode& node,
                                    const TableConfig& config, const TableDescription& physical,
                                    const std::string& built_layout,
                                    const std::string& document_layout, const json& recorded,
                                    Outcome& outcome) {
  if (!config.migration || !config.migration->allowed) return;  // drift, as ever
  auto under_way = migrate::MigrationUnderWay(zk_, options_.zk_root, znode_name);
  if (!under_way.ok()) {
    outcome.error = "cannot read the migration plan: " + under_way.status().message();
    outcome.retry = true;
    return;
  }
  if (*under_way) {
    outcome.differences.back() += "; a re-salt migration to it is under way";
    outcome.migrating = true;
    outcome.migration_line = outcome.differences.size() - 1;
    return;
  }
  const std::string& engine = config.migration->engine;
  if (engine != "put" && engine != "hfile" && engine != "mapreduce" && engine != "auto") {
    outcome.error = "migration not started: engine '" + engine +
                    "' is not available in this presplitd (use \"put\", \"hfile\", "
                    "\"mapreduce\" or \"auto\")";
    spdlog::error("table {}: {}", physical.table, outcome.error);
    return;
  }
  // An operator aborted (or rolled back) the migration of this document version: not again until
  // it changes.
  // The status is read again here, after the plan was found gone: the migrator marks an abort in
  // the status before it removes the plan, so this read cannot miss it (the one this pass read
  // earlier can).
  json latest = recorded;
  auto fresh = zk_.Get(StatusPath(znode_name), /*watch=*/false);
  if (fresh.ok()) latest = ParseStatus(fresh->data);
  if (latest.contains("migration") && latest["migration"].is_object()) {
    const json& last = latest["migration"];
    const std::string phase = last.value("phase", "");
    if ((phase == "aborted" || phase == "rolled_back") &&
        last.value("config_version", int64_t{-1}) == node.version) {
      outcome.differences.back() += "; the migration to it was " +
                                    std::string(phase == "aborted" ? "aborted" : "rolled back") +
                                    " for this document version (change the document to start "
                                    "another)";
      return;
    }
  }
  if (!MayAct()) {
    outcome.retry = true;
    return;
  }
  migrate::MigrationStart start;
  start.table = znode_name;
  start.canonical_table = CanonicalTableName(znode_name);
  start.source = physical.table;
  start.source_generation = outcome.generation;
  start.old_layout = built_layout;
  start.new_layout = document_layout;
  for (const auto& r : physical.regions) {
    start.source_regions.push_back(migrate::SourceRegion{r.start_key, r.end_key});
  }
  start.config = *config.migration;
  start.config_version = node.version;
  start.document = TableConfigToJson(config);
  start.daemon_id = options_.daemon_id;
  start.now_ms = options_.now_ms ? options_.now_ms()
                                 : std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  Status started = migrate::StartMigration(zk_, options_.zk_root, options_.acls, start);
  if (started.ok() || started.code() == StatusCode::kAlreadyExists) {
    if (started.ok()) counters_.migrations_started++;
    outcome.differences.back() += "; a re-salt migration to it is under way";
    outcome.migrating = true;
    outcome.migration_line = outcome.differences.size() - 1;
  } else {
    outcome.error = "cannot start the migration: " + started.message();
    outcome.retry = true;
    spdlog::error("table {}: {}", physical.table, outcome.error);
  }
}

Reconciler::BuiltLayout Reconciler::BuiltLayoutOf(const std::string& znode_name,
                                                  const std::string& table,
                                                  const TableDescription& description,
                                                  bool existed_before) {
  BuiltLayout built;
  auto recorded = LayoutFromAttributes(description.attributes);
  if (recorded.ok() && recorded->has_value()) {
    built.layout = LayoutToJson(**recorded);
    return built;
  }
  if (!recorded.ok()) {
    built.problem = "layout: the table's layout attributes cannot be read (" +
                    recorded.status().message() + "); fix them with the HBase shell's alter";
  }
  // No usable record in the descriptor: the status's, for a table that was there before this
  // pass (one created just now was built from the document).
  if (existed_before) built.layout = RecordedLayout(znode_name, table);
  return built;
}

std::string Reconciler::KnownLayoutOfTable(const std::string& znode_name,
                                           const std::string& table) {
  auto existing = admin_.DescribeTable(table);
  if (existing.ok() && !existing->exists) return "";  // no table, no layout
  if (existing.ok()) {
    auto recorded = LayoutFromAttributes(existing->attributes);
    if (recorded.ok() && recorded->has_value()) return LayoutToJson(**recorded);
  }
  // HBase unreachable, or a table without a readable record: the last layout reported for it.
  return RecordedLayout(znode_name, table);
}

std::string Reconciler::RecordedLayout(const std::string& znode_name, const std::string& table) {
  auto current = zk_.Get(StatusPath(znode_name), /*watch=*/false);
  if (!current.ok()) return "";
  json status = ParseBoundedJson(current->data);
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
  std::vector<std::string> differences;
  for (const auto& d : outcome.differences) differences.push_back(EscapeNonPrintable(d));
  const std::string physical = outcome.physical_table.empty() ? canonical : outcome.physical_table;
  json doc{
      {"table", canonical},
      {"phase", outcome.phase},
      {"physical_table", physical},
      {"generation", outcome.generation},
      {"buckets", outcome.buckets},
      {"layout", outcome.layout.empty() ? json(nullptr) : json::parse(outcome.layout)},
      {"regions", outcome.regions},
      {"planned_regions", outcome.planned_regions},
      {"config_version", node.version},
      {"error", outcome.error.empty() ? json(nullptr) : json(EscapeNonPrintable(outcome.error))},
      {"differences", differences},
      {"updated_at", UtcNow()},
      {"daemon", options_.daemon_id}};
  if (!MayAct()) return Status::FailedPrecondition("not the leader: status not written");
  const std::string path = StatusPath(table);
  auto current = zk_.Get(path, /*watch=*/false);
  if (current.ok()) {
    // A status out of bounds is not parsed, only replaced (nothing in it is carried over).
    const Status bounded = CheckJsonBounds(current->data);
    if (!bounded.ok()) {
      spdlog::warn("table {}: replacing its status, which cannot be read: {}",
                   EscapeNonPrintable(table), bounded.message());
    }
    json parsed =
        bounded.ok() ? json::parse(current->data, nullptr, /*allow_exceptions=*/false) : json();
    if (parsed.is_object()) {
      // A migration switched the table since this pass read its status: what was decided here
      // is about the previous generation; the next pass looks again.
      if (GenerationOf(parsed) != outcome.generation) {
        return Status::FailedPrecondition("the status moved to generation " +
                                          std::to_string(GenerationOf(parsed)) +
                                          " meanwhile; not overwritten");
      }
      // What other writers own (the watcher's decisions, the migrator's progress) is theirs
      // to write: carried over as it is.
      for (const char* field : kCarriedOverFields) {
        if (parsed.contains(field)) doc[field] = parsed[field];
      }
    }
    // Leave an identical status alone: a restart or a repeated put changes nothing.
    if (parsed.is_object() && WithoutVolatileFields(parsed) == WithoutVolatileFields(doc)) {
      return Status::Ok();
    }
    // Compare-and-set on the version just read: a newer status written meanwhile wins.
    Status s =
        zk_.Set(path, doc.dump(-1, ' ', false, json::error_handler_t::replace), current->version);
    if (s.code() == StatusCode::kFailedPrecondition || s.code() == StatusCode::kNotFound) {
      return Status::FailedPrecondition("status changed by another writer since it was read (" +
                                        s.message() + "); not overwritten");
    }
    return s;
  }
  if (current.status().code() != StatusCode::kNotFound) return current.status();
  // Create only if still absent. The table's name comes from a znode name (UTF-8 by ZooKeeper's
  // rules); replace, never throw.
  Status s = zk_.Create(path, doc.dump(-1, ' ', false, json::error_handler_t::replace),
                        options_.acls.status);
  if (s.code() == StatusCode::kAlreadyExists) {
    return Status::FailedPrecondition("status created by another writer meanwhile (" + s.message() +
                                      "); not overwritten");
  }
  return s;
}

}  // namespace presplit::daemon
