#include "daemon/web/keyviz_page.h"

#include <gtest/gtest.h>

#include <string>

#include "daemon/web/status_page.h"

namespace presplit::daemon::web {
namespace {

TEST(KeyvizPage, IsTheWholeHtmlFileDrawnFromKeyvizJson) {
  const std::string page(KeyvizPageHtml());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  EXPECT_NE(page.find("fetch(`keyviz.json?"), std::string::npos);
}

TEST(KeyvizPage, HasTheIdsTestsAndOperatorsRelyOn) {
  const std::string page(KeyvizPageHtml());
  for (const char* id : {"heatmap", "view-logical", "view-physical", "metric", "diagnoses", "scale",
                         "tooltip", "legend", "error"}) {
    EXPECT_NE(page.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  // What a test reads instead of pixels.
  EXPECT_NE(page.find("window.keyviz ="), std::string::npos);
  EXPECT_NE(page.find("canvas.dataset.hotRows"), std::string::npos);
  EXPECT_NE(page.find("canvas.dataset.view"), std::string::npos);
}

TEST(KeyvizPage, LoadsNothingFromElsewhere) {
  const std::string page(KeyvizPageHtml());
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
}

TEST(KeyvizPage, TheStatusPageLinksEveryTableToIt) {
  const std::string page(StatusPageHtml());
  EXPECT_NE(page.find("href: `keyviz?table=${encodeURIComponent(t.table)}`"), std::string::npos);
}

}  // namespace
}  // namespace presplit::daemon::web
