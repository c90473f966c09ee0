package io.presplit.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Reading two generations of a table as one during a re-salting migration
 * ({@link PresplitTables.Options#readBothGenerationsDuringMigration}): rows with logical keys
 * from the active and the previous generation, merged by logical key, a row in both with its
 * cells merged, a cell in both (same column and timestamp) once, the active generation's.
 */
final class GenerationMerge {

  private GenerationMerge() {
  }

  /**
   * One row from the active and the previous generation's reads of the same logical key (either
   * may be null or empty): the union of their cells in HBase's order, each (column, timestamp)
   * once (the active generation's), at most maxVersions per column (the newest).
   */
  static Result merge(Result active, Result previous, int maxVersions) {
    boolean noActive = active == null || active.isEmpty();
    boolean noPrevious = previous == null || previous.isEmpty();
    if (noPrevious) {
      return active != null ? active : previous;
    }
    if (noActive) {
      return previous;
    }
    List<Cell> cells = new ArrayList<>(active.size() + previous.size());
    cells.addAll(Arrays.asList(active.rawCells()));
    cells.addAll(Arrays.asList(previous.rawCells()));
    // A stable sort: for the same row, column and timestamp, the active generation's cell first.
    cells.sort(CellComparator.getInstance()::compareWithoutRow);
    List<Cell> out = new ArrayList<>(cells.size());
    Cell last = null;
    int versions = 0;
    for (Cell c : cells) {
      boolean sameColumn = last != null && CellUtil.matchingColumn(last, c);
      if (sameColumn && last.getTimestamp() == c.getTimestamp()) {
        continue; // the same cell in both generations: keep the first (active)
      }
      versions = sameColumn ? versions + 1 : 1;
      last = c;
      if (versions <= Math.max(maxVersions, 1)) {
        out.add(c);
      }
    }
    return Result.create(out);
  }

  /**
   * Merges two scanners of rows with logical keys, each in logical key order (descending for a
   * reversed scan), into one; limit &gt; 0 caps the merged rows. Closing it closes both.
   */
  static final class Scanner implements ResultScanner {
    private final ResultScanner active;
    private final ResultScanner previous;
    private final boolean reversed;
    private final int limit;
    private final int maxVersions;
    private Result activeHead;
    private Result previousHead;
    private boolean started;
    private int returned;

    Scanner(ResultScanner active, ResultScanner previous, boolean reversed, int limit,
        int maxVersions) {
      this.active = active;
      this.previous = previous;
      this.reversed = reversed;
      this.limit = limit;
      this.maxVersions = maxVersions;
    }

    @Override
    public Result next() throws IOException {
      if (!started) {
        activeHead = active.next();
        previousHead = previous.next();
        started = true;
      }
      if (limit > 0 && returned >= limit) {
        return null;
      }
      Result row;
      if (activeHead == null && previousHead == null) {
        return null;
      } else if (previousHead == null) {
        row = activeHead;
        activeHead = active.next();
      } else if (activeHead == null) {
        row = previousHead;
        previousHead = previous.next();
      } else {
        int cmp = Bytes.compareTo(activeHead.getRow(), previousHead.getRow());
        if (reversed) {
          cmp = -cmp;
        }
        if (cmp < 0) {
          row = activeHead;
          activeHead = active.next();
        } else if (cmp > 0) {
          row = previousHead;
          previousHead = previous.next();
        } else {
          row = merge(activeHead, previousHead, maxVersions);
          activeHead = active.next();
          previousHead = previous.next();
        }
      }
      returned++;
      return row;
    }

    @Override
    public void close() {
      try {
        active.close();
      } finally {
        previous.close();
      }
    }

    @Override
    public boolean renewLease() {
      return active.renewLease() & previous.renewLease();
    }

    @Override
    public ScanMetrics getScanMetrics() {
      return active.getScanMetrics();
    }
  }
}
