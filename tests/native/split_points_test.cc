#include "presplit/split_points.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "presplit/bytes.h"
#include "presplit/table_canonical.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

namespace presplit {
namespace {

using json = nlohmann::json;

// The region a key falls in: the number of split keys <= key.
size_t RegionOf(const std::vector<std::string>& splits, const std::string& key) {
  size_t n = 0;
  for (const std::string& s : splits) {
    if (CompareBytes(s, key) <= 0) ++n;
  }
  return n;
}

void ExpectSortedUnique(const std::vector<std::string>& keys) {
  EXPECT_TRUE(ValidateSplitKeys(keys).ok()) << ValidateSplitKeys(keys).ToString();
}

// ---------------------------------------------------------------------------------------------
// SPLITS_FILE

TEST(SplitsFile, ParsesTheShellFormat) {
  auto keys = ParseSplitsFile("\\x00\\xFFa\n1\n2\r\nlast");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  const std::string binary(
      "\0\xFF"
      "a",
      3);
  EXPECT_EQ(*keys, (std::vector<std::string>{binary, "1", "2", "last"}));
}

TEST(SplitsFile, KeepsTrailingSpacesLikeTheShell) {
  // HBase 2's shell chomps the line ending only: "a " is a two-byte key.
  auto keys = ParseSplitsFile("a \nb\n");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"a ", "b"}));
}

TEST(SplitsFile, EmptyFileHasNoKeys) {
  auto keys = ParseSplitsFile("");
  ASSERT_TRUE(keys.ok());
  EXPECT_TRUE(keys->empty());
}

TEST(SplitsFile, BlankLineIsAnErrorNamingTheLine) {
  auto keys = ParseSplitsFile("a\n\nb\n");
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find("line 2: empty key"), std::string::npos)
      << keys.status().message();
  EXPECT_FALSE(ParseSplitsFile("a\n\n").ok());  // a trailing blank line too
  EXPECT_FALSE(ParseSplitsFile("a\r\n\r\n").ok());
}

TEST(SplitsFile, UnsortedAndDuplicateKeysNameTheLine) {
  auto dup = ParseSplitsFile("a\nb\nb\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("line 3"), std::string::npos);
  EXPECT_NE(dup.status().message().find("duplicate"), std::string::npos);
  auto unsorted = ParseSplitsFile("b\na\n");
  ASSERT_FALSE(unsorted.ok());
  EXPECT_NE(unsorted.status().message().find("line 2"), std::string::npos);
}

TEST(SplitsFile, StrictAndLenientEscapes) {
  auto strict = ParseSplitsFile("\\x0a\n");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("line 1"), std::string::npos);
  auto lenient = ParseSplitsFile("\\x0a\n", /*lenient=*/true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(*lenient, (std::vector<std::string>{"x0a"}));  // what HBase's toBytesBinary gives
}

TEST(SplitsFile, RoundTripsBinaryKeys) {
  std::mt19937_64 rng(7);
  std::set<std::string, bool (*)(const std::string&, const std::string&)> unique(
      [](const std::string& a, const std::string& b) { return CompareBytes(a, b) < 0; });
  while (unique.size() < 500) {
    std::string key(1 + rng() % 12, '\0');
    for (char& c : key) c = static_cast<char>(rng() & 0xFF);
    unique.insert(key);
  }
  std::vector<std::string> keys(unique.begin(), unique.end());
  std::string text = FormatSplitsFile(keys);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 500);
  auto parsed = ParseSplitsFile(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, keys);
}

TEST(ExplicitSplit, ValidatesWithoutSorting) {
  EXPECT_TRUE(ExplicitSplit({"a", "b"}).ok());
  EXPECT_FALSE(ExplicitSplit({"b", "a"}).ok());
  EXPECT_FALSE(ExplicitSplit({"a", ""}).ok());
}

// ---------------------------------------------------------------------------------------------
// Partitions

TEST(PartitionSplit, EightByteBigEndianIds) {
  auto keys = PartitionSplit(4);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ(ToStringBinary((*keys)[0]), "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01");
  EXPECT_EQ(ToStringBinary((*keys)[2]), "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03");
  auto many = PartitionSplit(300);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(ToStringBinary((*many)[255]), "\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x00");  // id 256
  ExpectSortedUnique(*many);
  EXPECT_EQ(PartitionPrefix(0x0102030405060708ULL), "\x01\x02\x03\x04\x05\x06\x07\x08");
  EXPECT_TRUE(PartitionSplit(1)->empty());
  EXPECT_FALSE(PartitionSplit(0).ok());
  EXPECT_FALSE(PartitionSplit(kMaxSplitRegions + 1).ok());
}

TEST(PartitionSplit, EveryPartitionPrefixLandsInItsRegion) {
  auto keys = PartitionSplit(16);
  ASSERT_TRUE(keys.ok());
  for (uint64_t id = 0; id < 16; ++id) {
    EXPECT_EQ(RegionOf(*keys, PartitionPrefix(id) + "row"), id);
  }
}

// ---------------------------------------------------------------------------------------------
// Sampled

std::vector<std::string> NumberedKeys(int n, const char* prefix = "k") {
  std::vector<std::string> keys;
  char buffer[32];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%06d", prefix, i);
    keys.push_back(buffer);
  }
  return keys;
}

TEST(SampledSplit, QuantilesOfAShuffledSample) {
  std::vector<std::string> sample = NumberedKeys(1000);
  std::shuffle(sample.begin(), sample.end(), std::mt19937_64(3));
  auto r = SampledSplit(sample, 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->keys, (std::vector<std::string>{"k000250", "k000500", "k000750"}));
  EXPECT_TRUE(r->notes.empty());
  EXPECT_EQ(r->sample_keys, 1000u);
  // The sample itself is untouched.
  EXPECT_EQ(sample.size(), 1000u);
}

TEST(SampledSplit, MatchesSortAndTakeEveryNth) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> sample;
    const size_t m = 1 + rng() % 3000;
    for (size_t i = 0; i < m; ++i) sample.push_back("u" + std::to_string(rng() % 100000));
    const int regions = 1 + static_cast<int>(rng() % 64);
    auto r = SampledSplit(sample, regions);
    ASSERT_TRUE(r.ok());
    std::vector<std::string> sorted = sample;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::string> expected;
    for (int i = 1; i < regions; ++i) {
      const std::string& k = sorted[static_cast<size_t>(i) * m / regions];
      if (k == sorted.front() || (!expected.empty() && expected.back() == k)) continue;
      expected.push_back(k);
    }
    EXPECT_EQ(r->keys, expected) << "m=" << m << " regions=" << regions;
    ExpectSortedUnique(r->keys);
  }
}

TEST(SampledSplit, DuplicatesGiveFewerRegionsWithANote) {
  std::vector<std::string> sample;
  for (int i = 0; i < 90; ++i) sample.push_back("same");
  for (int i = 0; i < 10; ++i) sample.push_back("z" + std::to_string(i));
  auto r = SampledSplit(sample, 10);
  ASSERT_TRUE(r.ok());
  ExpectSortedUnique(r->keys);
  EXPECT_LT(r->keys.size(), 9u);
  EXPECT_EQ(std::count(r->keys.begin(), r->keys.end(), "same"), 0);  // the minimum
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.back().find("11 distinct"), std::string::npos) << r->notes.back();
  EXPECT_EQ(r->distinct_keys, 11u);
}

TEST(SampledSplit, SingleDistinctKeyGivesOneRegion) {
  auto r = SampledSplit({"x", "x", "x"}, 5);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->keys.empty());
  EXPECT_FALSE(r->notes.empty());
}

TEST(SampledSplit, EmptyKeysAreIgnored) {
  auto r = SampledSplit({"", "a", "", "b", "c", "d"}, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->empty_keys, 2u);
  EXPECT_EQ(r->keys, (std::vector<std::string>{"c"}));
  auto none = SampledSplit({"", ""}, 2);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no non-empty key"), std::string::npos);
  EXPECT_FALSE(SampledSplit({}, 2).ok());
  EXPECT_FALSE(SampledSplit({"a"}, 0).ok());
}

TEST(SampledSplit, BinaryKeysUseUnsignedOrder) {
  auto r = SampledSplit({"\x01", "\x7F", "\x80", "\xFF"}, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keys, (std::vector<std::string>{"\x80"}));
}

// Every sample key maps to exactly one region, and the regions hold about m / regions keys.
TEST(SampledSplit, EveryKeyInExactlyOneRegionAndBalanced) {
  std::mt19937_64 rng(5);
  std::vector<std::string> sample;
  for (int i = 0; i < 20000; ++i) {
    std::string k(8, '\0');
    for (char& c : k) c = static_cast<char>(rng() & 0xFF);
    sample.push_back(k);
  }
  auto r = SampledSplit(sample, 16);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->keys.size(), 15u);
  std::vector<size_t> counts(16, 0);
  for (const std::string& k : sample) {
    size_t region = RegionOf(r->keys, k);
    ASSERT_LT(region, 16u);
    // [start, end): the key is >= its region's start and < its end.
    if (region > 0) {
      EXPECT_GE(CompareBytes(k, r->keys[region - 1]), 0);
    }
    if (region < 15) {
      EXPECT_LT(CompareBytes(k, r->keys[region]), 0);
    }
    ++counts[region];
  }
  for (size_t c : counts) EXPECT_NEAR(static_cast<double>(c), 1250.0, 2.0);
}

// The contract computed the slow way: sort the non-empty keys, take s[floor(i * m / regions)],
// drop repeats and the smallest key; the distinct count whenever regions are missing.
void ExpectMatchesSortAndTake(const std::vector<std::string>& sample, int regions,
                              const std::string& what) {
  auto r = SampledSplit(sample, regions);
  std::vector<std::string> sorted;
  for (const std::string& k : sample) {
    if (!k.empty()) sorted.push_back(k);
  }
  if (sorted.empty()) {
    EXPECT_FALSE(r.ok()) << what;
    return;
  }
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
  std::sort(sorted.begin(), sorted.end(),
            [](const std::string& a, const std::string& b) { return CompareBytes(a, b) < 0; });
  const size_t m = sorted.size();
  std::vector<std::string> expected;
  for (int i = 1; i < regions; ++i) {
    const std::string& k = sorted[static_cast<size_t>(i) * m / static_cast<size_t>(regions)];
    if (k == sorted.front() || (!expected.empty() && expected.back() == k)) continue;
    expected.push_back(k);
  }
  EXPECT_EQ(r->keys, expected) << what << " m=" << m << " regions=" << regions;
  EXPECT_EQ(r->sample_keys, m) << what;
  EXPECT_EQ(r->empty_keys, sample.size() - m) << what;
  if (static_cast<int>(expected.size()) + 1 < regions) {
    const size_t distinct =
        static_cast<size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    EXPECT_EQ(r->distinct_keys, distinct) << what;
    ASSERT_FALSE(r->notes.empty()) << what;
    EXPECT_NE(r->notes.back().find(std::to_string(distinct) + " distinct"), std::string::npos)
        << what << ": " << r->notes.back();
  } else {
    EXPECT_EQ(r->distinct_keys, 0u) << what;
  }
  ExpectSortedUnique(r->keys);
}

std::string RandomBytes(std::mt19937_64& rng, size_t n, int alphabet = 256) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() % static_cast<unsigned>(alphabet));
  return s;
}

// Samples large enough (> 4096 keys in a bucket) to exercise every level of the selection.
TEST(SampledSplit, MatchesSortAndTakeOnShapedSamples) {
  std::mt19937_64 rng(2024);
  const int region_counts[] = {2, 7, 120, 1000};
  for (int shape = 0; shape < 9; ++shape) {
    for (int regions : region_counts) {
      std::vector<std::string> sample;
      std::string what;
      const size_t n = 20000 + rng() % 5000;
      switch (shape) {
        case 0:  // random binary keys, high-bit bytes included
          what = "random";
          for (size_t i = 0; i < n; ++i) sample.push_back(RandomBytes(rng, 1 + rng() % 24));
          break;
        case 1:  // one long shared prefix, then a small alphabet
          what = "shared prefix";
          for (size_t i = 0; i < n; ++i) {
            sample.push_back(std::string(300, '\xAB') + RandomBytes(rng, rng() % 6, 3));
          }
          break;
        case 2:  // skewed: most keys under one two-byte prefix, some elsewhere
          what = "skewed";
          for (size_t i = 0; i < n; ++i) {
            sample.push_back(rng() % 10 < 9 ? "k0" + std::to_string(rng() % 100000)
                                            : RandomBytes(rng, 1 + rng() % 4));
          }
          break;
        case 3:  // every key equal
          what = "all equal";
          sample.assign(n, "the-same-key");
          break;
        case 4:  // short keys: one and two bytes, few distinct
          what = "short";
          for (size_t i = 0; i < n; ++i) sample.push_back(RandomBytes(rng, 1 + rng() % 2, 5));
          break;
        case 5:  // keys that are prefixes of others, with the empty key mixed in
          what = "prefixes and empty keys";
          for (size_t i = 0; i < n; ++i) {
            const std::string base = "prefix/of/every/key";
            sample.push_back(base.substr(0, rng() % (base.size() + 1)));
          }
          break;
        case 6:  // a few heavy duplicates among distinct keys
          what = "heavy duplicates";
          for (size_t i = 0; i < n; ++i) {
            sample.push_back(rng() % 2 ? "dup" + std::to_string(rng() % 3)
                                       : "dup" + RandomBytes(rng, 8));
          }
          break;
        case 7:  // deep ladders: more radix levels than the selection descends
          what = "ladder";
          for (size_t i = 0; i < n; ++i) {
            sample.push_back(std::string(i % 100, 'a') + "b" + std::to_string(rng() % 50));
          }
          break;
        case 8:  // 0x00 and 0xFF bytes around key ends
          what = "zero and 0xFF bytes";
          for (size_t i = 0; i < n; ++i) {
            std::string k = RandomBytes(rng, rng() % 4, 2);
            for (char& c : k) c = c ? '\xFF' : '\0';
            sample.push_back("\xFF" + k);
          }
          break;
      }
      std::shuffle(sample.begin(), sample.end(), rng);
      ExpectMatchesSortAndTake(sample, regions, what);
    }
  }
}

TEST(SampledSplit, MatchesSortAndTakeOnSmallEdgeCases) {
  ExpectMatchesSortAndTake({"a"}, 3, "one key");
  ExpectMatchesSortAndTake({"", "", "a"}, 3, "one key and empties");
  ExpectMatchesSortAndTake({"a", "ab", "abc", "abcd", "b"}, 5, "chain of prefixes");
  ExpectMatchesSortAndTake({std::string(1, '\0'), std::string(2, '\0'), "\x01"}, 3, "zeros");
  ExpectMatchesSortAndTake({"\xFF\xFF", "\xFF", "\xFF\xFF\xFF", "\xFE"}, 4, "0xFF prefixes");
  std::mt19937_64 rng(9);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> sample;
    const size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i) sample.push_back(RandomBytes(rng, rng() % 3, 3));
    ExpectMatchesSortAndTake(sample, 1 + static_cast<int>(rng() % 12), "tiny");
  }
}

TEST(SampledSplit, ManyEqualKeysStayFast) {
  // One million copies of one key (and of two keys): a full comparison sort of these would be
  // slow; the selection needs a few passes.
  std::vector<std::string> sample(1000000, std::string(24, 'x'));
  auto r = SampledSplit(sample, 120);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->keys.empty());
  EXPECT_EQ(r->distinct_keys, 1u);
  for (size_t i = 0; i < sample.size(); i += 2) sample[i].back() = 'y';
  r = SampledSplit(sample, 120);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keys, (std::vector<std::string>{std::string(23, 'x') + "y"}));
  EXPECT_EQ(r->distinct_keys, 2u);
}

// ---------------------------------------------------------------------------------------------
// Salted sub-splits

TEST(SaltedSubSplit, HexWithinDecimalBuckets) {
  SaltedSplitOptions o;
  o.buckets = 3;
  o.encoding = SaltEncoding::kDecimal;
  o.regions_per_bucket = 2;
  o.within_bucket = SplitAlgorithm::kHexString;
  auto keys = SaltedSubSplit(o);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, (std::vector<std::string>{"080000000", "1", "180000000", "2", "280000000"}));
}

TEST(SaltedSubSplit, UniformWithinByteBuckets) {
  SaltedSplitOptions o;
  o.buckets = 4;
  o.regions_per_bucket = 4;
  o.within_bucket = SplitAlgorithm::kUniform;
  auto keys = SaltedSubSplit(o);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), 15u);
  ExpectSortedUnique(*keys);
  EXPECT_EQ(ToStringBinary((*keys)[0]), "\\x00@\\x00\\x00\\x00\\x00\\x00\\x00\\x00");
  EXPECT_EQ(ToStringBinary((*keys)[3]), "\\x01");
  // Each bucket's keys begin with the bucket's salt byte.
  for (size_t i = 0; i < keys->size(); ++i) {
    EXPECT_EQ(static_cast<size_t>((*keys)[i][0]), (i + 1) / 4);
  }
}

TEST(SaltedSubSplit, SampledWithinBuckets) {
  std::vector<std::string> sample;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 100; ++i)
      sample.push_back(std::to_string(b) + "r" + std::to_string(100 + i));
  }
  sample.push_back("9zz");  // bucket 9 does not exist: ignored
  SaltedSplitOptions o;
  o.buckets = 2;
  o.encoding = SaltEncoding::kDecimal;
  o.regions_per_bucket = 2;
  o.within_bucket = SplitAlgorithm::kSampled;
  o.sample = &sample;
  auto keys = SaltedSubSplit(o);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, (std::vector<std::string>{"0r150", "1", "1r150"}));
  o.sample = nullptr;
  EXPECT_FALSE(SaltedSubSplit(o).ok());
}

TEST(SaltedSubSplit, Errors) {
  SaltedSplitOptions o;
  o.buckets = 10;
  o.regions_per_bucket = 0;
  EXPECT_FALSE(SaltedSubSplit(o).ok());
  o.regions_per_bucket = 2;
  o.within_bucket = SplitAlgorithm::kExplicit;
  EXPECT_FALSE(SaltedSubSplit(o).ok());
  o.within_bucket = SplitAlgorithm::kHexString;
  o.buckets = 300;  // byte encoding holds 256
  EXPECT_FALSE(SaltedSubSplit(o).ok());
}

// ---------------------------------------------------------------------------------------------
// The document

json Doc(json split, json layout = json::object()) {
  json d = {{"version", 1},
            {"table", "ns:t"},
            {"split", std::move(split)},
            {"families", json::array({{{"name", "f"}}})}};
  if (!layout.empty()) d["layout"] = std::move(layout);
  return d;
}

json SaltLayout(int buckets) {
  return {{"salt", {{"buckets", buckets}, {"encoding", "decimal"}, {"from", "key"}}}};
}

std::string FieldOf(const Result<TableConfig>& r) {
  const std::string& m = r.status().message();
  if (m.rfind("field '", 0) != 0) return "";
  return m.substr(7, m.find('\'', 7) - 7);
}

TEST(DocumentSplits, Partitions) {
  auto c = ParseTableConfig(Doc({{"algorithm", "partitions"}, {"regions", 4}}).dump());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto keys = ComputeSplitKeys(*c);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, *PartitionSplit(4));
  auto again = ParseTableConfig(TableConfigToJson(*c));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(TableConfigToJson(*again), TableConfigToJson(*c));
  auto bad = ParseTableConfig(
      Doc({{"algorithm", "partitions"}, {"regions", 4}, {"keys", json::array()}}).dump());
  EXPECT_EQ(FieldOf(bad), "split.keys");
  EXPECT_EQ(FieldOf(ParseTableConfig(Doc({{"algorithm", "partitions"}}).dump())), "split.regions");
}

TEST(DocumentSplits, Sampled) {
  json sample = json::array({"a", "b", "c", "d", "", "e\\x00", "f"});
  auto c =
      ParseTableConfig(Doc({{"algorithm", "sampled"}, {"regions", 3}, {"sample", sample}}).dump());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto keys = ComputeSplitKeys(*c);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"c", std::string("e\0", 2)}));
  auto again = ParseTableConfig(TableConfigToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*ComputeSplitKeys(*again), *keys);

  EXPECT_EQ(FieldOf(ParseTableConfig(Doc({{"algorithm", "sampled"}, {"regions", 3}}).dump())),
            "split.sample");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "sampled"}, {"regions", 3}, {"sample", {"a", 1}}}).dump())),
            "split.sample[1]");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "sampled"}, {"regions", 3}, {"sample", {"\\xZZ"}}}).dump())),
            "split.sample[0]");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "sampled"}, {"regions", 3}, {"sample", {""}}}).dump())),
            "split.sample");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "hex-string"}, {"regions", 3}, {"sample", {"a"}}}).dump())),
            "split.sample");
}

TEST(DocumentSplits, SaltBucketsWithRegionsPerBucket) {
  auto c = ParseTableConfig(Doc({{"algorithm", "salt-buckets"},
                                 {"regions_per_bucket", 2},
                                 {"within_bucket", "hex-string"}},
                                SaltLayout(3))
                                .dump());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->split.regions, 6);
  auto keys = ComputeSplitKeys(*c);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"080000000", "1", "180000000", "2", "280000000"}));
  auto again = ParseTableConfig(TableConfigToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(TableConfigToJson(*again), TableConfigToJson(*c));

  // Without regions_per_bucket the canonical form is unchanged from before.
  auto plain = ParseTableConfig(Doc({{"algorithm", "salt-buckets"}}, SaltLayout(3)).dump());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(TableConfigToJson(*plain).find("regions_per_bucket"), std::string::npos);
}

TEST(DocumentSplits, SaltBucketsErrorsNameTheField) {
  auto layout = SaltLayout(10);
  EXPECT_EQ(
      FieldOf(ParseTableConfig(
          Doc({{"algorithm", "salt-buckets"}, {"regions_per_bucket", 2}, {"regions", 10}}, layout)
              .dump())),
      "split.regions");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "salt-buckets"}, {"regions_per_bucket", 2000}}, layout).dump())),
            "split.regions_per_bucket");
  EXPECT_EQ(FieldOf(ParseTableConfig(Doc({{"algorithm", "salt-buckets"},
                                          {"regions_per_bucket", 2},
                                          {"within_bucket", "explicit"}},
                                         layout)
                                         .dump())),
            "split.within_bucket");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "salt-buckets"}, {"within_bucket", "uniform"}}, layout).dump())),
            "split.within_bucket");
  EXPECT_EQ(FieldOf(ParseTableConfig(Doc({{"algorithm", "salt-buckets"},
                                          {"regions_per_bucket", 2},
                                          {"within_bucket", "sampled"}},
                                         layout)
                                         .dump())),
            "split.sample");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "salt-buckets"}, {"regions_per_bucket", 2}, {"sample", {"1a"}}},
                    layout)
                    .dump())),
            "split.sample");
  EXPECT_EQ(FieldOf(ParseTableConfig(
                Doc({{"algorithm", "uniform"}, {"regions", 2}, {"regions_per_bucket", 2}}).dump())),
            "split.regions_per_bucket");
}

TEST(DocumentSplits, SaltBucketsSampledWithinRoundTrips) {
  json sample = json::array();
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 10; ++i) sample.push_back(std::to_string(b) + "k" + std::to_string(i));
  }
  auto c = ParseTableConfig(Doc({{"algorithm", "salt-buckets"},
                                 {"regions_per_bucket", 2},
                                 {"within_bucket", "sampled"},
                                 {"sample", sample}},
                                SaltLayout(2))
                                .dump());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto keys = ComputeSplitKeys(*c);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"0k5", "1", "1k5"}));
  auto again = ParseTableConfig(TableConfigToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*ComputeSplitKeys(*again), *keys);
}

}  // namespace
}  // namespace presplit
