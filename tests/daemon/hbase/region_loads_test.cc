#include "daemon/hbase/region_loads.h"

#include <gtest/gtest.h>

namespace presplit::daemon {
namespace {

TEST(ParseRegionLoads, ReadsAdminBridgesShape) {
  // As io.presplit.hbase.admin.RegionLoads renders it (RegionLoadsTest pins the Java side).
  const auto reports = ParseRegionLoads(
      R"({"regions":[{"table":"tinawang:check","region":"abc","start_key":"1\\xFF",)"
      R"("end_key":"","server":"rs1,16020,1","report_time_ms":1700000000000,)"
      R"("read_requests":10,"write_requests":20,"store_file_bytes":2097152,)"
      R"("memstore_bytes":1024,"store_files":3,"locality":0.5}]})");
  ASSERT_TRUE(reports.ok()) << reports.status().message();
  ASSERT_EQ(reports->size(), 1u);
  const RegionLoadReport& r = (*reports)[0];
  EXPECT_EQ(r.table, "tinawang:check");
  EXPECT_EQ(r.region, "abc");
  EXPECT_EQ(r.start_key, std::string("1\xff"));
  EXPECT_EQ(r.end_key, "");
  EXPECT_EQ(r.server, "rs1,16020,1");
  EXPECT_EQ(r.report_time_ms, 1700000000000);
  EXPECT_EQ(r.read_requests, 10);
  EXPECT_EQ(r.write_requests, 20);
  EXPECT_EQ(r.store_file_bytes, 2097152);
  EXPECT_EQ(r.memstore_bytes, 1024);
  EXPECT_EQ(r.store_files, 3);
  EXPECT_DOUBLE_EQ(r.locality, 0.5);
}

TEST(ParseRegionLoads, AnUnexpectedShapeIsAnErrorNotACrash) {
  for (const char* bad : {"", "{", "[]", R"({"regions":[{"table":1}]})", R"({"regions":7})",
                          R"({"regions":[{"table":"t","region":"r"}]})"}) {
    const auto reports = ParseRegionLoads(bad);
    EXPECT_FALSE(reports.ok()) << bad;
  }
  EXPECT_TRUE(ParseRegionLoads(R"({"regions":[]})").ok());
}

}  // namespace
}  // namespace presplit::daemon
