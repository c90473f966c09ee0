// The cluster's region load, and the actions load watching takes on a region (a split, and a
// move of a split's daughter), behind a small interface: the load watcher (daemon/watch) is plain
// code over it, tested with a fake; JniHBaseAdmin implements it over AdminBridge.regionLoads /
// splitRegion / moveRegion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon {

// One region in one metrics report. HBase's request counters are cumulative since the region was
// opened on its current server; the report time is the RegionServer's own.
struct RegionLoadReport {
  std::string table;           // "ns:qualifier"
  std::string region;          // encoded region name
  std::string start_key;       // raw bytes; empty for the table's first region
  std::string end_key;         // raw bytes; empty for the table's last region
  std::string server;          // "host,port,startcode"
  int64_t report_time_ms = 0;  // the RegionServer's report timestamp
  int64_t read_requests = 0;
  int64_t write_requests = 0;
  int64_t store_file_bytes = 0;
  int64_t memstore_bytes = 0;
  int32_t store_files = 0;
  double locality = 0;  // 0..1, the HDFS blocks local to the server
};

class RegionLoadSource {
 public:
  virtual ~RegionLoadSource() = default;
  // What the live RegionServers last reported for every region of `tables` ("ns:qualifier"
  // each); a table that does not exist contributes nothing, a region no server reports yet is
  // absent.
  virtual Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) = 0;
  // Asks HBase to split the region without a split point (the RegionServer's split policy picks
  // it). An error when the master refuses (the policy found no point: one hot key, or requests
  // spanning every candidate) or the split fails within a bounded wait; Ok when it is done or
  // still running after that wait.
  virtual Status SplitRegion(const std::string& encoded_region) = 0;

  // For tables whose RegionServers do not choose a load-balanced point (no NativeSplitPolicy):
  // a bounded sample of the row keys in [start_key, end_key) of `table` (an empty end: to the
  // table's end), from a key-only scan that reads at most `max_rows` rows and keeps every k-th,
  // k doubling as rows come, so that at most 2 * max_keys keys spread over the rows read come
  // back (unsorted order is allowed). This source's default: FailedPrecondition (not supported).
  virtual Result<std::vector<std::string>> SampleRowKeys(const std::string& table,
                                                         const std::string& start_key,
                                                         const std::string& end_key, int max_keys,
                                                         int64_t max_rows) {
    (void)table, (void)start_key, (void)end_key, (void)max_keys, (void)max_rows;
    return Status::FailedPrecondition("this region load source cannot sample row keys");
  }
  // Asks HBase to split the region at `split_point` (raw bytes, strictly inside the region);
  // errors and waits as SplitRegion. This source's default: FailedPrecondition (not supported).
  virtual Status SplitRegionAt(const std::string& encoded_region, const std::string& split_point) {
    (void)encoded_region, (void)split_point;
    return Status::FailedPrecondition("this region load source cannot split at a point");
  }

  // The live RegionServers ("host,port,startcode") as the last RegionLoads call saw them, those
  // holding none of the asked tables' regions included; empty when unknown (the caller then
  // knows only the servers the reports name). This source's default: empty.
  virtual std::vector<std::string> LiveServers() { return {}; }
  // Asks HBase to move the region to `server` ("host,port,startcode", a live RegionServer);
  // returns once the master has moved it or refused (an AccessDeniedException names the
  // permission, the principal and the grant). This source's default: FailedPrecondition.
  virtual Status MoveRegion(const std::string& encoded_region, const std::string& server) {
    (void)encoded_region, (void)server;
    return Status::FailedPrecondition("this region load source cannot move regions");
  }
};

// What AdminBridge.regionLoads returns: the regions, and every live server.
struct RegionLoadsReply {
  std::vector<RegionLoadReport> regions;
  std::vector<std::string> servers;  // absent from an older jar's JSON: empty
};

// The JSON AdminBridge.regionLoads returns (keys in Bytes.toStringBinary form).
Result<RegionLoadsReply> ParseRegionLoadsReply(const std::string& json);
// Its regions only.
Result<std::vector<RegionLoadReport>> ParseRegionLoads(const std::string& json);

}  // namespace presplit::daemon
