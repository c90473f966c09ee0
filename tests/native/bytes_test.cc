#include "presplit/bytes.h"

#include <gtest/gtest.h>

#include <random>

#include "golden_reader.h"

namespace presplit {
namespace {

using golden::BytesOfHex;
using golden::HexOf;
using golden::ReadGoldenLines;
using golden::SplitFields;

TEST(BytesGolden, MatchesHBaseToStringBinaryAndToBytesBinary) {
  std::vector<std::string> lines = ReadGoldenLines("bytes.txt");
  ASSERT_GT(lines.size(), 256u) << "golden file missing or truncated";
  int tsb = 0, tbb = 0, tbb_error = 0;
  for (const std::string& line : lines) {
    std::vector<std::string> f = SplitFields(line, '\t');
    ASSERT_EQ(f.size(), 3u) << line;
    if (f[0] == "tsb") {
      EXPECT_EQ(ToStringBinary(BytesOfHex(f[1])), f[2]) << "input " << f[1];
      // What HBase prints, HBase (and presplit) reads back to the same bytes.
      EXPECT_EQ(HexOf(ToBytesBinary(f[2])), f[1]) << "round trip of " << f[2];
      ++tsb;
    } else if (f[0] == "tbb") {
      EXPECT_EQ(HexOf(ToBytesBinary(f[1])), f[2]) << "input " << f[1];
      ++tbb;
    } else if (f[0] == "tbb-error") {
      // HBase throws StringIndexOutOfBoundsException for an escape cut short by the end of the
      // text; presplit treats it as a bogus escape: the backslash is dropped, the rest kept.
      std::string expected = f[1];
      expected.erase(expected.rfind('\\'), 1);
      EXPECT_EQ(ToBytesBinary(f[1]), expected) << "input " << f[1];
      ++tbb_error;
    } else {
      ADD_FAILURE() << "unknown golden line: " << line;
    }
  }
  EXPECT_GE(tsb, 256);
  EXPECT_GE(tbb, 20);
  EXPECT_GE(tbb_error, 3);
}

TEST(Bytes, ToStringBinaryEscapesBackslashAndHighBytes) {
  EXPECT_EQ(ToStringBinary(std::string("a\\b", 3)), "a\\x5Cb");
  EXPECT_EQ(ToStringBinary(std::string("\x00\x7F\x80\xFF", 4)), "\\x00\\x7F\\x80\\xFF");
  EXPECT_EQ(ToStringBinary(" ~"), " ~");
  EXPECT_EQ(ToStringBinary(""), "");
}

TEST(Bytes, ToBytesBinaryQuirks) {
  EXPECT_EQ(ToBytesBinary("\\x0a"), "x0a");  // lower-case digits make the escape bogus
  EXPECT_EQ(ToBytesBinary("\\x0A"), "\n");
  EXPECT_EQ(ToBytesBinary("\\y"), "\\y");
  EXPECT_EQ(ToBytesBinary("a\\x"), "ax");
  EXPECT_EQ(ToBytesBinary("\\xA"), "xA");
  EXPECT_EQ(ToBytesBinary("\\"), "\\");
}

TEST(Bytes, RoundTripOfRandomByteStrings) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> len(0, 40);
  for (int i = 0; i < 5000; ++i) {
    std::string s(static_cast<size_t>(len(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    std::string text = ToStringBinary(s);
    ASSERT_EQ(ToBytesBinary(text), s) << text;
    Result<std::string> strict = ParseBinaryKey(text);
    ASSERT_TRUE(strict.ok()) << strict.status().ToString();
    ASSERT_EQ(*strict, s);
  }
}

TEST(Bytes, ParseBinaryKeyRejectsMalformedEscapes) {
  struct Case {
    std::string text;
    std::string offset;
  };
  for (const Case& c : std::vector<Case>{{"\\x0a", "offset 0"},
                                         {"ab\\xGG", "offset 2"},
                                         {"abc\\x", "offset 3"},
                                         {"\\x00\\xA", "offset 4"}}) {
    Result<std::string> r = ParseBinaryKey(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.offset), std::string::npos) << r.status().message();
  }
  Result<std::string> ok = ParseBinaryKey("row\\x00\\xFF\\y");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, std::string("row\x00\xFF\\y", 7));
}

TEST(Bytes, CompareBytesIsUnsigned) {
  EXPECT_LT(CompareBytes("a", "\x80"), 0);
  EXPECT_LT(CompareBytes("a", std::string("a\x00", 2)), 0);
  EXPECT_EQ(CompareBytes("", ""), 0);
  EXPECT_GT(CompareBytes("b", "a\xFF"), 0);
}

TEST(Bytes, ToStringBinaryPrefixCutsLongKeysAndSaysSo) {
  EXPECT_EQ(ToStringBinaryPrefix("abc", 3), "abc");
  EXPECT_EQ(ToStringBinaryPrefix("abcd", 3), "abc...");
  EXPECT_EQ(ToStringBinaryPrefix(std::string("\x00\xFFz", 3), 2), "\\x00\\xFF...");
  EXPECT_EQ(ToStringBinaryPrefix("", 0), "");
}

TEST(Bytes, EscapeNonPrintableKeepsBackslashesAndEscapesTheRest) {
  EXPECT_EQ(EscapeNonPrintable("a\\b \"c\""), "a\\b \"c\"");
  EXPECT_EQ(EscapeNonPrintable(std::string("x\x00\n\x7F\xC3\xA9", 6)),
            "x\\x00\\x0A\\x7F\\xC3\\xA9");
  EXPECT_EQ(ToStringBinary("a\\b"), "a\\x5Cb") << "unlike HBase's toStringBinary";
}

}  // namespace
}  // namespace presplit
