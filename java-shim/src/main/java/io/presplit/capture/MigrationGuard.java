package io.presplit.capture;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, on a table presplit is re-salting, the writes its change capture cannot carry. The
 * capture ({@link RekeyingReplicationEndpoint}) ships the table's WAL to the other generation; a
 * bulk load puts files into the regions without their cells in the WAL, and a mutation with
 * {@code Durability.SKIP_WAL} never reaches the WAL, so neither would reach the other generation
 * and the switch (or a rollback) would lose them. While this table coprocessor is attached, both
 * are refused with a {@link DoNotRetryIOException} that names the table, the migration's plan and
 * what to do instead; everything else passes untouched.
 *
 * <p>presplitd attaches it, with the {@link #PLAN_ATTRIBUTE} table attribute, to the old
 * generation before the copy and the capture begin, creates the new generation with it (bulk
 * loads allowed while {@link #COPY_LOADS_ATTRIBUTE} says presplit's own copy still loads there),
 * and removes it from the generation that survives the migration. Its class must load on the
 * HMaster (the table sanity check) and on every RegionServer: presplit-hbase.jar is there for
 * the capture already.
 *
 * <p>What it costs a write: one volatile read and one field comparison; nothing is allocated
 * unless the write is refused. A batch holding one refused mutation is refused whole (in that
 * region), before any of it is applied. A mutation whose durability is {@code USE_DEFAULT} takes
 * the table's {@code DURABILITY}, as the region does.
 */
public class MigrationGuard implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(MigrationGuard.class);

  public static final String CLASS_NAME = MigrationGuard.class.getName();

  /** Table attribute: the id of the migration plan that attached the guard. */
  public static final String PLAN_ATTRIBUTE = "presplit.migration.guard";

  /**
   * Table attribute, {@code "true"} on a new generation while presplit's copy may still
   * bulk-load into it (engines "hfile" and "mapreduce"): bulk loads pass, SKIP_WAL writes do not.
   * Nothing but presplit writes to the new generation before the switch.
   */
  public static final String COPY_LOADS_ATTRIBUTE = "presplit.migration.guard.copy_loads";

  /** First among the table's coprocessors: a refused write reaches none of the others. */
  static final int PRIORITY = Coprocessor.PRIORITY_HIGHEST;

  /** What a region of the guarded table refuses, made once when the region opens. */
  static final class Refusals {
    static final Refusals NONE = new Refusals(null, null, false);

    final String skipWal; // the refusal of a SKIP_WAL mutation; null: none refused
    final String bulkLoad; // the refusal of a bulk load; null: bulk loads pass
    final boolean tableSkipsWal; // the table's DURABILITY is SKIP_WAL (USE_DEFAULT skips too)

    private Refusals(String skipWal, String bulkLoad, boolean tableSkipsWal) {
      this.skipWal = skipWal;
      this.bulkLoad = bulkLoad;
      this.tableSkipsWal = tableSkipsWal;
    }

    static Refusals of(TableDescriptor table) {
      String name = table.getTableName().getNameAsString();
      String plan = table.getValue(PLAN_ATTRIBUTE);
      String why = "presplit is re-salting " + name + " (migration plan "
          + (plan == null || plan.isEmpty() ? "unknown: " + PLAN_ATTRIBUTE + " is not set" : plan)
          + "), and its change capture, which carries every write to the table's other "
          + "generation, reads the WAL";
      String status = "presplitctl migration status " + logicalName(name);
      String skipWal = "presplit: a write with Durability.SKIP_WAL to " + name + " is refused: "
          + why + ", which this write would bypass. Write with the WAL (any durability but "
          + "SKIP_WAL; USE_DEFAULT takes the table's DURABILITY), or wait until the migration "
          + "has ended (" + status + ")";
      String bulkLoad = "true".equals(table.getValue(COPY_LOADS_ATTRIBUTE)) ? null
          : "presplit: a bulk load into " + name + " is refused: " + why + ", which a bulk "
              + "load bypasses. Load the files once the migration has ended (" + status
              + "), into the generation the table's status names then (presplitctl import and "
              + "the SDK resolve it), or abort the migration first";
      return new Refusals(skipWal, bulkLoad, table.getDurability() == Durability.SKIP_WAL);
    }
  }

  private volatile Refusals refusals = Refusals.NONE;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    if (!(env instanceof RegionCoprocessorEnvironment)) {
      LOG.warn("presplit: MigrationGuard is a table coprocessor; loaded elsewhere, it refuses "
          + "nothing");
      return;
    }
    TableDescriptor table = ((RegionCoprocessorEnvironment) env).getRegion().getTableDescriptor();
    refusals = Refusals.of(table);
    if (table.getValue(PLAN_ATTRIBUTE) == null) {
      LOG.warn("presplit: MigrationGuard on {} without the {} attribute: it refuses SKIP_WAL "
          + "writes and bulk loads all the same (remove the coprocessor if no migration of the "
          + "table is under way)", table.getTableName(), PLAN_ATTRIBUTE);
    }
  }

  /** Whether a mutation of this durability reaches no WAL (the region's own rule). */
  static boolean skipsWal(Durability durability, boolean tableSkipsWal) {
    return durability == Durability.SKIP_WAL
        || (durability == Durability.USE_DEFAULT && tableSkipsWal);
  }

  private void refuseSkipWal(Mutation mutation) throws DoNotRetryIOException {
    Refusals r = refusals;
    if (r.skipWal != null && skipsWal(mutation.getDurability(), r.tableSkipsWal)) {
      throw new DoNotRetryIOException(r.skipWal);
    }
  }

  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit)
      throws IOException {
    refuseSkipWal(put);
  }

  @Override
  public void preDelete(ObserverContext<RegionCoprocessorEnvironment> c, Delete delete,
      WALEdit edit) throws IOException {
    refuseSkipWal(delete);
  }

  @Override
  public Result preIncrement(ObserverContext<RegionCoprocessorEnvironment> c,
      Increment increment, WALEdit edit) throws IOException {
    refuseSkipWal(increment);
    return null; // go on with the increment
  }

  @Override
  public Result preAppend(ObserverContext<RegionCoprocessorEnvironment> c, Append append,
      WALEdit edit) throws IOException {
    refuseSkipWal(append);
    return null; // go on with the append
  }

  /**
   * The mutations of a check-and-mutate reach the hooks above only when the check passes:
   * refused here as well, whatever the check would say, so that the writer learns it either way.
   */
  @Override
  public CheckAndMutateResult preCheckAndMutate(ObserverContext<RegionCoprocessorEnvironment> c,
      CheckAndMutate checkAndMutate, CheckAndMutateResult result) throws IOException {
    Row action = checkAndMutate.getAction();
    if (action instanceof Mutation) {
      refuseSkipWal((Mutation) action);
    } else if (action instanceof RowMutations) {
      for (Mutation mutation : ((RowMutations) action).getMutations()) {
        refuseSkipWal(mutation);
      }
    }
    return result;
  }

  @Override
  public void preBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> familyPaths) throws IOException {
    String refusal = refusals.bulkLoad;
    if (refusal != null) {
      throw new DoNotRetryIOException(refusal);
    }
  }

  // ---- the guard in a table's descriptor (presplitd's side: GenerationBridge, NextGeneration)

  /**
   * The plan id of the guard attached to {@code table}: null when none is, "" when it is
   * attached without {@link #PLAN_ATTRIBUTE}.
   */
  public static String guardingPlan(TableDescriptor table) {
    if (!table.hasCoprocessor(CLASS_NAME)) {
      return null;
    }
    String plan = table.getValue(PLAN_ATTRIBUTE);
    return plan == null ? "" : plan;
  }

  /** Whether {@code table} carries the guard of {@code planId}, as {@link #guarded} makes it. */
  public static boolean isGuarded(TableDescriptor table, String planId, boolean copyLoads) {
    return planId.equals(guardingPlan(table))
        && copyLoads == "true".equals(table.getValue(COPY_LOADS_ATTRIBUTE));
  }

  /**
   * {@code table} with the guard of plan {@code planId} (replacing any other plan's):
   * {@code copyLoads} lets bulk loads pass (a new generation presplit's copy still loads into).
   */
  public static TableDescriptor guarded(TableDescriptor table, String planId, boolean copyLoads) {
    if (planId == null || planId.isEmpty()) {
      throw new IllegalArgumentException("plan id is missing");
    }
    TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(table);
    if (!table.hasCoprocessor(CLASS_NAME)) {
      try {
        builder.setCoprocessor(
            CoprocessorDescriptorBuilder.newBuilder(CLASS_NAME).setPriority(PRIORITY).build());
      } catch (IOException e) {
        throw new IllegalStateException("adding " + CLASS_NAME + ": " + e.getMessage(), e);
      }
    }
    builder.setValue(PLAN_ATTRIBUTE, planId);
    if (copyLoads) {
      builder.setValue(COPY_LOADS_ATTRIBUTE, "true");
    } else {
      builder.removeValue(COPY_LOADS_ATTRIBUTE);
    }
    return builder.build();
  }

  /** {@code table} without the guard and its attributes. */
  public static TableDescriptor unguarded(TableDescriptor table) {
    return TableDescriptorBuilder.newBuilder(table).removeCoprocessor(CLASS_NAME)
        .removeValue(PLAN_ATTRIBUTE).removeValue(COPY_LOADS_ATTRIBUTE).build();
  }

  /** "ns:t__g2" -> "ns:t": the table's document name, as presplitctl takes it. */
  static String logicalName(String physical) {
    return physical.replaceFirst("__g[0-9]+$", "");
  }
}
