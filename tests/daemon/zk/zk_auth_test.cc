// The credentials file parser and the ACLs built from it (daemon/zk/zk_auth.h).
#include "daemon/zk/zk_auth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "daemon/zk/zk_client.h"
#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

// base64(sha1(...)) as ZooKeeper's DigestAuthenticationProvider.generateDigest prints it.
constexpr const char* kSuperAdminDigest = "xQJmxLMiHGwaqBvst5y6rkB6HQs=";
constexpr const char* kPortalId = "portal:16ciC4sAPjH/zeFdaN3ZY7WdiuQ=";  // portal:portal-secret
constexpr const char* kDaemonId = "daemon:ij6ZJUCqoxs8PpCJSem+Yyn9jm0=";  // daemon:daemon-secret

constexpr const char* kDaemonFile = R"(# presplitd's credentials
scheme = digest
identity = daemon:daemon-secret
portal = portal:16ciC4sAPjH/zeFdaN3ZY7WdiuQ=
daemon = daemon
)";

TEST(ZkDigestTest, MatchesZooKeepersDigest) {
  EXPECT_EQ(ZkDigest("super", "admin"), kSuperAdminDigest);
  EXPECT_EQ(*ZkDigestId("portal:portal-secret"), kPortalId);
  // Only the first colon separates: a password may contain colons.
  EXPECT_EQ(*ZkDigestId("u:a:b"), "u:" + ZkDigest("u", "a:b"));
  EXPECT_FALSE(ZkDigestId("no-colon").ok());
  EXPECT_FALSE(ZkDigestId(":password").ok());
}

TEST(ZkAuthConfigTest, OwnUserNameIsHashedFromTheIdentity) {
  auto config = ParseZkAuthConfig(kDaemonFile);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->identity.scheme, "digest");
  EXPECT_EQ(config->identity.user, "daemon");
  EXPECT_EQ(config->identity.secret, "daemon:daemon-secret");
  EXPECT_EQ(config->daemon, kDaemonId);
  EXPECT_EQ(config->portal, kPortalId);
  EXPECT_TRUE(config->readers.empty());  // world by default
}

TEST(ZkAuthConfigTest, ReadersList) {
  auto config = ParseZkAuthConfig(std::string(kDaemonFile) +
                                  "readers = daemon, writer:xQJmxLMiHGwaqBvst5y6rkB6HQs=\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_EQ(config->readers.size(), 2u);
  EXPECT_EQ(config->readers[0], kDaemonId);
  EXPECT_EQ(config->readers[1], "writer:xQJmxLMiHGwaqBvst5y6rkB6HQs=");
}

TEST(ZkAuthConfigTest, RefusalsNeverEchoAPassword) {
  const std::string identity = "identity = daemon:daemon-secret\n";
  struct Case {
    std::string text;
    std::string expected;  // in the error
  } cases[] = {
      {"identity = daemon:daemon-secret\nportal = portal\ndaemon = daemon\n",
       "portal: user 'portal'"},
      {identity + "portal = portal:portal-secret\ndaemon = daemon\n", "not a digest"},
      {identity + "daemon = daemon\n", "missing portal"},
      {"portal = x:xQJmxLMiHGwaqBvst5y6rkB6HQs=\ndaemon = x:xQJmxLMiHGwaqBvst5y6rkB6HQs=\n",
       "missing identity"},
      {"identity = daemon-secret\nportal = a\ndaemon = a\n", "identity: expected user:password"},
      {"scheme = sasl\n" + identity + "portal = daemon\ndaemon = daemon\n", "without SASL"},
      {identity + "password = daemon-secret\n", "unknown key 'password'"},
      {identity + identity, "identity given twice"},
      {identity + "daemon-secret\n", "line 2: expected key = value"},
      {identity + "portal = daemon\ndaemon = daemon\nreaders = ,\n", "readers"},
  };
  for (const auto& c : cases) {
    auto config = ParseZkAuthConfig(c.text);
    ASSERT_FALSE(config.ok()) << c.text;
    EXPECT_NE(config.status().message().find(c.expected), std::string::npos)
        << config.status().message();
    EXPECT_EQ(config.status().message().find("secret"), std::string::npos)
        << config.status().message();
  }
}

TEST(ZkAclsTest, DocumentsWritableByThePortalStatusesByTheDaemon) {
  auto config = ParseZkAuthConfig(kDaemonFile);
  ASSERT_TRUE(config.ok());
  ZkAcls acls = BuildZkAcls(*config);
  EXPECT_FALSE(acls.open);
  const ZkAcl portal_owned = {{kZkPermAll, "digest", kPortalId},
                              {kZkPermRead, "digest", kDaemonId},
                              {kZkPermRead, "world", "anyone"}};
  const ZkAcl daemon_owned = {{kZkPermAll, "digest", kDaemonId},
                              {kZkPermRead, "digest", kPortalId},
                              {kZkPermRead, "world", "anyone"}};
  EXPECT_EQ(acls.tables, portal_owned);
  EXPECT_EQ(acls.document, portal_owned);
  // The portal may create <root>/tables under a root it finds missing, but not delete anything.
  const ZkAcl root = {{kZkPermAll, "digest", kDaemonId},
                      {kZkPermRead | kZkPermCreate, "digest", kPortalId},
                      {kZkPermRead, "world", "anyone"}};
  EXPECT_EQ(acls.root, root);
  EXPECT_EQ(acls.status_dir, daemon_owned);
  EXPECT_EQ(acls.status, daemon_owned);
  // A plan is the daemon's alone; the portal asks through a request node of its own.
  EXPECT_EQ(acls.migration_plan, daemon_owned);
  EXPECT_FALSE(WritableByAnyone(acls.migration_plan));
  const ZkAcl requests = {{kZkPermAll, "digest", kDaemonId},
                          {kZkPermRead | kZkPermCreate | kZkPermDelete, "digest", kPortalId},
                          {kZkPermRead, "world", "anyone"}};
  EXPECT_EQ(acls.migration_requests, requests);
  const ZkAcl request = {{kZkPermAll, "digest", kDaemonId},
                         {kZkPermRead | kZkPermWrite, "digest", kPortalId},
                         {kZkPermRead, "world", "anyone"}};
  EXPECT_EQ(acls.migration_request, request);
  EXPECT_FALSE(WritableByAnyone(acls.migration_requests));
  EXPECT_FALSE(WritableByAnyone(acls.document));
  EXPECT_EQ(FormatAcl(acls.status), std::string("digest:") + kDaemonId +
                                        ":cdrwa,digest:" + kPortalId + ":r,world:anyone:r");
}

TEST(ZkAclsTest, NamedReadersReplaceWorldAndOneIdentityMayPlayBothRoles) {
  auto config = ParseZkAuthConfig(
      "identity = ops:pw\nportal = ops\ndaemon = ops\nreaders = "
      "writer:xQJmxLMiHGwaqBvst5y6rkB6HQs=\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ZkAcls acls = BuildZkAcls(*config);
  const std::string ops = "ops:" + ZkDigest("ops", "pw");
  const ZkAcl expected = {{kZkPermAll, "digest", ops},
                          {kZkPermRead, "digest", "writer:xQJmxLMiHGwaqBvst5y6rkB6HQs="}};
  EXPECT_EQ(acls.document, expected);
  EXPECT_EQ(acls.status, expected);
}

TEST(ZkAclsTest, OpenAclsLetAnyoneWrite) {
  ZkAcls acls = OpenAcls();
  EXPECT_TRUE(acls.open);
  EXPECT_TRUE(WritableByAnyone(acls.document));
  EXPECT_EQ(FormatAcl(acls.status), "world:anyone:cdrwa");
}

TEST(ZkAccessTest, WithoutAFileEverythingStaysOpen) {
  auto access = LoadZkAccess("", "/presplit");
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  EXPECT_TRUE(access->acls.open);
  EXPECT_EQ(access->acls.document, OpenAcl());
  EXPECT_EQ(access->credentials.user, "");
}

class ZkAuthFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/presplit-zk-auth-XXXXXX";
    int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << kDaemonFile;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

TEST_F(ZkAuthFileTest, OwnerOnlyFileLoadsWithoutWarning) {
  ASSERT_EQ(chmod(path_.c_str(), 0600), 0);
  auto loaded = LoadZkAuthFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->warning, "");
  EXPECT_EQ(loaded->config.portal, kPortalId);
}

TEST_F(ZkAuthFileTest, GroupOrWorldReadableFileWarns) {
  ASSERT_EQ(chmod(path_.c_str(), 0644), 0);
  auto loaded = LoadZkAuthFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_NE(loaded->warning.find("mode 0644"), std::string::npos) << loaded->warning;
  EXPECT_NE(loaded->warning.find("chmod 600"), std::string::npos) << loaded->warning;
}

TEST_F(ZkAuthFileTest, AccessFromAFileAuthenticatesAndProtects) {
  ASSERT_EQ(chmod(path_.c_str(), 0600), 0);
  auto access = LoadZkAccess(path_, "/presplit");
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  EXPECT_EQ(access->credentials.user, "daemon");
  EXPECT_EQ(access->credentials.secret, "daemon:daemon-secret");
  EXPECT_FALSE(access->acls.open);
  EXPECT_FALSE(WritableByAnyone(access->acls.status));
}

TEST_F(ZkAuthFileTest, BadFileFailsAndNamesItWithoutThePassword) {
  std::ofstream(path_) << "identity = daemon:daemon-secret\nportal = portal:portal-secret\n"
                          "daemon = daemon\n";
  auto access = LoadZkAccess(path_, "/presplit");
  ASSERT_FALSE(access.ok());
  EXPECT_NE(access.status().message().find(path_), std::string::npos) << access.status().ToString();
  EXPECT_EQ(access.status().message().find("secret"), std::string::npos)
      << access.status().ToString();
}

TEST_F(ZkAuthFileTest, MissingFileIsAnError) {
  auto loaded = LoadZkAuthFile(path_ + ".missing");
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
}

TEST(OpenAclWarningsTest, ExistingOpenNodesAreReportedNotChanged) {
  testing::FakeZk zk;
  ASSERT_TRUE(zk.EnsurePath("/presplit/tables").ok());  // open, as before access control
  auto config = ParseZkAuthConfig(kDaemonFile);
  ASSERT_TRUE(config.ok());
  ZkAcls acls = BuildZkAcls(*config);
  ASSERT_TRUE(zk.EnsurePath("/presplit/status", acls.status_dir).ok());

  auto warnings = OpenAclWarnings(zk, "/presplit", acls);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("/presplit already exists"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("setAcl -R /presplit/tables " + FormatAcl(acls.tables)),
            std::string::npos)
      << warnings[1];
  EXPECT_EQ(*zk.GetAcl("/presplit/tables"), OpenAcl());
  EXPECT_TRUE(OpenAclWarnings(zk, "/presplit", OpenAcls()).empty());
}

}  // namespace
}  // namespace presplit::daemon
