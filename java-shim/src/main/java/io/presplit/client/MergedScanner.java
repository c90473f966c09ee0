package io.presplit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A scan of a logical key range across every bucket of one generation, merged in logical key
 * order: one HBase scan per bucket, all started at once on HBase's asynchronous client, and a
 * k-way merge over their heads with a min-heap. Each bucket fetches {@code batch} rows per RPC
 * into a buffer; the RPC callbacks (HBase's I/O threads) append to it and suspend the bucket's
 * scan when it holds a batch the reader has not taken (back-pressure: at most about 2 x batch
 * rows per bucket ahead of the reader, so a slow reader never makes the SDK buffer a whole
 * table); the reader resumes it when it takes that batch. Callbacks never wait for the reader.
 *
 * <p>Why asynchronous: a short range costs one round trip per bucket whatever the range's size.
 * With blocking scanners each of those needed a thread of the SDK's pool to wake, block on the
 * RPC and wake the reader, and under load those hand-offs, not the RPCs, set a short range's
 * latency (bench/RESULTS.md, "Ordered scans"); here an RPC's callback hands its rows straight to
 * the buffer the reader takes them from.
 */
final class MergedScanner implements ResultScanner {

  private final KeyLayout layout;
  private final List<Cursor> cursors;
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

  static ResultScanner open(PresplitTables tables, TableSnapshot snapshot, Scan logical)
      throws IOException {
    KeyLayout layout = snapshot.layout();
    int batch = logical.getCaching() > 0 ? logical.getCaching() : tables.options().scanBatch;
    int limit = logical.getLimit() > 0 ? logical.getLimit() : -1;
    if (limit > 0) {
      batch = Math.min(batch, limit);
    }
    AsyncTable<AdvancedScanResultConsumer> table =
        tables.asyncConnection().getTable(snapshot.physicalTable());
    List<Scan> scans = bucketScans(layout, logical);
    List<Cursor> cursors = new ArrayList<>(scans.size());
    for (int i = 0; i < scans.size(); i++) {
      Scan scan = scans.get(i);
      scan.setCaching(batch);
      if (limit > 0) {
        scan.setLimit(limit);
      }
      cursors.add(new Cursor(i, table, scan, batch));
    }
    return new MergedScanner(layout, cursors, logical.isReversed(), limit);
  }

  private MergedScanner(KeyLayout layout, List<Cursor> cursors, boolean reversed, int limit) {
    this.layout = layout;
    this.cursors = cursors;
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
        c.start(); // every bucket's first RPC goes out now, before the reader waits for any
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
  }

  /**
   * Always true: HBase's asynchronous client renews the lease of a bucket's server-side scanner
   * by itself while the bucket waits for the reader.
   */
  @Override
  public boolean renewLease() {
    return !closed;
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

  /**
   * One bucket's scan and its bounded buffer. HBase's I/O threads call the consumer methods;
   * only the reader calls {@link #take()}; the lock (this) guards what both touch.
   */
  private static final class Cursor implements AdvancedScanResultConsumer {
    final int bucket;
    private final AsyncTable<AdvancedScanResultConsumer> table;
    private final Scan scan;
    private final int batch;
    private ArrayDeque<Result> buffer = new ArrayDeque<>(); // filled by callbacks, under the lock
    private ArrayDeque<Result> local = new ArrayDeque<>(); // drained by the reader, no lock
    private ScanResumer resumer; // set while the scan is suspended for back-pressure
    private ScanMetrics metrics;
    private boolean started;
    private boolean exhausted;
    private boolean closed;
    private IOException error;

    Cursor(int bucket, AsyncTable<AdvancedScanResultConsumer> table, Scan scan, int batch) {
      this.bucket = bucket;
      this.table = table;
      this.scan = scan;
      this.batch = batch;
    }

    /** Starts the bucket's scan; returns at once (the RPCs run on HBase's threads). */
    void start() {
      synchronized (this) {
        if (started || closed) {
          return;
        }
        started = true;
      }
      try {
        table.scan(scan, this);
      } catch (RuntimeException e) {
        onError(e);
      }
    }

    @Override
    public void onScanMetricsCreated(ScanMetrics created) {
      synchronized (this) {
        metrics = created;
      }
    }

    @Override
    public void onNext(Result[] rows, ScanController controller) {
      synchronized (this) {
        if (closed) {
          controller.terminate(); // closes the server-side scanner
          return;
        }
        for (Result r : rows) {
          buffer.add(r);
        }
        if (buffer.size() >= batch) {
          resumer = controller.suspend(); // until the reader takes this batch
        }
        notifyAll();
      }
    }

    @Override
    public void onHeartbeat(ScanController controller) {
      synchronized (this) {
        if (closed) {
          controller.terminate();
          return;
        }
        // A scan that asked for cursors gets them as cell-less Results, as from Table.getScanner.
        if (scan.isNeedCursorResult() && controller.cursor().isPresent()) {
          buffer.add(Result.createCursorResult(controller.cursor().get()));
          notifyAll();
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      synchronized (this) {
        error = t instanceof IOException ? (IOException) t
            : new IOException("bucket " + bucket + " scan failed: " + t, t);
        notifyAll();
      }
    }

    @Override
    public void onComplete() {
      synchronized (this) {
        exhausted = true;
        notifyAll();
      }
    }

    /**
     * The bucket's next row, or null when it has no more. Reader thread only: rows come from
     * {@code local} without a lock; only when it runs dry does the reader take the lock, swap in
     * what the callbacks buffered and let a suspended scan go on.
     */
    Result take() throws IOException {
      Result r = local.poll();
      return r != null ? r : refill();
    }

    private Result refill() throws IOException {
      ScanResumer resume;
      synchronized (this) {
        while (buffer.isEmpty()) {
          if (error != null) {
            throw error;
          }
          if (exhausted || closed) {
            return null;
          }
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while scanning bucket " + bucket);
          }
        }
        ArrayDeque<Result> drained = local;
        local = buffer;
        buffer = drained;
        resume = resumer;
        resumer = null;
      }
      if (resume != null) {
        resume.resume(); // outside the lock: it may call back into this cursor on this thread
      }
      return local.poll();
    }

    /** Stops the scan; a suspended one is resumed so that its next callback terminates it. */
    void close() {
      ScanResumer resume;
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        buffer.clear();
        local.clear();
        resume = resumer;
        resumer = null;
        notifyAll();
      }
      if (resume != null) {
        resume.resume();
      }
    }

    synchronized ScanMetrics metrics() {
      return metrics;
    }
  }
}
