// presplitd's options: one struct that tests build directly and that main fills from the config
// file (conf/presplitd.conf) and command-line overrides.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "daemon/migrate/throttler.h"
#include "presplit/status.h"

namespace presplit::daemon {

struct DaemonOptions {
  // One field per setting of settings.def (the one table: name, type, default, range, live or
  // restart), with its default; docs/reference/config.md says what each does.
#define PRESPLIT_SETTING(name, type, kind, default_value, min, max, choices, live, doc) \
  type name = default_value;
#include "daemon/runner/settings.def"
#undef PRESPLIT_SETTING

  // HBase client settings handed to AdminBridge (`hbase.<...> = v` lines); hbase.zookeeper.quorum
  // defaults to zk_quorum.
  std::map<std::string, std::string> hbase_settings;

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
// "hbase.client.retries.number"...), in settings.def's order, the hbase.* ones last.
std::vector<std::string> ChangedSettings(const DaemonOptions& before, const DaemonOptions& after);
// Whether SIGHUP applies a change of this setting at once (settings.def's `live`); the others
// are logged as needing a restart.
bool IsLiveSetting(const std::string& name);

// One setting as settings.def declares it, for --help and the checks.
struct SettingInfo {
  const char* name;
  std::string default_text;  // the default as the config file writes it ("" = empty)
  std::string range;         // "1 to 86400", "live|snapshot", or ""
  bool live;
  const char* doc;
};
const std::vector<SettingInfo>& Settings();
// --help's part on the settings: one line each (name, default, range, live, doc).
std::string SettingsUsage();

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

// The migrations' adaptive throttle as the migration_throttle* settings make it; what they do not
// set keeps ThrottleSettings' own value. A default DaemonOptions gives the ThrottleSettings{}
// that unit tests build (DaemonOptionsTest pins the two together).
migrate::ThrottleSettings ThrottleSettingsOf(const DaemonOptions& options);

// The JVM classpath the options describe; runs `hbase classpath` when nothing else is set.
Result<std::vector<std::string>> ResolveClasspath(const DaemonOptions& options);

}  // namespace presplit::daemon
