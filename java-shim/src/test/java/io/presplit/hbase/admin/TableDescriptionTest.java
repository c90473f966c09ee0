package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class TableDescriptionTest {

  private static final TableName TN = TableName.valueOf("tinawang:check");
  private static final ServerName SN = ServerName.valueOf("rs1.example", 16020, 1700000000000L);

  private static HRegionLocation loc(byte[] start, byte[] end, int replica, boolean splitParent,
      ServerName sn) {
    RegionInfo ri = RegionInfoBuilder.newBuilder(TN).setStartKey(start).setEndKey(end)
        .setRegionId(1234L).setReplicaId(replica).setSplit(splitParent)
        .build();
    return new HRegionLocation(ri, sn);
  }

  @Test
  void fullShape() {
    TableDescriptor td = TableSpec.parse("{\"table\":\"tinawang:check\",\"families\":[{"
        + "\"name\":\"f\",\"compression\":\"SNAPPY\",\"data_block_encoding\":\"FAST_DIFF\","
        + "\"bloom_filter\":\"ROW\"}],\"attributes\":{\"KEY\":\"value\"}}").descriptor();
    byte[] e = HConstants.EMPTY_BYTE_ARRAY;
    byte[] k1 = Bytes.toBytes("1");
    byte[] k2 = new byte[] {'2', 0, (byte) 0xff};
    List<HRegionLocation> all = new ArrayList<>();
    // deliberately unsorted, with a replica and a split parent that must be dropped
    all.add(loc(k2, e, 0, false, null));
    all.add(loc(k1, k2, 1, false, SN));
    all.add(loc(e, k1, 0, false, SN));
    all.add(loc(k1, e, 0, true, SN));
    all.add(loc(k1, k2, 0, false, SN));
    List<HRegionLocation> locs = TableDescription.defaultReplicasSorted(all);
    assertEquals(3, locs.size());
    String json = TableDescription.toJson(td, true, locs);
    String expected = "{\"exists\":true,\"table\":\"tinawang:check\",\"enabled\":true,"
        + "\"families\":[{\"name\":\"f\",\"compression\":\"SNAPPY\","
        + "\"data_block_encoding\":\"FAST_DIFF\",\"bloom_filter\":\"ROW\",\"max_versions\":1,"
        + "\"ttl_seconds\":2147483647,\"block_size\":65536,\"in_memory\":false}],"
        + "\"attributes\":{\"KEY\":\"value\"},"
        + "\"regions\":["
        + "{\"name\":\"" + locs.get(0).getRegion().getEncodedName()
        + "\",\"start_key\":\"\",\"end_key\":\"1\",\"server\":\"rs1.example,16020,1700000000000\"},"
        + "{\"name\":\"" + locs.get(1).getRegion().getEncodedName()
        + "\",\"start_key\":\"1\",\"end_key\":\"2\\\\x00\\\\xFF\","
        + "\"server\":\"rs1.example,16020,1700000000000\"},"
        + "{\"name\":\"" + locs.get(2).getRegion().getEncodedName()
        + "\",\"start_key\":\"2\\\\x00\\\\xFF\",\"end_key\":\"\",\"server\":null}],"
        + "\"split_keys\":[\"1\",\"2\\\\x00\\\\xFF\"]}";
    assertEquals(expected, json);
  }
}
