/*
 * SdkE2E: the writer SDK's end-to-end checks on a real cluster, driven by tests/e2e/test_sdk.py.
 *
 *   java -cp presplit-hbase.jar:$(hbase classpath) SdkE2E --zk Q --root /presplit-x
 *       [--auth-file F] COMMAND ...
 *
 * --auth-file: presplit's ZooKeeper credentials file; the SDK authenticates with it
 * (PresplitTables.Options.authFile) and so does zk-set's raw ZooKeeper client (its identity).
 *
 * Every command checks its own results and exits 1 with the reason on stderr when one is wrong;
 * stdout carries one JSON line of evidence. What the SDK did is verified through the plain HBase
 * client (physical tables, region boundaries), never through the SDK alone.
 *
 * Commands:
 *   zk-set PATH                      write stdin to a znode (created with parents when missing);
 *                                    a refusal (e.g. NoAuth) fails with ZooKeeper's error
 *   create-salted TABLE BUCKETS ENC  a table split at the salt prefixes of 1..BUCKETS-1, family f
 *   create-plain TABLE               an unsalted table, family f
 *   roundtrip TABLE ROWS             put/get/exists/delete/scanGroup through the SDK
 *   compare TABLE PLAIN ROWS SEED    merged range scans (forward, reversed, limits) == plain scans
 *   writer TABLE COUNT SLEEP_MS [SESSION_MS [STOP_AFTER_NEW]]
 *                                    sequential puts of seq keys; reports each key's generation.
 *                                    With SESSION_MS > 0: that ZooKeeper session timeout, no
 *                                    periodic re-read (only watches bring changes) and the SDK's
 *                                    log on stderr at INFO. With STOP_AFTER_NEW: stops once that
 *                                    many rows went to a later generation (COUNT is a bound)
 *   writer-through TABLE STOP_FILE SLEEP_MS BUCKETS ENC
 *                                    sequential puts of seq keys until STOP_FILE exists, whatever
 *                                    the status says (a failed put ends the program); reports the
 *                                    status phase each row was written under, then checks with
 *                                    the plain HBase client that every row is in the table,
 *                                    salted into BUCKETS (murmur3, group delimiter '|'), in the
 *                                    region of its bucket
 *   verify-switch TABLE OLD OLDB NEW NEWB COUNT ENC
 *                                    old and new physical tables after a generation switch
 *   adopt-write TABLE ROWS           rows written the published code's way (no SDK)
 *   adopt-read TABLE ROWS            reads them back through the SDK
 *   drop TABLE...                    disable and delete tables (keeps the test cluster small)
 *   moving-hot TABLE GROUPS PHASES CONTROL_DIR
 *                                    puts through the SDK on groups "%04d" (0..GROUPS-1) of
 *                                    phase p's range [p*GROUPS/PHASES, (p+1)*GROUPS/PHASES) only:
 *                                    a hot logical range that moves when the test says so. The
 *                                    phase becomes p as soon as CONTROL_DIR/phase-<p> exists
 *                                    (phase 0 at start); it stops at CONTROL_DIR/stop. Prints
 *                                    "phase P <epoch ms>" once P's first batch is stored, and a JSON
 *                                    line with the rows written per phase at the end
 */

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import io.presplit.client.KeyLayout;
import io.presplit.client.KeyLayoutException;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltEncoding;
import io.presplit.client.SaltedTable;
import io.presplit.client.TableSnapshot;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class SdkE2E {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static PrintStream out;
  static String zk;
  static String root = "/presplit";
  static String authFile;

  public static void main(String[] argv) {
    out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    int rc = 0;
    try {
      List<String> args = new ArrayList<>(List.of(argv));
      while (!args.isEmpty() && args.get(0).startsWith("--")) {
        String flag = args.remove(0);
        if (flag.equals("--zk")) {
          zk = args.remove(0);
        } else if (flag.equals("--root")) {
          root = args.remove(0);
        } else if (flag.equals("--auth-file")) {
          authFile = args.remove(0);
        } else {
          throw new IllegalArgumentException("unknown flag " + flag);
        }
      }
      run(args);
    } catch (Throwable t) {
      System.err.println("SdkE2E: " + t);
      t.printStackTrace();
      rc = 1;
    }
    out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(rc);
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  /** The SDK's options: authenticated with --auth-file when given. */
  static PresplitTables.Options options() throws Exception {
    PresplitTables.Options options = new PresplitTables.Options();
    if (authFile != null) {
      options.authFile(java.nio.file.Path.of(authFile));
    }
    return options;
  }

  /** The identity line (user:password) of --auth-file, for the raw ZooKeeper client. */
  static byte[] identityOfAuthFile() throws Exception {
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(authFile))) {
      String[] kv = line.split("=", 2);
      if (kv.length == 2 && kv[0].strip().equals("identity")) {
        return kv[1].strip().getBytes(StandardCharsets.UTF_8);
      }
    }
    throw new IllegalArgumentException(authFile + " has no identity");
  }

  static Connection hbase() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    conf.setInt("hbase.client.retries.number", 10);
    return ConnectionFactory.createConnection(conf);
  }

  static void run(List<String> a) throws Exception {
    String cmd = a.get(0);
    switch (cmd) {
      case "zk-set":
        zkSet(a.get(1), System.in.readAllBytes());
        break;
      case "create-salted":
        createSalted(a.get(1), Integer.parseInt(a.get(2)), SaltEncoding.parse(a.get(3)));
        break;
      case "create-plain":
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          ensureNamespace(admin, TableName.valueOf(a.get(1)));
          admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(a.get(1)))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        }
        break;
      case "roundtrip":
        roundtrip(a.get(1), Integer.parseInt(a.get(2)));
        break;
      case "compare":
        compare(a.get(1), a.get(2), Integer.parseInt(a.get(3)), Long.parseLong(a.get(4)));
        break;
      case "writer":
        writer(a.get(1), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)),
            a.size() > 4 ? Integer.parseInt(a.get(4)) : 0,
            a.size() > 5 ? Integer.parseInt(a.get(5)) : 0);
        break;
      case "writer-through":
        writerThrough(a.get(1), a.get(2), Integer.parseInt(a.get(3)),
            Integer.parseInt(a.get(4)), SaltEncoding.parse(a.get(5)));
        break;
      case "verify-switch":
        verifySwitch(a.get(1), a.get(2), Integer.parseInt(a.get(3)), a.get(4),
            Integer.parseInt(a.get(5)), Integer.parseInt(a.get(6)), SaltEncoding.parse(a.get(7)));
        break;
      case "drop":
        try (Connection c = hbase(); Admin admin = c.getAdmin()) {
          for (String t : a.subList(1, a.size())) {
            TableName tn = TableName.valueOf(t);
            if (admin.tableExists(tn)) {
              if (admin.isTableEnabled(tn)) {
                admin.disableTable(tn);
              }
              admin.deleteTable(tn);
            }
          }
        }
        out.println("{}");
        break;
      case "adopt-write":
        adoptWrite(a.get(1), Integer.parseInt(a.get(2)));
        break;
      case "adopt-read":
        adoptRead(a.get(1), Integer.parseInt(a.get(2)));
        break;
      case "moving-hot":
        movingHot(a.get(1), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)),
            java.nio.file.Path.of(a.get(4)));
        break;
      default:
        throw new IllegalArgumentException("unknown command " + cmd);
    }
  }

  // ---- set-up -------------------------------------------------------------------------------

  static void zkSet(String path, byte[] data) throws Exception {
    java.util.concurrent.CountDownLatch up = new java.util.concurrent.CountDownLatch(1);
    ZooKeeper z = new ZooKeeper(zk, 30000, e -> up.countDown());
    if (authFile != null) {
      z.addAuthInfo("digest", identityOfAuthFile());
    }
    up.await();
    try {
      StringBuilder p = new StringBuilder();
      String[] parts = path.substring(1).split("/");
      for (int i = 0; i < parts.length - 1; i++) {
        p.append('/').append(parts[i]);
        try {
          z.create(p.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
          // fine
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

  static void ensureNamespace(Admin admin, TableName t) throws Exception {
    String ns = t.getNamespaceAsString();
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      if (d.getName().equals(ns)) {
        return;
      }
    }
    admin.createNamespace(NamespaceDescriptor.create(ns).build());
  }

  /** Salt prefixes written independently of the SDK: raw byte, or zero-padded digits. */
  static byte[] saltOf(int bucket, int buckets, SaltEncoding enc) {
    if (enc == SaltEncoding.BYTE) {
      return new byte[] {(byte) bucket};
    }
    int radix = enc == SaltEncoding.HEX ? 16 : 10;
    int width = Integer.toString(buckets - 1, radix).length();
    String s = Integer.toString(bucket, radix);
    while (s.length() < width) {
      s = "0" + s;
    }
    return Bytes.toBytes(s);
  }

  static void createSalted(String table, int buckets, SaltEncoding enc) throws Exception {
    byte[][] splits = new byte[buckets - 1][];
    for (int i = 1; i < buckets; i++) {
      splits[i - 1] = saltOf(i, buckets, enc);
    }
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      ensureNamespace(admin, TableName.valueOf(table));
      admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(table))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build(), splits);
    }
  }

  // ---- data ---------------------------------------------------------------------------------

  /** A logical key that fits the layout: group g (+ delimiter) + rest. */
  static byte[] keyOf(KeyLayout layout, String group, String rest) {
    byte[] g = Bytes.toBytes(group);
    if (layout.groupLength() > 0) {
      g = Bytes.toBytes(pad(group, layout.groupLength()));
      return Bytes.add(g, Bytes.toBytes(rest));
    }
    if (layout.groupDelimiter() != null) {
      return Bytes.add(g, layout.groupDelimiter(), Bytes.toBytes(rest));
    }
    return Bytes.add(g, Bytes.toBytes(rest));
  }

  static byte[] groupOf(KeyLayout layout, String group) {
    return layout.groupLength() > 0 ? Bytes.toBytes(pad(group, layout.groupLength()))
        : Bytes.toBytes(group);
  }

  static String pad(String s, int n) {
    StringBuilder b = new StringBuilder(s);
    while (b.length() < n) {
      b.append('_');
    }
    return b.substring(0, n);
  }

  static void roundtrip(String name, int rows) throws Exception {
    try (Connection c = hbase();
        PresplitTables tables = PresplitTables.open(c, zk, root, options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot s = t.awaitReady(Duration.ofSeconds(60));
      KeyLayout layout = s.layout();
      // Keys of 20 groups, with a group that has 50 rows (the reference look-up size).
      Map<String, List<byte[]>> byGroup = new TreeMap<>();
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        String group = i < 50 ? "g-big" : "g" + (i % 20);
        byte[] key = keyOf(layout, group, String.format("r%06d", i));
        byGroup.computeIfAbsent(group, k -> new ArrayList<>()).add(key);
        puts.add(new Put(key).addColumn(F, Q, Bytes.toBytes("v" + i)));
      }
      t.put(puts.subList(0, 10));
      for (Put p : puts.subList(10, 20)) {
        t.put(p);
      }
      t.put(puts.subList(20, puts.size()));
      // Every row is back by get, under its logical key.
      for (int i = 0; i < rows; i++) {
        byte[] key = puts.get(i).getRow();
        Result r = t.get(key);
        check(Bytes.equals(key, r.getRow()), "get row " + Bytes.toStringBinary(r.getRow()));
        check(Bytes.toString(r.getValue(F, Q)).equals("v" + i), "get value of " + i);
        check(t.exists(key), "exists " + i);
      }
      // The physical table holds exactly these rows, each under salt + logical key, in the
      // region of its bucket (one region per salt prefix).
      int physicalRows = 0;
      Map<String, Integer> perBucket = new TreeMap<>();
      try (Table raw = c.getTable(s.physicalTable());
          RegionLocator loc = c.getRegionLocator(s.physicalTable());
          ResultScanner sc = raw.getScanner(new Scan())) {
        for (Result r : sc) {
          byte[] row = r.getRow();
          KeyLayout.Decoded d = layout.decode(row); // checks the salt against the hash
          byte[] salt = layout.saltPrefix(d.bucket);
          check(Bytes.startsWith(row, salt), "salt");
          HRegionLocation where = loc.getRegionLocation(row);
          byte[] start = where.getRegion().getStartKey();
          check(start.length == 0 ? d.bucket == 0 : Bytes.equals(start, salt),
              "row " + Bytes.toStringBinary(row) + " in region starting "
                  + Bytes.toStringBinary(start));
          perBucket.merge(Bytes.toStringBinary(salt), 1, Integer::sum);
          physicalRows++;
        }
      }
      check(physicalRows == rows, "physical rows " + physicalRows + " != " + rows);
      // A group scan returns exactly that group's rows, in key order.
      int groupsChecked = 0;
      for (Map.Entry<String, List<byte[]>> e : byGroup.entrySet()) {
        List<Result> got = t.scanGroup(groupOf(layout, e.getKey()));
        TreeSet<byte[]> want = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        want.addAll(e.getValue());
        check(got.size() == want.size(), "group " + e.getKey() + ": " + got.size() + " rows, want "
            + want.size());
        int i = 0;
        for (byte[] k : want) {
          check(Bytes.equals(k, got.get(i++).getRow()), "group " + e.getKey() + " order");
        }
        groupsChecked++;
      }
      // The 50-row group (the reference look-up) is one round trip to one region: HBase's own
      // scan metrics count the RPCs and regions of the SDK's group scan.
      long groupRpcs;
      try (ResultScanner sc = t.groupScanner(groupOf(layout, "g-big"),
          new Scan().setScanMetricsEnabled(true))) {
        int n = 0;
        for (Result r = sc.next(); r != null; r = sc.next()) {
          n++;
        }
        org.apache.hadoop.hbase.client.metrics.ScanMetrics m = sc.getScanMetrics();
        check(n == 50, "group g-big: " + n + " rows");
        check(m != null, "no scan metrics for the group scan");
        groupRpcs = m.countOfRPCcalls.get();
        check(groupRpcs == 1, "group g-big took " + groupRpcs + " RPCs");
        check(m.countOfRegions.get() == 1, "group g-big read " + m.countOfRegions + " regions");
      }
      // A merged scan of the whole table visits every bucket's region once, in sum.
      long mergedRegions;
      try (ResultScanner sc = t.scan(new Scan().setScanMetricsEnabled(true))) {
        int n = 0;
        for (Result r = sc.next(); r != null; r = sc.next()) {
          n++;
        }
        check(n == rows, "merged scan: " + n + " rows");
        mergedRegions = sc.getScanMetrics().countOfRegions.get();
        check(mergedRegions == layout.buckets(), "merged scan read " + mergedRegions
            + " regions, want one per bucket (" + layout.buckets() + ")");
      }
      // Deletes.
      byte[] gone = puts.get(rows - 1).getRow();
      t.delete(gone);
      check(!t.exists(gone) && t.get(gone).isEmpty(), "deleted row still there");
      // A key that does not fit the layout is refused before anything is sent.
      String refused = "none";
      if (layout.groupLength() > 0 || layout.groupDelimiter() != null) {
        try {
          t.put(new Put(Bytes.toBytes("x")).addColumn(F, Q, Bytes.toBytes("v")));
          throw new AssertionError("a key without a complete group was accepted");
        } catch (KeyLayoutException e) {
          refused = e.getMessage();
        }
      }
      out.println("{\"table\":\"" + name + "\",\"physical_table\":\"" + s.physicalTable()
          + "\",\"rows\":" + physicalRows + ",\"buckets_used\":" + perBucket.size()
          + ",\"groups_checked\":" + groupsChecked + ",\"group_scan_rpcs\":" + groupRpcs
          + ",\"merged_scan_regions\":" + mergedRegions + ",\"layout\":" + layout
          + ",\"refused\":\"" + refused.replace("\\", "\\\\").replace("\"", "'") + "\"}");
    }
  }

  // ---- merged scans vs a plain table --------------------------------------------------------

  static List<String> rowsOf(ResultScanner sc) throws Exception {
    List<String> keys = new ArrayList<>();
    try (sc) {
      for (Result r : sc) {
        keys.add(Bytes.toStringBinary(r.getRow()) + "=" + Bytes.toString(r.getValue(F, Q)));
      }
    }
    return keys;
  }

  static void compare(String name, String plainName, int rows, long seed) throws Exception {
    Random rnd = new Random(seed);
    try (Connection c = hbase(); PresplitTables tables = PresplitTables.open(c, zk, root, options());
        Table plain = c.getTable(TableName.valueOf(plainName))) {
      SaltedTable t = tables.table(name);
      KeyLayout layout = t.awaitReady(Duration.ofSeconds(60)).layout();
      List<Put> salted = new ArrayList<>();
      List<Put> unsalted = new ArrayList<>();
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        String group = "k" + Integer.toString(rnd.nextInt(400), 36);
        byte[] key = keyOf(layout, group, Integer.toString(rnd.nextInt(1_000_000), 36));
        keys.add(key);
        byte[] v = Bytes.toBytes("v" + i);
        salted.add(new Put(key).addColumn(F, Q, v));
        unsalted.add(new Put(key).addColumn(F, Q, v));
      }
      t.put(salted);
      plain.put(unsalted);
      int scans = 0;
      long compared = 0;
      List<byte[]> bounds = new ArrayList<>();
      bounds.add(new byte[0]);
      for (int i = 0; i < 6; i++) {
        bounds.add(keys.get(rnd.nextInt(keys.size())));
        bounds.add(Bytes.toBytes("k" + Integer.toString(rnd.nextInt(400), 36)));
      }
      int[] limits = {0, 1, 7, 100};
      for (int i = 0; i < 40; i++) {
        byte[] lo = bounds.get(rnd.nextInt(bounds.size()));
        byte[] hi = bounds.get(rnd.nextInt(bounds.size()));
        if (lo.length > 0 && hi.length > 0 && Bytes.compareTo(lo, hi) > 0) {
          byte[] x = lo;
          lo = hi;
          hi = x;
        }
        boolean reversed = i % 2 == 1;
        int limit = limits[(i / 2) % limits.length];
        Scan logical = reversed ? new Scan().withStartRow(hi).withStopRow(lo).setReversed(true)
            : new Scan().withStartRow(lo).withStopRow(hi);
        if (reversed && hi.length > 0) {
          // HBase's reversed start row is inclusive; use the same bounds [lo, hi) as forward.
          logical.withStartRow(hi, false);
        }
        if (reversed && lo.length > 0) {
          logical.withStopRow(lo, true);
        }
        if (limit > 0) {
          logical.setLimit(limit);
        }
        if (i % 5 == 0) {
          logical.setCaching(3); // many small batches: exercises back-pressure refills
        }
        Scan plainScan = new Scan(logical);
        List<String> want = rowsOf(plain.getScanner(plainScan));
        List<String> got = rowsOf(t.scan(logical));
        check(want.equals(got), "scan " + i + " [" + Bytes.toStringBinary(lo) + ", "
            + Bytes.toStringBinary(hi) + ") reversed=" + reversed + " limit=" + limit
            + ": plain " + want.size() + " rows, SDK " + got.size() + " rows; first difference "
            + firstDifference(want, got));
        scans++;
        compared += want.size();
      }
      // The whole table, both ways.
      List<String> all = rowsOf(plain.getScanner(new Scan()));
      check(all.equals(rowsOf(t.scan(new byte[0], new byte[0]))), "full forward scan differs");
      List<String> allReversed = rowsOf(plain.getScanner(new Scan().setReversed(true)));
      check(allReversed.equals(rowsOf(t.scan(new Scan().setReversed(true)))),
          "full reversed scan differs");
      // A merged scan closed part-way, its buckets suspended for back-pressure (3 rows a batch):
      // close must end them without waiting for the reader, and the next scan reads everything.
      long closeStart = System.nanoTime();
      try (ResultScanner early = t.scan(new Scan().setCaching(3))) {
        for (int i = 0; i < 5; i++) {
          check(early.next() != null, "a scan closed early: row " + i + " missing");
        }
      }
      check(System.nanoTime() - closeStart < 10_000_000_000L,
          "closing a merged scan part-way took more than 10 s");
      check(all.equals(rowsOf(t.scan(new byte[0], new byte[0]))),
          "a full scan after one closed early differs");
      out.println("{\"table\":\"" + name + "\",\"rows\":" + all.size() + ",\"range_scans\":"
          + scans + ",\"rows_compared\":" + compared + ",\"buckets\":" + layout.buckets() + "}");
    }
  }

  static String firstDifference(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      if (!a.get(i).equals(b.get(i))) {
        return "at " + i + ": " + a.get(i) + " vs " + b.get(i);
      }
    }
    return "lengths " + a.size() + " vs " + b.size();
  }

  // ---- generation switch ---------------------------------------------------------------------

  static byte[] seqKey(int seq) {
    return Bytes.toBytes(String.format("w%03d|%08d", seq % 97, seq));
  }

  /**
   * The SDK's log at INFO on stderr (stdout carries the JSON evidence). Replaces the default
   * configuration, which HBase's classes set up before main with a console on the real stdout.
   */
  static void logSdkToStderr() {
    var b = org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory
        .newConfigurationBuilder();
    b.add(b.newAppender("stderr", "Console").addAttribute("target", "SYSTEM_ERR")
        .add(b.newLayout("PatternLayout")
            .addAttribute("pattern", "%d{HH:mm:ss.SSS} %p %c{1}: %m%n")));
    b.add(b.newRootLogger(org.apache.logging.log4j.Level.ERROR).add(b.newAppenderRef("stderr")));
    b.add(b.newLogger("io.presplit", org.apache.logging.log4j.Level.INFO));
    org.apache.logging.log4j.core.config.Configurator.reconfigure(b.build());
  }

  // Writes rows 0, 1, 2, ... through the SDK. It stops after `count` rows, or, when
  // `stopAfterNew` > 0, once it has written that many rows in a generation other than the first
  // (`count` is then only a bound): a test can take its time to switch without the writer
  // running out of rows first. Progress goes to stderr every 100 rows.
  static void writer(String name, int count, int sleepMs, int sessionMs, int stopAfterNew)
      throws Exception {
    PresplitTables.Options options = options();
    if (sessionMs > 0) {
      options.sessionTimeoutMs(sessionMs).resyncMs(0);
      logSdkToStderr();
    }
    try (Connection c = hbase();
        PresplitTables tables = PresplitTables.open(c, zk, root, options)) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      long firstGeneration = t.snapshot().generation();
      int firstNew = -1;
      int written = 0;
      Map<Long, Integer> writesPerGeneration = new TreeMap<>();
      for (int seq = 0; seq < count; seq++) {
        if (stopAfterNew > 0 && firstNew >= 0 && seq - firstNew >= stopAfterNew) {
          break;
        }
        TableSnapshot before = t.snapshot();
        t.put(new Put(seqKey(seq)).addColumn(F, Q, Bytes.toBytes(seq)));
        writesPerGeneration.merge(before.generation(), 1, Integer::sum);
        written++;
        if (firstNew < 0 && before.generation() != firstGeneration) {
          firstNew = seq;
          System.err.println("writer: generation " + before.generation() + " from seq " + seq);
        }
        if (seq % 100 == 0) {
          System.err.println("writer: " + seq + " written, generation " + before.generation());
        }
        if (sleepMs > 0) {
          Thread.sleep(sleepMs);
        }
      }
      TableSnapshot end = t.snapshot();
      out.println("{\"written\":" + written + ",\"first_seq_in_new_generation\":" + firstNew
          + ",\"final_generation\":" + end.generation() + ",\"final_physical_table\":\""
          + end.physicalTable() + "\",\"final_buckets\":" + end.buckets()
          + ",\"writes_per_generation\":\"" + writesPerGeneration + "\"}");
    }
  }

  // The control plane failing never stops the data plane: writes go on while the status says
  // 'invalid' or 'error' for the same table. Progress on stderr: a line at every phase change and
  // every 50 rows, each naming the phase of the snapshot the row was written with.
  static void writerThrough(String name, String stopFile, int sleepMs, int buckets,
      SaltEncoding enc) throws Exception {
    PresplitTables.Options options = new PresplitTables.Options().resyncMs(1000);
    logSdkToStderr();
    java.nio.file.Path stop = java.nio.file.Path.of(stopFile);
    Map<String, Integer> perPhase = new TreeMap<>();
    int written = 0;
    TableName physical;
    try (Connection c = hbase();
        PresplitTables tables = PresplitTables.open(c, zk, root, options)) {
      SaltedTable t = tables.table(name);
      physical = t.awaitReady(Duration.ofSeconds(60)).physicalTable();
      String phase = null;
      for (int seq = 0; !java.nio.file.Files.exists(stop); seq++) {
        TableSnapshot before = t.snapshot();
        t.put(new Put(seqKey(seq)).addColumn(F, Q, Bytes.toBytes(seq)));
        written++;
        String now = before.phase() + (before.isCarriedOver() ? " (carried over)" : "");
        perPhase.merge(before.phase(), 1, Integer::sum);
        if (!now.equals(phase)) {
          System.err.println("writer-through: phase " + now + " from seq " + seq + ", "
              + before.buckets() + " buckets");
          phase = now;
        }
        if (seq % 50 == 0) {
          System.err.println("writer-through: " + seq + " written, phase " + now);
        }
        if (sleepMs > 0) {
          Thread.sleep(sleepMs);
        }
      }
    }
    // What the table holds, through the plain HBase client: every row once, salted as the table
    // was built, in its bucket's region.
    KeyLayout built = KeyLayout.of(buckets, enc, 0, io.presplit.client.SaltHash.MURMUR3, false, 0,
        Bytes.toBytes("|"));
    try (Connection c = hbase(); RegionLocator loc = c.getRegionLocator(physical)) {
      Map<Integer, byte[]> seqs = physicalSeqs(c, physical.getNameAsString(), built);
      for (Map.Entry<Integer, byte[]> e : seqs.entrySet()) {
        KeyLayout.Decoded d = built.decode(e.getValue());
        byte[] start = loc.getRegionLocation(e.getValue()).getRegion().getStartKey();
        check(start.length == 0 ? d.bucket == 0 : Bytes.equals(start, built.saltPrefix(d.bucket)),
            "row " + Bytes.toStringBinary(e.getValue()) + " outside its bucket's region");
      }
      for (int seq = 0; seq < written; seq++) {
        check(seqs.containsKey(seq), "write " + seq + " was lost");
      }
      check(seqs.size() == written, seqs.size() + " rows in the table, " + written + " written");
    }
    StringBuilder phases = new StringBuilder();
    for (Map.Entry<String, Integer> e : perPhase.entrySet()) {
      phases.append(phases.length() == 0 ? "" : ",").append('"').append(e.getKey()).append("\":")
          .append(e.getValue());
    }
    out.println("{\"written\":" + written + ",\"buckets\":" + buckets + ",\"rows_per_phase\":{"
        + phases + "}}");
  }

  static Map<Integer, byte[]> physicalSeqs(Connection c, String table, KeyLayout layout)
      throws Exception {
    Map<Integer, byte[]> seqs = new HashMap<>();
    try (Table raw = c.getTable(TableName.valueOf(table));
        ResultScanner sc = raw.getScanner(new Scan())) {
      for (Result r : sc) {
        layout.decode(r.getRow()); // every row carries the salt of this generation's layout
        int seq = Bytes.toInt(r.getValue(F, Q));
        check(Bytes.equals(layout.logicalKey(r.getRow()), seqKey(seq)), "row/value mismatch");
        check(seqs.put(seq, r.getRow()) == null, "seq " + seq + " twice in " + table);
      }
    }
    return seqs;
  }

  static void verifySwitch(String name, String oldTable, int oldBuckets, String newTable,
      int newBuckets, int count, SaltEncoding enc) throws Exception {
    KeyLayout oldLayout = KeyLayout.of(oldBuckets, enc, 0, io.presplit.client.SaltHash.MURMUR3,
        false, 0, Bytes.toBytes("|"));
    KeyLayout newLayout = oldLayout.withBuckets(newBuckets);
    try (Connection c = hbase()) {
      Map<Integer, byte[]> inOld = physicalSeqs(c, oldTable, oldLayout);
      Map<Integer, byte[]> inNew = physicalSeqs(c, newTable, newLayout);
      check(!inOld.isEmpty() && !inNew.isEmpty(),
          "old " + inOld.size() + " rows, new " + inNew.size() + ": the switch did not happen"
              + " while writing");
      int maxOld = inOld.keySet().stream().max(Integer::compare).get();
      int minNew = inNew.keySet().stream().min(Integer::compare).get();
      for (int seq = 0; seq < count; seq++) {
        boolean o = inOld.containsKey(seq);
        boolean n = inNew.containsKey(seq);
        check(o || n, "write " + seq + " was lost");
        check(!(o && n), "write " + seq + " went to both generations");
      }
      check(maxOld < minNew, "after the first write to the new generation (seq " + minNew
          + "), write " + maxOld + " still went to the old one");
      check(inOld.size() + inNew.size() == count, "extra rows");
      // The migration's catch-up copy (done here by hand): old rows re-keyed to the new salt.
      try (Table dst = c.getTable(TableName.valueOf(newTable))) {
        List<Put> copy = new ArrayList<>();
        for (Map.Entry<Integer, byte[]> e : inOld.entrySet()) {
          copy.add(new Put(newLayout.encode(seqKey(e.getKey()))).addColumn(F, Q,
              Bytes.toBytes(e.getKey())));
        }
        dst.put(copy);
      }
      // Every write is now readable through the SDK, which uses the new generation.
      try (PresplitTables tables = PresplitTables.open(c, zk, root, options())) {
        SaltedTable t = tables.table(name);
        check(t.snapshot().physicalTable().getNameAsString().equals(newTable),
            "SDK not on the new generation: " + t.snapshot());
        List<Get> gets = new ArrayList<>();
        for (int seq = 0; seq < count; seq++) {
          gets.add(new Get(seqKey(seq)));
        }
        Result[] rs = t.get(gets);
        for (int seq = 0; seq < count; seq++) {
          check(!rs[seq].isEmpty() && Bytes.toInt(rs[seq].getValue(F, Q)) == seq,
              "seq " + seq + " not readable after the switch");
        }
      }
      out.println("{\"old_rows\":" + inOld.size() + ",\"new_rows\":" + inNew.size()
          + ",\"last_old_seq\":" + maxOld + ",\"first_new_seq\":" + minNew + ",\"lost\":0}");
    }
  }

  // ---- adoption ----------------------------------------------------------------------------

  static String md5(String s) throws Exception {
    byte[] d = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
    StringBuilder b = new StringBuilder();
    for (byte x : d) {
      b.append(String.format("%02x", x));
    }
    return b.toString();
  }

  static String checkId(int i) {
    return "CHK" + (i % 37) + "X" + (i % 37 * 7919);
  }

  /** The published bulk-load code's row key: salt + MD5(check_id) + id, no presplit code. */
  static String publishedRowKey(String checkId, String id) throws Exception {
    String hashed = md5(checkId);
    int salt = Math.abs(hashed.hashCode() % 10);
    return salt + hashed + id;
  }

  static void adoptWrite(String table, int rows) throws Exception {
    try (Connection c = hbase(); Admin admin = c.getAdmin()) {
      TableName tn = TableName.valueOf(table);
      ensureNamespace(admin, tn);
      byte[][] splits = new byte[9][];
      for (int i = 1; i <= 9; i++) {
        splits[i - 1] = Bytes.toBytes(Integer.toString(i));
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F)
              .setCompressionType(Compression.Algorithm.SNAPPY)
              .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
              .setBloomFilterType(BloomType.ROW).build())
          .build(), splits);
      try (Table t = c.getTable(tn)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          String id = md5("record-" + i);
          puts.add(new Put(Bytes.toBytes(publishedRowKey(checkId(i), id)))
              .addColumn(F, Bytes.toBytes("check_id"), Bytes.toBytes(checkId(i))));
        }
        t.put(puts);
      }
    }
    out.println("{\"written\":" + rows + "}");
  }

  static void adoptRead(String name, int rows) throws Exception {
    try (Connection c = hbase();
        PresplitTables tables = PresplitTables.open(c, zk, root, options())) {
      SaltedTable t = tables.table(name);
      TableSnapshot s = t.awaitReady(Duration.ofSeconds(60));
      Map<String, Integer> want = new TreeMap<>();
      for (int i = 0; i < rows; i++) {
        want.merge(checkId(i), 1, Integer::sum);
      }
      int read = 0;
      for (Map.Entry<String, Integer> e : want.entrySet()) {
        List<Result> got = t.scanGroup(Bytes.toBytes(md5(e.getKey())));
        check(got.size() == e.getValue(), e.getKey() + ": " + got.size() + " rows, want "
            + e.getValue());
        for (Result r : got) {
          check(Bytes.toString(r.getValue(F, Bytes.toBytes("check_id"))).equals(e.getKey()),
              "wrong check_id");
        }
        read += got.size();
      }
      // A row written through the SDK lands where the published code would have put it.
      String id = md5("sdk-written");
      String checkId = checkId(3);
      t.put(new Put(Bytes.toBytes(md5(checkId) + id)).addColumn(F, Bytes.toBytes("check_id"),
          Bytes.toBytes(checkId)));
      try (Table raw = c.getTable(s.physicalTable())) {
        check(!raw.get(new Get(Bytes.toBytes(publishedRowKey(checkId, id)))).isEmpty(),
            "the SDK's row is not at the published code's row key");
      }
      out.println("{\"groups\":" + want.size() + ",\"rows_read\":" + read + ",\"layout\":"
          + s.layout() + "}");
    }
  }

  // ---- key visualizer ------------------------------------------------------------------------

  // A hot logical range that moves: every put of phase p lands on a group of p's range, and the
  // SDK salts each group into its bucket, so the load is one range in logical key space and a
  // stripe in every bucket physically. The test moves the phase (a file) once the daemon's
  // history has seen the current one, so nothing here depends on time.
  static void movingHot(String name, int groups, int phases, java.nio.file.Path control)
      throws Exception {
    check(groups >= phases && phases > 0, "GROUPS must be at least PHASES > 0");
    long[] written = new long[phases];
    Random random = new Random(42);
    try (Connection c = hbase();
        PresplitTables tables = PresplitTables.open(c, zk, root, options())) {
      SaltedTable t = tables.table(name);
      t.awaitReady(Duration.ofSeconds(60));
      int phase = -1;
      int announced = -1;
      long n = 0;
      while (!java.nio.file.Files.exists(control.resolve("stop"))) {
        int next = phase < 0 ? 0 : phase;
        while (next + 1 < phases
            && java.nio.file.Files.exists(control.resolve("phase-" + (next + 1)))) {
          next++;
        }
        phase = next;
        int from = phase * groups / phases;
        int to = (phase + 1) * groups / phases;
        List<Put> batch = new ArrayList<>(100);
        for (int i = 0; i < 100; i++, n++) {
          int group = from + random.nextInt(to - from);
          batch.add(new Put(Bytes.toBytes(String.format("%04d|%010d", group, n)))
              .addColumn(F, Q, Bytes.toBytes(n)));
        }
        t.put(batch);
        written[phase] += batch.size();
        // A phase starts when its first batch is stored, not when it was chosen: the first
        // batch of all looks up the 16 regions, which takes seconds on a busy machine, and the
        // test counts the columns after this time as the phase's.
        if (announced != phase) {
          announced = phase;
          out.println("phase " + phase + " " + System.currentTimeMillis());
        }
      }
    }
    out.println("{\"written_per_phase\":" + java.util.Arrays.toString(written) + "}");
  }
}
