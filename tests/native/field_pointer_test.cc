// The JSON Pointer of a table document's error (presplit/field_pointer.h), on the parser's own
// messages as well as on hand-written paths.
#include "presplit/field_pointer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "presplit/table_config.h"
#include "table_documents.h"

namespace presplit {
namespace {

using json = nlohmann::json;

TEST(FieldPointer, DottedPathsAndIndices) {
  EXPECT_EQ(FieldPathToPointer("layout.salt.buckets"), "/layout/salt/buckets");
  EXPECT_EQ(FieldPathToPointer("families[0].name"), "/families/0/name");
  EXPECT_EQ(FieldPathToPointer("families[12]"), "/families/12");
  EXPECT_EQ(FieldPathToPointer("split.keys[3]"), "/split/keys/3");
  EXPECT_EQ(FieldPathToPointer("a[1][2].b"), "/a/1/2/b");
  EXPECT_EQ(FieldPathToPointer("version"), "/version");
  EXPECT_EQ(FieldPathToPointer(""), "");
}

TEST(FieldPointer, EscapesAsRfc6901Says) {
  EXPECT_EQ(FieldPathToPointer("layout.a/b"), "/layout/a~1b");
  EXPECT_EQ(FieldPathToPointer("x~y"), "/x~0y");
  // A bracket that is no index is part of the name.
  EXPECT_EQ(FieldPathToPointer("layout.odd[key"), "/layout/odd[key");
  EXPECT_EQ(FieldPathToPointer("split.k[x]"), "/split/k[x]");
}

TEST(FieldPointer, SplitsFieldMessages) {
  FieldErrorParts parts = SplitFieldError("field 'layout.salt.buckets': must be between 1 and 256");
  EXPECT_EQ(parts.pointer, "/layout/salt/buckets");
  EXPECT_EQ(parts.message, "must be between 1 and 256");
  parts = SplitFieldError("malformed JSON: [json.exception.parse_error.101] ...");
  EXPECT_EQ(parts.pointer, "");
  EXPECT_EQ(parts.message, "malformed JSON: [json.exception.parse_error.101] ...");
  parts = SplitFieldError("field 'unterminated");
  EXPECT_EQ(parts.pointer, "");
}

// The pointer of each kind of refusal, from the parser's real messages: the pointer must
// resolve to the offending value (or, for a missing field, to where it belongs).
TEST(FieldPointer, PointsAtTheFieldTheParserRefused) {
  struct Case {
    std::string patch_pointer;  // where the test damages the reference document
    json value;
    std::string expected;
  };
  for (const Case& c : {
           Case{"/layout/salt/buckets", 0, "/layout/salt/buckets"},
           Case{"/layout/salt/buckets", "ten", "/layout/salt/buckets"},
           Case{"/layout/salt/hash", "md4", "/layout/salt/hash"},
           Case{"/families/0/name", "", "/families/0/name"},
           Case{"/families/0/compression", "SNAPPYX", "/families/0/compression"},
           Case{"/layout/salt/colour", "red", "/layout/salt/colour"},
           Case{"/split/algorithm", "nope", "/split/algorithm"},
           Case{"/table", "a:b:c", "/table"},
           Case{"/families", json::array(), "/families"},
       }) {
    json doc = json::parse(test_documents::kReferenceDoc);
    doc[json::json_pointer(c.patch_pointer)] = c.value;
    Result<TableConfig> parsed = ParseTableConfig(doc.dump());
    ASSERT_FALSE(parsed.ok()) << doc.dump();
    EXPECT_EQ(SplitFieldError(parsed.status().message()).pointer, c.expected)
        << parsed.status().message();
  }
  json doc = json::parse(test_documents::kReferenceDoc);
  doc["families"].push_back(doc["families"][0]);
  Result<TableConfig> duplicate = ParseTableConfig(doc.dump());
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(SplitFieldError(duplicate.status().message()).pointer, "/families/1/name");
  doc = json::parse(test_documents::kReferenceDoc);
  doc.erase("split");
  Result<TableConfig> missing = ParseTableConfig(doc.dump());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(SplitFieldError(missing.status().message()).pointer, "/split");
  Result<TableConfig> malformed = ParseTableConfig("{\"version\": 1,");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(SplitFieldError(malformed.status().message()).pointer, "");
}

}  // namespace
}  // namespace presplit
