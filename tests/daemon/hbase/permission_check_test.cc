#include "daemon/hbase/permission_check.h"

#include <gtest/gtest.h>

namespace presplit::daemon {
namespace {

// As io.presplit.hbase.admin.PermissionCheck renders it (PermissionCheckTest pins the Java side).
constexpr const char* kTwoMissing =
    R"({"authorization":true,"principal":"presplit/h@R","checked":3,"create_checked":1,)"
    R"("missing":[{"permission":"ADMIN","scope":"ns:a","for":"load splits and migration )"
    R"(snapshots of ns:a","grant":"grant 'presplit', 'A', 'ns:a'"},{"permission":"ADMIN",)"
    R"("scope":"GLOBAL","for":"creating namespace fresh","grant":"grant 'presplit', 'A'"}]})";

PermissionReport Parsed(const std::string& json) {
  auto report = ParsePermissionReport(json);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? *report : PermissionReport{};
}

TEST(PermissionCheck, ParsesAdminBridgesShape) {
  const PermissionReport r = Parsed(kTwoMissing);
  EXPECT_TRUE(r.authorization);
  EXPECT_EQ(r.principal, "presplit/h@R");
  EXPECT_EQ(r.checked, 3);
  EXPECT_EQ(r.create_checked, 1);
  ASSERT_EQ(r.missing.size(), 2u);
  EXPECT_EQ(r.missing[0].permission, "ADMIN");
  EXPECT_EQ(r.missing[0].scope, "ns:a");
  EXPECT_EQ(r.missing[1].grant, "grant 'presplit', 'A'");
  EXPECT_FALSE(ParsePermissionReport("{\"authorization\":true}").ok());
  EXPECT_FALSE(ParsePermissionReport("not json").ok());
}

TEST(PermissionCheck, EachMissingPermissionIsLoggedOnceUntilHeld) {
  PermissionState state;
  auto lines = state.Record(Parsed(kTwoMissing), 1000);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "HBase permission missing: presplitd's principal presplit/h@R lacks ADMIN on ns:a, "
            "needed for load splits and migration snapshots of ns:a; as HBase's superuser: grant "
            "'presplit', 'A', 'ns:a'");
  EXPECT_EQ(lines[1],
            "HBase permission missing: presplitd's principal presplit/h@R lacks global ADMIN, "
            "needed for creating namespace fresh; as HBase's superuser: grant 'presplit', 'A'");
  EXPECT_TRUE(state.Record(Parsed(kTwoMissing), 2000).empty()) << "logged once";
  EXPECT_EQ(state.missing(), 2u);
  EXPECT_TRUE(state.NeedsRecheck());
  // Granted, then revoked again: reported again.
  PermissionReport all_held = Parsed(kTwoMissing);
  all_held.missing.clear();
  EXPECT_TRUE(state.Record(all_held, 3000).empty());
  EXPECT_EQ(state.missing(), 0u);
  EXPECT_FALSE(state.NeedsRecheck());
  EXPECT_EQ(state.Json()["summary"], "all 3 held");
  EXPECT_EQ(state.Record(Parsed(kTwoMissing), 4000).size(), 2u);
}

TEST(PermissionCheck, StatusJsonSaysWhatIsMissing) {
  PermissionState state;
  EXPECT_EQ(state.Json()["summary"], "not checked yet");
  EXPECT_TRUE(state.NeedsRecheck());
  state.Record(Parsed(kTwoMissing), 1000);
  const auto json = state.Json();
  EXPECT_EQ(json["summary"], "2 of 3 missing");
  EXPECT_EQ(json["checked_at_ms"], 1000);
  EXPECT_EQ(json["authorization"], true);
  EXPECT_EQ(json["principal"], "presplit/h@R");
  ASSERT_EQ(json["missing"].size(), 2u);
  EXPECT_EQ(json["missing"][1]["scope"], "GLOBAL");
  EXPECT_EQ(json["missing"][1]["for"], "creating namespace fresh");
  EXPECT_EQ(json["missing"][1]["grant"], "grant 'presplit', 'A'");
  state.Failed("checking permissions: HBase unreachable", 2000);
  EXPECT_EQ(state.Json()["summary"], "check failed: checking permissions: HBase unreachable");
  EXPECT_TRUE(state.NeedsRecheck());
}

TEST(PermissionCheck, AuthorizationOffIsNotChecked) {
  PermissionState state;
  auto lines = state.Record(
      Parsed(R"({"authorization":false,"principal":"presplit","checked":0,"create_checked":0,)"
             R"("missing":[]})"),
      1000);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(state.Json()["summary"], "authorization off, not checked");
  EXPECT_EQ(state.Json()["authorization"], false);
  EXPECT_EQ(state.Problem(), "");
  EXPECT_EQ(state.missing(), 0u);
}

TEST(PermissionCheck, DownOnlyWhenCreateIsMissingEverywhere) {
  PermissionState state;
  state.Record(Parsed(kTwoMissing), 1000);
  EXPECT_EQ(state.Problem(), "") << "degraded, not down: CREATE is held";
  PermissionReport none = Parsed(kTwoMissing);
  none.create_checked = 2;
  none.missing.push_back(
      {"CREATE", "@ns", "creating tables in namespace ns", "grant 'presplit', 'C', '@ns'"});
  state.Record(none, 2000);
  EXPECT_EQ(state.Problem(), "") << "CREATE is held on the other namespace";
  none.missing.push_back({"CREATE", "@other", "creating tables in namespace other",
                          "grant 'presplit', 'C', '@other'"});
  state.Record(none, 3000);
  EXPECT_EQ(state.Problem(),
            "presplitd's principal presplit/h@R holds CREATE on none of the namespaces of its "
            "documents; as HBase's superuser: grant 'presplit', 'C', '@ns'; grant 'presplit', "
            "'C', '@other'");
}

}  // namespace
}  // namespace presplit::daemon
