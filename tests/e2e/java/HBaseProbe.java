/*
 * HBaseProbe: the end-to-end tests' independent view of an HBase cluster.
 *
 * It checks what presplitd did using only the official HBase client, and shares no code with
 * presplit (java-shim/ is deliberately not on its classpath). Run it with the JDK's single-file
 * source launcher:
 *
 *   java [JDK 17 flags] -cp "$(hbase classpath)" HBaseProbe.java [options] <command> [args]
 *
 * JDK 17 flags HBase's launcher uses (optional here; without them HBase logs warnings, which
 * this program silences anyway):
 *   --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
 *   --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
 *   -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
 *
 * Options:
 *   --zk HOST:PORT     ZooKeeper quorum (host or comma-separated hosts) and client port;
 *                      without it hbase-site.xml on the classpath decides
 *   --conf KEY=VALUE   any HBase client setting (repeatable), applied last
 *   --log-level LEVEL  HBase client log level on stderr (default ERROR)
 *   --timeout SECONDS  give up (exit 1) after this long; default 120, 0 = never. The client is
 *                      also set to fail within tens of seconds when ZooKeeper or HBase is down
 *
 * Commands (stdout carries only the result):
 *   describe TABLE       JSON, one line:
 *                        {"exists":false,"table":"ns:t"}  or
 *                        {"exists":true,"table":"ns:t","enabled":true,
 *                         "families":[{"name","compression","data_block_encoding","bloom_filter",
 *                                      "max_versions","ttl_seconds","block_size","in_memory"}],
 *                         "attributes":{...},   table values except IS_META and
 *                                               hbase.store.file-tracker.impl (set by HBase)
 *                         "regions":[{"name":encoded,"start_key","end_key","server"|null}],
 *                         "split_keys":[start key of every region but the first]}
 *                        keys in Bytes.toStringBinary form; regions are default replicas that
 *                        are not split parents, sorted by start key
 *   split-keys TABLE     one toStringBinary start key per line, every region but the first
 *   exists TABLE         true | false
 *   put TABLE ROW FAMILY:QUALIFIER VALUE
 *                        ROW and VALUE in toStringBinary form (\x00 escapes); prints nothing
 *   count TABLE          number of rows (full scan)
 *   flush TABLE          flushes the table's memstores to store files (waits for it), so the
 *                        family's compression codec really writes and reads data
 *   drop TABLE           disables and deletes the table (a drop behind presplitd's back);
 *                        prints nothing
 *   regions-count TABLE  number of regions (as in describe)
 *   regions TABLE        a table of the regions: number, start key, end key, encoded name
 *   region-loads TABLE   JSON, one line: the table's open regions as the RegionServers last
 *                        reported them to the master (every second on the test clusters):
 *                        {"regions":[{"name":encoded,"start_key","server":"host,port,start",
 *                                     "port","reads","writes"}]}, reads and writes the
 *                        region's request counters since it opened on that server
 *   fs-list URI          JSON, one line: {"exists":bool,"entries":[names]} of a directory of
 *                        any Hadoop file system (e.g. hdfs://127.0.0.1:PORT/dir); no HBase
 *
 * Exit status: 0 on success, 1 on any failure (usage, missing table for commands other than
 * describe/exists, cluster errors) with the error on stderr.
 */

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;

public class HBaseProbe {

  /** Table values HBase writes by itself; not reported as attributes. */
  private static final List<String> HBASE_SET = List.of("IS_META", "hbase.store.file-tracker.impl");

  private static PrintStream out;

  public static void main(String[] argv) {
    // stdout is for the result only: anything else that prints to System.out goes to stderr.
    out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    int rc;
    try {
      rc = run(argv);
    } catch (Usage u) {
      System.err.println("HBaseProbe: " + u.getMessage());
      rc = 1;
    } catch (Throwable t) {
      System.err.println("HBaseProbe: " + describe(t));
      Throwable root = t;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root != t) {
        System.err.println("HBaseProbe: root cause: " + describe(root));
      }
      rc = 1;
    }
    out.flush();
    System.err.flush();
    // HBase client threads may linger; the result is already out.
    Runtime.getRuntime().halt(rc);
  }

  private static String describe(Throwable t) {
    String msg = t.getMessage();
    if (msg != null) {
      int nl = msg.indexOf('\n');
      if (nl >= 0) {
        msg = msg.substring(0, nl);
      }
    }
    return t.getClass().getName() + (msg == null ? "" : ": " + msg);
  }

  private static final class Usage extends Exception {
    Usage(String m) {
      super(m);
    }
  }

  private static int run(String[] argv) throws Exception {
    String zk = null;
    String level = "ERROR";
    long timeoutSec = 120;
    List<String[]> confs = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      switch (a) {
        case "--zk":
          zk = need(argv, ++i, a);
          break;
        case "--conf": {
          String kv = need(argv, ++i, a);
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new Usage("--conf needs KEY=VALUE, got: " + kv);
          }
          confs.add(new String[] {kv.substring(0, eq), kv.substring(eq + 1)});
          break;
        }
        case "--log-level":
          level = need(argv, ++i, a);
          break;
        case "--timeout":
          try {
            timeoutSec = Long.parseLong(need(argv, ++i, a));
          } catch (NumberFormatException e) {
            throw new Usage("--timeout needs whole seconds, got: " + argv[i]);
          }
          break;
        default:
          rest.add(a);
      }
    }
    if (rest.isEmpty()) {
      throw new Usage("usage: HBaseProbe [--zk HOST:PORT] [--conf K=V]... "
          + "describe|split-keys|exists|count|flush|drop|regions|regions-count|region-loads TABLE"
          + " | put TABLE ROW FAM:QUAL VALUE | fs-list URI");
    }
    quietLogging(level);
    if (timeoutSec > 0) {
      watchdog(timeoutSec, String.join(" ", rest));
    }

    String cmd = rest.get(0);
    List<String> args = rest.subList(1, rest.size());
    int want = cmd.equals("put") ? 4 : 1;
    if (args.size() != want) {
      throw new Usage(cmd + " takes " + want + " argument(s), got " + args.size());
    }
    if (cmd.equals("fs-list")) {
      out.println(fsList(args.get(0)));
      return 0;
    }
    TableName tn = TableName.valueOf(args.get(0));

    Configuration conf = HBaseConfiguration.create();
    // Fail in tens of seconds, not minutes, when ZooKeeper or HBase is down (--conf overrides).
    conf.setInt("hbase.client.retries.number", 7);
    conf.setInt("zookeeper.recovery.retry", 2);
    conf.setInt("zookeeper.recovery.retry.intervalmill", 200);
    conf.setInt("zookeeper.session.timeout", 10000);
    conf.setInt("hbase.rpc.timeout", 10000);
    conf.setInt("hbase.client.operation.timeout", 30000);
    if (zk != null) {
      int colon = zk.lastIndexOf(':');
      if (colon <= 0 || colon == zk.length() - 1) {
        throw new Usage("--zk needs HOST:PORT, got: " + zk);
      }
      conf.set("hbase.zookeeper.quorum", zk.substring(0, colon));
      conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
    }
    for (String[] kv : confs) {
      conf.set(kv[0], kv[1]);
    }

    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      switch (cmd) {
        case "exists":
          out.println(admin.tableExists(tn));
          return 0;
        case "describe":
          out.println(describeJson(conn, admin, tn));
          return 0;
        case "split-keys": {
          List<RegionInfo> regions = regions(admin, tn);
          for (int i = 1; i < regions.size(); i++) {
            out.println(Bytes.toStringBinary(regions.get(i).getStartKey()));
          }
          return 0;
        }
        case "regions-count":
          out.println(regions(admin, tn).size());
          return 0;
        case "regions": {
          List<RegionInfo> regions = regions(admin, tn);
          out.printf("%-4s %-24s %-24s %s%n", "#", "START KEY", "END KEY", "REGION");
          for (int i = 0; i < regions.size(); i++) {
            RegionInfo r = regions.get(i);
            out.printf("%-4d %-24s %-24s %s%n", i + 1, quoted(r.getStartKey()),
                quoted(r.getEndKey()), r.getEncodedName());
          }
          return 0;
        }
        case "count":
          out.println(count(conn, tn));
          return 0;
        case "region-loads":
          out.println(regionLoads(admin, tn));
          return 0;
        case "flush":
          admin.flush(tn);
          return 0;
        case "put":
          put(conn, tn, args.get(1), args.get(2), args.get(3));
          return 0;
        case "drop":
          if (admin.isTableEnabled(tn)) {
            admin.disableTable(tn);
          }
          admin.deleteTable(tn);
          return 0;
        default:
          throw new Usage("unknown command: " + cmd);
      }
    }
  }

  private static void watchdog(long seconds, String what) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(seconds * 1000L);
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("HBaseProbe: timed out after " + seconds + " s: " + what);
      System.err.flush();
      Runtime.getRuntime().halt(1);
    }, "probe-watchdog");
    t.setDaemon(true);
    t.start();
  }

  private static String need(String[] argv, int i, String opt) throws Usage {
    if (i >= argv.length) {
      throw new Usage(opt + " needs a value");
    }
    return argv[i];
  }

  /** Regions of the table from the master: default replicas, not split parents, by start key. */
  private static String quoted(byte[] key) {
    return key.length == 0 ? "''" : "'" + Bytes.toStringBinary(key) + "'";
  }

  private static List<RegionInfo> regions(Admin admin, TableName tn) throws IOException {
    if (!admin.tableExists(tn)) {
      throw new IOException("table " + tn.getNameWithNamespaceInclAsString() + " does not exist");
    }
    List<RegionInfo> out = new ArrayList<>();
    for (RegionInfo ri : admin.getRegions(tn)) {
      if (ri.getReplicaId() == 0 && !ri.isSplit()) {
        out.add(ri);
      }
    }
    out.sort((a, b) -> Bytes.compareTo(a.getStartKey(), b.getStartKey()));
    return out;
  }

  private static String describeJson(Connection conn, Admin admin, TableName tn)
      throws IOException {
    String name = tn.getNamespaceAsString() + ":" + tn.getQualifierAsString();
    StringBuilder j = new StringBuilder();
    if (!admin.tableExists(tn)) {
      j.append("{\"exists\":false,\"table\":").append(str(name)).append('}');
      return j.toString();
    }
    TableDescriptor td = admin.getDescriptor(tn);
    j.append("{\"exists\":true,\"table\":").append(str(name));
    j.append(",\"enabled\":").append(admin.isTableEnabled(tn));

    j.append(",\"families\":[");
    ColumnFamilyDescriptor[] fams = td.getColumnFamilies();
    for (int i = 0; i < fams.length; i++) {
      ColumnFamilyDescriptor f = fams[i];
      if (i > 0) {
        j.append(',');
      }
      j.append("{\"name\":").append(str(f.getNameAsString()))
          .append(",\"compression\":").append(str(f.getCompressionType().name()))
          .append(",\"data_block_encoding\":").append(str(f.getDataBlockEncoding().name()))
          .append(",\"bloom_filter\":").append(str(f.getBloomFilterType().name()))
          .append(",\"max_versions\":").append(f.getMaxVersions())
          .append(",\"ttl_seconds\":").append(f.getTimeToLive())
          .append(",\"block_size\":").append(f.getBlocksize())
          .append(",\"in_memory\":").append(f.isInMemory())
          .append('}');
    }
    j.append(']');

    Map<String, String> attrs = new TreeMap<>();
    td.getValues().forEach((k, v) -> {
      String key = Bytes.toString(k.copyBytes());
      if (!HBASE_SET.contains(key)) {
        attrs.put(key, v == null ? null : Bytes.toString(v.copyBytes()));
      }
    });
    j.append(",\"attributes\":{");
    boolean first = true;
    for (Map.Entry<String, String> e : attrs.entrySet()) {
      if (!first) {
        j.append(',');
      }
      first = false;
      j.append(str(e.getKey())).append(':').append(str(e.getValue()));
    }
    j.append('}');

    List<RegionInfo> regions = regions(admin, tn);
    j.append(",\"regions\":[");
    try (RegionLocator locator = conn.getRegionLocator(tn)) {
      for (int i = 0; i < regions.size(); i++) {
        RegionInfo ri = regions.get(i);
        // reload = true: ask hbase:meta now, not the client's cache
        HRegionLocation loc = locator.getRegionLocation(ri.getStartKey(), 0, true);
        String server = null;
        if (loc != null && loc.getServerName() != null
            && loc.getRegion().getEncodedName().equals(ri.getEncodedName())) {
          server = loc.getServerName().getServerName();
        }
        if (i > 0) {
          j.append(',');
        }
        j.append("{\"name\":").append(str(ri.getEncodedName()))
            .append(",\"start_key\":").append(str(Bytes.toStringBinary(ri.getStartKey())))
            .append(",\"end_key\":").append(str(Bytes.toStringBinary(ri.getEndKey())))
            .append(",\"server\":").append(str(server))
            .append('}');
      }
    }
    j.append("],\"split_keys\":[");
    for (int i = 1; i < regions.size(); i++) {
      if (i > 1) {
        j.append(',');
      }
      j.append(str(Bytes.toStringBinary(regions.get(i).getStartKey())));
    }
    j.append("]}");
    return j.toString();
  }

  private static String regionLoads(Admin admin, TableName tn) throws IOException {
    StringBuilder j = new StringBuilder("{\"regions\":[");
    boolean first = true;
    for (Map.Entry<ServerName, ServerMetrics> e
        : admin.getClusterMetrics().getLiveServerMetrics().entrySet()) {
      for (RegionMetrics rm : e.getValue().getRegionMetrics().values()) {
        byte[] name = rm.getRegionName();
        if (!RegionInfo.getTable(name).equals(tn)) {
          continue;
        }
        j.append(first ? "" : ",").append("{\"name\":")
            .append(str(RegionInfo.encodeRegionName(name)))
            .append(",\"start_key\":")
            .append(str(Bytes.toStringBinary(RegionInfo.getStartKey(name))))
            .append(",\"server\":").append(str(e.getKey().getServerName()))
            .append(",\"port\":").append(e.getKey().getPort())
            .append(",\"reads\":").append(rm.getReadRequestCount())
            .append(",\"writes\":").append(rm.getWriteRequestCount()).append('}');
        first = false;
      }
    }
    return j.append("]}").toString();
  }

  private static String fsList(String uri) throws IOException {
    Path dir = new Path(uri);
    FileSystem fs = dir.getFileSystem(new Configuration());
    StringBuilder j = new StringBuilder("{\"exists\":");
    if (!fs.exists(dir)) {
      return j.append("false,\"entries\":[]}").toString();
    }
    j.append("true,\"entries\":[");
    FileStatus[] entries = fs.listStatus(dir);
    for (int i = 0; i < entries.length; i++) {
      j.append(i > 0 ? "," : "").append(str(entries[i].getPath().getName()));
    }
    return j.append("]}").toString();
  }

  private static long count(Connection conn, TableName tn) throws IOException {
    Scan scan = new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(1000)
        .setCacheBlocks(false);
    long n = 0;
    try (Table t = conn.getTable(tn); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        if (!r.isEmpty()) {
          n++;
        }
      }
    }
    return n;
  }

  private static void put(Connection conn, TableName tn, String row, String column, String value)
      throws Exception {
    int colon = column.indexOf(':');
    if (colon <= 0) {
      throw new Usage("column must be FAMILY:QUALIFIER, got: " + column);
    }
    byte[] rowKey = Bytes.toBytesBinary(row);
    if (rowKey.length == 0) {
      throw new Usage("row key is empty");
    }
    Put p = new Put(rowKey).addColumn(Bytes.toBytes(column.substring(0, colon)),
        Bytes.toBytesBinary(column.substring(colon + 1)), Bytes.toBytesBinary(value));
    try (Table t = conn.getTable(tn)) {
      t.put(p);
    }
  }

  /** JSON string literal (or null). */
  private static String str(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          b.append("\\\"");
          break;
        case '\\':
          b.append("\\\\");
          break;
        case '\n':
          b.append("\\n");
          break;
        case '\r':
          b.append("\\r");
          break;
        case '\t':
          b.append("\\t");
          break;
        default:
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.append('"').toString();
  }

  /**
   * Sends HBase client logging to stderr at the given level, whichever backend the classpath
   * has: log4j2 (HBase's own distribution, configured from log4j2.properties with
   * hbase.root.logger) or reload4j / log4j 1 (what Hadoop's Maven dependencies bring).
   * Reflection, because which one is present depends on how the classpath was made.
   */
  private static void quietLogging(String level) {
    System.setProperty("hbase.root.logger", level + ",console");
    System.setProperty("hbase.security.logger", level + ",console");
    System.setProperty("org.apache.logging.log4j.level", level);
    try {
      Class<?> cfg = Class.forName("org.apache.logging.log4j.core.config.Configurator");
      Class<?> lvl = Class.forName("org.apache.logging.log4j.Level");
      Object l = lvl.getMethod("toLevel", String.class).invoke(null, level);
      cfg.getMethod("setRootLevel", lvl).invoke(null, l);
      try {
        Method setAll = cfg.getMethod("setAllLevels", String.class, lvl);
        setAll.invoke(null, "", l);
      } catch (NoSuchMethodException ignored) {
        // older log4j2: root level is enough
      }
    } catch (ClassNotFoundException ignored) {
      // no log4j2
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      // best effort: stdout stays clean regardless (System.out points at stderr)
    }
    try {
      Class<?> logger = Class.forName("org.apache.log4j.Logger");
      Class<?> lvl = Class.forName("org.apache.log4j.Level");
      Class<?> layoutCls = Class.forName("org.apache.log4j.Layout");
      Class<?> appenderCls = Class.forName("org.apache.log4j.Appender");
      Object root = logger.getMethod("getRootLogger").invoke(null);
      logger.getMethod("removeAllAppenders").invoke(root);
      Object layout = Class.forName("org.apache.log4j.PatternLayout")
          .getConstructor(String.class).newInstance("%p %c: %m%n");
      Object appender = Class.forName("org.apache.log4j.ConsoleAppender")
          .getConstructor(layoutCls, String.class).newInstance(layout, "System.err");
      logger.getMethod("addAppender", appenderCls).invoke(root, appender);
      Object l = lvl.getMethod("toLevel", String.class).invoke(null, level);
      logger.getMethod("setLevel", lvl).invoke(root, l);
    } catch (ClassNotFoundException ignored) {
      // no log4j 1 API
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      // best effort, as above
    }
  }
}
