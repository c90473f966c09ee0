#include "ctl/import_command.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "daemon/hbase/jdk_options.h"
#include "presplit/table_name.h"

namespace presplit::ctl {
namespace {

// SaltedImport's own options (its --help), passed on as they are. --table, --physical-table and
// --layout are not among them: presplitctl names the table as a word and always reads its
// layout from presplit's status, as the daemon publishes it.
const std::set<std::string>& SaltedImportSwitches() {
  static const std::set<std::string> names = {"dry-run", "skip-header", "keep-staging"};
  return names;
}
const std::set<std::string>& SaltedImportValueFlags() {
  static const std::set<std::string> names = {
      "columns", "separator",       "quote",          "timestamp",   "max-bad-lines",
      "staging", "hadoop-conf-dir", "hbase-conf-dir", "local-tasks", "conf"};
  return names;
}

bool IsExecutableFile(const std::string& path) {
  return access(path.c_str(), X_OK) == 0 && std::ifstream(path).good();
}

}  // namespace

Status ParseImportArguments(const std::vector<std::string>& words, ImportRequest& request) {
  std::vector<std::string> files;
  bool has_columns = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--help" || word == "-h") {
      request.help = true;
      return Status::Ok();
    }
    if (word.rfind("--", 0) != 0) {
      if (request.table.empty()) {
        request.table = word;
      } else {
        files.push_back(word);
      }
      continue;
    }
    std::string name = word.substr(2), value;
    const size_t eq = name.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (SaltedImportSwitches().count(name)) {
      if (has_value) return Status::InvalidArgument("--" + name + " takes no value");
      request.salted_import_arguments.push_back("--" + name);
      continue;
    }
    const bool own = name == "config" || name == "max-heap" || name == "zk" || name == "root" ||
                     name == "auth-file";
    if (!own && !SaltedImportValueFlags().count(name)) {
      return Status::InvalidArgument("--" + name + " does not apply to import" +
                                     (name == "table" ? " (the table is the first word)" : ""));
    }
    if (!has_value) {
      if (i + 1 >= words.size()) return Status::InvalidArgument("--" + name + " needs a value");
      value = words[++i];
    }
    if (name == "config") {
      request.config_file = value;
    } else if (name == "max-heap") {
      PRESPLIT_RETURN_IF_ERROR(daemon::ParseByteCount("--max-heap", value).status());
      request.max_heap = value;
    } else if (name == "zk") {
      request.zk_quorum = value;
    } else if (name == "root") {
      request.zk_root = value;
    } else if (name == "auth-file") {
      request.zk_auth_file = value;
    } else {
      has_columns = has_columns || name == "columns";
      request.salted_import_arguments.push_back("--" + name);
      request.salted_import_arguments.push_back(value);
    }
  }
  if (request.table.empty()) return Status::InvalidArgument("import needs TABLE and FILE...");
  PRESPLIT_RETURN_IF_ERROR(ValidateTableName(request.table));
  if (files.empty()) return Status::InvalidArgument("import needs at least one FILE after TABLE");
  if (!has_columns) {
    return Status::InvalidArgument(
        "import needs --columns, the column mapping (e.g. HBASE_ROW_KEY,f:a,f:b)");
  }
  // The files last, after every option: SaltedImport takes them anywhere, and this keeps the
  // command readable in a log.
  for (auto& file : files) request.salted_import_arguments.push_back(std::move(file));
  return Status::Ok();
}

Result<std::string> FindJava(const std::string& java_home, const std::string& path) {
  if (!java_home.empty()) {
    const std::string java = java_home + "/bin/java";
    if (IsExecutableFile(java)) return java;
    return Status::NotFound("no Java runtime: JAVA_HOME is " + java_home + " but " + java +
                            " is not an executable; point JAVA_HOME at a JDK 17 or unset it to "
                            "use the java on PATH");
  }
  std::stringstream directories(path);
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    if (directory.empty()) continue;
    const std::string java = directory + "/java";
    if (IsExecutableFile(java)) return java;
  }
  return Status::NotFound(
      "no Java runtime: no java on PATH and JAVA_HOME is not set; install a JDK 17 "
      "(openjdk-17-jre-headless) or set JAVA_HOME");
}

std::vector<std::string> BuildJavaCommand(const ImportRequest& request,
                                          const daemon::DaemonOptions& options,
                                          const std::vector<std::string>& classpath,
                                          const std::string& java) {
  std::vector<std::string> argv = {java};
  const std::string& heap = request.max_heap.empty() ? options.jvm_max_heap : request.max_heap;
  if (!heap.empty()) argv.push_back("-Xmx" + heap);
  for (auto& option : daemon::HBaseJdk17Options()) argv.push_back(std::move(option));
  for (const auto& option : options.jvm_options) argv.push_back(option);
  // Kerberos: SaltedImport logs in as presplitd does (KerberosLogin.loginFromProperties).
  if (!options.kerberos_principal.empty()) {
    argv.push_back("-Dpresplit.kerberos.principal=" + options.kerberos_principal);
    argv.push_back("-Dpresplit.kerberos.keytab=" + options.kerberos_keytab);
  }
  argv.push_back("-cp");
  argv.push_back(daemon::JoinClasspath(classpath));
  argv.push_back(kSaltedImportClass);
  argv.insert(argv.end(), {"--zk", request.zk_quorum, "--root", request.zk_root});
  if (!request.zk_auth_file.empty()) {
    argv.insert(argv.end(), {"--auth-file", request.zk_auth_file});
  }
  argv.insert(argv.end(), {"--table", CanonicalTableName(request.table)});
  if (!options.hadoop_conf_dir.empty()) {
    argv.insert(argv.end(), {"--hadoop-conf-dir", options.hadoop_conf_dir});
  }
  for (const auto& [key, value] : options.hbase_settings) {
    argv.insert(argv.end(), {"--conf", key + "=" + value});
  }
  argv.insert(argv.end(), request.salted_import_arguments.begin(),
              request.salted_import_arguments.end());
  return argv;
}

Result<std::vector<std::string>> PrepareImportCommand(const ImportRequest& request,
                                                      const std::string& java_home,
                                                      const std::string& path) {
  daemon::DaemonOptions options;
  if (Status s = daemon::ApplyConfigFile(request.config_file, options); !s.ok()) {
    if (s.code() == StatusCode::kNotFound) {
      return Status::NotFound("cannot read presplitd's config file " + request.config_file +
                              ": it names presplit_jar and the HBase classpath; give --config "
                              "FILE");
    }
    return s;
  }
  if (!std::ifstream(options.presplit_jar).good()) {
    return Status::NotFound("cannot read presplit_jar " + options.presplit_jar +
                            ": install presplit-hbase.jar there or set presplit_jar in " +
                            request.config_file);
  }
  PRESPLIT_RETURN_IF_ERROR(daemon::CheckKerberosOptions(options).WithContext(request.config_file));
  PRESPLIT_ASSIGN_OR_RETURN(auto classpath, daemon::ResolveClasspath(options));
  PRESPLIT_ASSIGN_OR_RETURN(std::string java, FindJava(java_home, path));
  const char* krb5_config = std::getenv("KRB5_CONFIG");
  for (auto& option : daemon::KerberosJvmOptions(options, krb5_config ? krb5_config : "")) {
    options.jvm_options.push_back(std::move(option));
  }
  return BuildJavaCommand(request, options, classpath, java);
}

std::string ImportHelp() {
  return R"(usage: presplitctl [--zk QUORUM] [--root PATH] [--auth-file FILE] import TABLE FILE...
           --columns MAPPING [--config FILE] [--max-heap SIZE] [SaltedImport options]

Bulk-loads row files (TSV, CSV) into TABLE, a table presplitd created from its document: each
line's row key field is the logical key, salted with the table's current layout (read from
presplit's status in ZooKeeper), written as HFiles per region of the pre-split table by a
MapReduce job and bulk-loaded (no WAL, no memstore, no splits). Runs presplit-hbase.jar's
io.presplit.mapreduce.SaltedImport with `java` ($JAVA_HOME/bin/java, else java on PATH) and
returns its exit status; its output (one JSON line) and its errors pass through.

The Java side is described by presplitd's config file, as for the daemon's embedded JVM:
presplit_jar, hbase_conf_dir, jvm_classpath / jvm_classpath_file (else `hbase classpath`),
jvm_options, jvm_max_heap; its hadoop_conf_dir and hbase.* settings are passed on too (options
given here win). With its kerberos_principal and kerberos_keytab, the java logs in from that
keytab first, as the daemon does ($KRB5_CONFIG names the krb5.conf). --zk, --root and
--auth-file name the ZooKeeper, root and credentials as for every command.

  --config FILE        presplitd's config file (default /etc/presplit/presplitd.conf)
  --max-heap SIZE      the JVM's -Xmx (default: the config's jvm_max_heap)
  --columns M          ImportTsv-style mapping: HBASE_ROW_KEY,cf:col,... (HBASE_TS_KEY: a
                       timestamp column, ms); required
  --separator C        field separator: one character, 'tab' (default) or 'comma'
  --quote C            fields may be quoted with C (CSV: --quote '"')
  --skip-header        ignore the first line of each file
  --timestamp MS       timestamp of every cell (default: the time of the import)
  --max-bad-lines N    bad lines tolerated (default 0); more fail, nothing is loaded
  --dry-run            check every line and report rows per bucket; no job, nothing loaded
  --staging DIR        job output (HFiles) directory on the cluster's file system (default: a
                       new directory under java.io.tmpdir); deleted after the load unless
                       --keep-staging
  --hadoop-conf-dir D  Hadoop configuration (mapreduce.framework.name=yarn: run on YARN);
                       default: the config's hadoop_conf_dir, else the local job runner
  --hbase-conf-dir D   directory of an hbase-site.xml
  --local-tasks N      local runner: map/reduce tasks at a time (default 2)
  --conf KEY=VALUE     any Hadoop/HBase setting (repeatable)

exit codes: 0 imported (or a clean dry run), 1 failure (bad lines over the limit, nothing
loaded), 2 usage error or a missing piece (config file, jar, classpath, java).
)";
}

}  // namespace presplit::ctl
