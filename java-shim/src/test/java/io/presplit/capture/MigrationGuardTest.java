package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The guard's decisions, on a region of a table whose descriptor a test chooses. */
class MigrationGuardTest {
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
  void withoutItsPlanAttributeTheGuardStillRefusesSayingThePlanIsUnknown() throws Exception {
    TableDescriptor byHand = TableDescriptorBuilder.newBuilder(guardedSource())
        .removeValue(MigrationGuard.PLAN_ATTRIBUTE).build();
    assertEquals("", MigrationGuard.guardingPlan(byHand));
    Started s = start(byHand);
    assertTrue(refusal(() -> s.put(put(Durability.SKIP_WAL))).contains("migration plan unknown"));
    assertTrue(refusal(s::bulkLoad).contains("migration plan unknown"));
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

    TableDescriptor unguarded = MigrationGuard.unguarded(MigrationGuard.guarded(operators, PLAN,
        true));
    assertNull(MigrationGuard.guardingPlan(unguarded));
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
