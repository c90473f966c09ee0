package io.presplit.client;

import java.util.Set;

import org.apache.hadoop.hbase.TableName;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * What the SDK knows about one logical table at one moment, from its document and its status in
 * ZooKeeper: the physical table of the current generation, its bucket count and the layout its
 * keys follow. Immutable: a generation switch replaces the whole snapshot at once, so an
 * operation that started on one snapshot finishes on it (physical table, bucket count and layout
 * always belong together), and the next operation uses the new one.
 *
 * <p>The control plane failing never stops the data plane: when the status of a table in use
 * turns {@code error} or {@code invalid} (a daemon restarted while the HMaster is down, a typo in
 * an edited document) and still names the same physical table, generation and layout, the last
 * usable snapshot stays in use, carried over ({@link #isCarriedOver()}); see
 * {@link #following}.
 */
public final class TableSnapshot {

  /** Status phases in which the table takes reads and writes. */
  static final Set<String> USABLE_PHASES = Set.of("ready", "drift");

  /**
   * Status phases that report a problem of the control plane, not a change of the table: a
   * table in use keeps being used through them.
   */
  static final Set<String> CARRY_OVER_PHASES = Set.of("error", "invalid");

  private final String logicalName;
  private final String phase;
  private final String error;
  private final TableName physicalTable;
  private final long generation;
  private final KeyLayout layout;
  private final int documentVersion;
  private final int statusVersion;
  // True when the status itself named this layout (its "layout" object): the daemon vouches for
  // it. False when it was derived from the document (and the status's bucket count).
  private final boolean layoutFromStatus;
  private final boolean carriedOver;
  // The generation a re-salting migration is moving away from, while its catch-up is not done
  // (null otherwise): readers that ask for it read both generations.
  private TableSnapshot previous;
  // The status's migration.phase, or null when the status has no migration object.
  private String migrationPhase;
  // The status's migration.writes_paused_until_ms (epoch ms; 0 = writes not paused): the daemon
  // is draining the generation this status names before switching away from it (or giving up).
  private long writesPausedUntilMs;

  TableSnapshot(String logicalName, String phase, String error, TableName physicalTable,
      long generation, KeyLayout layout, int documentVersion, int statusVersion,
      boolean layoutFromStatus) {
    this(logicalName, phase, error, physicalTable, generation, layout, documentVersion,
        statusVersion, layoutFromStatus, false);
  }

  private TableSnapshot(String logicalName, String phase, String error, TableName physicalTable,
      long generation, KeyLayout layout, int documentVersion, int statusVersion,
      boolean layoutFromStatus, boolean carriedOver) {
    this.logicalName = logicalName;
    this.phase = phase;
    this.error = error;
    this.physicalTable = physicalTable;
    this.generation = generation;
    this.layout = layout;
    this.documentVersion = documentVersion;
    this.statusVersion = statusVersion;
    this.layoutFromStatus = layoutFromStatus;
    this.carriedOver = carriedOver;
  }

  /**
   * The snapshot to use after {@code loaded} was read, given the one in use ({@code previous},
   * null at first). {@code loaded} as it is, except when the table was usable and the status now
   * reports {@code error} or {@code invalid} for the same physical table and generation, naming
   * the same layout: then the previous physical table, generation and layout stay in use (writes
   * go on), with the new phase and error for everyone to see. Anything else stops writes until
   * the status is usable again: another generation or physical table (a real switch: never write
   * with a stale layout), a status that names no layout or another one (the daemon no longer
   * vouches for ours), {@code creating} (no table yet), or no status at all.
   */
  static TableSnapshot following(TableSnapshot previous, TableSnapshot loaded) {
    if (previous == null || !previous.isUsable() || loaded.isUsable()
        || loaded.phase == null || !CARRY_OVER_PHASES.contains(loaded.phase)
        || !loaded.layoutFromStatus
        || !java.util.Objects.equals(previous.physicalTable, loaded.physicalTable)
        || previous.generation != loaded.generation || !previous.layout.equals(loaded.layout)) {
      return loaded;
    }
    TableSnapshot kept = new TableSnapshot(previous.logicalName, loaded.phase, loaded.error,
        previous.physicalTable, previous.generation, previous.layout, loaded.documentVersion,
        loaded.statusVersion, true, true);
    kept.previous = loaded.previous;
    kept.migrationPhase = loaded.migrationPhase;
    kept.writesPausedUntilMs = loaded.writesPausedUntilMs;
    return kept;
  }

  /** Migration phases after which nothing of the migration runs any more. */
  static final Set<String> FINISHED_MIGRATION_PHASES = Set.of("done", "aborted", "rolled_back");

  /**
   * This snapshot with what writers need of the status's {@code migration} object: its
   * {@code phase} and {@code writes_paused_until_ms} (epoch milliseconds; absent, null or 0 = not
   * paused). A pause that is not an integer is an error (the status cannot be used), so that a
   * status the daemon did not write this way is never half-understood.
   */
  TableSnapshot withMigration(JsonObject migration) {
    if (migration == null) {
      return this;
    }
    JsonElement phaseElement = migration.get("phase");
    String phaseOfMigration = phaseElement != null && phaseElement.isJsonPrimitive()
        ? phaseElement.getAsString() : null;
    long pausedUntil = 0;
    JsonElement pause = migration.get("writes_paused_until_ms");
    if (pause != null && !pause.isJsonNull()) {
      if (!pause.isJsonPrimitive() || !pause.getAsJsonPrimitive().isNumber()) {
        throw new IllegalArgumentException(
            "migration.writes_paused_until_ms is not a number of milliseconds: " + pause);
      }
      pausedUntil = Math.max(0, pause.getAsLong());
    }
    TableSnapshot copy = copy();
    copy.migrationPhase = phaseOfMigration;
    copy.writesPausedUntilMs = pausedUntil;
    return copy;
  }

  private TableSnapshot copy() {
    TableSnapshot copy = new TableSnapshot(logicalName, phase, error, physicalTable, generation,
        layout, documentVersion, statusVersion, layoutFromStatus, carriedOver);
    copy.previous = previous;
    copy.migrationPhase = migrationPhase;
    copy.writesPausedUntilMs = writesPausedUntilMs;
    return copy;
  }

  /**
   * Status phases of a re-salting migration (the status's {@code migration.phase}) in which the
   * previous generation may still hold rows the active one lacks: from the switch until the
   * capture has shipped what arrived at the old generation before it, and after a rollback until
   * the abandoned generation is drained into the old one.
   */
  static final Set<String> CATCH_UP_PHASES = Set.of("switching", "catching_up", "rolling_back");

  /**
   * This snapshot with the previous generation of a migration named by the status (its
   * {@code migration} object: {@code {"phase", "previous": {"physical_table", "layout",
   * "generation"}}}), when the phase is one of {@link #CATCH_UP_PHASES} and the previous
   * generation is another physical table; else this snapshot as it is. A previous generation that
   * cannot be used (no table name, a layout that does not parse) is an error: a reader that asked
   * for both generations must not silently read one.
   */
  TableSnapshot withPreviousFrom(JsonObject migration) {
    if (migration == null || physicalTable == null) {
      return this;
    }
    JsonElement phaseElement = migration.get("phase");
    JsonElement previousElement = migration.get("previous");
    if (phaseElement == null || !phaseElement.isJsonPrimitive()
        || !CATCH_UP_PHASES.contains(phaseElement.getAsString()) || previousElement == null
        || !previousElement.isJsonObject()) {
      return this;
    }
    JsonObject p = previousElement.getAsJsonObject();
    JsonElement tableElement = p.get("physical_table");
    JsonElement layoutElement = p.get("layout");
    if (tableElement == null || !tableElement.isJsonPrimitive() || layoutElement == null
        || !layoutElement.isJsonObject()) {
      throw new KeyLayoutException("the status's migration.previous needs 'physical_table' and "
          + "'layout': " + p);
    }
    TableName table = TableName.valueOf(tableElement.getAsString());
    if (table.equals(physicalTable)) {
      return this;
    }
    KeyLayout previousLayout = KeyLayout.fromDocument(layoutElement.getAsJsonObject());
    JsonElement generationElement = p.get("generation");
    long previousGeneration = generationElement == null || generationElement.isJsonNull()
        ? generation - 1 : generationElement.getAsLong();
    TableSnapshot copy = copy();
    copy.previous = new TableSnapshot(logicalName, phase, error, table, previousGeneration,
        previousLayout, documentVersion, statusVersion, true, carriedOver);
    return copy;
  }

  /**
   * The generation a re-salting migration is moving away from while its catch-up is not done
   * (physical table, generation and layout of its own, usable as this one is), or null.
   */
  public TableSnapshot previousGeneration() {
    return previous;
  }

  /**
   * When the status says writes are paused (its {@code migration.writes_paused_until_ms}, epoch
   * milliseconds): the daemon has made this snapshot's physical table read-only and is draining
   * it before it switches the table to another generation, or gives up and makes it writable
   * again, by that time. 0 when writes are not paused. While {@code now < writesPausedUntilMs()},
   * {@link SaltedTable}'s writes wait for the next status (at most until this time plus a
   * couple of seconds); reads are not held.
   */
  public long writesPausedUntilMs() {
    return writesPausedUntilMs;
  }

  /** True when writes are paused at {@code nowMs} (epoch ms): see {@link #writesPausedUntilMs}. */
  boolean writesPausedAt(long nowMs) {
    return writesPausedUntilMs > 0 && nowMs < writesPausedUntilMs;
  }

  /**
   * True when the status reports a re-salting migration that is not finished (a
   * {@code migration} object whose phase is not {@code done}, {@code aborted} or
   * {@code rolled_back}), or a pause of writes: a generation of this table may be made
   * read-only for a switch.
   */
  boolean isMigrating() {
    return writesPausedUntilMs > 0
        || (migrationPhase != null && !FINISHED_MIGRATION_PHASES.contains(migrationPhase));
  }

  /** The status's {@code migration.phase}, or null when the status reports no migration. */
  String migrationPhase() {
    return migrationPhase;
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

  /**
   * True when the status reports a problem ({@code error} or {@code invalid}, see
   * {@link #phase()} and {@link #error()}) for the physical table in use and reads and writes go
   * on with the last usable physical table, generation and layout.
   */
  public boolean isCarriedOver() {
    return carriedOver;
  }

  /** True when reads and writes may go to the physical table. */
  public boolean isUsable() {
    return phase != null && (USABLE_PHASES.contains(phase) || carriedOver)
        && physicalTable != null;
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
        + (carriedOver ? " (carried over: writes go on)" : "") + " layout " + layout
        + (writesPausedUntilMs > 0 ? " (writes paused until " + writesPausedUntilMs + " ms)" : "")
        + (previous == null ? "" : " (reading also generation " + previous.generation + " -> "
            + previous.physicalTable + " layout " + previous.layout + ")");
  }
}
