#include "daemon/hbase/region_loads.h"

#include <nlohmann/json.hpp>

#include "presplit/bytes.h"

namespace presplit::daemon {

Result<RegionLoadsReply> ParseRegionLoadsReply(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    RegionLoadsReply reply;
    std::vector<RegionLoadReport>& reports = reply.regions;
    for (const auto& r : j.at("regions")) {
      RegionLoadReport report;
      report.table = r.at("table").get<std::string>();
      report.region = r.at("region").get<std::string>();
      report.start_key = ToBytesBinary(r.at("start_key").get<std::string>());
      report.end_key = ToBytesBinary(r.at("end_key").get<std::string>());
      report.server = r.at("server").get<std::string>();
      report.report_time_ms = r.at("report_time_ms").get<int64_t>();
      report.read_requests = r.at("read_requests").get<int64_t>();
      report.write_requests = r.at("write_requests").get<int64_t>();
      report.store_file_bytes = r.at("store_file_bytes").get<int64_t>();
      report.memstore_bytes = r.at("memstore_bytes").get<int64_t>();
      report.store_files = r.at("store_files").get<int32_t>();
      report.locality = r.at("locality").get<double>();
      reports.push_back(std::move(report));
    }
    if (j.contains("servers")) {
      for (const auto& server : j.at("servers")) reply.servers.push_back(server.get<std::string>());
    }
    return reply;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected region loads from AdminBridge: ") + e.what());
  }
}

Result<std::vector<RegionLoadReport>> ParseRegionLoads(const std::string& text) {
  PRESPLIT_ASSIGN_OR_RETURN(auto reply, ParseRegionLoadsReply(text));
  return std::move(reply.regions);
}

}  // namespace presplit::daemon
