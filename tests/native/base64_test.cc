#include "presplit/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace presplit {
namespace {

TEST(Base64Test, EncodesEveryTailLengthWithPadding) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("hello!?"), "aGVsbG8hPw==");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00\x01", 4)), "//4AAQ==");
}

TEST(Base64Test, DecodesWhatItEncodesAndTheUrlSafeAlphabet) {
  for (const std::string& bytes : {std::string(""), std::string("f"), std::string("fo"),
                                   std::string("foo"), std::string("\x00\xff\x80 key", 7)}) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.ok()) << bytes;
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_EQ(*Base64Decode("__4AAQ=="), std::string("\xff\xfe\x00\x01", 4));
  EXPECT_EQ(*Base64Decode("--4AAQ=="), std::string("\xfb\xee\x00\x01", 4));
}

TEST(Base64Test, RefusesWhatIsNotBase64) {
  EXPECT_FALSE(Base64Decode("a=bc").ok()) << "padding inside";
  EXPECT_FALSE(Base64Decode("abc").ok()) << "not a multiple of four";
  EXPECT_FALSE(Base64Decode("ab!c").ok()) << "not in the alphabet";
  EXPECT_FALSE(Base64Decode("a===").ok()) << "three padding characters";
  EXPECT_FALSE(Base64Decode("ab==cdef").ok()) << "padding before the end";
}

}  // namespace
}  // namespace presplit
