package io.presplit.migrate;

import io.presplit.throttle.ThrottleGate;
import java.io.InterruptedIOException;
import org.apache.hadoop.hbase.TableName;

/**
 * Keeps one call under a number of cells per second (0 = unlimited) by sleeping once it is ahead
 * of the rate. Per call, not shared: the daemon's total is its per-region limit times its
 * workers. With a table, the cells also pass that table's {@link ThrottleGate} (the daemon's
 * adaptive throttle, shared by every call of the migration). Not thread-safe.
 */
final class RateLimiter {
  private final long cellsPerSecond;
  private final TableName gateTable;
  private final long startNanos = System.nanoTime();
  private long cells;

  RateLimiter(long cellsPerSecond) {
    this(cellsPerSecond, null);
  }

  RateLimiter(long cellsPerSecond, TableName gateTable) {
    if (cellsPerSecond < 0) {
      throw new IllegalArgumentException(
          "maxCellsPerSecond must not be negative (got " + cellsPerSecond + ")");
    }
    this.cellsPerSecond = cellsPerSecond;
    this.gateTable = gateTable;
  }

  /** Accounts for n more cells and sleeps as long as they are ahead of the rate. */
  void acquire(long n) throws InterruptedIOException {
    if (gateTable != null) {
      ThrottleGate.acquire(gateTable, n);
    }
    if (cellsPerSecond == 0) {
      return;
    }
    cells += n;
    long dueNanos = (long) (cells * 1e9 / cellsPerSecond);
    long aheadNanos = dueNanos - (System.nanoTime() - startNanos);
    if (aheadNanos > 0) {
      try {
        Thread.sleep(aheadNanos / 1_000_000, (int) (aheadNanos % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while throttled");
      }
    }
  }
}
