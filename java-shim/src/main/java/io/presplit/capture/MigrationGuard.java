package io.presplit.capture;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.IsolationLevel;
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
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, on a table presplit is re-salting, the writes its change capture cannot carry. The
 * capture ({@link RekeyingReplicationEndpoint}) ships the table's WAL to the other generation; a
 * bulk load puts files into the regions without their cells in the WAL, and a mutation with
 * {@code Durability.SKIP_WAL} never reaches the WAL, so neither would reach the other generation
 * and the switch (or a rollback) would lose them. While the guard is <em>active</em>, both are
 * refused with a {@link DoNotRetryIOException} that names the table, the migration and what to do
 * instead; everything else passes untouched. Otherwise it is <em>dormant</em> and refuses nothing.
 *
 * <p>It is active on a region when a presplit capture ships from the table on the region's
 * RegionServer ({@link CaptureRegistry}: the capture's endpoint starts with its replication peer
 * and stops with it), or when the table's {@link #PLAN_ATTRIBUTE} names a migration plan (a new
 * generation is created so). Why the capture and not the descriptor: attaching a coprocessor, or
 * changing the descriptor of a table that carries one, reopens every region of the table, which
 * stalls the application's requests for a moment (HBase 2.6's no-reopen modifyTable refuses
 * tables with coprocessors). So a table gets the guard, dormant, at its first migration (with that
 * one reopen) and keeps it (a new generation is created with it), and the guard turns on and off
 * with the capture, without a reopen.
 *
 * <p>presplitd asks every region to confirm before the copy starts ({@link GuardConfirmations}:
 * a check-and-mutate carrying {@link #CONFIRM_ATTRIBUTE}, which the guard refuses with its state,
 * so nothing is written). An SKIP_WAL write or a bulk load that the guard let through just before
 * it turned on may still be under way: the guard counts them until they end (a SKIP_WAL batch is
 * checked again under the region's update lock, right before it is written) and does not confirm
 * while one is. Once every region confirmed, nothing the guard let through can land after the
 * copy begins; the region's read point at that moment tells the capture which bulk-load markers
 * in the WAL came before the guard ({@link CaptureRegistry#beforeTheGuard}).
 *
 * <p>Its class must load on the HMaster (the table sanity check) and on every RegionServer:
 * presplit-hbase.jar is there for the capture already.
 *
 * <p>What it costs a write: a volatile read and a field comparison per mutation, and one pass over
 * a batch's durabilities; nothing is allocated unless the write is refused. A batch holding one
 * refused mutation is refused whole (in that region), before any of it is applied. A mutation
 * whose durability is {@code USE_DEFAULT} takes the table's {@code DURABILITY}, as the region
 * does.
 */
public class MigrationGuard implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(MigrationGuard.class);

  public static final String CLASS_NAME = MigrationGuard.class.getName();

  /**
   * Table attribute: the id of the migration plan the guard is active for (a new generation is
   * created with it); absent: the guard follows the capture.
   */
  public static final String PLAN_ATTRIBUTE = "presplit.migration.guard";

  /**
   * Table attribute, {@code "true"} on a new generation while presplit's copy may still
   * bulk-load into it (engines "hfile" and "mapreduce"): bulk loads pass, SKIP_WAL writes do not.
   * Nothing but presplit writes to the new generation before the switch.
   */
  public static final String COPY_LOADS_ATTRIBUTE = "presplit.migration.guard.copy_loads";

  /**
   * Mutation attribute of a confirmation (see {@link GuardConfirmations}): the guard refuses the
   * request with its state, so nothing is ever written.
   */
  public static final String CONFIRM_ATTRIBUTE = "presplit.migration.guard.confirm";

  /** The state's plan when the guard is active because a capture runs, not by a plan's attribute. */
  static final String CAPTURED = "capture";

  /** First among the table's coprocessors: a refused write reaches none of the others. */
  static final int PRIORITY = Coprocessor.PRIORITY_HIGHEST;

  /** How long a confirmation waits, at most, for the writes a dormant guard let through. */
  static final long DRAIN_WAIT_MS = 1_000;

  /** What a region of the guarded table refuses, made once per descriptor the guard sees. */
  static final class Refusals {
    static final Refusals NONE = new Refusals(null, false, null, null, false);

    final String plan; // the plan the guard is active for, CAPTURED, or null: dormant
    final boolean copyLoads; // COPY_LOADS_ATTRIBUTE
    final String skipWal; // the refusal of a SKIP_WAL mutation; null: none refused
    final String bulkLoad; // the refusal of a bulk load; null: bulk loads pass
    final boolean tableSkipsWal; // the table's DURABILITY is SKIP_WAL (USE_DEFAULT skips too)

    private Refusals(String plan, boolean copyLoads, String skipWal, String bulkLoad,
        boolean tableSkipsWal) {
      this.plan = plan;
      this.copyLoads = copyLoads;
      this.skipWal = skipWal;
      this.bulkLoad = bulkLoad;
      this.tableSkipsWal = tableSkipsWal;
    }

    static Refusals of(TableDescriptor table) {
      boolean tableSkipsWal = table.getDurability() == Durability.SKIP_WAL;
      String plan = table.getValue(PLAN_ATTRIBUTE);
      boolean copyLoads = "true".equals(table.getValue(COPY_LOADS_ATTRIBUTE));
      if (plan == null || plan.isEmpty()) {
        return new Refusals(null, copyLoads, null, null, tableSkipsWal);
      }
      String name = table.getTableName().getNameAsString();
      String why = "presplit is re-salting " + name + " (migration plan " + plan + "), and its "
          + "change capture, which carries every write to the table's other generation, reads "
          + "the WAL";
      String status = "presplitctl migration status " + logicalName(name);
      String skipWal = skipWalRefusal(name, why, status);
      String bulkLoad = copyLoads ? null : bulkLoadRefusal(name, why, status);
      return new Refusals(plan, copyLoads, skipWal, bulkLoad, tableSkipsWal);
    }

    /** A guard active because captures of {@code table} ship to {@code targets}. */
    static Refusals captured(TableDescriptor table, Set<String> targets) {
      String name = table.getTableName().getNameAsString();
      String why = "presplit is re-salting " + name + " (into " + String.join(", ",
          new java.util.TreeSet<>(targets)) + "), and its change capture, which carries every "
          + "write to the table's other generation, reads the WAL";
      String status = "presplitctl migration status " + logicalName(name);
      return new Refusals(CAPTURED, false, skipWalRefusal(name, why, status),
          bulkLoadRefusal(name, why, status), table.getDurability() == Durability.SKIP_WAL);
    }

    boolean active() {
      return plan != null;
    }
  }

  private static String skipWalRefusal(String name, String why, String status) {
    return "presplit: a write with Durability.SKIP_WAL to " + name + " is refused: " + why
        + ", which this write would bypass. Write with the WAL (any durability but SKIP_WAL; "
        + "USE_DEFAULT takes the table's DURABILITY), or wait until the migration has ended ("
        + status + ")";
  }

  private static String bulkLoadRefusal(String name, String why, String status) {
    return "presplit: a bulk load into " + name + " is refused: " + why + ", which a bulk load "
        + "bypasses. Load the files once the migration has ended (" + status + "), into the "
        + "generation the table's status names then (presplitctl import and the SDK resolve it), "
        + "or abort the migration first";
  }

  private volatile Refusals refusals = Refusals.NONE;
  private volatile Refusals fromDescriptor = Refusals.NONE;
  private TableDescriptor table;
  private TableName tableName;
  private String regionName = "";
  private LongSupplier readPoint = () -> -1;
  // Told of a change, the guard reads the registry's state again: notifications running at once
  // may arrive in either order, and the last word must be the registry's current one.
  private final CaptureRegistry.Listener listener =
      told -> captured(CaptureRegistry.targetsOf(tableName));
  private volatile boolean settled; // confirmed active with nothing let through under way

  // SKIP_WAL batches and bulk loads let through (the guard did not refuse them) and not ended yet;
  // each thread knows what it holds: [0] batches, [1] bulk loads.
  private final AtomicInteger letThrough = new AtomicInteger();
  private final ThreadLocal<int[]> heldByThisThread = ThreadLocal.withInitial(() -> new int[2]);

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
    RegionCoprocessorEnvironment region = (RegionCoprocessorEnvironment) env;
    if (region.getRegion() instanceof HRegion) {
      HRegion h = (HRegion) region.getRegion();
      regionName = h.getRegionInfo().getEncodedName();
      readPoint = () -> h.getReadPoint(IsolationLevel.READ_COMMITTED);
    }
    open(region.getRegion().getTableDescriptor());
  }

  @Override
  public void stop(CoprocessorEnvironment env) {
    if (tableName != null) {
      CaptureRegistry.unlisten(tableName, listener);
    }
  }

  /** The region opens: its descriptor's state, and the captures running on this RegionServer. */
  void open(TableDescriptor descriptor) {
    table = descriptor;
    tableName = descriptor.getTableName();
    fromDescriptor = Refusals.of(descriptor);
    captured(CaptureRegistry.listen(tableName, listener));
  }

  /** For tests: the region's name and read point, as a RegionServer gives them. */
  void connect(String region, LongSupplier regionReadPoint) {
    this.regionName = region;
    this.readPoint = regionReadPoint;
  }

  /** Captures of the table started or ended on this RegionServer. */
  private synchronized void captured(Set<String> targets) {
    Refusals descriptor = fromDescriptor;
    Refusals before = refusals;
    Refusals now = descriptor.active() || targets.isEmpty() ? descriptor
        : Refusals.captured(table, targets);
    refusals = now;
    if (!now.active()) {
      settled = false;
    }
    if (before.active() != now.active()) {
      LOG.info("presplit: MigrationGuard of {} region {}: {}", tableName, regionName,
          now.active() ? "on (" + (now.plan.equals(CAPTURED) ? "a capture of the table runs "
              + "here" : "migration plan " + now.plan) + ")" : "dormant (no capture runs here)");
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

  // The hooks below refuse early, before a write waits for its row's lock; preBatchMutate checks
  // again once the lock is held, right before the write is applied: a write that passed a dormant
  // guard here and waited for its lock meanwhile is refused there if the guard turned on.

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
   * A confirmation is answered here, and refused whatever it holds.
   */
  @Override
  public CheckAndMutateResult preCheckAndMutate(ObserverContext<RegionCoprocessorEnvironment> c,
      CheckAndMutate checkAndMutate, CheckAndMutateResult result) throws IOException {
    Row action = checkAndMutate.getAction();
    if (action instanceof Mutation) {
      if (((Mutation) action).getAttribute(CONFIRM_ATTRIBUTE) != null) {
        throw new DoNotRetryIOException(confirm().toMessage());
      }
      refuseSkipWal((Mutation) action);
    } else if (action instanceof RowMutations) {
      for (Mutation mutation : ((RowMutations) action).getMutations()) {
        refuseSkipWal(mutation);
      }
    }
    return result;
  }

  /**
   * Under the region's update lock, right before the batch is written: the last word on a
   * SKIP_WAL write. One that passes while the guard is dormant is counted until the batch ends
   * ({@link #postBatchMutateIndispensably}), so that a confirmation waits for it.
   */
  @Override
  public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> miniBatchOp) throws IOException {
    Refusals r = refusals;
    if (!anySkipsWal(miniBatchOp, r.tableSkipsWal)) {
      return;
    }
    if (r.skipWal != null) {
      throw new DoNotRetryIOException(r.skipWal);
    }
    letThrough(0, now -> now.skipWal);
  }

  @Override
  public void postBatchMutateIndispensably(ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> miniBatchOp, boolean success) {
    release(0);
  }

  @Override
  public void preBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> familyPaths) throws IOException {
    String refusal = refusals.bulkLoad;
    if (refusal != null) {
      throw new DoNotRetryIOException(refusal);
    }
    // A load this thread let through earlier that never reached postBulkLoadHFile (a coprocessor
    // after this one refused it) has ended: a thread runs one request at a time.
    release(1);
    letThrough(1, now -> now.bulkLoad);
  }

  @Override
  public void postBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> stagingFamilyPaths, Map<byte[], List<Path>> finalPaths) {
    release(1);
  }

  private static boolean anySkipsWal(MiniBatchOperationInProgress<Mutation> batch,
      boolean tableSkipsWal) {
    for (int i = 0; i < batch.size(); i++) {
      if (skipsWal(batch.getOperation(i).getDurability(), tableSkipsWal)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Counts a write the guard lets through, then looks at the state again: a confirmation sets the
   * state first and reads the count after, so either it sees this write or this write sees the
   * guard on (and is refused).
   */
  private void letThrough(int kind, java.util.function.Function<Refusals, String> refusalOf)
      throws DoNotRetryIOException {
    letThrough.incrementAndGet();
    String refusal = refusalOf.apply(refusals);
    if (refusal != null) {
      letThrough.decrementAndGet();
      throw new DoNotRetryIOException(refusal);
    }
    heldByThisThread.get()[kind]++;
  }

  private void release(int kind) {
    if (letThrough.get() == 0) {
      return; // the common case: nothing let through, no thread-local lookup
    }
    int[] held = heldByThisThread.get();
    if (held[kind] > 0) {
      held[kind]--;
      letThrough.decrementAndGet();
    }
  }

  /**
   * A confirmation: when the guard refuses SKIP_WAL writes, a wait of up to
   * {@link #DRAIN_WAIT_MS} for the writes it let through before; then its state. The first
   * settled answer records the region's read point for the capture ({@link CaptureRegistry}).
   */
  GuardState confirm() {
    Refusals r = refusals;
    long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_WAIT_MS);
    while (r.active() && letThrough.get() > 0 && System.nanoTime() < waitUntil) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    int inFlight = letThrough.get();
    long point = readPoint.getAsLong();
    if (r.active() && inFlight == 0 && !settled) {
      settled = true;
      CaptureRegistry.settled(regionName, point);
    }
    return new GuardState(regionName, r.plan, r.copyLoads, inFlight, point, "");
  }

  // ---- the guard in a table's descriptor (presplitd's side: GenerationBridge, NextGeneration)

  /**
   * The plan id of the guard attached to {@code table}: null when none is, "" when it is
   * attached dormant (without {@link #PLAN_ATTRIBUTE}).
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
    attach(builder, table);
    builder.setValue(PLAN_ATTRIBUTE, planId);
    if (copyLoads) {
      builder.setValue(COPY_LOADS_ATTRIBUTE, "true");
    } else {
      builder.removeValue(COPY_LOADS_ATTRIBUTE);
    }
    return builder.build();
  }

  /**
   * {@code table} with the guard dormant: attached (added when missing), without the plan and
   * copy attributes. The guard stays so that the next migration turns it on without a reopen.
   */
  public static TableDescriptor dormant(TableDescriptor table) {
    TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(table)
        .removeValue(PLAN_ATTRIBUTE).removeValue(COPY_LOADS_ATTRIBUTE);
    attach(builder, table);
    return builder.build();
  }

  /** Adds the guard's coprocessor to {@code builder} unless {@code table} carries it. */
  private static void attach(TableDescriptorBuilder builder, TableDescriptor table) {
    if (table.hasCoprocessor(CLASS_NAME)) {
      return;
    }
    try {
      builder.setCoprocessor(
          CoprocessorDescriptorBuilder.newBuilder(CLASS_NAME).setPriority(PRIORITY).build());
    } catch (IOException e) {
      throw new IllegalStateException("adding " + CLASS_NAME + ": " + e.getMessage(), e);
    }
  }

  /** "ns:t__g2" -> "ns:t": the table's document name, as presplitctl takes it. */
  static String logicalName(String physical) {
    return physical.replaceFirst("__g[0-9]+$", "");
  }
}
