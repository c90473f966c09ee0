package io.presplit.client;

import java.util.Set;

import org.apache.hadoop.hbase.TableName;

/**
 * What the SDK knows about one logical table at one moment, from its document and its status in
 * ZooKeeper: the physical table of the current generation, its bucket count and the layout its
 * keys follow. Immutable: a generation switch replaces the whole snapshot at once, so an
 * operation that started on one snapshot finishes on it (physical table, bucket count and layout
 * always belong together), and the next operation uses the new one.
 */
public final class TableSnapshot {

  /** Status phases in which the table takes reads and writes. */
  static final Set<String> USABLE_PHASES = Set.of("ready", "drift");

  private final String logicalName;
  private final String phase;
  private final String error;
  private final TableName physicalTable;
  private final long generation;
  private final KeyLayout layout;
  private final int documentVersion;
  private final int statusVersion;

  TableSnapshot(String logicalName, String phase, String error, TableName physicalTable,
      long generation, KeyLayout layout, int documentVersion, int statusVersion) {
    this.logicalName = logicalName;
    this.phase = phase;
    this.error = error;
    this.physicalTable = physicalTable;
    this.generation = generation;
    this.layout = layout;
    this.documentVersion = documentVersion;
    this.statusVersion = statusVersion;
  }

  /** The logical table, {@code namespace:qualifier}. */
  public String logicalName() {
    return logicalName;
  }

  /** The status phase ({@code ready}, {@code creating}, ...), or null when there is no status. */
  public String phase() {
    return phase;
  }

  /** The daemon's error from the status, or null. */
  public String error() {
    return error;
  }

  /** The HBase table of the current generation, or null when there is no status. */
  public TableName physicalTable() {
    return physicalTable;
  }

  public long generation() {
    return generation;
  }

  /** The number of salt buckets of the current generation (0 = unsalted). */
  public int buckets() {
    return layout.buckets();
  }

  /** The layout of the current generation's keys. */
  public KeyLayout layout() {
    return layout;
  }

  /** The ZooKeeper data version of the table document this snapshot was built from. */
  public int documentVersion() {
    return documentVersion;
  }

  /** The ZooKeeper data version of the status this snapshot was built from, -1 when none. */
  public int statusVersion() {
    return statusVersion;
  }

  /** True when reads and writes may go to the physical table. */
  public boolean isUsable() {
    return phase != null && USABLE_PHASES.contains(phase) && physicalTable != null;
  }

  /** Throws when reads and writes may not go to the physical table. */
  void checkUsable() throws TableNotReadyException {
    if (isUsable()) {
      return;
    }
    if (phase == null) {
      throw new TableNotReadyException("table " + logicalName
          + " is not ready: presplit has reported no status for it yet", null);
    }
    throw new TableNotReadyException("table " + logicalName + " is not ready: its status is '"
        + phase + "'" + (error == null ? "" : " (" + error + ")"), phase);
  }

  @Override
  public String toString() {
    return logicalName + " generation " + generation + " -> " + physicalTable + " phase " + phase
        + " layout " + layout;
  }
}
