#include "presplit/layout_attributes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "presplit/table_canonical.h"
#include "presplit/table_derived.h"

namespace presplit {
namespace {

using Attributes = std::map<std::string, std::string>;

TableConfig Parsed(const std::string& layout, const std::string& extra = "") {
  auto config = ParseTableConfig(R"({"version": 1, "table": "ns:t", "layout": )" + layout +
                                 R"(, "split": {"algorithm": "uniform", "regions": 2},
                                 "families": [{"name": "f"}])" +
                                 extra + "}");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : TableConfig{};
}

TEST(LayoutAttributesTest, SaltedLayoutIsRecordedWithEveryDefaultResolved) {
  TableConfig config = Parsed(R"({"salt": {"buckets": 10, "encoding": "decimal",
      "hash": "java-hashcode"}, "group": {"length": 32}})");
  Attributes expected = {
      {"presplit.layout.recorded", "true"},           {"presplit.layout.salt.buckets", "10"},
      {"presplit.layout.salt.encoding", "decimal"},   {"presplit.layout.salt.width", "1"},
      {"presplit.layout.salt.hash", "java-hashcode"}, {"presplit.layout.salt.from", "group"},
      {"presplit.layout.group.length", "32"}};
  EXPECT_EQ(LayoutAttributes(config.layout), expected);
  // Without a split policy the table gets the record and the dormant MigrationGuard.
  Attributes table = expected;
  table["coprocessor$2"] = "|io.presplit.capture.MigrationGuard|0|";
  EXPECT_EQ(TableAttributes(config), table);
  for (const auto& [name, value] : expected) EXPECT_TRUE(IsLayoutAttribute(name)) << name;
  EXPECT_FALSE(IsLayoutAttribute("presplit.managed"));
  EXPECT_FALSE(IsLayoutAttribute("SPLIT_POLICY"));
}

TEST(LayoutAttributesTest, UnsaltedTableRecordsThatItHasNoLayout) {
  TableConfig config = Parsed("{}");
  Attributes expected = {{"presplit.layout.recorded", "true"}};
  EXPECT_EQ(LayoutAttributes(config.layout), expected);
  EXPECT_EQ(TableAttributes(config).count("presplit.layout.recorded"), 1u);
  auto back = LayoutFromAttributes(expected);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->has_value()) << "a record of no layout is still a record";
  EXPECT_FALSE((*back)->salt.has_value());
  EXPECT_FALSE((*back)->group.has_value());
  EXPECT_EQ(LayoutToJson(**back), "{}");
}

TEST(LayoutAttributesTest, EveryLayoutReadsBackAsWritten) {
  const char* layouts[] = {
      R"({"salt": {"buckets": 10, "encoding": "decimal", "hash": "java-hashcode"},
          "group": {"length": 32}})",
      R"({"salt": {"buckets": 256, "encoding": "byte", "hash": "murmur3"},
          "group": {"delimiter": "\\x00\\x00"}})",
      R"({"salt": {"buckets": 20, "encoding": "hex", "width": 3, "hash": "phoenix",
          "from": "key"}})",
      R"({"salt": {"buckets": 7, "from": "key"}, "group": {"delimiter": "|"}})",
      R"({"group": {"length": 8}})",
      "{}",
  };
  for (const char* layout : layouts) {
    TableConfig config = Parsed(layout);
    Attributes attributes = TableAttributes(config);
    attributes["SPLIT_POLICY"] = "something else";  // other attributes are ignored
    auto back = LayoutFromAttributes(attributes);
    ASSERT_TRUE(back.ok()) << layout << ": " << back.status().ToString();
    ASSERT_TRUE(back->has_value()) << layout;
    EXPECT_EQ(LayoutToJson(**back), LayoutToJson(config.layout)) << layout;
    EXPECT_EQ(LayoutAttributes(**back), LayoutAttributes(config.layout)) << layout;
  }
}

TEST(LayoutAttributesTest, LayoutToJsonIsTheDocumentsCanonicalLayout) {
  TableConfig config = Parsed(R"({"salt": {"buckets": 10, "encoding": "decimal",
      "hash": "java-hashcode"}, "group": {"length": 32}})");
  nlohmann::json canonical = nlohmann::json::parse(TableConfigToJson(config));
  EXPECT_EQ(nlohmann::json::parse(LayoutToJson(config.layout)), canonical["layout"]);
  EXPECT_EQ(LayoutToJson(config.layout),
            R"({"group":{"length":32},"salt":{"buckets":10,"encoding":"decimal","from":"group",)"
            R"("hash":"java-hashcode","width":1}})");
}

TEST(LayoutAttributesTest, NoLayoutAttributesIsNoRecord) {
  auto none = LayoutFromAttributes({});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto others = LayoutFromAttributes({{"SPLIT_POLICY", "x"}, {"presplit.managed", "true"}});
  ASSERT_TRUE(others.ok());
  EXPECT_FALSE(others->has_value());
}

TEST(LayoutAttributesTest, TablesBuiltBeforeTheMarkerAreReadTheSameWay) {
  // A table created by hand in the HBase shell (conf/hbase/table-attributes.md's example), or by
  // presplitd with a split_policy before the marker: the salt and group attributes alone.
  auto layout = LayoutFromAttributes({{"SPLIT_POLICY", "io.presplit.hbase.NativeSplitPolicy"},
                                      {"presplit.managed", "true"},
                                      {"presplit.layout.salt.buckets", "10"},
                                      {"presplit.layout.salt.encoding", "decimal"},
                                      {"presplit.layout.salt.hash", "java-hashcode"},
                                      {"presplit.layout.group.length", "32"}});
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  ASSERT_TRUE(layout->has_value());
  ASSERT_TRUE((*layout)->salt.has_value());
  EXPECT_EQ((*layout)->salt->buckets, 10);
  EXPECT_EQ((*layout)->salt->width, 1);  // resolved, as the document's parser does
  EXPECT_EQ((*layout)->salt->from, "group");
  EXPECT_EQ((*layout)->group->length, 32);
}

TEST(LayoutAttributesTest, ABadRecordIsRefusedNamingTheAttribute) {
  struct Case {
    Attributes attributes;
    const char* message_start;
  } cases[] = {
      {{{"presplit.layout.salt.buckets", "ten"}, {"presplit.layout.salt.from", "key"}},
       "attribute 'presplit.layout.salt.buckets': expected a whole number, got 'ten'"},
      {{{"presplit.layout.salt.buckets", "-4"}, {"presplit.layout.salt.from", "key"}},
       "attribute 'presplit.layout.salt.buckets': expected a whole number"},
      {{{"presplit.layout.salt.buckets", "300"}, {"presplit.layout.salt.from", "key"}},
       "attribute 'presplit.layout.salt.buckets': must be between 1 and 256"},
      {{{"presplit.layout.salt.buckets", "11"},
        {"presplit.layout.salt.encoding", "decimal"},
        {"presplit.layout.salt.width", "1"},
        {"presplit.layout.salt.from", "key"}},
       "attribute 'presplit.layout.salt.width': "},
      {{{"presplit.layout.salt.buckets", "4"}, {"presplit.layout.salt.hash", "md5"}},
       "attribute 'presplit.layout.salt.hash': unknown hash 'md5'"},
      {{{"presplit.layout.salt.buckets", "4"}}, "attribute 'presplit.layout.salt.from': "},
      {{{"presplit.layout.salt.encoding", "hex"}, {"presplit.layout.salt.from", "key"}},
       "attribute 'presplit.layout.salt.buckets': missing required field"},
      {{{"presplit.layout.group.length", "4"}, {"presplit.layout.group.delimiter", "|"}},
       "attribute 'presplit.layout.group': needs exactly one of"},
      {{{"presplit.layout.group.delimiter", "a\nb"}},
       "attribute 'presplit.layout.group.delimiter': expected printable text"},
      {{{"presplit.layout.group.delimiter", "\\xZZ"}},
       "attribute 'presplit.layout.group.delimiter': "},
      {{{"presplit.layout.recorded", "yes"}}, "attribute 'presplit.layout.recorded': must be"},
      {{{"presplit.layout.buckets", "4"}},
       "attribute 'presplit.layout.buckets': unknown layout attribute"},
      {{{"presplit.layout.salt.buckets.x", "4"}},
       "attribute 'presplit.layout.salt.buckets.x': unknown layout attribute"},
      {{{"presplit.layout.salt.size", "4"}},
       "attribute 'presplit.layout.salt.size': unknown field"},
  };
  for (const auto& c : cases) {
    auto layout = LayoutFromAttributes(c.attributes);
    ASSERT_FALSE(layout.ok()) << c.message_start;
    EXPECT_EQ(layout.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(layout.status().message().rfind(c.message_start, 0), 0u)
        << c.message_start << " -> " << layout.status().message();
  }
}

TEST(LayoutAttributesTest, SplitPolicyTablesCarryTheSameRecord) {
  TableConfig config = Parsed(R"({"salt": {"buckets": 4, "encoding": "hex"},
      "group": {"delimiter": "|"}})",
                              R"(, "split_policy": {})");
  const Attributes table = TableAttributes(config);
  const Attributes policy = SplitPolicyAttributes(config);
  const Attributes layout = LayoutAttributes(config.layout);
  EXPECT_EQ(table.at("presplit.layout.salt.buckets"), "4");
  EXPECT_EQ(table.at("presplit.layout.salt.encoding"), "hex");
  EXPECT_EQ(table.at("presplit.layout.group.delimiter"), "|");
  EXPECT_EQ(table.at("presplit.managed"), "true");
  EXPECT_EQ(table.size(), policy.size() + layout.size() + 1)
      << "the two share no name, and the guard is the one more";
  for (const auto& [name, value] : policy) EXPECT_EQ(table.at(name), value) << name;
  for (const auto& [name, value] : layout) EXPECT_EQ(table.at(name), value) << name;
  // The sampler keeps coprocessor$1; the guard comes first by priority, not by number.
  EXPECT_NE(table.at("coprocessor$1").find("LoadSamplingObserver"), std::string::npos);
  EXPECT_EQ(table.at(kMigrationGuardAttribute), kMigrationGuardCoprocessor);
}

TEST(LayoutAttributesTest, OnlyTheGuardSetAtCreationIsLeftUncompared) {
  TableConfig config =
      Parsed(R"({"salt": {"buckets": 4, "from": "key"}})", R"(, "split_policy": {})");
  int creation_only = 0;
  for (const auto& [name, value] : TableAttributes(config)) {
    if (!IsCreationOnlyAttribute(name)) continue;
    ++creation_only;
    EXPECT_EQ(value, kMigrationGuardCoprocessor) << name;
  }
  EXPECT_EQ(creation_only, 1) << "the guard, and nothing else: the sampler's coprocessor$1 and "
                                 "the split policy's attributes are compared";
}

TEST(LayoutAttributesTest, TheBucketCountOfALayoutsJson) {
  TableConfig config = Parsed(R"({"salt": {"buckets": 12, "encoding": "hex", "from": "key"}})");
  EXPECT_EQ(SaltBucketsOfLayoutJson(LayoutToJson(config.layout)), 12);
  EXPECT_EQ(SaltBucketsOfLayoutJson("{}"), 0) << "unsalted";
  EXPECT_EQ(SaltBucketsOfLayoutJson(R"({"salt":{"buckets":"12"}})"), 0) << "not an integer";
  EXPECT_EQ(SaltBucketsOfLayoutJson(R"({"salt":[1]})"), 0);
  EXPECT_EQ(SaltBucketsOfLayoutJson("not json"), 0);
  EXPECT_EQ(SaltBucketsOfLayoutJson(""), 0);
}

}  // namespace
}  // namespace presplit
