#include "presplit/key_helpers.h"

#include <gtest/gtest.h>

#include <limits>

#include "presplit/bytes.h"

namespace presplit {
namespace {

TEST(Int64BigEndian, MatchesBytesToBytesLong) {
  EXPECT_EQ(ToStringBinary(Int64BigEndian(0)), "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00");
  EXPECT_EQ(ToStringBinary(Int64BigEndian(258)), "\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x02");
  EXPECT_EQ(ToStringBinary(Int64BigEndian(-1)), "\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF");
  EXPECT_EQ(*ParseInt64BigEndian(Int64BigEndian(-123456789012345)), -123456789012345);
  EXPECT_FALSE(ParseInt64BigEndian("abc").ok());
}

TEST(ReversedTimestamp, NewerSortsFirst) {
  const auto older = ReversedTimestamp(1700000000000);
  const auto newer = ReversedTimestamp(1700000000001);
  ASSERT_TRUE(older.ok() && newer.ok());
  EXPECT_LT(CompareBytes(*newer, *older), 0);
  EXPECT_EQ(*ReversedTimestamp(0), Int64BigEndian(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(ToStringBinary(*ReversedTimestamp(std::numeric_limits<int64_t>::max())),
            "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00");
  // Long.MAX_VALUE - 1700000000000 = 0x7FFFFE74301A97FF
  EXPECT_EQ(ToStringBinary(*older), "\\x7F\\xFF\\xFEt0\\x1A\\x97\\xFF");
  EXPECT_EQ(*ParseReversedTimestamp(*older), 1700000000000);
  EXPECT_FALSE(ReversedTimestamp(-1).ok());
  EXPECT_FALSE(ParseReversedTimestamp(Int64BigEndian(-5)).ok());
}

TEST(ReverseIdentifier, ReversesBytes) {
  EXPECT_EQ(ReverseIdentifier("12345"), "54321");
  EXPECT_EQ(ReverseIdentifier(""), "");
  EXPECT_EQ(ReverseIdentifier(ReverseIdentifier("a\xFF\x00z")), "a\xFF\x00z");
}

TEST(Md5Helpers, RawAndHexPrefix) {
  EXPECT_EQ(ToStringBinary(Md5Field("abc")),
            "\\x90\\x01P\\x98<\\xD2O\\xB0\\xD6\\x96?}(\\xE1\\x7Fr");
  EXPECT_EQ(*Md5HexPrefix("abc", 32), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(*Md5HexPrefix("abc", 8), "90015098");
  EXPECT_EQ(*Md5HexPrefix("abc", 1), "9");
  EXPECT_FALSE(Md5HexPrefix("abc", 0).ok());
  EXPECT_FALSE(Md5HexPrefix("abc", 33).ok());
}

TEST(NumberedPartitions, PrefixIsIdModN) {
  const auto key = NumberedPartitionKey(1234567, 10);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(*key, Int64BigEndian(7) + Int64BigEndian(1234567));
  EXPECT_EQ(*PartitionOf(*key), 7);
  EXPECT_EQ(*PartitionOf(*NumberedPartitionKey(9, 10)), 9);
  EXPECT_EQ(*PartitionOf(*NumberedPartitionKey(10, 10)), 0);
  EXPECT_FALSE(NumberedPartitionKey(-1, 10).ok());
  EXPECT_FALSE(NumberedPartitionKey(1, 0).ok());
  EXPECT_FALSE(PartitionOf("short").ok());
}

}  // namespace
}  // namespace presplit
