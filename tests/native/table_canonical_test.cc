// The canonical form of the table document (presplit/table_canonical.h).
#include "presplit/table_canonical.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "presplit/table_config.h"
#include "presplit/table_derived.h"
#include "table_documents.h"

namespace presplit {
namespace {

using json = nlohmann::json;

json Reference() { return json::parse(test_documents::kReferenceDoc); }

TEST(TableCanonical, RoundTrips) {
  for (const json& doc : std::vector<json>{
           Reference(),
           json::parse(R"({"version":1,"table":"t","split":{"algorithm":"hex-string",
             "regions":7,"first_row":"0A","last_row":"ff"},"families":[{"name":"cf"}]})"),
           json::parse(R"({"version":1,"table":"ns:t2","split":{"algorithm":"uniform",
             "regions":5,"last_row":"\\x10\\x00"},"families":[{"name":"a"},{"name":"b",
             "compression":"zstd","in_memory":true}]})"),
           json::parse(R"({"version":1,"table":"t","layout":{"group":{"delimiter":"|\\x00"}},
             "split":{"algorithm":"explicit","keys":["a","b\\x00","\\xFF"]},
             "families":[{"name":"f"}]})"),
           json::parse(R"({"version":1,"table":"t","split":{"algorithm":"decimal-string",
             "regions":3},"families":[{"name":"f"}]})"),
           json::parse(R"({"version":1,"table":"t","split":{"algorithm":"uniform","regions":4},
             "load_split":{"dry_run":false,"min_requests_per_s":12.5,"max_regions":6},
             "families":[{"name":"f"}]})"),
           json::parse(R"({"version":1,"table":"t","split":{"algorithm":"uniform","regions":4},
             "load_split":{"dry_run":false,"move_daughters":{"after_s":60}},
             "families":[{"name":"f"}]})"),
           json::parse(R"({"version":1,"table":"t","layout":{"salt":{"buckets":16},
             "group":{"length":4}},"split":{"algorithm":"salt-buckets"},
             "migration":{"allowed":true,"workers":2,"engine":"mapreduce","drop_old":true},
             "families":[{"name":"f"}]})"),
       }) {
    SCOPED_TRACE(doc.dump());
    Result<TableConfig> first = ParseTableConfig(doc.dump());
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    std::string canonical = TableConfigToJson(*first);
    Result<TableConfig> second = ParseTableConfig(canonical);
    ASSERT_TRUE(second.ok()) << second.status().ToString() << "\n" << canonical;
    EXPECT_EQ(TableConfigToJson(*second), canonical);
    EXPECT_EQ(*ComputeSplitKeys(*first), *ComputeSplitKeys(*second));
  }
}

TEST(TableCanonical, FillsDefaults) {
  Result<TableConfig> r = ParseTableConfig(
      R"({"version":1,"table":"t","layout":{"salt":{"buckets":300,"encoding":"HEX",
        "from":"key"}},"split":{"algorithm":"salt-buckets"},"families":[{"name":"f",
        "compression":"snappy"}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  json out = json::parse(TableConfigToJson(*r));
  EXPECT_EQ(out["table"], "t");
  EXPECT_EQ(out["layout"]["salt"]["encoding"], "hex");
  EXPECT_EQ(out["layout"]["salt"]["width"], 3);
  EXPECT_EQ(out["layout"]["salt"]["hash"], "murmur3");
  EXPECT_EQ(out["split"]["regions"], 300);
  EXPECT_EQ(out["families"][0]["compression"], "SNAPPY");
  EXPECT_EQ(out["families"][0]["bloom_filter"], "ROW");
  EXPECT_EQ(out["families"][0]["block_size"], 65536);
  EXPECT_FALSE(out.contains("load_split"));
  EXPECT_FALSE(out.contains("migration"));

  // move_daughters is written only when the document has it (and then with its defaults).
  r = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":2},"load_split":{},"families":[{"name":"f"}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(json::parse(TableConfigToJson(*r))["load_split"].contains("move_daughters"));
  r = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":2},"load_split":{"move_daughters":{}},"families":[{"name":"f"}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(json::parse(TableConfigToJson(*r))["load_split"]["move_daughters"],
            json::parse(R"({"after_s":300,"dry_run":false})"));
  EXPECT_EQ(out["families"][0]["in_memory"], false);
  EXPECT_EQ(r->FullName(), "default:t");

  r = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":2},"families":[{"name":"f"}]})");
  ASSERT_TRUE(r.ok());
  out = json::parse(TableConfigToJson(*r));
  EXPECT_EQ(out["split"]["first_row"], "");
  EXPECT_EQ(out["split"]["last_row"], "\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF");
  EXPECT_EQ(out["description"], "");
}

}  // namespace
}  // namespace presplit
