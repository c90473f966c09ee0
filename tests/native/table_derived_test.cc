// What follows from a table document: split keys and table attributes
// (presplit/table_derived.h).
#include "presplit/table_derived.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "presplit/table_canonical.h"
#include "presplit/table_config.h"

namespace presplit {
namespace {

TEST(TableDerived, SplitKeysForEachAlgorithm) {
  auto keys_of = [](const std::string& split) {
    Result<TableConfig> c = ParseTableConfig(
        R"({"version":1,"table":"t","layout":{"salt":{"buckets":4,"from":"key"}},"split":)" +
        split + R"(,"families":[{"name":"f"}]})");
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return std::vector<std::string>{};
    Result<std::vector<std::string>> keys = ComputeSplitKeys(*c);
    EXPECT_TRUE(keys.ok()) << keys.status().ToString();
    return keys.ok() ? *keys : std::vector<std::string>{};
  };
  EXPECT_EQ(keys_of(R"({"algorithm":"hex-string","regions":4})"),
            (std::vector<std::string>{"40000000", "80000000", "c0000000"}));
  EXPECT_EQ(keys_of(R"({"algorithm":"decimal-string","regions":4,"first_row":"100",
                        "last_row":"999"})"),
            (std::vector<std::string>{"325", "550", "775"}));
  EXPECT_EQ(keys_of(R"({"algorithm":"uniform","regions":2})"),
            (std::vector<std::string>{std::string("\x80\0\0\0\0\0\0\0", 8)}));
  EXPECT_EQ(keys_of(R"({"algorithm":"salt-buckets"})"),
            (std::vector<std::string>{"\x01", "\x02", "\x03"}));
  EXPECT_EQ(keys_of(R"({"algorithm":"explicit","keys":["a","b\\x00"]})"),
            (std::vector<std::string>{"a", std::string("b\0", 2)}));
  EXPECT_EQ(keys_of(R"({"algorithm":"explicit","keys":[]})"), std::vector<std::string>{});
}

TEST(TableDerived, SplitKeysRejectBadHandBuiltConfigs) {
  TableConfig c;
  c.table = "t";
  c.qualifier = "t";
  c.split.algorithm = SplitAlgorithm::kSaltBuckets;
  EXPECT_FALSE(ComputeSplitKeys(c).ok());  // no layout.salt
  c.split.algorithm = SplitAlgorithm::kExplicit;
  c.split.keys = {"b", "a"};
  Result<std::vector<std::string>> r = ComputeSplitKeys(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("split key 1"), std::string::npos);
}

constexpr const char* kPolicyDoc = R"({"version": 1, "table": "t",
  "layout": {"salt": {"buckets": 4, "encoding": "hex"}, "group": {"delimiter": "|"}},
  "split": {"algorithm": "salt-buckets"}, "families": [{"name": "f"}],
  "split_policy": %s})";

Result<TableConfig> WithPolicy(const std::string& policy) {
  std::string doc = kPolicyDoc;
  doc.replace(doc.find("%s"), 2, policy);
  return ParseTableConfig(doc);
}

TEST(SplitPolicyConfigTest, DefaultsAndAttributes) {
  auto config = WithPolicy("{}");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_TRUE(config->split_policy.has_value());
  auto attributes = SplitPolicyAttributes(*config);
  EXPECT_EQ(attributes.at("SPLIT_POLICY"), "io.presplit.hbase.NativeSplitPolicy");
  EXPECT_EQ(attributes.at("presplit.split.size-policy"), "stepping");
  EXPECT_EQ(attributes.count("MAX_FILESIZE"), 0u);
  EXPECT_EQ(attributes.at("presplit.load.enabled"), "true");
  EXPECT_EQ(attributes.at("presplit.load.min-requests"), "100");
  EXPECT_EQ(attributes.at("presplit.load.max-imbalance"), "0.25");
  EXPECT_EQ(attributes.at("presplit.load.max-contained-fraction"), "0.5");
  EXPECT_EQ(attributes.at("presplit.managed"), "true");
  EXPECT_EQ(attributes.count("presplit.layout.salt.buckets"), 0u)
      << "the layout record is TableAttributes' (layout_attributes.h)";
  // The canonical form keeps the policy and reads back the same.
  const std::string canonical = TableConfigToJson(*config);
  auto again = ParseTableConfig(canonical);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(SplitPolicyAttributes(*again), attributes);
}

TEST(SplitPolicyConfigTest, NoPolicyNoAttributes) {
  auto config = ParseTableConfig(
      R"({"version":1,"table":"t","split":{"algorithm":"uniform","regions":2},"families":[{"name":"f"}]})");
  ASSERT_TRUE(config.ok());
  EXPECT_TRUE(SplitPolicyAttributes(*config).empty());
}

TEST(SplitPolicyConfigTest, LoadSplitsKeepTheNormalizerAway) {
  auto config = ParseTableConfig(
      R"({"version":1,"table":"t","split":{"algorithm":"uniform","regions":2},"load_split":{},"families":[{"name":"f"}]})");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(SplitPolicyAttributes(*config),
            (std::map<std::string, std::string>{{"NORMALIZATION_ENABLED", "false"}}));
}

TEST(SplitPolicyConfigTest, LoadBalancingOffDropsTheSampler) {
  auto config = WithPolicy(R"({"load_balanced": false, "size_policy": "constant-size"})");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto attributes = SplitPolicyAttributes(*config);
  EXPECT_EQ(attributes.at("presplit.load.enabled"), "false");
  EXPECT_EQ(attributes.count("coprocessor$1"), 0u);
  EXPECT_EQ(attributes.at("presplit.split.size-policy"), "constant-size");
}

TEST(SplitPolicyConfigTest, BadFieldsAreNamed) {
  struct Case {
    const char* policy;
    const char* field;
  } cases[] = {
      {R"({"size_policy": "fastest"})", "split_policy.size_policy"},
      {R"({"max_file_size": 1000})", "split_policy.max_file_size"},
      {R"({"load_balanced": "yes"})", "split_policy.load_balanced"},
      {R"({"min_requests": 0})", "split_policy.min_requests"},
      {R"({"max_imbalance": 0})", "split_policy.max_imbalance"},
      {R"({"max_contained_fraction": 1.5})", "split_policy.max_contained_fraction"},
      {R"({"max_imbalance": "low"})", "split_policy.max_imbalance"},
      {R"({"load_balanced": false, "min_requests": 5})", "split_policy.min_requests"},
      {R"({"sizepolicy": "stepping"})", "split_policy.sizepolicy"},
      {R"("stepping")", "split_policy"},
  };
  for (const auto& c : cases) {
    auto config = WithPolicy(c.policy);
    ASSERT_FALSE(config.ok()) << c.policy;
    EXPECT_EQ(config.status().message().rfind(std::string("field '") + c.field + "'", 0), 0u)
        << c.policy << " -> " << config.status().message();
  }
}

}  // namespace
}  // namespace presplit
