// presplitd's options: one struct that tests build directly and that main fills from the config
// file (conf/presplitd.conf) and command-line overrides.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon {

struct DaemonOptions {
  // ZooKeeper holding the portal's documents.
  std::string zk_quorum = "127.0.0.1:2181";
  std::string zk_root = "/presplit";
  int zk_session_timeout_ms = 15000;
  // ZooKeeper credentials and ACL identities (format: daemon/zk/zk_auth.h); empty: no access
  // control, every znode world-writable as before.
  std::string zk_auth_file;

  // HBase client settings handed to AdminBridge; hbase.zookeeper.quorum defaults to zk_quorum.
  std::map<std::string, std::string> hbase_settings;

  // The embedded JVM's classpath: presplit_jar + hbase_conf_dir + (jvm_classpath, else the
  // file jvm_classpath_file, else the output of `<hbase_command> classpath`).
  std::string presplit_jar = "/usr/share/presplit/presplit-hbase.jar";
  std::string hbase_conf_dir;
  std::string jvm_classpath;
  std::string jvm_classpath_file;
  std::string hbase_command = "hbase";
  std::string jvm_max_heap = "256m";
  std::vector<std::string> jvm_options;

  // A safety net beside the watches: a full pass this often even without events.
  int resync_interval_s = 60;
  // The load watcher (leader only): polls the cluster's region load this often; 0 turns it off.
  int load_watch_interval_s = 3;
  // At most this many load splits over all tables in any window of load_split_window_s.
  int load_split_max_per_window = 4;
  int load_split_window_s = 600;
  // The key visualizer's history (every presplitd, standbys too: docs/key-visualizer.md):
  // columns of keyviz_fine_resolution_s kept keyviz_fine_retention_h hours, then merged into
  // columns of keyviz_coarse_resolution_s (a multiple of it) kept keyviz_coarse_retention_h
  // hours, in at most keyviz_memory_budget_mb MiB.
  int keyviz_fine_resolution_s = 60;
  int keyviz_fine_retention_h = 2;
  int keyviz_coarse_resolution_s = 1800;
  int keyviz_coarse_retention_h = 96;
  int keyviz_memory_budget_mb = 256;
  // Re-salting migrations (leader only): how often the plans are looked at when nothing
  // triggers it, and how many rows one copy call moves (one checkpoint each).
  int migration_interval_s = 2;
  int migration_chunk_rows = 5000;
  int migration_hfile_chunk_rows = 100000;  // engine "hfile": rows per chunk (one bulk load)
  // Migrations driven at the same time, a thread each (one waiting for its capture does not
  // hold up the others); the ones beyond wait their turn.
  int migration_max_concurrent = 4;
  // The "mapreduce" migration engine (a ResaltBulkJob): a document's engine "auto" (its default)
  // takes it for a source table of at least this many bytes (store files and memstores), the
  // put engine below; the job (and the "hfile" engine's chunks) stage HFiles under
  // migration_staging_dir, a path without a scheme being on the fs.defaultFS of hadoop_conf_dir,
  // else of hbase_conf_dir, else local; hadoop_conf_dir (empty: Hadoop's local job runner in the
  // daemon's JVM) names core-, hdfs-, mapred- and yarn-site.xml, YARN when
  // mapreduce.framework.name = yarn.
  int64_t migration_mapreduce_threshold_bytes = int64_t{10} << 30;
  std::string migration_staging_dir = "/tmp/presplit-resalt";
  // Engine "hfile": where the chunks read the source. "live": a scan through the RegionServers.
  // "snapshot": one snapshot's HFiles read in the daemon's JVM (needs hbase.rootdir, from
  // hbase_conf_dir or an hbase.rootdir setting): the RegionServers serve no scan for the copy,
  // the daemon does the reading instead (more CPU in the daemon than the RegionServers save,
  // bench/RESULTS.md).
  std::string migration_hfile_source = "live";
  // The adaptive throttle of every migration's copy and verification (daemon/migrate/throttler.h):
  // "adaptive" (backs off on the RegionServers' signals, opens when they are clear; the
  // document's max_cells_per_s its ceiling) or "off" (the ceiling alone); the rate it starts at,
  // its floor, and the thresholds of its main signals.
  std::string migration_throttle = "adaptive";
  int migration_throttle_start_cells_per_s = 5000;
  int migration_throttle_min_cells_per_s = 200;
  int migration_throttle_max_call_queue = 10;
  int migration_throttle_max_queue_time_ms = 20;
  int migration_throttle_max_probe_ms = 20;
  std::string hadoop_conf_dir;
  // Kerberos (a cluster with hbase.security.authentication = kerberos): the embedded JVM logs in
  // as kerberos_principal from kerberos_keytab before it connects, and again before the ticket
  // ends. Both or neither; "_HOST" in the principal stands for this host's canonical name.
  std::string kerberos_principal;
  std::string kerberos_keytab;
  // host:port for /, /status, /healthz and /metrics; empty disables the endpoint.
  std::string http_listen = "127.0.0.1:9464";
  std::string log_level = "info";

  // Reads the options again from where they came from (the config file and the command line);
  // SIGHUP calls it. Empty: SIGHUP only runs a full pass. Not a config-file key.
  std::function<Result<DaemonOptions>()> reload;
};

// Checks that need several settings (each ApplyOption checks its own value): a snapshot source
// for the hfile engine needs hbase.rootdir; kerberos_principal and kerberos_keytab go together,
// and do not fit an hbase.security.authentication other than kerberos. Call once every setting
// is applied.
Status CheckOptions(const DaemonOptions& o);
// The Kerberos part of CheckOptions, which presplitctl import checks too.
Status CheckKerberosOptions(const DaemonOptions& o);

// The names of the settings that differ between two option sets ("zk_quorum",
// "hbase.client.retries.number"...), in a stable order. SIGHUP applies log_level and
// resync_interval_s live and logs the others as needing a restart.
std::vector<std::string> ChangedSettings(const DaemonOptions& before, const DaemonOptions& after);

// Reads `key = value` lines ('#' starts a comment). Unknown keys are errors naming the line, so
// a typo does not silently fall back to a default. `hbase.<...> = v` lines become HBase client
// settings.
Status ApplyConfigFile(const std::string& path, DaemonOptions& options);
Status ApplyConfigText(const std::string& text, const std::string& origin, DaemonOptions& options);
Status ApplyOption(const std::string& key, const std::string& value, DaemonOptions& options);
// A byte count: digits, optionally followed by K, M, G or T (powers of 1024: "10G", "256m"), as
// the JVM's -Xmx takes it. `key` names the option in the error.
Result<int64_t> ParseByteCount(const std::string& key, const std::string& value);

// The JVM options a Kerberos login adds to jvm_options: -Djava.security.krb5.conf=<krb5_config>
// (the environment's KRB5_CONFIG, as MIT's tools read it; Java itself does not) when a principal
// is set, KRB5_CONFIG is not empty and jvm_options do not name a krb5.conf already. Else none.
std::vector<std::string> KerberosJvmOptions(const DaemonOptions& options,
                                            const std::string& krb5_config);

// The JVM classpath the options describe; runs `hbase classpath` when nothing else is set.
Result<std::vector<std::string>> ResolveClasspath(const DaemonOptions& options);

}  // namespace presplit::daemon
