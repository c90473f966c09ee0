#include "daemon/watch/watched_tables.h"

#include <gtest/gtest.h>

#include "../fakes.h"

namespace presplit::daemon::watch {
namespace {

constexpr const char* kPlain = R"({"version":1,"table":"ns:plain","split":{"algorithm":"uniform",
  "regions":4},"families":[{"name":"f"}]})";
constexpr const char* kLive = R"({"version":1,"table":"live","split":{"algorithm":"uniform",
  "regions":4},"load_split":{"dry_run":false,"min_requests_per_s":50,"mean_multiple":2,
  "sustain_s":6,"max_regions":6,"cooldown_s":60,"unsplittable_s":300},
  "families":[{"name":"f"}]})";

TEST(WatchedTables, EveryValidDocumentWithItsLoadSplitSettings) {
  testing::FakeZk zk;
  zk.nodes["/p/tables"] = ZkNode{};
  zk.nodes["/p/tables/ns:plain"] = ZkNode{kPlain, 0, 1};
  zk.nodes["/p/tables/default:live"] = ZkNode{kLive, 0, 2};
  zk.nodes["/p/tables/garbage"] = ZkNode{"\xff not json", 0, 3};
  auto tables = ReadWatchedTables(zk, "/p/tables");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  ASSERT_EQ(tables->size(), 2u) << "the unparsable document is the reconciler's to report";
  EXPECT_FALSE(tables->at("ns:plain").enabled);
  const LoadSplitSettings& live = tables->at("default:live");
  EXPECT_TRUE(live.enabled);
  EXPECT_FALSE(live.dry_run);
  EXPECT_EQ(live.rule.min_requests_per_s, 50);
  EXPECT_EQ(live.rule.mean_multiple, 2);
  EXPECT_EQ(live.rule.sustain_ms, 6000);
  EXPECT_EQ(live.max_regions, 6);
  EXPECT_EQ(live.region_cooldown_ms, 60'000);
  EXPECT_EQ(live.unsplittable_ms, 300'000);
  EXPECT_EQ(live.split_grace_ms, 30'000);
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

TEST(WatchedTables, AnUnreachableZooKeeperIsAnError) {
  testing::FakeZk zk;
  zk.available = false;
  EXPECT_FALSE(ReadWatchedTables(zk, "/p/tables").ok());
}

}  // namespace
}  // namespace presplit::daemon::watch
