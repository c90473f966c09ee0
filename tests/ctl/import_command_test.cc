#include "ctl/import_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "daemon/hbase/jdk_options.h"

namespace presplit::ctl {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test for config files, jars and fake `java` executables.
class ImportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "presplitctl-import-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (fs::path(dir_) / name).string();
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  std::string WriteExecutable(const std::string& name) {
    const std::string path = Write(name, "#!/bin/sh\n");
    chmod(path.c_str(), 0755);
    return path;
  }

  // The request of `presplitctl --zk zk1:2181 --root /p import WORDS...`.
  static Result<ImportRequest> Parse(const std::vector<std::string>& words) {
    ImportRequest request;
    request.zk_quorum = "zk1:2181";
    request.zk_root = "/p";
    Status s = ParseImportArguments(words, request);
    if (!s.ok()) return s;
    return request;
  }

  std::string dir_;
};

// java, -Xmx, HBase's JDK 17 flags, then the rest: what every command starts with.
std::vector<std::string> JavaPrefix(const std::string& java, const std::string& heap) {
  std::vector<std::string> argv = {java, "-Xmx" + heap};
  for (const auto& o : daemon::HBaseJdk17Options()) argv.push_back(o);
  return argv;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(ImportCommandTest, PassesSaltedImportOptionsOnInOrderAndTheFilesLast) {
  auto request =
      Parse({"tinawang:history", "a.tsv", "--columns", "HBASE_ROW_KEY,f:a", "--dry-run",
             "--separator=comma", "b.csv", "--conf", "k1=v1", "--conf", "k2=v2", "--skip-header"});
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(request->table, "tinawang:history");
  EXPECT_EQ(request->salted_import_arguments,
            (std::vector<std::string>{"--columns", "HBASE_ROW_KEY,f:a", "--dry-run", "--separator",
                                      "comma", "--conf", "k1=v1", "--conf", "k2=v2",
                                      "--skip-header", "a.tsv", "b.csv"}));
  EXPECT_EQ(request->config_file, "/etc/presplit/presplitd.conf");
  EXPECT_EQ(request->zk_quorum, "zk1:2181");
  EXPECT_FALSE(request->help);
}

TEST_F(ImportCommandTest, OwnAndGlobalOptionsAfterTheCommandAreNotPassedOn) {
  auto request =
      Parse({"--config", "/c/presplitd.conf", "t", "--zk=zk9:2181", "--root", "/q", "--auth-file",
             "/c/auth", "--max-heap", "2g", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a"});
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(request->config_file, "/c/presplitd.conf");
  EXPECT_EQ(request->zk_quorum, "zk9:2181");
  EXPECT_EQ(request->zk_root, "/q");
  EXPECT_EQ(request->zk_auth_file, "/c/auth");
  EXPECT_EQ(request->max_heap, "2g");
  EXPECT_EQ(request->salted_import_arguments,
            (std::vector<std::string>{"--columns", "HBASE_ROW_KEY,f:a", "x.tsv"}));
}

TEST_F(ImportCommandTest, HelpWinsOverEverythingElse) {
  auto request = Parse({"--bogus", "--help"});
  ASSERT_FALSE(request.ok());  // the bad option comes first
  request = Parse({"t", "--help"});
  ASSERT_TRUE(request.ok());
  EXPECT_TRUE(request->help);
  EXPECT_NE(ImportHelp().find("--columns M"), std::string::npos);
  EXPECT_NE(ImportHelp().find("--config FILE"), std::string::npos);
}

TEST_F(ImportCommandTest, RefusesIncompleteOrForeignArguments) {
  struct Case {
    std::vector<std::string> words;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{}, "import needs TABLE and FILE..."},
      {{"t", "--columns", "HBASE_ROW_KEY,f:a"}, "import needs at least one FILE after TABLE"},
      {{"t", "x.tsv"}, "import needs --columns, the column mapping (e.g. HBASE_ROW_KEY,f:a,f:b)"},
      {{"t", "x.tsv", "--columns"}, "--columns needs a value"},
      {{"--table", "t", "x.tsv"}, "--table does not apply to import (the table is the first word)"},
      {{"t", "x.tsv", "--physical-table", "p"}, "--physical-table does not apply to import"},
      {{"t", "x.tsv", "--dry-run=yes"}, "--dry-run takes no value"},
      {{"t", "x.tsv", "--max-heap", "lots"},
       "--max-heap: expected a byte count such as 10737418240 or 10G, got 'lots'"},
      {{"bad table", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a"}, "invalid table name 'bad table'"},
  };
  for (const auto& c : cases) {
    auto request = Parse(c.words);
    ASSERT_FALSE(request.ok()) << c.error;
    EXPECT_EQ(request.status().message().rfind(c.error, 0), 0u)
        << "got: " << request.status().message() << "\nwanted: " << c.error;
  }
}

TEST_F(ImportCommandTest, BuildsTheExactJavaCommand) {
  auto request = Parse({"history", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a", "--conf",
                        "hbase.client.retries.number=7", "--hadoop-conf-dir", "/mine"});
  ASSERT_TRUE(request.ok());
  request->zk_auth_file = "/c/auth";
  daemon::DaemonOptions options;
  options.jvm_max_heap = "768m";
  options.jvm_options = {"-Dx=1", "-Dy=2"};
  options.hadoop_conf_dir = "/etc/hadoop/conf";
  options.hbase_settings = {{"hbase.client.retries.number", "3"}, {"hbase.rpc.timeout", "9000"}};
  auto argv = BuildJavaCommand(*request, options,
                               {"/etc/hbase/conf", "/j/presplit.jar", "/l/a.jar"}, "/usr/bin/java");
  EXPECT_EQ(argv,
            Concat(JavaPrefix("/usr/bin/java", "768m"), {"-Dx=1",
                                                         "-Dy=2",
                                                         "-cp",
                                                         "/etc/hbase/conf:/j/presplit.jar:/l/a.jar",
                                                         "io.presplit.mapreduce.SaltedImport",
                                                         "--zk",
                                                         "zk1:2181",
                                                         "--root",
                                                         "/p",
                                                         "--auth-file",
                                                         "/c/auth",
                                                         "--table",
                                                         "default:history",
                                                         "--hadoop-conf-dir",
                                                         "/etc/hadoop/conf",
                                                         "--conf",
                                                         "hbase.client.retries.number=3",
                                                         "--conf",
                                                         "hbase.rpc.timeout=9000",
                                                         "--columns",
                                                         "HBASE_ROW_KEY,f:a",
                                                         "--conf",
                                                         "hbase.client.retries.number=7",
                                                         "--hadoop-conf-dir",
                                                         "/mine",
                                                         "x.tsv"}));

  // --max-heap replaces jvm_max_heap; no credentials, no hadoop_conf_dir: nothing for them.
  request->max_heap = "2g";
  request->zk_auth_file.clear();
  argv = BuildJavaCommand(*request, daemon::DaemonOptions{}, {"/j/presplit.jar"}, "java");
  EXPECT_EQ(argv, Concat(JavaPrefix("java", "2g"),
                         {"-cp", "/j/presplit.jar", "io.presplit.mapreduce.SaltedImport", "--zk",
                          "zk1:2181", "--root", "/p", "--table", "default:history", "--columns",
                          "HBASE_ROW_KEY,f:a", "--conf", "hbase.client.retries.number=7",
                          "--hadoop-conf-dir", "/mine", "x.tsv"}));
}

TEST_F(ImportCommandTest, LogsInAsPresplitdDoesWithItsKerberosKeys) {
  auto request = Parse({"history", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a"});
  ASSERT_TRUE(request.ok());
  daemon::DaemonOptions options;
  options.jvm_max_heap = "1g";
  options.kerberos_principal = "presplit/_HOST@EXAMPLE.COM";
  options.kerberos_keytab = "/etc/presplit/presplit.keytab";
  auto argv = BuildJavaCommand(*request, options, {"/j/presplit.jar"}, "java");
  EXPECT_EQ(argv, Concat(JavaPrefix("java", "1g"),
                         {"-Dpresplit.kerberos.principal=presplit/_HOST@EXAMPLE.COM",
                          "-Dpresplit.kerberos.keytab=/etc/presplit/presplit.keytab", "-cp",
                          "/j/presplit.jar", "io.presplit.mapreduce.SaltedImport", "--zk",
                          "zk1:2181", "--root", "/p", "--table", "default:history", "--columns",
                          "HBASE_ROW_KEY,f:a", "x.tsv"}));
}

TEST_F(ImportCommandTest, FindsJavaInJavaHomeElseOnPath) {
  const std::string home_java = WriteExecutable("jdk/bin/java");
  const std::string path_java = WriteExecutable("second/java");
  Write("first/java", "not executable");
  const std::string path = dir_ + "/missing:" + dir_ + "/first:" + dir_ + "/second";

  auto java = FindJava(dir_ + "/jdk", path);
  ASSERT_TRUE(java.ok());
  EXPECT_EQ(*java, home_java);
  java = FindJava("", path);
  ASSERT_TRUE(java.ok());
  EXPECT_EQ(*java, path_java);

  java = FindJava(dir_ + "/nojdk", path);  // a JAVA_HOME that is set is not second-guessed
  ASSERT_FALSE(java.ok());
  EXPECT_EQ(java.status().message(), "no Java runtime: JAVA_HOME is " + dir_ + "/nojdk but " +
                                         dir_ +
                                         "/nojdk/bin/java is not an executable; point JAVA_HOME "
                                         "at a JDK 17 or unset it to use the java on PATH");
  java = FindJava("", dir_ + "/first");
  ASSERT_FALSE(java.ok());
  EXPECT_EQ(java.status().message(),
            "no Java runtime: no java on PATH and JAVA_HOME is not set; install a JDK 17 "
            "(openjdk-17-jre-headless) or set JAVA_HOME");
}

TEST_F(ImportCommandTest, PreparesTheCommandFromTheConfigFile) {
  const std::string jar = Write("presplit-hbase.jar", "jar");
  const std::string classpath_file = Write("classpath", "/l/a.jar:/l/b.jar\n");
  const std::string java = WriteExecutable("jdk/bin/java");
  auto request = Parse({"ns:t", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a"});
  ASSERT_TRUE(request.ok());
  request->config_file =
      Write("presplitd.conf", "presplit_jar = " + jar + "\njvm_classpath_file = " + classpath_file +
                                  "\nhbase_conf_dir = /etc/hbase/conf\n"
                                  "jvm_max_heap = 1g\nhttp_listen = :1\n");
  auto argv = PrepareImportCommand(*request, dir_ + "/jdk", "");
  ASSERT_TRUE(argv.ok()) << argv.status().message();
  EXPECT_EQ(*argv, Concat(JavaPrefix(java, "1g"),
                          {"-cp", "/etc/hbase/conf:" + jar + ":/l/a.jar:/l/b.jar",
                           "io.presplit.mapreduce.SaltedImport", "--zk", "zk1:2181", "--root", "/p",
                           "--table", "ns:t", "--columns", "HBASE_ROW_KEY,f:a", "x.tsv"}));
}

TEST_F(ImportCommandTest, NamesTheMissingPieceAndHowToFixIt) {
  const std::string jar = Write("presplit-hbase.jar", "jar");
  WriteExecutable("jdk/bin/java");
  auto request = Parse({"ns:t", "x.tsv", "--columns", "HBASE_ROW_KEY,f:a"});
  ASSERT_TRUE(request.ok());
  auto expect_error = [&](const std::string& config_text, const std::string& java_home,
                          const std::string& error) {
    request->config_file = Write("presplitd.conf", config_text);
    auto argv = PrepareImportCommand(*request, java_home, "");
    ASSERT_FALSE(argv.ok()) << error;
    EXPECT_EQ(argv.status().message(), error);
  };
  const std::string jdk = dir_ + "/jdk";

  request->config_file = dir_ + "/none.conf";
  auto argv = PrepareImportCommand(*request, jdk, "");
  ASSERT_FALSE(argv.ok());
  EXPECT_EQ(argv.status().message(),
            "cannot read presplitd's config file " + dir_ +
                "/none.conf: it names presplit_jar and the HBase classpath; give --config FILE");

  const std::string conf = dir_ + "/presplitd.conf";
  expect_error("presplit_jar = " + dir_ + "/no.jar\njvm_classpath = /l/a.jar\n", jdk,
               "cannot read presplit_jar " + dir_ + "/no.jar: install presplit-hbase.jar there " +
                   "or set presplit_jar in " + conf);
  expect_error("presplit_jar = " + jar + "\njvm_classpath_file = " + dir_ + "/no-classpath\n", jdk,
               "cannot read jvm_classpath_file " + dir_ + "/no-classpath");
  expect_error("presplit_jar = " + jar + "\njvm_classpath = /l/a.jar\n", dir_ + "/nojdk",
               "no Java runtime: JAVA_HOME is " + dir_ + "/nojdk but " + dir_ +
                   "/nojdk/bin/java is not an executable; point JAVA_HOME at a JDK 17 or unset "
                   "it to use the java on PATH");
  expect_error("presplit_jar = " + jar + "\njvm_max_heap = lots\n", jdk,
               conf +
                   ":2: jvm_max_heap: expected a byte count such as 10737418240 or 10G, got "
                   "'lots'");
}

}  // namespace
}  // namespace presplit::ctl
