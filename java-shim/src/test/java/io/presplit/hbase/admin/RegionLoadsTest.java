package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ClusterMetricsBuilder;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.RegionMetricsBuilder;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerMetricsBuilder;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class RegionLoadsTest {

  private static final TableName TN = TableName.valueOf("tinawang:check");
  private static final ServerName RS1 = ServerName.valueOf("rs1.example", 16020, 1L);
  private static final ServerName RS2 = ServerName.valueOf("rs2.example", 16020, 2L);

  private static RegionInfo region(byte[] start, byte[] end, int replica) {
    return RegionInfoBuilder.newBuilder(TN).setStartKey(start).setEndKey(end).setRegionId(1234L)
        .setReplicaId(replica).build();
  }

  private static RegionMetrics metrics(RegionInfo ri, long reads, long writes) {
    return RegionMetricsBuilder.newBuilder(ri.getRegionName()).setReadRequestCount(reads)
        .setWriteRequestCount(writes).setStoreFileSize(new Size(2, Size.Unit.MEGABYTE))
        .setMemStoreSize(new Size(1, Size.Unit.KILOBYTE)).setStoreFileCount(3)
        .setDataLocality(0.5f).build();
  }

  private static ServerMetrics server(ServerName sn, long reportMs, RegionMetrics... regions) {
    return ServerMetricsBuilder.newBuilder(sn).setReportTimestamp(reportMs)
        .setRegionMetrics(List.of(regions)).build();
  }

  @Test
  void joinsMetaWithWhatTheServersReport() {
    byte[] e = HConstants.EMPTY_BYTE_ARRAY;
    byte[] k1 = new byte[] {'1', (byte) 0xff};
    RegionInfo first = region(e, k1, 0);
    RegionInfo second = region(k1, e, 0);
    RegionInfo replica = region(k1, e, 1);
    RegionInfo unreported = RegionInfoBuilder.newBuilder(TN).setStartKey(k1).setEndKey(e)
        .setRegionId(99L).build();
    Map<ServerName, ServerMetrics> live = new LinkedHashMap<>();
    live.put(RS1, server(RS1, 1000L, metrics(first, 10, 20)));
    live.put(RS2, server(RS2, 2000L, metrics(second, 30, 40), metrics(replica, 50, 60)));
    ClusterMetrics cluster = ClusterMetricsBuilder.newBuilder().setLiveServerMetrics(live).build();

    Map<TableName, List<RegionInfo>> tables = new LinkedHashMap<>();
    tables.put(TN, List.of(first, second, replica, unreported));
    String json = RegionLoads.toJson(tables, RegionLoads.byRegionName(cluster), live.keySet());
    String expected = "{\"regions\":["
        + "{\"table\":\"tinawang:check\",\"region\":\"" + first.getEncodedName() + "\","
        + "\"start_key\":\"\",\"end_key\":\"1\\\\xFF\",\"server\":\"rs1.example,16020,1\","
        + "\"report_time_ms\":1000,\"read_requests\":10,\"write_requests\":20,"
        + "\"store_file_bytes\":2097152,\"memstore_bytes\":1024,\"store_files\":3,"
        + "\"locality\":0.5},"
        + "{\"table\":\"tinawang:check\",\"region\":\"" + second.getEncodedName() + "\","
        + "\"start_key\":\"1\\\\xFF\",\"end_key\":\"\",\"server\":\"rs2.example,16020,2\","
        + "\"report_time_ms\":2000,\"read_requests\":30,\"write_requests\":40,"
        + "\"store_file_bytes\":2097152,\"memstore_bytes\":1024,\"store_files\":3,"
        + "\"locality\":0.5}],"
        + "\"servers\":[\"rs1.example,16020,1\",\"rs2.example,16020,2\"]}";
    assertEquals(expected, json);
  }

  @Test
  void aRegionInTwoServersReportsIsWhereTheNewerReportSaysItIs() {
    byte[] e = HConstants.EMPTY_BYTE_ARRAY;
    RegionInfo moved = region(e, e, 0);
    // RS2 opened it after RS1 closed it: RS1's last report (older) still lists it with the
    // counters of before the move, RS2's (newer) with counters that restarted.
    Map<ServerName, ServerMetrics> live = new LinkedHashMap<>();
    live.put(RS2, server(RS2, 5000L, metrics(moved, 3, 4)));
    live.put(RS1, server(RS1, 4000L, metrics(moved, 900, 800)));
    ClusterMetrics cluster = ClusterMetricsBuilder.newBuilder().setLiveServerMetrics(live).build();
    RegionLoads.Reported r =
        RegionLoads.byRegionName(cluster).get(Bytes.toStringBinary(moved.getRegionName()));
    assertEquals(RS2, r.server);
    assertEquals(5000L, r.reportTimeMs);
    assertEquals(3, r.metrics.getReadRequestCount());
  }

  @Test
  void noTablesNoRegions() {
    ClusterMetrics cluster = ClusterMetricsBuilder.newBuilder().build();
    assertEquals("{\"regions\":[],\"servers\":[]}",
        RegionLoads.toJson(new LinkedHashMap<>(), RegionLoads.byRegionName(cluster), List.of()));
  }
}
