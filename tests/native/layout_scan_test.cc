// Scan ranges of salted layouts: what a C++ writer needs to read a group, or a logical key range
// across every bucket, with any HBase client.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "presplit/bytes.h"
#include "presplit/layout.h"

namespace presplit {
namespace {

bool InRange(std::string_view key, const KeyRange& r) {
  return CompareBytes(key, r.start) >= 0 && (r.stop.empty() || CompareBytes(key, r.stop) < 0);
}

TEST(PrefixEndTest, IncrementsAndDropsTrailingFF) {
  EXPECT_EQ(PrefixEnd("abc"), "abd");
  EXPECT_EQ(PrefixEnd(std::string("a\xFF\xFF", 3)), "b");
  EXPECT_EQ(PrefixEnd(std::string("\xFF", 1)), "");
  EXPECT_EQ(PrefixEnd(""), "");
  EXPECT_EQ(PrefixEnd(std::string("\x00", 1)), std::string("\x01", 1));
}

KeyLayout Layout(int buckets, SaltEncoding encoding, SaltHash hash, bool from_key) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = encoding;
  spec.hash = hash;
  spec.salt_from_key = from_key;
  spec.group_delimiter = "|";
  auto layout = MakeLayout(spec);
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  return *layout;
}

std::vector<std::string> RandomLogicalKeys(std::mt19937& rng, int count) {
  std::set<std::string> keys;
  const std::string alphabet = "abc\x00\xFF";
  while (static_cast<int>(keys.size()) < count) {
    std::string group, rest;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) {
      group += "abcd"[rng() % 4];
    }
    for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) {
      rest += alphabet[rng() % alphabet.size()];
    }
    keys.insert(group + "|" + rest);
  }
  return {keys.begin(), keys.end()};
}

TEST(LayoutScanTest, GroupScanRangeHoldsExactlyTheGroupsRows) {
  const KeyLayout layout = Layout(16, SaltEncoding::kHex, SaltHash::kMurmur3, false);
  std::mt19937 rng(11);
  const auto keys = RandomLogicalKeys(rng, 400);
  for (const char* group : {"a", "ab", "abc", "dd"}) {
    auto range = GroupScanRange(layout, group);
    ASSERT_TRUE(range.ok()) << range.status().ToString();
    for (const auto& logical : keys) {
      auto row = EncodeKey(layout, logical);
      ASSERT_TRUE(row.ok());
      const bool in_group = logical.rfind(std::string(group) + "|", 0) == 0;
      EXPECT_EQ(InRange(*row, *range), in_group) << ToStringBinary(logical) << " group " << group;
    }
  }
  EXPECT_FALSE(GroupScanRange(Layout(4, SaltEncoding::kByte, SaltHash::kMurmur3, true), "a").ok());
}

// Every bucket's range, its rows stripped of the salt and merged, equals what an unsalted table
// returns for the logical range.
TEST(LayoutScanTest, BucketRangesMergeToTheUnsaltedRange) {
  std::mt19937 rng(5);
  const std::vector<KeyLayout> layouts = {
      Layout(1, SaltEncoding::kByte, SaltHash::kMurmur3, false),
      Layout(7, SaltEncoding::kByte, SaltHash::kPhoenix, true),
      Layout(12, SaltEncoding::kDecimal, SaltHash::kMurmur3, false),
      Layout(256, SaltEncoding::kByte, SaltHash::kMurmur3, true),
      Layout(20, SaltEncoding::kHex, SaltHash::kJavaHashCode, false),
  };
  for (const auto& layout : layouts) {
    const auto logical = RandomLogicalKeys(rng, 300);
    std::vector<std::string> rows;
    for (const auto& k : logical) rows.push_back(*EncodeKey(layout, k));
    for (int trial = 0; trial < 60; ++trial) {
      std::string start =
          trial % 5 == 0 ? "" : logical[rng() % logical.size()].substr(0, rng() % 4);
      std::string stop = trial % 7 == 0 ? "" : logical[rng() % logical.size()];
      if (!stop.empty() && CompareBytes(stop, start) <= 0) {
        EXPECT_FALSE(BucketScanRanges(layout, start, stop).ok());
        continue;
      }
      auto ranges = BucketScanRanges(layout, start, stop);
      ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
      EXPECT_EQ(ranges->size(), static_cast<size_t>(std::max(layout.buckets, 1)));
      std::vector<std::string> merged, expected;
      for (const auto& row : rows) {
        int hits = 0;
        for (const auto& r : *ranges) hits += InRange(row, r) ? 1 : 0;
        ASSERT_LE(hits, 1) << "ranges overlap at " << ToStringBinary(row);
        if (hits == 1) merged.emplace_back(*StripSalt(layout, row));
      }
      for (const auto& k : logical) {
        if (CompareBytes(k, start) >= 0 && (stop.empty() || CompareBytes(k, stop) < 0)) {
          expected.push_back(k);
        }
      }
      std::sort(merged.begin(), merged.end(),
                [](const std::string& a, const std::string& b) { return CompareBytes(a, b) < 0; });
      EXPECT_EQ(merged, expected) << "layout buckets " << layout.buckets << " range ["
                                  << ToStringBinary(start) << ", " << ToStringBinary(stop) << ")";
    }
  }
}

TEST(LayoutScanTest, StripSalt) {
  const KeyLayout layout = Layout(12, SaltEncoding::kDecimal, SaltHash::kMurmur3, false);
  auto row = EncodeKey(layout, "abc|x");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(*StripSalt(layout, *row), "abc|x");
  EXPECT_FALSE(StripSalt(layout, "1").ok());
}

}  // namespace
}  // namespace presplit
