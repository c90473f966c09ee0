// Parsing and validating the table document (presplit/table_config.h).
#include "presplit/table_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "presplit/bytes.h"
#include "presplit/json_bounds.h"
#include "presplit/table_canonical.h"
#include "presplit/table_derived.h"
#include "table_documents.h"

namespace presplit {
namespace {

using json = nlohmann::json;

using test_documents::kReferenceDoc;

json ConfigReference() { return json::parse(kReferenceDoc); }

// Parses `doc` and expects an InvalidArgument naming `field` and containing `problem`.
void ExpectFieldError(const json& doc, const std::string& field, const std::string& problem) {
  Result<TableConfig> r = ParseTableConfig(doc.dump());
  ASSERT_FALSE(r.ok()) << "accepted: " << doc.dump();
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("field '" + field + "': ", 0), 0u) << m;
  EXPECT_NE(m.find(problem), std::string::npos) << m;
}

TEST(TableConfig, ReferenceCase) {
  Result<TableConfig> r = ParseTableConfig(kReferenceDoc);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const TableConfig& c = *r;
  EXPECT_EQ(c.table, "tinawang:check");
  EXPECT_EQ(c.namespace_name, "tinawang");
  EXPECT_EQ(c.qualifier, "check");
  EXPECT_EQ(c.FullName(), "tinawang:check");
  ASSERT_TRUE(c.layout.salt.has_value());
  EXPECT_EQ(c.layout.salt->buckets, 10);
  EXPECT_EQ(c.layout.salt->encoding, SaltEncoding::kDecimal);
  EXPECT_EQ(c.layout.salt->width, 1);
  EXPECT_EQ(c.layout.salt->hash, "java-hashcode");
  ASSERT_TRUE(c.layout.group.has_value());
  EXPECT_EQ(c.layout.group->length, 32);
  EXPECT_EQ(c.split.algorithm, SplitAlgorithm::kSaltBuckets);
  EXPECT_EQ(c.split.regions, 10);
  ASSERT_EQ(c.families.size(), 1u);
  EXPECT_EQ(c.families[0].compression, "SNAPPY");
  EXPECT_EQ(c.families[0].data_block_encoding, "FAST_DIFF");
  EXPECT_EQ(c.families[0].max_versions, 1);
  EXPECT_EQ(c.families[0].ttl_seconds, 2147483647);
  Result<std::vector<std::string>> keys = ComputeSplitKeys(c);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9"}));
}

// The bounds of presplit/json_bounds.h come first: a valid document nested too deep, or larger
// than a znode can be, is refused with that reason and no field error.
TEST(TableConfig, DocumentsOutOfBoundsAreRefusedBeforeParsing) {
  const std::string valid = R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":2},"families":[{"name":"f"}]})";
  ASSERT_TRUE(ParseTableConfig(valid).ok());

  std::string deep;
  for (int i = 0; i < 200000; ++i) deep += R"({"":)";  // 4 bytes a level: below 1 MiB
  deep += "1" + std::string(200000, '}');
  for (const std::string& doc :
       {deep, std::string(200000, '[') + std::string(200000, ']'),
        valid.substr(0, valid.size() - 1) + R"(,"description":)" + deep + "}"}) {
    Result<TableConfig> r = ParseTableConfig(doc);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("JSON nested deeper than 64 levels (at byte offset ", 0),
              0u)
        << r.status().message();
  }

  // 64 levels are the limit, not a reason: an unknown field nested that deep is a field error.
  std::string at_limit = valid.substr(0, valid.size() - 1) + R"(,"x":)";
  at_limit += std::string(63, '[') + std::string(63, ']') + "}";
  Result<TableConfig> r = ParseTableConfig(at_limit);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message().rfind("field 'x': unknown field (expected one of version, table, ", 0),
      0u)
      << r.status().message();

  // Whitespace is JSON: a valid document padded past 1 MiB is refused for its size alone.
  r = ParseTableConfig(valid + std::string(kMaxJsonBytes, ' '));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "JSON of " + std::to_string(valid.size() + kMaxJsonBytes) +
                                      " bytes is larger than the limit of 1048576 bytes");
  EXPECT_TRUE(ParseTableConfig(valid + std::string(kMaxJsonBytes - valid.size(), ' ')).ok());
}

TEST(TableConfig, MalformedDocuments) {
  Result<TableConfig> r = ParseTableConfig(R"({"version": 1, "table": )");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("malformed JSON: ", 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find("line 1, column"), std::string::npos) << r.status().message();
  r = ParseTableConfig("[1, 2]");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must be a JSON object"), std::string::npos);
  r = ParseTableConfig("");
  EXPECT_FALSE(r.ok());
  r = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"hex-string",
      "regions":2,"regions":3},"families":[{"name":"f"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "field 'split.regions': duplicate key");
  r = ParseTableConfig(R"({"version":1,"table":"t","split":{"algorithm":"uniform",
      "regions":2},"families":[{"name":"f"},{"name":"g","ttl_seconds":5,"ttl_seconds":6}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "field 'families[1].ttl_seconds': duplicate key");
}

// Errors quote pieces of the document; whatever its bytes, the message stays printable ASCII
// (the daemon logs it and stores it in a JSON status).
TEST(TableConfig, ErrorsNeverCarryRawBytes) {
  const std::vector<std::string> documents = {
      std::string("{\"version\": 1, \"table\": \"t\xff\xfe\"}"),
      std::string("\x80\x01\x02garbage"),
      std::string("{\"caf\xc3\xa9\": 1, \"version\": 1}"),
      std::string("{\"version\": 1, \"table\": \"a\x01b\"}"),
  };
  for (const auto& doc : documents) {
    Result<TableConfig> r = ParseTableConfig(doc);
    ASSERT_FALSE(r.ok());
    for (unsigned char c : r.status().message()) {
      EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "byte " << int(c) << " in " << r.status().message();
    }
  }
  Result<TableConfig> r = ParseTableConfig(std::string("\xff"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\\xFF"), std::string::npos) << r.status().message();
}

TEST(TableConfig, TopLevelFieldErrors) {
  json d = ConfigReference();
  d["version"] = 2;
  ExpectFieldError(d, "version", "unsupported version 2 (this presplit understands 1)");
  d = ConfigReference();
  d["version"] = "1";
  ExpectFieldError(d, "version", "expected an integer, got a string");
  d = ConfigReference();
  d.erase("version");
  ExpectFieldError(d, "version", "missing required field");
  d = ConfigReference();
  d["tabel"] = "x";
  ExpectFieldError(d, "tabel", "unknown field");
  d = ConfigReference();
  d.erase("table");
  ExpectFieldError(d, "table", "missing required field");
  d = ConfigReference();
  d["table"] = 5;
  ExpectFieldError(d, "table", "expected a string, got an integer");
  d = ConfigReference();
  d["description"] = json::array();
  ExpectFieldError(d, "description", "expected a string, got an array");
  d = ConfigReference();
  d["layout"] = "salted";
  ExpectFieldError(d, "layout", "expected an object, got a string");
  d = ConfigReference();
  d["layout"]["pepper"] = json::object();
  ExpectFieldError(d, "layout.pepper", "unknown field");
}

TEST(TableConfig, TableNameErrors) {
  for (const auto& [name, problem] : std::vector<std::pair<std::string, std::string>>{
           {"hbase:meta", "reserved"},
           {"a:b:c", "more than one ':'"},
           {":t", "namespace before ':' is empty"},
           {"ns:", "qualifier is empty"},
           {"ns-x:t", "the namespace may only contain [A-Za-z0-9_]"},
           {"ns:.t", "must not start with '.'"},
           {"-t", "must not start with '-'"},
           {"t t", "may only contain [A-Za-z0-9_.-]"},
           {"zookeeper", "not allowed"},
           {"", "must not be empty"},
           {std::string(256, 'a'), "longer than 255"},
       }) {
    json d = ConfigReference();
    d["table"] = name;
    ExpectFieldError(d, "table", problem);
  }
}

TEST(TableConfig, SaltAndGroupErrors) {
  json d = ConfigReference();
  d["layout"]["salt"]["buckets"] = 11;
  d["split"].erase("regions");
  ExpectFieldError(d, "layout.salt.width", "a 1-character decimal salt cannot hold 11 buckets");
  d = ConfigReference();
  d["layout"]["salt"]["encoding"] = "byte";
  d["layout"]["salt"]["buckets"] = 300;
  d["layout"]["salt"].erase("width");
  ExpectFieldError(d, "layout.salt.buckets", "must be between 1 and 256 for byte encoding");
  d = ConfigReference();
  d["layout"]["salt"]["buckets"] = 0;
  ExpectFieldError(d, "layout.salt.buckets", "must be between 1 and 10000 (got 0)");
  d = ConfigReference();
  d["layout"]["salt"].erase("buckets");
  ExpectFieldError(d, "layout.salt.buckets", "missing required field");
  d = ConfigReference();
  d["layout"]["salt"]["encoding"] = "base64";
  ExpectFieldError(d, "layout.salt.encoding", "unknown salt encoding 'base64'");
  d = ConfigReference();
  d["layout"]["salt"]["hash"] = "md5";
  ExpectFieldError(d, "layout.salt.hash",
                   "unknown hash 'md5' (expected one of murmur3, phoenix, java-hashcode)");
  d = ConfigReference();
  d["layout"]["salt"]["from"] = "row";
  ExpectFieldError(d, "layout.salt.from", "unknown salt source 'row'");
  d = ConfigReference();
  d["layout"]["salt"]["widht"] = 1;
  ExpectFieldError(d, "layout.salt.widht", "unknown field");
  d = ConfigReference();
  d["layout"]["salt"]["width"] = 1.5;
  ExpectFieldError(d, "layout.salt.width", "expected an integer");
  d = ConfigReference();
  d["layout"].erase("group");
  ExpectFieldError(d, "layout.salt.from", "needs 'layout.group'");
  d = ConfigReference();
  d["layout"]["group"] = json::object();
  ExpectFieldError(d, "layout.group", "needs exactly one of 'length' or 'delimiter'");
  d = ConfigReference();
  d["layout"]["group"]["delimiter"] = "|";
  ExpectFieldError(d, "layout.group", "needs exactly one of 'length' or 'delimiter'");
  d = ConfigReference();
  d["layout"]["group"] = {{"length", 0}};
  ExpectFieldError(d, "layout.group.length", "must be between 1 and 32767 (got 0)");
  d = ConfigReference();
  d["layout"]["group"] = {{"delimiter", ""}};
  ExpectFieldError(d, "layout.group.delimiter", "must not be empty");
  d = ConfigReference();
  d["layout"]["group"] = {{"delimiter", "\\x0g"}};
  ExpectFieldError(d, "layout.group.delimiter", "malformed escape");
}

TEST(TableConfig, SplitErrors) {
  json d = ConfigReference();
  d["split"]["regoins"] = 10;
  // The message says what is allowed there: the misspelt key is fixed without the manual.
  ExpectFieldError(d, "split.regoins", "unknown field (expected one of algorithm, regions, ");
  d = ConfigReference();
  d.erase("split");
  ExpectFieldError(d, "split", "missing required field");
  d = ConfigReference();
  d["split"].erase("algorithm");
  ExpectFieldError(d, "split.algorithm", "missing required field");
  d = ConfigReference();
  d["split"]["algorithm"] = "random";
  ExpectFieldError(d, "split.algorithm", "unknown split algorithm 'random'");
  d = ConfigReference();
  d["split"]["regions"] = 12;
  ExpectFieldError(d, "split.regions", "must equal layout.salt.buckets (10)");
  d = ConfigReference();
  d["layout"].erase("salt");
  ExpectFieldError(d, "split.algorithm", "'salt-buckets' needs 'layout.salt'");
  d = ConfigReference();
  d["split"]["first_row"] = "0";
  ExpectFieldError(d, "split.first_row", "not allowed with algorithm 'salt-buckets'");

  d = ConfigReference();
  d["split"] = {{"algorithm", "hex-string"}, {"regions", 0}};
  ExpectFieldError(d, "split.regions", "must be between 1 and 10000 (got 0)");
  d["split"]["regions"] = 10001;
  ExpectFieldError(d, "split.regions", "must be between 1 and 10000 (got 10001)");
  d["split"].erase("regions");
  ExpectFieldError(d, "split.regions", "missing required field");
  d["split"]["regions"] = "10";
  ExpectFieldError(d, "split.regions", "expected an integer, got a string");
  d["split"]["regions"] = 10;
  // A row too long says how long it is.
  d["split"]["last_row"] = std::string(32768, 'f');
  ExpectFieldError(d, "split.last_row", "longer than 32767 characters (got 32768)");
  d["split"].erase("last_row");
  d["split"]["first_row"] = "0g";
  ExpectFieldError(d, "split.first_row", "invalid hex digit 'g' at offset 1");
  d["split"]["first_row"] = "ff";
  d["split"]["last_row"] = "10";
  ExpectFieldError(d, "split", "must be greater than first row");
  d["split"]["first_row"] = "0";
  d["split"]["last_row"] = "5";
  ExpectFieldError(d, "split", "into 10 regions");
  d["split"].erase("first_row");
  d["split"].erase("last_row");
  d["split"]["keys"] = json::array({"a"});
  ExpectFieldError(d, "split.keys", "not allowed with algorithm 'hex-string'");

  d["split"] = {{"algorithm", "decimal-string"}, {"regions", 3}, {"last_row", "9f"}};
  ExpectFieldError(d, "split.last_row", "invalid decimal digit 'f' at offset 1");
  d["split"] = {{"algorithm", "uniform"}, {"regions", 3}, {"first_row", "\\xZZ"}};
  ExpectFieldError(d, "split.first_row", "malformed escape '\\xZZ' at offset 0");
  d["split"] = {{"algorithm", "uniform"}, {"regions", 3}, {"first_row", "b"}, {"last_row", "a"}};
  ExpectFieldError(d, "split", "must be greater than first row");

  d["split"] = {{"algorithm", "explicit"}, {"regions", 3}, {"keys", {"a"}}};
  ExpectFieldError(d, "split.regions", "not allowed with algorithm 'explicit'");
  d["split"] = {{"algorithm", "explicit"}};
  ExpectFieldError(d, "split.keys", "missing required field");
  d["split"] = {{"algorithm", "explicit"}, {"keys", "a,b"}};
  ExpectFieldError(d, "split.keys", "expected an array, got a string");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"a", 5}}};
  ExpectFieldError(d, "split.keys[1]", "expected a string, got an integer");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"a", "\\x0a"}}};
  ExpectFieldError(d, "split.keys[1]", "malformed escape");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"b", "a"}}};
  ExpectFieldError(d, "split.keys", "split key 1 'a' is not greater than split key 0 'b'");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"a", "a"}}};
  ExpectFieldError(d, "split.keys", "(duplicate)");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"a", std::string(32768, 'b')}}};
  ExpectFieldError(d, "split.keys",
                   "split key 1 is 32768 bytes long (a row key has at most 32767)");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"", "a"}}};
  ExpectFieldError(d, "split.keys", "split key 0 is empty");
  d["split"] = {{"algorithm", "explicit"}, {"keys", {"a"}}, {"last_row", "z"}};
  ExpectFieldError(d, "split.last_row", "not allowed with algorithm 'explicit'");
}

TEST(TableConfig, FamilyErrors) {
  json d = ConfigReference();
  d["families"][0]["compression"] = "SNAPPYX";
  ExpectFieldError(d, "families[0].compression",
                   "unknown compression 'SNAPPYX' (expected one of NONE, GZ, LZO, SNAPPY, LZ4, "
                   "BZIP2, ZSTD, LZMA)");
  d = ConfigReference();
  d["families"][0]["data_block_encoding"] = "PREFIX_TREE";
  ExpectFieldError(d, "families[0].data_block_encoding",
                   "unknown data block encoding 'PREFIX_TREE' (expected one of NONE, PREFIX, "
                   "DIFF, FAST_DIFF, ROW_INDEX_V1)");
  d = ConfigReference();
  d["families"][0]["bloom_filter"] = "ROWS";
  ExpectFieldError(d, "families[0].bloom_filter", "unknown bloom filter 'ROWS'");
  d = ConfigReference();
  d["families"][0]["max_versions"] = 0;
  ExpectFieldError(d, "families[0].max_versions", "must be between 1 and");
  d = ConfigReference();
  d["families"][0]["ttl_seconds"] = 0;
  ExpectFieldError(d, "families[0].ttl_seconds", "must be between 1 and 2147483647 (got 0)");
  d = ConfigReference();
  d["families"][0]["ttl_seconds"] = 2147483648LL;
  ExpectFieldError(d, "families[0].ttl_seconds", "(got 2147483648)");
  d = ConfigReference();
  d["families"][0]["block_size"] = 512;
  ExpectFieldError(d, "families[0].block_size", "must be between 1024 and 16777216 (got 512)");
  d = ConfigReference();
  d["families"][0]["block_size"] = 16777217;
  ExpectFieldError(d, "families[0].block_size", "(got 16777217)");
  d = ConfigReference();
  d["families"][0]["in_memory"] = "yes";
  ExpectFieldError(d, "families[0].in_memory", "expected a boolean, got a string");
  d = ConfigReference();
  d["families"][0]["colour"] = "red";
  ExpectFieldError(d, "families[0].colour", "unknown field");
  d = ConfigReference();
  d["families"][0].erase("name");
  ExpectFieldError(d, "families[0].name", "missing required field");
  for (const auto& [name, problem] : std::vector<std::pair<std::string, std::string>>{
           {"", "must not be empty"},
           {".f", "must not start with '.'"},
           {"a:b", "forbidden character at offset 1"},
           {"a/b", "forbidden character"},
           {"a\\b", "forbidden character"},
           {"a\tb", "forbidden character"},
           {"recovered.edits", "reserved"},
       }) {
    d = ConfigReference();
    d["families"][0]["name"] = name;
    ExpectFieldError(d, "families[0].name", problem);
  }
  d = ConfigReference();
  d["families"].push_back({{"name", "g"}});
  d["families"].push_back({{"name", "f"}});
  ExpectFieldError(d, "families[2].name", "duplicate column family 'f' (also families[0])");
  d = ConfigReference();
  d["families"] = json::array();
  ExpectFieldError(d, "families", "at least one column family is needed");
  d = ConfigReference();
  d.erase("families");
  ExpectFieldError(d, "families", "missing required field");
  d = ConfigReference();
  d["families"] = {{"name", "f"}};
  ExpectFieldError(d, "families", "expected an array, got an object");
  d = ConfigReference();
  d["families"] = json::array({"f"});
  ExpectFieldError(d, "families[0]", "expected an object, got a string");
}

TEST(TableConfig, EnumsAreCaseInsensitive) {
  json d = ConfigReference();
  d["families"][0]["compression"] = "snappy";
  d["families"][0]["data_block_encoding"] = "fast_diff";
  d["families"][0]["bloom_filter"] = "rowcol";
  d["layout"]["salt"]["encoding"] = "DECIMAL";
  d["split"]["algorithm"] = "Salt-Buckets";
  Result<TableConfig> r = ParseTableConfig(d.dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->families[0].compression, "SNAPPY");
  EXPECT_EQ(r->families[0].data_block_encoding, "FAST_DIFF");
  EXPECT_EQ(r->families[0].bloom_filter, "ROWCOL");
  EXPECT_EQ(r->layout.salt->encoding, SaltEncoding::kDecimal);
}

}  // namespace
}  // namespace presplit

namespace presplit {
namespace {

// Every prefix of a valid document is malformed; none may throw or be accepted.
TEST(TableConfig, TruncatedDocumentsAreRejectedWithoutThrowing) {
  const std::string doc = kReferenceDoc;
  for (size_t n = 0; n + 1 < doc.size(); ++n) {
    Result<TableConfig> r = ParseTableConfig(std::string_view(doc).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  }
  EXPECT_TRUE(ParseTableConfig(doc).ok());
}

TEST(TableConfig, LoadSplitDefaultsAndBounds) {
  json d = ConfigReference();
  EXPECT_FALSE(ParseTableConfig(d.dump())->load_split.has_value());

  d["load_split"] = json::object();
  Result<TableConfig> c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->load_split.has_value());
  EXPECT_TRUE(c->load_split->dry_run);
  EXPECT_EQ(c->load_split->min_requests_per_s, 1000);
  EXPECT_EQ(c->load_split->mean_multiple, 3);
  EXPECT_EQ(c->load_split->sustain_s, 10);
  EXPECT_EQ(c->load_split->max_regions, 20) << "twice the 10 regions the table is created with";
  EXPECT_EQ(c->load_split->cooldown_s, 600);
  EXPECT_EQ(c->load_split->unsplittable_s, 3600);

  d["load_split"] = {{"dry_run", false},    {"min_requests_per_s", 50.5}, {"mean_multiple", 1.5},
                     {"sustain_s", 5},      {"max_regions", 10},          {"cooldown_s", 30},
                     {"unsplittable_s", 60}};
  c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->load_split->dry_run);
  EXPECT_EQ(c->load_split->min_requests_per_s, 50.5);
  EXPECT_EQ(c->load_split->mean_multiple, 1.5);
  EXPECT_EQ(c->load_split->sustain_s, 5);
  EXPECT_EQ(c->load_split->max_regions, 10);
  EXPECT_EQ(c->load_split->cooldown_s, 30);
  EXPECT_EQ(c->load_split->unsplittable_s, 60);

  d = ConfigReference();
  d["load_split"] = {{"max_regions", 9}};
  ExpectFieldError(d, "load_split.max_regions", "must be between 10 and 10000 (got 9)");
  d["load_split"] = {{"mean_multiple", 1}};
  ExpectFieldError(d, "load_split.mean_multiple", "must be greater than 1");
  d["load_split"] = {{"min_requests_per_s", 0}};
  ExpectFieldError(d, "load_split.min_requests_per_s", "must be greater than 0");
  d["load_split"] = {{"sustain_s", 0}};
  ExpectFieldError(d, "load_split.sustain_s", "must be between 1 and 86400 (got 0)");
  d["load_split"] = {{"dry_run", "yes"}};
  ExpectFieldError(d, "load_split.dry_run", "expected a boolean");
  d["load_split"] = {{"hot", true}};
  ExpectFieldError(d, "load_split.hot", "unknown field");
  d["load_split"] = 3;
  ExpectFieldError(d, "load_split", "expected an object");
}

TEST(TableConfig, LoadSplitMoveDaughters) {
  json d = ConfigReference();
  d["load_split"] = json::object();
  EXPECT_FALSE(ParseTableConfig(d.dump())->load_split->move_daughters.has_value())
      << "off unless asked for";

  d["load_split"] = {{"move_daughters", json::object()}};
  Result<TableConfig> c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->load_split->move_daughters.has_value());
  EXPECT_EQ(c->load_split->move_daughters->after_s, 300);
  EXPECT_FALSE(c->load_split->move_daughters->dry_run);

  d["load_split"] = {{"dry_run", false}, {"move_daughters", {{"after_s", 0}, {"dry_run", true}}}};
  c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->load_split->move_daughters->after_s, 0);
  EXPECT_TRUE(c->load_split->move_daughters->dry_run);

  d["load_split"] = {{"move_daughters", {{"after_s", 86401}}}};
  ExpectFieldError(d, "load_split.move_daughters.after_s",
                   "must be between 0 and 86400 (got 86401)");
  d["load_split"] = {{"move_daughters", {{"after_s", -1}}}};
  ExpectFieldError(d, "load_split.move_daughters.after_s", "must be between 0 and 86400 (got -1)");
  d["load_split"] = {{"move_daughters", true}};
  ExpectFieldError(d, "load_split.move_daughters", "expected an object");
  d["load_split"] = {{"move_daughters", {{"dry_run", "no"}}}};
  ExpectFieldError(d, "load_split.move_daughters.dry_run", "expected a boolean");
  d["load_split"] = {{"move_daughters", {{"window_s", 60}}}};
  ExpectFieldError(d, "load_split.move_daughters.window_s", "unknown field");
}

TEST(TableConfig, MigrationDefaultsAndBounds) {
  json d = ConfigReference();
  EXPECT_FALSE(ParseTableConfig(d.dump())->migration.has_value());

  d["migration"] = json::object();
  Result<TableConfig> c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->migration.has_value());
  EXPECT_FALSE(c->migration->allowed) << "a migration is never started unless asked for";
  EXPECT_EQ(c->migration->workers, 4);
  EXPECT_EQ(c->migration->max_cells_per_s, 0);
  EXPECT_EQ(c->migration->grace_period_s, 3600);
  EXPECT_FALSE(c->migration->drop_old);
  EXPECT_EQ(c->migration->engine, "auto");

  d["migration"] = {{"allowed", true},     {"workers", 8},     {"max_cells_per_s", 5000},
                    {"grace_period_s", 0}, {"drop_old", true}, {"engine", "MapReduce"}};
  c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->migration->allowed);
  EXPECT_EQ(c->migration->workers, 8);
  EXPECT_EQ(c->migration->max_cells_per_s, 5000);
  EXPECT_EQ(c->migration->grace_period_s, 0);
  EXPECT_TRUE(c->migration->drop_old);
  EXPECT_EQ(c->migration->engine, "mapreduce");
  d = ConfigReference();
  d["migration"] = {{"allowed", true}, {"engine", "hfile"}};
  auto hfile = ParseTableConfig(d.dump());
  ASSERT_TRUE(hfile.ok()) << hfile.status().message();
  EXPECT_EQ(hfile->migration->engine, "hfile");

  d = ConfigReference();
  d["migration"] = {{"workers", 0}};
  ExpectFieldError(d, "migration.workers", "must be between 1 and 64 (got 0)");
  d["migration"] = {{"max_cells_per_s", -1}};
  ExpectFieldError(d, "migration.max_cells_per_s", "must be between 0 and 1000000000 (got -1)");
  d["migration"] = {{"grace_period_s", -5}};
  ExpectFieldError(d, "migration.grace_period_s", "must be between 0 and 31536000 (got -5)");
  d["migration"] = {{"engine", "copytable"}};
  ExpectFieldError(
      d, "migration.engine",
      "unknown migration engine 'copytable' (expected one of put, hfile, mapreduce, auto)");
  d["migration"] = {{"allowed", "yes"}};
  ExpectFieldError(d, "migration.allowed", "expected a boolean");
  d["migration"] = {{"allow", true}};
  ExpectFieldError(d, "migration.allow", "unknown field");
  d["migration"] = true;
  ExpectFieldError(d, "migration", "expected an object");
}

TEST(TableConfig, MigrationReplication) {
  json d = ConfigReference();
  d["migration"] = {{"allowed", true}};
  auto c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->migration->replication, "refuse") << "another cluster's copy is never dropped "
                                                    "silently: the default refuses";
  EXPECT_EQ(TableConfigToJson(*c).find("replication"), std::string::npos)
      << "a document without the field keeps its canonical form";
  for (const char* value : {"follow", "STOP", "Refuse"}) {
    d["migration"] = {{"allowed", true}, {"replication", value}};
    c = ParseTableConfig(d.dump());
    ASSERT_TRUE(c.ok()) << value << ": " << c.status().message();
    std::string lower = value;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(c->migration->replication, lower);
    auto again = ParseTableConfig(TableConfigToJson(*c));
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->migration->replication, lower) << "the canonical form keeps it";
  }
  d["migration"] = {{"replication", "mirror"}};
  ExpectFieldError(
      d, "migration.replication",
      "unknown migration replication 'mirror' (expected one of refuse, follow, stop)");
  d["migration"] = {{"replication", 1}};
  ExpectFieldError(d, "migration.replication", "expected a string");
}

TEST(TableConfig, MigrationMaxWritePause) {
  json d = ConfigReference();
  d["migration"] = {{"allowed", true}};
  auto c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->migration->max_write_pause_ms, 5000) << "a few seconds by default";
  EXPECT_EQ(TableConfigToJson(*c).find("max_write_pause_ms"), std::string::npos);
  d["migration"] = {{"allowed", true}, {"max_write_pause_ms", 1500}};
  c = ParseTableConfig(d.dump());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->migration->max_write_pause_ms, 1500);
  auto again = ParseTableConfig(TableConfigToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->migration->max_write_pause_ms, 1500);
  d["migration"] = {{"max_write_pause_ms", 100}};
  ExpectFieldError(d, "migration.max_write_pause_ms", "must be between 500 and 600000 (got 100)");
}

}  // namespace
}  // namespace presplit
