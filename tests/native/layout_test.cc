// Key layouts: validation, encode/decode, precise errors, and the shared vectors
// (tests/vectors/layouts.json) that the Java SDK must match too.
#include "presplit/layout.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "presplit/bytes.h"
#include "presplit/hash.h"

namespace presplit {
namespace {

KeyLayout Spec(int buckets, SaltEncoding encoding, SaltHash hash, std::optional<int> length,
               std::optional<std::string> delimiter, bool from_key = false, int width = 0) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = encoding;
  spec.hash = hash;
  spec.group_length = length;
  spec.group_delimiter = std::move(delimiter);
  spec.salt_from_key = from_key;
  spec.salt_width = width;
  return spec;
}

KeyLayout Make(const KeyLayout& spec) {
  auto layout = MakeLayout(spec);
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  return layout.ok() ? *layout : KeyLayout{};
}

std::string Error(const Status& status) { return status.message(); }

TEST(SaltHashNames, ParseAndName) {
  EXPECT_EQ(*ParseSaltHash("murmur3"), SaltHash::kMurmur3);
  EXPECT_EQ(*ParseSaltHash("PHOENIX"), SaltHash::kPhoenix);
  EXPECT_EQ(*ParseSaltHash("Java-HashCode"), SaltHash::kJavaHashCode);
  EXPECT_EQ(SaltHashName(SaltHash::kJavaHashCode), "java-hashcode");
  auto bad = ParseSaltHash("md5");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("murmur3, phoenix, java-hashcode"), std::string::npos);
}

TEST(MakeLayout, ResolvesWidthAndValidates) {
  EXPECT_EQ(Make(Spec(10, SaltEncoding::kDecimal, SaltHash::kJavaHashCode, 32, {})).salt_width, 1);
  EXPECT_EQ(Make(Spec(11, SaltEncoding::kDecimal, SaltHash::kMurmur3, 4, {})).salt_width, 2);
  EXPECT_EQ(Make(Spec(256, SaltEncoding::kHex, SaltHash::kMurmur3, 4, {})).salt_width, 2);
  EXPECT_EQ(Make(Spec(7, SaltEncoding::kHex, SaltHash::kMurmur3, 4, {}, false, 4)).salt_width, 4);
  EXPECT_EQ(Make(Spec(0, SaltEncoding::kHex, SaltHash::kPhoenix, {}, {})).salt_width, 0);

  struct Bad {
    KeyLayout spec;
    std::string message_part;
  };
  const std::vector<Bad> bad = {
      {Spec(257, SaltEncoding::kByte, SaltHash::kMurmur3, 4, {}), "between 1 and 256"},
      {Spec(10001, SaltEncoding::kDecimal, SaltHash::kMurmur3, 4, {}), "between 1 and 10000"},
      {Spec(300, SaltEncoding::kHex, SaltHash::kPhoenix, 4, {}), "at most 256"},
      {Spec(-1, SaltEncoding::kByte, SaltHash::kMurmur3, 4, {}), "negative"},
      {Spec(11, SaltEncoding::kDecimal, SaltHash::kMurmur3, 4, {}, false, 1), "cannot hold"},
      {Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, 4, {}, false, 2), "1 byte wide"},
      {Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, {}, {}), "needs a group"},
      {Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, 4, "|"), "not both"},
      {Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, 0, {}), "between 1 and 32767"},
      {Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, {}, ""), "must not be empty"},
      {Spec(0, SaltEncoding::kByte, SaltHash::kMurmur3, {}, {}, true), "unsalted"},
  };
  for (const auto& b : bad) {
    auto layout = MakeLayout(b.spec);
    ASSERT_FALSE(layout.ok()) << b.message_part;
    EXPECT_NE(Error(layout.status()).find(b.message_part), std::string::npos)
        << Error(layout.status());
  }
  // Salting from the whole key needs no group.
  EXPECT_TRUE(MakeLayout(Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, {}, {}, true)).ok());
}

TEST(LayoutFromConfig, TakesTheDocumentsLayout) {
  const auto config = ParseTableConfig(R"({
    "version": 1, "table": "tinawang:check",
    "layout": { "salt": { "buckets": 10, "encoding": "decimal", "hash": "java-hashcode" },
                "group": { "length": 32 } },
    "split": { "algorithm": "salt-buckets" }, "families": [ { "name": "f" } ] })");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const auto layout = LayoutFromConfig(config->layout);
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->buckets, 10);
  EXPECT_EQ(layout->encoding, SaltEncoding::kDecimal);
  EXPECT_EQ(layout->salt_width, 1);
  EXPECT_EQ(layout->hash, SaltHash::kJavaHashCode);
  EXPECT_FALSE(layout->salt_from_key);
  EXPECT_EQ(layout->group_length, 32);
  EXPECT_FALSE(layout->group_delimiter.has_value());
  // No layout at all: unsalted, no group.
  const auto plain = LayoutFromConfig(LayoutConfig{});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->buckets, 0);
}

TEST(EncodeKey, ReferenceCaseSalt) {
  // The reference case: salt = abs(check_id.hashCode() % 10) as one decimal character.
  const KeyLayout layout = Make(Spec(10, SaltEncoding::kDecimal, SaltHash::kJavaHashCode, 32, {}));
  const std::string check_id = "0123456789abcdef0123456789abcdef";
  const std::string logical = check_id + "row-id-1";
  const int expected = JavaStringHashBucket(check_id, 10);
  EXPECT_EQ(*BucketOf(layout, logical), expected);
  EXPECT_EQ(*EncodeKey(layout, logical), std::to_string(expected) + logical);
  const auto decoded = DecodeKey(layout, *EncodeKey(layout, logical));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->bucket, expected);
  EXPECT_EQ(decoded->group, check_id);
  EXPECT_EQ(decoded->rest, "row-id-1");
  EXPECT_EQ(*GroupPrefix(layout, *EncodeKey(layout, logical)), std::to_string(expected) + check_id);
  EXPECT_EQ(*GroupScanPrefix(layout, check_id), std::to_string(expected) + check_id);
}

TEST(EncodeKey, DelimiterIsInTheGroupPrefixButNotInTheGroup) {
  const KeyLayout layout = Make(Spec(16, SaltEncoding::kHex, SaltHash::kMurmur3, {}, "|"));
  const auto row = EncodeKey(layout, "ab|rest|more");
  ASSERT_TRUE(row.ok());
  const std::string salt = row->substr(0, 1);
  EXPECT_EQ(salt[0], "0123456789abcdef"[Murmur3Bucket("ab", 16)]);
  const auto decoded = DecodeKey(layout, *row);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->group, "ab");
  EXPECT_EQ(decoded->rest, "rest|more");
  EXPECT_EQ(*GroupPrefix(layout, *row), salt + "ab|");
  EXPECT_EQ(*GroupScanPrefix(layout, "ab"), salt + "ab|");
  EXPECT_FALSE(GroupScanPrefix(layout, "a|b").ok());
}

TEST(EncodeKey, SaltFromKeyAndUnsalted) {
  const KeyLayout from_key =
      Make(Spec(100, SaltEncoding::kDecimal, SaltHash::kPhoenix, {}, {}, true));
  const std::string key = "any\xFFkey";
  EXPECT_EQ(*BucketOf(from_key, key), PhoenixSaltByte(key, 100));
  const auto decoded = DecodeKey(from_key, *EncodeKey(from_key, key));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->group, "");
  EXPECT_EQ(decoded->rest, key);
  EXPECT_FALSE(GroupPrefix(from_key, *EncodeKey(from_key, key)).ok());

  const KeyLayout plain = Make(Spec(0, SaltEncoding::kByte, SaltHash::kMurmur3, 3, {}));
  EXPECT_EQ(*EncodeKey(plain, "abcdef"), "abcdef");
  EXPECT_EQ(*BucketOf(plain, "abcdef"), 0);
  EXPECT_EQ(DecodeKey(plain, "abcdef")->group, "abc");
  EXPECT_FALSE(EncodeKey(plain, "ab").ok());
  const KeyLayout nothing = Make(KeyLayout{});
  EXPECT_FALSE(EncodeKey(nothing, "").ok());
}

TEST(EncodeKey, RefusesKeysThatDoNotFit) {
  const KeyLayout length = Make(Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, 4, {}));
  auto e = EncodeKey(length, "abc");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(Error(e.status()),
            "key 'abc' is too short for its group: 3 bytes, the group is 4 bytes long");
  const KeyLayout delim =
      Make(Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, {}, std::string(1, '\0')));
  e = EncodeKey(delim, "abc");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(Error(e.status()), "key 'abc' has no group delimiter '\\x00'");
  const KeyLayout java = Make(Spec(10, SaltEncoding::kDecimal, SaltHash::kJavaHashCode, 2, {}));
  e = EncodeKey(java, "\xC3\x28rest");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(Error(e.status()).find("not well-formed UTF-8"), std::string::npos);
  const KeyLayout from_key = Make(Spec(10, SaltEncoding::kByte, SaltHash::kMurmur3, {}, {}, true));
  EXPECT_FALSE(EncodeKey(from_key, std::string(kMaxRowKeyLength, 'x')).ok());
  EXPECT_TRUE(EncodeKey(from_key, std::string(kMaxRowKeyLength - 1, 'x')).ok());
}

TEST(DecodeKey, PreciseErrors) {
  const KeyLayout dec = Make(Spec(20, SaltEncoding::kDecimal, SaltHash::kMurmur3, 4, {}));
  const std::string good = *EncodeKey(dec, "abcdrest");
  const int bucket = *BucketOf(dec, "abcdrest");

  auto r = DecodeKey(dec, "1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "row key '1' is shorter than its 2-character decimal salt");

  r = DecodeKey(dec, "2xabcd");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()),
            "row key '2xabcd' starts with '2x', which is not the decimal salt of a bucket 0..19");
  r = DecodeKey(dec, "20abcd");  // a number, but no bucket
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Error(r.status()).find("not the decimal salt"), std::string::npos);

  r = DecodeKey(dec, good.substr(0, 2) + "abc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "row key '" + good.substr(0, 2) +
                                   "abc' is too short for its group: 3 bytes after the salt, the "
                                   "group is 4 bytes long");

  const int other = (bucket + 3) % 20;
  const std::string wrong = (other < 10 ? "0" : "") + std::to_string(other) + "abcdrest";
  r = DecodeKey(dec, wrong);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "row key '" + wrong + "' is in bucket " + std::to_string(other) +
                                   " but its group hashes to " + std::to_string(bucket));

  KeyLayout unsalted_spec;
  unsalted_spec.group_length = 2;
  r = DecodeKey(Make(unsalted_spec), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "the empty row key is no row key");

  const KeyLayout byte = Make(Spec(10, SaltEncoding::kByte, SaltHash::kPhoenix, {}, "|"));
  r = DecodeKey(byte, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "row key '' is shorter than its 1-byte byte salt");
  r = DecodeKey(byte,
                "\x0C"
                "ab|c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()),
            "row key '\\x0Cab|c' starts with '\\x0C', which is not the byte salt of a bucket 0..9");
  r = DecodeKey(byte, std::string(1, '\x01') + "abc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Error(r.status()), "row key '\\x01abc' has no group delimiter '|' after its salt");

  const KeyLayout hex = Make(Spec(16, SaltEncoding::kHex, SaltHash::kMurmur3, {}, {}, true, 2));
  r = DecodeKey(hex, "0Fabc");  // upper-case hex is never written
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Error(r.status()).find("not the hex salt"), std::string::npos);
  const std::string row = *EncodeKey(hex, "abc");
  const std::string bad = std::string(row.substr(0, 2) == "00" ? "01" : "00") + "abc";
  r = DecodeKey(hex, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Error(r.status()).find("but its key hashes to"), std::string::npos);
}

// Random layouts over every encoding, hash, group kind and salt source.
KeyLayout RandomLayout(std::mt19937& rng) {
  const int kind = static_cast<int>(rng() % 3);
  const auto encoding = static_cast<SaltEncoding>(rng() % 3);
  const auto hash = static_cast<SaltHash>(rng() % 3);
  int max = encoding == SaltEncoding::kByte || hash == SaltHash::kPhoenix ? 256 : 10000;
  int buckets = rng() % 5 == 0 ? 0 : 1 + static_cast<int>(rng() % static_cast<uint32_t>(max));
  std::optional<int> length;
  std::optional<std::string> delimiter;
  if (kind == 0) length = 1 + static_cast<int>(rng() % 6);
  if (kind == 1) delimiter = rng() % 2 ? std::string("|") : std::string("\x00\xFF", 2);
  bool from_key = buckets > 0 && (kind == 2 || rng() % 3 == 0);
  return Make(Spec(buckets, encoding, hash, length, delimiter, from_key));
}

std::string RandomBytes(std::mt19937& rng, size_t max_length, bool ascii) {
  std::string s(rng() % (max_length + 1), '\0');
  for (auto& c : s) c = static_cast<char>(ascii ? 'a' + rng() % 26 : rng() % 256);
  return s;
}

TEST(EncodeDecode, RoundTripProperty) {
  std::mt19937 rng(12345);
  int round_trips = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const KeyLayout layout = RandomLayout(rng);
    const bool ascii = layout.hash == SaltHash::kJavaHashCode || rng() % 2;
    std::string logical = RandomBytes(rng, 12, ascii);
    if (layout.group_delimiter && rng() % 4 != 0) {
      logical.insert(rng() % (logical.size() + 1), *layout.group_delimiter);
    }
    const auto row = EncodeKey(layout, logical);
    const auto bucket = BucketOf(layout, logical);
    if (!row.ok()) {
      // Either the key does not fit (BucketOf says so too), or an unsalted row key is empty.
      ASSERT_TRUE(!bucket.ok() || (!IsSalted(layout) && logical.empty()))
          << row.status().ToString();
      continue;
    }
    ASSERT_TRUE(bucket.ok());
    const auto decoded = DecodeKey(layout, *row);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->bucket, *bucket);
    const std::string delimiter = layout.group_delimiter.value_or("");
    const std::string back = layout.group_delimiter ? decoded->group + delimiter + decoded->rest
                                                    : decoded->group + decoded->rest;
    ASSERT_EQ(back, logical);
    if (IsSalted(layout)) {
      EXPECT_EQ(row->substr(0, static_cast<size_t>(layout.salt_width)),
                *SaltPrefix(layout.encoding, layout.buckets, *bucket, layout.salt_width));
    }
    if (layout.group_length || layout.group_delimiter) {
      const auto prefix = GroupPrefix(layout, *row);
      ASSERT_TRUE(prefix.ok());
      EXPECT_EQ(row->rfind(*prefix, 0), 0u);
      if (!layout.salt_from_key) {
        EXPECT_EQ(*GroupScanPrefix(layout, decoded->group), *prefix);
      }
    }
    ++round_trips;
  }
  EXPECT_GT(round_trips, 10000);
}

TEST(BucketsOf, MatchesBucketOf) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const KeyLayout layout = RandomLayout(rng);
    std::vector<std::string> storage;
    for (int i = 0; i < 50; ++i) storage.push_back(RandomBytes(rng, 10, rng() % 2));
    std::vector<std::string_view> keys(storage.begin(), storage.end());
    std::vector<int> out = {7};
    BucketsOf(layout, keys, out);
    ASSERT_EQ(out.size(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      const auto one = BucketOf(layout, keys[i]);
      EXPECT_EQ(out[i], one.ok() ? *one : -1) << ToStringBinary(keys[i]);
    }
  }
}

// BucketsOf hashes keys four at a time; batches of keys of mixed lengths (0..80 bytes, so the
// four keys share 0..20 blocks), for every hash and every way of finding the salt source, give
// what BucketOf gives one key at a time.
TEST(BucketsOf, MixedLengthBatchesMatchBucketOf) {
  std::mt19937 rng(4242);
  const std::optional<int> lengths[] = {std::nullopt, 1, 5, 16};
  const std::optional<std::string> delimiters[] = {std::nullopt, "|", "::"};
  const std::string alphabet[] = {"abc|:", std::string("a\xC3\xA9\xF0\x9F\x98\x80|", 9)};
  int checked = 0;
  for (SaltHash hash : {SaltHash::kMurmur3, SaltHash::kPhoenix, SaltHash::kJavaHashCode}) {
    for (int buckets : {1, 7, 16, 256}) {
      for (const auto& length : lengths) {
        for (const auto& delimiter : delimiters) {
          if (length && delimiter) continue;
          for (bool from_key : {false, true}) {
            if (!from_key && !length && !delimiter) continue;
            const KeyLayout layout =
                Make(Spec(buckets, SaltEncoding::kByte, hash, length, delimiter, from_key));
            std::vector<std::string> storage;
            // Half the batch with one length (the hashes' lockstep path runs to the end).
            const size_t same_length = rng() % 81;
            for (int i = 0; i < 203; ++i) {
              std::string key(i < 100 ? same_length : rng() % 81, '\0');
              const int kind = static_cast<int>(rng() % 3);
              for (char& c : key) {
                c = kind == 2 ? static_cast<char>(rng() & 0xFF)
                              : alphabet[kind][rng() % alphabet[kind].size()];
              }
              storage.push_back(key);
            }
            std::vector<std::string_view> keys(storage.begin(), storage.end());
            std::vector<int> out;
            BucketsOf(layout, keys, out);
            ASSERT_EQ(out.size(), keys.size());
            for (size_t i = 0; i < keys.size(); ++i) {
              const auto one = BucketOf(layout, keys[i]);
              ASSERT_EQ(out[i], one.ok() ? *one : -1)
                  << SaltHashName(hash) << " buckets=" << buckets << " key "
                  << ToStringBinary(keys[i]);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// The salt buckets of tests/vectors/hashes.tsv (the Java implementations' results), computed by
// BucketsOf in one batch per hash and bucket count.
TEST(BucketsOf, MatchesTheJavaVectors) {
  std::ifstream in(std::string(PRESPLIT_VECTORS_DIR) + "/hashes.tsv");
  ASSERT_TRUE(in.good());
  struct Batch {
    std::vector<std::string> keys;
    std::vector<int> expected;
  };
  std::map<std::pair<std::string, int>, Batch> batches;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 4) continue;
    if (f[0] != "murmur3" && f[0] != "phoenix" && f[0] != "java-hashcode") continue;
    auto key = ParseBinaryKey(f[1]);
    ASSERT_TRUE(key.ok()) << line;
    Batch& batch = batches[{f[0], std::stoi(f[2])}];
    batch.keys.push_back(*key);
    batch.expected.push_back(f[3] == "error" ? -1 : std::stoi(f[3]));
  }
  size_t checked = 0;
  for (const auto& [what, batch] : batches) {
    auto hash = ParseSaltHash(what.first);
    ASSERT_TRUE(hash.ok());
    KeyLayout spec;
    spec.buckets = what.second;
    spec.encoding = what.second > 256 ? SaltEncoding::kDecimal : SaltEncoding::kByte;
    spec.hash = *hash;
    spec.salt_from_key = true;
    auto layout = MakeLayout(spec);
    if (!layout.ok()) continue;  // e.g. phoenix beyond 256 buckets
    std::vector<std::string_view> keys(batch.keys.begin(), batch.keys.end());
    std::vector<int> out;
    BucketsOf(*layout, keys, out);
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(out[i], batch.expected[i])
          << what.first << " buckets=" << what.second << " key " << ToStringBinary(keys[i]);
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000u);
}

// tests/vectors/layouts.json: written by VectorsGenerator.java from the real Java hashes and an
// independent Java implementation of the layout; the C++ must give the same buckets and row keys.
TEST(SharedVectors, LayoutsJsonMatches) {
  std::ifstream in(std::string(PRESPLIT_VECTORS_DIR) + "/layouts.json");
  ASSERT_TRUE(in) << "layouts.json missing";
  std::stringstream text;
  text << in.rdbuf();
  const auto doc = nlohmann::json::parse(text.str());
  ASSERT_EQ(doc.at("murmur3_seed").get<uint32_t>(), kMurmur3Seed);
  int cases = 0;
  for (const auto& entry : doc.at("layouts")) {
    const std::string name = entry.at("name");
    nlohmann::json table = {{"version", 1},
                            {"table", "t"},
                            {"layout", entry.at("layout")},
                            {"split", {{"algorithm", "salt-buckets"}}},
                            {"families", {{{"name", "f"}}}}};
    const auto config = ParseTableConfig(table.dump());
    ASSERT_TRUE(config.ok()) << name << ": " << config.status().ToString();
    const auto layout = LayoutFromConfig(config->layout);
    ASSERT_TRUE(layout.ok()) << name << ": " << layout.status().ToString();
    for (const auto& c : entry.at("cases")) {
      const auto key = ParseBinaryKey(c.at("key").get<std::string>());
      ASSERT_TRUE(key.ok());
      const auto bucket = BucketOf(*layout, *key);
      const auto row = EncodeKey(*layout, *key);
      if (c.contains("error")) {
        EXPECT_FALSE(bucket.ok()) << name << " " << c.dump();
        EXPECT_FALSE(row.ok()) << name << " " << c.dump();
      } else {
        ASSERT_TRUE(row.ok()) << name << " " << c.dump() << ": " << row.status().ToString();
        EXPECT_EQ(*bucket, c.at("bucket").get<int>()) << name << " " << c.dump();
        EXPECT_EQ(ToStringBinary(*row), c.at("row_key").get<std::string>()) << name;
        EXPECT_TRUE(DecodeKey(*layout, *row).ok()) << name << " " << c.dump();
      }
      ++cases;
    }
  }
  EXPECT_GT(cases, 500);
}

// Re-keying (a re-salting migration): 10 -> 16 decimal buckets keeps the logical key and
// changes only the salt; errors name the row key.
TEST(Rekey, ChangesOnlyTheSalt) {
  const KeyLayout ten = Make(Spec(10, SaltEncoding::kDecimal, SaltHash::kJavaHashCode, 4, {}));
  const KeyLayout sixteen = Make(Spec(16, SaltEncoding::kDecimal, SaltHash::kJavaHashCode, 4, {}));
  const std::string old_row = *EncodeKey(ten, "abcd|rest");
  const auto new_row = Rekey(ten, sixteen, old_row);
  ASSERT_TRUE(new_row.ok()) << new_row.status().ToString();
  EXPECT_EQ(*new_row, *EncodeKey(sixteen, "abcd|rest"));
  EXPECT_EQ(*Rekey(sixteen, ten, *new_row), old_row);

  // A wrong old salt is not checked: the row moves by its logical key.
  const auto wrong_salt = Rekey(ten, sixteen, "9abcd|rest");
  ASSERT_TRUE(wrong_salt.ok());
  EXPECT_EQ(*wrong_salt, *EncodeKey(sixteen, "abcd|rest"));

  const auto too_short = Rekey(sixteen, ten, "1");
  ASSERT_FALSE(too_short.ok());
  EXPECT_NE(Error(too_short.status()).find("'1'"), std::string::npos)
      << too_short.status().ToString();
  const auto no_group = Rekey(ten, sixteen, "3ab");
  ASSERT_FALSE(no_group.ok());
  EXPECT_NE(Error(no_group.status()).find("row key '3ab' cannot be re-keyed"), std::string::npos)
      << no_group.status().ToString();
}

TEST(RekeyAll, MatchesRekeyAndReportsFailuresByIndex) {
  const KeyLayout from = Make(Spec(10, SaltEncoding::kDecimal, SaltHash::kMurmur3, {}, "|"));
  const KeyLayout to = Make(Spec(200, SaltEncoding::kByte, SaltHash::kPhoenix, {}, "|"));
  const std::vector<std::string_view> rows = {"3a|1", "", "7nodelimiter", "0long-group|x|y", "5|"};
  std::string out;
  std::vector<size_t> ends;
  std::vector<size_t> failed = {99};
  RekeyAll(from, to, rows, out, ends, failed);
  ASSERT_EQ(ends.size(), rows.size());
  EXPECT_EQ(failed, (std::vector<size_t>{1, 2}));
  size_t begin = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string_view got(out.data() + begin, ends[i] - begin);
    const auto single = Rekey(from, to, rows[i]);
    if (single.ok()) {
      EXPECT_EQ(got, *single) << i;
    } else {
      EXPECT_TRUE(got.empty()) << i;
    }
    begin = ends[i];
  }

  RekeyAll(from, to, {}, out, ends, failed);
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(ends.empty());
  EXPECT_TRUE(failed.empty());
}

// Every pair of the shared vectors' layouts: a vector's row key under layout A re-keys to the row
// key under layout B that the vectors (or EncodeKey) give for the same logical key.
TEST(RekeyAll, SharedVectorsBetweenEveryPairOfLayouts) {
  std::ifstream in(std::string(PRESPLIT_VECTORS_DIR) + "/layouts.json");
  ASSERT_TRUE(in) << "layouts.json missing";
  std::stringstream text;
  text << in.rdbuf();
  const auto doc = nlohmann::json::parse(text.str());
  struct Entry {
    std::string name;
    KeyLayout layout;
    std::map<std::string, std::optional<std::string>> row_of;  // logical key -> row (or error)
  };
  std::vector<Entry> entries;
  for (const auto& entry : doc.at("layouts")) {
    nlohmann::json table = {{"version", 1},
                            {"table", "t"},
                            {"layout", entry.at("layout")},
                            {"split", {{"algorithm", "salt-buckets"}}},
                            {"families", {{{"name", "f"}}}}};
    const auto config = ParseTableConfig(table.dump());
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    const auto layout = LayoutFromConfig(config->layout);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    Entry e{entry.at("name"), *layout, {}};
    for (const auto& c : entry.at("cases")) {
      const auto key = ParseBinaryKey(c.at("key").get<std::string>());
      ASSERT_TRUE(key.ok());
      if (c.contains("error")) {
        e.row_of[*key] = std::nullopt;
      } else {
        const auto row = ParseBinaryKey(c.at("row_key").get<std::string>());
        ASSERT_TRUE(row.ok());
        e.row_of[*key] = *row;
      }
    }
    entries.push_back(std::move(e));
  }
  ASSERT_GE(entries.size(), 20u);
  size_t checked = 0;
  for (const Entry& a : entries) {
    std::vector<std::string> logical_keys;
    std::vector<std::string_view> rows;
    for (const auto& [key, row] : a.row_of) {
      if (!row) continue;
      logical_keys.push_back(key);
      rows.push_back(*row);
    }
    for (const Entry& b : entries) {
      std::string out;
      std::vector<size_t> ends;
      std::vector<size_t> failed;
      RekeyAll(a.layout, b.layout, rows, out, ends, failed);
      size_t begin = 0;
      size_t next_failed = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        const std::string_view got(out.data() + begin, ends[i] - begin);
        begin = ends[i];
        const bool did_fail = next_failed < failed.size() && failed[next_failed] == i;
        if (did_fail) ++next_failed;
        std::optional<std::string> expected;
        const auto vector = b.row_of.find(logical_keys[i]);
        if (vector != b.row_of.end()) {
          expected = vector->second;
        } else if (auto encoded = EncodeKey(b.layout, logical_keys[i]); encoded.ok()) {
          expected = *encoded;
        }
        const std::string where =
            a.name + " -> " + b.name + " key " + ToStringBinary(logical_keys[i]);
        if (expected) {
          EXPECT_FALSE(did_fail) << where;
          EXPECT_EQ(ToStringBinary(got), ToStringBinary(*expected)) << where;
        } else {
          EXPECT_TRUE(did_fail) << where;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace presplit
