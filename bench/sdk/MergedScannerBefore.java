package io.presplit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * THE BENCHMARK'S COPY OF THE SDK'S MERGED SCANNER BEFORE ISSUE 12 (blocking HBase scanners, one
 * per bucket, fetched on the SDK's scan threads), kept so that bench/sdk/SdkBench.java measures
 * the merged scan before and after that change side by side in one run. Not part of the SDK
 * (compiled only with the benchmark, into the SDK's package for its package-private helpers).
 *
 * <p>A scan of a logical key range across every bucket of one generation, merged in logical key
 * order: one HBase scanner per bucket, opened in parallel on the SDK's scan threads, and a k-way
 * merge over their heads with a min-heap. Each bucket fetches {@code batch} rows at a time; the
 * reader drains one batch while the next is fetched (at most about 2 x batch rows per bucket
 * ahead of the reader: back-pressure), so a slow reader never makes the SDK buffer a whole
 * table. Fetch tasks never wait for the reader, so any number of buckets share a
 * small thread pool without deadlock.
 */
public final class MergedScannerBefore implements ResultScanner {

  private final KeyLayout layout;
  private final List<Cursor> cursors;
  private final List<Table> tablesToClose;
  private final int saltWidth;
  private final boolean reversed;
  private final Head[] heap; // a binary min-heap of the buckets' current rows
  private int heapSize;
  private final int limit;
  private int returned;
  private boolean started;
  private boolean closed;

  /** A bucket's current row, with its logical key's bytes located once (no copy). */
  private static final class Head {
    final Cursor cursor;
    Result row;
    byte[] keyArray;
    int keyOffset;
    int keyLength;

    Head(Cursor cursor) {
      this.cursor = cursor;
    }

    void set(Result r, int saltWidth) {
      row = r;
      Cell[] cells = r.rawCells();
      if (cells != null && cells.length > 0) {
        keyArray = cells[0].getRowArray();
        keyOffset = cells[0].getRowOffset() + saltWidth;
        keyLength = cells[0].getRowLength() - saltWidth;
      } else { // a cell-less Result (a scan cursor): its row, if any
        byte[] key = r.getRow() != null ? r.getRow() : new byte[saltWidth];
        keyArray = key;
        keyOffset = saltWidth;
        keyLength = key.length - saltWidth;
      }
    }
  }

  /** The per-bucket physical scans of a logical scan. */
  static List<Scan> bucketScans(KeyLayout layout, Scan logical) throws IOException {
    List<Scan> scans = new ArrayList<>();
    byte[] start = logical.getStartRow();
    byte[] stop = logical.getStopRow();
    boolean reversed = logical.isReversed();
    int buckets = Math.max(layout.buckets(), 1);
    for (int bucket = 0; bucket < buckets; bucket++) {
      Scan scan = new Scan(logical);
      if (!layout.isSalted()) {
        scans.add(scan);
        continue;
      }
      byte[] salt = layout.saltPrefix(bucket);
      byte[] end = KeyLayout.prefixEnd(salt); // empty: the bucket runs to the end of the table
      if (!reversed) {
        if (start.length == 0) {
          scan.withStartRow(salt, true);
        } else {
          scan.withStartRow(Bytes.add(salt, start), logical.includeStartRow());
        }
        if (stop.length == 0) {
          scan.withStopRow(end, false);
        } else {
          scan.withStopRow(Bytes.add(salt, stop), logical.includeStopRow());
        }
      } else {
        if (start.length == 0) {
          scan.withStartRow(end, end.length == 0);
        } else {
          scan.withStartRow(Bytes.add(salt, start), logical.includeStartRow());
        }
        if (stop.length == 0) {
          scan.withStopRow(salt, true);
        } else {
          scan.withStopRow(Bytes.add(salt, stop), logical.includeStopRow());
        }
      }
      scans.add(scan);
    }
    return scans;
  }

  /** The merged scan of {@code table} as the SDK ran it before issue 12. */
  public static ResultScanner scan(PresplitTables tables, SaltedTable table, Scan logical)
      throws IOException {
    return open(tables, table.snapshot(), logical);
  }

  static ResultScanner open(PresplitTables tables, TableSnapshot snapshot, Scan logical)
      throws IOException {
    KeyLayout layout = snapshot.layout();
    int batch = logical.getCaching() > 0 ? logical.getCaching() : tables.options().scanBatch;
    int limit = logical.getLimit() > 0 ? logical.getLimit() : -1;
    if (limit > 0) {
      batch = Math.min(batch, limit);
    }
    List<Scan> scans = bucketScans(layout, logical);
    List<Cursor> cursors = new ArrayList<>(scans.size());
    List<Table> open = new ArrayList<>(scans.size());
    try {
      for (int i = 0; i < scans.size(); i++) {
        Scan scan = scans.get(i);
        scan.setCaching(batch);
        if (limit > 0) {
          scan.setLimit(limit);
        }
        Table t = tables.connection().getTable(snapshot.physicalTable());
        open.add(t);
        cursors.add(new Cursor(i, t, scan, batch, tables.scanExecutor()));
      }
    } catch (IOException | RuntimeException e) {
      for (Table t : open) {
        t.close();
      }
      throw e;
    }
    return new MergedScannerBefore(layout, cursors, open, logical.isReversed(), limit);
  }

  private MergedScannerBefore(KeyLayout layout, List<Cursor> cursors, List<Table> tables,
      boolean reversed, int limit) {
    this.layout = layout;
    this.cursors = cursors;
    this.tablesToClose = tables;
    this.limit = limit;
    this.saltWidth = layout.saltWidth();
    this.reversed = reversed;
    this.heap = new Head[Math.max(cursors.size(), 1)];
  }

  /** Logical key order (descending for a reversed scan), ties broken by bucket. */
  private int compare(Head a, Head b) {
    int c = Bytes.compareTo(a.keyArray, a.keyOffset, a.keyLength, b.keyArray, b.keyOffset,
        b.keyLength);
    if (c == 0) {
      c = Integer.compare(a.cursor.bucket, b.cursor.bucket);
    }
    return reversed ? -c : c;
  }

  /**
   * Moves the head at {@code i} down to its place. After the top bucket yields its next row,
   * one call restores the heap, and as the rows of one group sit in one bucket, that row usually
   * stays on top after two comparisons.
   */
  private void siftDown(int i) {
    Head h = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= heapSize) {
        break;
      }
      if (child + 1 < heapSize && compare(heap[child + 1], heap[child]) < 0) {
        child++;
      }
      if (compare(heap[child], h) >= 0) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = h;
  }

  @Override
  public Result next() throws IOException {
    if (closed || (limit > 0 && returned >= limit)) {
      return null;
    }
    if (!started) {
      started = true;
      for (Cursor c : cursors) {
        c.requestFetch(); // every bucket opens in parallel
      }
      for (Cursor c : cursors) {
        Result r = c.take();
        if (r != null) {
          Head h = new Head(c);
          h.set(r, saltWidth);
          heap[heapSize++] = h;
        }
      }
      for (int i = heapSize / 2 - 1; i >= 0; i--) {
        siftDown(i);
      }
    }
    if (heapSize == 0) {
      return null;
    }
    Head top = heap[0];
    Result row = top.row;
    Result following = top.cursor.take();
    if (following != null) {
      top.set(following, saltWidth);
    } else {
      heap[0] = heap[--heapSize];
      heap[heapSize] = null;
    }
    if (heapSize > 0) {
      siftDown(0);
    }
    returned++;
    return SaltedTable.toLogical(layout, row);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Cursor c : cursors) {
      c.close();
    }
    for (Table t : tablesToClose) {
      try {
        t.close();
      } catch (IOException e) {
        // nothing to do: the scan is over
      }
    }
  }

  @Override
  public boolean renewLease() {
    boolean all = true;
    for (Cursor c : cursors) {
      all &= c.renewLease();
    }
    return all;
  }

  /**
   * The sum of every bucket's scan metrics (RPCs, regions, rows, bytes...), or null when the
   * logical Scan did not enable them ({@link Scan#setScanMetricsEnabled}).
   */
  @Override
  public ScanMetrics getScanMetrics() {
    ScanMetrics sum = null;
    for (Cursor c : cursors) {
      ScanMetrics m = c.metrics();
      if (m == null) {
        continue;
      }
      if (sum == null) {
        sum = new ScanMetrics();
      }
      for (Map.Entry<String, Long> e : m.getMetricsMap(false).entrySet()) {
        sum.addToCounter(e.getKey(), e.getValue());
      }
    }
    return sum;
  }

  /** One bucket's scanner and its bounded buffer. */
  private static final class Cursor {
    final int bucket;
    private final Table table;
    private final Scan scan;
    private final int batch;
    private final Executor executor;
    private ArrayDeque<Result> buffer = new ArrayDeque<>(); // filled by fetches, under the lock
    private ArrayDeque<Result> local = new ArrayDeque<>(); // drained by the reader, no lock
    private ResultScanner scanner;
    private ScanMetrics metrics; // the scanner's, kept after it is closed
    private boolean fetching;
    private boolean exhausted;
    private boolean closed;
    private IOException error;

    Cursor(int bucket, Table table, Scan scan, int batch, Executor executor) {
      this.bucket = bucket;
      this.table = table;
      this.scan = scan;
      this.batch = batch;
      this.executor = executor;
    }

    /** Starts a fetch when the buffer runs low and none is running. Holds the lock. */
    synchronized void requestFetch() {
      if (fetching || exhausted || closed || error != null || buffer.size() >= batch) {
        return;
      }
      fetching = true;
      try {
        executor.execute(this::fetch);
      } catch (RejectedExecutionException e) {
        fetching = false;
        error = new IOException("presplit's scan threads are shut down", e);
      }
    }

    private void fetch() {
      Result[] rows = null;
      IOException failure = null;
      try {
        ResultScanner s;
        synchronized (this) {
          if (closed) {
            fetching = false;
            notifyAll();
            return;
          }
          s = scanner;
        }
        if (s == null) {
          s = table.getScanner(scan);
          synchronized (this) {
            scanner = s;
            metrics = s.getScanMetrics();
          }
        }
        rows = s.next(batch);
      } catch (IOException e) {
        failure = e;
      } catch (RuntimeException e) {
        failure = new IOException("bucket " + bucket + " scan failed: " + e, e);
      }
      synchronized (this) {
        fetching = false;
        if (failure != null) {
          error = failure;
        } else {
          for (Result r : rows) {
            buffer.add(r);
          }
          if (rows.length < batch) {
            exhausted = true;
          }
        }
        if ((exhausted || closed || error != null) && scanner != null) {
          scanner.close();
          scanner = null;
        }
        notifyAll();
      }
    }

    /**
     * The bucket's next row, or null when it has no more. Reader thread only: rows come from
     * {@code local} without a lock; only when it runs dry does the reader take the lock, swap in
     * what the fetches buffered and start the next fetch.
     */
    Result take() throws IOException {
      Result r = local.poll();
      return r != null ? r : refill();
    }

    private synchronized Result refill() throws IOException {
      while (true) {
        if (!buffer.isEmpty()) {
          ArrayDeque<Result> drained = local;
          local = buffer;
          buffer = drained;
          requestFetch();
          return local.poll();
        }
        if (error != null) {
          throw error;
        }
        if (exhausted || closed) {
          return null;
        }
        requestFetch();
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while scanning bucket " + bucket);
        }
      }
    }

    synchronized void close() {
      closed = true;
      buffer.clear();
      local.clear();
      if (!fetching && scanner != null) {
        scanner.close();
        scanner = null;
      }
    }

    synchronized ScanMetrics metrics() {
      return metrics;
    }

    synchronized boolean renewLease() {
      return scanner == null || fetching || scanner.renewLease();
    }
  }
}
