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

namespace {

enum class Kind {
  kText,
  kNonEmpty,
  kZnodeRoot,
  kAbsPath,
  kInt,
  kBytes,
  kHeapSize,
  kWords,
  kChoice,
  kPrincipal
};

// One value of a setting into its field, checked by its kind (settings.def).
Status ParseSetting(const std::string& key, const std::string& value, Kind kind, int min, int max,
                    const std::string& choices, std::string& out) {
  switch (kind) {
    case Kind::kNonEmpty:
      if (value.empty()) return Status::InvalidArgument(key + ": must not be empty");
      break;
    case Kind::kZnodeRoot:
      if (value.empty() || value[0] != '/' || (value.size() > 1 && value.back() == '/')) {
        return Status::InvalidArgument(key + ": must be an absolute path without a trailing '/'");
      }
      break;
    case Kind::kAbsPath:
      if (!value.empty() && value[0] != '/') {
        return Status::InvalidArgument(key + ": expected an absolute path, got '" + value + "'");
      }
      break;
    case Kind::kHeapSize:
      // The JVM's -Xmx syntax; checked here, so that a typo is a clear error, not a JVM that
      // refuses to start.
      PRESPLIT_RETURN_IF_ERROR(ParseByteCount(key, value).status());
      break;
    case Kind::kChoice: {
      const std::vector<std::string> accepted = SplitOn(choices, '|');
      bool known = false;
      for (const auto& c : accepted) known = known || value == c;
      if (!known) {
        std::string list;
        for (size_t i = 0; i < accepted.size(); ++i) {
          list += (i == 0 ? "" : i + 1 == accepted.size() ? " or " : ", ") + accepted[i];
        }
        return Status::InvalidArgument(key + ": expected " + list + ", got '" + value + "'");
      }
      break;
    }
    case Kind::kPrincipal:
      PRESPLIT_RETURN_IF_ERROR(CheckPrincipal(value));
      break;
    default:
      break;
  }
  (void)min;
  (void)max;
  out = value;
  return Status::Ok();
}

Status ParseSetting(const std::string& key, const std::string& value, Kind kind, int min, int max,
                    const std::string&, int& out) {
  (void)kind;  // kInt
  PRESPLIT_ASSIGN_OR_RETURN(out, ParseInt(key, value, min, max));
  return Status::Ok();
}

Status ParseSetting(const std::string& key, const std::string& value, Kind, int, int,
                    const std::string&, int64_t& out) {
  PRESPLIT_ASSIGN_OR_RETURN(out, ParseByteCount(key, value));  // kBytes
  return Status::Ok();
}

Status ParseSetting(const std::string&, const std::string& value, Kind, int, int,
                    const std::string&, std::vector<std::string>& out) {
  out = SplitOn(value, ' ');  // kWords
  return Status::Ok();
}

std::string DefaultText(const std::string& v) { return v; }
std::string DefaultText(int v) { return std::to_string(v); }
std::string DefaultText(int64_t v) {
  // As a byte count is written: the largest unit that divides it.
  const char* units = "KMGT";
  int unit = -1;
  while (v != 0 && unit < 3 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  return std::to_string(v) + (unit >= 0 ? std::string(1, units[unit]) : "");
}
std::string DefaultText(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& w : v) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string RangeText(Kind kind, int min, int max, const std::string& choices) {
  if (kind == Kind::kInt) return std::to_string(min) + " to " + std::to_string(max);
  if (kind == Kind::kChoice) return choices;
  return "";
}

}  // namespace

Status ApplyOption(const std::string& key, const std::string& value, DaemonOptions& o) {
  if (key.rfind("hbase.", 0) == 0) {
    o.hbase_settings[key] = value;
    return Status::Ok();
  }
#define PRESPLIT_SETTING(name, type, kind, default_value, min, max, choices, live, doc) \
  if (key == #name) return ParseSetting(key, value, Kind::kind, min, max, choices, o.name);
#include "daemon/runner/settings.def"
#undef PRESPLIT_SETTING
  return Status::InvalidArgument("unknown option '" + key + "'");
}

const std::vector<SettingInfo>& Settings() {
  static const std::vector<SettingInfo> settings = [] {
    const DaemonOptions defaults;
    std::vector<SettingInfo> out;
#define PRESPLIT_SETTING(name, type, kind, default_value, min, max, choices, live, doc) \
  out.push_back(                                                                        \
      {#name, DefaultText(defaults.name), RangeText(Kind::kind, min, max, choices), live, doc});
#include "daemon/runner/settings.def"
#undef PRESPLIT_SETTING
    return out;
  }();
  return settings;
}

bool IsLiveSetting(const std::string& name) {
  for (const SettingInfo& s : Settings()) {
    if (name == s.name) return s.live;
  }
  return false;  // hbase.* and unknown names: a restart
}

std::string SettingsUsage() {
  std::string out;
  for (const SettingInfo& s : Settings()) {
    std::string line =
        "  " + std::string(s.name) + " = " + (s.default_text.empty() ? "(empty)" : s.default_text);
    if (!s.range.empty()) line += "  [" + s.range + "]";
    if (s.live) line += "  (SIGHUP applies it)";
    out += line + "\n      " + s.doc + "\n";
  }
  out += "  hbase.* = (none)\n      any HBase client setting, for the daemon's connection\n";
  return out;
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
#define PRESPLIT_SETTING(name, type, kind, default_value, min, max, choices, live, doc) \
  if (before.name != after.name) changed.push_back(#name);
#include "daemon/runner/settings.def"
#undef PRESPLIT_SETTING
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

migrate::ThrottleSettings ThrottleSettingsOf(const DaemonOptions& options) {
  migrate::ThrottleSettings throttle;
  throttle.enabled = options.migration_throttle == "adaptive";
  throttle.initial_cells_per_s = options.migration_throttle_start_cells_per_s;
  throttle.min_cells_per_s = options.migration_throttle_min_cells_per_s;
  throttle.max_call_queue_length = options.migration_throttle_max_call_queue;
  throttle.max_call_queue_time_ms = options.migration_throttle_max_queue_time_ms;
  throttle.probe_min_ms = options.migration_throttle_max_probe_ms;
  return throttle;
}

}  // namespace presplit::daemon
