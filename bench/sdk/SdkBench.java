/*
 * SdkBench: the writer SDK (io.presplit.client) on a running cluster, two measurements of
 * issue 5. Run by bench/run_sdk_bench.sh:
 *
 *   java -cp <classes>:<hbase cp>:presplit-hbase.jar SdkBench --zk HOST:PORT
 *        [--root /presplit-bench] [--groups G] [--group-rows N] [--lookups L] [--lookup-warmup W]
 *        [--scan-rows S] [--scan-rounds R] [--range-rows K] [--ranges M] [--caching C]
 *        [--only lookup|scan]
 *
 * The bench plays presplitd's part itself: it creates the physical tables with the HBase Admin,
 * pre-split on their salt prefixes, and writes each salted table's document and a "ready" status
 * into ZooKeeper under --root, so the SDK reads them as it would a daemon's. Tables live in the
 * namespace "sdkbench" and are recreated on every run.
 *
 * 1. Group look-ups (the reference case, docs/reference-case.md): G groups (check_ids) of N records each.
 *    - salted: one table, row key [salt][MD5(check_id)][id], 10 decimal buckets, java-hashcode
 *      salt from the 32-byte group (conf/tables/tinawang-check.json's layout); a look-up is
 *      SaltedTable.scanGroup(MD5(check_id)): one prefix scan of one bucket.
 *    - index: the rejected two-table design: a data table keyed by id (10 regions on the id's
 *      hex range) and an index table MD5(check_id) -> one column per id (10 regions); a look-up
 *      is a Get of the index row, then one multi-get (Table.get(List)) of the N data rows.
 *    Same records, same family settings (FAST_DIFF, ROW bloom filter), all tables flushed and
 *    major-compacted before measuring. L look-ups of random groups after W discarded, each group
 *    looked up by both designs back to back, the order alternating (ABBA); every look-up's
 *    result is checked (N rows, the same ids in both designs). Reports p50/p90/p99/mean latency
 *    and the ratios index/salted.
 * 2. Ordered scans: S rows "g%05d|r%06d" (100 rows per group) in
 *    - salted: 16 byte buckets, murmur3 salt from the '|'-delimited group; scanned through the
 *      SDK's merged scan (SaltedTable.scan: one scanner per bucket, k-way merge);
 *    - plain: an unsalted copy of the same data in one table (one region), plain Table scan.
 *    R rounds (after one discarded), each round both variants in alternating order: a full scan
 *    of every row, then M range scans of about K rows each from random start groups (the same
 *    ranges for both). rows/s per round; mean, sd, and the per-round ratios salted/plain. The
 *    first full scan of each is checked: the same rows in the same order.
 *    --caching C sets Scan.setCaching(C) on both; default: neither sets it (HBase's own default
 *    for the plain scan, the SDK's per-bucket default of 100 for the merged one).
 * Exit code: 0 when measured (whatever the ratios), 1 on an error or a wrong result.
 */

import io.presplit.client.KeyLayout;
import io.presplit.client.Md5Keys;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class SdkBench {
  static final byte[] F = Bytes.toBytes("f");
  static final String NS = "sdkbench";
  static final String CHECK = NS + ":check";
  static final String CHECK_DATA = NS + ":check_data";
  static final String CHECK_INDEX = NS + ":check_index";
  static final String EVENTS = NS + ":events16";
  static final String EVENTS_PLAIN = NS + ":events_plain";
  static final String HEX = "0123456789abcdef";

  static String zk;
  static String root = "/presplit-bench";

  public static void main(String[] args) throws Exception {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(
        org.apache.logging.log4j.Level.ERROR);
    int groups = 2000, groupRows = 50, lookups = 3000, lookupWarmup = 300;
    int scanRows = 200_000, scanRounds = 10, rangeRows = 2000, ranges = 20, caching = 0;
    String only = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--zk": zk = args[++i]; break;
        case "--root": root = args[++i]; break;
        case "--groups": groups = Integer.parseInt(args[++i]); break;
        case "--group-rows": groupRows = Integer.parseInt(args[++i]); break;
        case "--lookups": lookups = Integer.parseInt(args[++i]); break;
        case "--lookup-warmup": lookupWarmup = Integer.parseInt(args[++i]); break;
        case "--scan-rows": scanRows = Integer.parseInt(args[++i]); break;
        case "--scan-rounds": scanRounds = Integer.parseInt(args[++i]); break;
        case "--range-rows": rangeRows = Integer.parseInt(args[++i]); break;
        case "--ranges": ranges = Integer.parseInt(args[++i]); break;
        case "--caching": caching = Integer.parseInt(args[++i]); break;
        case "--only": only = args[++i]; break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (zk == null) {
      throw new IllegalArgumentException("--zk HOST:PORT is required");
    }
    int rc = 0;
    try (Connection hbase = connect()) {
      if (only == null || only.equals("lookup")) {
        lookupBench(hbase, groups, groupRows, lookups, lookupWarmup);
      }
      if (only == null || only.equals("scan")) {
        scanBench(hbase, scanRows, scanRounds, rangeRows, ranges, caching);
      }
    } catch (Throwable t) {
      System.err.println("SdkBench: " + t);
      t.printStackTrace();
      rc = 1;
    }
    System.out.flush();
    Runtime.getRuntime().halt(rc);
  }

  static Connection connect() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    return ConnectionFactory.createConnection(conf);
  }

  // ---- set-up: tables, documents, status ----------------------------------------------------

  static void zkSet(String path, String text) throws Exception {
    CountDownLatch up = new CountDownLatch(1);
    ZooKeeper z = new ZooKeeper(zk, 30000, e -> up.countDown());
    up.await();
    try {
      byte[] data = text.getBytes(StandardCharsets.UTF_8);
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
    } finally {
      z.close();
    }
  }

  /** The document and a ready status of generation 1, as presplitd would write them. */
  static void publish(String table, String layoutJson, int buckets) throws Exception {
    zkSet(root + "/tables/" + table, "{\"version\": 1, \"table\": \"" + table + "\", \"layout\": "
        + layoutJson + ", \"split\": {\"algorithm\": \"salt-buckets\"}, \"families\": "
        + "[{\"name\": \"f\"}]}");
    zkSet(root + "/status/" + table, "{\"table\": \"" + table + "\", \"phase\": \"ready\", "
        + "\"physical_table\": \"" + table + "\", \"generation\": 1, \"buckets\": " + buckets
        + ", \"regions\": " + buckets + ", \"error\": null}");
  }

  static void recreate(Admin admin, String table, byte[][] splits) throws Exception {
    boolean ns = Arrays.stream(admin.listNamespaceDescriptors())
        .anyMatch(d -> d.getName().equals(NS));
    if (!ns) {
      admin.createNamespace(NamespaceDescriptor.create(NS).build());
    }
    TableName tn = TableName.valueOf(table);
    if (admin.tableExists(tn)) {
      if (admin.isTableEnabled(tn)) {
        admin.disableTable(tn);
      }
      admin.deleteTable(tn);
    }
    TableDescriptorBuilder d = TableDescriptorBuilder.newBuilder(tn).setColumnFamily(
        ColumnFamilyDescriptorBuilder.newBuilder(F).setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
            .setBloomFilterType(BloomType.ROW).build());
    if (splits == null || splits.length == 0) {
      admin.createTable(d.build());
    } else {
      admin.createTable(d.build(), splits);
    }
  }

  /** Flush and major-compact, then wait until no compaction runs: one HFile per region. */
  static void settle(Admin admin, String... tables) throws Exception {
    for (String t : tables) {
      admin.flush(TableName.valueOf(t));
    }
    for (String t : tables) {
      admin.majorCompact(TableName.valueOf(t));
    }
    Thread.sleep(2000);
    long deadline = System.nanoTime() + 600_000_000_000L;
    for (String t : tables) {
      while (admin.getCompactionState(TableName.valueOf(t)) != CompactionState.NONE) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("compactions of " + t + " did not finish");
        }
        Thread.sleep(500);
      }
    }
  }

  static String hex(Random r, int n) {
    StringBuilder s = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      s.append(HEX.charAt(r.nextInt(16)));
    }
    return s.toString();
  }

  /** 10 regions over a 32-hex-char key space: split at 1/10, 2/10, ... of the first byte pair. */
  static byte[][] hexSplits() {
    byte[][] s = new byte[9][];
    for (int i = 1; i <= 9; i++) {
      s[i - 1] = Bytes.toBytes(String.format("%02x", i * 256 / 10));
    }
    return s;
  }

  // ---- 1. group look-ups --------------------------------------------------------------------

  static void lookupBench(Connection hbase, int groups, int groupRows, int lookups, int warmup)
      throws Exception {
    System.out.printf("%n== group look-ups: %d groups x %d rows, %d look-ups per design after %d "
        + "warm-up ==%n", groups, groupRows, lookups, warmup);
    try (Admin admin = hbase.getAdmin()) {
      byte[][] saltSplits = new byte[9][];
      for (int i = 1; i <= 9; i++) {
        saltSplits[i - 1] = Bytes.toBytes(Integer.toString(i));
      }
      recreate(admin, CHECK, saltSplits);
      recreate(admin, CHECK_DATA, hexSplits());
      recreate(admin, CHECK_INDEX, hexSplits());
    }
    publish(CHECK, "{\"salt\": {\"buckets\": 10, \"encoding\": \"decimal\", \"hash\": "
        + "\"java-hashcode\", \"from\": \"group\"}, \"group\": {\"length\": 32}}", 10);

    Random r = new Random(5);
    String[] groupKeys = new String[groups]; // MD5(check_id)
    long t0 = System.nanoTime();
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table data = hbase.getTable(TableName.valueOf(CHECK_DATA));
        Table index = hbase.getTable(TableName.valueOf(CHECK_INDEX))) {
      SaltedTable check = tables.table(CHECK);
      check.awaitReady(Duration.ofSeconds(60));
      for (int g = 0; g < groups; g++) {
        String checkId = String.format("CHK%07d", g);
        groupKeys[g] = Md5Keys.md5Hex(Bytes.toBytes(checkId));
        List<Put> salted = new ArrayList<>();
        List<Put> byId = new ArrayList<>();
        Put indexRow = new Put(Bytes.toBytes(groupKeys[g]));
        for (int i = 0; i < groupRows; i++) {
          String id = hex(r, 32);
          salted.add(record(new Put(Bytes.toBytes(groupKeys[g] + id)), checkId, id, r));
          byId.add(record(new Put(Bytes.toBytes(id)), checkId, id, r));
          indexRow.addColumn(F, Bytes.toBytes(id), new byte[0]);
        }
        check.put(salted);
        data.put(byId);
        index.put(indexRow);
      }
    }
    System.out.printf("loaded %d records into each design in %.1f s%n", groups * groupRows,
        (System.nanoTime() - t0) / 1e9);
    try (Admin admin = hbase.getAdmin()) {
      settle(admin, CHECK, CHECK_DATA, CHECK_INDEX);
    }

    int total = warmup + lookups;
    long[][] ns = new long[2][lookups]; // 0 = salted, 1 = index
    Random pick = new Random(55);
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table data = hbase.getTable(TableName.valueOf(CHECK_DATA));
        Table index = hbase.getTable(TableName.valueOf(CHECK_INDEX))) {
      SaltedTable check = tables.table(CHECK);
      check.awaitReady(Duration.ofSeconds(60));
      for (int i = 0; i < total; i++) {
        String group = groupKeys[pick.nextInt(groups)];
        byte[] g = Bytes.toBytes(group);
        Set<String> a = null;
        Set<String> b = null;
        for (int j = 0; j < 2; j++) {
          boolean saltedFirst = (i % 2 == 0);
          boolean salted = (j == 0) == saltedFirst;
          long s0 = System.nanoTime();
          Set<String> ids = salted ? lookupSalted(check, g) : lookupIndex(index, data, g);
          long dt = System.nanoTime() - s0;
          if (salted) {
            a = ids;
          } else {
            b = ids;
          }
          if (i >= warmup) {
            ns[salted ? 0 : 1][i - warmup] = dt;
          }
        }
        if (a.size() != groupRows || !a.equals(b)) {
          throw new AssertionError("group " + group + ": salted " + a.size() + " rows, index "
              + b.size() + " rows, equal " + a.equals(b));
        }
      }
    }
    System.out.printf("%-32s %10s %10s %10s %10s %10s%n", "ms per look-up", "p50", "p90", "p99",
        "mean", "max");
    String[] names = {"salted (SaltedTable.scanGroup)", "index (Get + multi-get)"};
    double[][] stats = new double[2][];
    for (int v = 0; v < 2; v++) {
      stats[v] = stats(ns[v]);
      System.out.printf("%-32s %10.2f %10.2f %10.2f %10.2f %10.2f%n", names[v], stats[v][0],
          stats[v][1], stats[v][2], stats[v][3], stats[v][4]);
    }
    System.out.printf("%-32s %9.2fx %9.2fx %9.2fx %9.2fx%n", "index / salted", stats[1][0] / stats[0][0],
        stats[1][1] / stats[0][1], stats[1][2] / stats[0][2], stats[1][3] / stats[0][3]);
    // Paired: the same group, looked up back to back.
    double[] paired = new double[lookups];
    for (int i = 0; i < lookups; i++) {
      paired[i] = (double) ns[1][i] / ns[0][i];
    }
    Arrays.sort(paired);
    System.out.printf("paired per-look-up ratio index/salted: median %.2f, p10 %.2f, p90 %.2f, "
        + "salted faster in %.0f%% of pairs%n", paired[lookups / 2], paired[lookups / 10],
        paired[lookups * 9 / 10], 100.0 * countAbove(paired, 1.0) / lookups);
  }

  static int countAbove(double[] xs, double x) {
    int n = 0;
    for (double v : xs) {
      n += v > x ? 1 : 0;
    }
    return n;
  }

  static Put record(Put p, String checkId, String id, Random r) {
    return p.addColumn(F, Bytes.toBytes("check_id"), Bytes.toBytes(checkId))
        .addColumn(F, Bytes.toBytes("id"), Bytes.toBytes(id))
        .addColumn(F, Bytes.toBytes("status"), Bytes.toBytes(r.nextInt(5)))
        .addColumn(F, Bytes.toBytes("ts"), Bytes.toBytes(1_700_000_000_000L + r.nextInt()))
        .addColumn(F, Bytes.toBytes("note"), Bytes.toBytes(hex(r, 120)));
  }

  static Set<String> lookupSalted(SaltedTable check, byte[] group) throws Exception {
    Set<String> ids = new HashSet<>();
    for (Result row : check.scanGroup(group)) {
      ids.add(Bytes.toString(row.getValue(F, Bytes.toBytes("id"))));
    }
    return ids;
  }

  static Set<String> lookupIndex(Table index, Table data, byte[] group) throws Exception {
    Result entry = index.get(new Get(group).addFamily(F));
    List<Get> gets = new ArrayList<>();
    for (Cell c : entry.rawCells()) {
      gets.add(new Get(CellUtil.cloneQualifier(c)).addFamily(F));
    }
    Set<String> ids = new HashSet<>();
    for (Result row : data.get(gets)) {
      ids.add(Bytes.toString(row.getValue(F, Bytes.toBytes("id"))));
    }
    return ids;
  }

  /** p50, p90, p99, mean, max in ms. */
  static double[] stats(long[] ns) {
    long[] s = ns.clone();
    Arrays.sort(s);
    double mean = Arrays.stream(s).average().orElse(0);
    return new double[] {s[s.length / 2] / 1e6, s[(int) (s.length * 0.9)] / 1e6,
        s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)] / 1e6, mean / 1e6,
        s[s.length - 1] / 1e6};
  }

  // ---- 2. ordered scans ---------------------------------------------------------------------

  static byte[] eventKey(int row) {
    return Bytes.toBytes(String.format("g%05d|r%06d", row / 100, row));
  }

  static void scanBench(Connection hbase, int rows, int rounds, int rangeRows, int ranges,
      int caching) throws Exception {
    System.out.printf("%n== ordered scans: %d rows, 16 buckets vs one unsalted table, %d rounds, "
        + "%d range scans of ~%d rows per round, caching %s ==%n", rows, rounds, ranges,
        rangeRows, caching > 0 ? Integer.toString(caching) : "default");
    try (Admin admin = hbase.getAdmin()) {
      byte[][] splits = new byte[15][];
      for (int i = 1; i < 16; i++) {
        splits[i - 1] = new byte[] {(byte) i};
      }
      recreate(admin, EVENTS, splits);
      recreate(admin, EVENTS_PLAIN, null);
    }
    publish(EVENTS, "{\"salt\": {\"buckets\": 16, \"encoding\": \"byte\", \"hash\": "
        + "\"murmur3\", \"from\": \"group\"}, \"group\": {\"delimiter\": \"|\"}}", 16);
    Random r = new Random(7);
    long t0 = System.nanoTime();
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table plain = hbase.getTable(TableName.valueOf(EVENTS_PLAIN))) {
      SaltedTable events = tables.table(EVENTS);
      events.awaitReady(Duration.ofSeconds(60));
      List<Put> a = new ArrayList<>();
      List<Put> b = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        byte[] key = eventKey(i);
        byte[] value = Bytes.toBytes(hex(r, 100));
        a.add(new Put(key).addColumn(F, Bytes.toBytes("v"), value));
        b.add(new Put(key).addColumn(F, Bytes.toBytes("v"), value));
        if (a.size() == 1000 || i == rows - 1) {
          events.put(a);
          plain.put(b);
          a = new ArrayList<>();
          b = new ArrayList<>();
        }
      }
    }
    System.out.printf("loaded %d rows into each table in %.1f s%n", rows,
        (System.nanoTime() - t0) / 1e9);
    try (Admin admin = hbase.getAdmin()) {
      settle(admin, EVENTS, EVENTS_PLAIN);
    }

    // 0 = salted merged, 1 = plain; [round] rows/s
    double[][] full = new double[2][rounds];
    double[][] range = new double[2][rounds];
    Random pick = new Random(77);
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table plain = hbase.getTable(TableName.valueOf(EVENTS_PLAIN))) {
      SaltedTable events = tables.table(EVENTS);
      events.awaitReady(Duration.ofSeconds(60));
      // Correctness: the same rows in the same order (and a warm block cache for both).
      long[] sa = scanOnce(events, null, new byte[0], new byte[0], caching, true);
      long[] sb = scanOnce(null, plain, new byte[0], new byte[0], caching, true);
      if (sa[0] != rows || sa[0] != sb[0] || sa[1] != sb[1]) {
        throw new AssertionError("full scans differ: salted " + sa[0] + " rows (hash " + sa[1]
            + "), plain " + sb[0] + " rows (hash " + sb[1] + ")");
      }
      for (int round = -1; round < rounds; round++) {
        int[] starts = new int[ranges];
        for (int i = 0; i < ranges; i++) {
          starts[i] = pick.nextInt(Math.max(1, rows - rangeRows)) / 100 * 100;
        }
        for (int j = 0; j < 2; j++) {
          int v = Math.floorMod(j + round, 2);
          SaltedTable st = v == 0 ? events : null;
          Table pt = v == 1 ? plain : null;
          long s0 = System.nanoTime();
          long n = scanOnce(st, pt, new byte[0], new byte[0], caching, false)[0];
          long s1 = System.nanoTime();
          long m = 0;
          for (int start : starts) {
            m += scanOnce(st, pt, eventKey(start), eventKey(start + rangeRows), caching, false)[0];
          }
          long s2 = System.nanoTime();
          if (round >= 0) {
            full[v][round] = n / ((s1 - s0) / 1e9);
            range[v][round] = m / ((s2 - s1) / 1e9);
          }
        }
      }
    }
    report("full scan (" + rows + " rows)", full);
    report(ranges + " range scans of ~" + rangeRows + " rows", range);
  }

  /** rows and an order-sensitive hash of the (logical) row keys. */
  static long[] scanOnce(SaltedTable salted, Table plain, byte[] start, byte[] stop, int caching,
      boolean hash) throws Exception {
    Scan scan = new Scan().withStartRow(start).withStopRow(stop);
    if (caching > 0) {
      scan.setCaching(caching);
    }
    long n = 0;
    long h = 17;
    try (ResultScanner s = salted != null ? salted.scan(scan) : plain.getScanner(scan)) {
      for (Result row = s.next(); row != null; row = s.next()) {
        n++;
        if (hash) {
          h = h * 1_000_003L + Arrays.hashCode(row.getRow());
        }
      }
    }
    return new long[] {n, h};
  }

  static void report(String what, double[][] rps) {
    int rounds = rps[0].length;
    double[] ratio = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      ratio[i] = rps[0][i] / rps[1][i];
    }
    double[] sorted = ratio.clone();
    Arrays.sort(sorted);
    System.out.printf("%s, rows/s over %d rounds:%n", what, rounds);
    System.out.printf("  salted, merged (16 buckets)  mean %,10.0f  sd %,9.0f  min %,10.0f  max "
        + "%,10.0f%n", mean(rps[0]), sd(rps[0]), min(rps[0]), max(rps[0]));
    System.out.printf("  plain, unsalted              mean %,10.0f  sd %,9.0f  min %,10.0f  max "
        + "%,10.0f%n", mean(rps[1]), sd(rps[1]), min(rps[1]), max(rps[1]));
    System.out.printf("  salted/plain: ratio of means %.3f; per-round ratios median %.3f, mean "
        + "%.3f, sd %.3f, min %.3f, max %.3f%n", mean(rps[0]) / mean(rps[1]),
        sorted[rounds / 2], mean(ratio), sd(ratio), sorted[0], sorted[rounds - 1]);
  }

  static double mean(double[] xs) {
    return Arrays.stream(xs).average().orElse(0);
  }

  static double sd(double[] xs) {
    double m = mean(xs);
    double s = 0;
    for (double x : xs) {
      s += (x - m) * (x - m);
    }
    return xs.length > 1 ? Math.sqrt(s / (xs.length - 1)) : 0;
  }

  static double min(double[] xs) {
    return Arrays.stream(xs).min().orElse(0);
  }

  static double max(double[] xs) {
    return Arrays.stream(xs).max().orElse(0);
  }
}
