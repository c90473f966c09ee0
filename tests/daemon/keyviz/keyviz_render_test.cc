// The key visualizer's matrix, diagnoses and JSON from hand-built history windows.
#include "daemon/keyviz/keyviz_render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "presplit/layout.h"
#include "presplit/split_algorithms.h"

namespace presplit::daemon::keyviz {
namespace {

constexpr int64_t kMinute = 60'000;
const std::vector<std::string> kCuts{"a", "b", "c", "d", "e", "f", "g", "h", "i"};

KeyLayout Salted(int buckets) {
  KeyLayout spec;
  spec.buckets = buckets;
  spec.encoding = SaltEncoding::kDecimal;
  spec.salt_from_key = true;
  return MakeLayout(spec).value();
}

std::string Salt(const KeyLayout& layout, int bucket) {
  return SaltPrefix(layout.encoding, layout.buckets, bucket, layout.salt_width).value();
}

// Every bucket cut at the logical keys kCuts: 10 regions per bucket, region 10 b + k holding
// logical range k of bucket b.
HistoryEpoch SaltedEpoch(int buckets, const std::string& physical_table = "ns:t") {
  HistoryEpoch epoch;
  epoch.physical_table = physical_table;
  epoch.layout = Salted(buckets);
  for (int b = 0; b < buckets; ++b) {
    const std::string salt = Salt(epoch.layout, b);
    std::vector<std::string> keys{b == 0 ? "" : salt};
    for (const std::string& cut : kCuts) keys.push_back(salt + cut);
    keys.push_back(b + 1 < buckets ? Salt(epoch.layout, b + 1) : "");
    for (size_t k = 0; k + 1 < keys.size(); ++k) epoch.regions.push_back({keys[k], keys[k + 1]});
  }
  return epoch;
}

// An unsalted table cut at kCuts: 10 regions.
HistoryEpoch PlainEpoch() {
  HistoryEpoch epoch;
  epoch.physical_table = "ns:plain";
  std::vector<std::string> keys{""};
  for (const std::string& cut : kCuts) keys.push_back(cut);
  keys.push_back("");
  for (size_t k = 0; k + 1 < keys.size(); ++k) epoch.regions.push_back({keys[k], keys[k + 1]});
  return epoch;
}

HistoryColumn Column(int index, int epoch, const std::vector<float>& writes) {
  HistoryColumn column;
  column.start_ms = index * kMinute;
  column.end_ms = (index + 1) * kMinute;
  column.epoch = epoch;
  column.write_per_s = writes;
  column.read_per_s.assign(writes.size(), 1);
  column.size_bytes.assign(writes.size(), 1000);
  column.has_rate.assign(writes.size(), true);
  return column;
}

// A hot logical range that moves up the key space: at column t every bucket's region t takes
// 2000 writes/s, the others 10.
HistoryWindow MovingHotRange(int buckets, int columns) {
  HistoryWindow window;
  window.table = "ns:t";
  window.epochs.push_back(SaltedEpoch(buckets));
  for (int t = 0; t < columns; ++t) {
    std::vector<float> writes(static_cast<size_t>(buckets) * 10, 10);
    for (int b = 0; b < buckets; ++b) writes[static_cast<size_t>(10 * b + t % 10)] = 2000;
    window.columns.push_back(Column(t, 0, writes));
  }
  return window;
}

int HottestRow(const KeyvizMatrix& m, size_t c) {
  size_t best = 0;
  for (size_t r = 1; r < m.row_count(); ++r) {
    if (m.total(c, r) > m.total(c, best)) best = r;
  }
  return static_cast<int>(best);
}

const Diagnosis* Find(const KeyvizMatrix& m, const std::string& kind) {
  for (const Diagnosis& d : m.diagnoses) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

TEST(KeyvizRender, AMovingHotRangeIsADiagonalInTheLogicalView) {
  const HistoryWindow window = MovingHotRange(4, 10);
  EXPECT_EQ(DefaultView(window), View::kLogical);
  RenderOptions options;
  options.view = View::kLogical;
  const auto m = Render(window, options);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->row_count(), 10u);
  EXPECT_EQ(m->axis.rows[3].start_key, "c");  // logical keys, the salt removed
  for (size_t c = 0; c < 10; ++c) {
    EXPECT_EQ(HottestRow(*m, c), static_cast<int>(c)) << "column " << c;
    // Each logical row sums the range over the 4 buckets.
    EXPECT_NEAR(m->total(c, c), 4 * 2001, 1e-3);
  }
  const Diagnosis* moving = Find(*m, "moving_hot_spot");
  ASSERT_NE(moving, nullptr);
  EXPECT_EQ(moving->first_column, 0);
  EXPECT_EQ(moving->last_column, 9);
  EXPECT_EQ(moving->from_ms, 0);
  EXPECT_EQ(moving->to_ms, 10 * kMinute);
  ASSERT_EQ(moving->path.size(), 10u);
  for (size_t k = 1; k < moving->path.size(); ++k) {
    EXPECT_GT(moving->path[k].second, moving->path[k - 1].second);
  }
  EXPECT_NE(moving->advice.find("re-salt"), std::string::npos);
  // Each row was hot for one column only: nothing persists.
  EXPECT_EQ(Find(*m, "hot_range"), nullptr);
  EXPECT_EQ(Find(*m, "hot_key"), nullptr);
}

TEST(KeyvizRender, AMovingHotRangeIsAStripeInEveryBucketPhysically) {
  RenderOptions options;
  options.view = View::kPhysical;
  const auto m = Render(MovingHotRange(4, 10), options);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->row_count(), 40u);
  EXPECT_EQ(m->axis.rows[13].start_key, Salt(Salted(4), 1) + "c");  // physical keys
  for (size_t c = 0; c < 10; ++c) {
    std::vector<int> hot;
    for (size_t r = 0; r < m->row_count(); ++r) {
      if (m->total(c, r) >= 1000) hot.push_back(static_cast<int>(r));
    }
    EXPECT_EQ(hot, (std::vector<int>{static_cast<int>(c), static_cast<int>(10 + c),
                                     static_cast<int>(20 + c), static_cast<int>(30 + c)}))
        << "column " << c;
  }
}

TEST(KeyvizRender, APersistentHotRowIsAHotKeyAndAdjacentOnesAHotRange) {
  HistoryWindow window;
  window.table = "ns:plain";
  window.epochs.push_back(PlainEpoch());
  for (int t = 0; t < 8; ++t) {
    std::vector<float> writes(10, 5);
    writes[3] = 5000;
    writes[6] = writes[7] = 4000;
    window.columns.push_back(Column(t, 0, writes));
  }
  EXPECT_EQ(DefaultView(window), View::kPhysical);
  const auto m = Render(window, RenderOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->view, View::kPhysical);  // an unsalted table has one view
  const Diagnosis* key = Find(*m, "hot_key");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->rows, std::vector<int>{3});
  EXPECT_EQ(key->first_column, 0);
  EXPECT_EQ(key->last_column, 7);
  EXPECT_NE(key->text.find("[c, d)"), std::string::npos) << key->text;
  const Diagnosis* range = Find(*m, "hot_range");
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->rows, (std::vector<int>{6, 7}));
  EXPECT_EQ(Find(*m, "moving_hot_spot"), nullptr);
  EXPECT_EQ(Find(*m, "bucket_tails"), nullptr);
}

TEST(KeyvizRender, WritesInEveryBucketsLastRowAreBucketTails) {
  HistoryWindow window;
  window.table = "ns:t";
  window.epochs.push_back(SaltedEpoch(4));
  for (int t = 0; t < 6; ++t) {
    std::vector<float> writes(40, 1);
    for (int b = 0; b < 4; ++b) writes[static_cast<size_t>(10 * b + 9)] = 800;
    window.columns.push_back(Column(t, 0, writes));
  }
  RenderOptions options;
  options.view = View::kPhysical;
  const auto physical = Render(window, options);
  ASSERT_TRUE(physical.ok()) << physical.status().ToString();
  const Diagnosis* tails = Find(*physical, "bucket_tails");
  ASSERT_NE(tails, nullptr);
  EXPECT_EQ(tails->rows, (std::vector<int>{9, 19, 29, 39}));
  EXPECT_NE(tails->advice.find("8 buckets"), std::string::npos) << tails->advice;
  // Logically the four tails are one row, the last.
  options.view = View::kLogical;
  const auto logical = Render(window, options);
  ASSERT_TRUE(logical.ok());
  const Diagnosis* last_row = Find(*logical, "bucket_tails");
  ASSERT_NE(last_row, nullptr);
  EXPECT_EQ(last_row->rows, std::vector<int>{9});
  // Spread writes are no tails.
  for (HistoryColumn& column : window.columns) column.write_per_s.assign(40, 100);
  const auto spread = Render(window, options);
  ASSERT_TRUE(spread.ok());
  EXPECT_EQ(Find(*spread, "bucket_tails"), nullptr);
}

TEST(KeyvizRender, AMigrationKeepsTheLogicalRows) {
  // 4 buckets, then 8 after a switch to ns:t__g2; the hot range stays at logical row 5.
  HistoryWindow window;
  window.table = "ns:t";
  window.epochs.push_back(SaltedEpoch(4));
  window.epochs.push_back(SaltedEpoch(8, "ns:t__g2"));
  window.epochs[1].generation = 2;
  for (int t = 0; t < 6; ++t) {
    const int epoch = t < 3 ? 0 : 1;
    const int buckets = epoch == 0 ? 4 : 8;
    std::vector<float> writes(static_cast<size_t>(10 * buckets), 1);
    for (int b = 0; b < buckets; ++b) writes[static_cast<size_t>(10 * b + 5)] = 8000.0f / buckets;
    window.columns.push_back(Column(t, epoch, writes));
  }
  window.events.push_back({3 * kMinute, "migration", "ns:t -> ns:t__g2"});
  const auto m = Render(window, RenderOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->row_count(), 10u);
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_EQ(HottestRow(*m, c), 5);
    EXPECT_NEAR(m->total(c, 5), 8000 + (c < 3 ? 4 : 8), 1e-2);
  }
  const nlohmann::ordered_json json = MatrixJson(*m, window);
  EXPECT_EQ(json["events"][0]["kind"], "migration");
  EXPECT_EQ(json["epochs"][1]["physical_table"], "ns:t__g2");
  EXPECT_EQ(json["columns"][4]["epoch"], 1);
  const Diagnosis* key = Find(*m, "hot_key");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->rows, std::vector<int>{5});
}

TEST(KeyvizRender, RefusesWindowsThatBreakTheContract) {
  HistoryWindow window = MovingHotRange(2, 3);
  RenderOptions options;
  options.rows = 0;
  EXPECT_FALSE(Render(window, options).ok());
  options.rows = kMaxRows + 1;
  EXPECT_FALSE(Render(window, options).ok());
  options.rows = 10;
  HistoryWindow bad_epoch = window;
  bad_epoch.columns[1].epoch = 3;
  const auto refused = Render(bad_epoch, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("column 1"), std::string::npos);
  HistoryWindow misaligned = window;
  misaligned.columns[2].read_per_s.pop_back();
  EXPECT_FALSE(Render(misaligned, options).ok());
  HistoryWindow unsorted = window;
  std::swap(unsorted.epochs[0].regions[0], unsorted.epochs[0].regions[1]);
  EXPECT_FALSE(Render(unsorted, options).ok());
  EXPECT_FALSE(ParseView("sideways").ok());
  EXPECT_EQ(ParseView("physical").value(), View::kPhysical);
}

TEST(KeyvizRender, TheJsonNamesKeysPrintablyAndBoundsTheHover) {
  // 32 buckets: every logical row touches 32 regions, of which the hover names 16.
  HistoryWindow window = MovingHotRange(32, 4);
  window.epochs[0].regions[10].end_key += std::string("\x00\xff", 2);
  window.epochs[0].regions[11].start_key = window.epochs[0].regions[10].end_key;
  RenderOptions options;
  options.view = View::kPhysical;
  options.rows = kMaxRows;
  options.from_ms = -5;
  options.to_ms = 5;
  const auto m = Render(window, options);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::ordered_json json = MatrixJson(*m, window);
  EXPECT_EQ(json["view"], "physical");
  EXPECT_EQ(json["views"].size(), 2u);
  EXPECT_EQ(json["from_ms"], -5);
  EXPECT_EQ(json["row_count"], m->row_count());
  EXPECT_EQ(json["column_count"], 4);
  EXPECT_EQ(json["rows"][11]["start"], Salt(Salted(32), 1) + "a\\x00\\xFF");
  ASSERT_EQ(json["metrics"]["total"].size(), 4u);
  ASSERT_EQ(json["metrics"]["total"][0].size(), m->row_count());
  EXPECT_EQ(json["metrics"]["total"][2][2], 2001);
  EXPECT_EQ(json["metrics"]["bytes"][0][0], 1000);
  // What /keyviz.json serves: the same JSON, its numbers written directly.
  EXPECT_EQ(nlohmann::ordered_json::parse(MatrixJsonText(*m, window)), json);

  options.view = View::kLogical;
  const auto logical = Render(window, options);
  ASSERT_TRUE(logical.ok());
  const nlohmann::ordered_json folded = MatrixJson(*logical, window);
  for (size_t r = 0; r < logical->row_count(); ++r) {
    EXPECT_LE(folded["epochs"][0]["row_regions"][r].size(), static_cast<size_t>(kMaxCellRegions));
    EXPECT_GE(folded["epochs"][0]["row_region_counts"][r].get<int>(), 32);
  }
  EXPECT_EQ(folded["diagnoses"][0]["kind"], "moving_hot_spot");
  EXPECT_FALSE(folded["diagnoses"][0]["advice"].get<std::string>().empty());
}

// Values a store could hold by mistake (not a number, infinite, negative) count nothing; the
// matrix stays finite and not negative.
TEST(KeyvizRender, ValuesThatAreNoRatesCountNothing) {
  std::mt19937 random(9);
  HistoryWindow window = MovingHotRange(4, 12);
  const float odd[] = {std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(), -5.0f, 3.0e38f};
  for (HistoryColumn& column : window.columns) {
    for (auto* values : {&column.read_per_s, &column.write_per_s, &column.size_bytes}) {
      for (float& v : *values) {
        if (random() % 3 == 0) v = odd[random() % 4];
      }
    }
  }
  for (View view : {View::kLogical, View::kPhysical}) {
    RenderOptions options;
    options.view = view;
    const auto m = Render(window, options);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    for (const auto* metric : {&m->reads, &m->writes, &m->bytes}) {
      for (float v : *metric) {
        EXPECT_TRUE(v >= 0 && v <= std::numeric_limits<float>::max()) << v;
      }
    }
    const auto json = nlohmann::ordered_json::parse(MatrixJsonText(*m, window));
    for (const auto& column : json["metrics"]["total"]) {
      for (const auto& v : column) EXPECT_TRUE(v.is_number()) << v;
    }
  }
}

}  // namespace
}  // namespace presplit::daemon::keyviz
