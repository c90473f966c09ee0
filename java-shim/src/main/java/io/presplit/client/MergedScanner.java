package io.presplit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A scan of a logical key range across every bucket of one generation, merged in logical key
 * order: one HBase scanner per bucket, opened in parallel on the SDK's scan threads, and a k-way
 * merge over their heads with a min-heap. Each bucket fetches {@code batch} rows at a time and
 * fetches again only when fewer than {@code batch} rows are buffered (at most about 2 x batch
 * rows per bucket ahead of the reader: back-pressure), so a slow reader never makes the SDK
 * buffer a whole table. Fetch tasks never wait for the reader, so any number of buckets share a
 * small thread pool without deadlock.
 */
final class MergedScanner implements ResultScanner {

  private final KeyLayout layout;
  private final List<Cursor> cursors;
  private final List<Table> tablesToClose;
  private final PriorityQueue<Head> heap;
  private final int limit;
  private int returned;
  private boolean started;
  private boolean closed;

  private static final class Head {
    final Result row;
    final Cursor cursor;

    Head(Result row, Cursor cursor) {
      this.row = row;
      this.cursor = cursor;
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
    return new MergedScanner(layout, cursors, open, logical.isReversed(), limit);
  }

  private MergedScanner(KeyLayout layout, List<Cursor> cursors, List<Table> tables,
      boolean reversed, int limit) {
    this.layout = layout;
    this.cursors = cursors;
    this.tablesToClose = tables;
    this.limit = limit;
    final int w = layout.saltWidth();
    Comparator<Head> byKey = (a, b) -> {
      byte[] x = a.row.getRow();
      byte[] y = b.row.getRow();
      int c = Bytes.compareTo(x, w, x.length - w, y, w, y.length - w);
      return c != 0 ? c : Integer.compare(a.cursor.bucket, b.cursor.bucket);
    };
    this.heap = new PriorityQueue<>(Math.max(cursors.size(), 1),
        reversed ? byKey.reversed() : byKey);
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
          heap.add(new Head(r, c));
        }
      }
    }
    Head head = heap.poll();
    if (head == null) {
      return null;
    }
    Result following = head.cursor.take();
    if (following != null) {
      heap.add(new Head(following, head.cursor));
    }
    returned++;
    return SaltedTable.toLogical(layout, head.row);
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
    private final ArrayDeque<Result> buffer = new ArrayDeque<>();
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

    /** The bucket's next row, or null when it has no more. */
    synchronized Result take() throws IOException {
      while (true) {
        Result r = buffer.poll();
        if (r != null) {
          requestFetch();
          return r;
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
