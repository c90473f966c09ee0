// Split-point snapping: explicit cases (HBASE-23620 among them) and a brute-force property test
// over small alphabets, where every key of length <= 4 is enumerated and groups are computed by a
// deliberately naive reference, independent of the library's own group logic.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "presplit/bytes.h"
#include "presplit/layout.h"

namespace presplit {
namespace {

KeyLayout Make(int buckets, SaltEncoding encoding, std::optional<int> length,
               std::optional<std::string> delimiter, bool from_key = false, int width = 0) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = encoding;
  spec.salt_width = width;
  spec.group_length = length;
  spec.group_delimiter = std::move(delimiter);
  spec.salt_from_key = from_key;
  auto layout = MakeLayout(spec);
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  return layout.ok() ? *layout : KeyLayout{};
}

std::optional<std::string> Snap(const KeyLayout& layout, std::string_view start,
                                std::string_view end, std::string_view candidate) {
  auto result = SnapSplitPoint(layout, start, end, candidate);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : std::nullopt;
}

using Opt = std::optional<std::string>;

TEST(SnapSplitPoint, Hbase23620SplitPointEqualToTheStartKey) {
  // KeyPrefix restriction with prefix length 2: the region starts at a group prefix and its mid
  // key is in that group. HBase would split at "ab", the start key; presplit moves past the group.
  const KeyLayout layout = Make(0, SaltEncoding::kByte, 2, {});
  EXPECT_EQ(Snap(layout, "ab", "", "ab5"), Opt("ac"));
  EXPECT_EQ(Snap(layout, "ab", "b", "ab5"), Opt("ac"));
  EXPECT_EQ(Snap(layout, "ab", "ac", "ab5"), std::nullopt);  // the region is one group
  EXPECT_EQ(Snap(layout, "ab", std::string("ac\0", 3), "ab5"), Opt("ac"));
  EXPECT_EQ(Snap(layout, "aa", "", "ab5"), Opt("ab"));  // the plain case
  // Delimited prefixes: the same with "|".
  const KeyLayout delim = Make(0, SaltEncoding::kByte, {}, "|");
  EXPECT_EQ(Snap(delim, "ab|", "", "ab|123"), Opt("ab}"));
  EXPECT_EQ(Snap(delim, "ab|1", "", "ab|123"), Opt("ab}"));
  EXPECT_EQ(Snap(delim, "a", "", "ab|123"), Opt("ab|"));
  // "ab" < "ab|" so a region starting at "ab" may split at "ab|"; "abc|" is another group.
  EXPECT_EQ(Snap(delim, "ab", "", "ab|123"), Opt("ab|"));
}

TEST(SnapSplitPoint, HbaseShortenedMidKeyBetweenTwoGroupsIsKept) {
  // HBase's mid key is a block-index key, shortened between the last row of one block and the
  // first of the next: between "g00187|000024" and "g00188|000000" it is "g00188". It stops
  // before the delimiter, so it has no complete group and cuts none: every row of "g00187|" is
  // below it, every row of "g00188|" above. It is a split point as it is.
  const KeyLayout delim = Make(0, SaltEncoding::kByte, {}, "|");
  EXPECT_TRUE(IsValidSplitPoint(delim, "g00188"));
  EXPECT_EQ(Snap(delim, "", "", "g00188"), Opt("g00188"));
  EXPECT_EQ(Snap(delim, "g00093|", "g00296|", "g0019"), Opt("g0019"));
  // A region that starts there: a mid key inside its first group moves to that group's prefix.
  EXPECT_EQ(Snap(delim, "g00188", "", "g00188|00001"), Opt("g00188|"));
}

TEST(SnapSplitPoint, SaltedLayouts) {
  const KeyLayout byte = Make(8, SaltEncoding::kByte, 2, {});
  EXPECT_EQ(Snap(byte, "", "", "\x03xyz"), Opt("\x03xy"));
  EXPECT_EQ(Snap(byte, "\x03xy", "", "\x03xyz"), Opt("\x03xz"));
  // A group of all 0xFF bytes: the next bucket boundary, or nothing after the last bucket.
  EXPECT_EQ(Snap(byte, "\x03\xFF\xFF", "", "\x03\xFF\xFF\x01"), Opt("\x04"));
  EXPECT_EQ(Snap(byte, "\x07\xFF\xFF", "", "\x07\xFF\xFF\x01"), std::nullopt);
  // Decimal, 2 characters, 45 buckets: after "39" + 0xFF 0xFF comes bucket 40, not "3:".
  const KeyLayout dec = Make(45, SaltEncoding::kDecimal, 2, {});
  EXPECT_EQ(Snap(dec, "39\xFF\xFF", "", "39\xFF\xFFzz"), Opt("40"));
  EXPECT_EQ(Snap(dec, "39\xFF\xFF", "40", "39\xFF\xFFzz"), std::nullopt);
  EXPECT_EQ(Snap(dec, "44\xFF\xFF", "", "44\xFF\xFFzz"), std::nullopt);
  // A candidate with a partial salt snaps to the next bucket boundary, never inside a salt.
  EXPECT_EQ(Snap(dec, "", "", "1"), Opt("10"));
  EXPECT_EQ(Snap(dec, "0", "", "0"), Opt("00"));
  EXPECT_EQ(Snap(dec, "05", "", "1"), Opt("10"));
  EXPECT_EQ(Snap(dec, "", "", "9x"), Opt("00"));  // beyond every bucket: the first valid point
  EXPECT_EQ(Snap(dec, "44", "", "9x"), Opt(std::string("44\0", 3)));
  EXPECT_EQ(Snap(dec, "44\xFF\xFF", "", "9x"), std::nullopt);
  // Salting from the whole key, no group: the candidate itself (keys are their own groups).
  const KeyLayout from_key = Make(16, SaltEncoding::kHex, {}, {}, true);
  EXPECT_EQ(Snap(from_key, "3", "", "3abc"), Opt("3abc"));
  EXPECT_EQ(Snap(from_key, "3abc", "", "3abc"), Opt(std::string("3abc\x00", 5)));
}

TEST(SnapSplitPoint, EmptyCandidateAndErrors) {
  const KeyLayout layout = Make(4, SaltEncoding::kByte, 2, {});
  EXPECT_EQ(Snap(layout, "", "", ""), std::nullopt);
  EXPECT_FALSE(SnapSplitPoint(layout, "b", "a", "b").ok());          // end before start
  EXPECT_FALSE(SnapSplitPoint(layout, "b", "b", "b").ok());          // empty region
  EXPECT_FALSE(SnapSplitPoint(layout, "b", "c", "a").ok());          // candidate before start
  EXPECT_FALSE(SnapSplitPoint(layout, "b", "c", "c").ok());          // candidate at end
  EXPECT_TRUE(SnapSplitPoint(layout, "\x01", "\x02", "\x01").ok());  // candidate == start
}

TEST(IsValidSplitPoint, Definition) {
  const KeyLayout dec = Make(20, SaltEncoding::kDecimal, {}, "||");
  EXPECT_FALSE(IsValidSplitPoint(dec, ""));
  EXPECT_FALSE(IsValidSplitPoint(dec, "1"));      // a partial salt
  EXPECT_FALSE(IsValidSplitPoint(dec, "20"));     // no such bucket
  EXPECT_TRUE(IsValidSplitPoint(dec, "13"));      // a bucket boundary
  EXPECT_TRUE(IsValidSplitPoint(dec, "13ab"));    // no complete group: cuts nothing
  EXPECT_TRUE(IsValidSplitPoint(dec, "13ab||"));  // a group prefix
  EXPECT_FALSE(IsValidSplitPoint(dec, "13ab||x"));
  EXPECT_FALSE(IsValidSplitPoint(dec, "13ab|||"));
}

// --- brute force ---------------------------------------------------------------------------

struct Universe {
  KeyLayout layout;
  std::vector<std::string> keys;  // sorted
  std::vector<std::string> group_of;
  std::vector<bool> valid;      // valid split point by the reference
  std::vector<int> valid_upto;  // prefix counts of `valid`
  std::map<std::string, std::pair<std::string, std::string>> group_range;  // min, max
  std::set<std::string> salts;
};

// The reference: a key's group id, computed the naive way.
std::string RefGroup(const Universe& u, const std::string& key) {
  const auto& l = u.layout;
  const size_t w = static_cast<size_t>(l.salt_width);
  if (l.buckets > 0 && (key.size() < w || !u.salts.count(key.substr(0, w)))) return "1" + key;
  const std::string rest = key.substr(w);
  if (l.group_length) {
    const auto n = static_cast<size_t>(*l.group_length);
    return rest.size() >= n ? "0" + key.substr(0, w + n) : "1" + key;
  }
  if (l.group_delimiter) {
    const size_t at = rest.find(*l.group_delimiter);
    return at == std::string::npos ? "1" + key
                                   : "0" + key.substr(0, w + at + l.group_delimiter->size());
  }
  return "1" + key;
}

// Whether `s` is a valid split point according to the universe: no group has keys on both sides,
// and (salted) s starts with a complete salt of a bucket.
bool RefValid(const Universe& u, const std::string& s) {
  if (s.empty()) return false;
  const size_t w = static_cast<size_t>(u.layout.salt_width);
  if (u.layout.buckets > 0 && (s.size() < w || !u.salts.count(s.substr(0, w)))) return false;
  for (const auto& [group, range] : u.group_range) {
    if (CompareBytes(range.first, s) < 0 && CompareBytes(s, range.second) <= 0) return false;
  }
  return true;
}

Universe MakeUniverse(const KeyLayout& layout, const std::string& alphabet, size_t max_length) {
  Universe u;
  u.layout = layout;
  for (int b = 0; b < layout.buckets; ++b) {
    u.salts.insert(*SaltPrefix(layout.encoding, layout.buckets, b, layout.salt_width));
  }
  std::vector<std::string> frontier = {""};
  u.keys.push_back("");
  for (size_t length = 1; length <= max_length; ++length) {
    std::vector<std::string> next;
    for (const auto& prefix : frontier) {
      for (char c : alphabet) next.push_back(prefix + c);
    }
    u.keys.insert(u.keys.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  std::sort(u.keys.begin(), u.keys.end(),
            [](const std::string& a, const std::string& b) { return CompareBytes(a, b) < 0; });
  for (const auto& k : u.keys) {
    const std::string g = RefGroup(u, k);
    u.group_of.push_back(g);
    auto it = u.group_range.find(g);
    if (it == u.group_range.end()) {
      u.group_range[g] = {k, k};
    } else {
      it->second.second = k;  // keys are visited in order
    }
  }
  // Only groups with two or more keys can be cut.
  for (auto it = u.group_range.begin(); it != u.group_range.end();) {
    it = it->second.first == it->second.second ? u.group_range.erase(it) : std::next(it);
  }
  u.valid_upto.push_back(0);
  for (const auto& k : u.keys) {
    u.valid.push_back(RefValid(u, k));
    u.valid_upto.push_back(u.valid_upto.back() + (u.valid.back() ? 1 : 0));
  }
  return u;
}

size_t LowerBound(const Universe& u, const std::string& key) {
  return static_cast<size_t>(std::lower_bound(u.keys.begin(), u.keys.end(), key,
                                              [](const std::string& a, const std::string& b) {
                                                return CompareBytes(a, b) < 0;
                                              }) -
                             u.keys.begin());
}

// Valid keys of the universe strictly between a and b (b empty = unbounded).
int ValidBetween(const Universe& u, const std::string& a, const std::string& b) {
  size_t from = LowerBound(u, a);
  if (from < u.keys.size() && u.keys[from] == a) ++from;
  const size_t to = b.empty() ? u.keys.size() : LowerBound(u, b);
  return to > from ? u.valid_upto[to] - u.valid_upto[from] : 0;
}

TEST(SnapSplitPoint, BruteForceOverSmallAlphabets) {
  std::mt19937 rng(2024);
  struct Shape {
    int buckets;
    SaltEncoding encoding;
    int width;
    bool from_key;
    std::optional<int> length;
    std::optional<std::string> delimiter;
    std::string alphabet;
  };
  std::vector<Shape> shapes;
  const std::vector<std::pair<std::optional<int>, std::optional<std::string>>> groups = {
      {1, {}},
      {2, {}},
      {3, {}},
      {{}, "|"},
      {{}, "||"},
      {{}, std::string("\xFF", 1)},
      {{}, std::string("\x00", 1)},
      {{}, {}}};
  for (const auto& [length, delimiter] : groups) {
    const bool from_key = !length && !delimiter;
    shapes.push_back(
        {0, SaltEncoding::kByte, 0, false, length, delimiter, std::string("ab|\x00\xFF", 5)});
    shapes.push_back({3, SaltEncoding::kByte, 0, from_key, length, delimiter,
                      std::string("\x00\x01\x02\x03|\xFF", 6)});
    shapes.push_back(
        {1, SaltEncoding::kByte, 0, from_key, length, delimiter, std::string("\x00\x01|\xFF", 4)});
    shapes.push_back(
        {3, SaltEncoding::kDecimal, 0, from_key, length, delimiter, std::string("0123|\xFF", 6)});
    shapes.push_back(
        {12, SaltEncoding::kDecimal, 0, from_key, length, delimiter, std::string("0123|\xFF", 6)});
    shapes.push_back(
        {11, SaltEncoding::kHex, 0, from_key, length, delimiter, std::string("0a\x00|\xFF", 5)});
    shapes.push_back(
        {2, SaltEncoding::kHex, 3, from_key, length, delimiter, std::string("01|\xFF", 4)});
  }
  int checked = 0, nullopts = 0, moved_past_group = 0;
  for (const auto& shape : shapes) {
    if (shape.buckets == 0 && !shape.length && !shape.delimiter) continue;  // nothing to keep
    KeyLayout spec;
    spec.buckets = shape.buckets;
    spec.encoding = shape.encoding;
    spec.salt_width = shape.width;
    spec.salt_from_key = shape.from_key;
    spec.group_length = shape.length;
    spec.group_delimiter = shape.delimiter;
    const auto layout = MakeLayout(spec);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    const Universe u = MakeUniverse(*layout, shape.alphabet, 4);
    // The library's definition of a valid split point agrees with the reference on every key.
    for (size_t i = 0; i < u.keys.size(); ++i) {
      ASSERT_EQ(IsValidSplitPoint(*layout, u.keys[i]), static_cast<bool>(u.valid[i]))
          << ToStringBinary(u.keys[i]);
    }
    for (int trial = 0; trial < 1500; ++trial) {
      std::string start = u.keys[rng() % u.keys.size()];
      std::string end = rng() % 5 == 0 ? "" : u.keys[rng() % u.keys.size()];
      if (!end.empty() && CompareBytes(end, start) < 0) std::swap(start, end);
      if (!end.empty() && CompareBytes(end, start) == 0) continue;
      // A candidate in [start, end).
      const size_t lo = LowerBound(u, start);
      const size_t hi = end.empty() ? u.keys.size() : LowerBound(u, end);
      if (hi <= lo) continue;
      const std::string& candidate = u.keys[lo + rng() % (hi - lo)];
      if (candidate.empty()) continue;
      const auto result = SnapSplitPoint(*layout, start, end, candidate);
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      const std::string where = "start '" + ToStringBinary(start) + "' end '" +
                                ToStringBinary(end) + "' candidate '" + ToStringBinary(candidate) +
                                "'";
      const int valid_inside = ValidBetween(u, start, end);
      if (!result->has_value()) {
        // nullopt only when no valid split point exists inside the region.
        ASSERT_EQ(valid_inside, 0) << where;
        ++nullopts;
        ++checked;
        continue;
      }
      const std::string& r = **result;
      ASSERT_GT(CompareBytes(r, start), 0) << where << " -> " << ToStringBinary(r);
      if (!end.empty()) {
        ASSERT_LT(CompareBytes(r, end), 0) << where << " -> " << ToStringBinary(r);
      }
      ASSERT_TRUE(RefValid(u, r)) << where << " cuts a group: " << ToStringBinary(r);
      ASSERT_TRUE(IsValidSplitPoint(*layout, r)) << where;
      // The group prefix of the candidate when it is after the start; otherwise the first valid
      // point after the start (nothing valid in between).
      const std::string g = u.group_of[LowerBound(u, candidate)];
      const std::string prefix = g.substr(1);  // "0"+prefix or "1"+key
      const size_t w = static_cast<size_t>(layout->salt_width);
      const bool salt_ok =
          layout->buckets == 0 || (candidate.size() >= w && u.salts.count(candidate.substr(0, w)));
      if (salt_ok && CompareBytes(prefix, start) > 0) {
        ASSERT_EQ(r, prefix) << where;
      } else if (!salt_ok && CompareBytes(r, candidate) > 0) {
        // No group: the first valid point at or after the candidate.
        ASSERT_EQ(ValidBetween(u, candidate, r), 0) << where << " -> " << ToStringBinary(r);
        ++moved_past_group;
      } else {
        ASSERT_EQ(ValidBetween(u, start, r), 0) << where << " -> " << ToStringBinary(r);
        ++moved_past_group;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 50000);
  EXPECT_GT(nullopts, 100);
  EXPECT_GT(moved_past_group, 1000);
}

}  // namespace
}  // namespace presplit
