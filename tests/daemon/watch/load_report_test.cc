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
  EXPECT_FALSE(t["decisions"][0].contains("max_regions")) << "only a budget skip names one";
  EXPECT_EQ(j["skips_total"]["dry_run"], 1);
  // Printable JSON whatever the keys' bytes.
  EXPECT_NO_THROW((void)j.dump());
}

TEST(LoadReport, ABudgetSkipNamesTheBudget) {
  LoadSnapshot s = Sample();
  SplitDecision& d = s.decisions["ns:t\"x"].front();
  d.reason = "region_budget";
  d.max_regions = 12;
  const auto j = LoadSnapshotJson(s);
  EXPECT_EQ(j["tables"][0]["decisions"][0]["max_regions"], 12);
}

TEST(LoadReport, MetricsArePerTableWithEscapedLabels) {
  metrics::MetricsText out;
  AppendLoadMetrics(out, Sample(), 12'500);
  const std::string text = out.Text();
  // Labelled by document and physical table (named by the document's name until a migration).
  const std::string labels = "{table=\"ns:t\\\"x\",physical_table=\"ns:t\\\"x\"}";
  EXPECT_NE(text.find("presplit_table_region_count" + labels + " 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("presplit_table_max_region_request_rate" + labels + " 900\n"),
            std::string::npos);
  EXPECT_NE(text.find("presplit_table_request_skew" + labels + " 1.8\n"), std::string::npos);
  EXPECT_NE(text.find("presplit_load_splits_total 0\n"), std::string::npos);
  EXPECT_NE(text.find("presplit_load_split_skips_total{reason=\"dry_run\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("presplit_load_poll_age_seconds 2.5\n"), std::string::npos);
  // No series per region.
  EXPECT_EQ(text.find("region=\""), std::string::npos);
}

TEST(LoadReport, EachPhysicalTableOfADocumentHasItsEntryAndItsDecisions) {
  LoadSnapshot s;
  TableLoad serving;
  serving.table = "ns:t";
  serving.physical_table = "ns:t__g2";
  serving.generation = 2;
  serving.migration_target_table = "ns:t__g3";
  TableLoad target = serving;
  target.physical_table = "ns:t__g3";
  target.generation = 3;
  target.migration_target = true;
  target.split_hold = "migration under way: ns:t__g3 ...";
  s.tables = {serving, target};
  SplitDecision held;
  held.table = "ns:t";
  held.physical_table = "ns:t__g3";
  held.region = "held";
  held.reason = "migration_under_way";
  SplitDecision split = held;
  split.physical_table = "ns:t__g2";
  split.region = "split";
  split.reason.clear();
  split.action = SplitDecision::Action::kSplit;
  s.decisions["ns:t"] = {held, split};

  const auto j = LoadSnapshotJson(s);
  ASSERT_EQ(j["tables"].size(), 2u);
  const auto& first = j["tables"][0];
  EXPECT_EQ(first["table"], "ns:t");
  EXPECT_EQ(first["physical_table"], "ns:t__g2");
  EXPECT_EQ(first["generation"], 2);
  EXPECT_EQ(first["role"], "serving");
  EXPECT_EQ(first["migration"]["target"], "ns:t__g3");
  EXPECT_TRUE(first["split_hold"].is_null());
  ASSERT_EQ(first["decisions"].size(), 1u);
  EXPECT_EQ(first["decisions"][0]["region"], "split");
  EXPECT_EQ(first["decisions"][0]["physical_table"], "ns:t__g2");
  const auto& second = j["tables"][1];
  EXPECT_EQ(second["role"], "migration_target");
  EXPECT_EQ(second["split_hold"], "migration under way: ns:t__g3 ...");
  ASSERT_EQ(second["decisions"].size(), 1u);
  EXPECT_EQ(second["decisions"][0]["reason"], "migration_under_way");

  // Two series per gauge, told apart by their physical table.
  metrics::MetricsText out;
  AppendLoadMetrics(out, s, 0);
  EXPECT_NE(
      out.Text().find("presplit_table_hot_regions{table=\"ns:t\",physical_table=\"ns:t__g3\"}"),
      std::string::npos)
      << out.Text();
}

}  // namespace
}  // namespace presplit::daemon::watch
