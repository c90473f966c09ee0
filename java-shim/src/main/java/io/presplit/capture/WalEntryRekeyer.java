package io.presplit.capture;

import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.rekey.Cells;
import io.presplit.rekey.MigrationLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCellBuilder;
import org.apache.hadoop.hbase.ExtendedCellBuilderFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.hadoop.hbase.wal.WALKeyImpl;

/**
 * The capture endpoint's computation, free of any connection: a batch of WAL entries of the
 * source table becomes the mutations that apply the same edits to the target, each row re-keyed
 * from the source's layout to the target's by libpresplit.
 *
 * <p>Every cell keeps its type (a put, or one of the four delete markers: a version, a column, a
 * family, a family version), its timestamp, its value and its tags (a per-cell TTL, visibility
 * labels, cell ACLs), so the target answers every read as the source does, whatever timestamps
 * the writers chose. The WAL holds delete markers with their timestamps already resolved by the
 * source's RegionServer (a "delete the newest version" is a marker at that version's
 * timestamp), so a marker means the same in the target. Consecutive cells of one row and kind
 * make one mutation (as HBase's own replication sink groups them), and every mutation carries
 * the capture's mark as its cluster id (see {@link CaptureSpec}).
 *
 * <p>Probes become acknowledgements, and so do the WAL's region-close and bulk-load markers of
 * the source ({@link CaptureSignals}); its other markers (flushes, compactions, region opens) are
 * not edits and are dropped. A row that does not fit the source's layout cannot be re-keyed: it
 * is not applied but acknowledged as "unfit", so presplitd reports it instead of losing it
 * silently.
 */
final class WalEntryRekeyer {

  /** Re-keys row keys, one JNI call for many; throws IllegalArgumentException on a bad key. */
  interface RowRekeyer {
    byte[][] rekey(byte[][] rows);
  }

  /** What one batch of entries turned into. */
  record Batch(List<Mutation> mutations, long puts, long deletes, long acks, long unfit) {}

  private static final byte[] REGION_CLOSE_PREFIX =
      CaptureSignals.utf8("HBASE::REGION_EVENT::REGION_CLOSE");

  private final CaptureSpec spec;
  private final RowRekeyer rekeyer;
  private final List<UUID> clusterIds;

  WalEntryRekeyer(CaptureSpec spec, RowRekeyer rekeyer) {
    this.spec = spec;
    this.rekeyer = rekeyer;
    this.clusterIds = List.of(spec.mark);
  }

  /** A rekeyer over libpresplit's RekeyAll. */
  static WalEntryRekeyer withLibpresplit(CaptureSpec spec) {
    MigrationLayout from = MigrationLayout.parse(spec.sourceLayoutJson, "source layout");
    MigrationLayout to = MigrationLayout.parse(spec.targetLayoutJson, "target layout");
    return new WalEntryRekeyer(spec, rows -> {
      try {
        return PresplitNative.rekeyAll(from.spec, to.spec, rows);
      } catch (NativeException e) {
        if ("INVALID_ARGUMENT".equals(e.code())) {
          throw new IllegalArgumentException(e.getMessage(), e);
        }
        throw new IllegalStateException("libpresplit could not re-key: " + e.getMessage(), e);
      }
    });
  }

  /** Whether an entry is one this capture ships (its table, and not written by a capture). */
  boolean wants(WAL.Entry entry) {
    WALKeyImpl key = entry.getKey();
    return key.getTableName().equals(spec.source) && !key.getClusterIds().contains(spec.mark);
  }

  Batch rekey(List<WAL.Entry> entries) {
    // Pass 1: the row of every data mutation to come, re-keyed in one call.
    List<byte[]> rows = new ArrayList<>();
    for (WAL.Entry entry : entries) {
      if (!wants(entry)) {
        continue;
      }
      Cell previous = null;
      for (Cell cell : entry.getEdit().getCells()) {
        if (!isData(cell)) {
          continue;
        }
        if (startsGroup(previous, cell)) {
          rows.add(CellUtil.cloneRow(cell));
        }
        previous = cell;
      }
    }
    byte[][] newRows = rekeyAll(rows.toArray(new byte[0][]));

    // Pass 2: the mutations, in WAL order.
    List<Mutation> mutations = new ArrayList<>();
    long puts = 0;
    long deletes = 0;
    long acks = 0;
    long unfit = 0;
    int group = -1;
    ExtendedCellBuilder builder = ExtendedCellBuilderFactory.create(CellBuilderType.SHALLOW_COPY);
    for (WAL.Entry entry : entries) {
      if (!wants(entry)) {
        continue;
      }
      WALKeyImpl key = entry.getKey();
      Cell previous = null;
      Mutation current = null;
      for (Cell cell : entry.getEdit().getCells()) {
        if (WALEdit.isMetaEditFamily(cell)) {
          CaptureSignals.Kind kind = markerKind(cell);
          if (kind == CaptureSignals.Kind.BULK_LOAD && CaptureRegistry.beforeTheGuard(
              Bytes.toString(key.getEncodedRegionName()), key.getSequenceId())) {
            continue; // loaded before the region's guard refused loads: the copy reads it
          }
          if (kind != null) {
            mutations.add(ack(kind, key.getEncodedRegionName(), key.getWriteTime()));
            acks++;
          }
          continue;
        }
        if (CaptureSignals.isProbe(cell)) {
          Delete ack = CaptureSignals.ackProbe(spec.ackFamily, cell);
          ack.setClusterIds(clusterIds);
          mutations.add(ack);
          acks++;
          continue;
        }
        if (startsGroup(previous, cell)) {
          group++;
          byte[] newRow = newRows[group];
          if (newRow == null) {
            current = null;
            mutations.add(ack(CaptureSignals.Kind.UNFIT, CellUtil.cloneRow(cell),
                key.getWriteTime()));
            unfit++;
          } else {
            current = CellUtil.isDelete(cell) ? new Delete(newRow) : new Put(newRow, true);
            current.setClusterIds(clusterIds);
            mutations.add(current);
          }
        }
        previous = cell;
        if (current == null) {
          continue; // an unfit row: acknowledged above
        }
        Cell moved = Cells.moved(builder, current.getRow(), cell);
        try {
          if (current instanceof Delete delete) {
            delete.add(moved);
            deletes++;
          } else {
            ((Put) current).add(moved);
            puts++;
          }
        } catch (IOException e) { // the rows match by construction
          throw new UncheckedIOException(e);
        }
      }
    }
    return new Batch(mutations, puts, deletes, acks, unfit);
  }

  private Delete ack(CaptureSignals.Kind kind, byte[] payload, long timestamp) {
    Delete delete = CaptureSignals.ack(spec.ackFamily, kind, payload, timestamp);
    delete.setClusterIds(clusterIds);
    return delete;
  }

  /** Re-keys every row; a row that cannot be re-keyed is null (the others still are). */
  private byte[][] rekeyAll(byte[][] rows) {
    if (rows.length == 0) {
      return rows;
    }
    try {
      return rekeyer.rekey(rows);
    } catch (IllegalArgumentException batchFailed) {
      byte[][] out = new byte[rows.length][];
      for (int i = 0; i < rows.length; i++) {
        try {
          out[i] = rekeyer.rekey(new byte[][] {rows[i]})[0];
        } catch (IllegalArgumentException e) {
          out[i] = null;
        }
      }
      return out;
    }
  }

  private static boolean isData(Cell cell) {
    return !WALEdit.isMetaEditFamily(cell) && !CaptureSignals.isProbe(cell);
  }

  /** A new mutation starts at the first cell, a new row, or a put after a delete (or back). */
  private static boolean startsGroup(Cell previous, Cell cell) {
    return previous == null || !CellUtil.matchingRows(previous, cell)
        || CellUtil.isDelete(previous) != CellUtil.isDelete(cell);
  }

  /** The kind of acknowledgement a WAL marker cell asks for, or null for none. */
  private static CaptureSignals.Kind markerKind(Cell cell) {
    if (CellUtil.matchingQualifier(cell, WALEdit.BULK_LOAD)) {
      return CaptureSignals.Kind.BULK_LOAD;
    }
    int length = REGION_CLOSE_PREFIX.length;
    if (cell.getQualifierLength() >= length && org.apache.hadoop.hbase.util.Bytes.equals(
        cell.getQualifierArray(), cell.getQualifierOffset(), length, REGION_CLOSE_PREFIX, 0,
        length)) {
      return CaptureSignals.Kind.CLOSED;
    }
    return null;
  }
}
