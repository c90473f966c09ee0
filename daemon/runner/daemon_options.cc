#include "daemon/runner/daemon_options.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace presplit::daemon {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

Result<int> ParseInt(const std::string& key, const std::string& value, int min, int max) {
  try {
    size_t used = 0;
    long v = std::stol(value, &used);
    if (used != value.size() || v < min || v > max) throw std::out_of_range(value);
    return static_cast<int>(v);
  } catch (const std::exception&) {
    return Status::InvalidArgument(key + ": expected an integer from " + std::to_string(min) +
                                   " to " + std::to_string(max) + ", got '" + value + "'");
  }
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) {
    part = Trim(part);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

// A Kerberos principal as Hadoop's KerberosName reads it: primary[/instance][@REALM], no blanks,
// no empty part. Empty is allowed (no Kerberos).
Status CheckPrincipal(const std::string& value) {
  if (value.empty()) return Status::Ok();
  auto bad = [&value](const std::string& why) {
    return Status::InvalidArgument("kerberos_principal: expected primary[/instance][@REALM] (" +
                                   why + "), got '" + value + "'");
  };
  if (value.find_first_of(" \t\r\n") != std::string::npos) return bad("no blanks");
  const size_t at = value.find('@');
  if (at != std::string::npos && value.find('@', at + 1) != std::string::npos) {
    return bad("one @ at most");
  }
  const std::string name = value.substr(0, at);
  if (at != std::string::npos && at + 1 == value.size()) return bad("an empty realm");
  const size_t slash = name.find('/');
  if (name.empty() || slash == 0) return bad("an empty primary");
  if (slash != std::string::npos &&
      (slash + 1 == name.size() || name.find('/', slash + 1) != std::string::npos)) {
    return bad("one non-empty instance at most");
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> ParseByteCount(const std::string& key, const std::string& value) {
  std::string digits = value;
  int shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        break;
    }
    if (shift > 0) digits.pop_back();
  }
  try {
    size_t used = 0;
    long long v = std::stoll(digits, &used);
    if (digits.empty() || used != digits.size() || v < 0 || v > (int64_t{1} << (62 - shift))) {
      throw std::out_of_range(value);
    }
    return static_cast<int64_t>(v) << shift;
  } catch (const std::exception&) {
    return Status::InvalidArgument(
        key + ": expected a byte count such as 10737418240 or 10G, got '" + value + "'");
  }
}

Status ApplyOption(const std::string& key, const std::string& value, DaemonOptions& o) {
  if (key.rfind("hbase.", 0) == 0) {
    o.hbase_settings[key] = value;
  } else if (key == "zk_quorum") {
    o.zk_quorum = value;
  } else if (key == "zk_root") {
    if (value.empty() || value[0] != '/' || (value.size() > 1 && value.back() == '/')) {
      return Status::InvalidArgument("zk_root: must be an absolute path without a trailing '/'");
    }
    o.zk_root = value;
  } else if (key == "zk_auth_file") {
    o.zk_auth_file = value;
  } else if (key == "zk_session_timeout_ms") {
    PRESPLIT_ASSIGN_OR_RETURN(o.zk_session_timeout_ms, ParseInt(key, value, 2000, 600000));
  } else if (key == "presplit_jar") {
    o.presplit_jar = value;
  } else if (key == "hbase_conf_dir") {
    o.hbase_conf_dir = value;
  } else if (key == "jvm_classpath") {
    o.jvm_classpath = value;
  } else if (key == "jvm_classpath_file") {
    o.jvm_classpath_file = value;
  } else if (key == "hbase_command") {
    o.hbase_command = value;
  } else if (key == "jvm_max_heap") {
    // The JVM's -Xmx syntax; checked here, so that a typo is a clear error, not a JVM that
    // refuses to start.
    PRESPLIT_RETURN_IF_ERROR(ParseByteCount(key, value).status());
    o.jvm_max_heap = value;
  } else if (key == "jvm_options") {
    o.jvm_options = SplitOn(value, ' ');
  } else if (key == "load_watch_interval_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.load_watch_interval_s, ParseInt(key, value, 0, 3600));
  } else if (key == "load_split_max_per_window") {
    PRESPLIT_ASSIGN_OR_RETURN(o.load_split_max_per_window, ParseInt(key, value, 0, 10000));
  } else if (key == "load_split_window_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.load_split_window_s, ParseInt(key, value, 1, 86400));
  } else if (key == "keyviz_fine_resolution_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.keyviz_fine_resolution_s, ParseInt(key, value, 1, 3600));
  } else if (key == "keyviz_fine_retention_h") {
    PRESPLIT_ASSIGN_OR_RETURN(o.keyviz_fine_retention_h, ParseInt(key, value, 1, 168));
  } else if (key == "keyviz_coarse_resolution_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.keyviz_coarse_resolution_s, ParseInt(key, value, 1, 86400));
  } else if (key == "keyviz_coarse_retention_h") {
    PRESPLIT_ASSIGN_OR_RETURN(o.keyviz_coarse_retention_h, ParseInt(key, value, 1, 8760));
  } else if (key == "keyviz_memory_budget_mb") {
    PRESPLIT_ASSIGN_OR_RETURN(o.keyviz_memory_budget_mb, ParseInt(key, value, 1, 65536));
  } else if (key == "migration_interval_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_interval_s, ParseInt(key, value, 1, 3600));
  } else if (key == "migration_chunk_rows") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_chunk_rows, ParseInt(key, value, 1, 1000000));
  } else if (key == "migration_max_concurrent") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_max_concurrent, ParseInt(key, value, 1, 64));
  } else if (key == "migration_hfile_chunk_rows") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_hfile_chunk_rows, ParseInt(key, value, 1, 100000000));
  } else if (key == "migration_mapreduce_threshold_bytes") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_mapreduce_threshold_bytes, ParseByteCount(key, value));
  } else if (key == "migration_staging_dir") {
    if (value.empty()) return Status::InvalidArgument("migration_staging_dir: must not be empty");
    o.migration_staging_dir = value;
  } else if (key == "migration_hfile_source") {
    if (value != "live" && value != "snapshot") {
      return Status::InvalidArgument("migration_hfile_source: expected live or snapshot, got '" +
                                     value + "'");
    }
    o.migration_hfile_source = value;
  } else if (key == "migration_throttle") {
    if (value != "adaptive" && value != "off") {
      return Status::InvalidArgument("migration_throttle: expected adaptive or off, got '" + value +
                                     "'");
    }
    o.migration_throttle = value;
  } else if (key == "migration_throttle_start_cells_per_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_throttle_start_cells_per_s,
                              ParseInt(key, value, 1, 1000000000));
  } else if (key == "migration_throttle_min_cells_per_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_throttle_min_cells_per_s,
                              ParseInt(key, value, 1, 1000000000));
  } else if (key == "migration_throttle_max_call_queue") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_throttle_max_call_queue, ParseInt(key, value, 0, 100000));
  } else if (key == "migration_throttle_max_queue_time_ms") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_throttle_max_queue_time_ms,
                              ParseInt(key, value, 1, 600000));
  } else if (key == "migration_throttle_max_probe_ms") {
    PRESPLIT_ASSIGN_OR_RETURN(o.migration_throttle_max_probe_ms, ParseInt(key, value, 1, 600000));
  } else if (key == "hadoop_conf_dir") {
    o.hadoop_conf_dir = value;
  } else if (key == "kerberos_principal") {
    PRESPLIT_RETURN_IF_ERROR(CheckPrincipal(value));
    o.kerberos_principal = value;
  } else if (key == "kerberos_keytab") {
    if (!value.empty() && value[0] != '/') {
      return Status::InvalidArgument("kerberos_keytab: expected an absolute path, got '" + value +
                                     "'");
    }
    o.kerberos_keytab = value;
  } else if (key == "resync_interval_s") {
    PRESPLIT_ASSIGN_OR_RETURN(o.resync_interval_s, ParseInt(key, value, 1, 86400));
  } else if (key == "http_listen") {
    o.http_listen = value;
  } else if (key == "log_level") {
    static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
    bool known = false;
    for (const char* level : kLevels) known = known || value == level;
    if (!known) {
      return Status::InvalidArgument(
          "log_level: expected trace, debug, info, warn, error, "
          "critical or off, got '" +
          value + "'");
    }
    o.log_level = value;
  } else {
    return Status::InvalidArgument("unknown option '" + key + "'");
  }
  return Status::Ok();
}

Status ApplyConfigText(const std::string& text, const std::string& origin, DaemonOptions& o) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    size_t eq = line.find('=');
    const std::string where = origin + ":" + std::to_string(number);
    if (eq == std::string::npos) {
      return Status::InvalidArgument(where + ": expected 'key = value', got '" + line + "'");
    }
    Status s = ApplyOption(Trim(line.substr(0, eq)), Trim(line.substr(eq + 1)), o);
    if (!s.ok()) return s.WithContext(where);
  }
  return Status::Ok();
}

Status ApplyConfigFile(const std::string& path, DaemonOptions& o) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read config file " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ApplyConfigText(buffer.str(), path, o);
}

Result<std::vector<std::string>> ResolveClasspath(const DaemonOptions& o) {
  std::vector<std::string> cp;
  if (!o.hbase_conf_dir.empty()) cp.push_back(o.hbase_conf_dir);
  cp.push_back(o.presplit_jar);
  std::string rest = o.jvm_classpath;
  if (rest.empty() && !o.jvm_classpath_file.empty()) {
    std::ifstream in(o.jvm_classpath_file);
    if (!in) return Status::NotFound("cannot read jvm_classpath_file " + o.jvm_classpath_file);
    std::stringstream buffer;
    buffer << in.rdbuf();
    rest = Trim(buffer.str());
  }
  if (rest.empty()) {
    const std::string command = o.hbase_command + " classpath 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return Status::NotFound("cannot run '" + command + "'");
    char buf[4096];
    while (fgets(buf, sizeof(buf), pipe) != nullptr) rest += buf;
    int rc = pclose(pipe);
    rest = Trim(rest);
    if (rc != 0 || rest.empty()) {
      return Status::NotFound(
          "no HBase classpath: set jvm_classpath or jvm_classpath_file, or "
          "put the 'hbase' command on PATH (ran '" +
          o.hbase_command + " classpath')");
    }
  }
  for (auto& entry : SplitOn(rest, ':')) cp.push_back(entry);
  return cp;
}

std::vector<std::string> KerberosJvmOptions(const DaemonOptions& o,
                                            const std::string& krb5_config) {
  if (o.kerberos_principal.empty() || krb5_config.empty()) return {};
  for (const auto& option : o.jvm_options) {
    if (option.rfind("-Djava.security.krb5.conf=", 0) == 0) return {};
  }
  return {"-Djava.security.krb5.conf=" + krb5_config};
}

Status CheckKerberosOptions(const DaemonOptions& o) {
  if (o.kerberos_principal.empty() != o.kerberos_keytab.empty()) {
    return Status::InvalidArgument(
        o.kerberos_principal.empty()
            ? "kerberos_keytab is set without kerberos_principal: name the principal whose keys "
              "it holds"
            : "kerberos_principal is set without kerberos_keytab: name the keytab holding its "
              "keys");
  }
  if (!o.kerberos_principal.empty()) {
    auto auth = o.hbase_settings.find("hbase.security.authentication");
    if (auth != o.hbase_settings.end() && auth->second != "kerberos") {
      return Status::InvalidArgument(
          "kerberos_principal is set but hbase.security.authentication is '" + auth->second +
          "': a Kerberos login needs hbase.security.authentication = kerberos (or no such line)");
    }
  }
  return Status::Ok();
}

Status CheckOptions(const DaemonOptions& o) {
  PRESPLIT_RETURN_IF_ERROR(CheckKerberosOptions(o));
  if (o.migration_hfile_source == "snapshot" && o.hbase_conf_dir.empty() &&
      o.hbase_settings.count("hbase.rootdir") == 0) {
    return Status::InvalidArgument(
        "migration_hfile_source = snapshot reads the snapshot's files under hbase.rootdir: set "
        "hbase_conf_dir (its hbase-site.xml names it) or hbase.rootdir");
  }
  if (o.keyviz_coarse_resolution_s % o.keyviz_fine_resolution_s != 0) {
    return Status::InvalidArgument(
        "keyviz_coarse_resolution_s (" + std::to_string(o.keyviz_coarse_resolution_s) +
        ") must be a multiple of keyviz_fine_resolution_s (" +
        std::to_string(o.keyviz_fine_resolution_s) + "): coarse columns merge whole fine ones");
  }
  if (o.keyviz_coarse_retention_h <= o.keyviz_fine_retention_h) {
    return Status::InvalidArgument(
        "keyviz_coarse_retention_h (" + std::to_string(o.keyviz_coarse_retention_h) +
        ") must be longer than keyviz_fine_retention_h (" +
        std::to_string(o.keyviz_fine_retention_h) + "): the coarse tier keeps what is older");
  }
  if (int64_t{o.keyviz_fine_retention_h} * 3600 < o.keyviz_fine_resolution_s ||
      int64_t{o.keyviz_coarse_retention_h} * 3600 < o.keyviz_coarse_resolution_s) {
    return Status::InvalidArgument(
        "each keyviz tier must keep at least one column: its "
        "retention must be at least its resolution");
  }
  return Status::Ok();
}

std::vector<std::string> ChangedSettings(const DaemonOptions& before, const DaemonOptions& after) {
  std::vector<std::string> changed;
  auto check = [&changed](const char* name, const auto& a, const auto& b) {
    if (a != b) changed.push_back(name);
  };
  check("zk_quorum", before.zk_quorum, after.zk_quorum);
  check("zk_root", before.zk_root, after.zk_root);
  check("zk_auth_file", before.zk_auth_file, after.zk_auth_file);
  check("zk_session_timeout_ms", before.zk_session_timeout_ms, after.zk_session_timeout_ms);
  check("presplit_jar", before.presplit_jar, after.presplit_jar);
  check("hbase_conf_dir", before.hbase_conf_dir, after.hbase_conf_dir);
  check("jvm_classpath", before.jvm_classpath, after.jvm_classpath);
  check("jvm_classpath_file", before.jvm_classpath_file, after.jvm_classpath_file);
  check("hbase_command", before.hbase_command, after.hbase_command);
  check("jvm_max_heap", before.jvm_max_heap, after.jvm_max_heap);
  check("jvm_options", before.jvm_options, after.jvm_options);
  check("load_watch_interval_s", before.load_watch_interval_s, after.load_watch_interval_s);
  check("load_split_max_per_window", before.load_split_max_per_window,
        after.load_split_max_per_window);
  check("load_split_window_s", before.load_split_window_s, after.load_split_window_s);
  check("keyviz_fine_resolution_s", before.keyviz_fine_resolution_s,
        after.keyviz_fine_resolution_s);
  check("keyviz_fine_retention_h", before.keyviz_fine_retention_h, after.keyviz_fine_retention_h);
  check("keyviz_coarse_resolution_s", before.keyviz_coarse_resolution_s,
        after.keyviz_coarse_resolution_s);
  check("keyviz_coarse_retention_h", before.keyviz_coarse_retention_h,
        after.keyviz_coarse_retention_h);
  check("keyviz_memory_budget_mb", before.keyviz_memory_budget_mb, after.keyviz_memory_budget_mb);
  check("resync_interval_s", before.resync_interval_s, after.resync_interval_s);
  check("migration_interval_s", before.migration_interval_s, after.migration_interval_s);
  check("migration_chunk_rows", before.migration_chunk_rows, after.migration_chunk_rows);
  check("migration_max_concurrent", before.migration_max_concurrent,
        after.migration_max_concurrent);
  check("migration_hfile_chunk_rows", before.migration_hfile_chunk_rows,
        after.migration_hfile_chunk_rows);
  check("migration_mapreduce_threshold_bytes", before.migration_mapreduce_threshold_bytes,
        after.migration_mapreduce_threshold_bytes);
  check("migration_staging_dir", before.migration_staging_dir, after.migration_staging_dir);
  check("migration_hfile_source", before.migration_hfile_source, after.migration_hfile_source);
  check("migration_throttle", before.migration_throttle, after.migration_throttle);
  check("migration_throttle_start_cells_per_s", before.migration_throttle_start_cells_per_s,
        after.migration_throttle_start_cells_per_s);
  check("migration_throttle_min_cells_per_s", before.migration_throttle_min_cells_per_s,
        after.migration_throttle_min_cells_per_s);
  check("migration_throttle_max_call_queue", before.migration_throttle_max_call_queue,
        after.migration_throttle_max_call_queue);
  check("migration_throttle_max_queue_time_ms", before.migration_throttle_max_queue_time_ms,
        after.migration_throttle_max_queue_time_ms);
  check("migration_throttle_max_probe_ms", before.migration_throttle_max_probe_ms,
        after.migration_throttle_max_probe_ms);
  check("hadoop_conf_dir", before.hadoop_conf_dir, after.hadoop_conf_dir);
  check("kerberos_principal", before.kerberos_principal, after.kerberos_principal);
  check("kerberos_keytab", before.kerberos_keytab, after.kerberos_keytab);
  check("http_listen", before.http_listen, after.http_listen);
  check("log_level", before.log_level, after.log_level);
  std::set<std::string> keys;
  for (const auto& [k, v] : before.hbase_settings) keys.insert(k);
  for (const auto& [k, v] : after.hbase_settings) keys.insert(k);
  for (const auto& k : keys) {
    auto a = before.hbase_settings.find(k);
    auto b = after.hbase_settings.find(k);
    if (a == before.hbase_settings.end() || b == after.hbase_settings.end() ||
        a->second != b->second) {
      changed.push_back(k);
    }
  }
  return changed;
}

}  // namespace presplit::daemon
