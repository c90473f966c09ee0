// The Migrator's settings and counters (migrator.h), apart so that a phase class and its
// context (phase_context.h) can name them without the Migrator.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "daemon/migrate/migration_plan.h"
#include "daemon/migrate/plan_store.h"
#include "daemon/migrate/throttle_sampler.h"
#include "daemon/migrate/throttler.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon::migrate {

struct MigratorOptions {
  std::string zk_root = "/presplit";
  std::string daemon_id;
  // Asked right before every mutation (HBase or ZooKeeper); false stops at once. Unset: always.
  std::function<bool()> lease = nullptr;
  const std::atomic<bool>* stop = nullptr;  // set: the daemon is stopping
  ZkAcls acls = OpenAcls();
  int chunk_rows = 5000;  // rows per copyChunk call (one checkpoint each), engine "put"
  // Engine "hfile": rows per copyChunk call, each one bulk load of up to one HFile per target
  // region and family; larger than chunk_rows, as every chunk adds files to the target's stores.
  int hfile_chunk_rows = 100000;
  // Engine "hfile": the chunks read one snapshot of the source in the daemon's JVM instead of
  // scanning it through the RegionServers (migration_hfile_source = snapshot). Only taken when
  // the daemon knows hbase.rootdir (KnowsHBaseRootDir); the daemon refuses the setting without.
  bool hfile_source_snapshot = false;
  std::chrono::milliseconds progress_interval{1000};  // status progress writes while copying
  int chunk_attempts = 3;  // a failed chunk is retried this often before the run gives up
  // Wall clock in ms (plan times, probe ids); tests pass their own.
  std::function<int64_t()> now_ms = nullptr;
  // Waits between two looks at the capture's acknowledgements; tests pass their own.
  std::function<void(std::chrono::milliseconds)> sleep = nullptr;

  // Change capture: how long the peer may take to acknowledge a probe (or a fenced table's
  // closes) before the step gives up and is tried again on the next run, and how often to look.
  std::chrono::milliseconds ack_timeout{120000};
  std::chrono::milliseconds ack_poll{250};
  // How long a probe's acknowledgement waits, beyond ack_timeout, for the WALs of a RegionServer
  // that died to be shipped (HBase claims them once it has processed the crash).
  std::chrono::milliseconds recovery_timeout{900000};
  // How often the leader looks for orphan capture peers (SweepOrphanPeers): its first run, then
  // at most once per interval.
  std::chrono::milliseconds orphan_sweep_interval{60000};
  // How often the leader reads its migrations' capture peers' lag from HBase (PollCaptureLags):
  // one HMaster call per interval at most, on the run's thread.
  std::chrono::milliseconds capture_lag_interval{10000};
  // Verification: partitions per source region (digests compared), rows compared row by row at
  // most (beyond: the verification fails saying so), and re-reads of a differing row (each
  // after the peer shipped past the previous read) before it counts as a difference.
  int verify_partitions = 256;
  int verify_max_rows = 100000;
  int verify_rounds = 4;
  // After a switch abandoned because the capture did not drain within the write pause
  // (migration.max_write_pause_ms): how long until the next attempt.
  std::chrono::milliseconds switch_retry{30000};
  // When a plan's per-region fields are kept in parts beside it (plan_store.h).
  PlanPartLimits plan_parts;
  // After a rollback: how long writers get to follow the status back before the new generation
  // is made read-only (their writes meanwhile reach the old one through the reverse peer).
  std::chrono::milliseconds rollback_settle{10000};

  // The "mapreduce" engine (ResaltBulkJob) and the "hfile" engine stage their HFiles under
  // <bulk_staging_dir>/<target> on the cluster's default file system (fs.defaultFS), which the
  // RegionServers must be able to read.
  std::string bulk_staging_dir = "/tmp/presplit-resalt";
  // A Hadoop configuration directory (core-, hdfs-, mapred-, yarn-site.xml): with
  // mapreduce.framework.name = yarn the job runs on YARN; empty: Hadoop's local job runner in
  // the daemon's JVM.
  std::string hadoop_conf_dir;
  // HBase's configuration directory (hbase-site.xml) for the job; with it, or with hbase.rootdir
  // in hbase_settings, the job reads a snapshot of the source, else the live source table.
  std::string hbase_conf_dir;
  std::map<std::string, std::string> hbase_settings;  // the daemon's HBase client settings
  int bulk_attempts = 3;     // failed jobs before the migration waits for an operator
  int bulk_local_tasks = 0;  // local runner: tasks at a time (0: the plan's workers)
  // Engine "auto": mapreduce for a source of at least this many bytes (store files and
  // memstores, summed over its regions), put below. table_bytes measures it (unset or failing:
  // put).
  int64_t mapreduce_threshold_bytes = int64_t{10} << 30;
  // The daemon's JVM heap limit (jvm_max_heap; 0 = unknown). Hadoop's local job runner runs the
  // job's tasks inside that JVM: below kLocalRunnerMinHeapBytes it would run out of memory and
  // take the daemon with it (the JVM exits on OutOfMemoryError), so without a hadoop_conf_dir
  // "auto" stays on put and "mapreduce" is refused with the reason.
  int64_t jvm_max_heap_bytes = 0;
  static constexpr int64_t kLocalRunnerMinHeapBytes = int64_t{768} << 20;
  // Called under the migrator's admin lock (the daemon's table_bytes asks the migrator's admin).
  std::function<Result<int64_t>(const std::string& table)> table_bytes = nullptr;

  // Migrations driven at the same time, each on a driver thread of its own (see "Drivers"); the
  // plans beyond wait for a driver to end. At least 1.
  int max_concurrent_migrations = 4;

  // The adaptive throttle of the copy and the verification (throttler.h): its settings, how
  // often it samples the RegionServers' health, and the probe reads per table per sample. The
  // plan's max_cells_per_s is its ceiling.
  ThrottleSettings throttle;
  std::chrono::milliseconds throttle_interval{1000};
  int throttle_probes = 2;
  // Where the throttle's samples come from (unset: the bridge's ClusterHealth); tests pass fakes.
  std::function<std::unique_ptr<HealthSource>(const MigrationPlan&)> health_source = nullptr;
};

struct MigratorCounters {
  std::atomic<uint64_t> runs{0};
  std::atomic<uint64_t> rows_copied{0};
  std::atomic<uint64_t> cells_copied{0};
  std::atomic<uint64_t> chunks_copied{0};
  std::atomic<uint64_t> regions_done{0};
  std::atomic<uint64_t> probes{0};                // probe rounds acknowledged by a capture peer
  std::atomic<uint64_t> orphan_peers_removed{0};  // capture peers no plan of this root named
  // Gauge: the orphan capture peers the last sweep left in place (no owner mark, or their
  // removal failed); each keeps HBase from deleting the source's WALs.
  std::atomic<uint64_t> orphan_peers_left{0};
  std::atomic<uint64_t> rows_rechecked{0};  // rows compared row by row by verifications
  std::atomic<uint64_t> verification_failures{0};
  std::atomic<uint64_t> switches{0};
  std::atomic<uint64_t> rollbacks{0};
  std::atomic<uint64_t> completed{0};  // switched for good ("done")
  std::atomic<uint64_t> finished{0};   // plans removed at their end: done or rolled back
  std::atomic<uint64_t> aborted{0};
  std::atomic<uint64_t> plans_refused{0};  // plans this daemon would not have written
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> exceptions_caught{0};
};

}  // namespace presplit::daemon::migrate
