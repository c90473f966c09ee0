#include "daemon/watch/watched_tables.h"

#include <gtest/gtest.h>

#include "../fakes.h"
#include "presplit/json_bounds.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::watch {
namespace {

using nlohmann::json;

constexpr const char* kPlain = R"({"version":1,"table":"ns:plain","split":{"algorithm":"uniform",
  "regions":4},"families":[{"name":"f"}]})";
constexpr const char* kLive = R"({"version":1,"table":"live","split":{"algorithm":"uniform",
  "regions":4},"load_split":{"dry_run":false,"min_requests_per_s":50,"mean_multiple":2,
  "sustain_s":6,"max_regions":6,"cooldown_s":60,"unsplittable_s":300},
  "families":[{"name":"f"}]})";
// Re-salted once already: the document asks for 16 buckets, HBase's own split policy.
constexpr const char* kSalted = R"({"version":1,"table":"ns:t",
  "layout":{"salt":{"buckets":16,"encoding":"decimal"},"group":{"delimiter":"|"}},
  "split":{"algorithm":"salt-buckets"},"load_split":{"dry_run":false},
  "migration":{"allowed":true},"families":[{"name":"f"}]})";

const WatchedTable* Find(const std::vector<WatchedTable>& tables, const std::string& physical) {
  for (const auto& t : tables) {
    if (t.physical_table == physical) return &t;
  }
  return nullptr;
}

TableConfig Salted() {
  auto config = ParseTableConfig(kSalted);
  EXPECT_TRUE(config.ok()) << config.status().message();
  return *config;
}

TEST(WatchedTables, EveryValidDocumentWithItsLoadSplitSettings) {
  testing::FakeZk zk;
  zk.nodes["/p/tables"] = ZkNode{};
  zk.nodes["/p/tables/ns:plain"] = ZkNode{kPlain, 0, 1};
  zk.nodes["/p/tables/default:live"] = ZkNode{kLive, 0, 2};
  zk.nodes["/p/tables/garbage"] = ZkNode{"\xff not json", 0, 3};
  auto tables = ReadWatchedTables(zk, "/p/tables", "/p/status");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  ASSERT_EQ(tables->size(), 2u) << "the unparsable document is the reconciler's to report";
  ASSERT_NE(Find(*tables, "ns:plain"), nullptr);
  EXPECT_FALSE(Find(*tables, "ns:plain")->settings.enabled);
  const WatchedTable* live_table = Find(*tables, "default:live");
  ASSERT_NE(live_table, nullptr);
  EXPECT_EQ(live_table->table, "default:live") << "no status: the document's own table";
  EXPECT_EQ(live_table->generation, 1);
  const LoadSplitSettings& live = live_table->settings;
  EXPECT_TRUE(live.enabled);
  EXPECT_FALSE(live.dry_run);
  EXPECT_EQ(live.rule.min_requests_per_s, 50);
  EXPECT_EQ(live.rule.mean_multiple, 2);
  EXPECT_EQ(live.rule.sustain_ms, 6000);
  EXPECT_EQ(live.max_regions, 6);
  EXPECT_EQ(live.region_cooldown_ms, 60'000);
  EXPECT_EQ(live.unsplittable_ms, 300'000);
  EXPECT_EQ(live.split_grace_ms, 30'000);
  EXPECT_TRUE(live.hold_reason.empty());
  EXPECT_TRUE(zk.data_watches.empty()) << "the reconciler holds the watches";
}

TEST(WatchedTables, TheSplitPointComesFromKeysWithoutTheRegionServersPolicy) {
  auto plain = ParseTableConfig(R"({"version":1,"table":"t","layout":{"group":{"delimiter":"|"}},
    "split":{"algorithm":"uniform","regions":4},"load_split":{"dry_run":false},
    "families":[{"name":"f"}]})");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  const LoadSplitSettings from_keys = SettingsFromDocument(*plain);
  EXPECT_TRUE(from_keys.enabled);
  EXPECT_TRUE(from_keys.point_from_key_sample);
  EXPECT_EQ(from_keys.layout.group_delimiter, std::optional<std::string>("|"));

  auto native = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
    "regions":4},"split_policy":{"load_balanced":true},"load_split":{"dry_run":false},
    "families":[{"name":"f"}]})");
  ASSERT_TRUE(native.ok()) << native.status().message();
  EXPECT_FALSE(SettingsFromDocument(*native).point_from_key_sample);
}

TEST(WatchedTables, MoveDaughtersComesFromTheDocumentAndADryRunDocumentNeverMoves) {
  auto parse = [](const std::string& load_split) {
    auto config = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":4},"load_split":)" +
                                   load_split + R"(,"families":[{"name":"f"}]})");
    EXPECT_TRUE(config.ok()) << config.status().message();
    return SettingsFromDocument(*config);
  };
  EXPECT_FALSE(parse(R"({"dry_run":false})").move_daughters) << "off unless asked for";
  const LoadSplitSettings live = parse(R"({"dry_run":false,"move_daughters":{"after_s":60}})");
  EXPECT_TRUE(live.move_daughters);
  EXPECT_EQ(live.move_after_ms, 60'000);
  EXPECT_FALSE(live.move_dry_run);
  EXPECT_TRUE(parse(R"({"dry_run":false,"move_daughters":{"dry_run":true}})").move_dry_run);
  EXPECT_TRUE(parse(R"({"dry_run":true,"move_daughters":{}})").move_dry_run)
      << "a load_split in dry run moves nothing either";
}

TEST(WatchedTables, AnUnreachableZooKeeperIsAnError) {
  testing::FakeZk zk;
  zk.available = false;
  EXPECT_FALSE(ReadWatchedTables(zk, "/p/tables", "/p/status").ok());
}

TEST(WatchedTables, TheStatusOfALaterGenerationNamesThePhysicalTable) {
  const json status = json::parse(R"({"table": "ns:t", "phase": "ready",
    "physical_table": "ns:t__g3", "generation": 3,
    "layout": {"salt": {"buckets": 16, "encoding": "decimal"}, "group": {"delimiter": "|"}}})");
  const auto watched = WatchedTablesOf(Salted(), status);
  ASSERT_EQ(watched.size(), 1u);
  EXPECT_EQ(watched[0].table, "ns:t");
  EXPECT_EQ(watched[0].physical_table, "ns:t__g3");
  EXPECT_EQ(watched[0].generation, 3);
  EXPECT_FALSE(watched[0].migration_target);
  EXPECT_TRUE(watched[0].split_hold.empty());
}

TEST(WatchedTables, AGenerationOneStatusNamingAnotherTableIsNotFollowed) {
  // As the reconciler: only a migration's switch (generation above 1) moves the document.
  const json status = json::parse(R"({"physical_table": "ns:elsewhere", "generation": 1})");
  const auto watched = WatchedTablesOf(Salted(), status);
  ASSERT_EQ(watched.size(), 1u);
  EXPECT_EQ(watched[0].physical_table, "ns:t");
  EXPECT_EQ(WatchedTablesOf(Salted(), json())[0].physical_table, "ns:t") << "no status";
  EXPECT_EQ(WatchedTablesOf(Salted(), json("not an object"))[0].physical_table, "ns:t");
}

TEST(WatchedTables, TheKeySamplePointFollowsTheLayoutThePhysicalTableWasBuiltWith) {
  // The document already asks for 16 buckets; the table was built with 10 and a 4-byte group.
  const json status = json::parse(R"({"table": "ns:t", "phase": "drift",
    "physical_table": "ns:t", "generation": 1,
    "layout": {"salt": {"buckets": 10, "encoding": "decimal"}, "group": {"length": 4}}})");
  const auto watched = WatchedTablesOf(Salted(), status);
  ASSERT_EQ(watched.size(), 1u);
  EXPECT_TRUE(watched[0].settings.point_from_key_sample);
  EXPECT_EQ(watched[0].settings.layout.buckets, 10);
  EXPECT_EQ(watched[0].settings.layout.group_length, std::optional<int>(4));
  // Without a layout record (or one that does not parse), the document's.
  const auto unrecorded = WatchedTablesOf(
      Salted(), json::parse(R"({"physical_table": "ns:t", "layout": {"salt": "x"}})"));
  EXPECT_EQ(unrecorded[0].settings.layout.buckets, 16);
}

TEST(WatchedTables, AMigrationsTargetIsWatchedAndHeldUntilItsSwitch) {
  const json copying = json::parse(R"({"table": "ns:t", "phase": "drift",
    "physical_table": "ns:t__g2", "generation": 2,
    "migration": {"phase": "verifying", "target": "ns:t__g3", "target_generation": 3}})");
  const auto watched = WatchedTablesOf(Salted(), copying);
  ASSERT_EQ(watched.size(), 2u);
  const WatchedTable& serving = watched[0];
  EXPECT_EQ(serving.physical_table, "ns:t__g2");
  EXPECT_FALSE(serving.migration_target);
  EXPECT_EQ(serving.migration_target_table, "ns:t__g3");
  EXPECT_TRUE(serving.settings.hold_reason.empty()) << "the source still serves the load";
  const WatchedTable& target = watched[1];
  EXPECT_EQ(target.table, "ns:t");
  EXPECT_EQ(target.physical_table, "ns:t__g3");
  EXPECT_EQ(target.generation, 3);
  EXPECT_TRUE(target.migration_target);
  EXPECT_EQ(target.settings.hold_reason, kMigrationUnderWay);
  EXPECT_NE(target.split_hold.find("migration under way"), std::string::npos);
  EXPECT_EQ(target.settings.layout.buckets, 16) << "built with the document's layout";
}

TEST(WatchedTables, FromTheSwitchOnTheTargetIsThePhysicalTableAndSplitAsAnyOther) {
  for (const char* phase : {"catching_up", "grace", "done"}) {
    const json switched = json::parse(std::string(R"({"table": "ns:t", "phase": "ready",
      "physical_table": "ns:t__g2", "generation": 2,
      "migration": {"phase": ")") + phase +
                                      R"(", "target": "ns:t__g2"}})");
    const auto watched = WatchedTablesOf(Salted(), switched);
    ASSERT_EQ(watched.size(), 1u) << phase;
    EXPECT_EQ(watched[0].physical_table, "ns:t__g2") << phase;
    EXPECT_TRUE(watched[0].settings.hold_reason.empty()) << phase;
    EXPECT_TRUE(watched[0].split_hold.empty()) << phase;
  }
  // An aborted or rolled-back migration leaves its (dropped) target alone.
  for (const char* phase : {"aborted", "rolled_back"}) {
    const json ended = json::parse(std::string(R"({"physical_table": "ns:t", "generation": 1,
      "migration": {"phase": ")") + phase +
                                   R"(", "target": "ns:t__g2"}})");
    const auto watched = WatchedTablesOf(Salted(), ended);
    ASSERT_EQ(watched.size(), 1u) << phase;
    EXPECT_EQ(watched[0].physical_table, "ns:t") << phase;
    EXPECT_EQ(watched[0].migration_target_table, "") << phase;
  }
}

TEST(WatchedTables, ReadsEachDocumentsStatusAndWatchesEachPhysicalTableOnce) {
  testing::FakeZk zk;
  zk.nodes["/p/tables"] = ZkNode{};
  zk.nodes["/p/tables/ns:t"] = ZkNode{kSalted, 0, 1};
  zk.nodes["/p/tables/ns:plain"] = ZkNode{kPlain, 0, 2};
  zk.nodes["/p/status/ns:t"] = ZkNode{R"({"physical_table": "ns:t", "generation": 1,
    "migration": {"phase": "copying", "target": "ns:plain"}})",
                                      0, 3};
  auto tables = ReadWatchedTables(zk, "/p/tables", "/p/status");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  // ns:plain serves its own document: never held as another document's target.
  ASSERT_EQ(tables->size(), 2u);
  ASSERT_NE(Find(*tables, "ns:plain"), nullptr);
  EXPECT_EQ(Find(*tables, "ns:plain")->table, "ns:plain");
  EXPECT_FALSE(Find(*tables, "ns:plain")->migration_target);
  ASSERT_NE(Find(*tables, "ns:t"), nullptr);

  zk.nodes["/p/status/ns:t"] = ZkNode{R"({"physical_table": "ns:t", "generation": 1,
    "migration": {"phase": "copying", "target": "ns:t__g2"}})",
                                      0, 4};
  tables = ReadWatchedTables(zk, "/p/tables", "/p/status");
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 3u);
  ASSERT_NE(Find(*tables, "ns:t__g2"), nullptr);
  EXPECT_TRUE(Find(*tables, "ns:t__g2")->migration_target);
  EXPECT_EQ(Find(*tables, "ns:t__g2")->table, "ns:t");
}

// A status out of json_bounds.h's limits is never parsed (one nested too deep would overflow the
// stack; standbys read statuses too): its document is left out of this read, logged, and nothing
// is written; the other documents are watched as usual.
TEST(WatchedTables, AStatusOutOfBoundsIsRefusedAndChangesNothing) {
  const std::string deep = R"({"physical_table": "ns:t__g2", "generation": 2, "x": )" +
                           std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']') + "}";
  const std::string large = R"({"physical_table": "ns:t__g2", "generation": 2, "pad": ")" +
                            std::string(kMaxJsonBytes, 'x') + R"("})";
  int64_t revision = 100;
  for (const std::string& status : {deep, large, std::string("[1, 2]")}) {
    migrate::LogCapture log;
    testing::FakeZk zk;
    zk.nodes["/p/tables"] = ZkNode{};
    zk.nodes["/p/tables/ns:t"] = ZkNode{kSalted, 0, 1};
    zk.nodes["/p/tables/ns:plain"] = ZkNode{kPlain, 0, 2};
    zk.nodes["/p/status/ns:t"] = ZkNode{status, 0, ++revision};
    const auto before = zk.nodes;
    auto tables = ReadWatchedTables(zk, "/p/tables", "/p/status");
    ASSERT_TRUE(tables.ok()) << tables.status().message();
    ASSERT_EQ(tables->size(), 1u) << status.substr(0, 40);
    EXPECT_EQ((*tables)[0].physical_table, "ns:plain");
    EXPECT_EQ(Find(*tables, "ns:t"), nullptr)
        << "not taken for a missing status: ns:t may be a fenced generation";
    EXPECT_TRUE(zk.write_log.empty());
    EXPECT_EQ(zk.nodes.size(), before.size());
    EXPECT_EQ(zk.nodes["/p/status/ns:t"].data, status);
    const std::string why = status == deep    ? "JSON nested deeper than 64 levels"
                            : status == large ? "larger than the limit of 1048576 bytes"
                                              : "it is not a JSON object";
    EXPECT_EQ(log.Count("load watcher: table ns:t: its status cannot be read ("), 1) << log.Text();
    EXPECT_EQ(log.Count(why), 1) << log.Text();
    ASSERT_TRUE(ReadWatchedTables(zk, "/p/tables", "/p/status").ok());
    EXPECT_EQ(log.Count("its status cannot be read"), 1) << "once per status revision";
  }
}

}  // namespace
}  // namespace presplit::daemon::watch
