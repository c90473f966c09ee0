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
 *    - prefix: the best case a user gets without presplit: an unsalted table keyed
 *      [MD5(check_id)][id] (10 regions on the hex range of the MD5); a look-up is one plain
 *      prefix scan, with the scan settings the SDK's scanGroup uses (start/stop rows of the
 *      prefix, caching 100, PREAD). Only possible when the group is the leading part of the key
 *      and the keys need no salt against hot spots; salting exists because often they do.
 *    - index: the rejected two-table design: a data table keyed by id (10 regions on the id's
 *      hex range) and an index table MD5(check_id) -> one column per id (10 regions); a look-up
 *      is a Get of the index row, then one multi-get (Table.get(List)) of the N data rows.
 *    Same records, same family settings (FAST_DIFF, ROW bloom filter), all tables flushed and
 *    major-compacted before measuring. L look-ups of random groups after W discarded, each group
 *    looked up by the three designs back to back, the order rotating; every look-up's result is
 *    checked (N rows, the same ids in every design). Reports p50/p90/p99/mean latency and the
 *    ratios salted/prefix and index/salted.
 * 2. Ordered scans: S rows "g%05d|r%06d" (100 rows per group) in
 *    - salted: 16 byte buckets, murmur3 salt from the '|'-delimited group; scanned through the
 *      SDK's merged scan (SaltedTable.scan: one scan per bucket on HBase's asynchronous client,
 *      k-way merge, rows in key order), and through the SDK's merged scan as it was before
 *      issue 12 (MergedScannerBefore: blocking scanners on the SDK's threads), so that the change
 *      is measured before/after in the same run;
 *    - plain: an unsalted copy of the same data pre-split into as many regions (16, on group
 *      boundaries), read two ways: one Table scanner (rows in key order), and 16 parallel
 *      scanners, one per region on a thread of its own, NOT merged (each thread counts its
 *      region's rows; no order across regions): the fastest way to read the rows when the order
 *      does not matter, so an upper bound for any ordered read.
 *    R rounds (after one discarded), each round a full scan of every row by the four variants
 *    in rotating order, then M range scans of about K rows each from random start groups, each
 *    range read by the four variants back to back in an order rotating from range to range (the
 *    parallel variant scans only the regions a range touches). rows/s
 *    per round and the client's CPU per row (the JVM's process CPU time over the variant's
 *    scans, all threads: the SDK's reader and fetch threads, HBase's client threads, GC); mean,
 *    sd, and the per-round ratios salted/plain variant; the target compares the salted scan
 *    with the best plain variant; the SDK's scan is also compared with its version before
 *    issue 12. Every round checks that all variants read the same number of rows; the first
 *    full scans are checked for the same rows (in the same order for the three ordered
 *    variants).
 *    --caching C sets Scan.setCaching(C) on all; default: none sets it (HBase's own default for
 *    the plain scans, the SDK's per-bucket default of 1,000 for the merged one).
 * With PRESPLIT_BENCH_SUMMARY set, appends its summary rows to that file (bench/run_all.sh).
 * Exit code: 0 when measured (whatever the ratios), 1 on an error or a wrong result.
 */

import io.presplit.client.KeyLayout;
import io.presplit.client.Md5Keys;
import io.presplit.client.MergedScannerBefore;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
  static final String CHECK_PREFIX = NS + ":check_by_group";
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
    stopFlightRecordings();
    Runtime.getRuntime().halt(rc); // halt skips the shutdown hooks that would write a recording
  }

  /** Writes any flight recording started with -XX:StartFlightRecording=filename=... (profiling). */
  static void stopFlightRecordings() {
    if (!jdk.jfr.FlightRecorder.isInitialized()) {
      return;
    }
    for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
      try {
        r.stop(); // writes it to its destination, when it has one
      } catch (RuntimeException e) {
        System.err.println("SdkBench: flight recording " + r.getName() + ": " + e);
      }
    }
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
      recreate(admin, CHECK_PREFIX, hexSplits());
    }
    publish(CHECK, "{\"salt\": {\"buckets\": 10, \"encoding\": \"decimal\", \"hash\": "
        + "\"java-hashcode\", \"from\": \"group\"}, \"group\": {\"length\": 32}}", 10);

    Random r = new Random(5);
    String[] groupKeys = new String[groups]; // MD5(check_id)
    long t0 = System.nanoTime();
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table data = hbase.getTable(TableName.valueOf(CHECK_DATA));
        Table index = hbase.getTable(TableName.valueOf(CHECK_INDEX));
        Table byGroup = hbase.getTable(TableName.valueOf(CHECK_PREFIX))) {
      SaltedTable check = tables.table(CHECK);
      check.awaitReady(Duration.ofSeconds(60));
      for (int g = 0; g < groups; g++) {
        String checkId = String.format("CHK%07d", g);
        groupKeys[g] = Md5Keys.md5Hex(Bytes.toBytes(checkId));
        List<Put> salted = new ArrayList<>();
        List<Put> byId = new ArrayList<>();
        List<Put> prefixed = new ArrayList<>();
        Put indexRow = new Put(Bytes.toBytes(groupKeys[g]));
        for (int i = 0; i < groupRows; i++) {
          String id = hex(r, 32);
          Put put = record(new Put(Bytes.toBytes(groupKeys[g] + id)), checkId, id, r);
          salted.add(put);
          prefixed.add(new Put(put)); // the same cells, unsalted
          byId.add(record(new Put(Bytes.toBytes(id)), checkId, id, r));
          indexRow.addColumn(F, Bytes.toBytes(id), new byte[0]);
        }
        check.put(salted);
        byGroup.put(prefixed);
        data.put(byId);
        index.put(indexRow);
      }
    }
    System.out.printf("loaded %d records into each design in %.1f s%n", groups * groupRows,
        (System.nanoTime() - t0) / 1e9);
    try (Admin admin = hbase.getAdmin()) {
      settle(admin, CHECK, CHECK_DATA, CHECK_INDEX, CHECK_PREFIX);
    }

    int total = warmup + lookups;
    int designs = 3; // 0 = salted, 1 = index, 2 = prefix
    long[][] ns = new long[designs][lookups];
    Random pick = new Random(55);
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root);
        Table data = hbase.getTable(TableName.valueOf(CHECK_DATA));
        Table index = hbase.getTable(TableName.valueOf(CHECK_INDEX));
        Table byGroup = hbase.getTable(TableName.valueOf(CHECK_PREFIX))) {
      SaltedTable check = tables.table(CHECK);
      check.awaitReady(Duration.ofSeconds(60));
      for (int i = 0; i < total; i++) {
        String group = groupKeys[pick.nextInt(groups)];
        byte[] g = Bytes.toBytes(group);
        List<Set<String>> found = new ArrayList<>(List.of(Set.of(), Set.of(), Set.of()));
        for (int j = 0; j < designs; j++) {
          int d = (j + i) % designs; // every design goes first, second and third in turn
          long s0 = System.nanoTime();
          Set<String> ids = d == 0 ? lookupSalted(check, g)
              : d == 1 ? lookupIndex(index, data, g) : lookupPrefix(byGroup, g);
          long dt = System.nanoTime() - s0;
          found.set(d, ids);
          if (i >= warmup) {
            ns[d][i - warmup] = dt;
          }
        }
        if (found.get(0).size() != groupRows || !found.get(0).equals(found.get(1))
            || !found.get(0).equals(found.get(2))) {
          throw new AssertionError("group " + group + ": salted " + found.get(0).size()
              + " rows, index " + found.get(1).size() + " rows, prefix " + found.get(2).size()
              + " rows, or not the same ids");
        }
      }
    }
    System.out.printf("%-34s %10s %10s %10s %10s %10s%n", "ms per look-up", "p50", "p90", "p99",
        "mean", "max");
    String[] names = {"salted (SaltedTable.scanGroup)", "index (Get + multi-get)",
        "prefix (unsalted, one prefix scan)"};
    double[][] stats = new double[designs][];
    for (int v = 0; v < designs; v++) {
      stats[v] = stats(ns[v]);
      System.out.printf("%-34s %10.2f %10.2f %10.2f %10.2f %10.2f%n", names[v], stats[v][0],
          stats[v][1], stats[v][2], stats[v][3], stats[v][4]);
    }
    System.out.printf("%-34s %9.2fx %9.2fx %9.2fx %9.2fx%n", "salted / prefix (best case)",
        stats[0][0] / stats[2][0], stats[0][1] / stats[2][1], stats[0][2] / stats[2][2],
        stats[0][3] / stats[2][3]);
    System.out.printf("%-34s %9.2fx %9.2fx %9.2fx %9.2fx%n", "index / salted",
        stats[1][0] / stats[0][0], stats[1][1] / stats[0][1], stats[1][2] / stats[0][2],
        stats[1][3] / stats[0][3]);
    // Paired: the same group, looked up back to back.
    double[] paired = pairedRatios(ns[1], ns[0]);
    System.out.printf("paired per-look-up ratio index/salted: median %.2f, p10 %.2f, p90 %.2f, "
        + "salted faster in %.0f%% of pairs%n", paired[lookups / 2], paired[lookups / 10],
        paired[lookups * 9 / 10], 100.0 * countAbove(paired, 1.0) / lookups);
    double[] pairedPrefix = pairedRatios(ns[0], ns[2]);
    System.out.printf("paired per-look-up ratio salted/prefix: median %.2f, p10 %.2f, p90 %.2f%n",
        pairedPrefix[lookups / 2], pairedPrefix[lookups / 10], pairedPrefix[lookups * 9 / 10]);
    String note = String.format("%d look-ups of %d-row groups; paired salted/prefix median %.2f",
        lookups, groupRows, pairedPrefix[lookups / 2]);
    BenchSummary.row("sdk", "sdk.lookup.p50", "group look-up p50, ms", stats[0][0], stats[2][0],
        "unsalted table keyed by group, one prefix scan", stats[0][0] / stats[2][0],
        "presplit/baseline", null, null, note);
    BenchSummary.row("sdk", "sdk.lookup.p99", "group look-up p99, ms", stats[0][2], stats[2][2],
        "unsalted table keyed by group, one prefix scan", stats[0][2] / stats[2][2],
        "presplit/baseline", null, null, note);
    BenchSummary.row("sdk", "sdk.lookup.index.p50", "group look-up p50 vs the index design, ms",
        stats[0][0], stats[1][0], "two-table index design (Get + multi-get)",
        stats[1][0] / stats[0][0], "baseline/presplit", null, null, String.format(
            "p99 %.2f vs %.2f ms", stats[0][2], stats[1][2]));
  }

  /** Sorted per-look-up ratios a[i] / b[i]. */
  static double[] pairedRatios(long[] a, long[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = (double) a[i] / b[i];
    }
    Arrays.sort(r);
    return r;
  }

  /** The best case without presplit: one prefix scan, the settings scanGroup uses. */
  static Set<String> lookupPrefix(Table byGroup, byte[] group) throws Exception {
    Scan scan = new Scan().withStartRow(group, true).withStopRow(KeyLayout.prefixEnd(group), false)
        .setCaching(100).setReadType(Scan.ReadType.PREAD);
    Set<String> ids = new HashSet<>();
    try (ResultScanner rows = byGroup.getScanner(scan)) {
      for (Result row = rows.next(); row != null; row = rows.next()) {
        ids.add(Bytes.toString(row.getValue(F, Bytes.toBytes("id"))));
      }
    }
    return ids;
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

  static final int SCAN_REGIONS = 16;
  static final String[] SCAN_VARIANTS = {"salted, merged (SDK, 16 buckets)",
      "plain, one scanner (16 regions)", "plain, 16 parallel scanners, not merged",
      "salted, merged, SDK before issue 12 (blocking scanners)"};
  static final int BEFORE = 3; // the variant that is not a baseline but the SDK's old scan

  static void scanBench(Connection hbase, int rows, int rounds, int rangeRows, int ranges,
      int caching) throws Exception {
    System.out.printf("%n== ordered scans: %d rows, 16 buckets vs an unsalted table of 16 "
        + "regions, %d rounds, %d range scans of ~%d rows per round, caching %s ==%n", rows,
        rounds, ranges, rangeRows, caching > 0 ? Integer.toString(caching) : "default");
    int groups = (rows + 99) / 100;
    // The plain table's 16 regions, on group boundaries: region i holds [bounds[i], bounds[i+1]).
    byte[][] bounds = new byte[SCAN_REGIONS + 1][];
    bounds[0] = new byte[0];
    bounds[SCAN_REGIONS] = new byte[0];
    for (int i = 1; i < SCAN_REGIONS; i++) {
      bounds[i] = Bytes.toBytes(String.format("g%05d", i * groups / SCAN_REGIONS));
    }
    try (Admin admin = hbase.getAdmin()) {
      byte[][] splits = new byte[15][];
      for (int i = 1; i < 16; i++) {
        splits[i - 1] = new byte[] {(byte) i};
      }
      recreate(admin, EVENTS, splits);
      recreate(admin, EVENTS_PLAIN, Arrays.copyOfRange(bounds, 1, SCAN_REGIONS));
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
      int regions = admin.getRegions(TableName.valueOf(EVENTS_PLAIN)).size();
      if (regions != SCAN_REGIONS) {
        throw new AssertionError("the plain table has " + regions + " regions, not "
            + SCAN_REGIONS);
      }
    }

    int n = SCAN_VARIANTS.length;
    // [variant][round]: rows/s and client CPU ns per row
    double[][] full = new double[n][rounds];
    double[][] range = new double[n][rounds];
    double[][] fullCpu = new double[n][rounds];
    double[][] rangeCpu = new double[n][rounds];
    Random pick = new Random(77);
    ExecutorService pool = Executors.newFixedThreadPool(SCAN_REGIONS);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (PresplitTables tables = PresplitTables.open(hbase, zk, root)) {
      SaltedTable events = tables.table(EVENTS);
      events.awaitReady(Duration.ofSeconds(60));
      Scanners scanners = new Scanners(tables, events, hbase, pool, bounds, caching);
      // Correctness (and a warm block cache for all): the same rows, in the same order for the
      // ordered variants, and as the same set for the parallel one (an order-free checksum).
      long[][] first = new long[n][];
      for (int v = 0; v < n; v++) {
        first[v] = scanners.scan(v, new byte[0], new byte[0], true);
      }
      if (first[0][0] != rows || first[1][0] != rows || first[2][0] != rows
          || first[BEFORE][0] != rows || first[0][1] != first[1][1]
          || first[0][1] != first[BEFORE][1] || first[0][2] != first[2][2]) {
        throw new AssertionError("full scans differ: rows " + first[0][0] + "/" + first[1][0]
            + "/" + first[2][0] + "/" + first[BEFORE][0] + ", ordered hashes " + first[0][1]
            + "/" + first[1][1] + "/" + first[BEFORE][1] + ", row sets " + first[0][2] + "/"
            + first[2][2]);
      }
      for (int round = -1; round < rounds; round++) {
        int[] starts = new int[ranges];
        for (int i = 0; i < ranges; i++) {
          starts[i] = pick.nextInt(Math.max(1, rows - rangeRows)) / 100 * 100;
        }
        long[] fullRows = new long[n];
        long[] rangeRowsRead = new long[n];
        for (int j = 0; j < n; j++) {
          int v = Math.floorMod(j + round, n); // every variant first, second and last in turn
          long c0 = os.getProcessCpuTime();
          long s0 = System.nanoTime();
          fullRows[v] = scanners.scan(v, new byte[0], new byte[0], false)[0];
          long s1 = System.nanoTime();
          long c1 = os.getProcessCpuTime();
          if (round >= 0) {
            full[v][round] = fullRows[v] / ((s1 - s0) / 1e9);
            fullCpu[v][round] = (c1 - c0) / (double) fullRows[v];
          }
        }
        // Each range is read by every variant back to back, in an order that rotates from range
        // to range: a burst of load on the shared machine (seconds long) falls on all variants
        // alike instead of on whichever read its block of ranges at the time.
        long[] rangeNanos = new long[n];
        long[] rangeCpuNanos = new long[n];
        for (int i = 0; i < ranges; i++) {
          byte[] from = eventKey(starts[i]);
          byte[] to = eventKey(starts[i] + rangeRows);
          for (int j = 0; j < n; j++) {
            int v = Math.floorMod(j + i + round, n);
            long c0 = os.getProcessCpuTime();
            long s0 = System.nanoTime();
            rangeRowsRead[v] += scanners.scan(v, from, to, false)[0];
            rangeNanos[v] += System.nanoTime() - s0;
            rangeCpuNanos[v] += os.getProcessCpuTime() - c0;
          }
        }
        if (round >= 0) {
          for (int v = 0; v < n; v++) {
            range[v][round] = rangeRowsRead[v] / (rangeNanos[v] / 1e9);
            rangeCpu[v][round] = rangeCpuNanos[v] / (double) rangeRowsRead[v];
          }
        }
        for (int v = 1; v < n; v++) {
          if (fullRows[v] != fullRows[0] || rangeRowsRead[v] != rangeRowsRead[0]) {
            throw new AssertionError("round " + round + ": " + SCAN_VARIANTS[v] + " read "
                + fullRows[v] + " + " + rangeRowsRead[v] + " rows, " + SCAN_VARIANTS[0] + " "
                + fullRows[0] + " + " + rangeRowsRead[0]);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    String fullLabel = "full scan (" + rows + " rows)";
    String rangeLabel = ranges + " range scans of ~" + rangeRows + " rows";
    report(fullLabel, full, fullCpu, "sdk.scan.full", "full scan");
    report(rangeLabel, range, rangeCpu, "sdk.scan.ranges", "range scans of ~" + rangeRows
        + " rows");
  }

  /** The three ways of reading the rows; one instance per benchmark, its pool shared. */
  static final class Scanners {
    final PresplitTables tables;
    final SaltedTable salted;
    final Connection hbase;
    final ExecutorService pool;
    final byte[][] bounds;
    final int caching;

    Scanners(PresplitTables tables, SaltedTable salted, Connection hbase, ExecutorService pool,
        byte[][] bounds, int caching) {
      this.tables = tables;
      this.salted = salted;
      this.hbase = hbase;
      this.pool = pool;
      this.bounds = bounds;
      this.caching = caching;
    }

    Scan scan(byte[] start, byte[] stop) {
      Scan scan = new Scan().withStartRow(start).withStopRow(stop);
      if (caching > 0) {
        scan.setCaching(caching);
      }
      return scan;
    }

    /**
     * Reads [start, stop) with variant v: {rows, an order-sensitive hash of the row keys (0 for
     * the parallel variant), an order-free checksum of them}, the hashes only when asked.
     */
    long[] scan(int v, byte[] start, byte[] stop, boolean hash) throws Exception {
      if (v == 0) {
        try (ResultScanner s = salted.scan(scan(start, stop))) {
          return drain(s, hash);
        }
      }
      if (v == BEFORE) {
        try (ResultScanner s = MergedScannerBefore.scan(tables, salted, scan(start, stop))) {
          return drain(s, hash);
        }
      }
      if (v == 1) {
        try (Table t = hbase.getTable(TableName.valueOf(EVENTS_PLAIN));
            ResultScanner s = t.getScanner(scan(start, stop))) {
          return drain(s, hash);
        }
      }
      // One scanner per region the range touches, each on a pool thread, not merged.
      List<Future<long[]>> parts = new ArrayList<>();
      for (int i = 0; i < SCAN_REGIONS; i++) {
        byte[] lo = bounds[i];
        byte[] hi = bounds[i + 1];
        byte[] from = Bytes.compareTo(start, lo) > 0 ? start : lo;
        byte[] to = stop.length == 0 ? hi
            : hi.length == 0 || Bytes.compareTo(stop, hi) < 0 ? stop : hi;
        if (to.length > 0 && Bytes.compareTo(from, to) >= 0) {
          continue; // the range does not touch region i
        }
        parts.add(pool.submit(() -> {
          try (Table t = hbase.getTable(TableName.valueOf(EVENTS_PLAIN));
              ResultScanner s = t.getScanner(scan(from, to))) {
            return drain(s, hash);
          }
        }));
      }
      long[] sum = new long[3];
      for (Future<long[]> part : parts) {
        long[] p = part.get();
        sum[0] += p[0];
        sum[2] += p[2];
      }
      return sum;
    }

    static long[] drain(ResultScanner s, boolean hash) throws Exception {
      long n = 0;
      long ordered = 17;
      long set = 0;
      for (Result row = s.next(); row != null; row = s.next()) {
        n++;
        if (hash) {
          int h = Arrays.hashCode(row.getRow());
          ordered = ordered * 1_000_003L + h;
          set += h * 0x9E3779B97F4A7C15L;
        }
      }
      return new long[] {n, ordered, set};
    }
  }

  /** rows/s and client CPU per row of every variant, and the salted variant's ratios. */
  static void report(String what, double[][] rps, double[][] cpuPerRow, String id,
      String figure) {
    int n = rps.length;
    int rounds = rps[0].length;
    System.out.printf("%s, %d rounds:%n", what, rounds);
    System.out.printf("  %-56s %12s %10s %12s %12s %16s%n", "", "rows/s mean", "sd", "min", "max",
        "client CPU us/row");
    for (int v = 0; v < n; v++) {
      System.out.printf("  %-56s %,12.0f %,10.0f %,12.0f %,12.0f %10.2f ± %.2f%n",
          SCAN_VARIANTS[v], mean(rps[v]), sd(rps[v]), min(rps[v]), max(rps[v]),
          mean(cpuPerRow[v]) / 1e3, sd(cpuPerRow[v]) / 1e3);
    }
    int best = mean(rps[1]) >= mean(rps[2]) ? 1 : 2;
    for (int v = 1; v < n; v++) {
      double[] ratio = new double[rounds];
      for (int i = 0; i < rounds; i++) {
        ratio[i] = rps[0][i] / rps[v][i];
      }
      double[] sorted = ratio.clone();
      Arrays.sort(sorted);
      double ofMeans = mean(rps[0]) / mean(rps[v]);
      System.out.printf("  %s / %s: rows/s ratio of means %.3f; per-round ratios median "
          + "%.3f, sd %.3f, min %.3f, max %.3f; client CPU per row %.2fx%s%n",
          v == BEFORE ? "SDK now" : "salted", SCAN_VARIANTS[v],
          ofMeans, sorted[rounds / 2], sd(ratio), sorted[0], sorted[rounds - 1],
          mean(cpuPerRow[0]) / mean(cpuPerRow[v]), v == best
              ? String.format("   <- best plain variant; target >= 0.8x: %s",
                  ofMeans >= 0.8 ? "met" : "NOT met") : "");
      String which = v == 1 ? ".one_scanner" : v == 2 ? ".parallel" : ".sdk_before_issue12";
      BenchSummary.row("sdk", id + which, figure
          + (v == BEFORE ? ", rows/s, the SDK's merged scan now vs before" : ", rows/s"),
          mean(rps[0]), mean(rps[v]), SCAN_VARIANTS[v], ofMeans,
          "presplit/baseline", v == best ? ">= 0.8" : null,
          v == best ? ofMeans >= 0.8 : null, String.format("ratio of means over %d rounds, per-round %.2f..%.2f; "
              + "client CPU/row %.2f vs %.2f us%s", rounds, sorted[0], sorted[rounds - 1],
              mean(cpuPerRow[0]) / 1e3, mean(cpuPerRow[v]) / 1e3,
              v == best ? "; best plain variant" : ""));
    }
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
