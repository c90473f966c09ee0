// Table names (presplit/table_name.h): HBase's rules, the namespace split, the znode name.
#include "presplit/table_name.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace presplit {
namespace {

TEST(TableName, RefusesWhatHBaseRefuses) {
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
           {std::string(256, 'n') + ":t", "namespace is longer than 255"},
       }) {
    Status s = ValidateTableName(name);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message().rfind("invalid table name '", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(problem), std::string::npos) << s.message();
    EXPECT_FALSE(SplitTableName(name).ok()) << name;
  }
}

TEST(TableName, AcceptsHBaseNames) {
  for (const std::string& name :
       std::vector<std::string>{"default:t", "my_ns:t.v-1_x", "T1", "t_", std::string(255, 'q')}) {
    EXPECT_TRUE(ValidateTableName(name).ok()) << name;
  }
}

TEST(TableName, SplitsNamespaceAndQualifier) {
  Result<TableNameParts> with_namespace = SplitTableName("tinawang:check");
  ASSERT_TRUE(with_namespace.ok()) << with_namespace.status().ToString();
  EXPECT_EQ(with_namespace->namespace_name, "tinawang");
  EXPECT_EQ(with_namespace->qualifier, "check");

  Result<TableNameParts> without = SplitTableName("events");
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_EQ(without->namespace_name, "default");
  EXPECT_EQ(without->qualifier, "events");
}

TEST(TableName, CanonicalNameAlwaysHasTheNamespace) {
  EXPECT_EQ(CanonicalTableName("t"), "default:t");
  EXPECT_EQ(CanonicalTableName("default:t"), "default:t");
  EXPECT_EQ(CanonicalTableName("tinawang:check"), "tinawang:check");
  // Not a validator: what it is given comes back with a namespace, valid or not.
  EXPECT_EQ(CanonicalTableName(""), "default:");
  EXPECT_EQ(CanonicalTableName("a:b:c"), "a:b:c");
}

}  // namespace
}  // namespace presplit
