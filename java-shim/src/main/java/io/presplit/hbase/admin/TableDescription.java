package io.presplit.hbase.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.Gson;
import org.apache.hbase.thirdparty.com.google.gson.GsonBuilder;

/**
 * Renders {@link AdminBridge#describeTable(String)}'s JSON from what the cluster returned. Pure
 * (no cluster access) so the shape is unit-testable.
 */
final class TableDescription {

  /**
   * Table values HBase sets by itself, left out of {@code "attributes"}: the descriptor builder
   * always writes {@code IS_META}, and the master stamps the
   * store-file tracker implementation onto every table it creates (from the site configuration
   * when the descriptor has none).
   */
  static final Set<String> HBASE_MANAGED_VALUES = Set.of("IS_META", "hbase.store.file-tracker.impl");

  private static final Gson GSON =
      new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

  private TableDescription() {
  }

  static String missing(TableName tn) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exists", false);
    m.put("table", TableSpec.qualified(tn));
    return GSON.toJson(m);
  }

  /** Keeps default replicas that are not split parents (split = true), sorted by start key. */
  static List<HRegionLocation> defaultReplicasSorted(List<HRegionLocation> all) {
    List<HRegionLocation> out = new ArrayList<>();
    for (HRegionLocation l : all) {
      if (l == null || l.getRegion() == null) {
        continue;
      }
      RegionInfo ri = l.getRegion();
      if (!RegionReplicaUtil.isDefaultReplica(ri) || ri.isSplit()) {
        continue;
      }
      out.add(l);
    }
    out.sort((a, b) -> RegionInfo.COMPARATOR.compare(a.getRegion(), b.getRegion()));
    return out;
  }

  /** User-visible table attributes: descriptor values minus HBase-managed ones, sorted by key. */
  static Map<String, String> attributes(TableDescriptor td) {
    Map<String, String> attrs = new TreeMap<>();
    for (Map.Entry<Bytes, Bytes> e : td.getValues().entrySet()) {
      String k = Bytes.toString(e.getKey().get(), e.getKey().getOffset(), e.getKey().getLength());
      if (HBASE_MANAGED_VALUES.contains(k)) {
        continue;
      }
      String v = e.getValue() == null ? null
          : Bytes.toString(e.getValue().get(), e.getValue().getOffset(), e.getValue().getLength());
      attrs.put(k, v);
    }
    return attrs;
  }

  /**
   * @param locs region locations already filtered and sorted by {@link #defaultReplicasSorted}
   */
  static String toJson(TableDescriptor td, boolean enabled, List<HRegionLocation> locs) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exists", true);
    m.put("table", TableSpec.qualified(td.getTableName()));
    m.put("enabled", enabled);
    List<Map<String, Object>> fams = new ArrayList<>();
    for (ColumnFamilyDescriptor cf : td.getColumnFamilies()) {
      fams.add(TableSpec.describeFamily(cf));
    }
    m.put("families", fams);
    m.put("attributes", attributes(td));
    List<Map<String, Object>> regions = new ArrayList<>();
    List<String> splitKeys = new ArrayList<>();
    for (int i = 0; i < locs.size(); i++) {
      HRegionLocation l = locs.get(i);
      RegionInfo ri = l.getRegion();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("name", ri.getEncodedName());
      r.put("start_key", Bytes.toStringBinary(ri.getStartKey()));
      r.put("end_key", Bytes.toStringBinary(ri.getEndKey()));
      r.put("server", l.getServerName() == null ? null : l.getServerName().toString());
      regions.add(r);
      if (i > 0) {
        splitKeys.add(Bytes.toStringBinary(ri.getStartKey()));
      }
    }
    m.put("regions", regions);
    m.put("split_keys", splitKeys);
    return GSON.toJson(m);
  }
}
