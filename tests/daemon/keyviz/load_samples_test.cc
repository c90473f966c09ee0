// The load watcher's snapshot as the history's samples.
#include "daemon/keyviz/load_samples.h"

#include <gtest/gtest.h>

namespace presplit::daemon::keyviz {
namespace {

TEST(LoadSamplesTest, TheServingTableWithItsLayoutAndNotAMigrationsTarget) {
  watch::LoadSnapshot snapshot;
  watch::TableLoad serving;
  serving.table = "ns:t";
  serving.physical_table = "ns:t";
  watch::RegionLoad region;
  region.start_key = "";
  region.end_key = "m";
  region.read_per_s = 12;
  region.write_per_s = 3;
  region.has_rate = true;
  region.size_bytes = 4096;
  serving.regions.push_back(region);
  watch::TableLoad target = serving;
  target.physical_table = "ns:t__g2";
  target.generation = 2;
  target.migration_target = true;
  watch::TableLoad empty;
  empty.table = "ns:new";
  empty.physical_table = "ns:new";
  snapshot.tables = {serving, target, empty};

  std::vector<watch::WatchedTable> tables(2);
  tables[0].table = "ns:t";
  tables[0].physical_table = "ns:t";
  tables[0].settings.layout.buckets = 8;
  tables[1].table = "ns:t";
  tables[1].physical_table = "ns:t__g2";
  tables[1].settings.layout.buckets = 32;

  auto samples = SamplesFromLoad(snapshot, tables);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].table, "ns:t");
  EXPECT_EQ(samples[0].physical_table, "ns:t");
  EXPECT_EQ(samples[0].layout.buckets, 8);
  ASSERT_EQ(samples[0].regions.size(), 1u);
  EXPECT_EQ(samples[0].regions[0].end_key, "m");
  EXPECT_EQ(samples[0].regions[0].read_per_s, 12);
  EXPECT_EQ(samples[0].regions[0].write_per_s, 3);
  EXPECT_TRUE(samples[0].regions[0].has_rate);
  EXPECT_EQ(samples[0].regions[0].size_bytes, 4096);
}

}  // namespace
}  // namespace presplit::daemon::keyviz
