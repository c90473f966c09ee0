// Turns the portal's documents under <root>/tables into pre-split tables and reports what it
// observed under <root>/status. Plain code over the ZkClient and HBaseAdmin interfaces: the unit
// tests drive it with fakes, the end-to-end tests with the real servers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
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

struct ReconcilerOptions {
  std::string zk_root = "/presplit";
  std::string daemon_id;  // written into status documents ("host:pid")
  // "May I act?": asked right before every HBase mutation (CreateTable) and every status write
  // or removal. False stops the pass at once, with nothing more written; unset means always.
  // presplitd passes its leader election's lease check.
  std::function<bool()> lease = nullptr;
  ZkAcls acls = OpenAcls();  // of the znodes the daemon creates (see daemon/zk/zk_auth.h)
};

struct ReconcilerCounters {
  std::atomic<uint64_t> passes{0};
  std::atomic<uint64_t> pass_failures{0};
  std::atomic<uint64_t> tables_created{0};
  std::atomic<uint64_t> documents_invalid{0};
  std::atomic<uint64_t> hbase_errors{0};
  std::atomic<uint64_t> drift_reports{0};
  std::atomic<uint64_t> managed_tables{0};
};

class Reconciler {
 public:
  Reconciler(ZkClient& zk, HBaseAdmin& admin, ReconcilerOptions options);

  // Creates <root>, <root>/tables and <root>/status with their ACLs when missing; warns about
  // existing ones that anyone may change while access control is on.
  Status Prepare();

  // One pass: lists the documents (re-arming the children watch), re-reads each one (re-arming
  // its data watch) and reconciles every document revision not handled yet, plus those whose
  // last attempt failed in a way a retry can fix (HBase or ZooKeeper unavailable). A table whose
  // document disappeared keeps its data; only its status document is removed.
  // Returns an error only when the pass itself could not run (ZooKeeper unreachable) or was
  // stopped because the lease said no (FailedPrecondition).
  // Status writes are compare-and-set: the status is read, then replaced at the version read
  // (or created only if still absent), so a writer that lost a race never overwrites a newer
  // status; the refused write is retried on the next pass.
  Status ReconcileAll();

  // Forgets which document revisions were handled, so the next pass looks at every document
  // again (e.g. on becoming leader: another daemon may have acted meanwhile).
  void ForgetHandled() { handled_.clear(); }

  const ReconcilerCounters& counters() const { return counters_; }
  std::string TablesPath() const;
  std::string StatusPath(const std::string& table) const;

 private:
  struct Outcome {
    std::string phase;
    std::string error;
    std::vector<std::string> differences;
    int regions = 0;
    int planned_regions = 0;
    int buckets = 0;     // the physical table's salt buckets (0: unsalted or unknown)
    std::string layout;  // the physical table's key layout as JSON (document form); "" = none
    bool retry = false;  // try again on the next pass even if the document did not change
  };
  struct Handled {
    int64_t mzxid = 0;
    bool retry = false;
  };

  Outcome ReconcileDocument(const std::string& znode_name, const ZkNode& node);
  Outcome EnsureTable(const std::string& znode_name, const ZkNode& node, const TableSpec& spec,
                      Outcome outcome);
  Status WriteStatus(const std::string& table, const ZkNode& node, const Outcome& outcome);
  // The lease hook's answer; a "no" is remembered in lease_lost_ for the rest of the pass.
  bool MayAct();
  // The "layout" of the table's current status when it describes this physical table, else "".
  std::string RecordedLayout(const std::string& znode_name, const std::string& table);

  ZkClient& zk_;
  HBaseAdmin& admin_;
  const ReconcilerOptions options_;
  std::map<std::string, Handled> handled_;
  bool lease_lost_ = false;  // this pass was told to stop
  ReconcilerCounters counters_;
};

}  // namespace presplit::daemon
