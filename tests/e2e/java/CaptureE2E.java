/*
 * The Java side of tests/e2e/test_migration.py: a live table and a reference table that take the
 * same mutations, one through the SDK (so through a re-salting migration), the other plain and
 * unsalted, never migrated; the two are compared cell by cell at the end. The mutations are the
 * ones a timestamp-based change capture gets wrong: whole-row deletes, deletes of the newest
 * version only, cells stamped a day ahead, puts and deletes with explicit old timestamps, per-cell
 * TTL puts; and a plain client that keeps writing into the old generation after the switch.
 * Prints one JSON line of evidence on stdout; a failed check exits 1.
 *
 * Commands (after --zk QUORUM --root ROOT):
 *   load TABLE REFERENCE ROWS            rows row-00000000.. (3 versions of f:q, one f:r)
 *   mutator TABLE REFERENCE ROWS TTL_MS STOP_FILE [idempotent]
 *                                        the mixed workload until STOP_FILE exists; with
 *                                        "idempotent", none that a client retry could apply
 *                                        twice with another outcome (no "delete the newest
 *                                        version": for a RegionServer killed mid-request), and a
 *                                        mutation the HBase client gave up on is written again
 *                                        (at most twice; "retries" in the evidence)
 *   late-writer PHYSICAL LAYOUT_JSON REFERENCE COUNT
 *                                        COUNT rows into an old generation, salted as it was
 *   compare TABLE REFERENCE              the active generation against the reference
 *   ttl-cells TABLE|REFERENCE            TTL cells (f:t) still visible, in the active generation
 *                                        of TABLE or in REFERENCE (prefix "ref:")
 *   peer disable|enable|stats PEER       a replication peer of the cluster
 *   sdk-put TABLE KEY...                 one row a key through the SDK (one JVM for them all);
 *                                        prints the generation used
 *   has-row PHYSICAL LAYOUT_JSON KEY...  whether a physical table holds every logical key;
 *                                        "missing" names those it does not
 *   delete-cell PHYSICAL                 one cell of the first row, behind presplit's back
 *   snapshot NAME TABLE | snapshot-exists NAME
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

import io.presplit.client.KeyLayout;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import io.presplit.client.TableSnapshot;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.replication.ReplicationLoadSource;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

public class CaptureE2E {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final byte[] R = Bytes.toBytes("r");
  static final byte[] FUT = Bytes.toBytes("fut");
  static final byte[] OLD = Bytes.toBytes("old");
  static final byte[] TTL = Bytes.toBytes("t");
  static final long BASE_TS = 1_000_000_000L;
  static final long DAY_MS = 86_400_000L;
  static String zk;
  static String root;

  public static void main(String[] args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    zk = a.remove(a.indexOf("--zk") + 1);
    a.remove("--zk");
    root = a.remove(a.indexOf("--root") + 1);
    a.remove("--root");
    switch (a.get(0)) {
      case "load" -> load(a.get(1), a.get(2), Integer.parseInt(a.get(3)));
      case "mutator" -> mutator(a.get(1), a.get(2), Integer.parseInt(a.get(3)),
          Long.parseLong(a.get(4)), Path.of(a.get(5)),
          a.size() > 6 && a.get(6).equals("idempotent"));
      case "late-writer" -> lateWriter(a.get(1), a.get(2), a.get(3), Integer.parseInt(a.get(4)));
      case "compare" -> compare(a.get(1), a.get(2));
      case "ttl-cells" -> ttlCells(a.get(1));
      case "peer" -> peer(a.get(1), a.get(2));
      case "orphan-peer" -> orphanPeer(a.get(1), a.get(2), a.get(3), a.get(4));
      case "sdk-put" -> sdkPut(a.get(1), a.subList(2, a.size()));
      case "has-row" -> hasRow(a.get(1), a.get(2), a.subList(3, a.size()));
      case "delete-cell" -> deleteCell(a.get(1));
      case "snapshot" -> {
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          admin.snapshot(a.get(1), TableName.valueOf(a.get(2)));
          System.out.println("{\"snapshot\":\"" + a.get(1) + "\"}");
        }
      }
      case "snapshot-exists" -> {
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          boolean found = admin.listSnapshots().stream()
              .anyMatch(d -> d.getName().equals(a.get(1)));
          System.out.println("{\"exists\":" + found + "}");
        }
      }
      default -> throw new IllegalArgumentException("unknown command " + a.get(0));
    }
  }

  static Connection hbase() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    // Tags (the per-cell TTL) are compared too.
    conf.set("hbase.client.rpc.codec", "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags");
    return ConnectionFactory.createConnection(conf);
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("CHECK FAILED: " + what);
      System.exit(1);
    }
  }

  static byte[] loaded(int i) {
    return Bytes.toBytes(String.format("row-%08d", i));
  }

  static KeyLayout layoutOf(String json) {
    return KeyLayout.fromDocument(JsonParser.parseString(json).getAsJsonObject());
  }

  // The reference: unsalted, the migrated table's family settings (3 versions).
  static void createReference(Admin admin, TableName name) throws Exception {
    try {
      admin.createNamespace(NamespaceDescriptor.create(name.getNamespaceAsString()).build());
    } catch (NamespaceExistException e) {
      // there already
    }
    if (!admin.tableExists(name)) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(3).build())
          .build());
    }
  }

  static void load(String name, String reference, int rows) throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options()); Admin admin = c.getAdmin()) {
      TableName ref = TableName.valueOf(reference);
      createReference(admin, ref);
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      try (Table r = c.getTable(ref)) {
        List<Put> batch = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          Put p = new Put(loaded(i));
          for (int v = 0; v < 3; v++) {
            p.addColumn(F, Q, BASE_TS + v, Bytes.toBytes("v" + v + "-" + i));
          }
          p.addColumn(F, R, BASE_TS, Bytes.toBytes(i));
          batch.add(p);
          if (batch.size() == 2000) {
            t.put(batch);
            r.put(batch);
            batch.clear();
          }
        }
        t.put(batch);
        r.put(batch);
      }
      System.out.println("{\"loaded\":" + rows + "}");
    }
  }

  /*
   * One synchronous mutation at a time, each applied to the migrated table through the SDK and
   * to the reference, until the stop file exists. Loaded rows are split into pools, one per kind
   * of mutation that touches them, and each row is used once, so that no mutation depends on
   * the order in which the two tables saw another one (a "delete the newest version" resolves
   * against what the row holds: the row must hold the same in both).
   */
  static void mutator(String name, String reference, int rows, long ttlMs, Path stop,
      boolean idempotent) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    java.util.Set<Long> generations = new java.util.TreeSet<>();
    int retries = 0;
    int[] next = new int[6]; // the next row of each pool (pool p: rows with i % 6 == p)
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options()); Table ref = c.getTable(TableName.valueOf(reference))) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      for (int n = 0; !Files.exists(stop); n++) {
        long now = System.currentTimeMillis();
        int kind = n % 10;
        Object op;
        String label;
        switch (kind) {
          case 0, 1, 2 -> {
            label = "new";
            op = new Put(Bytes.toBytes(String.format("new-%08d", n))).addColumn(F, Q, now,
                Bytes.toBytes(n)).addColumn(F, R, now, Bytes.toBytes("r" + n));
          }
          case 3 -> {
            label = "row_deletes";
            byte[] row = poolRow(next, 0, rows);
            op = row == null ? null : new Delete(row);
          }
          case 4 -> {
            label = "newest_version_deletes";
            // Resolved against the row when applied: a retry of one that was applied but not
            // answered would delete the next version too.
            byte[] row = idempotent ? null : poolRow(next, 1, rows);
            op = row == null ? null : new Delete(row).addColumn(F, Q);
          }
          case 5 -> {
            label = "future";
            byte[] row = poolRow(next, 2, rows);
            op = row == null ? null
                : new Put(row).addColumn(F, FUT, now + DAY_MS, Bytes.toBytes("future-" + n));
          }
          case 6 -> {
            label = "old_puts";
            byte[] row = poolRow(next, 3, rows);
            op = row == null ? null
                : new Put(row).addColumn(F, OLD, BASE_TS - 1000 - n, Bytes.toBytes("old-" + n));
          }
          case 7 -> {
            label = "ttl";
            Put p = new Put(Bytes.toBytes(String.format("ttl-%08d", n))).addColumn(F, TTL, now,
                Bytes.toBytes("expires-" + n));
            p.setTTL(ttlMs);
            op = p;
          }
          case 8 -> {
            label = "old_deletes";
            byte[] row = poolRow(next, 4, rows);
            op = row == null ? null : new Delete(row).addColumns(F, R, BASE_TS);
          }
          default -> {
            label = "new_old";
            op = new Put(Bytes.toBytes(String.format("old-%08d", n))).addColumn(F, Q,
                BASE_TS - 5, Bytes.toBytes(n));
          }
        }
        if (op == null) {
          continue;
        }
        TableSnapshot before = t.snapshot();
        for (int attempt = 1; ; attempt++) {
          try {
            if (op instanceof Put p) {
              t.put(p);
            } else {
              t.delete((Delete) op);
            }
            break;
          } catch (java.io.IOException e) {
            // A region moved A -> B -> C -> A by the balancer within two minutes and then split
            // leaves each RegionServer answering RegionMovedException with the next one, and the
            // HBase client goes round that circle until its retries run out (seen after a
            // RegionServer's restart). An application writes again; with idempotent mutations
            // (every one applies the same once or twice), so does the mutator, at most twice.
            if (!idempotent || attempt == 3) {
              throw e;
            }
            retries++;
            System.err.println("mutator: mutation " + n + " failed (" + e.getClass().getSimpleName()
                + "), written again (attempt " + (attempt + 1) + ")");
          }
        }
        if (op instanceof Put p) {
          ref.put(p);
        } else {
          ref.delete((Delete) op);
        }
        generations.add(before.generation());
        counts.merge(label, 1, Integer::sum);
        if (n % 5000 == 0) {
          System.err.println("mutator: " + n + " mutations, generation " + before.generation());
        }
      }
    }
    StringBuilder out = new StringBuilder("{\"generations\":").append(generations.size())
        .append(",\"retries\":").append(retries);
    counts.forEach((k, v) -> out.append(",\"").append(k).append("\":").append(v));
    System.out.println(out.append('}'));
  }

  // The next unused loaded row of a pool (null once the pool is used up: that kind of mutation
  // stops); the pools are disjoint and each row is used once.
  static byte[] poolRow(int[] next, int pool, int rows) {
    int i = pool + 6 * next[pool]++;
    return i < rows ? loaded(i) : null;
  }

  // A plain client that never heard of presplit's switch: COUNT rows into an old generation.
  static void lateWriter(String physical, String layoutJson, String reference, int count)
      throws Exception {
    KeyLayout layout = layoutOf(layoutJson);
    int written = 0;
    try (Connection c = hbase(); Table old = c.getTable(TableName.valueOf(physical));
        Table ref = c.getTable(TableName.valueOf(reference))) {
      for (int i = 0; i < count; i++) {
        byte[] key = Bytes.toBytes(String.format("late-%08d", i));
        long ts = System.currentTimeMillis();
        old.put(new Put(layout.encode(key)).addColumn(F, Q, ts, Bytes.toBytes(i)));
        ref.put(new Put(key).addColumn(F, Q, ts, Bytes.toBytes(i)));
        written++;
      }
    }
    System.out.println("{\"late_written\":" + written + "}");
  }

  // Every cell of a row (all versions) as text: family:qualifier@ts=value+tags.
  static List<String> cells(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell cell : r.rawCells()) {
      out.add(Bytes.toStringBinary(CellUtil.cloneFamily(cell)) + ":"
          + Bytes.toStringBinary(CellUtil.cloneQualifier(cell)) + "@" + cell.getTimestamp() + "="
          + Bytes.toStringBinary(CellUtil.cloneValue(cell)) + "#"
          + Bytes.toStringBinary(CellUtil.cloneTags(cell)));
    }
    Collections.sort(out);
    return out;
  }

  // The active generation, read with the plain client, against the reference: the same logical
  // keys, each with the same cells (every version, timestamps, values, tags); none twice.
  static void compare(String name, String reference) throws Exception {
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot snap = t.awaitReady(Duration.ofSeconds(60));
      KeyLayout layout = snap.layout();
      Map<String, List<String>> active = new HashMap<>();
      long activeCells = 0;
      try (Table table = c.getTable(snap.physicalTable()); ResultScanner scanner =
          table.getScanner(new Scan().readAllVersions().setCaching(2000))) {
        for (Result r : scanner) {
          byte[] logical = layout.logicalKey(r.getRow());
          check(Bytes.equals(layout.encode(logical), r.getRow()),
              "row " + Bytes.toStringBinary(r.getRow()) + " is not salted with the active layout");
          List<String> previous = active.put(Bytes.toStringBinary(logical), cells(r));
          check(previous == null, "logical key " + Bytes.toStringBinary(logical) + " twice");
          activeCells += r.rawCells().length;
        }
      }
      long rows = 0;
      long refCells = 0;
      int missing = 0;
      int differing = 0;
      List<String> first = new ArrayList<>();
      try (Table ref = c.getTable(TableName.valueOf(reference)); ResultScanner scanner =
          ref.getScanner(new Scan().readAllVersions().setCaching(2000))) {
        for (Result r : scanner) {
          String key = Bytes.toStringBinary(r.getRow());
          List<String> want = cells(r);
          refCells += want.size();
          rows++;
          List<String> got = active.remove(key);
          if (got == null) {
            missing++;
            if (first.size() < 5) {
              first.add("missing " + key + " " + want);
            }
          } else if (!got.equals(want)) {
            differing++;
            if (first.size() < 5) {
              first.add(key + ": want " + want + " got " + got);
            }
          }
        }
      }
      int extra = active.size();
      for (String key : active.keySet()) {
        if (first.size() < 5) {
          first.add("extra (resurrected?) " + key + " " + active.get(key));
        }
      }
      for (String line : first) {
        System.err.println("compare: " + line);
      }
      System.out.println("{\"rows\":" + rows + ",\"cells\":" + refCells + ",\"active_cells\":"
          + activeCells + ",\"missing\":" + missing + ",\"extra\":" + extra + ",\"differing\":"
          + differing + ",\"physical\":\"" + snap.physicalTable() + "\",\"generation\":"
          + snap.generation() + ",\"buckets\":" + layout.buckets() + "}");
      check(missing == 0 && extra == 0 && differing == 0,
          missing + " missing, " + extra + " extra, " + differing + " differing rows");
    }
  }

  static void ttlCells(String table) throws Exception {
    try (Connection c = hbase()) {
      String physical = table;
      if (table.startsWith("ref:")) {
        physical = table.substring(4);
      } else {
        try (PresplitTables tables = PresplitTables.open(c, zk, root,
            new PresplitTables.Options())) {
          physical = tables.table(table).awaitReady(Duration.ofSeconds(60)).physicalTable()
              .getNameAsString();
        }
      }
      long n = 0;
      try (Table t = c.getTable(TableName.valueOf(physical)); ResultScanner scanner =
          t.getScanner(new Scan().addColumn(F, TTL).readAllVersions())) {
        for (Result r : scanner) {
          n += r.rawCells().length;
        }
      }
      System.out.println("{\"ttl_cells\":" + n + "}");
    }
  }

  // disable | enable | stats: the peer's edits shipped (summed over the RegionServers' reports)
  // and the newest report's time.
  static void peer(String action, String peerId) throws Exception {
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      switch (action) {
        case "disable" -> admin.disableReplicationPeer(peerId);
        case "enable" -> admin.enableReplicationPeer(peerId);
        case "remove" -> admin.removeReplicationPeer(peerId);
        case "exists" -> {
          boolean exists = !admin.listReplicationPeers(
              Pattern.compile(Pattern.quote(peerId))).isEmpty();
          System.out.println("{\"exists\":" + exists + "}");
          return;
        }
        case "stats" -> {
          ClusterMetrics metrics = admin.getClusterMetrics(
              java.util.EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
          long shipped = 0;
          long report = 0;
          boolean found = false;
          for (ServerMetrics server : metrics.getLiveServerMetrics().values()) {
            report = Math.max(report, server.getReportTimestamp());
            for (ReplicationLoadSource source : server.getReplicationLoadSourceList()) {
              if (source.getPeerID().equals(peerId)) {
                shipped += source.getOPsShipped();
                found = true;
              }
            }
          }
          System.out.println("{\"found\":" + found + ",\"shipped\":" + shipped
              + ",\"report_ms\":" + report + "}");
          return;
        }
        default -> throw new IllegalArgumentException("peer " + action);
      }
      System.out.println("{\"" + action + "d\":\"" + peerId + "\"}");
    }
  }

  // A capture peer of SOURCE into TARGET that no plan names, as a migration that ended without
  // removing it leaves one; OWNER "-": without the owner mark (an older version's). Disabled: it
  // ships nothing, but holds the source's WALs as an orphan does.
  static void orphanPeer(String peerId, String source, String target, String owner)
      throws Exception {
    String layout = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\",\"from\":\"key\"}}";
    io.presplit.capture.CaptureSpec spec = new io.presplit.capture.CaptureSpec(
        TableName.valueOf(source), TableName.valueOf(target), layout, layout,
        io.presplit.capture.CaptureSpec.markOf(target), Bytes.toBytes("f"));
    Map<TableName, List<String>> tables = new HashMap<>();
    tables.put(spec.source, null);
    org.apache.hadoop.hbase.replication.ReplicationPeerConfigBuilder config =
        org.apache.hadoop.hbase.replication.ReplicationPeerConfig.newBuilder()
            .setReplicationEndpointImpl(
                io.presplit.capture.RekeyingReplicationEndpoint.class.getName())
            .setReplicateAllUserTables(false).setTableCFsMap(tables)
            .putAllConfiguration(spec.toConfiguration());
    if (!owner.equals("-")) {
      config.putConfiguration(io.presplit.capture.CaptureSpec.OWNER_KEY, owner);
    }
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      admin.addReplicationPeer(peerId, config.build(), false);
    }
    System.out.println("{\"added\":\"" + peerId + "\"}");
  }

  static void sdkPut(String name, List<String> keys) throws Exception {
    check(!keys.isEmpty(), "sdk-put needs a key");
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root,
        new PresplitTables.Options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot snap = t.awaitReady(Duration.ofSeconds(60));
      for (String key : keys) {
        t.put(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes(key)));
      }
      System.out.println("{\"generation\":" + snap.generation() + ",\"physical\":\""
          + snap.physicalTable() + "\",\"written\":" + keys.size() + "}");
    }
  }

  static void hasRow(String physical, String layoutJson, List<String> keys) throws Exception {
    check(!keys.isEmpty(), "has-row needs a key");
    KeyLayout layout = layoutOf(layoutJson);
    StringBuilder missing = new StringBuilder();
    try (Connection c = hbase(); Table t = c.getTable(TableName.valueOf(physical))) {
      for (String key : keys) {
        Result r = t.get(new org.apache.hadoop.hbase.client.Get(
            layout.encode(Bytes.toBytes(key))));
        if (r.isEmpty()) {
          missing.append(missing.length() > 0 ? "," : "").append('"').append(key).append('"');
        }
      }
    }
    System.out.println("{\"present\":" + (missing.length() == 0) + ",\"missing\":[" + missing
        + "]}");
  }

  // Behind presplit's back: the newest f:q cell of the first row of a physical table goes.
  static void deleteCell(String physical) throws Exception {
    try (Connection c = hbase(); Table table = c.getTable(TableName.valueOf(physical))) {
      Result first;
      try (ResultScanner s = table.getScanner(new Scan().addColumn(F, Q).setLimit(1))) {
        first = s.next();
      }
      check(first != null, physical + " has no f:q cell");
      Cell cell = first.getColumnLatestCell(F, Q);
      table.delete(new Delete(first.getRow()).addColumn(F, Q, cell.getTimestamp()));
      System.out.println("{\"deleted\":\"" + Bytes.toStringBinary(first.getRow()) + " f:q@"
          + cell.getTimestamp() + "\"}");
    }
  }
}
