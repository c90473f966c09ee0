package io.presplit.throttle;

import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.TableName;

/**
 * The rate a migration's copy and verification may read now: one token bucket per migration,
 * shared by every thread that reads its source or target (copy chunks, digests, row-by-row
 * comparisons, the final check before a drop, the map tasks of a bulk job on this JVM's local
 * runner), its rate set about once a second by the daemon's adaptive throttle (the AIMD of
 * daemon/migrate/throttler.h, from the RegionServers' health). A call of hours follows a back-off
 * within a wait slice, not at its end. The daemon reads back the cells taken, so that its
 * throttle opens only as far as the readers use it.
 *
 * <p>A table without a gate (none set, or the daemon removed it) is not throttled here; the
 * per-call limit of {@link RateLimiter} (the document's ceiling) still applies. Thread-safe.
 */
public final class ThrottleGate {
  /** Longest single wait: a raised rate or an interrupt is seen within it. */
  private static final long SLICE_NANOS = 50_000_000L;

  private static final Map<TableName, ThrottleGate> BY_TABLE = new ConcurrentHashMap<>();

  private double cellsPerSecond; // 0: open
  private double tokens;
  private long refilledNanos = System.nanoTime();
  private long taken;

  private ThrottleGate() {
  }

  /**
   * Sets the rate of the gate of these tables (created when missing; 0 = open), or removes it
   * when negative (opened first: nobody waits in a removed gate).
   *
   * @return the cells taken through it since the last call
   */
  public static long set(TableName[] tables, long cellsPerSecond) {
    if (cellsPerSecond < 0) {
      long taken = 0;
      ThrottleGate removed = null;
      for (TableName t : tables) {
        ThrottleGate g = BY_TABLE.remove(t);
        if (g != null && g != removed) {
          removed = g;
          taken += g.setRate(0); // opened: a reader waiting in it goes on (a halted migration)
        }
      }
      return taken;
    }
    ThrottleGate gate = null;
    for (TableName t : tables) {
      gate = BY_TABLE.get(t);
      if (gate != null) {
        break;
      }
    }
    if (gate == null) {
      gate = new ThrottleGate();
    }
    for (TableName t : tables) {
      BY_TABLE.put(t, gate);
    }
    return gate.setRate(cellsPerSecond);
  }

  /** Takes n cells of the table's gate (when it has one), waiting while it is in debt. */
  public static void acquire(TableName table, long n) throws InterruptedIOException {
    ThrottleGate gate = BY_TABLE.get(table);
    if (gate != null) {
      gate.take(n);
    }
  }

  private synchronized long setRate(double rate) {
    refill(System.nanoTime());
    cellsPerSecond = rate;
    tokens = Math.min(tokens, rate); // a burst of at most one second at the new rate
    notifyAll();
    return drainTaken();
  }

  private synchronized long drainTaken() {
    long t = taken;
    taken = 0;
    return t;
  }

  private void refill(long now) {
    if (cellsPerSecond > 0) {
      tokens = Math.min(cellsPerSecond, tokens + (now - refilledNanos) / 1e9 * cellsPerSecond);
    }
    refilledNanos = now;
  }

  private synchronized void take(long n) throws InterruptedIOException {
    if (n <= 0) {
      return;
    }
    taken += n;
    refill(System.nanoTime());
    if (cellsPerSecond <= 0) {
      return;
    }
    tokens -= n;
    while (tokens < 0 && cellsPerSecond > 0) {
      long waitNanos = Math.min(SLICE_NANOS, (long) Math.ceil(-tokens / cellsPerSecond * 1e9));
      try {
        wait(Math.max(1, waitNanos / 1_000_000), (int) (waitNanos % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while throttled");
      }
      refill(System.nanoTime());
    }
  }
}
