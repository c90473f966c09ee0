package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SDK's side of "switch after catch-up, with a bounded pause": while the status says writes
 * are paused ({@code migration.writes_paused_until_ms}) writes wait for the status that ends the
 * pause, bounded by its deadline; a write refused by a read-only generation is sent once to the
 * generation the next status names, or fails clearly. Statuses go through a real ZooKeeper server
 * in this JVM (the SDK's own watches deliver them); HBase is a fake that records what each
 * physical table took and refuses writes as a READONLY table's RegionServer does.
 */
class WritePauseTest {

  static final String DOCUMENT = PresplitTablesTest.DOCUMENT;
  static final TableName G1 = TableName.valueOf("default:t");
  static final TableName G2 = TableName.valueOf("default:t__g2");
  static final String STATUS = "/presplit/status/default:t";
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");

  /** Generous bound for anything that should happen "at once" on a busy build machine. */
  static final long PROMPTLY_MS = 10_000;

  Path dir;
  ZooKeeperServer server;
  ServerCnxnFactory factory;
  ZooKeeper raw;
  FakeHBase hbase;
  PresplitTables tables;
  ExecutorService writers;

  @BeforeEach
  void start() throws Exception {
    dir = Files.createTempDirectory("presplit-zk");
    File data = dir.toFile();
    server = new ZooKeeperServer(data, data, 2000);
    factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 16);
    factory.startup(server);
    CountDownLatch connected = new CountDownLatch(1);
    raw = new ZooKeeper(quorum(), 30_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    assertTrue(connected.await(30, TimeUnit.SECONDS), "no ZooKeeper session");
    for (String path : new String[] {"/presplit", "/presplit/tables", "/presplit/status"}) {
      raw.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    set("/presplit/tables/default:t", DOCUMENT);
    hbase = new FakeHBase();
    writers = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stop() throws Exception {
    writers.shutdownNow();
    if (tables != null) {
      tables.close();
    }
    if (raw != null) {
      raw.close();
    }
    if (factory != null) {
      factory.shutdown();
    }
    if (server != null) {
      server.shutdown();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
  }

  String quorum() {
    return "127.0.0.1:" + factory.getLocalPort();
  }

  void set(String path, String text) throws Exception {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    try {
      raw.setData(path, data, -1);
    } catch (KeeperException.NoNodeException e) {
      raw.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  /** The status of a generation, with a migration object when {@code migration} is not null. */
  static String status(TableName physical, int generation, int buckets, String migration) {
    String plain = PresplitTablesTest.status(physical.getNameAsString(), generation, buckets);
    if (migration == null) {
      return plain;
    }
    return plain.substring(0, plain.length() - 1) + ", \"migration\": " + migration + "}";
  }

  /** The status naming generation 1 (4 buckets) while the daemon drains it until {@code until}. */
  static String pausedOnG1(long until) {
    return status(G1, 1, 4, "{\"phase\": \"switching\", \"writes_paused_until_ms\": " + until
        + "}");
  }

  /** Generation 1 before the pause: a migration copies to generation 2. */
  static String migratingOnG1() {
    return status(G1, 1, 4, "{\"phase\": \"verifying\"}");
  }

  /** The switched status: generation 2 (16 buckets), the pause removed. */
  static String switchedToG2() {
    return status(G2, 2, 16, "{\"phase\": \"catching_up\", \"previous\": {\"physical_table\": "
        + "\"default:t\", \"generation\": 1, \"layout\": {\"salt\": {\"buckets\": 4, "
        + "\"encoding\": \"decimal\", \"width\": 1, \"hash\": \"murmur3\", \"from\": \"group\"},"
        + " \"group\": {\"length\": 4}}}}");
  }

  SaltedTable open(long slackMs, long refusalWaitMs) throws IOException {
    PresplitTables.Options options = new PresplitTables.Options().resyncMs(0);
    options.writePauseSlackMs = slackMs;
    options.readOnlyRefusalWaitMs = refusalWaitMs;
    tables = PresplitTables.open(hbase.connection(), quorum(), "/presplit", options);
    return tables.table("t");
  }

  static Put put(String key) {
    return new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes("v"));
  }

  /** Waits for a condition, polling, until a deadline; fails the test when it is not met. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROMPTLY_MS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  static <T> T result(Future<T> f) throws Exception {
    try {
      return f.get(PROMPTLY_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception) {
        throw (Exception) e.getCause();
      }
      throw e;
    }
  }

  Future<Void> write(SaltedTable t, Put p) {
    return writers.submit(() -> {
      t.put(p);
      return null;
    });
  }

  @Test
  void aWriteDuringAPauseWaitsAndLandsOnTheNewGeneration() throws Exception {
    long until = System.currentTimeMillis() + 60_000;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(2_000, 5_000);
    assertEquals(until, t.snapshot().writesPausedUntilMs());
    assertTrue(t.snapshot().toString().contains("writes paused until " + until),
        t.snapshot().toString());

    Future<Void> single = write(t, put("abcd-1"));
    Future<Void> batch = writers.submit(() -> {
      t.put(List.of(put("abcd-2"), put("wxyz-3")));
      return null;
    });
    Future<Void> delete = writers.submit(() -> {
      t.delete(Bytes.toBytes("abcd-4"));
      return null;
    });
    await("three writes held by the pause", () -> t.handle().writesHeld() == 3);
    // Reads are not held, and nothing was sent: the old generation is read-only.
    assertEquals(0, hbase.attempts(G1));
    assertFalse(single.isDone() || batch.isDone() || delete.isDone());

    set(STATUS, switchedToG2());
    result(single);
    result(batch);
    result(delete);
    assertTrue(System.currentTimeMillis() < until, "released by the switch, not the deadline");
    assertEquals(0, hbase.attempts(G1));
    assertEquals(4, hbase.applied(G2).size());
    // Salted with generation 2's layout (16 buckets, two salt characters).
    KeyLayout g2 = t.snapshot().layout();
    assertEquals(16, g2.buckets());
    for (Mutation m : hbase.applied(G2)) {
      String row = Bytes.toString(m.getRow());
      assertTrue(row.endsWith("-1") || row.endsWith("-2") || row.endsWith("-3")
          || row.endsWith("-4"), row);
      assertEquals(g2.saltWidth() + 6, row.length(), row);
    }
    assertTrue(hbase.applied(G2).stream().anyMatch(m -> m instanceof Delete));
    assertEquals(0, t.handle().writesHeld());
  }

  @Test
  void aSwitchEndsThePauseOfTheDrainedTable() throws Exception {
    // A status naming the new generation ends the pause of the old one, whatever else it says.
    long until = System.currentTimeMillis() + 60_000;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(2_000, 5_000);
    Future<Void> w = write(t, put("abcd-1"));
    await("the write held", () -> t.handle().writesHeld() == 1);
    set(STATUS, status(G2, 2, 16, "{\"phase\": \"catching_up\", \"writes_paused_until_ms\": "
        + until + "}"));
    result(w);
    assertEquals(1, hbase.applied(G2).size());
    assertEquals(0, hbase.attempts(G1));
  }

  @Test
  void aPauseEndedWithoutASwitchLetsTheWriteGoToTheOldGeneration() throws Exception {
    long until = System.currentTimeMillis() + 60_000;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(2_000, 5_000);
    Future<Void> w = write(t, put("abcd-1"));
    await("the write held", () -> t.handle().writesHeld() == 1);
    set(STATUS, migratingOnG1()); // the daemon gave up: the pause is removed, still generation 1
    result(w);
    assertEquals(1, hbase.applied(G1).size());
    assertEquals(0, hbase.attempts(G2));
    assertEquals(0, t.snapshot().writesPausedUntilMs());
  }

  @Test
  void aPauseWhoseDeadlinePassesReleasesTheWriteEvenWithZooKeeperGone() throws Exception {
    long slack = 300;
    long until = System.currentTimeMillis() + 1_000;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(slack, 5_000);
    assertEquals(until, t.snapshot().writesPausedUntilMs());
    // No status will ever end the pause: ZooKeeper is gone.
    raw.close();
    raw = null;
    factory.shutdown();
    factory = null;

    Future<Void> w = write(t, put("abcd-1"));
    result(w);
    long done = System.currentTimeMillis();
    assertTrue(done >= until + slack, "held until the deadline plus the slack: " + (done - until));
    assertTrue(done < until + slack + PROMPTLY_MS, "not held much past it: " + (done - until));
    assertEquals(1, hbase.applied(G1).size(), "went to the generation the status names");
    assertEquals(0, t.handle().writesHeld());

    // After the deadline writes are not held at all, though the snapshot still names the pause.
    long before = System.currentTimeMillis();
    t.put(put("abcd-2"));
    assertTrue(System.currentTimeMillis() - before < PROMPTLY_MS);
    assertEquals(2, hbase.applied(G1).size());
  }

  @Test
  void aHeldWriteCanBeInterrupted() throws Exception {
    set(STATUS, pausedOnG1(System.currentTimeMillis() + 60_000));
    SaltedTable t = open(2_000, 5_000);
    Thread[] writer = new Thread[1];
    Future<Void> w = writers.submit(() -> {
      writer[0] = Thread.currentThread();
      t.put(put("abcd-1"));
      return null;
    });
    await("the write held", () -> t.handle().writesHeld() == 1);
    writer[0].interrupt();
    assertInstanceOf(InterruptedIOException.class,
        assertThrows(Exception.class, () -> result(w)));
    assertEquals(0, hbase.attempts(G1));
    assertEquals(0, t.handle().writesHeld());
  }

  @Test
  void aReadOnlyRefusalIsSentOnceMoreAfterTheSwitch() throws Exception {
    // The SDK has not seen the pause yet: the write reaches generation 1, read-only already.
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    hbase.readOnly(G1);
    Future<Void> single = write(t, put("abcd-1"));
    await("the refused write waiting", () -> t.handle().writesHeld() == 1);
    assertEquals(1, hbase.attempts(G1));
    set(STATUS, pausedOnG1(System.currentTimeMillis() + 60_000)); // the pause, late: still waits
    await("the pause seen", () -> t.snapshot().writesPausedUntilMs() > 0);
    assertFalse(single.isDone());
    set(STATUS, switchedToG2());
    result(single);
    assertEquals(1, hbase.applied(G2).size());
    assertEquals(0, hbase.applied(G1).size());
  }

  @Test
  void aWriteToAGenerationDroppedMeanwhileGoesWhereTheStatusNowPoints() throws Exception {
    // A rollback dropped the generation this writer still used (read-only, drained, dropped):
    // the client finds no table before it sends anything, so the write goes to the generation
    // the status names now.
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    hbase.failWith(G1, () -> new TableNotFoundException(G1));
    Future<Void> single = write(t, put("abcd-2"));
    await("the refused write waiting", () -> t.handle().writesHeld() == 1);
    set(STATUS, switchedToG2());
    result(single);
    assertEquals(1, hbase.applied(G2).size());
    assertEquals(0, hbase.applied(G1).size());
  }

  @Test
  void aTableNotFoundWhereTheStatusStillPointsIsThrown() throws Exception {
    set(STATUS, status(G1, 1, 4, null)); // no migration: the table is simply gone
    SaltedTable t = open(2_000, 60_000);
    hbase.failWith(G1, () -> new TableNotFoundException(G1));
    assertThrows(TableNotFoundException.class, () -> result(write(t, put("abcd-3"))));
    assertEquals(1, hbase.attempts(G1));
    assertEquals(0, hbase.applied(G1).size());
  }

  @Test
  void onlyTheRefusedActionsOfABatchAreSentAgain() throws Exception {
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    // Regions of generation 1 being reopened read-only one after the other: the rows in bucket
    // 0 are refused, the others applied.
    KeyLayout g1 = t.snapshot().layout();
    hbase.refuse(G1, row -> row[0] == '0');
    List<Put> puts = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < 40; i++) {
      Put p = put(String.format("k%03d-x", i));
      puts.add(p);
      if (g1.encode(p.getRow())[0] == '0') {
        refused++;
      }
    }
    assertTrue(refused > 0 && refused < 40, "the test needs both kinds: " + refused);
    int refusedRows = refused;
    Future<Void> w = writers.submit(() -> {
      t.put(puts);
      return null;
    });
    await("the refused batch waiting", () -> t.handle().writesHeld() == 1);
    set(STATUS, switchedToG2());
    result(w);
    assertEquals(40 - refusedRows, hbase.applied(G1).size());
    assertEquals(refusedRows, hbase.applied(G2).size(), "only the refused actions, once");
  }

  @Test
  void aRefusalWithoutASwitchInTimeFailsClearly() throws Exception {
    // The pause's deadline passes with the old generation still read-only and no status.
    long slack = 200;
    long until = System.currentTimeMillis() + 500;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(slack, 60_000);
    hbase.readOnly(G1);
    SwitchInProgressException e =
        assertThrows(SwitchInProgressException.class, () -> t.put(put("abcd-1")));
    long done = System.currentTimeMillis();
    assertTrue(done < until + slack + PROMPTLY_MS, "bounded by the pause: " + (done - until));
    assertTrue(e.getMessage().contains("table default:t"), e.getMessage());
    assertTrue(e.getMessage().contains("default:t is read-only"), e.getMessage());
    assertTrue(e.getMessage().contains("re-salt switch"), e.getMessage());
    assertTrue(e.getMessage().contains("retry it later"), e.getMessage());
    assertEquals("default:t", e.refusingTable());
    assertInstanceOf(DoNotRetryIOException.class, e.getCause());
    assertEquals(1, hbase.attempts(G1), "sent once, not retried on the same table");
    assertInstanceOf(TableNotReadyException.class, e);

    // No pause seen at all: waits readOnlyRefusalWaitMs for a status, then fails the same way.
    set(STATUS, migratingOnG1());
    await("the pause removed", () -> t.snapshot().writesPausedUntilMs() == 0);
    tables.close();
    SaltedTable fresh = open(slack, 300);
    long before = System.currentTimeMillis();
    assertThrows(SwitchInProgressException.class, () -> fresh.put(List.of(put("abcd-2"))));
    long waited = System.currentTimeMillis() - before;
    assertTrue(waited >= 300 && waited < PROMPTLY_MS, "waited " + waited);
    assertEquals(0, hbase.applied(G1).size());
  }

  @Test
  void aPauseThatEndsWithoutASwitchAfterARefusalFailsAtOnce() throws Exception {
    set(STATUS, pausedOnG1(System.currentTimeMillis() + 60_000));
    SaltedTable t = open(2_000, 60_000);
    hbase.readOnly(G1);
    // The daemon gives up: it removes the pause from the status, then makes generation 1
    // writable again. A write held by the pause goes to generation 1 at once and may find it
    // still read-only: it fails at once (retry later), no status will explain more.
    Future<Void> w = writers.submit(() -> {
      t.put(put("abcd-1"));
      return null;
    });
    await("the write held by the pause", () -> t.handle().writesHeld() == 1);
    set(STATUS, migratingOnG1()); // given up: released to generation 1, still read-only
    SwitchInProgressException e =
        assertInstanceOf(SwitchInProgressException.class, assertThrows(Exception.class,
            () -> result(w)));
    assertTrue(e.getMessage().contains("migration phase verifying"), e.getMessage());
    assertEquals(1, hbase.attempts(G1));
  }

  @Test
  void onlyTheReadOnlyRefusalIsSentAgain() throws Exception {
    // Any other failure may have come after the write was applied (a timeout), or will not get
    // better on another generation: HBase's exception as it is, nothing sent again, even with
    // the status already naming the next generation.
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    hbase.failWith(G1, () -> new DoNotRetryIOException(
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: family g"));
    DoNotRetryIOException other =
        assertThrows(DoNotRetryIOException.class, () -> t.put(put("abcd-1")));
    assertTrue(other.getMessage().contains("NoSuchColumnFamilyException"));
    hbase.failWith(G1, () -> new IOException("Call to rs1 failed on local exception: timeout"));
    assertThrows(IOException.class, () -> t.put(List.of(put("abcd-2"), put("abcd-3"))));
    assertEquals(2, hbase.attempts(G1));
    assertEquals(0, hbase.attempts(G2));
    assertEquals(0, t.handle().writesHeld());

    // A batch whose failures mix the refusal with something else: not sent again either.
    hbase.failWith(G1, null);
    hbase.refuse(G1, row -> true);
    hbase.alsoFail = new IOException("RegionTooBusyException");
    assertThrows(RetriesExhaustedWithDetailsException.class,
        () -> t.put(List.of(put("abcd-4"), put("wxyz-5"))));
    assertEquals(0, hbase.attempts(G2));

    // A table made read-only outside presplit (no migration in its status): HBase's refusal at
    // once, with no wait.
    hbase.alsoFail = null;
    set(STATUS, status(G1, 1, 4, null));
    await("the migration gone from the status", () -> t.snapshot().migrationPhase() == null);
    long before = System.currentTimeMillis();
    DoNotRetryIOException refusal =
        assertThrows(DoNotRetryIOException.class, () -> t.put(put("abcd-6")));
    assertSame(DoNotRetryIOException.class, refusal.getClass());
    assertTrue(System.currentTimeMillis() - before < 30_000);
    assertEquals(0, t.handle().writesHeld());
  }

  @Test
  void theRefusalIsRecognisedAsHBaseReportsIt() {
    // Single operations: the client rebuilds the server's DoNotRetryIOException, its message the
    // server's stringified exception.
    assertTrue(ReadOnlyRefusal.is(FakeHBase.readOnlyRefusal()));
    assertTrue(ReadOnlyRefusal.is(new IOException("wrapped", FakeHBase.readOnlyRefusal())));
    assertTrue(ReadOnlyRefusal.is(new org.apache.hadoop.ipc.RemoteException(
        DoNotRetryIOException.class.getName(), "region is read only")));
    assertFalse(ReadOnlyRefusal.is(new org.apache.hadoop.ipc.RemoteException(
        IOException.class.getName(), "region is read only")));
    assertFalse(ReadOnlyRefusal.is(new IOException("region is read only")));
    assertFalse(ReadOnlyRefusal.is(new DoNotRetryIOException("region is closing")));
    assertFalse(ReadOnlyRefusal.is(new RetriesExhaustedWithDetailsException(
        Collections.emptyList(), Collections.emptyList(), Collections.emptyList())));
    Put a = put("a");
    Put b = put("b");
    RetriesExhaustedWithDetailsException both = new RetriesExhaustedWithDetailsException(
        List.of(FakeHBase.readOnlyRefusal(), FakeHBase.readOnlyRefusal()), List.of(b, a),
        List.of("rs1:16020", "rs2:16020"));
    assertEquals(List.of(0, 1), ReadOnlyRefusal.refusedActions(both, List.of(a, b)));
    assertNull(ReadOnlyRefusal.refusedActions(both, List.of(put("a"), b)),
        "an action that is not one of those sent is not guessed");
  }

  // ---- read-modify-writes: the same salting, pause and refusal rules as put ----------------

  static Increment increment(String key, long amount) {
    return new Increment(Bytes.toBytes(key)).addColumn(F, Q, amount);
  }

  /** Sets a counter only if it does not exist yet: a compare-and-set. */
  static CheckAndMutate setIfAbsent(String key) {
    return CheckAndMutate.newBuilder(Bytes.toBytes(key)).ifNotExists(F, Q).build(put(key));
  }

  @Test
  void readModifyWritesAreSaltedWholeAndAnswerWithLogicalKeys() throws Exception {
    set(STATUS, status(G1, 1, 4, null));
    SaltedTable t = open(2_000, 5_000);
    KeyLayout g1 = t.snapshot().layout();

    Increment logical = increment("abcd-1", 5).setTimeRange(10, 20).setReturnResults(true);
    logical.setDurability(Durability.SKIP_WAL).setAttribute("app", Bytes.toBytes("x"));
    Result counted = t.increment(logical);
    assertEquals("abcd-1", Bytes.toString(counted.getRow()), "the answer's row is logical");
    assertEquals(5, Bytes.toLong(counted.getValue(F, Q)));
    Increment sent = (Increment) hbase.applied(G1).get(0);
    assertArrayEquals(g1.encode(Bytes.toBytes("abcd-1")), sent.getRow());
    assertEquals(5L, sent.getFamilyMapOfLongs().get(F).get(Q));
    assertEquals(10, sent.getTimeRange().getMin());
    assertEquals(20, sent.getTimeRange().getMax());
    assertEquals(Durability.SKIP_WAL, sent.getDurability());
    assertArrayEquals(Bytes.toBytes("x"), sent.getAttribute("app"));

    Result appended = t.append(new Append(Bytes.toBytes("wxyz-2")).addColumn(F, Q,
        Bytes.toBytes("tail")));
    assertEquals("wxyz-2", Bytes.toString(appended.getRow()));
    assertArrayEquals(g1.encode(Bytes.toBytes("wxyz-2")), hbase.applied(G1).get(1).getRow());

    // A condition on a column with a time range, then a Put and a Delete of the same row: all
    // on the one salted row, the condition as it was.
    byte[] row = Bytes.toBytes("abcd-3");
    CheckAndMutateResult swapped = t.checkAndMutate(CheckAndMutate.newBuilder(row)
        .ifEquals(F, Q, Bytes.toBytes("old")).timeRange(TimeRange.between(1, 99))
        .build(RowMutations.of(List.of(new Put(row).addColumn(F, Q, Bytes.toBytes("new")),
            new Delete(row).addColumns(F, Bytes.toBytes("r"))))));
    assertTrue(swapped.isSuccess());
    CheckAndMutate checked = hbase.checked(G1).get(0);
    byte[] saltedRow = g1.encode(row);
    assertArrayEquals(saltedRow, checked.getRow());
    assertArrayEquals(F, checked.getFamily());
    assertArrayEquals(Q, checked.getQualifier());
    assertEquals(CompareOperator.EQUAL, checked.getCompareOp());
    assertArrayEquals(Bytes.toBytes("old"), checked.getValue());
    assertEquals(1, checked.getTimeRange().getMin());
    assertEquals(99, checked.getTimeRange().getMax());
    List<Mutation> both = ((RowMutations) checked.getAction()).getMutations();
    assertInstanceOf(Put.class, both.get(0));
    assertInstanceOf(Delete.class, both.get(1));
    for (Mutation m : both) {
      assertArrayEquals(saltedRow, m.getRow());
    }

    // A filter as the condition, an Increment as the action: its answer's row is logical too.
    Filter isNew = new SingleColumnValueFilter(F, Q, CompareOperator.EQUAL, Bytes.toBytes("new"));
    CheckAndMutateResult bumped = t.checkAndMutate(CheckAndMutate.newBuilder(row)
        .ifMatches(isNew).build(new Increment(row).addColumn(F, Bytes.toBytes("n"), 2)));
    assertSame(isNew, hbase.checked(G1).get(1).getFilter());
    assertArrayEquals(saltedRow, hbase.checked(G1).get(1).getAction().getRow());
    assertEquals("abcd-3", Bytes.toString(bumped.getResult().getRow()));
    assertEquals(2, Bytes.toLong(bumped.getResult().getValue(F, Bytes.toBytes("n"))));
  }

  @Test
  void readModifyWritesDuringAPauseWaitAndLandOnTheNewGeneration() throws Exception {
    long until = System.currentTimeMillis() + 60_000;
    set(STATUS, pausedOnG1(until));
    SaltedTable t = open(2_000, 5_000);
    Future<Result> counted = writers.submit(() -> t.increment(increment("abcd-1", 1)));
    Future<CheckAndMutateResult> swapped =
        writers.submit(() -> t.checkAndMutate(setIfAbsent("abcd-2")));
    Future<Result> appended = writers.submit(() -> t.append(new Append(Bytes.toBytes("wxyz-3"))
        .addColumn(F, Q, Bytes.toBytes("x"))));
    await("three read-modify-writes held by the pause", () -> t.handle().writesHeld() == 3);
    assertEquals(0, hbase.attempts(G1));
    assertFalse(counted.isDone() || swapped.isDone() || appended.isDone());

    set(STATUS, switchedToG2());
    assertEquals("abcd-1", Bytes.toString(result(counted).getRow()));
    assertTrue(result(swapped).isSuccess());
    assertEquals("wxyz-3", Bytes.toString(result(appended).getRow()));
    assertTrue(System.currentTimeMillis() < until, "released by the switch, not the deadline");
    assertEquals(0, hbase.attempts(G1));
    assertEquals(3, hbase.attempts(G2), "each sent once");
    KeyLayout g2 = t.snapshot().layout();
    assertEquals(16, g2.buckets());
    for (Mutation m : hbase.applied(G2)) {
      String logical = Bytes.toString(m.getRow()).substring(g2.saltWidth());
      assertArrayEquals(g2.encode(Bytes.toBytes(logical)), m.getRow(), "salted for generation 2");
    }
    assertArrayEquals(g2.encode(Bytes.toBytes("abcd-2")), hbase.checked(G2).get(0).getRow());
    assertEquals(0, t.handle().writesHeld());
  }

  @Test
  void aRefusedReadModifyWriteIsSentOnceMoreAfterTheSwitch() throws Exception {
    // Refused by the read-only old generation before anything was applied: safe to send again,
    // increment included.
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    hbase.readOnly(G1);
    Future<Result> counted = writers.submit(() -> t.increment(increment("abcd-1", 7)));
    Future<CheckAndMutateResult> swapped =
        writers.submit(() -> t.checkAndMutate(setIfAbsent("abcd-2")));
    await("the refused writes waiting", () -> t.handle().writesHeld() == 2);
    assertEquals(2, hbase.attempts(G1));
    assertEquals(0, hbase.applied(G1).size());
    set(STATUS, switchedToG2());
    assertEquals(7, Bytes.toLong(result(counted).getValue(F, Q)));
    assertTrue(result(swapped).isSuccess());
    assertEquals(2, hbase.attempts(G2), "each sent once more, once");
    assertEquals(2, hbase.applied(G2).size());
    assertEquals(1, hbase.checked(G2).size());
    assertEquals(2, hbase.attempts(G1), "not sent to the refusing table again");
  }

  @Test
  void aReadModifyWriteWhoseOutcomeIsUnknownIsNeverSentAgain() throws Exception {
    // A timeout may come after the increment was applied: sending it to the next generation
    // would count it twice. The switch happens while it is in flight; it is not sent there.
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 60_000);
    hbase.failWith(G1, () -> {
      try {
        set(STATUS, switchedToG2());
        await("the switch seen while the increment is in flight",
            () -> t.snapshot().generation() == 2);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return new IOException("Call to rs1:16020 failed on local exception: "
          + "org.apache.hadoop.hbase.ipc.CallTimeoutException: timeout 60000 ms");
    });
    IOException timeout =
        assertThrows(IOException.class, () -> t.increment(increment("abcd-1", 1)));
    assertTrue(timeout.getMessage().contains("CallTimeoutException"), timeout.getMessage());
    assertEquals(1, hbase.attempts(G1));
    assertEquals(0, hbase.attempts(G2));

    // Any other refusal, on the generation the status names: HBase's, as it is, sent once.
    hbase.failWith(G2, () -> new DoNotRetryIOException(
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: family g"));
    assertThrows(DoNotRetryIOException.class, () -> t.checkAndMutate(setIfAbsent("abcd-2")));
    assertThrows(DoNotRetryIOException.class,
        () -> t.append(new Append(Bytes.toBytes("abcd-3")).addColumn(F, Q, Bytes.toBytes("x"))));
    assertEquals(2, hbase.attempts(G2));
    assertEquals(1, hbase.attempts(G1));
    assertEquals(0, hbase.applied(G1).size() + hbase.applied(G2).size());
    assertEquals(0, t.handle().writesHeld());
  }

  @Test
  void aCheckAndMutateMixingRowsIsRefusedAtOnceAndNothingIsWritten() throws Exception {
    // HBase's builders check the rows when they are called; a row array changed afterwards (a
    // Put built with rowIsImmutable) is not seen by them. Refused before the pause holds it.
    set(STATUS, pausedOnG1(System.currentTimeMillis() + 60_000));
    SaltedTable t = open(2_000, 5_000);
    byte[] changing = Bytes.toBytes("abcd-1");
    Put moved = new Put(changing, true).addColumn(F, Q, Bytes.toBytes("v"));
    CheckAndMutate mixed = CheckAndMutate.newBuilder(Bytes.toBytes("abcd-1")).ifNotExists(F, Q)
        .build(RowMutations.of(List.of(put("abcd-1"), moved)));
    changing[5] = '2';
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> result(writers.submit(() -> t.checkAndMutate(mixed))));
    assertTrue(e.getMessage().contains("table default:t"), e.getMessage());
    assertTrue(e.getMessage().contains("row 'abcd-1' holds a Put of row 'abcd-2'"),
        e.getMessage());
    assertTrue(e.getMessage().contains("nothing was sent"), e.getMessage());

    byte[] lone = Bytes.toBytes("abcd-3");
    CheckAndMutate single = CheckAndMutate.newBuilder(Bytes.toBytes("abcd-3"))
        .ifNotExists(F, Q).build(new Put(lone, true).addColumn(F, Q, Bytes.toBytes("v")));
    lone[0] = 'w';
    assertThrows(IllegalArgumentException.class,
        () -> result(writers.submit(() -> t.checkAndMutate(single))));
    assertEquals(0, t.handle().writesHeld());
    assertEquals(0, hbase.attempts(G1) + hbase.attempts(G2));
  }

  @Test
  void aPauseThatIsNotANumberIsRefusedAndTheLastSnapshotKept() throws Exception {
    set(STATUS, migratingOnG1());
    SaltedTable t = open(2_000, 5_000);
    TableSnapshot good = t.snapshot();
    assertEquals("verifying", good.migrationPhase());
    set(STATUS, status(G1, 1, 4, "{\"phase\": \"switching\", \"writes_paused_until_ms\": "
        + "\"soon\"}"));
    tables.refresh();
    assertSame(good, t.snapshot());
    set(STATUS, status(G1, 1, 4, "{\"phase\": \"switching\", \"writes_paused_until_ms\": "
        + "null}"));
    tables.refresh();
    assertEquals(0, t.snapshot().writesPausedUntilMs());
    assertEquals("switching", t.snapshot().migrationPhase());
  }

  @Test
  void aCarriedOverSnapshotKeepsThePause() {
    TableSnapshot ready = TableSnapshotTest.ready();
    TableSnapshot error = TableSnapshotTest.status("error", TableSnapshotTest.T, 1,
        TableSnapshotTest.TEN, true).withMigration(
            org.apache.hbase.thirdparty.com.google.gson.JsonParser.parseString(
                "{\"phase\": \"switching\", \"writes_paused_until_ms\": 1234}")
                .getAsJsonObject());
    TableSnapshot kept = TableSnapshot.following(ready, error);
    assertTrue(kept.isCarriedOver());
    assertEquals(1234, kept.writesPausedUntilMs());
    assertTrue(kept.writesPausedAt(1233));
    assertFalse(kept.writesPausedAt(1234));
    assertTrue(kept.isMigrating());
    assertFalse(ready.isMigrating());
  }

  /**
   * HBase as the SDK's writes see it: one fake Table per physical table recording the mutations
   * it applied, refusing them as a READONLY table's RegionServer does (the DoNotRetryIOException
   * of HRegion.checkReadOnly; for a batch, a RetriesExhaustedWithDetailsException naming the
   * refused actions, the others applied), or failing with another exception. An increment or an
   * append answers with its own cells; a checkAndMutate's condition always holds, and it answers
   * with its action's cells.
   */
  static final class FakeHBase {
    private final Map<TableName, List<Mutation>> applied = new ConcurrentHashMap<>();
    private final Map<TableName, List<CheckAndMutate>> checked = new ConcurrentHashMap<>();
    private final Map<TableName, Integer> attempts = new ConcurrentHashMap<>();
    private final Map<TableName, Predicate<byte[]>> refusing = new ConcurrentHashMap<>();
    private final Map<TableName, java.util.function.Supplier<IOException>> failing =
        new ConcurrentHashMap<>();
    volatile IOException alsoFail;

    static DoNotRetryIOException readOnlyRefusal() {
      return new DoNotRetryIOException("org.apache.hadoop.hbase.DoNotRetryIOException: region is"
          + " read only\n\tat org.apache.hadoop.hbase.regionserver.HRegion.checkReadOnly(...)");
    }

    void readOnly(TableName table) {
      refuse(table, row -> true);
    }

    void refuse(TableName table, Predicate<byte[]> rows) {
      refusing.put(table, rows);
    }

    void failWith(TableName table, java.util.function.Supplier<IOException> failure) {
      if (failure == null) {
        failing.remove(table);
      } else {
        failing.put(table, failure);
      }
    }

    List<Mutation> applied(TableName table) {
      return applied.getOrDefault(table, List.of());
    }

    /** The checkAndMutates a table applied (their mutations are in {@link #applied} too). */
    List<CheckAndMutate> checked(TableName table) {
      return checked.getOrDefault(table, List.of());
    }

    int attempts(TableName table) {
      return attempts.getOrDefault(table, 0);
    }

    Connection connection() {
      return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Connection.class}, (proxy, method, args) -> {
            switch (method.getName()) {
              case "getTable":
                return table((TableName) args[0]);
              case "getConfiguration":
                return new Configuration(false);
              case "isClosed":
              case "isAborted":
                return false;
              case "close":
                return null;
              case "toString":
                return "FakeHBase";
              default:
                throw new UnsupportedOperationException(method.getName());
            }
          });
    }

    private Table table(TableName name) {
      return (Table) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Table.class}, (proxy, method, args) -> {
            switch (method.getName()) {
              case "put":
              case "delete":
                if (args[0] instanceof List) {
                  @SuppressWarnings("unchecked")
                  List<Mutation> batch = (List<Mutation>) args[0];
                  batch(name, batch);
                } else {
                  one(name, (Mutation) args[0], List.of((Mutation) args[0]));
                }
                return null;
              case "increment":
              case "append":
                one(name, (Mutation) args[0], List.of((Mutation) args[0]));
                return answer((Mutation) args[0]);
              case "checkAndMutate":
                return checkAndMutate(name, (CheckAndMutate) args[0]);
              case "getName":
                return name;
              case "close":
                return null;
              case "toString":
                return "FakeTable " + name;
              default:
                throw new UnsupportedOperationException(method.getName());
            }
          });
    }

    /** One operation on one row, applying {@code mutations} unless it fails or is refused. */
    private synchronized void one(TableName name, Row operation, List<Mutation> mutations)
        throws IOException {
      attempts.merge(name, 1, Integer::sum);
      java.util.function.Supplier<IOException> failure = failing.get(name);
      if (failure != null) {
        throw failure.get();
      }
      Predicate<byte[]> refused = refusing.get(name);
      if (refused != null && refused.test(operation.getRow())) {
        throw readOnlyRefusal();
      }
      applied.computeIfAbsent(name, n -> Collections.synchronizedList(new ArrayList<>()))
          .addAll(mutations);
    }

    private CheckAndMutateResult checkAndMutate(TableName name, CheckAndMutate cam)
        throws IOException {
      Row action = cam.getAction();
      List<Mutation> mutations = action instanceof RowMutations
          ? ((RowMutations) action).getMutations()
          : List.of((Mutation) action);
      one(name, cam, mutations);
      checked.computeIfAbsent(name, n -> Collections.synchronizedList(new ArrayList<>()))
          .add(cam);
      boolean answers = action instanceof Increment || action instanceof Append;
      return new CheckAndMutateResult(true, answers ? answer((Mutation) action) : null);
    }

    /** What HBase answers an increment or an append with: its cells, on the row it was sent. */
    private static Result answer(Mutation m) {
      List<org.apache.hadoop.hbase.Cell> cells = new ArrayList<>();
      m.getFamilyCellMap().values().forEach(cells::addAll);
      return Result.create(cells);
    }

    private synchronized void batch(TableName name, List<Mutation> batch) throws IOException {
      attempts.merge(name, 1, Integer::sum);
      java.util.function.Supplier<IOException> failure = failing.get(name);
      if (failure != null) {
        throw failure.get();
      }
      Predicate<byte[]> refused = refusing.get(name);
      List<Throwable> causes = new ArrayList<>();
      List<Row> rows = new ArrayList<>();
      List<String> hosts = new ArrayList<>();
      for (Mutation m : batch) {
        if (refused != null && refused.test(m.getRow())) {
          causes.add(readOnlyRefusal());
          rows.add(m);
          hosts.add("rs1:16020");
        } else {
          applied.computeIfAbsent(name, n -> Collections.synchronizedList(new ArrayList<>()))
              .add(m);
        }
      }
      if (alsoFail != null && !causes.isEmpty()) {
        causes.add(alsoFail);
        rows.add(batch.get(0));
        hosts.add("rs2:16020");
      }
      if (!causes.isEmpty()) {
        throw new RetriesExhaustedWithDetailsException(causes, rows, hosts);
      }
    }
  }
}
