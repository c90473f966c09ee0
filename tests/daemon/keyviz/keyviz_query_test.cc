// GET /keyviz.json's parameters and answers, over a history reader of the test's own.
#include "daemon/keyviz/keyviz_query.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace presplit::daemon::keyviz {
namespace {

constexpr int64_t kNow = 1'800'000'000'000;

HistoryWindow OneRegionWindow(const std::string& table) {
  HistoryWindow window;
  window.table = table;
  HistoryEpoch epoch;
  epoch.physical_table = table;
  epoch.regions.push_back({"", ""});
  window.epochs.push_back(epoch);
  HistoryColumn column;
  column.start_ms = kNow - 60'000;
  column.end_ms = kNow;
  column.read_per_s = {3};
  column.write_per_s = {4};
  column.size_bytes = {100};
  window.columns.push_back(column);
  return window;
}

TEST(KeyvizQuery, TimesAbsoluteAndRelative) {
  EXPECT_EQ(ParseTime("now", kNow).value(), kNow);
  EXPECT_EQ(ParseTime("-6h", kNow).value(), kNow - 6 * 3'600'000);
  EXPECT_EQ(ParseTime("-90m", kNow).value(), kNow - 90 * 60'000);
  EXPECT_EQ(ParseTime("-30s", kNow).value(), kNow - 30'000);
  EXPECT_EQ(ParseTime("-2d", kNow).value(), kNow - 2 * 86'400'000);
  EXPECT_EQ(ParseTime("1700000000000", kNow).value(), 1'700'000'000'000);
  for (const char* bad : {"", "-", "-h", "-6", "-6y", "6h", "-+6h", "12ab", "-99999999999999d",
                          "99999999999999999999", " 1"}) {
    EXPECT_FALSE(ParseTime(bad, kNow).ok()) << bad;
  }
}

TEST(KeyvizQuery, DefaultsAndBounds) {
  auto q = ParseKeyvizQuery({{"table", "ns:t"}}, kNow);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->from_ms, kNow - kDefaultWindowMs);
  EXPECT_EQ(q->to_ms, kNow);
  EXPECT_EQ(q->rows, kDefaultRows);
  EXPECT_FALSE(q->view.has_value());
  q = ParseKeyvizQuery(
      {{"table", "ns:t"}, {"from", "-2h"}, {"to", "-1h"}, {"rows", "1000"}, {"view", "physical"}},
      kNow);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->to_ms - q->from_ms, 3'600'000);
  EXPECT_EQ(q->rows, 1000);
  EXPECT_EQ(q->view, View::kPhysical);
  for (const auto& bad : std::vector<std::map<std::string, std::string>>{
           {},
           {{"table", ""}},
           {{"table", "t"}, {"rows", "0"}},
           {{"table", "t"}, {"rows", "1001"}},
           {{"table", "t"}, {"rows", "ten"}},
           {{"table", "t"}, {"view", "diagonal"}},
           {{"table", "t"}, {"from", "-1h"}, {"to", "-2h"}},
           {{"table", "t"}, {"colour", "red"}}}) {
    EXPECT_FALSE(ParseKeyvizQuery(bad, kNow).ok());
  }
}

TEST(KeyvizQuery, AnswersEveryCase) {
  int64_t asked_from = 0, asked_to = 0;
  const HistoryReader read = [&](const std::string& table, int64_t from,
                                 int64_t to) -> Result<HistoryWindow> {
    asked_from = from;
    asked_to = to;
    if (table == "ns:t") return OneRegionWindow(table);
    if (table == "ns:broken") {
      HistoryWindow window = OneRegionWindow(table);
      window.columns[0].epoch = 7;
      return window;
    }
    if (table == "ns:down") return Status::Unavailable("store closed");
    return Status::NotFound("no load history for " + table);
  };
  const TableLister tables = [] { return std::vector<std::string>{"ns:t"}; };

  KeyvizReply ok = ServeKeyvizJson({{"table", "ns:t"}, {"from", "-1h"}}, read, tables, kNow);
  ASSERT_EQ(ok.code, 200) << ok.body;
  EXPECT_EQ(asked_from, kNow - 3'600'000);
  EXPECT_EQ(asked_to, kNow);
  const auto json = nlohmann::json::parse(ok.body);
  EXPECT_EQ(json.at("view"), "physical");  // unsalted: its only view
  EXPECT_EQ(json.at("metrics").at("total").at(0).at(0), 7);

  const KeyvizReply missing = ServeKeyvizJson({}, read, tables, kNow);
  EXPECT_EQ(missing.code, 400);
  EXPECT_EQ(nlohmann::json::parse(missing.body).at("tables"), nlohmann::json::array({"ns:t"}));
  const KeyvizReply bad = ServeKeyvizJson({{"table", "ns:t"}, {"rows", "-1"}}, read, tables, kNow);
  EXPECT_EQ(bad.code, 400);
  EXPECT_NE(nlohmann::json::parse(bad.body).at("error").get<std::string>().find("rows"),
            std::string::npos);
  EXPECT_EQ(ServeKeyvizJson({{"table", "ns:other"}}, read, tables, kNow).code, 404);
  EXPECT_EQ(ServeKeyvizJson({{"table", "ns:down"}}, read, tables, kNow).code, 503);
  EXPECT_EQ(ServeKeyvizJson({{"table", "ns:broken"}}, read, tables, kNow).code, 500);
}

}  // namespace
}  // namespace presplit::daemon::keyviz
