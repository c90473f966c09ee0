// Folding a salted table's regions onto the logical key space for the key visualizer.
#include "presplit/key_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "presplit/bytes.h"
#include "presplit/layout.h"
#include "presplit/split_algorithms.h"

namespace presplit {
namespace {

KeyLayout Salted(int buckets, SaltEncoding encoding) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = encoding;
  spec.salt_from_key = true;  // no group needed; folding looks at the salt only
  return MakeLayout(spec).value();
}

std::string Salt(const KeyLayout& layout, int bucket) {
  return SaltPrefix(layout.encoding, layout.buckets, bucket, layout.salt_width).value();
}

double Sum(const std::vector<FoldedRow>& rows) {
  double sum = 0;
  for (const FoldedRow& row : rows) sum += row.value;
  return sum;
}

double Sum(const std::vector<RegionLoad>& regions) {
  double sum = 0;
  for (const RegionLoad& region : regions) sum += region.value;
  return sum;
}

// Every bucket split at logical "h" and "i"; the logical range ["h", "i") is hot in every bucket.
std::vector<RegionLoad> HotRangeInEveryBucket(const KeyLayout& layout) {
  std::vector<RegionLoad> regions;
  for (int b = 0; b < layout.buckets; ++b) {
    const std::string salt = Salt(layout, b);
    const std::string next = b + 1 < layout.buckets ? Salt(layout, b + 1) : "";
    regions.push_back({b == 0 ? "" : salt, salt + "h", 1});
    regions.push_back({salt + "h", salt + "i", 100});
    regions.push_back({salt + "i", next, 1});
  }
  return regions;
}

class SaltEncodingTest : public testing::TestWithParam<std::pair<SaltEncoding, int>> {};

TEST_P(SaltEncodingTest, HotLogicalRangeIsOneRowLogicallyAndStripesPhysically) {
  const KeyLayout layout = Salted(GetParam().second, GetParam().first);
  const std::vector<RegionLoad> regions = HotRangeInEveryBucket(layout);
  const int buckets = layout.buckets;

  auto logical = FoldLogical(layout, regions, 1000);
  ASSERT_TRUE(logical.ok()) << logical.status().ToString();
  ASSERT_EQ(logical->size(), 3u);
  EXPECT_EQ((*logical)[0].start_key, "");
  EXPECT_EQ((*logical)[0].end_key, "h");
  EXPECT_EQ((*logical)[1].start_key, "h");
  EXPECT_EQ((*logical)[1].end_key, "i");
  EXPECT_EQ((*logical)[2].start_key, "i");
  EXPECT_EQ((*logical)[2].end_key, "");
  EXPECT_NEAR((*logical)[0].value, buckets * 1.0, 1e-9);
  EXPECT_NEAR((*logical)[1].value, buckets * 100.0, 1e-9);
  EXPECT_NEAR((*logical)[2].value, buckets * 1.0, 1e-9);
  std::vector<int> hot;
  for (int b = 0; b < buckets; ++b) hot.push_back(3 * b + 1);
  EXPECT_EQ((*logical)[1].regions, hot);

  auto physical = FoldPhysical(layout, regions, 1000);
  ASSERT_TRUE(physical.ok()) << physical.status().ToString();
  ASSERT_EQ(physical->size(), regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    EXPECT_EQ((*physical)[i].start_key, regions[i].start_key);
    EXPECT_EQ((*physical)[i].value, regions[i].value);
    EXPECT_EQ((*physical)[i].regions, std::vector<int>{static_cast<int>(i)});
  }
}

TEST_P(SaltEncodingTest, ConservesTheTotalOfRandomRegions) {
  const KeyLayout layout = Salted(GetParam().second, GetParam().first);
  std::mt19937 random(26);
  for (int round = 0; round < 20; ++round) {
    // Random boundaries: real salts followed by random bytes, some very close together so that
    // narrow regions carry large loads per width.
    std::vector<std::string> keys;
    for (int k = 0; k < 60; ++k) {
      std::string key = Salt(layout, static_cast<int>(random() % layout.buckets));
      const int length = static_cast<int>(random() % 12);
      for (int c = 0; c < length; ++c) key.push_back(static_cast<char>(random() % 4 + 'a'));
      keys.push_back(key);
    }
    std::sort(keys.begin(), keys.end(),
              [](const std::string& a, const std::string& b) { return CompareBytes(a, b) < 0; });
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    keys.erase(std::remove(keys.begin(), keys.end(), ""), keys.end());
    std::vector<RegionLoad> regions;
    std::string start;
    for (const std::string& key : keys) {
      regions.push_back({start, key, static_cast<double>(random() % 1000) / 7});
      start = key;
    }
    regions.push_back({start, "", 5});

    for (int max_rows : {1, 7, 100000}) {
      for (auto fold : {FoldLogical, FoldPhysical}) {
        auto rows = fold(layout, regions, max_rows);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        EXPECT_LE(rows->size(), static_cast<size_t>(max_rows));
        EXPECT_NEAR(Sum(*rows), Sum(regions), 1e-9 * Sum(regions));
        std::vector<bool> named(regions.size(), false);
        for (size_t r = 0; r < rows->size(); ++r) {
          const FoldedRow& row = (*rows)[r];
          EXPECT_GE(row.value, 0);
          EXPECT_TRUE(std::is_sorted(row.regions.begin(), row.regions.end()));
          for (int i : row.regions) named[static_cast<size_t>(i)] = true;
          if (r > 0) {
            EXPECT_EQ(CompareBytes((*rows)[r - 1].end_key, row.start_key), 0);
          }
        }
        EXPECT_EQ(std::count(named.begin(), named.end(), false), 0);
        EXPECT_EQ(rows->front().start_key, "");
        EXPECT_EQ(rows->back().end_key, "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, SaltEncodingTest,
                         testing::Values(std::make_pair(SaltEncoding::kByte, 4),
                                         std::make_pair(SaltEncoding::kDecimal, 12),
                                         std::make_pair(SaltEncoding::kHex, 20)));

// A group (by length or by delimiter) decides the bucket of a row; folding strips only the salt,
// so a hot range of groups is one logical row whatever defines the group, its boundaries the
// logical keys of the groups.
TEST(FoldLogicalTest, GroupsByLengthOrDelimiterFoldTheSameWay) {
  struct Case {
    SaltEncoding encoding;
    int buckets;
    std::optional<int> length;
    std::optional<std::string> delimiter;
    std::string from, to;  // the hot range's logical boundaries
  };
  for (const Case& c : {Case{SaltEncoding::kDecimal, 8, std::nullopt, "|", "0420|", "0421|"},
                        Case{SaltEncoding::kHex, 16, 4, std::nullopt, "0420", "0421"},
                        Case{SaltEncoding::kByte, 5, 2, std::nullopt, "AB", "AC"}}) {
    KeyLayout spec;
    spec.buckets = c.buckets;
    spec.encoding = c.encoding;
    spec.group_length = c.length;
    spec.group_delimiter = c.delimiter;
    auto layout = MakeLayout(spec);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    std::vector<RegionLoad> regions;
    for (int b = 0; b < c.buckets; ++b) {
      const std::string salt = Salt(*layout, b);
      const std::string next = b + 1 < c.buckets ? Salt(*layout, b + 1) : "";
      regions.push_back({b == 0 ? "" : salt, salt + c.from, 1});
      regions.push_back({salt + c.from, salt + c.to, 50});
      regions.push_back({salt + c.to, next, 1});
    }
    auto logical = FoldLogical(*layout, regions, 1000);
    ASSERT_TRUE(logical.ok()) << logical.status().ToString();
    ASSERT_EQ(logical->size(), 3u) << c.from;
    EXPECT_EQ((*logical)[1].start_key, c.from);
    EXPECT_EQ((*logical)[1].end_key, c.to);
    EXPECT_NEAR((*logical)[1].value, c.buckets * 50.0, 1e-9);
    EXPECT_NEAR(Sum(*logical), Sum(regions), 1e-6);
    auto physical = FoldPhysical(*layout, regions, 1000);
    ASSERT_TRUE(physical.ok());
    int hot_rows = 0;
    for (const FoldedRow& row : *physical) hot_rows += row.value == 50 ? 1 : 0;
    EXPECT_EQ(hot_rows, c.buckets) << "one stripe per bucket";
  }
}

TEST(FoldLogicalTest, RegionSpanningBucketsCoversTailWholeBucketsAndHead) {
  const KeyLayout layout = Salted(4, SaltEncoding::kByte);
  // Region 0: all of bucket 0 and bucket 1 up to "\x80" (width 1.5); region 1: bucket 1 from
  // "\x80", all of bucket 2, none of bucket 3 (width 1.5); region 2: all of bucket 3.
  const std::vector<RegionLoad> regions = {
      {"", "\x01\x80", 3}, {"\x01\x80", "\x03", 3}, {"\x03", "", 2}};
  auto rows = FoldLogical(layout, regions, 10);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].start_key, "");
  EXPECT_EQ((*rows)[0].end_key, "\x80");
  EXPECT_EQ((*rows)[1].start_key, "\x80");
  EXPECT_EQ((*rows)[1].end_key, "");
  // ["", "\x80"): 2 of region 0 (bucket 0 and 1's head), 1 of region 1 (bucket 2), 1 of region 2.
  EXPECT_DOUBLE_EQ((*rows)[0].value, 4);
  EXPECT_DOUBLE_EQ((*rows)[1].value, 4);
  EXPECT_EQ((*rows)[0].regions, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ((*rows)[1].regions, (std::vector<int>{0, 1, 2}));

  auto physical = FoldPhysical(layout, regions, 2);
  ASSERT_TRUE(physical.ok());
  // Widths 1.5, 1.5 and 1: the last two merge first.
  ASSERT_EQ(physical->size(), 2u);
  EXPECT_EQ((*physical)[1].regions, (std::vector<int>{1, 2}));
  EXPECT_EQ((*physical)[1].start_key, "\x01\x80");
  EXPECT_EQ((*physical)[1].end_key, "");
  EXPECT_DOUBLE_EQ((*physical)[1].value, 5);
}

TEST(FoldLogicalTest, BoundariesOutsideEveryBucketMoveToTheNextBucket) {
  const KeyLayout layout = Salted(12, SaltEncoding::kDecimal);  // salts "00".."11"
  // "1" is a partial salt: the rows after it start at "10". "zz" is after every bucket.
  const std::vector<RegionLoad> regions = {
      {"", "1", 10}, {"1", "10m", 1}, {"10m", "zz", 1}, {"zz", "", 7}};
  auto rows = FoldLogical(layout, regions, 100);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].end_key, "m");
  // Region 0 is buckets 00..09 whole; region 3 holds no row key, so its load sits at the end.
  EXPECT_EQ((*rows)[1].regions, (std::vector<int>{0, 2, 3}));
  EXPECT_NEAR(Sum(*rows), 19, 1e-12);

  auto physical = FoldPhysical(layout, regions, 100);
  ASSERT_TRUE(physical.ok());
  EXPECT_EQ(physical->size(), 4u);
}

TEST(FoldLogicalTest, UnsaltedLayoutFoldsAsThePhysicalView) {
  const KeyLayout unsalted;
  const std::vector<RegionLoad> regions = {
      {"", "b", 1}, {"b", "c", 8}, {"c", "d", 2}, {"d", "", 3}};
  for (int max_rows : {1, 2, 3, 10}) {
    auto logical = FoldLogical(unsalted, regions, max_rows);
    auto physical = FoldPhysical(unsalted, regions, max_rows);
    ASSERT_TRUE(logical.ok() && physical.ok());
    ASSERT_EQ(logical->size(), physical->size());
    for (size_t r = 0; r < logical->size(); ++r) {
      EXPECT_EQ((*logical)[r].start_key, (*physical)[r].start_key);
      EXPECT_EQ((*logical)[r].end_key, (*physical)[r].end_key);
      EXPECT_EQ((*logical)[r].value, (*physical)[r].value);
      EXPECT_EQ((*logical)[r].regions, (*physical)[r].regions);
    }
  }
}

TEST(FoldPhysicalTest, MergesTheNarrowestAdjacentPairFirst) {
  const KeyLayout unsalted;
  // Widths 1/4, 1/256, 63/256, 1/2: the pair (1, 2) is 1/4 wide, (0, 1) slightly more.
  const std::vector<RegionLoad> regions = {
      {"", "\x40", 1}, {"\x40", "\x41", 2}, {"\x41", "\x80", 3}, {"\x80", "", 4}};
  auto three = FoldPhysical(unsalted, regions, 3);
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(three->size(), 3u);
  EXPECT_EQ((*three)[1].start_key, "\x40");
  EXPECT_EQ((*three)[1].end_key, "\x80");
  EXPECT_EQ((*three)[1].value, 5);
  EXPECT_EQ((*three)[1].regions, (std::vector<int>{1, 2}));

  auto one = FoldPhysical(unsalted, regions, 1);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].start_key, "");
  EXPECT_EQ((*one)[0].end_key, "");
  EXPECT_EQ((*one)[0].value, 10);
  EXPECT_EQ((*one)[0].regions, (std::vector<int>{0, 1, 2, 3}));
}

TEST(FoldLogicalTest, MergesFoldedPiecesDownToMaxRows) {
  const KeyLayout layout = Salted(16, SaltEncoding::kHex);
  std::vector<RegionLoad> regions;
  for (int b = 0; b < layout.buckets; ++b) {
    // Each bucket cut at its own places, so the folded axis has many pieces.
    const std::string salt = Salt(layout, b);
    regions.push_back(
        {b == 0 ? "" : salt, salt + std::string(1, static_cast<char>(16 + 8 * b)), 1});
    regions.push_back(
        {regions.back().end_key, b + 1 < layout.buckets ? Salt(layout, b + 1) : "", 2});
  }
  auto all = FoldLogical(layout, regions, 1000);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 17u);
  for (int max_rows : {1, 4, 16}) {
    auto rows = FoldLogical(layout, regions, max_rows);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->size(), static_cast<size_t>(max_rows));
    EXPECT_NEAR(Sum(*rows), 48, 1e-9);
  }
}

TEST(FoldTest, NarrowHotRegionsDoNotDisturbTheirNeighbours) {
  const KeyLayout layout = Salted(2, SaltEncoding::kByte);
  // A region 2^-64 wide with a huge load per width, followed in the same bucket by a plain one.
  const std::string narrow_start = std::string("\x00", 1) + "abcdefg\x01";
  const std::string narrow_end = std::string("\x00", 1) + "abcdefg\x02";
  const std::vector<RegionLoad> regions = {{"", narrow_start, 1},
                                           {narrow_start, narrow_end, 1e6},
                                           {narrow_end, "\x01", 1},
                                           {"\x01", "", 1}};
  auto rows = FoldLogical(layout, regions, 1000);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_DOUBLE_EQ((*rows)[1].value, 1e6);
  EXPECT_NEAR(Sum(*rows), 1e6 + 3, 1e-6);
  EXPECT_GT((*rows)[2].value, 0.5);
}

TEST(FoldTest, RefusesBadInputs) {
  const KeyLayout layout = Salted(4, SaltEncoding::kByte);
  const auto refuses = [&](const std::vector<RegionLoad>& regions, int max_rows,
                           const std::string& says) {
    for (auto fold : {FoldLogical, FoldPhysical}) {
      auto rows = fold(layout, regions, max_rows);
      ASSERT_FALSE(rows.ok()) << says;
      EXPECT_EQ(rows.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(rows.status().message().find(says), std::string::npos) << rows.status().message();
    }
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  refuses({{"", "", 1}}, 0, "at least 1 row");
  refuses({{"", "", 1}}, -5, "at least 1 row");
  refuses({{"", "", nan}}, 3, "not a number");
  refuses({{"", "", inf}}, 3, "not a number");
  refuses({{"", "b", -1}, {"b", "", 1}}, 3, "region 0 ['', 'b') has a negative load");
  refuses({{"b", "a", 1}}, 3, "does not end after its start");
  refuses({{"a", "a", 1}}, 3, "does not end after its start");
  refuses({{"c", "", 1}, {"a", "c", 1}}, 3, "region 1");
  refuses({{"a", "c", 1}, {"b", "d", 1}}, 3, "must not overlap");
  refuses({{"a", "", 1}, {"b", "", 1}}, 3, "must not overlap");
  refuses({{"", std::string(kMaxRowKeyLength + 1, 'k'), 1}}, 3, "longer than");
  std::vector<RegionLoad> too_many(kMaxFoldRegions + 1);
  refuses(too_many, 3, "at most 100000");

  KeyLayout unresolved = layout;
  unresolved.salt_width = 3;
  EXPECT_FALSE(FoldLogical(unresolved, {{"", "", 1}}, 3).ok());
  KeyLayout huge = Salted(10000, SaltEncoding::kDecimal);
  huge.buckets = 10'000'000;  // would size the fold's tables
  huge.salt_width = 7;
  auto refused = FoldLogical(huge, {{"", "", 1}}, 3);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("the layout"), std::string::npos);
}

TEST(FoldTest, AcceptsNoRegionsAndGaps) {
  const KeyLayout layout = Salted(4, SaltEncoding::kByte);
  auto none = FoldLogical(layout, {}, 3);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  // Only bucket 1 and 3 reported load: the folded rows cover what they cover.
  auto gaps = FoldLogical(layout, {{"\x01", "\x01m", 2}, {"\x03x", "", 2}}, 10);
  ASSERT_TRUE(gaps.ok()) << gaps.status().ToString();
  ASSERT_EQ(gaps->size(), 2u);
  EXPECT_EQ((*gaps)[0].end_key, "m");
  EXPECT_EQ((*gaps)[1].start_key, "x");
  EXPECT_NEAR(Sum(*gaps), 4, 1e-12);
}

}  // namespace
}  // namespace presplit
