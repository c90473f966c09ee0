// The bounds on JSON from outside (presplit/json_bounds.h): depth and size, checked without
// parsing, so that no znode can overflow a stack in a later copy or dump.
#include "presplit/json_bounds.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "table_documents.h"

namespace presplit {
namespace {

using json = nlohmann::json;

std::string Nested(int depth, const std::string& open, const std::string& inner,
                   const std::string& close) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::string Arrays(int depth) { return Nested(depth, "[", "", "]"); }
// {"":{"":...1}}: 4 bytes a level, so 200,000 levels stay below 1 MiB, as in a znode.
std::string Objects(int depth) { return Nested(depth, "{\"\":", "1", "}"); }

void ExpectTooDeep(std::string_view text, int limit, size_t offset) {
  Status s = CheckJsonBounds(text, JsonBounds{kMaxJsonBytes, limit});
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "JSON nested deeper than " + std::to_string(limit) +
                             " levels (at byte offset " + std::to_string(offset) + ")");
}

TEST(JsonBounds, DefaultsAreZooKeepersZnodeLimitAnd64Levels) {
  EXPECT_EQ(kMaxJsonBytes, 1048576u);
  EXPECT_EQ(kMaxJsonDepth, 64);
  EXPECT_EQ(JsonBounds{}.max_bytes, kMaxJsonBytes);
  EXPECT_EQ(JsonBounds{}.max_depth, kMaxJsonDepth);
}

TEST(JsonBounds, DepthUpToTheLimitPassesOneMoreIsRefusedWithItsOffset) {
  EXPECT_TRUE(CheckJsonBounds(Arrays(64)).ok());
  EXPECT_TRUE(CheckJsonBounds(Objects(64)).ok());
  ExpectTooDeep(Arrays(65), 64, 64);
  ExpectTooDeep(Objects(65), 64, 64 * 4);
  // Arrays and objects count alike, whichever way they alternate.
  EXPECT_TRUE(CheckJsonBounds(Nested(32, "[{\"k\":", "null", "}]")).ok());
  ExpectTooDeep(Nested(33, "[{\"k\":", "null", "}]"), 64, 32 * 6);
}

TEST(JsonBounds, ScalarsAndEmptyTextAreLevelZero) {
  for (const char* text : {"", "1", "\"x\"", "null", "  true  ", "not json at all"}) {
    EXPECT_TRUE(CheckJsonBounds(text, JsonBounds{kMaxJsonBytes, 0}).ok()) << text;
  }
  ExpectTooDeep("[]", 0, 0);
  ExpectTooDeep(" {}", 0, 1);
}

TEST(JsonBounds, SiblingsDoNotAddUp) {
  // 1000 arrays side by side are one level deep, not 1000.
  std::string wide = "[";
  for (int i = 0; i < 1000; ++i) wide += std::string(i ? "," : "") + "[1,{\"a\":2}]";
  wide += "]";
  EXPECT_TRUE(CheckJsonBounds(wide, JsonBounds{kMaxJsonBytes, 3}).ok());
  ExpectTooDeep(wide, 2, 4);  // the first element's object: [[1,{
}

TEST(JsonBounds, BracketsInsideStringsDoNotCount) {
  const std::string brackets(10000, '[');
  EXPECT_TRUE(CheckJsonBounds("{\"k\": \"" + brackets + "\"}", JsonBounds{kMaxJsonBytes, 1}).ok());
  EXPECT_TRUE(
      CheckJsonBounds("[\"" + brackets + "\", \"}}}{{{\"]", JsonBounds{kMaxJsonBytes, 1}).ok());
  // An escaped quote does not end the string...
  EXPECT_TRUE(CheckJsonBounds(R"(["a\"[[[[", "b"])", JsonBounds{kMaxJsonBytes, 1}).ok());
  // ...an escaped backslash does not escape the quote after it, so what follows counts.
  ExpectTooDeep(R"(["a\\", [[]])", 1, 8);
  // Escapes of every kind, and bytes that are not UTF-8, are string content.
  EXPECT_TRUE(
      CheckJsonBounds("[\"\\n\\t\\u005b\\/\\b\xff\xfe[\"]", JsonBounds{kMaxJsonBytes, 1}).ok());
}

TEST(JsonBounds, KeysAreStringsToo) {
  EXPECT_TRUE(CheckJsonBounds(R"({"[[[{{{": 1, "\"{": 2})", JsonBounds{kMaxJsonBytes, 1}).ok());
}

TEST(JsonBounds, ExtraClosersCannotHideTheOpenersAfterThem) {
  const std::string text = std::string(100, ']') + Arrays(65);
  ExpectTooDeep(text, 64, 100 + 64);
}

TEST(JsonBounds, AnUnterminatedStringHidesNothingTheParserWouldAccept) {
  // Malformed: the parser refuses it. The scanner only must not crash or over-read.
  EXPECT_TRUE(CheckJsonBounds("[\"[[[[", JsonBounds{kMaxJsonBytes, 1}).ok());
  EXPECT_TRUE(CheckJsonBounds("[\"\\", JsonBounds{kMaxJsonBytes, 1}).ok());
}

TEST(JsonBounds, EveryByteCountsEvenAfterANulWhereTheParserStops) {
  // nlohmann's parser reads "{}" here and stops at the NUL; the bound is on the whole znode.
  const std::string text("{}\0[[", 5);
  EXPECT_TRUE(json::accept(text));
  ExpectTooDeep(text, 1, 4);
}

TEST(JsonBounds, SizeUpToTheLimitPassesOneByteMoreIsRefused) {
  const std::string at_limit(kMaxJsonBytes, ' ');
  EXPECT_TRUE(CheckJsonBounds(at_limit).ok());
  Status s = CheckJsonBounds(at_limit + " ");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "JSON of 1048577 bytes is larger than the limit of 1048576 bytes");
  EXPECT_EQ(CheckJsonBounds("[1,2]", JsonBounds{4, 64}).message(),
            "JSON of 5 bytes is larger than the limit of 4 bytes");
}

TEST(JsonBounds, TwoHundredThousandLevelsAreRefusedWithoutRecursion) {
  ExpectTooDeep(Arrays(200000), 64, 64);
  ExpectTooDeep(Objects(200000), 64, 64 * 4);
  EXPECT_TRUE(ParseBoundedJson(Arrays(200000)).is_discarded());
  EXPECT_TRUE(ParseBoundedJson(Objects(200000)).is_discarded());
}

TEST(JsonBounds, ParseBoundedJsonParsesWhatIsWithinBounds) {
  json parsed = ParseBoundedJson(R"({"phase": "ready", "load": {"decisions": [{"a": 1}]}})");
  ASSERT_TRUE(parsed.is_object());
  EXPECT_EQ(parsed["load"]["decisions"][0]["a"], 1);
  EXPECT_TRUE(ParseBoundedJson("{ not json").is_discarded());
  EXPECT_TRUE(ParseBoundedJson("").is_discarded());
  EXPECT_TRUE(ParseBoundedJson("[[[1]]]", JsonBounds{kMaxJsonBytes, 2}).is_discarded());
  EXPECT_EQ(ParseBoundedJson("[[[1]]]", JsonBounds{kMaxJsonBytes, 3}), json::parse("[[[1]]]"));
  EXPECT_TRUE(ParseBoundedJson(R"("long")", JsonBounds{5, 64}).is_discarded());
}

TEST(JsonBounds, PresplitsOwnDocumentsAreWellWithinBounds) {
  for (const char* doc : {test_documents::kReferenceDoc}) {
    EXPECT_TRUE(CheckJsonBounds(doc, JsonBounds{kMaxJsonBytes, 4}).ok()) << doc;
  }
}

// The cases the SDK's JsonBounds checks too (tests/vectors/json_bounds.json): the same verdict
// and the same message on both sides.
TEST(JsonBounds, SharedVectors) {
  std::ifstream in(std::string(PRESPLIT_VECTORS_DIR) + "/json_bounds.json");
  ASSERT_TRUE(in) << "tests/vectors/json_bounds.json not found";
  const json vectors = json::parse(in);
  ASSERT_GE(vectors["cases"].size(), 10u);
  for (const auto& c : vectors["cases"]) {
    const std::string text = c["text"];
    const Status s =
        CheckJsonBounds(text, JsonBounds{c["max_bytes"].get<size_t>(), c["max_depth"].get<int>()});
    if (c["problem"].is_null()) {
      EXPECT_TRUE(s.ok()) << c["name"] << ": " << s.ToString();
    } else {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c["name"];
      EXPECT_EQ(s.message(), c["problem"].get<std::string>()) << c["name"];
    }
  }
}

// The depth the parser sees, counted on the parsed value (no recursion: an explicit stack).
int ParsedDepth(const json& value) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> stack = {{&value, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *v) stack.push_back({&child, depth + 1});
  }
  return deepest;
}

// Random documents whose strings are full of brackets, quotes and escapes: the depth counted on
// the text is the parsed value's depth, so the limit refuses exactly the documents deeper than it.
TEST(JsonBounds, AgreesWithTheParsersDepthOnRandomDocuments) {
  std::mt19937 rng(20260522);
  const std::string alphabet = "[]{}\"\\:,ab \x7f";
  auto random_string = [&] {
    std::string s;
    const int n = static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 2000; ++round) {
    // Built bottom-up to a random depth with random siblings and keys.
    json value = random_string();
    const int depth = static_cast<int>(rng() % 12);
    for (int level = 0; level < depth; ++level) {
      if (rng() % 2) {
        json array = json::array({random_string(), 1});
        array.insert(array.begin() + static_cast<long>(rng() % 3), value);
        value = array;
      } else {
        value = json{{random_string(), value}, {random_string() + "k", json::array()}};
      }
    }
    const std::string text = value.dump(rng() % 2 ? -1 : 2, ' ', /*ensure_ascii=*/rng() % 2 == 0);
    const int parsed_depth = ParsedDepth(json::parse(text));
    EXPECT_TRUE(CheckJsonBounds(text, JsonBounds{kMaxJsonBytes, parsed_depth}).ok()) << text;
    if (parsed_depth > 0) {
      EXPECT_FALSE(CheckJsonBounds(text, JsonBounds{kMaxJsonBytes, parsed_depth - 1}).ok()) << text;
    }
  }
}

}  // namespace
}  // namespace presplit
