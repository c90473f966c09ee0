// The salt hashes and MD5 against golden vectors from the real Java code (tests/vectors/hashes.tsv:
// Phoenix's SaltingUtil, Guava's murmur3_32_fixed, the JDK's String.hashCode and MessageDigest).
#include "presplit/hash.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "golden_reader.h"
#include "presplit/bytes.h"
#include "presplit/md5.h"

namespace presplit {
namespace {

std::vector<std::string> VectorLines(const std::string& name) {
  std::ifstream in(std::string(PRESPLIT_VECTORS_DIR) + "/" + name);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    lines.push_back(line);
  }
  return lines;
}

TEST(HashVectors, EveryLineMatchesTheJavaImplementations) {
  const auto lines = VectorLines("hashes.tsv");
  ASSERT_GT(lines.size(), 3000u) << "hashes.tsv missing or truncated";
  std::map<std::string, int> checked;
  for (const auto& line : lines) {
    const auto f = golden::SplitFields(line, '\t');
    ASSERT_EQ(f.size(), 4u) << line;
    const auto key = ParseBinaryKey(f[1]);
    ASSERT_TRUE(key.ok()) << line;
    const std::string& fn = f[0];
    const std::string& expected = f[3];
    if (fn == "murmur3_32") {
      const auto seed = static_cast<uint32_t>(std::stoul(f[2]));
      EXPECT_EQ(std::to_string(Murmur3_32(*key, seed)), expected) << line;
    } else if (fn == "java_string_hashcode") {
      const auto h = JavaStringHashCode(*key);
      EXPECT_EQ(h ? std::to_string(*h) : "error", expected) << line;
    } else if (fn == "md5") {
      EXPECT_EQ(Md5Hex(*key), expected) << line;
    } else if (fn == "phoenix") {
      EXPECT_EQ(std::to_string(PhoenixSaltByte(*key, std::stoi(f[2]))), expected) << line;
    } else if (fn == "murmur3") {
      EXPECT_EQ(std::to_string(Murmur3Bucket(*key, std::stoi(f[2]))), expected) << line;
    } else if (fn == "java-hashcode") {
      const int b = JavaStringHashBucket(*key, std::stoi(f[2]));
      EXPECT_EQ(b < 0 ? "error" : std::to_string(b), expected) << line;
    } else {
      ADD_FAILURE() << "unknown function in " << line;
    }
    ++checked[fn];
  }
  for (const char* fn :
       {"murmur3_32", "java_string_hashcode", "md5", "phoenix", "murmur3", "java-hashcode"}) {
    EXPECT_GT(checked[fn], 50) << fn;
  }
}

TEST(Murmur3, KnownValues) {
  // Published MurmurHash3_x86_32 values.
  EXPECT_EQ(Murmur3_32("", 0), 0u);
  EXPECT_EQ(Murmur3_32("", 1), 0x514E28B7u);
  EXPECT_EQ(Murmur3_32("", 0xffffffff), 0x81F16F39u);
  EXPECT_EQ(Murmur3_32(std::string_view("\0\0\0\0", 4), 0), 0x2362F9DEu);
  EXPECT_EQ(Murmur3_32("Hello, world!", 1234), 0xFAF6CDB3u);
  EXPECT_EQ(Murmur3_32("The quick brown fox jumps over the lazy dog", 0x9747b28c), 0x2FA826CDu);
}

TEST(Murmur3, BucketIsUnsignedModulo) {
  const std::string key = "polygenelubricants";
  for (int n : {1, 3, 10, 97, 10000}) {
    EXPECT_EQ(Murmur3Bucket(key, n), static_cast<int>(Murmur3_32(key) % static_cast<uint32_t>(n)));
  }
  EXPECT_EQ(Murmur3Bucket(key, 0), -1);
}

TEST(Phoenix, HashOverSignedBytes) {
  EXPECT_EQ(PhoenixHashCode(""), 1);
  EXPECT_EQ(PhoenixHashCode("a"), 31 + 'a');
  EXPECT_EQ(PhoenixHashCode("\xFF"), 31 - 1);  // 0xFF is the Java byte -1
  EXPECT_EQ(PhoenixSaltByte("\xFF", 7), 30 % 7);
  EXPECT_EQ(PhoenixSaltByte("abc", 0), -1);
  EXPECT_EQ(PhoenixSaltByte("abc", 257), -1);
  for (int n : {1, 2, 10, 256}) {
    const int b = PhoenixSaltByte("\x80\x81\x82\xFE", n);
    EXPECT_GE(b, 0);
    EXPECT_LT(b, n);
  }
}

TEST(JavaHashCode, MatchesStringHashCode) {
  EXPECT_EQ(JavaStringHashCode(""), 0);
  EXPECT_EQ(JavaStringHashCode("a"), 97);
  EXPECT_EQ(JavaStringHashCode("hello"), 99162322);
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE: Math.abs(h % n) stays in range.
  EXPECT_EQ(JavaStringHashCode("polygenelubricants"), INT32_MIN);
  EXPECT_EQ(JavaStringHashBucket("polygenelubricants", 10), 8);  // |-2147483648 % 10|
  // U+00E9 is one char; U+1F600 is the surrogate pair D83D DE00.
  EXPECT_EQ(JavaStringHashCode("\xC3\xA9"), 0xE9);
  EXPECT_EQ(JavaStringHashCode("\xF0\x9F\x98\x80"), 31 * 0xD83D + 0xDE00);
}

TEST(JavaHashCode, RefusesMalformedUtf8) {
  for (std::string_view bad :
       {std::string_view("\x80"), std::string_view("\xC3"), std::string_view("\xC3\x28"),
        std::string_view("\xC0\xAF"), std::string_view("\xE0\x80\xAF"),
        std::string_view("\xED\xA0\x80"), std::string_view("\xF4\x90\x80\x80"),
        std::string_view("\xF8\x88\x80\x80\x80"), std::string_view("\xFF"),
        std::string_view("ok\xE2\x82")}) {
    EXPECT_FALSE(JavaStringHashCode(bad).has_value()) << ToStringBinary(bad);
    EXPECT_EQ(JavaStringHashBucket(bad, 10), -1) << ToStringBinary(bad);
  }
  EXPECT_TRUE(JavaStringHashCode("\xF4\x8F\xBF\xBF").has_value());  // U+10FFFF
  EXPECT_TRUE(JavaStringHashCode("\xEF\xBF\xBF").has_value());      // U+FFFF
}

TEST(Md5, Rfc1321TestSuite) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Md5Hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(Md5Hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(Md5Hex("1234567890123456789012345678901234567890123456789012345678901234567890123456"
                   "7890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, BlockBoundaries) {
  // Lengths around the 55/56/64-byte padding boundaries must all differ and be stable.
  std::set<std::string> seen;
  for (size_t n : {54u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u}) {
    EXPECT_TRUE(seen.insert(Md5Hex(std::string(n, 'x'))).second) << n;
  }
  const Md5Digest d = Md5("abc");
  EXPECT_EQ(d[0], 0x90);
  EXPECT_EQ(d[15], 0x72);
}

}  // namespace
}  // namespace presplit
