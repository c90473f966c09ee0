#include "daemon/watch/load_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace presplit::daemon::watch {
namespace {

LoadSnapshot Sample() {
  LoadSnapshot s;
  s.polled_at_ms = 10'000;
  TableLoad t;
  t.table = "ns:t\"x";
  t.region_count = 2;
  t.max_requests_per_s = 900;
  t.mean_requests_per_s = 500;
  t.request_skew = 1.8;
  t.hot_regions = 1;
  RegionLoad a;
  a.region = "a";
  a.end_key = std::string("\x01\xff", 2);
  RegionLoad b;
  b.region = "b";
  b.start_key = std::string("\x01\xff", 2);
  b.has_rate = true;
  b.write_per_s = 900;
  b.hot = true;
  t.regions = {a, b};
  s.tables.push_back(t);
  SplitDecision d;
  d.time_ms = 9000;
  d.table = t.table;
  d.region = "b";
  d.start_key = b.start_key;
  d.requests_per_s = 900;
  d.table_mean_per_s = 500;
  d.reason = "dry_run";
  s.decisions[t.table].push_back(d);
  s.skips_total["dry_run"] = 1;
  return s;
}

TEST(LoadReport, StatusJsonHasTablesRegionsAndDecisions) {
  const auto j = LoadSnapshotJson(Sample());
  EXPECT_EQ(j["polled_at_ms"], 10'000);
  ASSERT_EQ(j["tables"].size(), 1u);
  const auto& t = j["tables"][0];
  EXPECT_EQ(t["table"], "ns:t\"x");
  EXPECT_EQ(t["hot_regions"], 1);
  ASSERT_EQ(t["regions"].size(), 2u);
  EXPECT_TRUE(t["regions"][0]["write_per_s"].is_null()) << "no rate yet is not a rate of 0";
  EXPECT_EQ(t["regions"][0]["end_key"], "\\x01\\xFF");
  EXPECT_EQ(t["regions"][1]["write_per_s"], 900.0);
  EXPECT_EQ(t["regions"][1]["hot"], true);
  ASSERT_EQ(t["decisions"].size(), 1u);
  EXPECT_EQ(t["decisions"][0]["action"], "skip");
  EXPECT_EQ(t["decisions"][0]["reason"], "dry_run");
  EXPECT_EQ(t["decisions"][0]["start_key"], "\\x01\\xFF");
  EXPECT_EQ(j["skips_total"]["dry_run"], 1);
  // Printable JSON whatever the keys' bytes.
  EXPECT_NO_THROW((void)j.dump());
}

TEST(LoadReport, MetricsArePerTableWithEscapedLabels) {
  std::ostringstream out;
  AppendLoadMetrics(out, Sample(), 12'500);
  const std::string text = out.str();
  EXPECT_NE(text.find("presplit_table_region_count{table=\"ns:t\\\"x\"} 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("presplit_table_max_region_request_rate{table=\"ns:t\\\"x\"} 900\n"),
            std::string::npos);
  EXPECT_NE(text.find("presplit_table_request_skew{table=\"ns:t\\\"x\"} 1.8\n"), std::string::npos);
  EXPECT_NE(text.find("presplit_load_splits_total 0\n"), std::string::npos);
  EXPECT_NE(text.find("presplit_load_split_skips_total{reason=\"dry_run\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("presplit_load_poll_age_seconds 2.5\n"), std::string::npos);
  // No series per region.
  EXPECT_EQ(text.find("region=\""), std::string::npos);
}

}  // namespace
}  // namespace presplit::daemon::watch
