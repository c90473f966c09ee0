package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.List;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The guard's decisions, on a region of a table whose descriptor a test chooses. */
class MigrationGuardTest {
  @AfterEach
  void noCaptureLeftRunning() {
    CaptureRegistry.reset();
  }

  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] ROW = Bytes.toBytes("3row-1");
  private static final String PLAN = "0123456789abcdef0123456789abcdef";
  private static final String OPERATORS = "com.example.AuditObserver";

  private static TableDescriptorBuilder table(String name) {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf(name))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F));
  }

  /** The environment of one region of {@code table}, as the RegionServer hands it over. */
  private static RegionCoprocessorEnvironment regionOf(TableDescriptor table) {
    Region region = (Region) Proxy.newProxyInstance(MigrationGuardTest.class.getClassLoader(),
        new Class<?>[] {Region.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getTableDescriptor" -> table;
          default -> throw new UnsupportedOperationException(method.getName());
        });
    return (RegionCoprocessorEnvironment) Proxy.newProxyInstance(
        MigrationGuardTest.class.getClassLoader(),
        new Class<?>[] {RegionCoprocessorEnvironment.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getRegion" -> region;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @SuppressWarnings("unchecked")
  private static ObserverContext<RegionCoprocessorEnvironment> context(
      RegionCoprocessorEnvironment env) {
    return (ObserverContext<RegionCoprocessorEnvironment>) Proxy.newProxyInstance(
        MigrationGuardTest.class.getClassLoader(), new Class<?>[] {ObserverContext.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getEnvironment" -> env;
          // A guard that bypasses an operation would drop it silently: it must refuse instead.
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  /** A guard started on a region of {@code table}, and the context its hooks are called with. */
  private record Started(MigrationGuard guard, ObserverContext<RegionCoprocessorEnvironment> c) {
    void put(Mutation m) throws Exception {
      if (m instanceof Put p) {
        guard.prePut(c, p, new WALEdit());
      } else if (m instanceof Delete d) {
        guard.preDelete(c, d, new WALEdit());
      } else if (m instanceof Increment i) {
        assertNull(guard.preIncrement(c, i, new WALEdit()), "the increment goes on");
      } else if (m instanceof Append a) {
        assertNull(guard.preAppend(c, a, new WALEdit()), "the append goes on");
      }
    }

    void bulkLoad() throws Exception {
      guard.preBulkLoadHFile(c, List.of(new Pair<>(F, "/staging/f/hfile1")));
    }
  }

  private static Started start(TableDescriptor table) throws Exception {
    MigrationGuard guard = new MigrationGuard();
    RegionCoprocessorEnvironment env = regionOf(table);
    guard.start(env);
    return new Started(guard, context(env));
  }

  private static TableDescriptor guardedSource() {
    return MigrationGuard.guarded(table("ns:events").build(), PLAN, false);
  }

  private static String refusal(Executable write) {
    return assertThrows(DoNotRetryIOException.class, write).getMessage();
  }

  private static Put put(Durability durability) {
    Put put = new Put(ROW).addColumn(F, F, Bytes.toBytes(1L));
    put.setDurability(durability);
    return put;
  }

  @Test
  void aSkipWalWriteOfEveryKindIsRefusedNamingTheTableThePlanAndWhatToDo() throws Exception {
    Started s = start(guardedSource());
    String message = refusal(() -> s.put(put(Durability.SKIP_WAL)));
    assertTrue(message.contains("a write with Durability.SKIP_WAL to ns:events is refused"),
        message);
    assertTrue(message.contains("presplit is re-salting ns:events (migration plan " + PLAN + ")"),
        message);
    assertTrue(message.contains("Write with the WAL"), message);
    assertTrue(message.contains("presplitctl migration status ns:events"), message);

    Delete delete = new Delete(ROW);
    delete.setDurability(Durability.SKIP_WAL);
    Increment increment = new Increment(ROW).addColumn(F, F, 1);
    increment.setDurability(Durability.SKIP_WAL);
    Append append = new Append(ROW).addColumn(F, F, Bytes.toBytes("x"));
    append.setDurability(Durability.SKIP_WAL);
    for (Mutation m : List.of(delete, increment, append)) {
      assertEquals(message, refusal(() -> s.put(m)), m.getClass().getSimpleName());
    }
  }

  @Test
  void everyDurabilityThatWritesTheWalPasses() throws Exception {
    Started s = start(guardedSource());
    for (Durability d : List.of(Durability.USE_DEFAULT, Durability.ASYNC_WAL, Durability.SYNC_WAL,
        Durability.FSYNC_WAL)) {
      s.put(put(d));
      Increment increment = new Increment(ROW).addColumn(F, F, 1);
      increment.setDurability(d);
      s.put(increment);
      Delete delete = new Delete(ROW);
      delete.setDurability(d);
      s.put(delete);
    }
  }

  @Test
  void checkAndMutateIsRefusedWhateverItsCheckWouldSay() throws Exception {
    Started s = start(guardedSource());
    CheckAndMutate single =
        CheckAndMutate.newBuilder(ROW).ifNotExists(F, F).build(put(Durability.SKIP_WAL));
    String message = refusal(() -> s.guard().preCheckAndMutate(s.c(), single, null));
    assertTrue(message.contains("Durability.SKIP_WAL"), message);

    RowMutations rows = new RowMutations(ROW);
    rows.add(put(Durability.SYNC_WAL));
    Delete skipping = new Delete(ROW).addColumns(F, Bytes.toBytes("old"));
    skipping.setDurability(Durability.SKIP_WAL);
    rows.add(skipping);
    CheckAndMutate several = CheckAndMutate.newBuilder(ROW).ifNotExists(F, F).build(rows);
    assertEquals(message, refusal(() -> s.guard().preCheckAndMutate(s.c(), several, null)));

    CheckAndMutate fine =
        CheckAndMutate.newBuilder(ROW).ifNotExists(F, F).build(put(Durability.USE_DEFAULT));
    CheckAndMutateResult given = new CheckAndMutateResult(true, null);
    assertSame(given, s.guard().preCheckAndMutate(s.c(), fine, given), "passed on untouched");
  }

  @Test
  void aBulkLoadIsRefusedNamingTheTableThePlanAndWhatToDo() throws Exception {
    Started s = start(guardedSource());
    String message = refusal(s::bulkLoad);
    assertTrue(message.contains("a bulk load into ns:events is refused"), message);
    assertTrue(message.contains("migration plan " + PLAN), message);
    assertTrue(message.contains("Load the files once the migration has ended"), message);
    assertTrue(message.contains("abort the migration"), message);
  }

  @Test
  void theNewGenerationTakesTheCopysBulkLoadsUntilTheCopyEnds() throws Exception {
    TableDescriptor copying = MigrationGuard.guarded(table("ns:events__g2").build(), PLAN, true);
    Started s = start(copying);
    s.bulkLoad();
    String skipWal = refusal(() -> s.put(put(Durability.SKIP_WAL)));
    assertTrue(skipWal.contains("ns:events__g2"), skipWal);
    assertTrue(skipWal.contains("presplitctl migration status ns:events)"),
        "the table's document name, not the generation's: " + skipWal);

    // The end of the copy: the same plan's guard without the copy's allowance (a reopen).
    TableDescriptor settled = MigrationGuard.guarded(copying, PLAN, false);
    assertFalse(MigrationGuard.isGuarded(copying, PLAN, false));
    assertTrue(MigrationGuard.isGuarded(settled, PLAN, false));
    Started reopened = start(settled);
    assertTrue(refusal(reopened::bulkLoad).contains("ns:events__g2"));
  }

  @Test
  void aTableWhoseOwnDurabilitySkipsTheWalRefusesItsDefaultWrites() throws Exception {
    Started s = start(MigrationGuard.guarded(
        table("ns:events").setDurability(Durability.SKIP_WAL).build(), PLAN, false));
    refusal(() -> s.put(put(Durability.USE_DEFAULT)));
    s.put(put(Durability.SYNC_WAL));
  }

  @Test
  void withoutItsPlanAttributeAndWithoutACaptureTheGuardIsDormant() throws Exception {
    TableDescriptor dormant = MigrationGuard.dormant(guardedSource());
    assertEquals("", MigrationGuard.guardingPlan(dormant));
    assertNull(dormant.getValue(MigrationGuard.PLAN_ATTRIBUTE));
    Started s = start(dormant);
    s.put(put(Durability.SKIP_WAL));
    s.bulkLoad();
    s.guard().preBatchMutate(s.c(), batch(put(Durability.SKIP_WAL)));
    s.guard().postBatchMutateIndispensably(s.c(), null, true);
    s.guard().postBulkLoadHFile(s.c(), List.of(), null);
  }

  private static final TableName EVENTS = TableName.valueOf("ns:events");

  private static TableDescriptor dormantEvents() {
    return MigrationGuard.dormant(table("ns:events").build());
  }

  @Test
  void aCaptureOfTheTableTurnsItsGuardsOnWithoutAReopenAndItsEndTurnsThemOff() throws Exception {
    Started s = start(dormantEvents());
    Started other = start(MigrationGuard.dormant(table("ns:other").build()));
    s.put(put(Durability.SKIP_WAL));

    CaptureRegistry.started(EVENTS, "ns:events__g2");
    String message = refusal(() -> s.put(put(Durability.SKIP_WAL)));
    assertTrue(message.contains("a write with Durability.SKIP_WAL to ns:events is refused: "
        + "presplit is re-salting ns:events (into ns:events__g2)"), message);
    assertTrue(message.contains("presplitctl migration status ns:events"), message);
    assertTrue(refusal(s::bulkLoad).contains("a bulk load into ns:events is refused"));
    other.put(put(Durability.SKIP_WAL)); // another table's guard stays dormant
    other.bulkLoad();

    // A recovered queue's endpoint ships from the table too: one stopping leaves the other.
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    CaptureRegistry.stopped(EVENTS, "ns:events__g2");
    refusal(() -> s.put(put(Durability.SKIP_WAL)));
    CaptureRegistry.stopped(EVENTS, "ns:events__g2");
    s.put(put(Durability.SKIP_WAL));
    s.bulkLoad();
  }

  @Test
  void aRegionOpeningWhileACaptureRunsIsGuardedFromItsFirstWrite() throws Exception {
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    Started s = start(dormantEvents());
    refusal(() -> s.put(put(Durability.SKIP_WAL)));
    // A closed region's guard is forgotten: the capture's end reaches only the open ones.
    s.guard().stop(null);
    CaptureRegistry.stopped(EVENTS, "ns:events__g2");
    refusal(() -> s.put(put(Durability.SKIP_WAL)));
  }

  @Test
  void aPlansAttributeKeepsTheGuardOnWhateverTheCaptures() throws Exception {
    Started s = start(guardedSource());
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    CaptureRegistry.stopped(EVENTS, "ns:events__g2");
    assertTrue(refusal(() -> s.put(put(Durability.SKIP_WAL))).contains("migration plan " + PLAN));
  }

  private static Started startConnected(TableDescriptor opened, long readPoint) throws Exception {
    Started s = start(opened);
    s.guard().connect("0123456789abcdef0123456789abcdef", () -> readPoint);
    return s;
  }

  /** Sends a confirmation as GuardConfirmations does, and reads the state it is refused with. */
  private static GuardState confirm(Started s) {
    Put put = put(Durability.SKIP_WAL);
    put.setAttribute(MigrationGuard.CONFIRM_ATTRIBUTE, new byte[] {1});
    CheckAndMutate confirmation = CheckAndMutate.newBuilder(ROW).ifNotExists(F, F).build(put);
    String message = refusal(() -> s.guard().preCheckAndMutate(s.c(), confirmation, null));
    GuardState state = GuardState.parse("org.apache.hadoop.hbase.DoNotRetryIOException: "
        + message + "\n\tat org.apache.hadoop.hbase.regionserver.HRegion.checkAndMutate");
    assertNotNull(state, message);
    return state;
  }

  private static MiniBatchOperationInProgress<Mutation> batch(Mutation... ops) {
    OperationStatus[] statuses = new OperationStatus[ops.length];
    java.util.Arrays.fill(statuses, OperationStatus.NOT_RUN);
    return new MiniBatchOperationInProgress<>(ops, statuses, new WALEdit[ops.length], 0,
        ops.length, ops.length);
  }

  @Test
  void aConfirmationSaysWhetherTheGuardRefusesAndRecordsWhereTheRegionWas() throws Exception {
    Started s = startConnected(dormantEvents(), 42);
    GuardState before = confirm(s);
    assertNull(before.plan());
    assertFalse(before.settled());
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    GuardState after = confirm(s);
    assertEquals(new GuardState("0123456789abcdef0123456789abcdef", MigrationGuard.CAPTURED,
        false, 0, 42, ""), after);
    assertTrue(after.settled());
    // A bulk load's WAL marker at or below that read point came before the guard refused loads.
    assertTrue(CaptureRegistry.beforeTheGuard("0123456789abcdef0123456789abcdef", 42));
    assertFalse(CaptureRegistry.beforeTheGuard("0123456789abcdef0123456789abcdef", 43));
    assertTrue(refusal(() -> s.guard().preBatchMutate(s.c(),
        batch(put(Durability.USE_DEFAULT), put(Durability.SKIP_WAL)))).contains("SKIP_WAL"));
    s.guard().preBatchMutate(s.c(), batch(put(Durability.USE_DEFAULT)));
  }

  @Test
  void aSkipWalBatchADormantGuardLetThroughHoldsTheConfirmationUntilItEnds() throws Exception {
    Started s = startConnected(dormantEvents(), 9);
    // Let through while dormant: under the region's update lock, before its cells are written.
    s.guard().preBatchMutate(s.c(), batch(put(Durability.SKIP_WAL)));
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    GuardState held = confirm(s);
    assertEquals(MigrationGuard.CAPTURED, held.plan());
    assertEquals(1, held.inFlight());
    assertFalse(held.settled(), "not settled while the write is under way");
    assertFalse(CaptureRegistry.beforeTheGuard("0123456789abcdef0123456789abcdef", 1));
    // Another thread's batch ending releases nothing of this one's.
    Thread other = new Thread(() -> s.guard().postBatchMutateIndispensably(s.c(), null, true));
    other.start();
    other.join();
    assertEquals(1, confirm(s).inFlight());
    s.guard().postBatchMutateIndispensably(s.c(), null, false);
    assertTrue(confirm(s).settled());
  }

  @Test
  void aBulkLoadADormantGuardLetThroughHoldsTheConfirmationUntilItEnds() throws Exception {
    Started s = startConnected(dormantEvents(), 9);
    s.bulkLoad();
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    assertEquals(1, confirm(s).inFlight());
    s.guard().postBulkLoadHFile(s.c(), List.of(), null);
    assertTrue(confirm(s).settled());
  }

  @Test
  void aLoadThatNeverReachedItsPostHookIsReleasedByTheThreadsNextLoad() throws Exception {
    Started s = startConnected(dormantEvents(), 9);
    s.bulkLoad(); // a coprocessor after the guard refused it: no post hook
    s.bulkLoad();
    s.guard().postBulkLoadHFile(s.c(), List.of(), null);
    CaptureRegistry.started(EVENTS, "ns:events__g2");
    assertEquals(0, confirm(s).inFlight());
  }

  @Test
  void aStateTravelsThroughAnExceptionMessage() {
    GuardState state = new GuardState("abc", null, true, 2, -1, "a note\nover two lines");
    GuardState back = GuardState.parse("wrapped: " + state.toMessage());
    assertEquals(new GuardState("abc", null, true, 2, -1, "a note over two lines"), back);
    assertNull(GuardState.parse("presplit: a write with Durability.SKIP_WAL to t is refused"));
    assertNull(GuardState.parse(null));
  }

  @Test
  void loadedOutsideARegionItRefusesNothing() throws Exception {
    MigrationGuard guard = new MigrationGuard();
    guard.start((CoprocessorEnvironment<?>) Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {CoprocessorEnvironment.class},
        (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        }));
    guard.prePut(null, put(Durability.SKIP_WAL), new WALEdit());
    guard.preBulkLoadHFile(null, List.of());
  }

  @Test
  void aWriteThatPassesAllocatesNothing() throws Exception {
    Started s = start(guardedSource());
    Put put = put(Durability.USE_DEFAULT);
    WALEdit edit = new WALEdit();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 20_000; i++) {
      s.guard().prePut(s.c(), put, edit); // warm: the measurement sees the steady state
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 100_000; i++) {
      s.guard().prePut(s.c(), put, edit);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    // The measurement itself allocates a little; one object per write would be 1.6 MB at least.
    assertTrue(allocated < 16_384, allocated + " bytes allocated by 100,000 writes");
  }

  @Test
  void theDescriptorCarriesOneGuardOfOnePlanBesideTheOperatorsCoprocessors() throws Exception {
    TableDescriptor operators = table("ns:events").setCoprocessor(OPERATORS).build();
    assertNull(MigrationGuard.guardingPlan(operators));

    TableDescriptor guarded = MigrationGuard.guarded(operators, PLAN, false);
    assertEquals(PLAN, MigrationGuard.guardingPlan(guarded));
    assertTrue(guarded.hasCoprocessor(OPERATORS));
    CoprocessorDescriptor cp = guarded.getCoprocessorDescriptors().stream()
        .filter(d -> d.getClassName().equals(MigrationGuard.CLASS_NAME)).findFirst().get();
    assertEquals(MigrationGuard.PRIORITY, cp.getPriority());
    assertTrue(cp.getPriority() < guarded.getCoprocessorDescriptors().stream()
        .filter(d -> d.getClassName().equals(OPERATORS)).findFirst().get().getPriority(),
        "the guard runs first");

    TableDescriptor again = MigrationGuard.guarded(guarded, "another", false);
    assertEquals("another", MigrationGuard.guardingPlan(again), "another plan's guard replaced");
    assertEquals(2, again.getCoprocessorDescriptors().size(), "the guard once");

    TableDescriptor unguarded = MigrationGuard.dormant(MigrationGuard.guarded(operators, PLAN,
        true));
    assertEquals("", MigrationGuard.guardingPlan(unguarded), "dormant: attached, no plan");
    assertEquals(1, unguarded.getCoprocessorDescriptors().stream()
        .filter(d -> d.getClassName().equals(MigrationGuard.CLASS_NAME)).count());
    assertNull(unguarded.getValue(MigrationGuard.PLAN_ATTRIBUTE));
    assertNull(unguarded.getValue(MigrationGuard.COPY_LOADS_ATTRIBUTE));
    assertTrue(unguarded.hasCoprocessor(OPERATORS), "the operator's coprocessor stays");
    assertThrows(IllegalArgumentException.class,
        () -> MigrationGuard.guarded(operators, "", false));
  }

  @Test
  void theDocumentNameIsTheGenerationsWithoutItsSuffix() {
    assertEquals("ns:events", MigrationGuard.logicalName("ns:events__g2"));
    assertEquals("ns:events", MigrationGuard.logicalName("ns:events__g12"));
    assertEquals("ns:events", MigrationGuard.logicalName("ns:events"));
    assertEquals("events__gx", MigrationGuard.logicalName("events__gx"));
  }
}
