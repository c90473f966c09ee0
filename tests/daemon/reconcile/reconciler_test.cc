#include "daemon/reconcile/reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/daemon/fakes.h"

namespace presplit::daemon {
namespace {

using testing::FakeAdmin;
using testing::FakeZk;

constexpr const char* kCheckDoc = R"({
  "version": 1,
  "table": "tinawang:check",
  "layout": {"salt": {"buckets": 10, "encoding": "decimal", "hash": "java-hashcode"},
             "group": {"length": 32}},
  "split": {"algorithm": "salt-buckets"},
  "families": [{"name": "f", "compression": "SNAPPY", "data_block_encoding": "FAST_DIFF",
                "bloom_filter": "ROW"}]
})";

class ReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(reconciler_.Prepare().ok()); }

  void PutDoc(const std::string& name, const std::string& doc) {
    Status s = zk_.Upsert("/presplit/tables/" + name, doc);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  nlohmann::json StatusOf(const std::string& name) {
    auto node = zk_.Get("/presplit/status/" + name, false);
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? nlohmann::json::parse(node->data) : nlohmann::json();
  }

  FakeZk zk_;
  FakeAdmin admin_;
  Reconciler reconciler_{zk_, admin_, ReconcilerOptions{"/presplit", "test:1"}};
};

TEST_F(ReconcilerTest, CreatesTablePreSplitAndReportsReady) {
  PutDoc("tinawang:check", kCheckDoc);
  std::string phase_during_create;
  admin_.on_create = [&] { phase_during_create = StatusOf("tinawang:check")["phase"]; };
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ASSERT_EQ(admin_.creates, 1);
  const auto& table = admin_.tables.at("tinawang:check");
  std::vector<std::string> expected = {"1", "2", "3", "4", "5", "6", "7", "8", "9"};
  EXPECT_EQ(table.split_keys, expected);
  ASSERT_EQ(table.families.size(), 1u);
  EXPECT_EQ(table.families[0].compression, "SNAPPY");
  EXPECT_EQ(table.families[0].data_block_encoding, "FAST_DIFF");
  EXPECT_EQ(phase_during_create, "creating");
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "ready");
  EXPECT_EQ(status["regions"], 10);
  EXPECT_EQ(status["buckets"], 10);
  // The layout the table was built with, in the document's form with every default resolved:
  // what the SDK salts with.
  EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
  EXPECT_EQ(status["layout"]["salt"]["width"], 1);
  EXPECT_EQ(status["layout"]["salt"]["hash"], "java-hashcode");
  EXPECT_EQ(status["layout"]["group"]["length"], 32);
  EXPECT_TRUE(status["error"].is_null());
  // Watches are armed on the children and on the document.
  EXPECT_TRUE(zk_.child_watches.count("/presplit/tables"));
  EXPECT_TRUE(zk_.data_watches.count("/presplit/tables/tinawang:check"));
}

TEST_F(ReconcilerTest, SplitPolicyBecomesTableAttributesAndIsComparedLater) {
  std::string doc = kCheckDoc;
  doc.replace(doc.rfind('}'), 1, R"(, "split_policy": {"size_policy": "increasing-to-upper-bound",
      "max_file_size": 2147483648, "max_imbalance": 0.2}})");
  PutDoc("tinawang:check", doc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const auto& attributes = admin_.tables.at("tinawang:check").attributes;
  EXPECT_EQ(attributes.at("SPLIT_POLICY"), "io.presplit.hbase.NativeSplitPolicy");
  EXPECT_EQ(attributes.at("presplit.split.size-policy"), "increasing-to-upper-bound");
  EXPECT_EQ(attributes.at("MAX_FILESIZE"), "2147483648");
  EXPECT_EQ(attributes.at("presplit.load.max-imbalance"), "0.2");
  EXPECT_EQ(attributes.at("presplit.layout.salt.buckets"), "10");
  EXPECT_EQ(attributes.at("presplit.layout.group.length"), "32");
  EXPECT_EQ(attributes.at("presplit.managed"), "true");
  EXPECT_NE(attributes.at("coprocessor$1").find("LoadSamplingObserver"), std::string::npos);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");

  // Someone switches the policy off by hand: reported, not reverted.
  admin_.tables.at("tinawang:check").attributes.erase("SPLIT_POLICY");
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "drift");
  EXPECT_NE(status["differences"][0].get<std::string>().find("SPLIT_POLICY"), std::string::npos);
}

TEST_F(ReconcilerTest, RepeatedPassesAndRestartsChangeNothing) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const int writes_after_first = zk_.writes;
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(zk_.writes, writes_after_first);
  EXPECT_EQ(admin_.creates, 1);

  // The same document written again (a new revision) is compared, not re-created; the status
  // only records which revision it describes.
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(StatusOf("tinawang:check")["config_version"], 1);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  const int writes_after_put = zk_.writes;

  // A restarted daemon (fresh reconciler) neither creates nor rewrites anything.
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(zk_.writes, writes_after_put);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, MalformedDocumentIsReportedAndOthersStillServed) {
  PutDoc("default:broken", "{ not json");
  PutDoc("default:badcodec", R"({"version":1,"table":"badcodec","split":{"algorithm":"uniform",
      "regions":4},"families":[{"name":"f","compression":"SNAPPYX"}]})");
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("default:broken")["phase"], "invalid");
  auto bad = StatusOf("default:badcodec");
  EXPECT_EQ(bad["phase"], "invalid");
  EXPECT_NE(bad["error"].get<std::string>().find("families[0].compression"), std::string::npos)
      << bad.dump();
  EXPECT_NE(bad["error"].get<std::string>().find("SNAPPYX"), std::string::npos);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
  // Invalid documents are not retried until they change.
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(reconciler_.counters().documents_invalid, 2u);
}

TEST_F(ReconcilerTest, DocumentStoredUnderAnotherNameIsRefused) {
  PutDoc("default:other", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto status = StatusOf("default:other");
  EXPECT_EQ(status["phase"], "invalid");
  EXPECT_NE(status["error"].get<std::string>().find("tinawang:check"), std::string::npos);
  EXPECT_EQ(admin_.creates, 0);
}

TEST_F(ReconcilerTest, HBaseRefusalIsReportedAndNotRetriedUntilTheDocumentChanges) {
  admin_.create_error = Status::FailedPrecondition(
      "create tinawang:check: org.apache.hadoop.hbase.DoNotRetryIOException: Compression "
      "algorithm 'lzo' previously failed test.");
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "error");
  EXPECT_NE(status["error"].get<std::string>().find("lzo"), std::string::npos);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 1) << "a non-retriable error must not be retried every pass";

  admin_.create_error = Status::Ok();
  PutDoc("tinawang:check", kCheckDoc);  // the portal fixes and rewrites the document
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, UnavailableHBaseIsRetriedOnTheNextPass) {
  admin_.next_error = Status::Unavailable("connection refused");
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "error");
  admin_.next_error = Status::Ok();
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
}

TEST_F(ReconcilerTest, ExistingTableThatDiffersIsReportedNeverChanged) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto& table = admin_.tables.at("tinawang:check");
  table.families[0].compression = "NONE";
  table.split_keys.erase(table.split_keys.begin() + 3);  // as if two regions were merged
  table.regions.pop_back();

  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "drift");
  ASSERT_EQ(status["differences"].size(), 2u) << status.dump();
  EXPECT_NE(status["differences"][0].get<std::string>().find("compression is NONE"),
            std::string::npos);
  EXPECT_NE(status["differences"][1].get<std::string>().find("'4'"), std::string::npos);
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(admin_.tables.at("tinawang:check").families[0].compression, "NONE");
}

TEST_F(ReconcilerTest, DocumentEditedForAReSaltKeepsTheTablesLayoutInTheStatus) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  nlohmann::json doc = nlohmann::json::parse(kCheckDoc);
  doc["layout"]["salt"]["buckets"] = 20;
  PutDoc("tinawang:check", doc.dump());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  for (int pass = 0; pass < 2; pass++) {
    auto status = StatusOf("tinawang:check");
    EXPECT_EQ(status["phase"], "drift") << status.dump();
    // Writers must go on salting into 10 buckets: the physical table has 10.
    EXPECT_EQ(status["buckets"], 10) << status.dump();
    EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
    bool layout_reported = false;
    for (const auto& d : status["differences"]) {
      layout_reported |= d.get<std::string>().rfind("layout: the table was built with", 0) == 0;
    }
    EXPECT_TRUE(layout_reported) << status.dump();
    EXPECT_EQ(admin_.creates, 1);
    EXPECT_EQ(admin_.tables.at("tinawang:check").split_keys.size(), 9u);
    // A restarted daemon reads the recorded layout back and reports the same.
    Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
    ASSERT_TRUE(restarted.ReconcileAll().ok());
  }
  // Back to the document the table was built with: ready again.
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  // A status whose fields have the wrong types is no record: the document is taken as
  // describing the table (as for a table found without a status).
  ASSERT_TRUE(zk_.Upsert("/presplit/status/tinawang:check",
                         R"({"physical_table": null, "layout": {"salt": 3}})")
                  .ok());
  PutDoc("tinawang:check", doc.dump());  // a new version of the document: a new pass
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["buckets"], 20);
}

TEST_F(ReconcilerTest, ExtraSplitsByHBaseAreNotDrift) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto& table = admin_.tables.at("tinawang:check");
  table.split_keys.insert(table.split_keys.begin() + 1, "1zzz");  // HBase split region 1
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, RemovedDocumentDropsStatusButNotTheTable) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_FALSE(zk_.Get("/presplit/status/tinawang:check", false).ok());
  EXPECT_TRUE(admin_.tables.count("tinawang:check"));
}

TEST_F(ReconcilerTest, ZooKeeperOutageFailsThePassAndTheNextOneRecovers) {
  PutDoc("tinawang:check", kCheckDoc);
  zk_.available = false;
  EXPECT_EQ(reconciler_.ReconcileAll().code(), StatusCode::kUnavailable);
  zk_.available = true;
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST(ReconcilerAclTest, CreatesItsZnodesWithTheAclsOfAccessControl) {
  auto config = ParseZkAuthConfig(
      "identity = daemon:daemon-secret\nportal = portal:16ciC4sAPjH/zeFdaN3ZY7WdiuQ=\n"
      "daemon = daemon\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ZkAcls acls = BuildZkAcls(*config);
  FakeZk zk;
  FakeAdmin admin;
  ReconcilerOptions options{"/presplit", "test:1"};
  options.acls = acls;
  Reconciler reconciler(zk, admin, options);
  ASSERT_TRUE(reconciler.Prepare().ok());
  EXPECT_EQ(*zk.GetAcl("/presplit"), acls.root);
  EXPECT_EQ(*zk.GetAcl("/presplit/tables"), acls.tables);
  EXPECT_EQ(*zk.GetAcl("/presplit/status"), acls.status_dir);
  ASSERT_TRUE(zk.Upsert("/presplit/tables/tinawang:check", kCheckDoc, acls.document).ok());
  ASSERT_TRUE(reconciler.ReconcileAll().ok());
  EXPECT_EQ(*zk.GetAcl("/presplit/status/tinawang:check"), acls.status);
}

}  // namespace
}  // namespace presplit::daemon
