package io.presplit.hbase.admin;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.Gson;
import org.apache.hbase.thirdparty.com.google.gson.GsonBuilder;

/**
 * Renders {@link AdminBridge#regionLoads(String[])}'s JSON: one object per region of the asked
 * tables that a live RegionServer reports, with the server's report timestamp and the region's
 * cumulative counters, which presplitd turns into rates (daemon/watch). Pure (no cluster access)
 * so the shape is unit-testable.
 *
 * <pre>
 * {"regions": [{"table": "ns:t", "region": "&lt;encoded name&gt;", "start_key": "toStringBinary",
 *   "end_key": "...", "server": "host,port,startcode", "report_time_ms": 1700000000000,
 *   "read_requests": 12, "write_requests": 34, "store_file_bytes": 0, "memstore_bytes": 0,
 *   "store_files": 0, "locality": 1.0}, ...],
 *  "servers": ["host,port,startcode", ...]}
 * </pre>
 *
 * <p>{@code servers} lists every live RegionServer, those holding none of the asked tables'
 * regions included: where presplitd may move a load split's daughter.
 */
final class RegionLoads {

  private static final Gson GSON =
      new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

  private RegionLoads() {
  }

  /** A region's metrics with the server that reported them. */
  static final class Reported {
    final ServerName server;
    final long reportTimeMs;
    final RegionMetrics metrics;

    Reported(ServerName server, long reportTimeMs, RegionMetrics metrics) {
      this.server = server;
      this.reportTimeMs = reportTimeMs;
      this.metrics = metrics;
    }
  }

  /**
   * Every region the live servers report, by full region name (as a string). A region that just
   * moved can be in two servers' reports: the old server's last one (sent before it closed the
   * region) and the new server's. The newer report wins: it is where the region is, and its
   * counters are the ones that keep counting.
   */
  static Map<String, Reported> byRegionName(ClusterMetrics cluster) {
    Map<String, Reported> reported = new LinkedHashMap<>();
    for (Map.Entry<ServerName, ServerMetrics> e : cluster.getLiveServerMetrics().entrySet()) {
      ServerMetrics server = e.getValue();
      for (RegionMetrics region : server.getRegionMetrics().values()) {
        Reported now = new Reported(e.getKey(), server.getReportTimestamp(), region);
        reported.merge(Bytes.toStringBinary(region.getRegionName()), now,
            (before, after) -> after.reportTimeMs > before.reportTimeMs ? after : before);
      }
    }
    return reported;
  }

  /**
   * The JSON for the regions of {@code tables} (from hbase:meta, in the order given) joined with
   * what the servers report; a region no server reports (in transition, a split parent, or its
   * server's first report is still due) is left out: it has no counters to compare yet. Read
   * replicas are left out: splits act on the default replica.
   */
  static String toJson(Map<TableName, List<RegionInfo>> tables, Map<String, Reported> reported,
      Collection<ServerName> liveServers) {
    List<Map<String, Object>> regions = new ArrayList<>();
    for (Map.Entry<TableName, List<RegionInfo>> table : tables.entrySet()) {
      for (RegionInfo info : table.getValue()) {
        Reported r = reported.get(Bytes.toStringBinary(info.getRegionName()));
        if (r == null || !RegionReplicaUtil.isDefaultReplica(info)) {
          continue;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", TableSpec.qualified(table.getKey()));
        m.put("region", info.getEncodedName());
        m.put("start_key", Bytes.toStringBinary(info.getStartKey()));
        m.put("end_key", Bytes.toStringBinary(info.getEndKey()));
        m.put("server", r.server.toString());
        m.put("report_time_ms", r.reportTimeMs);
        m.put("read_requests", r.metrics.getReadRequestCount());
        m.put("write_requests", r.metrics.getWriteRequestCount());
        m.put("store_file_bytes", bytes(r.metrics.getStoreFileSize()));
        m.put("memstore_bytes", bytes(r.metrics.getMemStoreSize()));
        m.put("store_files", r.metrics.getStoreFileCount());
        m.put("locality", r.metrics.getDataLocality());
        regions.add(m);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("regions", regions);
    List<String> servers = new ArrayList<>();
    for (ServerName server : liveServers) {
      servers.add(server.toString());
    }
    Collections.sort(servers);
    out.put("servers", servers);
    return GSON.toJson(out);
  }

  private static long bytes(Size size) {
    return size == null ? 0 : (long) size.get(Size.Unit.BYTE);
  }
}
