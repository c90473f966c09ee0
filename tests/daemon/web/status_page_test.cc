#include "daemon/web/status_page.h"

#include <gtest/gtest.h>

#include <string>

namespace presplit::daemon::web {
namespace {

TEST(StatusPage, IsTheWholeHtmlFile) {
  const std::string page(StatusPageHtml());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  // It draws from the daemon's own /status, relative to where it is served.
  EXPECT_NE(page.find("fetch(\"status\""), std::string::npos);
}

TEST(StatusPage, LoadsNothingFromElsewhere) {
  const std::string page(StatusPageHtml());
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  // The only absolute URLs are the SVG and XHTML namespace names, which are never fetched.
  EXPECT_EQ(page.find("https://"), std::string::npos);
  for (size_t at = page.find("http://"); at != std::string::npos;
       at = page.find("http://", at + 1)) {
    EXPECT_EQ(page.compare(at, 18, "http://www.w3.org/"), 0) << page.substr(at, 40);
  }
}

TEST(StatusPage, NamesThePhysicalTableAndWhySplitsAreHeld) {
  const std::string page(StatusPageHtml());
  // /status's per-table fields for generations: the heading names the physical table serving
  // the document, a migration's target is marked, and a hold is said in words.
  EXPECT_NE(page.find("t.physical_table"), std::string::npos);
  EXPECT_NE(page.find("t.generation"), std::string::npos);
  EXPECT_NE(page.find("\"migration_target\""), std::string::npos);
  EXPECT_NE(page.find("load splits held: ${t.split_hold}"), std::string::npos);
}

}  // namespace
}  // namespace presplit::daemon::web
