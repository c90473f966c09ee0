// presplitctl import: the operator's entry to SaltedImport (presplit-hbase.jar's bulk import of
// row files into a salted, pre-split table). presplitctl does not import anything itself: it
// reads presplitd's config file for the Java side (presplit_jar, the HBase classpath, jvm_options,
// jvm_max_heap, hbase_conf_dir, hadoop_conf_dir, hbase.* settings), builds the `java` command the
// daemon's embedded JVM would amount to, and execs it. Plain functions, unit-tested without a JVM.
#pragma once

#include <string>
#include <vector>

#include "daemon/runner/daemon_options.h"
#include "presplit/status.h"

namespace presplit::ctl {

inline constexpr char kDefaultDaemonConfig[] = "/etc/presplit/presplitd.conf";
inline constexpr char kSaltedImportClass[] = "io.presplit.mapreduce.SaltedImport";

struct ImportRequest {
  // presplitctl's global options (--zk, --root, --auth-file, given before or after `import`).
  std::string zk_quorum;
  std::string zk_root = "/presplit";
  std::string zk_auth_file;  // empty: unauthenticated
  // Where the Java side is described: presplitd's config file.
  std::string config_file = kDefaultDaemonConfig;
  std::string max_heap;  // --max-heap; empty: the config's jvm_max_heap
  std::string table;     // the logical table, as in its document
  // SaltedImport's options and the row files, in the order given ("--flag value" pairs).
  std::vector<std::string> salted_import_arguments;
  bool help = false;
};

// Parses the words after `import` into `request` (which holds the global options given before
// the command; those given after it replace them). Only SaltedImport's options are passed on
// (--table/--physical-table/--layout are not: TABLE is the first word); an unknown option, a
// missing value, no TABLE, an invalid table name or no FILE is an InvalidArgument.
Status ParseImportArguments(const std::vector<std::string>& words, ImportRequest& request);

// The `java` executable: $JAVA_HOME/bin/java when JAVA_HOME is set (it must be executable
// then), else the first executable `java` in the directories of `path` (as $PATH). NotFound
// saying what to set otherwise.
Result<std::string> FindJava(const std::string& java_home, const std::string& path);

// The full command, argv[0] = `java`: -Xmx, HBase's JDK 17 flags, the config's jvm_options,
// with kerberos_principal the system properties presplit.kerberos.principal and .keytab, -cp with `classpath` (ResolveClasspath's entries), SaltedImport, then --zk/--root/--auth-file/
// --table, the config's hadoop_conf_dir and hbase.* settings (as --hadoop-conf-dir / --conf
// KEY=VALUE) and last the request's own arguments, which therefore win over the config's.
std::vector<std::string> BuildJavaCommand(const ImportRequest& request,
                                          const daemon::DaemonOptions& options,
                                          const std::vector<std::string>& classpath,
                                          const std::string& java);

// All of it, checking each piece before anything runs: the config file (readable, valid), the
// jar (readable), the classpath (ResolveClasspath: jvm_classpath, jvm_classpath_file or
// `hbase classpath`), --max-heap, java. Each failure is one line naming what is missing and how
// to fix it. `java_home` and `path` are the environment's JAVA_HOME and PATH.
Result<std::vector<std::string>> PrepareImportCommand(const ImportRequest& request,
                                                      const std::string& java_home,
                                                      const std::string& path);

// `presplitctl import --help`.
std::string ImportHelp();

}  // namespace presplit::ctl
