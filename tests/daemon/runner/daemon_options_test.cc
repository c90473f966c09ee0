#include "daemon/runner/daemon_options.h"

#include <gtest/gtest.h>

namespace presplit::daemon {
namespace {

TEST(DaemonOptionsTest, ReadsKeyValueLinesWithComments) {
  DaemonOptions o;
  Status s = ApplyConfigText(
      "# comment\nzk_quorum = zk1:2181,zk2:2181  # trailing\nzk_root=/p\n"
      "resync_interval_s = 5\nhbase.client.retries.number = 3\njvm_options = -Da=1 -Db=2\n",
      "test.conf", o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(o.zk_quorum, "zk1:2181,zk2:2181");
  EXPECT_EQ(o.zk_root, "/p");
  EXPECT_EQ(o.resync_interval_s, 5);
  EXPECT_EQ(o.hbase_settings.at("hbase.client.retries.number"), "3");
  EXPECT_EQ(o.jvm_options, (std::vector<std::string>{"-Da=1", "-Db=2"}));
}

TEST(DaemonOptionsTest, AccessControlIsOffUnlessAnAuthFileIsNamed) {
  DaemonOptions o;
  EXPECT_EQ(o.zk_auth_file, "");
  Status s = ApplyConfigText("zk_auth_file = /etc/presplit/zk-auth.conf\n", "test.conf", o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(o.zk_auth_file, "/etc/presplit/zk-auth.conf");
}

TEST(DaemonOptionsTest, MigrationsDrivenAtOnce) {
  DaemonOptions o;
  EXPECT_EQ(o.migration_max_concurrent, 4);
  ASSERT_TRUE(ApplyConfigText("migration_max_concurrent = 1\n", "test.conf", o).ok());
  EXPECT_EQ(o.migration_max_concurrent, 1);
  for (const char* bad : {"0", "65", "-1", "many"}) {
    EXPECT_FALSE(ApplyOption("migration_max_concurrent", bad, o).ok()) << bad;
  }
  EXPECT_EQ(o.migration_max_concurrent, 1);
}

TEST(DaemonOptionsTest, TheMapReduceEngineSettings) {
  DaemonOptions o;
  EXPECT_EQ(o.migration_mapreduce_threshold_bytes, int64_t{10} << 30);
  EXPECT_EQ(o.hadoop_conf_dir, "");
  Status s = ApplyConfigText(
      "migration_mapreduce_threshold_bytes = 512M\nmigration_staging_dir = /stage\n"
      "hadoop_conf_dir = /etc/hadoop/conf\n",
      "test.conf", o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(o.migration_mapreduce_threshold_bytes, int64_t{512} << 20);
  EXPECT_EQ(o.migration_staging_dir, "/stage");
  EXPECT_EQ(o.hadoop_conf_dir, "/etc/hadoop/conf");
  ASSERT_TRUE(ApplyConfigText("migration_mapreduce_threshold_bytes = 1234\n", "t", o).ok());
  EXPECT_EQ(o.migration_mapreduce_threshold_bytes, 1234);
  ASSERT_TRUE(ApplyConfigText("migration_mapreduce_threshold_bytes = 2t\n", "t", o).ok());
  EXPECT_EQ(o.migration_mapreduce_threshold_bytes, int64_t{2} << 40);
  for (const char* bad : {"big", "-1", "10X", "G", "1.5G"}) {
    s = ApplyOption("migration_mapreduce_threshold_bytes", bad, o);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("byte count"), std::string::npos) << s.message();
  }
  EXPECT_FALSE(ApplyOption("migration_staging_dir", "", o).ok());
  // The JVM heap in -Xmx syntax: a typo is refused here, not by a JVM that will not start.
  ASSERT_TRUE(ApplyOption("jvm_max_heap", "1g", o).ok());
  EXPECT_EQ(o.jvm_max_heap, "1g");
  EXPECT_EQ(*ParseByteCount("jvm_max_heap", o.jvm_max_heap), int64_t{1} << 30);
  s = ApplyOption("jvm_max_heap", "1 gig", o);
  EXPECT_NE(s.message().find("jvm_max_heap"), std::string::npos) << s.message();
  EXPECT_EQ(o.jvm_max_heap, "1g");
}

TEST(DaemonOptionsTest, TheMigrationThrottleIsAdaptiveByDefaultAndItsBoundsAreChecked) {
  DaemonOptions o;
  EXPECT_EQ(o.migration_throttle, "adaptive");
  EXPECT_EQ(o.migration_throttle_start_cells_per_s, 5000);
  EXPECT_EQ(o.migration_throttle_min_cells_per_s, 200);
  Status s = ApplyOption("migration_throttle", "static", o);
  EXPECT_NE(s.message().find("expected adaptive or off"), std::string::npos) << s.message();
  EXPECT_EQ(o.migration_throttle, "adaptive") << "a refused value changes nothing";
  ASSERT_TRUE(ApplyOption("migration_throttle", "off", o).ok());
  EXPECT_EQ(o.migration_throttle, "off");
  EXPECT_FALSE(ApplyOption("migration_throttle_min_cells_per_s", "0", o).ok())
      << "a floor of 0 would let a migration stall";
  EXPECT_EQ(o.migration_throttle_min_cells_per_s, 200);
  ASSERT_TRUE(ApplyOption("migration_throttle_max_probe_ms", "50", o).ok());
  EXPECT_EQ(o.migration_throttle_max_probe_ms, 50);
  ASSERT_TRUE(ApplyOption("migration_throttle_max_call_queue", "0", o).ok());
  EXPECT_EQ(o.migration_throttle_max_call_queue, 0);
  EXPECT_FALSE(ApplyOption("migration_throttle_max_queue_time_ms", "x", o).ok());
}

// settings.def's migration_throttle* defaults and ThrottleSettings' own (what the migrator's unit
// tests run with) are the same values: a default changed in one place fails here.
TEST(DaemonOptionsTest, TheThrottlesDefaultsAreTheSettingsTables) {
  const migrate::ThrottleSettings from_settings = ThrottleSettingsOf(DaemonOptions{});
  const migrate::ThrottleSettings built{};
  EXPECT_EQ(from_settings.enabled, built.enabled);
  EXPECT_EQ(from_settings.initial_cells_per_s, built.initial_cells_per_s);
  EXPECT_EQ(from_settings.min_cells_per_s, built.min_cells_per_s);
  EXPECT_EQ(from_settings.max_call_queue_length, built.max_call_queue_length);
  EXPECT_EQ(from_settings.max_call_queue_time_ms, built.max_call_queue_time_ms);
  EXPECT_EQ(from_settings.probe_min_ms, built.probe_min_ms);
  DaemonOptions o;
  ASSERT_TRUE(ApplyOption("migration_throttle", "off", o).ok());
  ASSERT_TRUE(ApplyOption("migration_throttle_max_probe_ms", "50", o).ok());
  EXPECT_FALSE(ThrottleSettingsOf(o).enabled);
  EXPECT_EQ(ThrottleSettingsOf(o).probe_min_ms, 50);
}

TEST(DaemonOptionsTest, TheHfileEnginesSnapshotSourceNeedsHBaseRootDir) {
  DaemonOptions o;
  EXPECT_EQ(o.migration_hfile_source, "live");
  EXPECT_TRUE(CheckOptions(o).ok());
  Status s = ApplyOption("migration_hfile_source", "hfiles", o);
  EXPECT_NE(s.message().find("expected live or snapshot"), std::string::npos) << s.message();
  EXPECT_EQ(o.migration_hfile_source, "live") << "a refused value changes nothing";
  ASSERT_TRUE(ApplyOption("migration_hfile_source", "snapshot", o).ok());
  s = CheckOptions(o);
  EXPECT_NE(s.message().find("hbase.rootdir"), std::string::npos) << s.message();
  DaemonOptions with_conf_dir = o;
  with_conf_dir.hbase_conf_dir = "/etc/hbase/conf";
  EXPECT_TRUE(CheckOptions(with_conf_dir).ok());
  ASSERT_TRUE(ApplyOption("hbase.rootdir", "hdfs://nn/hbase", o).ok());
  EXPECT_TRUE(CheckOptions(o).ok());
}

TEST(DaemonOptionsTest, KeyvizTiersAreCheckedTogether) {
  DaemonOptions o;
  ASSERT_TRUE(ApplyConfigText("keyviz_fine_resolution_s = 30\nkeyviz_fine_retention_h = 6\n"
                              "keyviz_coarse_resolution_s = 600\nkeyviz_coarse_retention_h = 96\n"
                              "keyviz_memory_budget_mb = 512\n",
                              "x.conf", o)
                  .ok());
  EXPECT_EQ(o.keyviz_fine_resolution_s, 30);
  EXPECT_EQ(o.keyviz_memory_budget_mb, 512);
  EXPECT_TRUE(CheckOptions(o).ok());
  Status s = ApplyOption("keyviz_memory_budget_mb", "0", o);
  EXPECT_NE(s.message().find("keyviz_memory_budget_mb"), std::string::npos) << s.message();
  ASSERT_TRUE(ApplyOption("keyviz_coarse_resolution_s", "45", o).ok());
  s = CheckOptions(o);
  EXPECT_NE(s.message().find("multiple of keyviz_fine_resolution_s"), std::string::npos)
      << s.message();
  ASSERT_TRUE(ApplyOption("keyviz_coarse_resolution_s", "600", o).ok());
  ASSERT_TRUE(ApplyOption("keyviz_coarse_retention_h", "6", o).ok());
  s = CheckOptions(o);
  EXPECT_NE(s.message().find("longer than keyviz_fine_retention_h"), std::string::npos)
      << s.message();
}

TEST(DaemonOptionsTest, ErrorsNameTheLineAndTheKey) {
  DaemonOptions o;
  Status s = ApplyConfigText("zk_quorum = a:1\nzk_qourum = b:2\n", "x.conf", o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("x.conf:2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("zk_qourum"), std::string::npos);

  s = ApplyConfigText("resync_interval_s = soon\n", "x.conf", o);
  EXPECT_NE(s.message().find("resync_interval_s"), std::string::npos) << s.message();
  s = ApplyConfigText("zk_root = presplit\n", "x.conf", o);
  EXPECT_FALSE(s.ok());
  s = ApplyConfigText("log_level = loud\n", "x.conf", o);
  EXPECT_FALSE(s.ok());
  s = ApplyConfigText("just words\n", "x.conf", o);
  EXPECT_NE(s.message().find("key = value"), std::string::npos);
}

TEST(DaemonOptionsTest, ClasspathFromOptionsAndFile) {
  DaemonOptions o;
  o.presplit_jar = "/opt/p.jar";
  o.hbase_conf_dir = "/etc/hbase/conf";
  o.jvm_classpath = "/a.jar:/b.jar";
  auto cp = ResolveClasspath(o);
  ASSERT_TRUE(cp.ok());
  EXPECT_EQ(*cp, (std::vector<std::string>{"/etc/hbase/conf", "/opt/p.jar", "/a.jar", "/b.jar"}));

  o.jvm_classpath.clear();
  o.jvm_classpath_file = "/nonexistent/classpath";
  EXPECT_EQ(ResolveClasspath(o).status().code(), StatusCode::kNotFound);

  o.jvm_classpath_file.clear();
  o.hbase_command = "/nonexistent/hbase";
  auto missing = ResolveClasspath(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("jvm_classpath"), std::string::npos);
}

TEST(DaemonOptionsTest, ChangedSettingsNamesWhatDiffers) {
  DaemonOptions before;
  ASSERT_TRUE(ApplyConfigText("zk_root = /a\nhbase.x = 1\nhbase.y = 2\n", "a.conf", before).ok());
  DaemonOptions after = before;
  EXPECT_TRUE(ChangedSettings(before, after).empty());
  ASSERT_TRUE(ApplyConfigText("zk_root = /b\nresync_interval_s = 7\nlog_level = debug\n"
                              "hbase.y = 3\nhbase.z = 4\n",
                              "b.conf", after)
                  .ok());
  EXPECT_EQ(ChangedSettings(before, after),
            (std::vector<std::string>{"zk_root", "resync_interval_s", "log_level", "hbase.y",
                                      "hbase.z"}));
}

// A changed setting SIGHUP cannot apply is at least named (logged as needing a restart), never
// ignored in silence: these four once were.
TEST(DaemonOptionsTest, ChangedSettingsNamesAuthAndLoadSettings) {
  DaemonOptions before;
  DaemonOptions after = before;
  ASSERT_TRUE(ApplyConfigText("zk_auth_file = /etc/presplit/zk-auth.conf\n"
                              "load_watch_interval_s = 10\nload_split_max_per_window = 9\n"
                              "load_split_window_s = 60\n",
                              "c.conf", after)
                  .ok());
  EXPECT_EQ(ChangedSettings(before, after),
            (std::vector<std::string>{"zk_auth_file", "load_watch_interval_s",
                                      "load_split_max_per_window", "load_split_window_s"}));
}

TEST(DaemonOptionsTest, KerberosPrincipalAndKeytab) {
  DaemonOptions o;
  EXPECT_EQ(o.kerberos_principal, "");
  EXPECT_EQ(o.kerberos_keytab, "");
  EXPECT_TRUE(CheckOptions(o).ok()) << "no Kerberos by default";
  Status s = ApplyConfigText(
      "kerberos_principal = presplit/_HOST@EXAMPLE.COM\n"
      "kerberos_keytab = /etc/presplit/presplit.keytab\n",
      "k.conf", o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(o.kerberos_principal, "presplit/_HOST@EXAMPLE.COM");
  EXPECT_EQ(o.kerberos_keytab, "/etc/presplit/presplit.keytab");
  EXPECT_TRUE(CheckOptions(o).ok());
  // A principal without a realm takes krb5.conf's default_realm, as Hadoop's logins do.
  EXPECT_TRUE(ApplyOption("kerberos_principal", "presplit", o).ok());
  EXPECT_TRUE(ApplyOption("kerberos_principal", "presplit/host.example.com", o).ok());
  for (const char* bad :
       {"presplit@", "@EXAMPLE.COM", "/host@R", "presplit/@R", "a/b/c@R", "a@b@c", "pre split@R"}) {
    s = ApplyOption("kerberos_principal", bad, o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("kerberos_principal"), std::string::npos) << s.message();
  }
  EXPECT_EQ(o.kerberos_principal, "presplit/host.example.com") << "a refused value changes nothing";
  s = ApplyConfigText("kerberos_keytab = presplit.keytab\n", "k.conf", o);
  EXPECT_NE(s.message().find("k.conf:1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("absolute path"), std::string::npos) << s.message();
}

TEST(DaemonOptionsTest, KerberosSettingsGoTogether) {
  DaemonOptions o;
  ASSERT_TRUE(ApplyOption("kerberos_principal", "presplit@EXAMPLE.COM", o).ok());
  Status s = CheckOptions(o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("without kerberos_keytab"), std::string::npos) << s.message();
  DaemonOptions keytab_only;
  ASSERT_TRUE(ApplyOption("kerberos_keytab", "/k.keytab", keytab_only).ok());
  s = CheckOptions(keytab_only);
  EXPECT_NE(s.message().find("without kerberos_principal"), std::string::npos) << s.message();

  ASSERT_TRUE(ApplyOption("kerberos_keytab", "/k.keytab", o).ok());
  EXPECT_TRUE(CheckOptions(o).ok());
  ASSERT_TRUE(ApplyOption("hbase.security.authentication", "kerberos", o).ok());
  EXPECT_TRUE(CheckOptions(o).ok());
  ASSERT_TRUE(ApplyOption("hbase.security.authentication", "simple", o).ok());
  s = CheckOptions(o);
  EXPECT_NE(s.message().find("hbase.security.authentication is 'simple'"), std::string::npos)
      << s.message();
}

TEST(DaemonOptionsTest, KerberosJvmOptionsFollowKrb5Config) {
  DaemonOptions o;
  EXPECT_TRUE(KerberosJvmOptions(o, "/tmp/krb5.conf").empty()) << "no principal, no option";
  o.kerberos_principal = "presplit@EXAMPLE.COM";
  o.kerberos_keytab = "/k.keytab";
  EXPECT_TRUE(KerberosJvmOptions(o, "").empty()) << "no KRB5_CONFIG: Java's own default";
  EXPECT_EQ(KerberosJvmOptions(o, "/tmp/krb5.conf"),
            (std::vector<std::string>{"-Djava.security.krb5.conf=/tmp/krb5.conf"}));
  o.jvm_options = {"-Xss1m", "-Djava.security.krb5.conf=/etc/krb5.conf"};
  EXPECT_TRUE(KerberosJvmOptions(o, "/tmp/krb5.conf").empty()) << "jvm_options win";
}

TEST(DaemonOptionsTest, ChangedKerberosSettingsNeedARestart) {
  DaemonOptions before;
  DaemonOptions after = before;
  ASSERT_TRUE(ApplyConfigText("kerberos_principal = presplit@EXAMPLE.COM\n"
                              "kerberos_keytab = /etc/presplit/presplit.keytab\n",
                              "k.conf", after)
                  .ok());
  EXPECT_EQ(ChangedSettings(before, after),
            (std::vector<std::string>{"kerberos_principal", "kerberos_keytab"}));
}

}  // namespace
}  // namespace presplit::daemon

namespace presplit::daemon {
namespace {

// The settings table (settings.def) drives the parser, the reload's list and --help: every
// setting takes its own default as written, refuses a value out of its range or choices, is
// named by ChangedSettings when it differs, and shows in --help with its default.
TEST(SettingsTableTest, EverySettingTakesItsDefaultAndRefusesWhatItsRangeExcludes) {
  const auto& settings = Settings();
  ASSERT_GE(settings.size(), 38u);
  const DaemonOptions defaults;
  for (const auto& s : settings) {
    SCOPED_TRACE(s.name);
    DaemonOptions o;
    ASSERT_TRUE(ApplyOption(s.name, s.default_text, o).ok());
    EXPECT_TRUE(ChangedSettings(defaults, o).empty())
        << "the default, written out and read back, is not the default";
    const std::string range = s.range;
    const size_t to = range.find(" to ");
    if (to != std::string::npos) {
      const long long min = std::stoll(range.substr(0, to));
      const long long max = std::stoll(range.substr(to + 4));
      EXPECT_FALSE(ApplyOption(s.name, std::to_string(min - 1), o).ok());
      EXPECT_FALSE(ApplyOption(s.name, std::to_string(max + 1), o).ok());
      ASSERT_TRUE(
          ApplyOption(s.name, std::to_string(min == std::stoll(s.default_text) ? max : min), o)
              .ok());
      auto changed = ChangedSettings(defaults, o);
      ASSERT_EQ(changed.size(), 1u);
      EXPECT_EQ(changed[0], s.name);
    } else if (!range.empty()) {  // a choice
      Status refused = ApplyOption(s.name, "no-such-choice", o);
      EXPECT_FALSE(refused.ok());
      EXPECT_NE(refused.message().find(s.name), std::string::npos) << refused.message();
    }
    EXPECT_EQ(IsLiveSetting(s.name), s.live);
    EXPECT_NE(SettingsUsage().find(std::string("  ") + s.name + " = "), std::string::npos);
  }
  EXPECT_TRUE(IsLiveSetting("log_level"));
  EXPECT_TRUE(IsLiveSetting("resync_interval_s"));
  EXPECT_FALSE(IsLiveSetting("zk_quorum"));
  EXPECT_FALSE(IsLiveSetting("hbase.client.retries.number"));
  DaemonOptions o;
  EXPECT_FALSE(ApplyOption("no_such_setting", "1", o).ok());
}

TEST(SettingsTableTest, DefaultsAreWrittenAsTheConfigFileWritesThem) {
  auto find = [](const char* name) {
    for (const auto& s : Settings()) {
      if (std::string(s.name) == name) return s;
    }
    ADD_FAILURE() << name << " is not in the table";
    return Settings().front();
  };
  EXPECT_EQ(find("migration_mapreduce_threshold_bytes").default_text, "10G");
  EXPECT_EQ(find("zk_session_timeout_ms").range, "2000 to 600000");
  EXPECT_EQ(find("migration_throttle").range, "adaptive|off");
  EXPECT_EQ(find("jvm_options").default_text, "");
  EXPECT_EQ(find("zk_root").default_text, "/presplit");
}

}  // namespace
}  // namespace presplit::daemon
