#include "presplit/split_algorithms.h"

#include <gtest/gtest.h>

#include "golden_reader.h"
#include "presplit/bytes.h"

namespace presplit {
namespace {

using golden::ReadGoldenLines;
using golden::SplitFields;

struct GoldenCase {
  std::string line;
  std::string algorithm;
  int regions = 0;
  std::optional<std::string> first, last;
  bool error = false;
  std::vector<std::string> keys;  // toStringBinary form
};

std::vector<GoldenCase> ReadRegionSplitterGolden() {
  std::vector<GoldenCase> cases;
  for (const std::string& line : ReadGoldenLines("regionsplitter.txt")) {
    if (line.rfind("case ", 0) == 0) {
      std::vector<std::string> f = SplitFields(line, ' ');
      EXPECT_EQ(f.size(), 5u) << line;
      if (f.size() != 5) continue;
      GoldenCase c;
      c.line = line;
      c.algorithm = f[1];
      c.regions = std::stoi(f[2]);
      if (f[3] != "-") c.first = f[3];
      if (f[4] != "-") c.last = f[4];
      cases.push_back(c);
    } else if (!cases.empty() && line.rfind("key ", 0) == 0) {
      cases.back().keys.push_back(line.substr(4));
    } else if (!cases.empty() && line.rfind("end ", 0) == 0) {
      EXPECT_EQ(std::stoul(line.substr(4)), cases.back().keys.size()) << cases.back().line;
    } else if (!cases.empty() && line.rfind("error ", 0) == 0) {
      cases.back().error = true;
    } else {
      ADD_FAILURE() << "unexpected golden line: " << line;
    }
  }
  return cases;
}

Result<std::vector<std::string>> RunGoldenCase(const GoldenCase& c) {
  if (c.algorithm == "hex-string") return HexStringSplit(c.regions, c.first, c.last);
  if (c.algorithm == "decimal-string") return DecimalStringSplit(c.regions, c.first, c.last);
  // RegionSplitter's UniformSplit.setFirstRow(String) decodes with Bytes.toBytesBinary.
  std::optional<std::string> first, last;
  if (c.first) first = ToBytesBinary(*c.first);
  if (c.last) last = ToBytesBinary(*c.last);
  return UniformSplit(c.regions, first, last);
}

TEST(RegionSplitterGolden, ByteForByteIdenticalToHBase) {
  std::vector<GoldenCase> cases = ReadRegionSplitterGolden();
  ASSERT_GT(cases.size(), 60u) << "golden file missing or truncated";
  int compared_keys = 0;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.line);
    Result<std::vector<std::string>> keys = RunGoldenCase(c);
    if (c.error) {
      if (c.algorithm == "uniform" && c.regions == 1) {
        // Deliberate difference: HBase throws "num cannot be <= 0"; one region needs no key.
        ASSERT_TRUE(keys.ok()) << keys.status().ToString();
        EXPECT_TRUE(keys->empty());
        continue;
      }
      EXPECT_FALSE(keys.ok()) << "HBase rejects this input";
      EXPECT_EQ(keys.status().code(), StatusCode::kInvalidArgument);
      continue;
    }
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    ASSERT_EQ(keys->size(), c.keys.size());
    for (size_t i = 0; i < c.keys.size(); ++i) {
      EXPECT_EQ(ToStringBinary((*keys)[i]), c.keys[i]) << "key " << i;
      // The golden form is exact: decoding it gives HBase's bytes.
      EXPECT_EQ((*keys)[i], ToBytesBinary(c.keys[i])) << "key " << i;
      ++compared_keys;
    }
    EXPECT_TRUE(ValidateSplitKeys(*keys).ok());
  }
  EXPECT_GT(compared_keys, 2000);
}

TEST(SplitAlgorithms, HexDefaults) {
  Result<std::vector<std::string>> keys = HexStringSplit(4);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"40000000", "80000000", "c0000000"}));
}

TEST(SplitAlgorithms, ErrorsAreClear) {
  Result<std::vector<std::string>> r = HexStringSplit(10, std::string("0g"), std::string("ff"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("first row '0g': invalid hex digit 'g' at offset 1"),
            std::string::npos)
      << r.status().message();
  r = DecimalStringSplit(11, std::string("0"), std::string("9"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("into 11 regions"), std::string::npos)
      << r.status().message();
  r = DecimalStringSplit(2, std::string("5"), std::string("5"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must be greater than first row"), std::string::npos);
  EXPECT_FALSE(HexStringSplit(0).ok());
  EXPECT_FALSE(UniformSplit(-1).ok());
  EXPECT_FALSE(DecimalStringSplit(kMaxSplitRegions + 1).ok());
  EXPECT_FALSE(HexStringSplit(2, std::string("-1")).ok());  // Java would take the sign
  r = UniformSplit(3, std::string("a"), std::string("a\0", 2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("padded"), std::string::npos) << r.status().message();
}

TEST(SplitAlgorithms, OneRegionHasNoKeys) {
  EXPECT_TRUE(HexStringSplit(1)->empty());
  EXPECT_TRUE(DecimalStringSplit(1)->empty());
  EXPECT_TRUE(UniformSplit(1)->empty());
  EXPECT_TRUE(SaltBucketSplit(1, SaltEncoding::kDecimal)->empty());
}

TEST(SplitAlgorithms, Names) {
  for (SplitAlgorithm a :
       {SplitAlgorithm::kHexString, SplitAlgorithm::kDecimalString, SplitAlgorithm::kUniform,
        SplitAlgorithm::kSaltBuckets, SplitAlgorithm::kExplicit}) {
    Result<SplitAlgorithm> parsed = ParseSplitAlgorithm(SplitAlgorithmName(a));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, a);
  }
  EXPECT_EQ(SplitAlgorithmName(SplitAlgorithm::kSaltBuckets), "salt-buckets");
  EXPECT_EQ(*ParseSplitAlgorithm("HEX-STRING"), SplitAlgorithm::kHexString);
  Result<SplitAlgorithm> bad = ParseSplitAlgorithm("HexStringSplitt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("expected one of hex-string"), std::string::npos);
  EXPECT_EQ(*ParseSaltEncoding("hex"), SaltEncoding::kHex);
  EXPECT_EQ(SaltEncodingName(SaltEncoding::kByte), "byte");
  EXPECT_FALSE(ParseSaltEncoding("base64").ok());
}

TEST(Salt, Widths) {
  EXPECT_EQ(*SaltWidth(SaltEncoding::kByte, 256), 1);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kDecimal, 1), 1);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kDecimal, 10), 1);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kDecimal, 11), 2);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kDecimal, 101), 3);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kHex, 16), 1);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kHex, 17), 2);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kHex, 257), 3);
  EXPECT_EQ(*SaltWidth(SaltEncoding::kDecimal, 10, 3), 3);

  Result<int> r = SaltWidth(SaltEncoding::kDecimal, 11, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a 1-character decimal salt cannot hold 11 buckets");
  r = SaltWidth(SaltEncoding::kHex, 300, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a 2-character hex salt cannot hold 300 buckets");
  EXPECT_FALSE(SaltWidth(SaltEncoding::kByte, 257).ok());
  EXPECT_FALSE(SaltWidth(SaltEncoding::kByte, 10, 2).ok());
  EXPECT_TRUE(SaltWidth(SaltEncoding::kByte, 10, 1).ok());
  EXPECT_FALSE(SaltWidth(SaltEncoding::kDecimal, 0).ok());
  EXPECT_FALSE(SaltWidth(SaltEncoding::kDecimal, 10, -1).ok());
  EXPECT_FALSE(SaltWidth(SaltEncoding::kDecimal, 10, 11).ok());
}

TEST(Salt, Prefixes) {
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kByte, 256, 255), "\xFF");
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kByte, 4, 0), std::string(1, '\0'));
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kDecimal, 10, 7), "7");
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kDecimal, 100, 7), "07");
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kDecimal, 10, 7, 3), "007");
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kHex, 256, 171), "ab");
  EXPECT_EQ(*SaltPrefix(SaltEncoding::kHex, 4096, 10), "00a");
  EXPECT_FALSE(SaltPrefix(SaltEncoding::kDecimal, 10, 10).ok());
  EXPECT_FALSE(SaltPrefix(SaltEncoding::kDecimal, 10, -1).ok());
  EXPECT_FALSE(SaltPrefix(SaltEncoding::kDecimal, 11, 3, 1).ok());
}

TEST(Salt, BucketSplit) {
  Result<std::vector<std::string>> keys = SaltBucketSplit(10, SaltEncoding::kDecimal);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  keys = SaltBucketSplit(12, SaltEncoding::kDecimal);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->front(), "01");
  EXPECT_EQ(keys->back(), "11");
  keys = SaltBucketSplit(256, SaltEncoding::kByte);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 255u);
  EXPECT_EQ(keys->front(), "\x01");
  EXPECT_EQ(keys->back(), "\xFF");
  EXPECT_TRUE(ValidateSplitKeys(*keys).ok());
  keys = SaltBucketSplit(20, SaltEncoding::kHex);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ((*keys)[9], "0a");
  EXPECT_TRUE(ValidateSplitKeys(*keys).ok());
  EXPECT_FALSE(SaltBucketSplit(11, SaltEncoding::kDecimal, 1).ok());
  EXPECT_FALSE(SaltBucketSplit(0, SaltEncoding::kHex).ok());
}

TEST(ValidateSplitKeys, NamesIndexAndKey) {
  EXPECT_TRUE(ValidateSplitKeys({}).ok());
  EXPECT_TRUE(ValidateSplitKeys({"a", std::string("a\x00", 2), "b"}).ok());
  Status s = ValidateSplitKeys({"a", "", "b"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("split key 1 is empty"), std::string::npos) << s.message();
  s = ValidateSplitKeys({"a", "b", std::string("b")});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "split key 2 'b' is not greater than split key 1 'b' (duplicate)");
  s = ValidateSplitKeys({"a", "\x80", "\x7F"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("split key 2 '\\x7F' is not greater than split key 1 '\\x80'"),
            std::string::npos)
      << s.message();
  s = ValidateSplitKeys({std::string(kMaxRowKeyLength + 1, 'a')});
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace presplit
