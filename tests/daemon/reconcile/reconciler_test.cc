#include "daemon/reconcile/reconciler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
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

  // As a table created before presplitd recorded layouts in the descriptor.
  void ForgetLayoutAttributes(const std::string& table) {
    std::erase_if(admin_.tables.at(table).attributes,
                  [](const auto& a) { return a.first.rfind("presplit.layout.", 0) == 0; });
  }
  bool HasLayoutDifference(const nlohmann::json& status) {
    for (const auto& d : status["differences"]) {
      if (d.get<std::string>().rfind("layout: the table was built with", 0) == 0) return true;
    }
    return false;
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

TEST_F(ReconcilerTest, TablesAreBornWithTheMigrationGuardWhichIsNeverDrift) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto& attributes = admin_.tables.at("tinawang:check").attributes;
  EXPECT_EQ(attributes.at("coprocessor$2"), "|io.presplit.capture.MigrationGuard|0|");
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");

  // A table created before tables carried it: no guard until its first re-salt attaches one.
  attributes.erase("coprocessor$2");
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(attributes.count("coprocessor$2"), 0u) << "nothing attaches it but a re-salt";
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

TEST_F(ReconcilerTest, CountsDocumentChangesSoTheLoadWatcherRereadsThem) {
  // The load watcher re-reads the documents when this counter moves: a new, an edited and a
  // removed document move it; passes that find nothing new (changed or full) do not.
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(reconciler_.counters().document_changes, 1u);
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kChanged).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_EQ(reconciler_.counters().document_changes, 1u);
  PutDoc("tinawang:check", kCheckDoc);  // a new revision
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kChanged).ok());
  EXPECT_EQ(reconciler_.counters().document_changes, 2u);
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kChanged).ok());
  EXPECT_EQ(reconciler_.counters().document_changes, 3u);
}

TEST_F(ReconcilerTest, RewritingAStatusKeepsTheLoadWatchersDecisions) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  // The load watcher adds its decisions to the status.
  auto status = StatusOf("tinawang:check");
  status["load"] = {{"decisions", {{{"time_ms", 5}, {"action", "split"}}}}};
  auto node = zk_.Get("/presplit/status/tinawang:check", false);
  ASSERT_TRUE(zk_.Set("/presplit/status/tinawang:check", status.dump(), node->version).ok());
  // The table drifts: the reconciler rewrites the status, the load member stays.
  admin_.tables.at("tinawang:check").families[0].compression = "NONE";
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "drift");
  EXPECT_EQ(status["load"]["decisions"][0]["action"], "split");
  // And a pass with nothing new writes nothing, the load member included.
  const int writes = zk_.writes;
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_EQ(zk_.writes, writes);
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
  EXPECT_NE(bad["error"].get<std::string>().find("/families/0/compression: "), std::string::npos)
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
  // For a table built before layouts were recorded in the descriptor, the status is the only
  // record; one whose fields have the wrong types is no record: the document is taken as
  // describing the table (as for a table found without a status).
  ForgetLayoutAttributes("tinawang:check");
  ASSERT_TRUE(zk_.Upsert("/presplit/status/tinawang:check",
                         R"({"physical_table": null, "layout": {"salt": 3}})")
                  .ok());
  PutDoc("tinawang:check", doc.dump());  // a new version of the document: a new pass
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["buckets"], 20);
}

TEST_F(ReconcilerTest, EverySaltedTableRecordsItsLayoutInItsDescriptor) {
  PutDoc("tinawang:check", kCheckDoc);  // no split_policy
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const auto& attributes = admin_.tables.at("tinawang:check").attributes;
  std::map<std::string, std::string> expected = {
      {"presplit.layout.recorded", "true"},
      {"presplit.layout.salt.buckets", "10"},
      {"presplit.layout.salt.encoding", "decimal"},
      {"presplit.layout.salt.width", "1"},
      {"presplit.layout.salt.hash", "java-hashcode"},
      {"presplit.layout.salt.from", "group"},
      {"presplit.layout.group.length", "32"},
      {"coprocessor$2", "|io.presplit.capture.MigrationGuard|0|"}};
  EXPECT_EQ(attributes, expected)
      << "no split policy: the layout record and the dormant guard, nothing else";
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, RemovedThenRewrittenDocumentCannotChangeTheLayout) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  // presplitctl rm: the status goes, the table stays...
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ASSERT_FALSE(zk_.Get("/presplit/status/tinawang:check", false).ok());
  // ...then put with another bucket count: nothing in ZooKeeper remembers the old layout, the
  // table's descriptor does.
  nlohmann::json doc = nlohmann::json::parse(kCheckDoc);
  doc["layout"]["salt"]["buckets"] = 20;
  PutDoc("tinawang:check", doc.dump());
  for (int daemon = 0; daemon < 2; daemon++) {
    Reconciler fresh(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
    ASSERT_TRUE((daemon == 0 ? reconciler_ : fresh).ReconcileAll().ok());
    auto status = StatusOf("tinawang:check");
    EXPECT_EQ(status["phase"], "drift") << status.dump();
    EXPECT_EQ(status["buckets"], 10) << status.dump();
    EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
    EXPECT_EQ(status["layout"]["group"]["length"], 32);
    EXPECT_TRUE(HasLayoutDifference(status)) << status.dump();
    // The layout is one difference, not one per attribute.
    for (const auto& d : status["differences"]) {
      EXPECT_EQ(d.get<std::string>().find("attribute presplit.layout"), std::string::npos) << d;
    }
  }
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(admin_.tables.at("tinawang:check").attributes.at("presplit.layout.salt.buckets"), "10");
}

TEST_F(ReconcilerTest, InvalidDocumentKeepsTheTablesLayoutInTheStatus) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const nlohmann::json built = StatusOf("tinawang:check")["layout"];
  const char* invalid[] = {
      R"({"version": 1, "table": "tinawang:check", )",    // truncated JSON
      R"({"version": 1, "table": "tinawang:other", "split": {"algorithm": "uniform",
          "regions": 2}, "families": [{"name": "f"}]})",  // another table's name
      R"({"version": 1, "table": "tinawang:check", "layout": {"salt": {"buckets": 20,
          "encoding": "decimal", "hash": "java-hashcode"}, "group": {"length": 32}},
          "split": {"algorithm": "salt-buckets"}, "families": [{"name": "f",
          "compression": "SNAPPYX"}]})",                  // a typo in an edit
  };
  for (const char* doc : invalid) {
    PutDoc("tinawang:check", doc);
    ASSERT_TRUE(reconciler_.ReconcileAll().ok());
    auto status = StatusOf("tinawang:check");
    EXPECT_EQ(status["phase"], "invalid") << doc;
    EXPECT_EQ(status["layout"], built) << doc << " -> " << status.dump();
    EXPECT_EQ(status["buckets"], 10) << doc;
    EXPECT_EQ(status["physical_table"], "tinawang:check");
  }
  // HBase unreachable as well: the last layout the status reported for this table.
  admin_.next_error = Status::Unavailable("connection refused");
  PutDoc("tinawang:check", "{ not json");
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "invalid");
  EXPECT_EQ(StatusOf("tinawang:check")["layout"], built);
  admin_.next_error = Status::Ok();
  // A table built before layouts were recorded in the descriptor: the status's record.
  ForgetLayoutAttributes("tinawang:check");
  PutDoc("tinawang:check", "{ still not json");
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["layout"], built);
  EXPECT_EQ(StatusOf("tinawang:check")["buckets"], 10);
  // An invalid document for a table that does not exist names no layout.
  PutDoc("default:ghost", "{ not json");
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_TRUE(StatusOf("default:ghost")["layout"].is_null());
  EXPECT_EQ(StatusOf("default:ghost")["buckets"], 0);
}

TEST_F(ReconcilerTest, HBaseErrorsKeepTheTablesLayoutInTheStatus) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const nlohmann::json built = StatusOf("tinawang:check")["layout"];
  // A daemon restarted while the HMaster is down, with the document edited meanwhile.
  nlohmann::json doc = nlohmann::json::parse(kCheckDoc);
  doc["layout"]["salt"]["buckets"] = 20;
  PutDoc("tinawang:check", doc.dump());
  admin_.next_error = Status::Unavailable("connection refused");
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  for (int pass = 0; pass < 2; pass++) {
    ASSERT_TRUE(restarted.ReconcileAll().ok());
    auto status = StatusOf("tinawang:check");
    EXPECT_EQ(status["phase"], "error");
    EXPECT_EQ(status["layout"], built) << status.dump();
    EXPECT_EQ(status["buckets"], 10);
  }
  admin_.next_error = Status::Ok();
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "drift");
  EXPECT_EQ(StatusOf("tinawang:check")["buckets"], 10);

  // A create HBase refuses leaves no table, so no layout.
  admin_.create_error = Status::FailedPrecondition("DoNotRetryIOException: no such codec");
  nlohmann::json other = nlohmann::json::parse(kCheckDoc);
  other["table"] = "tinawang:refused";
  PutDoc("tinawang:refused", other.dump());
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:refused")["phase"], "error");
  EXPECT_TRUE(StatusOf("tinawang:refused")["layout"].is_null());
  EXPECT_EQ(StatusOf("tinawang:refused")["buckets"], 0);
}

TEST_F(ReconcilerTest, TableBuiltBeforeLayoutsWereRecordedFallsBackToTheStatus) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ForgetLayoutAttributes("tinawang:check");
  // A missing record is no drift...
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready") << StatusOf("tinawang:check").dump();
  // ...and the status's record keeps writers on the table's layout, as before.
  nlohmann::json doc = nlohmann::json::parse(kCheckDoc);
  doc["layout"]["salt"]["buckets"] = 20;
  PutDoc("tinawang:check", doc.dump());
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "drift");
  EXPECT_EQ(status["buckets"], 10);
  EXPECT_TRUE(HasLayoutDifference(status)) << status.dump();
  EXPECT_EQ(admin_.tables.at("tinawang:check").attributes.count("presplit.layout.recorded"), 0u)
      << "an existing table is never altered";
}

TEST_F(ReconcilerTest, UnreadableLayoutAttributesAreDriftAndTheStatusRecordIsKept) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  admin_.tables.at("tinawang:check").attributes["presplit.layout.salt.buckets"] = "ten";
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "drift");
  ASSERT_EQ(status["differences"].size(), 1u) << status.dump();
  EXPECT_NE(status["differences"][0].get<std::string>().find("presplit.layout.salt.buckets"),
            std::string::npos);
  EXPECT_EQ(status["buckets"], 10);
}

TEST_F(ReconcilerTest, ARecordOfNoLayoutKeepsAnUnsaltedTableUnsalted) {
  const char* plain = R"({"version": 1, "table": "default:plain",
      "split": {"algorithm": "hex-string", "regions": 4}, "families": [{"name": "f"}]})";
  PutDoc("default:plain", plain);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(admin_.tables.at("default:plain").attributes.at("presplit.layout.recorded"), "true");
  ASSERT_TRUE(zk_.Delete("/presplit/tables/default:plain", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  // Rewritten as a salted table: writers must not start salting rows into an unsalted table.
  nlohmann::json doc = nlohmann::json::parse(plain);
  doc["layout"] = {{"salt", {{"buckets", 4}, {"from", "key"}}}};
  PutDoc("default:plain", doc.dump());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto status = StatusOf("default:plain");
  EXPECT_EQ(status["phase"], "drift");
  EXPECT_EQ(status["buckets"], 0) << status.dump();
  EXPECT_EQ(status["layout"], nlohmann::json::object());
  EXPECT_TRUE(HasLayoutDifference(status)) << status.dump();
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

// presplit_tables{phase} on /metrics: every phase named, a removed document no longer counted.
TEST_F(ReconcilerTest, CountsDocumentsByThePhaseTheirLastReconcileEndedIn) {
  EXPECT_TRUE(reconciler_.PhaseCounts().empty());  // no pass yet: nothing to say
  PutDoc("default:broken", "{ not json");
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto phases = reconciler_.PhaseCounts();
  EXPECT_EQ(phases, (std::map<std::string, uint64_t>{{"creating", 0},
                                                     {"drift", 0},
                                                     {"error", 0},
                                                     {"invalid", 1},
                                                     {"missing", 0},
                                                     {"ready", 1}}));
  ASSERT_TRUE(zk_.Delete("/presplit/tables/default:broken", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  phases = reconciler_.PhaseCounts();
  EXPECT_EQ(phases["invalid"], 0u);
  EXPECT_EQ(phases["ready"], 1u);
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

namespace presplit::daemon {
namespace {

bool IsPrintableAscii(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

TEST_F(ReconcilerTest, AnyBytesEndAsAnInvalidStatusWithAPrintableError) {
  std::string random(1 << 20, '\0');
  uint32_t x = 12345;
  for (auto& c : random) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  const std::vector<std::pair<std::string, std::string>> documents = {
      {"default:utf8", std::string("{\"version\": 1, \"table\": \"default:utf8\xff\xfe\"}")},
      {"default:binary", std::string("\x80\x00\x01\xc3(", 5)},
      {"default:random", random},
      {"default:nested", std::string(100000, '[')},
      {"default:nested_objects",
       [] {
         std::string s;
         for (int i = 0; i < 50000; ++i) s += "{\"a\":";
         return s;
       }()},
  };
  for (const auto& [name, doc] : documents) PutDoc(name, doc);
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  for (const auto& [name, doc] : documents) {
    auto status = StatusOf(name);
    EXPECT_EQ(status["phase"], "invalid") << name;
    ASSERT_TRUE(status["error"].is_string()) << name;
    EXPECT_TRUE(IsPrintableAscii(status["error"].get<std::string>())) << status["error"];
  }
  EXPECT_EQ(StatusOf("default:utf8")["error"].get<std::string>().find("\\xFF") != std::string::npos,
            true)
      << StatusOf("default:utf8")["error"];
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  EXPECT_EQ(reconciler_.counters().documents_invalid, documents.size());
}

TEST_F(ReconcilerTest, AnExceptionWhileHandlingOneDocumentIsCaughtCountedAndReported) {
  PutDoc("tinawang:check", kCheckDoc);
  PutDoc("default:other", R"({"version":1,"table":"default:other","split":{"algorithm":
      "uniform","regions":2},"families":[{"name":"f"}]})");
  admin_.on_create = [&] {
    if (admin_.creates == 1) throw std::runtime_error("bug in a bridge \xff");
  };
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(reconciler_.counters().exceptions_caught, 1u);
  int errors = 0, ready = 0;
  for (const char* name : {"tinawang:check", "default:other"}) {
    auto status = StatusOf(name);
    if (status["phase"] == "error") {
      errors++;
      EXPECT_NE(status["error"].get<std::string>().find("bug in a bridge \\xFF"), std::string::npos)
          << status;
    }
    if (status["phase"] == "ready") ready++;
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(ready, 1);
}

TEST_F(ReconcilerTest, ChangedPassSkipsHandledDocumentsFullPassRechecksThem) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const int describes = admin_.describes;
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kChanged).ok());
  EXPECT_EQ(admin_.describes, describes);
  // Altered behind the daemon's back: only a full pass can notice.
  admin_.tables.at("tinawang:check").families[0].compression = "NONE";
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kChanged).ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_GT(admin_.describes, describes);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "drift");
  EXPECT_EQ(reconciler_.counters().full_passes, 2u);  // the first pass is always full
}

TEST_F(ReconcilerTest, TableDroppedBehindTheDaemonsBackIsReportedMissingNotRecreated) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  admin_.tables.clear();
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  auto status = StatusOf("tinawang:check");
  EXPECT_EQ(status["phase"], "missing");
  EXPECT_NE(status["error"].get<std::string>().find("dropped outside presplit"), std::string::npos);
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(reconciler_.counters().tables_missing, 1u);
  // A restarted daemon reads the same from the status.
  Reconciler restarted(zk_, admin_, ReconcilerOptions{"/presplit", "test:2"});
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "missing");
  EXPECT_EQ(admin_.creates, 1);
  // A new version of the document builds the table again.
  std::string doc = kCheckDoc;
  doc.replace(doc.find("\"ROW\""), 5, "\"ROWCOL\"");
  PutDoc("tinawang:check", doc);
  ASSERT_TRUE(restarted.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 2);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, DocumentRemovedAndPutAgainBetweenPassesIsBuiltAgain) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  admin_.tables.clear();
  PutDoc("tinawang:check", kCheckDoc);  // same version 0, a new revision
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_EQ(admin_.creates, 2);
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

TEST_F(ReconcilerTest, StatusesWithoutDocumentAreRemovedOnTheFirstPass) {
  ASSERT_TRUE(zk_.Upsert("/presplit/status/default:gone", R"({"phase":"ready"})").ok());
  ASSERT_TRUE(
      zk_.Upsert("/presplit/status/default:migrating", R"({"phase":"ready","generation":2})").ok());
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  EXPECT_FALSE(zk_.nodes.count("/presplit/status/default:gone"));
  EXPECT_TRUE(zk_.nodes.count("/presplit/status/default:migrating"));
  EXPECT_TRUE(zk_.nodes.count("/presplit/status/tinawang:check"));
  EXPECT_EQ(reconciler_.counters().statuses_removed, 1u);
}

TEST_F(ReconcilerTest, StatusOfAMigrationIsLeftAlone) {
  PutDoc("tinawang:check", kCheckDoc);
  const std::string migration = R"({"phase":"migrating","generation":3,"table":"tinawang:check"})";
  ASSERT_TRUE(zk_.Upsert("/presplit/status/tinawang:check", migration).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  EXPECT_EQ(zk_.nodes.at("/presplit/status/tinawang:check").data, migration);
  EXPECT_EQ(admin_.creates, 0);
}

TEST_F(ReconcilerTest, AStopRequestEndsThePassBetweenDocuments) {
  std::atomic<bool> stop{false};
  ReconcilerOptions options{"/presplit", "test:2"};
  options.stop = &stop;
  Reconciler stoppable(zk_, admin_, options);
  PutDoc("default:a", R"({"version":1,"table":"default:a","split":{"algorithm":"uniform",
      "regions":2},"families":[{"name":"f"}]})");
  PutDoc("default:b", R"({"version":1,"table":"default:b","split":{"algorithm":"uniform",
      "regions":2},"families":[{"name":"f"}]})");
  // SIGTERM arrives while the first table is being created: the second one is not started.
  admin_.on_create = [&] { stop = true; };
  Status s = stoppable.ReconcileAll();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(StatusOf("default:a")["phase"], "ready");
  EXPECT_FALSE(zk_.nodes.count("/presplit/status/default:b"));
}

TEST_F(ReconcilerTest, AMigrationsStatusIsNotRemovedWithItsDocument) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const std::string migration = R"({"phase":"migrating","generation":2})";
  ASSERT_TRUE(zk_.Upsert("/presplit/status/tinawang:check", migration).ok());
  ASSERT_TRUE(zk_.Delete("/presplit/tables/tinawang:check", -1).ok());
  ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
  ASSERT_TRUE(zk_.nodes.count("/presplit/status/tinawang:check"));
  EXPECT_EQ(zk_.nodes.at("/presplit/status/tinawang:check").data, migration);
}

// Valid JSON nested `depth` levels: arrays, or objects {"":{"":...1}} (4 bytes a level, so that
// 200,000 levels fit in a znode's 1 MiB).
std::string DeepArrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }
std::string DeepObjects(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "{\"\":";
  return s + "1" + std::string(depth, '}');
}

// A document nested 200,000 deep is refused before any parser copies it (a copy or a dump
// recurses once per level): the daemon says why and goes on with the other documents.
TEST_F(ReconcilerTest, ADocumentNestedTooDeepIsInvalidAndOthersAreServed) {
  const std::map<std::string, std::string> documents = {
      {"default:deep_arrays", DeepArrays(200000)},
      {"default:deep_objects", DeepObjects(200000)},
      {"default:deep_member",
       R"({"version":1,"table":"deep_member","split":{"algorithm":"uniform","regions":2},)"
       R"("families":[{"name":"f"}],"description":)" +
           DeepObjects(200000) + "}"},
  };
  for (const auto& [name, doc] : documents) PutDoc(name, doc);
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  for (const auto& [name, doc] : documents) {
    auto status = StatusOf(name);
    EXPECT_EQ(status["phase"], "invalid") << name;
    EXPECT_NE(status["error"].get<std::string>().find("JSON nested deeper than 64 levels"),
              std::string::npos)
        << status.dump();
  }
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
  EXPECT_EQ(admin_.creates, 1);
  EXPECT_EQ(reconciler_.counters().exceptions_caught, 0u);
}

TEST_F(ReconcilerTest, ADocumentAboveOneMebibyteIsInvalidWithItsSize) {
  // Valid JSON, padded with spaces past ZooKeeper's default znode limit.
  std::string doc = R"({"version":1,"table":"big","split":{"algorithm":"uniform","regions":2},)"
                    R"("families":[{"name":"f"}]})";
  doc += std::string(1024 * 1024, ' ');
  PutDoc("default:big", doc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  auto status = StatusOf("default:big");
  EXPECT_EQ(status["phase"], "invalid");
  EXPECT_NE(status["error"].get<std::string>().find("is larger than the limit of 1048576 bytes"),
            std::string::npos)
      << status.dump();
  EXPECT_EQ(admin_.creates, 0);
}

// A status nested too deep (written by hand, or by a faulty tool) is not read: it is replaced by
// the daemon's own status on the next pass, and nothing of it is carried over.
TEST_F(ReconcilerTest, AStatusNestedTooDeepIsReplacedNotRead) {
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  const std::string deep_load =
      R"({"phase":"ready","generation":1,"physical_table":"tinawang:check","load":)" +
      DeepObjects(200000) + "}";
  for (const std::string& deep : {deep_load, DeepArrays(200000)}) {
    ASSERT_TRUE(zk_.Upsert("/presplit/status/tinawang:check", deep).ok());
    ASSERT_TRUE(reconciler_.ReconcileAll(PassKind::kFull).ok());
    auto status = StatusOf("tinawang:check");
    EXPECT_EQ(status["phase"], "ready") << status.dump().substr(0, 200);
    EXPECT_EQ(status["layout"]["salt"]["buckets"], 10);
    EXPECT_FALSE(status.contains("load"));
  }
  EXPECT_EQ(reconciler_.counters().exceptions_caught, 0u);
}

// A status nested too deep beside no document is an orphan like any other: removed.
TEST_F(ReconcilerTest, AnOrphanStatusNestedTooDeepIsRemoved) {
  ASSERT_TRUE(zk_.Upsert("/presplit/status/default:gone",
                         R"({"generation":2,"deep":)" + DeepObjects(200000) + "}")
                  .ok());
  ASSERT_TRUE(zk_.Upsert("/presplit/status/default:gone_too", DeepArrays(200000)).ok());
  PutDoc("tinawang:check", kCheckDoc);
  ASSERT_TRUE(reconciler_.ReconcileAll().ok());
  // Out of bounds, its "generation" is never read: it is no migration's status.
  EXPECT_FALSE(zk_.nodes.count("/presplit/status/default:gone"));
  EXPECT_FALSE(zk_.nodes.count("/presplit/status/default:gone_too"));
  EXPECT_EQ(StatusOf("tinawang:check")["phase"], "ready");
}

}  // namespace
}  // namespace presplit::daemon
