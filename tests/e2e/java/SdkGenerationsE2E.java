/*
 * SdkGenerationsE2E: the SDK reading both generations of a table during a migration's catch-up
 * (PresplitTables.Options.readBothGenerationsDuringMigration), on two real tables, driven by
 * tests/e2e/test_migration_bridge.py.
 *
 *   java -cp presplit-hbase.jar:$(hbase classpath) SdkGenerationsE2E --zk QUORUM NAMESPACE
 *
 * The table's document and status are written straight into ZooKeeper (under a root of the
 * test's own), as presplitd writes them after switching generation 1 (10 buckets, ns:t) to
 * generation 2 (16 buckets, ns:t__g2) while catching up. Rows are written with the plain HBase
 * client: some only in the old generation (written before the switch, not yet copied), some in
 * both (copied), some only in the new one (written after the switch), one row with a cell in
 * each. Checked (exit 1 with the reason on stderr otherwise; one JSON line on stdout):
 *  - a reader with the option sees every row once, in logical key order (forward, reversed,
 *    with a limit, a group scan), the split row with both cells, gets and exists of old rows;
 *  - a reader without it sees the active generation only;
 *  - once the status says the catch-up is done (phase grace), the reader with the option
 *    follows it (waited for with a deadline) and reads the active generation only.
 */

import io.presplit.client.KeyLayout;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public final class SdkGenerationsE2E {
  static final String OLD_LAYOUT = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\","
      + "\"hash\":\"murmur3\"},\"group\":{\"delimiter\":\"|\"}}";
  static final String NEW_LAYOUT = "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\","
      + "\"hash\":\"murmur3\"},\"group\":{\"delimiter\":\"|\"}}";
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("FAILED: " + what);
      System.exit(1);
    }
  }

  static String status(String ns, String migrationPhase) {
    return "{\"phase\":\"ready\",\"table\":\"" + ns + ":t\",\"physical_table\":\"" + ns
        + ":t__g2\",\"generation\":2,\"buckets\":16,\"layout\":" + NEW_LAYOUT
        + ",\"migration\":{\"phase\":\"" + migrationPhase + "\",\"previous\":{\"physical_table\":\""
        + ns + ":t\",\"generation\":1,\"layout\":" + OLD_LAYOUT + "}}}";
  }

  public static void main(String[] args) throws Exception {
    String zk = args[1];
    String ns = args[2];
    String root = "/" + ns;
    Configuration c = HBaseConfiguration.create();
    String[] hostPort = zk.split(":");
    c.set("hbase.zookeeper.quorum", hostPort[0]);
    c.set("hbase.zookeeper.property.clientPort", hostPort[1]);
    KeyLayout oldLayout = KeyLayout.fromDocument(JsonParser.parseString(OLD_LAYOUT)
        .getAsJsonObject());
    KeyLayout newLayout = KeyLayout.fromDocument(JsonParser.parseString(NEW_LAYOUT)
        .getAsJsonObject());
    TableName oldTable = TableName.valueOf(ns, "t");
    TableName newTable = TableName.valueOf(ns, "t__g2");
    CountDownLatch up = new CountDownLatch(1);
    ZooKeeper z = new ZooKeeper(zk, 30000, e -> up.countDown());
    up.await();
    try (Connection conn = ConnectionFactory.createConnection(c); Admin admin = conn.getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
      for (TableName tn : List.of(oldTable, newTable)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(tn)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      }
      TreeSet<String> all = new TreeSet<>();
      TreeSet<String> activeOnly = new TreeSet<>();
      try (Table t1 = conn.getTable(oldTable); Table t2 = conn.getTable(newTable)) {
        List<Put> old = new ArrayList<>();
        List<Put> fresh = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          String before = "g" + (i % 7) + "|before-" + i; // only in the old generation
          String copied = "g" + (i % 7) + "|copied-" + i; // in both
          String after = "g" + (i % 7) + "|after-" + i; // only in the new generation
          old.add(put(oldLayout, before, 100, "old"));
          old.add(put(oldLayout, copied, 100, "v"));
          fresh.add(put(newLayout, copied, 100, "v"));
          fresh.add(put(newLayout, after, 200, "new"));
          all.addAll(List.of(before, copied, after));
          activeOnly.addAll(List.of(copied, after));
        }
        old.add(put(oldLayout, "g1|split", 100, "old-version"));
        fresh.add(put(newLayout, "g1|split", 200, "new-version"));
        all.add("g1|split");
        activeOnly.add("g1|split");
        t1.put(old);
        t2.put(fresh);
      }
      zkWrite(z, root + "/tables/" + ns + ":t", ("{\"version\":1,\"table\":\"" + ns
          + ":t\",\"layout\":" + NEW_LAYOUT + ",\"split\":{\"algorithm\":\"salt-buckets\"},"
          + "\"families\":[{\"name\":\"f\"}]}").getBytes(StandardCharsets.UTF_8));
      zkWrite(z, root + "/status/" + ns + ":t",
          status(ns, "catching_up").getBytes(StandardCharsets.UTF_8));

      try (PresplitTables both = PresplitTables.open(conn, zk, root, new PresplitTables.Options()
          .readBothGenerationsDuringMigration(true));
          PresplitTables plain = PresplitTables.open(conn, zk, root)) {
        SaltedTable reader = both.table(ns + ":t");
        check(reader.snapshot().previousGeneration() != null, "no previous generation in "
            + reader.snapshot());
        check(keys(reader.scan(new Scan())).equals(new ArrayList<>(all)),
            "merged scan: " + keys(reader.scan(new Scan())));
        List<String> reversed = new ArrayList<>(all.descendingSet());
        check(keys(reader.scan(new Scan().setReversed(true))).equals(reversed),
            "merged reversed scan");
        check(keys(reader.scan(new Scan().setLimit(25))).equals(new ArrayList<>(all)
            .subList(0, 25)), "merged scan with a limit");
        List<String> group3 = new ArrayList<>(all.subSet("g3|", "g3}"));
        List<String> groupGot = new ArrayList<>();
        for (Result r : reader.scanGroup(Bytes.toBytes("g3"))) {
          groupGot.add(Bytes.toString(r.getRow()));
        }
        check(groupGot.equals(group3), "group scan: " + groupGot + " vs " + group3);
        Result split = reader.get(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes("g1|split"))
            .readAllVersions());
        check(split.size() == 2, "the split row has " + split.size() + " cells, expected 2");
        check(Bytes.toString(reader.get(Bytes.toBytes("g1|split")).getValue(F, Q))
            .equals("new-version"), "a one-version get of the split row");
        check(Bytes.toString(reader.get(Bytes.toBytes("g0|before-0")).getValue(F, Q))
            .equals("old"), "get of a row only in the old generation");
        check(reader.exists(Bytes.toBytes("g0|before-0")), "exists of an old row");

        SaltedTable activeReader = plain.table(ns + ":t");
        check(keys(activeReader.scan(new Scan())).equals(new ArrayList<>(activeOnly)),
            "a reader without the option reads the active generation only");
        check(!activeReader.exists(Bytes.toBytes("g0|before-0")), "exists without the option");

        // Catch-up done: the option no longer reads the old generation.
        zkWrite(z, root + "/status/" + ns + ":t",
            status(ns, "grace").getBytes(StandardCharsets.UTF_8));
        long deadline = System.currentTimeMillis() + 60_000;
        while (reader.snapshot().previousGeneration() != null) {
          check(System.currentTimeMillis() < deadline, "the reader did not follow the status");
          Thread.sleep(50);
        }
        check(keys(reader.scan(new Scan())).equals(new ArrayList<>(activeOnly)),
            "after the catch-up: the active generation only");
        System.out.println("{\"rows_both\":" + all.size() + ",\"rows_active\":"
            + activeOnly.size() + "}");
      }
      for (TableName tn : List.of(oldTable, newTable)) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      admin.deleteNamespace(ns);
    } finally {
      z.close();
    }
  }

  static Put put(KeyLayout layout, String logicalKey, long ts, String value) {
    return new Put(layout.encode(Bytes.toBytes(logicalKey))).addColumn(F, Q, ts,
        Bytes.toBytes(value));
  }

  static List<String> keys(ResultScanner scanner) throws Exception {
    List<String> out = new ArrayList<>();
    try (scanner) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        out.add(Bytes.toString(r.getRow()));
      }
    }
    return out;
  }

  static void zkWrite(ZooKeeper z, String path, byte[] data) throws Exception {
    StringBuilder p = new StringBuilder();
    String[] parts = path.substring(1).split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      p.append('/').append(parts[i]);
      try {
        z.create(p.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // already there
      }
    }
    try {
      z.setData(path, data, -1);
    } catch (KeeperException.NoNodeException e) {
      z.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }
}
