// Turns the portal's documents under <root>/tables into pre-split tables and reports what it
// observed under <root>/status. Plain code over the ZkClient and HBaseAdmin interfaces: the unit
// tests drive it with fakes, the end-to-end tests with the real servers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {

// Phases a table's status document can be in.
inline constexpr const char* kPhaseCreating = "creating";  // create requested, not yet confirmed
inline constexpr const char* kPhaseReady = "ready";        // exists and matches the document
inline constexpr const char* kPhaseInvalid = "invalid";    // the document was refused
inline constexpr const char* kPhaseError = "error";        // HBase refused or failed
inline constexpr const char* kPhaseDrift = "drift";        // exists but differs; left untouched
// The table was there for this document version and has been dropped outside presplit; it is
// not re-created until the document changes (a new version), so a drop is never silently undone.
inline constexpr const char* kPhaseMissing = "missing";

// What a pass looks at.
enum class PassKind {
  kChanged,  // documents whose revision was not handled yet, and failures worth a retry
  kFull,     // every document re-checked against HBase, and statuses with no document removed
};

struct ReconcilerOptions {
  std::string zk_root = "/presplit";
  std::string daemon_id;  // written into status documents ("host:pid")
  // "May I act?": asked right before every HBase mutation (CreateTable) and every status write
  // or removal. False stops the pass at once, with nothing more written; unset means always.
  // presplitd passes a LeaseFence's check, and the fence's client as the reconciler's ZkClient,
  // so a write runs on the session its check was confirmed on or not at all.
  std::function<bool()> lease = nullptr;
  // When set and true, a pass stops between two documents (the daemon is shutting down).
  const std::atomic<bool>* stop = nullptr;
  ZkAcls acls = OpenAcls();  // of the znodes the daemon creates (see daemon/zk/zk_auth.h)
  // Wall clock in ms: a migration's start timestamp. Unset: the system clock.
  std::function<int64_t()> now_ms = nullptr;
};

struct ReconcilerCounters {
  std::atomic<uint64_t> passes{0};
  std::atomic<uint64_t> pass_failures{0};
  std::atomic<uint64_t> tables_created{0};
  std::atomic<uint64_t> documents_invalid{0};
  std::atomic<uint64_t> hbase_errors{0};
  std::atomic<uint64_t> drift_reports{0};
  std::atomic<uint64_t> managed_tables{0};
  std::atomic<uint64_t> full_passes{0};
  std::atomic<uint64_t> tables_missing{0};
  // Exceptions caught while handling one document (the document ends as an error status and the
  // pass goes on): each one is a bug to report, never a reason to stop serving other tables.
  std::atomic<uint64_t> exceptions_caught{0};
  std::atomic<uint64_t> statuses_removed{0};
  std::atomic<uint64_t> migrations_started{0};
  // Documents seen at a new revision (created or edited) or removed: whoever keeps a copy of the
  // documents (the load watcher) re-reads them when this moves, instead of at the next resync.
  std::atomic<uint64_t> document_changes{0};
};

class Reconciler {
 public:
  Reconciler(ZkClient& zk, HBaseAdmin& admin, ReconcilerOptions options);

  // Creates <root>, <root>/tables and <root>/status with their ACLs when missing; warns about
  // existing ones that anyone may change while access control is on. Asks the lease first
  // (FailedPrecondition when it says no).
  Status Prepare();

  // One pass: lists the documents (re-arming the children watch), re-reads each one (re-arming
  // its data watch) and reconciles, for PassKind::kChanged, every document revision not handled
  // yet plus those whose last attempt failed in a way a retry can fix (HBase or ZooKeeper
  // unavailable); for PassKind::kFull, every document, so a table dropped (phase "missing") or
  // altered ("drift") behind the daemon's back is reported. The first pass of a Reconciler is
  // always full. A full pass also removes the statuses that have no document (documents removed
  // while the daemon was down). A table whose document disappeared keeps its data; only its
  // status document is removed, once no re-salt migration of it is under way (the leader's
  // Migrator ends such a migration: aborted before its switch, finished after). A status whose
  // generation is above 1 (written by a re-salt migration's switch) names the physical table that
  // serves the document: that table is compared with the document (never created or dropped
  // under the logical name).
  // A document whose salt layout differs from the physical table's and that allows a migration
  // ("migration": {"allowed": true}) starts one (daemon/migrate: the plan under
  // <root>/migrations); the status stays "drift" (writers keep the table's layout) until the
  // migration switches it. A migration aborted for a document version is not started again
  // until the document changes.
  // Any bytes in a document end as an "invalid" status with a printable error; an exception while
  // handling one document is caught, counted and reported in its status, and the pass goes on.
  // Returns an error only when the pass itself could not run (ZooKeeper unreachable) or was
  // stopped because the lease said no (FailedPrecondition).
  // Status writes are compare-and-set: the status is read, then replaced at the version read
  // (or created only if still absent), so a writer that lost a race never overwrites a newer
  // status; the refused write is retried on the next pass. Members other writers own (the load
  // watcher's "load") are carried over from the status read.
  Status ReconcileAll(PassKind kind = PassKind::kChanged);

  // Forgets which document revisions were handled, so the next pass looks at every document
  // again (e.g. on becoming leader: another daemon may have acted meanwhile).
  void ForgetHandled() { handled_.clear(); }

  const ReconcilerCounters& counters() const { return counters_; }
  // How many documents ended their last reconcile in each phase ("ready", "error", ...), as of
  // the end of the last pass that got through the documents; every phase of this file is a key
  // (0 when no document is in it). Safe to call from any thread (the metrics endpoint).
  std::map<std::string, uint64_t> PhaseCounts() const;
  std::string TablesPath() const;
  std::string StatusPath(const std::string& table) const;

 private:
  struct Outcome {
    std::string phase;
    std::string error;
    std::vector<std::string> differences;
    int regions = 0;
    int planned_regions = 0;
    int buckets = 0;             // the physical table's salt buckets (0: unsalted or unknown)
    std::string physical_table;  // the table serving the document; "" = the document's own
    int64_t generation = 1;      // of physical_table (above 1 after a re-salt migration)
    std::string layout;  // the physical table's key layout as JSON (document form); "" = none
    bool retry = false;  // try again on the next pass even if the document did not change
    // A re-salt migration to the document's layout is under way (started by this pass or
    // before); `differences[migration_line]` is the layout difference it resolves.
    bool migrating = false;
    size_t migration_line = 0;
  };
  struct Handled {
    int64_t mzxid = 0;
    bool retry = false;
    std::string phase;  // the outcome's phase, for PhaseCounts
  };

  // recorded_status: the table's current status document as stored ("" when there is none);
  // revision_seen: false when this process handled another revision of the document before.
  Outcome ReconcileDocument(const std::string& znode_name, const ZkNode& node,
                            const std::string& recorded_status, bool revision_seen);
  Outcome EnsureTable(const std::string& znode_name, const ZkNode& node, const TableSpec& spec,
                      const TableConfig& config, const std::string& recorded_status,
                      bool revision_seen, Outcome outcome);
  // The document asks for another layout and allows a migration: starts it (or finds it under
  // way) and notes it in the outcome; otherwise says in the outcome why not.
  void HandleLayoutChange(const std::string& znode_name, const ZkNode& node,
                          const TableConfig& config, const TableDescription& physical,
                          const std::string& built_layout, const std::string& document_layout,
                          const nlohmann::json& recorded, Outcome& outcome);
  Status WriteStatus(const std::string& table, const ZkNode& node, const Outcome& outcome);
  // The lease hook's answer; a "no" is remembered in lease_lost_ for the rest of the pass.
  bool MayAct();
  // Removes the statuses that have no document, except those a migration owns (generation > 1,
  // or a plan under <root>/migrations).
  void RemoveOrphanStatuses(const std::set<std::string>& documents);
  // The "layout" of the table's current status when it describes this physical table, else "".
  std::string RecordedLayout(const std::string& znode_name, const std::string& table);

  // The layout an existing physical table was built with: its descriptor's presplit.layout.*
  // record, else (a table built before layouts were recorded there, and only when it existed
  // before this pass) the status's record. `layout` is "" when neither knows it; `problem` is a
  // difference line when the descriptor's record is unreadable.
  struct BuiltLayout {
    std::string layout;
    std::string problem;
  };
  BuiltLayout BuiltLayoutOf(const std::string& znode_name, const std::string& table,
                            const TableDescription& description, bool existed_before);
  // For an outcome that cannot look at the document (invalid): the layout of the physical table
  // as best known, from its descriptor, else the status; "" when the table does not exist or
  // nothing is known.
  std::string KnownLayoutOfTable(const std::string& znode_name, const std::string& table);

  ZkClient& zk_;
  HBaseAdmin& admin_;
  const ReconcilerOptions options_;
  std::map<std::string, Handled> handled_;
  // The generation each table's migration was last logged leaving: a migration takes many
  // passes (and may outlive edits of its document) and is logged once, not on every pass.
  std::map<std::string, int64_t> migration_logged_;
  bool lease_lost_ = false;  // this pass was told to stop
  mutable std::mutex phase_counts_mu_;
  std::map<std::string, uint64_t> phase_counts_;  // guarded by phase_counts_mu_
  bool first_pass_done_ = false;
  ReconcilerCounters counters_;
};

}  // namespace presplit::daemon
