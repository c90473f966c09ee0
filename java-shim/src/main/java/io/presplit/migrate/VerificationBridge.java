package io.presplit.migrate;

import static io.presplit.migrate.BridgeConnection.connection;
import static io.presplit.migrate.BridgeSupport.SCAN_CACHING;
import static io.presplit.migrate.BridgeSupport.base64;
import static io.presplit.migrate.BridgeSupport.base64List;
import static io.presplit.migrate.BridgeSupport.checkStarts;
import static io.presplit.migrate.BridgeSupport.parseLong;
import static io.presplit.migrate.BridgeSupport.rangeScan;
import static io.presplit.migrate.BridgeSupport.rekey;
import static io.presplit.migrate.BridgeSupport.tableName;

import io.presplit.hbase.admin.JsonText;
import io.presplit.rekey.MigrationLayout;
import io.presplit.throttle.ThrottleGate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The verification of a re-salting migration, as presplitd calls it (see package-info): digests
 * per region and partition of both generations, the rows that differ, and the final check before
 * an old generation is dropped. Each entry point checks its arguments before it opens the shared
 * connection: bad input is an IllegalArgumentException that changes nothing, with or without a
 * cluster.
 */
public final class VerificationBridge {

  /** Rows looked up per multi-get of {@link #checkPresent}. */
  static final int GET_BATCH_ROWS = 200;

  private VerificationBridge() {
  }

  public static String digestPartitions(String table, String layoutJson, String fromRow,
      String endRow, String partitions) throws IOException {
    TableName name = tableName(table, "table");
    MigrationLayout layout = MigrationLayout.parse(layoutJson, "layout");
    byte[] from = base64(fromRow);
    byte[] end = base64(endRow);
    int count = parsePartitions(partitions);
    return Verification.digestPartitions(connection(), name, layout, from, end, count);
  }

  public static String digestTargetPartitions(String target, String newLayoutJson,
      String oldLayoutJson, String sourceStartsJson, String partitions) throws IOException {
    TableName name = tableName(target, "target table");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    List<byte[]> starts = base64List(sourceStartsJson);
    checkStarts(starts);
    int count = parsePartitions(partitions);
    return Verification.digestTargetPartitions(connection(), name, newLayout, oldLayout, starts,
        count);
  }

  public static String diffPartitions(String source, String target, String oldLayoutJson,
      String newLayoutJson, String sourceStartsJson, String regionsJson, String partitions,
      String maxKeys) throws IOException {
    TableName from = tableName(source, "source table");
    TableName to = tableName(target, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    List<byte[]> starts = base64List(sourceStartsJson);
    checkStarts(starts);
    List<Verification.RegionPartitions> regions = Verification.parseRegions(regionsJson);
    int count = parsePartitions(partitions);
    long max = parseLong(maxKeys, "maxKeys");
    if (max < 1 || max > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("maxKeys must be positive, got " + max);
    }
    return Verification.diffPartitions(connection(), from, to, oldLayout, newLayout, starts,
        regions, count, (int) max);
  }

  public static String rowHashes(String table, String layoutJson, String keysJson)
      throws IOException {
    TableName name = tableName(table, "table");
    MigrationLayout layout = MigrationLayout.parse(layoutJson, "layout");
    List<byte[]> keys = base64List(keysJson);
    return Verification.rowHashes(connection(), name, layout, keys);
  }

  public static String describeRow(String source, String target, String oldLayoutJson,
      String newLayoutJson, String key) throws IOException {
    TableName from = tableName(source, "source table");
    TableName to = tableName(target, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    byte[] logicalKey = base64(key);
    return Verification.describeRow(connection(), from, to, oldLayout, newLayout, logicalKey);
  }

  private static int parsePartitions(String value) {
    long n = parseLong(value, "partitions");
    if (n < 1 || n > 65536) {
      throw new IllegalArgumentException("partitions must be within 1..65536, got " + n);
    }
    return (int) n;
  }

  /**
   * The final check before the old generation may be dropped: every live source cell must be in
   * the target at its new key (same column, timestamp and value), unless the target holds a newer
   * cell of that column or a delete marker that covers it (a writer changed it after the switch).
   * Batched gets, paced by the migration's {@link ThrottleGate}; a raw read of a target row only
   * for a cell not found.
   *
   * @return {@code {"checked":N,"missing":N,"first_missing":"<printable>"|null}}: the first
   *     missing cell as {@code 'logical key' family:qualifier@timestamp} in toStringBinary form
   */
  public static String checkPresent(String sourceTable, String targetTable, String oldLayoutJson,
      String newLayoutJson) throws IOException {
    TableName source = tableName(sourceTable, "source table");
    TableName target = tableName(targetTable, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    long[] counts = new long[2]; // checked, missing
    String[] firstMissing = new String[1];
    Connection c = connection();
    try (Table sourceTableHandle = c.getTable(source); Table targetTableHandle =
        c.getTable(target); ResultScanner scanner = sourceTableHandle.getScanner(
            rangeScan(null, null, SCAN_CACHING))) {
      List<Result> batch = new ArrayList<>(GET_BATCH_ROWS);
      Result r;
      do {
        r = scanner.next();
        if (r != null && !r.isEmpty()) {
          batch.add(r);
        }
        if (batch.size() == GET_BATCH_ROWS || (r == null && !batch.isEmpty())) {
          checkBatch(batch, oldLayout, newLayout, targetTableHandle, counts, firstMissing);
          batch.clear();
        }
      } while (r != null);
    }
    return "{\"checked\":" + counts[0] + ",\"missing\":" + counts[1] + ",\"first_missing\":"
        + (firstMissing[0] == null ? "null" : JsonText.quote(firstMissing[0])) + "}";
  }

  private static void checkBatch(List<Result> batch, MigrationLayout oldLayout,
      MigrationLayout newLayout, Table target, long[] counts, String[] firstMissing)
      throws IOException {
    byte[][] newKeys = rekey(batch, oldLayout, newLayout);
    List<Get> gets = new ArrayList<>(batch.size());
    for (byte[] key : newKeys) {
      gets.add(new Get(key).readAllVersions());
    }
    long cells = 0;
    for (Result r : batch) {
      cells += r.size();
    }
    // The target serves the application by now: the adaptive throttle's gate paces these gets.
    ThrottleGate.acquire(target.getName(), cells);
    Result[] found = target.get(gets);
    for (int i = 0; i < batch.size(); i++) {
      Result targetRow = found[i];
      List<Cell> rawTargetRow = null;
      for (Cell cell : batch.get(i).rawCells()) {
        counts[0]++;
        if (isPresentOrSuperseded(targetRow, cell)) {
          continue;
        }
        if (rawTargetRow == null) {
          rawTargetRow = rawRow(target, newKeys[i]);
        }
        if (isDeleted(rawTargetRow, cell)) {
          continue;
        }
        counts[1]++;
        if (firstMissing[0] == null) {
          byte[] row = batch.get(i).getRow();
          int width = oldLayout.saltWidth();
          firstMissing[0] = "'" + Bytes.toStringBinary(row, width, row.length - width) + "' "
              + Bytes.toStringBinary(CellUtil.cloneFamily(cell)) + ":"
              + Bytes.toStringBinary(CellUtil.cloneQualifier(cell)) + "@" + cell.getTimestamp();
        }
      }
    }
  }

  /** The target row holds the cell (same value), or a newer cell of its column. */
  private static boolean isPresentOrSuperseded(Result targetRow, Cell cell) {
    if (targetRow == null || targetRow.isEmpty()) {
      return false;
    }
    List<Cell> column = targetRow.getColumnCells(CellUtil.cloneFamily(cell),
        CellUtil.cloneQualifier(cell));
    for (Cell t : column) {
      if (t.getTimestamp() > cell.getTimestamp()) {
        return true;
      }
      if (t.getTimestamp() == cell.getTimestamp() && CellUtil.matchingValue(t, cell)) {
        return true;
      }
    }
    return false;
  }

  /** Every cell and delete marker of one target row (a raw read). */
  private static List<Cell> rawRow(Table target, byte[] row) throws IOException {
    Scan scan = new Scan().withStartRow(row, true).withStopRow(row, true).setRaw(true)
        .readAllVersions();
    List<Cell> cells = new ArrayList<>();
    try (ResultScanner scanner = target.getScanner(scan)) {
      for (Result r : scanner) {
        cells.addAll(Arrays.asList(r.rawCells()));
      }
    }
    return cells;
  }

  /** A delete marker among the raw cells that covers the cell (HBase's delete semantics). */
  private static boolean isDeleted(List<Cell> raw, Cell cell) {
    long ts = cell.getTimestamp();
    for (Cell m : raw) {
      if (!CellUtil.matchingFamily(m, cell)) {
        continue;
      }
      switch (m.getType()) {
        case DeleteFamily:
          if (m.getTimestamp() >= ts) {
            return true;
          }
          break;
        case DeleteFamilyVersion:
          if (m.getTimestamp() == ts) {
            return true;
          }
          break;
        case DeleteColumn:
          if (CellUtil.matchingQualifier(m, cell) && m.getTimestamp() >= ts) {
            return true;
          }
          break;
        case Delete:
          if (CellUtil.matchingQualifier(m, cell) && m.getTimestamp() == ts) {
            return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }
}
