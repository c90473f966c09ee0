// One key axis for a window of time: SharedKeyAxis and ShareOntoAxis (key_fold.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "presplit/key_fold.h"
#include "presplit/layout.h"
#include "presplit/split_algorithms.h"

namespace presplit {
namespace {

KeyLayout Salted(int buckets) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = SaltEncoding::kDecimal;
  spec.salt_from_key = true;
  return MakeLayout(spec).value();
}

std::string AxisSalt(const KeyLayout& layout, int bucket) {
  return SaltPrefix(layout.encoding, layout.buckets, bucket, layout.salt_width).value();
}

// Every bucket cut at logical "h" and "i".
AxisEpoch HotRangeEpoch(int buckets) {
  AxisEpoch epoch;
  epoch.layout = Salted(buckets);
  for (int b = 0; b < buckets; ++b) {
    const std::string salt = AxisSalt(epoch.layout, b);
    const std::string next = b + 1 < buckets ? AxisSalt(epoch.layout, b + 1) : "";
    epoch.regions.push_back({b == 0 ? "" : salt, salt + "h", 0});
    epoch.regions.push_back({salt + "h", salt + "i", 0});
    epoch.regions.push_back({salt + "i", next, 0});
  }
  return epoch;
}

std::vector<double> Share(const SharedAxis& axis, int epoch, const std::vector<float>& values) {
  std::vector<double> rows(axis.rows.size(), 0.0);
  const Status shared = ShareOntoAxis(axis, epoch, values, rows);
  EXPECT_TRUE(shared.ok()) << shared.ToString();
  return rows;
}

double Sum(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum;
}

int Hottest(const std::vector<double>& rows) {
  return static_cast<int>(std::max_element(rows.begin(), rows.end()) - rows.begin());
}

TEST(KeyAxis, RefusesWhatItCannotDraw) {
  AxisEpoch epoch;
  epoch.regions = {{"", "", 1}};
  EXPECT_FALSE(SharedKeyAxis({epoch}, AxisView::kLogical, 0).ok());
  AxisEpoch unsorted;
  unsorted.regions = {{"b", "c", 0}, {"a", "b", 0}};
  const auto refused = SharedKeyAxis({epoch, unsorted}, AxisView::kLogical, 10);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("epoch 1"), std::string::npos);
  std::vector<AxisEpoch> many(static_cast<size_t>(kMaxAxisEpochs) + 1, epoch);
  EXPECT_FALSE(SharedKeyAxis(many, AxisView::kLogical, 10).ok());

  const auto axis = SharedKeyAxis({epoch}, AxisView::kLogical, 10);
  ASSERT_TRUE(axis.ok());
  std::vector<double> rows(axis->rows.size());
  const std::vector<float> too_many{1, 2};
  EXPECT_FALSE(ShareOntoAxis(*axis, 0, too_many, rows).ok());
  EXPECT_FALSE(ShareOntoAxis(*axis, 1, std::vector<float>{1}, rows).ok());
}

TEST(KeyAxis, RowsAreBoundedAndTileTheKeySpace) {
  std::mt19937 random(7);
  std::vector<AxisEpoch> epochs;
  for (int e = 0; e < 5; ++e) {
    AxisEpoch epoch;
    std::vector<std::string> keys;
    for (int k = 0; k < 300; ++k) keys.push_back(std::to_string(random() % 100000));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    keys.insert(keys.begin(), "");
    for (size_t k = 0; k < keys.size(); ++k) {
      epoch.regions.push_back({keys[k], k + 1 < keys.size() ? keys[k + 1] : "", 0});
    }
    epochs.push_back(epoch);
  }
  for (int max_rows : {1, 17, 200, 5000}) {
    const auto axis = SharedKeyAxis(epochs, AxisView::kLogical, max_rows);
    ASSERT_TRUE(axis.ok()) << axis.status().ToString();
    EXPECT_LE(axis->rows.size(), static_cast<size_t>(max_rows));
    EXPECT_EQ(axis->rows.front().start, 0.0);
    EXPECT_EQ(axis->rows.back().end, 1.0);
    EXPECT_EQ(axis->rows.back().end_key, "");
    for (size_t r = 1; r < axis->rows.size(); ++r) {
      EXPECT_EQ(axis->rows[r].start, axis->rows[r - 1].end);
      EXPECT_EQ(axis->rows[r].start_key, axis->rows[r - 1].end_key);
    }
  }
}

TEST(KeyAxis, EveryMomentKeepsItsTotal) {
  std::mt19937 random(11);
  std::vector<AxisEpoch> epochs{HotRangeEpoch(4), HotRangeEpoch(16)};
  for (AxisView view : {AxisView::kLogical, AxisView::kPhysical}) {
    const auto axis = SharedKeyAxis(epochs, view, 7);
    ASSERT_TRUE(axis.ok()) << axis.status().ToString();
    for (int e = 0; e < 2; ++e) {
      std::vector<float> values;
      double total = 0;
      for (size_t i = 0; i < epochs[e].regions.size(); ++i) {
        values.push_back(static_cast<float>(random() % 1000));
        total += values.back();
      }
      EXPECT_NEAR(Sum(Share(*axis, e, values)), total, 1e-9 * total);
    }
  }
}

// ShareOntoAxis adds wide spans by density, the rest row by row: the rows must be what the shares
// say, a narrow hot region (a few keys wide) included.
TEST(KeyAxis, RowsAreWhatTheSharesSay) {
  std::mt19937 random(5);
  std::vector<AxisEpoch> epochs;
  for (int e = 0; e < 3; ++e) {
    AxisEpoch epoch = HotRangeEpoch(8);
    // A region a few keys wide in bucket 2: [salt "i", salt "i\0\0\0\0\0\0\1").
    for (RegionLoad& region : epoch.regions) {
      if (region.start_key == AxisSalt(epoch.layout, 2) + "i") {
        const std::string narrow = region.start_key + std::string(6, '\0') + "\x01";
        epoch.regions.insert(epoch.regions.begin() + (&region - epoch.regions.data()) + 1,
                             {narrow, region.end_key, 0});
        epoch.regions[static_cast<size_t>(&region - epoch.regions.data())].end_key = narrow;
        break;
      }
    }
    if (e > 0) {
      // Later epochs split bucket 0's first region at "a".."g": the earlier regions then cover
      // several whole rows (added by density).
      const std::string salt = AxisSalt(epoch.layout, 0);
      std::vector<RegionLoad> split;
      std::string start;
      for (char c = 'a'; c <= 'g'; ++c) {
        split.push_back({start, salt + c, 0});
        start = salt + c;
      }
      split.push_back({start, salt + "h", 0});
      epoch.regions.erase(epoch.regions.begin());
      epoch.regions.insert(epoch.regions.begin(), split.begin(), split.end());
    }
    epochs.push_back(epoch);
  }
  for (AxisView view : {AxisView::kLogical, AxisView::kPhysical}) {
    for (int max_rows : {3, 5, 1000}) {
      const auto axis = SharedKeyAxis(epochs, view, max_rows);
      ASSERT_TRUE(axis.ok()) << axis.status().ToString();
      // Both ways of adding are used.
      if (max_rows == 1000) {
        EXPECT_FALSE(axis->plans[0].dense.empty());
      }
      EXPECT_FALSE(axis->plans[0].sparse.empty());
      for (int e = 0; e < 3; ++e) {
        std::vector<float> values;
        for (size_t i = 0; i < epochs[e].regions.size(); ++i) {
          values.push_back(static_cast<float>(random() % 1000));
        }
        values[7] = 1e7f;
        std::vector<double> expected(axis->rows.size(), 0.0);
        for (const AxisShare& share : axis->shares[e]) {
          expected[share.row] += share.fraction * values[share.region];
        }
        const auto rows = Share(*axis, e, values);
        for (size_t r = 0; r < rows.size(); ++r) {
          EXPECT_NEAR(rows[r], expected[r], 1e-9 * 1e7) << "row " << r;
        }
      }
    }
  }
}

TEST(KeyAxis, ValuesThatAreNoRatesCountNothing) {
  AxisEpoch epoch;
  epoch.regions = {{"", "m", 0}, {"m", "", 0}};
  const auto axis = SharedKeyAxis({epoch}, AxisView::kLogical, 10);
  ASSERT_TRUE(axis.ok());
  EXPECT_EQ(Sum(Share(*axis, 0, {std::numeric_limits<float>::quiet_NaN(), -3})), 0.0);
}

TEST(KeyAxis, ASplitMidWindowCutsTheAxisForTheColumnsBeforeIt) {
  AxisEpoch before, after;
  before.regions = {{"", "\x80", 0}, {"\x80", "", 0}};
  after.regions = {{"", "\x80", 0}, {"\x80", "\xc0", 0}, {"\xc0", "", 0}};
  const auto axis = SharedKeyAxis({before, after}, AxisView::kLogical, 100);
  ASSERT_TRUE(axis.ok()) << axis.status().ToString();
  ASSERT_EQ(axis->rows.size(), 3u);
  EXPECT_EQ(axis->rows[1].start_key, "\x80");
  EXPECT_EQ(axis->rows[2].start_key, "\xc0");
  // Before the split the region [0x80, end) is half of each of the two rows it covers now.
  const auto old_rows = Share(*axis, 0, {2, 10});
  EXPECT_DOUBLE_EQ(old_rows[0], 2);
  EXPECT_DOUBLE_EQ(old_rows[1], 5);
  EXPECT_DOUBLE_EQ(old_rows[2], 5);
  const auto new_rows = Share(*axis, 1, {2, 9, 1});
  EXPECT_DOUBLE_EQ(new_rows[1], 9);
  EXPECT_DOUBLE_EQ(new_rows[2], 1);
  // Merged to 2 rows, the narrowest pair goes first: [0x80, 0xc0) + [0xc0, end).
  const auto two = SharedKeyAxis({before, after}, AxisView::kLogical, 2);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->rows.size(), 2u);
  EXPECT_EQ(two->rows[1].start_key, "\x80");
  EXPECT_DOUBLE_EQ(Share(*two, 1, {2, 9, 1})[1], 10);
}

TEST(KeyAxis, AMigrationKeepsTheLogicalAxisAndMovesThePhysicalOne) {
  // 4 buckets, then 8 after the switch; the logical range [h, i) hot in every bucket in both.
  const std::vector<AxisEpoch> epochs{HotRangeEpoch(4), HotRangeEpoch(8)};
  const auto logical = SharedKeyAxis(epochs, AxisView::kLogical, 100);
  ASSERT_TRUE(logical.ok()) << logical.status().ToString();
  ASSERT_EQ(logical->rows.size(), 3u);
  EXPECT_EQ(logical->rows[1].start_key, "h");
  EXPECT_EQ(logical->rows[1].end_key, "i");
  std::vector<float> before(12, 1), after(24, 1);
  for (int b = 0; b < 4; ++b) before[3 * b + 1] = 100;
  for (int b = 0; b < 8; ++b) after[3 * b + 1] = 50;
  const auto rows_before = Share(*logical, 0, before);
  const auto rows_after = Share(*logical, 1, after);
  EXPECT_EQ(Hottest(rows_before), 1);
  EXPECT_EQ(Hottest(rows_after), 1);
  EXPECT_DOUBLE_EQ(rows_before[1], 400);
  EXPECT_DOUBLE_EQ(rows_after[1], 400);

  // Physically, bucket b of 4 and buckets 2b, 2b+1 of 8 share a band: 4 hot stripes before,
  // 8 after, the labels the new table's keys.
  const auto physical = SharedKeyAxis(epochs, AxisView::kPhysical, 1000);
  ASSERT_TRUE(physical.ok()) << physical.status().ToString();
  const auto stripes = [&](int epoch, const std::vector<float>& values) {
    const auto rows = Share(*physical, epoch, values);
    int hot = 0;
    for (double v : rows) hot += v >= 50 ? 1 : 0;
    return hot;
  };
  EXPECT_EQ(stripes(0, before), 4);
  EXPECT_EQ(stripes(1, after), 8);
  bool names_new_bucket = false;
  const std::string newest = AxisSalt(epochs[1].layout, 7) + "h";
  for (const AxisRow& row : physical->rows) names_new_bucket |= row.start_key == newest;
  EXPECT_TRUE(names_new_bucket);
  EXPECT_NEAR(Sum(Share(*physical, 0, before)), 408, 1e-9);
}

}  // namespace
}  // namespace presplit
