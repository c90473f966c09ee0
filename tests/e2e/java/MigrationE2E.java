/*
 * The Java side of tests/e2e/test_migration.py: loads a salted table through the SDK (several
 * versions per cell, explicit timestamps), keeps an SDK writer inserting, or SDK read-modify-writes
 * updating hot rows, while presplitd re-salts the table, damages a table behind presplit's back,
 * and checks, with the plain HBase client, that the active generation holds every row once, at
 * its new key, with the same cells and timestamps. Prints one JSON line of evidence on stdout; a
 * failed check exits 1.
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.presplit.client.KeyLayout;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import io.presplit.client.TableSnapshot;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.hadoop.hbase.util.Bytes;

public class MigrationE2E {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final byte[] R = Bytes.toBytes("r");
  static final long BASE_TS = 1_000_000_000L;
  static String zk;
  static String root;

  public static void main(String[] args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    zk = a.remove(a.indexOf("--zk") + 1);
    a.remove("--zk");
    root = a.remove(a.indexOf("--root") + 1);
    a.remove("--root");
    switch (a.get(0)) {
      case "load":
        load(a.get(1), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)));
        break;
      case "writer":
        writer(a.get(1), Path.of(a.get(2)));
        break;
      case "verify":
        verify(a.get(1), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)),
            Integer.parseInt(a.get(4)));
        break;
      case "delete-first-row":
        deleteFirstRow(a.get(1));
        break;
      case "counters":
        counters(a.get(1), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)),
            Path.of(a.get(4)));
        break;
      case "operator-settings":
        operatorSettings(a.get(1), a.get(2));
        break;
      case "settings":
        settings(a.get(1));
        break;
      case "remove-peer":
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          admin.removeReplicationPeer(a.get(1));
        }
        System.out.println("{\"removed\":true}");
        break;
      case "guard-probe":
        guardProbe(a.get(1), a.get(2), Path.of(a.get(3)), a.subList(4, a.size()));
        break;
      case "create-plain":
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(a.get(1)))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        }
        System.out.println("{\"created\":true}");
        break;
      default:
        throw new IllegalArgumentException("unknown command " + a.get(0));
    }
  }

  static Connection hbase() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    return ConnectionFactory.createConnection(conf);
  }

  static byte[] rowKey(int i) {
    return Bytes.toBytes(String.format("row-%08d", i));
  }

  static byte[] value(int i, int version) {
    return Bytes.toBytes("v" + version + "-" + i);
  }

  // Rows row-00000000.. with `versions` versions of f:q (timestamps BASE_TS + version) and one
  // f:r, through the SDK (salted with the table's layout).
  static void load(String name, int rows, int versions) throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      List<Put> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        Put p = new Put(rowKey(i));
        for (int v = 0; v < versions; v++) {
          p.addColumn(F, Q, BASE_TS + v, value(i, v));
        }
        p.addColumn(F, R, BASE_TS, Bytes.toBytes(i));
        batch.add(p);
        if (batch.size() == 2000) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
      System.out.println("{\"loaded\":" + rows + "}");
    }
  }

  // Inserts live-00000000.. (one cell, server timestamp) until the stop file exists; follows the
  // table's generation switch as the SDK does. One synchronous put at a time: the cluster's own
  // speed paces it, no fixed sleep.
  static void writer(String name, Path stop) throws Exception {
    int written = 0;
    Set<Long> generations = new java.util.TreeSet<>();
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      while (!Files.exists(stop)) {
        TableSnapshot before = t.snapshot();
        t.put(new Put(Bytes.toBytes(String.format("live-%08d", written)))
            .addColumn(F, Q, Bytes.toBytes(written)));
        generations.add(before.generation());
        written++;
        if (written % 500 == 0) {
          System.err.println("writer: " + written + " written, generation " + before.generation());
        }
      }
    }
    System.out.println("{\"written\":" + written + ",\"generations\":" + generations.size() + "}");
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("CHECK FAILED: " + what);
      System.exit(1);
    }
  }

  // The active generation, read with the plain client: every loaded row once at its key in the
  // active layout with all its versions and timestamps, every live row once.
  static void verify(String name, int rows, int versions, int live) throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot snap = t.awaitReady(Duration.ofSeconds(60));
      KeyLayout layout = snap.layout();
      Set<String> seen = new HashSet<>();
      int loaded = 0;
      int liveSeen = 0;
      long cells = 0;
      try (Table table = c.getTable(snap.physicalTable());
          ResultScanner scanner = table.getScanner(new Scan().readAllVersions().setCaching(2000))) {
        for (Result r : scanner) {
          byte[] logical = layout.logicalKey(r.getRow());
          check(Bytes.equals(layout.encode(logical), r.getRow()),
              "row " + Bytes.toStringBinary(r.getRow()) + " is not salted with the active layout");
          String key = Bytes.toString(logical);
          check(seen.add(key), "logical key " + key + " twice");
          cells += r.rawCells().length;
          if (key.startsWith("row-")) {
            int i = Integer.parseInt(key.substring(4));
            check(i >= 0 && i < rows, "unexpected " + key);
            List<Cell> q = r.getColumnCells(F, Q);
            check(q.size() == versions, key + " has " + q.size() + " versions of f:q");
            for (Cell cell : q) {
              int v = (int) (cell.getTimestamp() - BASE_TS);
              check(v >= 0 && v < versions, key + " f:q timestamp " + cell.getTimestamp());
              check(Bytes.equals(CellUtil.cloneValue(cell), value(i, v)), key + " f:q value");
            }
            Cell rcell = r.getColumnLatestCell(F, R);
            check(rcell != null && rcell.getTimestamp() == BASE_TS
                && Bytes.toInt(CellUtil.cloneValue(rcell)) == i, key + " f:r");
            loaded++;
          } else if (key.startsWith("live-")) {
            int i = Integer.parseInt(key.substring(5));
            check(i >= 0 && i < live, "unexpected " + key);
            check(Bytes.toInt(r.getValue(F, Q)) == i, key + " value");
            liveSeen++;
          } else {
            check(false, "unexpected row " + key);
          }
        }
      }
      check(loaded == rows, "loaded rows: " + loaded + " of " + rows);
      check(liveSeen == live, "live rows: " + liveSeen + " of " + live);
      System.out.println("{\"rows\":" + loaded + ",\"live\":" + liveSeen + ",\"cells\":" + cells
          + ",\"physical\":\"" + snap.physicalTable() + "\",\"generation\":" + snap.generation()
          + ",\"buckets\":" + layout.buckets() + "}");
    }
  }

  // Behind presplit's back: the first row of a physical table loses its cells.
  static void deleteFirstRow(String physical) throws Exception {
    try (Connection c = hbase(); Table table = c.getTable(TableName.valueOf(physical))) {
      byte[] row;
      try (ResultScanner s = table.getScanner(new Scan().setLimit(1))) {
        Result r = s.next();
        check(r != null, physical + " is empty");
        row = r.getRow();
      }
      table.delete(new Delete(row));
      System.out.println("{\"deleted\":\"" + Bytes.toStringBinary(row) + "\"}");
    }
  }

  // What an operator sets on a table in the shell, outside its document: family f keeps two
  // versions at least and is replicated (REPLICATION_SCOPE 1) by a disabled peer `peer` (a DR
  // cluster); a table value of the application's; a request throttle.
  static void operatorSettings(String physical, String peer) throws Exception {
    TableName name = TableName.valueOf(physical);
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      TableDescriptor d = admin.getDescriptor(name);
      ColumnFamilyDescriptor f = d.getColumnFamily(F);
      // Also without the MigrationGuard presplitd creates tables with: as a table created
      // before presplitd did so, or by hand, whose first re-salt attaches it.
      admin.modifyTable(TableDescriptorBuilder.newBuilder(d).setValue("app.team", "payments")
          .removeCoprocessor("io.presplit.capture.MigrationGuard")
          .modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(f).setMinVersions(2)
              .setScope(HConstants.REPLICATION_SCOPE_GLOBAL).build())
          .build());
      admin.setQuota(QuotaSettingsFactory.throttleTable(name, ThrottleType.REQUEST_NUMBER,
          100000, java.util.concurrent.TimeUnit.SECONDS));
      java.util.Map<TableName, List<String>> tables = new java.util.HashMap<>();
      tables.put(name, null);
      // A stand-in for the DR cluster's peer: HBase's own endpoint that ships nowhere (a real
      // inter-cluster peer needs a reachable peer cluster to be added), disabled; what presplit
      // looks at is the same: the peer's table list and the families' scope.
      admin.addReplicationPeer(peer, ReplicationPeerConfig.newBuilder()
          .setReplicationEndpointImpl(
              "org.apache.hadoop.hbase.replication.VerifyWALEntriesReplicationEndpoint")
          .setReplicateAllUserTables(false).setTableCFsMap(tables).build(), false);
    }
    System.out.println("{\"set\":true}");
  }

  // The table's settings as the plain HBase client sees them.
  static void settings(String physical) throws Exception {
    TableName name = TableName.valueOf(physical);
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      TableDescriptor d = admin.getDescriptor(name);
      ColumnFamilyDescriptor f = d.getColumnFamily(F);
      int quotas = admin.getQuota(new QuotaFilter().setTableFilter(
          java.util.regex.Pattern.quote(name.getNameWithNamespaceInclAsString()))).size();
      List<String> peers = new ArrayList<>();
      for (ReplicationPeerDescription p : admin.listReplicationPeers()) {
        java.util.Map<TableName, List<String>> m = p.getPeerConfig().getTableCFsMap();
        if (m != null && m.containsKey(name)) {
          peers.add("\"" + p.getPeerId() + "\"");
        }
      }
      System.out.println("{\"min_versions\":" + f.getMinVersions() + ",\"scope\":" + f.getScope()
          + ",\"keep_deleted_cells\":\"" + f.getKeepDeletedCells() + "\",\"max_versions\":"
          + f.getMaxVersions() + ",\"app_team\":" + quoted(d.getValue("app.team"))
          + ",\"marker_source\":" + quoted(d.getValue("presplit.migration.source"))
          + ",\"marker_plan\":" + quoted(d.getValue("presplit.migration.plan"))
          + ",\"read_only\":" + d.isReadOnly()
          + ",\"guarded\":" + d.hasCoprocessor("io.presplit.capture.MigrationGuard")
          + ",\"guard_plan\":" + quoted(d.getValue("presplit.migration.guard"))
          + ",\"quotas\":" + quotas
          + ",\"peers_naming_it\":[" + String.join(",", peers) + "]}");
    }
  }

  static String quoted(String value) {
    return value == null ? "null" : "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  // A read-modify-write workload through the SDK on hot rows, while presplitd re-salts the table
  // and rolls the re-salt back. Three kinds of update, each on rows of its own, each counted once
  // its call returned:
  //   - get, then put + 1, on `counters` rows "counter-NN", one thread: no update races
  //     another, so a counter below its tally is an update the migration lost;
  //   - increment by 1 on `hot` rows "hot-inc-NN", one thread;
  //   - compare-and-set (get, then checkAndMutate: put + 1 if the value is still the one read,
  //     else read again) on `hot` rows "hot-cas-NN", two threads contending for the same rows.
  // Runs until `dir`/stop exists. A file `dir`/check-NAME asks for a check while it runs: every
  // update in flight finishes and none starts, every row is read from the one generation the
  // status names and compared with its tally, the answer goes to `dir`/NAME.json, and the
  // workload goes on. At the stop the same check is the last line on stdout.
  static void counters(String name, int counters, int hot, Path dir) throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      HotRows rows = new HotRows(t, counters, hot);
      rows.start();
      Set<String> answered = new HashSet<>();
      // Woken by the creation of a request (or of "stop") in `dir`, not by a clock.
      java.nio.file.WatchService watcher = dir.getFileSystem().newWatchService();
      dir.register(watcher, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
      while (!Files.exists(dir.resolve("stop"))) {
        try (java.nio.file.DirectoryStream<Path> requests =
            Files.newDirectoryStream(dir, "check-*")) {
          for (Path request : requests) {
            String check = request.getFileName().toString().substring("check-".length());
            if (answered.add(check)) {
              Path written = dir.resolve(check + ".json.tmp");
              Files.writeString(written, rows.check());
              Files.move(written, dir.resolve(check + ".json"),
                  java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
          }
        }
        java.nio.file.WatchKey created =
            watcher.poll(1, java.util.concurrent.TimeUnit.SECONDS); // a missed event: 1 s late
        if (created != null) {
          created.pollEvents();
          created.reset();
        }
      }
      watcher.close();
      rows.stop();
      System.out.println(rows.check());
    }
  }

  /** The rows, tallies and threads of the `counters` workload. */
  static final class HotRows {
    final SaltedTable t;
    final int counters;
    final int hot;
    final java.util.concurrent.atomic.AtomicLongArray getPut;
    final java.util.concurrent.atomic.AtomicLongArray incremented;
    final java.util.concurrent.atomic.AtomicLongArray swapped;
    // Updates take it shared; a check takes it alone, so it sees no update in flight. Fair: a
    // waiting check is not starved by the updates that keep coming.
    final java.util.concurrent.locks.ReentrantReadWriteLock quiet =
        new java.util.concurrent.locks.ReentrantReadWriteLock(true);
    final java.util.concurrent.atomic.AtomicLong failures =
        new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong conflicts =
        new java.util.concurrent.atomic.AtomicLong();
    // Updates that started while the status said writes were paused, or during which the status
    // named another generation, by kind and the generation they started on: the updates the SDK
    // held through a switch (or sent again after the read-only generation refused them).
    final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> acrossSwitch =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> slowestMs =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    final List<Long> generations = new ArrayList<>(); // as the updates saw them, in order
    final List<Thread> threads = new ArrayList<>();
    volatile boolean stopping;

    HotRows(SaltedTable t, int counters, int hot) {
      this.t = t;
      this.counters = counters;
      this.hot = hot;
      getPut = new java.util.concurrent.atomic.AtomicLongArray(counters);
      incremented = new java.util.concurrent.atomic.AtomicLongArray(hot);
      swapped = new java.util.concurrent.atomic.AtomicLongArray(hot);
    }

    @FunctionalInterface
    interface Update {
      void apply(int row) throws Exception;
    }

    void start() throws Exception {
      List<Put> zeros = new ArrayList<>();
      for (int i = 0; i < counters; i++) {
        zeros.add(new Put(key("counter", i)).addColumn(F, Q, Bytes.toBytes(0L)));
      }
      for (int i = 0; i < hot; i++) {
        zeros.add(new Put(key("hot-inc", i)).addColumn(F, Q, Bytes.toBytes(0L)));
        zeros.add(new Put(key("hot-cas", i)).addColumn(F, Q, Bytes.toBytes(0L)));
      }
      t.put(zeros);
      spawn("get_put", counters, this::getPutOne);
      spawn("increment", hot, this::incrementOne);
      spawn("check_and_mutate", hot, this::compareAndSetOne);
      spawn("check_and_mutate", hot, this::compareAndSetOne);
    }

    /** A thread updating rows picked at random: the two compare-and-set threads meet often. */
    void spawn(String kind, int rows, Update update) {
      Thread thread = new Thread(() -> {
        while (!stopping) {
          int row = java.util.concurrent.ThreadLocalRandom.current().nextInt(rows);
          quiet.readLock().lock();
          try {
            TableSnapshot before = t.snapshot();
            boolean paused = before.writesPausedUntilMs() > System.currentTimeMillis();
            noteGeneration();
            long started = System.nanoTime();
            update.apply(row);
            if (paused || t.snapshot().generation() != before.generation()) {
              acrossSwitch.computeIfAbsent(kind + "@" + before.generation(),
                  k -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
            }
            slowestMs.computeIfAbsent(kind, k -> new java.util.concurrent.atomic.AtomicLong())
                .accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
          } catch (Exception e) {
            // An update whose call failed is not in its tally: the check then says whether it
            // was applied anyway; the test fails on any failure.
            failures.incrementAndGet();
            System.err.println(kind + " " + row + ": " + e);
          } finally {
            quiet.readLock().unlock();
          }
        }
      }, kind + "-" + threads.size());
      threads.add(thread);
      thread.start();
    }

    void getPutOne(int i) throws Exception {
      long value = Bytes.toLong(t.get(key("counter", i)).getValue(F, Q));
      t.put(new Put(key("counter", i)).addColumn(F, Q, Bytes.toBytes(value + 1)));
      getPut.incrementAndGet(i);
    }

    void incrementOne(int i) throws Exception {
      t.increment(new Increment(key("hot-inc", i)).addColumn(F, Q, 1));
      incremented.incrementAndGet(i);
    }

    void compareAndSetOne(int i) throws Exception {
      byte[] key = key("hot-cas", i);
      byte[] read = t.get(key).getValue(F, Q);
      CheckAndMutateResult r = t.checkAndMutate(CheckAndMutate.newBuilder(key)
          .ifEquals(F, Q, read)
          .build(new Put(key).addColumn(F, Q, Bytes.toBytes(Bytes.toLong(read) + 1))));
      if (r.isSuccess()) {
        swapped.incrementAndGet(i);
      } else {
        conflicts.incrementAndGet(); // the other thread's set came first: read again
      }
    }

    synchronized void noteGeneration() {
      // Read under the lock: the list is in the order the generations were current.
      long g = t.snapshot().generation();
      if (generations.isEmpty() || generations.get(generations.size() - 1) != g) {
        generations.add(g);
      }
    }

    void stop() throws InterruptedException {
      stopping = true;
      for (Thread thread : threads) {
        thread.join();
      }
    }

    /** Every row against its tally, read with no update in flight from one generation. */
    String check() throws Exception {
      quiet.writeLock().lock();
      try {
        while (true) {
          TableSnapshot before = t.snapshot();
          String kinds = "{" + compare("get_put", "counter", counters, getPut) + ","
              + compare("increment", "hot-inc", hot, incremented) + ","
              + compare("check_and_mutate", "hot-cas", hot, swapped) + "}";
          if (t.snapshot() != before) {
            continue; // a status came in between: read again, all from one generation
          }
          synchronized (this) {
            return "{\"generation\":" + before.generation() + ",\"physical\":"
                + quoted(before.physicalTable().getNameWithNamespaceInclAsString())
                + ",\"kinds\":" + kinds + ",\"failures\":" + failures.get()
                + ",\"conflicts\":" + conflicts.get() + ",\"generations\":" + generations
                + ",\"across_switch\":" + json(acrossSwitch) + ",\"slowest_ms\":"
                + json(slowestMs) + "}";
          }
        }
      } finally {
        quiet.writeLock().unlock();
      }
    }

    String compare(String kind, String prefix, int rows,
        java.util.concurrent.atomic.AtomicLongArray tally) throws Exception {
      long updates = 0;
      int differing = 0;
      String first = null;
      for (int i = 0; i < rows; i++) {
        byte[] key = key(prefix, i);
        long value = Bytes.toLong(t.get(key).getValue(F, Q));
        updates += tally.get(i);
        if (value != tally.get(i)) {
          differing++;
          if (first == null) {
            first = Bytes.toString(key) + ": " + value + " read, " + tally.get(i)
                + " acknowledged";
          }
        }
      }
      return quoted(kind) + ":{\"updates\":" + updates + ",\"differing\":" + differing
          + ",\"first\":" + quoted(first) + "}";
    }

    static String json(java.util.Map<String, java.util.concurrent.atomic.AtomicLong> counts) {
      List<String> fields = new ArrayList<>();
      counts.forEach((k, v) -> fields.add(quoted(k) + ":" + v.get()));
      return "{" + String.join(",", fields) + "}";
    }
  }

  static byte[] key(String prefix, int i) {
    return Bytes.toBytes(String.format("%s-%02d", prefix, i));
  }

  // The two writes a migration's capture cannot carry, made as an application makes them into the
  // generation the table's status names: a put with Durability.SKIP_WAL through the SDK (row
  // "skipwal-<tag>"), and a bulk load of an HFile written under `staging` (row "bulk-<tag>",
  // salted with the status's layout). Each is "ok" once read back through the SDK, or the
  // messages of its failure (the cause chain). Then how many rows of either each of the
  // `physicals` holds, read raw (what a refused write left behind: nothing).
  static void guardProbe(String name, String tag, Path staging, List<String> physicals)
      throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot snap = t.awaitReady(Duration.ofSeconds(60));
      byte[] skipRow = Bytes.toBytes("skipwal-" + tag);
      String skipWal;
      try {
        Put put = new Put(skipRow).addColumn(F, Q, Bytes.toBytes(tag));
        put.setDurability(Durability.SKIP_WAL);
        t.put(put);
        skipWal = t.get(skipRow).isEmpty() ? "written, not read back" : "ok";
      } catch (java.io.IOException e) {
        skipWal = causes(e);
      }
      byte[] bulkRow = Bytes.toBytes("bulk-" + tag);
      String bulkLoad;
      try {
        org.apache.hadoop.fs.Path dir =
            new org.apache.hadoop.fs.Path(staging.resolve("bulk-" + tag).toUri());
        org.apache.hadoop.fs.Path file =
            new org.apache.hadoop.fs.Path(new org.apache.hadoop.fs.Path(dir, "f"), "hfile");
        Configuration conf = c.getConfiguration();
        try (HFile.Writer w = HFile.getWriterFactory(conf, new CacheConfig(conf))
            .withPath(file.getFileSystem(conf), file)
            .withFileContext(new HFileContextBuilder().build()).create()) {
          w.append(new KeyValue(snap.layout().encode(bulkRow), F, Q, BASE_TS, Bytes.toBytes(tag)));
        }
        BulkLoadHFiles.create(conf).bulkLoad(snap.physicalTable(), dir);
        bulkLoad = t.get(bulkRow).isEmpty() ? "loaded, not read back" : "ok";
      } catch (java.io.IOException e) {
        bulkLoad = causes(e);
      }
      System.out.println("{\"physical\":\"" + snap.physicalTable() + "\",\"generation\":"
          + snap.generation() + ",\"skip_wal\":" + json(skipWal) + ",\"bulk_load\":"
          + json(bulkLoad) + ",\"rows\":" + rowsMatching(c, "(skipwal|bulk)-" + tag, physicals)
          + "}");
    }
  }

  // The rows of each physical table, raw (delete markers and all), whose key matches `regex`
  // somewhere: {"<table>": N, ...} (0 for a table that does not exist).
  static String rowsMatching(Connection c, String regex, List<String> physicals)
      throws java.io.IOException {
    StringBuilder out = new StringBuilder("{");
    try (Admin admin = c.getAdmin()) {
      for (String physical : physicals) {
        TableName name = TableName.valueOf(physical);
        int rows = 0;
        if (admin.tableExists(name)) {
          try (Table table = c.getTable(name); ResultScanner scanner = table.getScanner(new Scan()
              .setRaw(true).setFilter(new RowFilter(CompareOperator.EQUAL,
                  new RegexStringComparator(regex))))) {
            for (Result r : scanner) {
              rows++;
            }
          }
        }
        out.append(out.length() > 1 ? "," : "").append(json(physical)).append(':').append(rows);
      }
    }
    return out.append('}').toString();
  }

  static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      out.append(out.length() > 0 ? " <- " : "").append(t.getClass().getSimpleName()).append(": ")
          .append(t.getMessage());
    }
    return out.toString();
  }

  static String json(String text) {
    return io.presplit.hbase.admin.JsonText.quote(text);
  }
}
