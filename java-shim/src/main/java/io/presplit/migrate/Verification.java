package io.presplit.migrate;

import io.presplit.hbase.admin.JsonText;
import io.presplit.rekey.MigrationLayout;
import io.presplit.throttle.ThrottleGate;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * The cell work of a migration's verification (see presplitd's phase_verify.cc for the steps):
 * digests of both generations per source region and partition, the rows of given partitions
 * compared one by one, and single rows hashed again. Every read is a normal read of every live
 * version (delete markers and TTLs applied as readers see them), with tags; nothing is selected
 * by timestamp.
 *
 * <p>A row's partition is {@link CellDigest#partitionOf} of its logical key (the row key without
 * its salt), so a row falls into the same partition in both generations whatever their salts.
 */
final class Verification {

  /** Target regions digested at once. */
  static final int DIGEST_THREADS = 4;

  /** Rows looked up per multi-get. */
  static final int GET_BATCH_ROWS = 200;

  /**
   * Rows of the differing partitions held for one row-by-row comparison (one hash each, on each
   * side): beyond, the comparison stops and says so (truncated) instead of filling the heap.
   */
  static final int MAX_ROWS_HELD = 1_000_000;

  /** A source region and the partitions of it to compare row by row. */
  record RegionPartitions(byte[] start, byte[] end, Set<Integer> partitions) {}

  private Verification() {
  }

  /** Per-partition digests of one table's rows, with the totals. */
  static final class Partitioned {
    final CellDigest total = new CellDigest();
    final long[] partitions;

    Partitioned(int count) {
      partitions = new long[count];
    }

    void add(byte[] row, int width, Result r) {
      int p = CellDigest.partitionOf(row, width, row.length - width, partitions.length);
      CellDigest rowDigest = new CellDigest();
      for (Cell cell : r.rawCells()) {
        rowDigest.addCell(row, width, row.length - width, cell);
      }
      total.addAll(rowDigest);
      total.addRow();
      partitions[p] += rowDigest.sum();
    }

    void addAll(Partitioned other) {
      total.addAll(other.total);
      for (int i = 0; i < partitions.length; i++) {
        partitions[i] += other.partitions[i];
      }
    }

    String json() {
      StringBuilder out = new StringBuilder(24 * partitions.length + 96);
      out.append("{\"rows\":").append(total.rows()).append(",\"cells\":").append(total.cells())
          .append(",\"digest\":\"").append(total.hex()).append("\",\"partitions\":[");
      for (int i = 0; i < partitions.length; i++) {
        out.append(i > 0 ? "," : "").append('"').append(CellDigest.hex(partitions[i]))
            .append('"');
      }
      return out.append("]}").toString();
    }
  }

  /** The rows [fromRow, endRow) of a table: totals and digests per partition. */
  static String digestPartitions(Connection c, TableName table, MigrationLayout layout,
      byte[] fromRow, byte[] endRow, int partitions) throws IOException {
    int width = layout.saltWidth();
    Partitioned out = new Partitioned(partitions);
    try (Table t = c.getTable(table); ResultScanner scanner = t.getScanner(
        BridgeSupport.rangeScan(fromRow, endRow, BridgeSupport.SCAN_CACHING))) {
      for (Result r : scanner) {
        if (r.isEmpty()) {
          continue;
        }
        byte[] row = r.getRow();
        checkWidth(table, row, width);
        out.add(row, width, r);
        ThrottleGate.acquire(table, r.size());
      }
    }
    return out.json();
  }

  /**
   * One pass over the whole target, its rows attributed to the source region (by the old key of
   * their logical key) and partition; the target's regions read in parallel.
   */
  static String digestTargetPartitions(Connection c, TableName target, MigrationLayout newLayout,
      MigrationLayout oldLayout, List<byte[]> sourceStarts, int partitions) throws IOException {
    byte[][] starts = BridgeSupport.checkStarts(sourceStarts);
    Partitioned[] totals = new Partitioned[starts.length];
    for (int i = 0; i < totals.length; i++) {
      totals[i] = new Partitioned(partitions);
    }
    forEachTargetRange(c, target, (from, end) -> {
      Partitioned[] part = new Partitioned[starts.length];
      for (int i = 0; i < part.length; i++) {
        part[i] = new Partitioned(partitions);
      }
      scanAttributed(c, target, newLayout, oldLayout, starts, from, end,
          (region, row, r) -> part[region].add(row, newLayout.saltWidth(), r));
      return part;
    }, part -> {
      for (int i = 0; i < totals.length; i++) {
        totals[i].addAll(part[i]);
      }
    });
    StringBuilder json = new StringBuilder().append('[');
    for (int i = 0; i < totals.length; i++) {
      json.append(i > 0 ? "," : "").append(totals[i].json());
    }
    return json.append(']').toString();
  }

  /**
   * Row by row over the given partitions of the given source regions and the target rows that
   * belong there: the logical keys whose rows differ (present on one side only, or with other
   * cells). Holds one hash per row of those partitions, at most {@value #MAX_ROWS_HELD} a side
   * (beyond: truncated, nothing listed); lists at most maxKeys rows (beyond: truncated).
   *
   * @return {@code {"differing":N,"keys":["<base64>",...],"truncated":bool}}
   */
  static String diffPartitions(Connection c, TableName source, TableName target,
      MigrationLayout oldLayout, MigrationLayout newLayout, List<byte[]> sourceStarts,
      List<RegionPartitions> regions, int partitions, int maxKeys) throws IOException {
    byte[][] starts = BridgeSupport.checkStarts(sourceStarts);
    Map<Integer, Set<Integer>> wanted = new HashMap<>();
    Map<ByteBuffer, Long> sourceRows = new HashMap<>();
    int oldWidth = oldLayout.saltWidth();
    for (RegionPartitions region : regions) {
      int index = BridgeSupport.regionOf(starts, region.start());
      if (index < 0 || !Bytes.equals(starts[index], region.start())) {
        throw new IllegalArgumentException("region '" + Bytes.toStringBinary(region.start())
            + "' is not one of the source regions");
      }
      wanted.put(index, region.partitions());
      try (Table t = c.getTable(source); ResultScanner scanner = t.getScanner(
          BridgeSupport.rangeScan(region.start(), region.end(), BridgeSupport.SCAN_CACHING))) {
        for (Result r : scanner) {
          if (r.isEmpty()) {
            continue;
          }
          byte[] row = r.getRow();
          checkWidth(source, row, oldWidth);
          ThrottleGate.acquire(source, r.size());
          int p = CellDigest.partitionOf(row, oldWidth, row.length - oldWidth, partitions);
          if (region.partitions().contains(p)) {
            sourceRows.put(logical(row, oldWidth), rowHash(row, oldWidth, r));
            if (sourceRows.size() > MAX_ROWS_HELD) {
              return tooManyRows();
            }
          }
        }
      }
    }
    Map<ByteBuffer, Long> targetRows = new HashMap<>();
    int newWidth = newLayout.saltWidth();
    forEachTargetRange(c, target, (from, end) -> {
      Map<ByteBuffer, Long> part = new HashMap<>();
      scanAttributed(c, target, newLayout, oldLayout, starts, from, end, (region, row, r) -> {
        Set<Integer> asked = wanted.get(region);
        if (asked != null && asked.contains(
            CellDigest.partitionOf(row, newWidth, row.length - newWidth, partitions))) {
          part.put(logical(row, newWidth), rowHash(row, newWidth, r));
        }
      });
      return part;
    }, targetRows::putAll);
    if (targetRows.size() > MAX_ROWS_HELD) {
      return tooManyRows();
    }
    Set<ByteBuffer> differing = new TreeSet<>();
    for (Map.Entry<ByteBuffer, Long> e : sourceRows.entrySet()) {
      if (!e.getValue().equals(targetRows.get(e.getKey()))) {
        differing.add(e.getKey());
      }
    }
    for (ByteBuffer key : targetRows.keySet()) {
      if (!sourceRows.containsKey(key)) {
        differing.add(key);
      }
    }
    StringBuilder json = new StringBuilder("{\"differing\":").append(differing.size())
        .append(",\"keys\":[");
    int written = 0;
    for (ByteBuffer key : differing) {
      if (written == maxKeys) {
        break;
      }
      json.append(written > 0 ? "," : "").append('"')
          .append(Base64.getEncoder().encodeToString(bytes(key))).append('"');
      written++;
    }
    return json.append("],\"truncated\":").append(differing.size() > maxKeys).append('}')
        .toString();
  }

  private static String tooManyRows() {
    return "{\"differing\":0,\"keys\":[],\"truncated\":true,\"rows_held_limit\":"
        + MAX_ROWS_HELD + "}";
  }

  /**
   * One hash per logical key of the row the table holds now under its layout (all live versions,
   * tags included); 0 when there is no such row.
   *
   * @return {@code {"hashes":["<16 hex>",...]}} in the order of the keys
   */
  static String rowHashes(Connection c, TableName table, MigrationLayout layout,
      List<byte[]> logicalKeys) throws IOException {
    int width = layout.saltWidth();
    StringBuilder json = new StringBuilder("{\"hashes\":[");
    try (Table t = c.getTable(table)) {
      for (int from = 0; from < logicalKeys.size(); from += GET_BATCH_ROWS) {
        List<Get> gets = new ArrayList<>();
        for (byte[] key : logicalKeys.subList(from,
            Math.min(logicalKeys.size(), from + GET_BATCH_ROWS))) {
          gets.add(new Get(layout.layout.encode(key)).readAllVersions());
        }
        Result[] rows = t.get(gets);
        for (int i = 0; i < rows.length; i++) {
          long hash = rows[i] == null || rows[i].isEmpty() ? 0
              : rowHash(rows[i].getRow(), width, rows[i]);
          // The verification's re-reads share its gate; at the switch (no gate) they are not
          // held: writers are paused meanwhile.
          ThrottleGate.acquire(table, rows[i] == null ? 0 : rows[i].size());
          json.append(from + i > 0 ? "," : "").append('"').append(CellDigest.hex(hash))
              .append('"');
        }
      }
    }
    return json.append("]}").toString();
  }

  /**
   * One logical key's row in both generations, printable: the first cells that differ.
   *
   * @return {@code {"text":"..."}}
   */
  static String describeRow(Connection c, TableName source, TableName target,
      MigrationLayout oldLayout, MigrationLayout newLayout, byte[] logicalKey) throws IOException {
    Result s;
    Result t;
    try (Table st = c.getTable(source); Table tt = c.getTable(target)) {
      s = st.get(new Get(oldLayout.layout.encode(logicalKey)).readAllVersions());
      t = tt.get(new Get(newLayout.layout.encode(logicalKey)).readAllVersions());
    }
    Set<String> sourceCells = cells(s);
    Set<String> targetCells = cells(t);
    List<String> onlySource = new ArrayList<>();
    List<String> onlyTarget = new ArrayList<>();
    for (String cell : sourceCells) {
      if (!targetCells.contains(cell)) {
        onlySource.add(cell);
      }
    }
    for (String cell : targetCells) {
      if (!sourceCells.contains(cell)) {
        onlyTarget.add(cell);
      }
    }
    String text = "'" + Bytes.toStringBinary(logicalKey) + "': " + sourceCells.size()
        + " cells in " + source + ", " + targetCells.size() + " in " + target
        + "; only in " + source + ": " + first(onlySource) + "; only in " + target + ": "
        + first(onlyTarget);
    return "{\"text\":" + JsonText.quote(text) + "}";
  }

  static List<RegionPartitions> parseRegions(String json) {
    List<RegionPartitions> out = new ArrayList<>();
    try {
      for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
        JsonObject o = e.getAsJsonObject();
        Set<Integer> partitions = new HashSet<>();
        for (JsonElement p : o.getAsJsonArray("partitions")) {
          partitions.add(p.getAsInt());
        }
        out.add(new RegionPartitions(BridgeSupport.base64(o.get("start").getAsString()),
            BridgeSupport.base64(o.get("end").getAsString()), partitions));
      }
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException
        | NullPointerException | NumberFormatException e) {
      throw new IllegalArgumentException("regions: not [{\"start\",\"end\",\"partitions\"}]: "
          + e.getMessage(), e);
    }
    return out;
  }

  // ---- shared pieces

  private interface RowSink {
    void accept(int sourceRegion, byte[] row, Result r);
  }

  private interface RangeTask<T> {
    T run(byte[] from, byte[] end) throws IOException;
  }

  private interface Merge<T> {
    void accept(T part);
  }

  /** Scans target rows [from, end), attributing each to the source region of its old key. */
  private static void scanAttributed(Connection c, TableName target, MigrationLayout newLayout,
      MigrationLayout oldLayout, byte[][] starts, byte[] from, byte[] end, RowSink sink)
      throws IOException {
    int width = newLayout.saltWidth();
    try (Table t = c.getTable(target); ResultScanner scanner = t.getScanner(
        BridgeSupport.rangeScan(from, end, BridgeSupport.SCAN_CACHING))) {
      List<Result> batch = new ArrayList<>(BridgeSupport.BATCH_ROWS);
      Result r;
      do {
        r = scanner.next();
        if (r != null && !r.isEmpty()) {
          checkWidth(target, r.getRow(), width);
          ThrottleGate.acquire(target, r.size());
          batch.add(r);
        }
        if (batch.size() == BridgeSupport.BATCH_ROWS || (r == null && !batch.isEmpty())) {
          byte[][] oldKeys = BridgeSupport.rekey(batch, newLayout, oldLayout);
          for (int i = 0; i < batch.size(); i++) {
            int region = BridgeSupport.regionOf(starts, oldKeys[i]);
            if (region < 0) {
              throw new IllegalArgumentException("row '" + Bytes.toStringBinary(oldKeys[i])
                  + "' (old layout) is before the first source region start '"
                  + Bytes.toStringBinary(starts[0]) + "'");
            }
            sink.accept(region, batch.get(i).getRow(), batch.get(i));
          }
          batch.clear();
        }
      } while (r != null);
    }
  }

  /**
   * Runs a task over every range between the target's region starts ({@value #DIGEST_THREADS}
   * at a time) and merges the parts in the caller's thread. Ranges come from the distinct sorted
   * start keys: contiguous and covering every key even when a region splits meanwhile.
   */
  private static <T> void forEachTargetRange(Connection c, TableName target, RangeTask<T> task,
      Merge<T> merge) throws IOException {
    TreeSet<byte[]> regionStarts = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    regionStarts.add(new byte[0]);
    try (RegionLocator locator = c.getRegionLocator(target)) {
      for (HRegionLocation location : locator.getAllRegionLocations()) {
        regionStarts.add(location.getRegion().getStartKey());
      }
    }
    List<byte[][]> ranges = new ArrayList<>();
    byte[] previous = null;
    for (byte[] start : regionStarts) {
      if (previous != null) {
        ranges.add(new byte[][] {previous, start});
      }
      previous = start;
    }
    ranges.add(new byte[][] {previous, new byte[0]});
    int threads = Math.max(1, Math.min(DIGEST_THREADS, ranges.size()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "presplit-verify-" + target.getNameAsString());
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Future<T>> parts = new ArrayList<>();
      for (byte[][] range : ranges) {
        parts.add(pool.submit(() -> task.run(range[0], range[1])));
      }
      for (Future<T> part : parts) {
        merge.accept(part.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + target);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException("reading " + target + " failed: " + cause, cause);
    } finally {
      pool.shutdownNow();
    }
  }

  private static long rowHash(byte[] row, int width, Result r) {
    CellDigest digest = new CellDigest();
    for (Cell cell : r.rawCells()) {
      digest.addCell(row, width, row.length - width, cell);
    }
    return CellDigest.rowHash(digest.sum(), digest.cells());
  }

  private static void checkWidth(TableName table, byte[] row, int width) {
    if (row.length < width) {
      throw new IllegalArgumentException("row key '" + Bytes.toStringBinary(row) + "' of "
          + table + " is shorter than the layout's " + width + "-byte salt");
    }
  }

  private static ByteBuffer logical(byte[] row, int width) {
    return ByteBuffer.wrap(row, width, row.length - width).slice();
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  private static Set<String> cells(Result r) {
    Set<String> out = new TreeSet<>();
    if (r == null || r.isEmpty()) {
      return out;
    }
    for (Cell cell : r.rawCells()) {
      out.add(Bytes.toStringBinary(CellUtil.cloneFamily(cell)) + ":"
          + Bytes.toStringBinary(CellUtil.cloneQualifier(cell)) + "@" + cell.getTimestamp() + "="
          + Bytes.toStringBinary(CellUtil.cloneValue(cell))
          + (cell.getTagsLength() > 0 ? " (" + cell.getTagsLength() + " tag bytes)" : ""));
    }
    return out;
  }

  private static String first(List<String> cells) {
    if (cells.isEmpty()) {
      return "none";
    }
    String shown = String.join(", ", cells.subList(0, Math.min(3, cells.size())));
    return cells.size() > 3 ? shown + " and " + (cells.size() - 3) + " more" : shown;
  }
}
