// Table documents shared by the tests of the table document's pieces (table_config_test.cc,
// table_canonical_test.cc, table_derived_test.cc).
#pragma once

namespace presplit::test_documents {

// The reference case (docs/reference-case.md): table `check` in namespace `tinawang`, salted from
// the 32-character check_id into 10 decimal buckets, one region per bucket.
inline constexpr const char* kReferenceDoc = R"({
  "version": 1,
  "table": "tinawang:check",
  "description": "history of checks, looked up by check_id",
  "layout": {
    "salt":  { "buckets": 10, "encoding": "decimal", "width": 1, "hash": "java-hashcode",
               "from": "group" },
    "group": { "length": 32 }
  },
  "split": { "algorithm": "salt-buckets", "regions": 10 },
  "families": [
    { "name": "f", "compression": "SNAPPY", "data_block_encoding": "FAST_DIFF",
      "bloom_filter": "ROW" }
  ]
})";

}  // namespace presplit::test_documents
