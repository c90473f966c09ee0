package io.presplit.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.TableName;

/**
 * What connects, inside one RegionServer's JVM, the capture endpoints and the MigrationGuards:
 * which tables a presplit capture ships from on this RegionServer, and since when each region's
 * guard refuses what the capture cannot carry.
 *
 * <p>Why here and not in the table's descriptor: the guard must turn on without a reopen of the
 * table's regions (the application would feel it), and HBase 2.6 cannot change the descriptor
 * of a table that carries a coprocessor without one (its no-reopen modifyTable refuses it). A
 * capture peer is added only by an HBase administrator, exists exactly while a migration needs
 * the guard, and starts an endpoint on every RegionServer: each endpoint registers its source
 * table here ({@link #started}), and every guard of that table on this RegionServer turns on;
 * the endpoint's stop turns them off. A region opening later asks here first.
 *
 * <p>The capture and the guards are loaded by the same class loader (presplit-hbase.jar on the
 * RegionServer's classpath; a table coprocessor without a jar path comes from there), so this
 * static state is one per RegionServer.
 */
final class CaptureRegistry {

  /** A guard, as the registry tells it that captures of its table started or ended. */
  interface Listener {
    /** {@code targets}: the tables captures of it ship to; empty: none runs any more. */
    void captured(Set<String> targets);
  }

  private static final Object LOCK = new Object();
  // Source table -> target -> endpoints shipping there (a recovered queue's endpoint is a second).
  private static final Map<TableName, Map<String, Integer>> captures = new HashMap<>();
  private static final Map<TableName, List<Listener>> listeners = new HashMap<>();
  // Encoded region -> its read point when its guard first confirmed it refuses (see
  // #settled): a bulk load's WAL marker at or below it was made before the guard turned on.
  private static final Map<String, Long> settledAt = new ConcurrentHashMap<>();

  private CaptureRegistry() {
  }

  /** An endpoint started shipping {@code source}'s WAL edits to {@code target}. */
  static void started(TableName source, String target) {
    List<Listener> notify;
    Set<String> now;
    synchronized (LOCK) {
      captures.computeIfAbsent(source, t -> new HashMap<>()).merge(target, 1, Integer::sum);
      now = targets(source);
      notify = new ArrayList<>(listeners.getOrDefault(source, List.of()));
    }
    notify.forEach(l -> l.captured(now));
  }

  /** That endpoint stopped. */
  static void stopped(TableName source, String target) {
    List<Listener> notify;
    Set<String> now;
    synchronized (LOCK) {
      Map<String, Integer> byTarget = captures.get(source);
      if (byTarget == null || byTarget.merge(target, -1, Integer::sum) > 0) {
        return;
      }
      byTarget.remove(target);
      if (byTarget.isEmpty()) {
        captures.remove(source);
      }
      now = targets(source);
      notify = new ArrayList<>(listeners.getOrDefault(source, List.of()));
    }
    notify.forEach(l -> l.captured(now));
  }

  /**
   * The targets captures of {@code table} ship to now. A listener reads this rather than trust the
   * set it was told: two notifications running at once may arrive in either order.
   */
  static Set<String> targetsOf(TableName table) {
    synchronized (LOCK) {
      return targets(table);
    }
  }

  /** Registers a guard of {@code table}; the captures running now. */
  static Set<String> listen(TableName table, Listener listener) {
    synchronized (LOCK) {
      listeners.computeIfAbsent(table, t -> new ArrayList<>()).add(listener);
      return targets(table);
    }
  }

  static void unlisten(TableName table, Listener listener) {
    synchronized (LOCK) {
      List<Listener> list = listeners.get(table);
      if (list != null) {
        list.remove(listener);
        if (list.isEmpty()) {
          listeners.remove(table);
        }
      }
    }
  }

  /** The region's guard refuses, with nothing it let through before still under way. */
  static void settled(String encodedRegion, long readPoint) {
    if (readPoint > 0) {
      settledAt.merge(encodedRegion, readPoint, Math::max);
    }
  }

  /**
   * Whether an edit of {@code encodedRegion} at {@code sequenceId} was written before that
   * region's guard refused bulk loads (a load the guard let through, or one from before it).
   */
  static boolean beforeTheGuard(String encodedRegion, long sequenceId) {
    Long at = settledAt.get(encodedRegion);
    return at != null && sequenceId <= at;
  }

  private static Set<String> targets(TableName source) {
    Map<String, Integer> byTarget = captures.get(source);
    return byTarget == null ? Set.of() : Set.copyOf(byTarget.keySet());
  }

  /** For tests: nothing registered. */
  static void reset() {
    synchronized (LOCK) {
      captures.clear();
      listeners.clear();
    }
    settledAt.clear();
  }
}
