#include "ctl/live_advice.h"

#include <gtest/gtest.h>

#include <map>

namespace presplit::ctl {
namespace {

using nlohmann::json;

// A table of `regions` regions of 1 GiB each, with even load.
LiveFacts Even(int regions) {
  LiveFacts f;
  f.table = "default:t";
  f.has_load = true;
  f.has_status = true;
  f.region_count = regions;
  f.size_bytes = int64_t{regions} << 30;
  f.requests_per_s = 100.0 * regions;
  f.mean_requests_per_s = 100;
  f.max_requests_per_s = 100;
  f.request_skew = 1;
  f.write_rates.assign(regions, 50);
  return f;
}

std::vector<std::string> Rules(const LiveAdviceReport& report) {
  std::vector<std::string> rules;
  for (const auto& a : report.advice) rules.push_back(a.rule);
  return rules;
}

TEST(AdviseLive, AnEvenSmallTableNeedsNothingAndGrowthIsUnknownWithoutHistory) {
  const LiveAdviceReport report = AdviseLive(Even(4), AdviceRules{});
  EXPECT_TRUE(report.advice.empty());
  EXPECT_FALSE(report.daily_growth_bytes.has_value());
  bool said = false;
  for (const auto& line : report.facts) said |= line.rfind("growth: unknown", 0) == 0;
  EXPECT_TRUE(said);
}

TEST(AdviseLive, SizeRuleCountsTheProjectedGrowth) {
  LiveFacts f = Even(4);  // 4 GiB now
  // 1 GiB a day over two days of history: in 90 days 94 GiB, 10 regions of 10 GiB.
  f.size_history = {{0, 2LL << 30}, {2 * 86'400'000LL, 4LL << 30}};
  const LiveAdviceReport report = AdviseLive(f, AdviceRules{});
  ASSERT_TRUE(report.daily_growth_bytes.has_value());
  EXPECT_DOUBLE_EQ(*report.daily_growth_bytes, double(1LL << 30));
  ASSERT_EQ(Rules(report), std::vector<std::string>{"size"});
  EXPECT_EQ(report.advice[0].kind, "more_regions");
  EXPECT_NE(report.advice[0].text.find("needs 10 regions"), std::string::npos)
      << report.advice[0].text;
  // Without growth the same table fits.
  f.size_history.clear();
  EXPECT_TRUE(AdviseLive(f, AdviceRules{}).advice.empty());
}

TEST(AdviseLive, BudgetSkipsAskForMoreRegions) {
  LiveFacts f = Even(4);
  f.decisions = 2;
  f.reasons["region_budget"] = 2;
  const LiveAdviceReport report = AdviseLive(f, AdviceRules{});
  ASSERT_EQ(Rules(report), std::vector<std::string>{"budget"});
  EXPECT_NE(report.advice[0].text.find("max_regions above 4"), std::string::npos);
}

TEST(AdviseLive, BudgetAdviceQuotesTheBudgetTheSkipsMet) {
  // A region the balancer is moving has no load report: the live count reads 3 of 4.
  const json load = json::parse(R"({"load": {"tables": [
      {"table": "ns:t", "role": "serving", "region_count": 3, "hot_regions": 1}]}})");
  const json status = json::parse(R"({"load": {"decisions": [
      {"action": "skip", "reason": "region_budget", "max_regions": 4}]}})");
  auto facts = FactsFromStatus("ns:t", &load, &status);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_EQ(facts->budget_max_regions, 4);
  const LiveAdviceReport report = AdviseLive(*facts, AdviceRules{});
  ASSERT_EQ(Rules(report), std::vector<std::string>{"budget"});
  EXPECT_NE(report.advice[0].text.find("max_regions above 4"), std::string::npos)
      << report.advice[0].text;
}

TEST(AdviseLive, HotRegionsWithoutDecisionsAskForLoadSplits) {
  LiveFacts f = Even(4);
  f.hot_regions = 1;
  f.request_skew = 3.5;
  EXPECT_EQ(Rules(AdviseLive(f, AdviceRules{})), std::vector<std::string>{"no_load_split"});
  // Not said when the status could not be read: decisions are then unknown, not absent.
  f.has_status = false;
  EXPECT_TRUE(AdviseLive(f, AdviceRules{}).advice.empty());
}

TEST(AdviseLive, KeySamplePointsThatLeaveTheSkewAskForTheNativePolicy) {
  LiveFacts f = Even(5);
  f.decisions = 1;
  f.key_sample_splits = 1;
  f.request_skew = 2.9;
  EXPECT_TRUE(AdviseLive(f, AdviceRules{}).advice.empty()) << "below the skew limit";
  f.request_skew = 3.2;
  const LiveAdviceReport report = AdviseLive(f, AdviceRules{});
  ASSERT_EQ(Rules(report), std::vector<std::string>{"key_points"});
  EXPECT_EQ(report.advice[0].kind, "split_policy");
}

TEST(AdviseLive, WritesOnTheBucketTailsAskForAReSalt) {
  LiveFacts f = Even(8);
  f.buckets = 2;
  // Two regions take 95% of the writes.
  f.write_rates = {950, 0, 10, 10, 950, 10, 10, 10};
  const LiveAdviceReport report = AdviseLive(f, AdviceRules{});
  ASSERT_EQ(Rules(report), std::vector<std::string>{"bucket_tails"});
  EXPECT_EQ(report.advice[0].kind, "re_salt");
  EXPECT_NE(report.advice[0].text.find("4 buckets"), std::string::npos) << report.advice[0].text;
  // Spread writes: no re-salt; too few regions per bucket: no re-salt either.
  f.write_rates.assign(8, 100);
  EXPECT_TRUE(AdviseLive(f, AdviceRules{}).advice.empty());
  LiveFacts few = Even(3);
  few.buckets = 2;
  few.write_rates = {1000, 1000, 0};
  EXPECT_TRUE(AdviseLive(few, AdviceRules{}).advice.empty());
}

TEST(AdviseLive, UnsplittableHotRegionsAreCalledAHotKey) {
  LiveFacts f = Even(4);
  f.decisions = 2;
  f.reasons["unsplittable"] = 1;
  f.reasons["no_split_point"] = 1;
  const LiveAdviceReport report = AdviseLive(f, AdviceRules{});
  ASSERT_EQ(Rules(report), std::vector<std::string>{"hot_key"});
  EXPECT_EQ(report.advice[0].text.rfind("2 decision(s)", 0), 0u);
}

TEST(FactsFromStatus, ReadsTheWatchersViewAndTheStatusDocument) {
  const json load = json::parse(R"({"load": {"tables": [{"table": "ns:t", "region_count": 2,
      "requests_per_s": 300.0, "mean_requests_per_s": 150.0, "max_requests_per_s": 250.0,
      "request_skew": 1.67, "size_bytes": 2048, "hot_regions": 1,
      "regions": [{"write_per_s": 200.0}, {"write_per_s": null}]}]}})");
  const json status = json::parse(R"({"buckets": 4, "regions": 2, "load": {
      "decisions": [{"action": "split", "split_key": "a|"}, {"action": "split", "split_key": null},
                    {"action": "skip", "reason": "cooldown"}],
      "size_history": [{"time_ms": 1, "size_bytes": 1000}, {"time_ms": 2, "size_bytes": 2000}]}})");
  auto facts = FactsFromStatus("ns:t", &load, &status);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_TRUE(facts->has_load);
  EXPECT_EQ(facts->region_count, 2);
  EXPECT_EQ(facts->size_bytes, 2048);
  EXPECT_EQ(facts->hot_regions, 1);
  EXPECT_EQ(facts->write_rates, std::vector<double>{200.0});
  EXPECT_EQ(facts->buckets, 4);
  EXPECT_EQ(facts->decisions, 3);
  EXPECT_EQ(facts->key_sample_splits, 1);
  EXPECT_EQ(facts->reasons.at("cooldown"), 1);
  EXPECT_EQ(facts->size_history.size(), 2u);

  // Only the status document: the size from its history, no request distribution.
  auto from_status = FactsFromStatus("ns:t", nullptr, &status);
  ASSERT_TRUE(from_status.ok());
  EXPECT_FALSE(from_status->has_load);
  EXPECT_EQ(from_status->size_bytes, 2000);
  // Neither knows the table.
  EXPECT_FALSE(FactsFromStatus("ns:other", &load, nullptr).ok());
  const json garbage = json::parse(R"({"load": {"tables": 7}})");
  EXPECT_FALSE(FactsFromStatus("ns:t", &garbage, nullptr).ok());
}

TEST(FactsFromStatus, FollowsThePhysicalTableTheStatusNames) {
  // Served by ns:t__g2 since a switch; a second migration copies into ns:t__g3.
  const json load = json::parse(R"({"load": {"tables": [
      {"table": "ns:t", "physical_table": "ns:t__g2", "generation": 2, "role": "serving",
       "region_count": 2, "size_bytes": 4096, "hot_regions": 1, "request_skew": 1.5,
       "regions": [{"write_per_s": 10.0}, {"write_per_s": 20.0}]},
      {"table": "ns:t", "physical_table": "ns:t__g3", "generation": 3,
       "role": "migration_target", "region_count": 7, "size_bytes": 1, "hot_regions": 3,
       "regions": [{"write_per_s": 9000.0}]}]}})");
  const json status = json::parse(R"({"physical_table": "ns:t__g2", "generation": 2,
      "buckets": 4, "migration": {"phase": "copying", "target": "ns:t__g3"},
      "load": {"decisions": [
        {"action": "skip", "reason": "region_budget"},
        {"physical_table": "ns:t", "action": "skip", "reason": "unsplittable"},
        {"physical_table": "ns:t__g2", "action": "skip", "reason": "cooldown"},
        {"physical_table": "ns:t__g3", "action": "skip", "reason": "migration_under_way"}]}})");
  auto facts = FactsFromStatus("ns:t", &load, &status);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_EQ(facts->physical_table, "ns:t__g2");
  EXPECT_EQ(facts->generation, 2);
  EXPECT_EQ(facts->migration_target, "ns:t__g3");
  // The serving table's load, not the target's.
  EXPECT_EQ(facts->region_count, 2);
  EXPECT_EQ(facts->size_bytes, 4096);
  EXPECT_EQ(facts->hot_regions, 1);
  EXPECT_EQ(facts->write_rates, (std::vector<double>{10.0, 20.0}));
  // Only the decisions about ns:t__g2: the first generation's and the target's are not its own.
  EXPECT_EQ(facts->decisions, 1);
  EXPECT_EQ(facts->reasons, (std::map<std::string, int>{{"cooldown", 1}}));

  const LiveAdviceReport report = AdviseLive(*facts, AdviceRules{});
  ASSERT_GE(report.facts.size(), 2u);
  EXPECT_EQ(report.facts[0].rfind("physical table: ns:t__g2 (generation 2)", 0), 0u)
      << report.facts[0];
  EXPECT_EQ(report.facts[1].rfind("migration under way into ns:t__g3", 0), 0u) << report.facts[1];
  EXPECT_TRUE(report.advice.empty()) << "no budget or hot-key advice from other generations";

  // From the status alone (no daemon), the same physical table and decisions.
  auto from_status = FactsFromStatus("ns:t", nullptr, &status);
  ASSERT_TRUE(from_status.ok());
  EXPECT_EQ(from_status->physical_table, "ns:t__g2");
  EXPECT_EQ(from_status->decisions, 1);
}

TEST(FactsFromStatus, AfterTheSwitchTheTargetIsThePhysicalTableAndNothingIsUnderWay) {
  const json status = json::parse(R"({"physical_table": "ns:t__g2", "generation": 2,
      "migration": {"phase": "grace", "target": "ns:t__g2"}})");
  auto facts = FactsFromStatus("ns:t", nullptr, &status);
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->physical_table, "ns:t__g2");
  EXPECT_EQ(facts->migration_target, "");
}

// A rolled-back migration is over: its target is gone and a re-salt may be advised again.
TEST(FactsFromStatus, AfterARollbackNothingIsUnderWay) {
  const json status = json::parse(R"({"physical_table": "ns:t", "generation": 1,
      "migration": {"phase": "rolled_back", "target": "ns:t__g2"}})");
  auto facts = FactsFromStatus("ns:t", nullptr, &status);
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->physical_table, "ns:t");
  EXPECT_EQ(facts->migration_target, "");
}

TEST(AdviseLive, NoReSaltIsAdvisedWhileOneIsUnderWay) {
  LiveFacts f = Even(8);
  f.buckets = 2;
  f.write_rates = {950, 0, 10, 10, 950, 10, 10, 10};
  ASSERT_EQ(Rules(AdviseLive(f, AdviceRules{})), std::vector<std::string>{"bucket_tails"});
  f.migration_target = "default:t__g2";
  EXPECT_TRUE(AdviseLive(f, AdviceRules{}).advice.empty());
}

}  // namespace
}  // namespace presplit::ctl
