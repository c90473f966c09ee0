/*
 * MapReduceE2E: data and checks for the bulk engine's end-to-end tests
 * (tests/e2e/test_mapreduce.py) and the bulk benchmark (bench/run_bulk_bench.sh).
 *
 *   java -cp presplit-hbase.jar:$(hbase classpath) MapReduceE2E --zk Q COMMAND ...
 *
 * Each command checks its own results and exits 1 with the reason on stderr when one is wrong;
 * stdout carries one JSON line of evidence. Tables are read with the plain HBase client; the
 * SDK's KeyLayout only names the salt (width, bucket of a key).
 *
 * Commands:
 *   create TABLE LAYOUT_JSON VERSIONS
 *       a table split at the salt prefixes of buckets 1..n-1 of the layout, family f keeping
 *       VERSIONS versions
 *   fill TABLE LAYOUT_JSON ROWS VERSIONS
 *       create TABLE as above, then ROWS rows "u<7 digits>|<n>" salted by the layout: column f:a
 *       with VERSIONS versions (timestamps 1000+v), f:b once (timestamp 5000); then every 100th
 *       row's f:b and every 1000th row's newest f:a version are deleted (the copy must respect
 *       deletes); the table is flushed. Prints {"rows","cells"} of the live cells.
 *   compare SOURCE OLD_LAYOUT TARGET NEW_LAYOUT [MIN_TS MAX_TS]
 *       every live cell (all versions, timestamps in [MIN_TS, MAX_TS)) of SOURCE, its row re-keyed to NEW_LAYOUT, against every
 *       cell of TARGET, compared as (row, family, qualifier, timestamp, value): prints
 *       {"source_cells","target_cells","missing","extra","target_rows","misplaced"}; exit 1
 *       unless missing = extra = misplaced = 0 (misplaced: a target row whose salt is not its
 *       bucket under NEW_LAYOUT)
 *   write-file PATH ROWS SEPARATOR
 *       a row file for SaltedImport: "k<7 digits>|x<SEPARATOR>v<n><SEPARATOR><n*7>" per line
 *   sdk-read ROOT TABLE ROWS
 *       reads the rows of write-file back through the SDK (PresplitTables, logical keys):
 *       {"rows","found","wrong"}; exit 1 unless every row is there with its values
 *   store-files TABLE HBASE_ROOT_DIR
 *       {"regions":N,"files_per_region":[...]} from the table's directory under the HBase root
 *       (a bulk load lands files there at once; region metrics lag)
 *   drop TABLE...
 */

import java.io.BufferedWriter;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
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
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

import io.presplit.client.KeyLayout;

public class MapReduceE2E {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] A = Bytes.toBytes("a");
  static final byte[] B = Bytes.toBytes("b");

  public static void main(String[] args) throws Exception {
    String zk = null;
    int i = 0;
    if (args.length > 1 && args[0].equals("--zk")) {
      zk = args[1];
      i = 2;
    }
    String[] rest = Arrays.copyOfRange(args, i, args.length);
    try (Connection c = connect(zk)) {
      switch (rest[0]) {
        case "create":
          create(c, rest[1], layout(rest[2]), Integer.parseInt(rest[3]));
          System.out.println("{\"created\":\"" + rest[1] + "\"}");
          break;
        case "fill":
          fill(c, rest[1], layout(rest[2]), Integer.parseInt(rest[3]), Integer.parseInt(rest[4]));
          break;
        case "compare":
          compare(c, rest[1], layout(rest[2]), rest[3], layout(rest[4]),
              rest.length > 5 ? Long.parseLong(rest[5]) : 0,
              rest.length > 6 ? Long.parseLong(rest[6]) : Long.MAX_VALUE);
          break;
        case "sdk-read":
          sdkRead(c, zk, rest[1], rest[2], Integer.parseInt(rest[3]));
          break;
        case "write-file":
          writeFile(rest[1], Integer.parseInt(rest[2]), rest[3]);
          break;
        case "store-files":
          storeFiles(c, rest[1], rest[2]);
          break;
        case "drop":
          for (int t = 1; t < rest.length; t++) {
            drop(c, rest[t]);
          }
          break;
        default:
          throw new IllegalArgumentException("unknown command " + rest[0]);
      }
    } catch (Exception e) {
      System.err.println("MapReduceE2E: " + e);
      System.exit(1);
    }
    System.exit(0);
  }

  static Connection connect(String zk) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    if (zk != null) {
      String[] hp = zk.split(":");
      conf.set("hbase.zookeeper.quorum", hp[0]);
      conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    }
    return ConnectionFactory.createConnection(conf);
  }

  static KeyLayout layout(String json) {
    return KeyLayout.fromDocument(JsonParser.parseString(json).getAsJsonObject());
  }

  static void create(Connection c, String table, KeyLayout layout, int versions)
      throws Exception {
    TableName name = TableName.valueOf(table);
    try (Admin admin = c.getAdmin()) {
      String ns = name.getNamespaceAsString();
      if (!ns.equals("default")
          && Arrays.stream(admin.listNamespaces()).noneMatch(ns::equals)) {
        admin.createNamespace(
            org.apache.hadoop.hbase.NamespaceDescriptor.create(ns).build());
      }
      byte[][] splits = new byte[Math.max(layout.buckets() - 1, 0)][];
      for (int b = 1; b < layout.buckets(); b++) {
        splits[b - 1] = layout.saltPrefix(b);
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(versions)
              .build())
          .build(), splits);
    }
  }

  static void fill(Connection c, String table, KeyLayout layout, int rows, int versions)
      throws Exception {
    create(c, table, layout, versions);
    TableName name = TableName.valueOf(table);
    long cells = 0;
    try (BufferedMutator m = c.getBufferedMutator(name)) {
      for (int r = 0; r < rows; r++) {
        byte[] row = layout.encode(Bytes.toBytes(String.format("u%07d|%d", r, r % 97)));
        Put p = new Put(row);
        for (int v = 0; v < versions; v++) {
          p.addColumn(F, A, 1000 + v, Bytes.toBytes("a" + r + "." + v));
        }
        p.addColumn(F, B, 5000, Bytes.toBytes("b" + r));
        m.mutate(p);
        cells += versions + 1;
      }
      m.flush();
      for (int r = 0; r < rows; r++) {
        byte[] row = layout.encode(Bytes.toBytes(String.format("u%07d|%d", r, r % 97)));
        if (r % 100 == 0) {
          m.mutate(new Delete(row).addColumns(F, B));
          cells--;
        }
        if (r % 1000 == 0) {
          m.mutate(new Delete(row).addColumn(F, A, 1000 + versions - 1));
          cells--;
        }
      }
    }
    try (Admin admin = c.getAdmin()) {
      admin.flush(name);
    }
    System.out.println("{\"rows\":" + rows + ",\"cells\":" + cells + "}");
  }

  /** 64-bit FNV-1a over length-prefixed fields: enough to tell cells apart in a test. */
  static long cellHash(byte[] row, Cell cell) {
    long h = 0xcbf29ce484222325L;
    h = mix(h, row, 0, row.length);
    h = mix(h, cell.getFamilyArray(), cell.getFamilyOffset(), cell.getFamilyLength());
    h = mix(h, cell.getQualifierArray(), cell.getQualifierOffset(), cell.getQualifierLength());
    h = mix(h, Bytes.toBytes(cell.getTimestamp()), 0, 8);
    h = mix(h, cell.getValueArray(), cell.getValueOffset(), cell.getValueLength());
    return h;
  }

  static long mix(long h, byte[] b, int off, int len) {
    for (int k = 0; k < 4; k++) {
      h = (h ^ ((len >>> (8 * k)) & 0xff)) * 0x100000001b3L;
    }
    for (int k = off; k < off + len; k++) {
      h = (h ^ (b[k] & 0xff)) * 0x100000001b3L;
    }
    return h;
  }

  static long[] hashes(Connection c, String table, KeyLayout from, KeyLayout to, long[] rowsOut,
      long[] misplacedOut, long minTs, long maxTs) throws Exception {
    long[] out = new long[1 << 16];
    int n = 0;
    try (Table t = c.getTable(TableName.valueOf(table));
        ResultScanner scanner = t.getScanner(new Scan().readAllVersions().setCaching(2000)
            .setCacheBlocks(false).setTimeRange(minTs, maxTs))) {
      for (Result r : scanner) {
        byte[] row = r.getRow();
        if (to != null) {
          row = to.encode(from.logicalKey(row));
        } else {
          try {
            from.decode(row);
          } catch (RuntimeException e) {
            misplacedOut[0]++;
          }
        }
        rowsOut[0]++;
        for (Cell cell : r.rawCells()) {
          if (n == out.length) {
            out = Arrays.copyOf(out, n * 2);
          }
          out[n++] = cellHash(row, cell);
        }
      }
    }
    long[] result = Arrays.copyOf(out, n);
    Arrays.sort(result);
    return result;
  }

  static void compare(Connection c, String source, KeyLayout oldLayout, String target,
      KeyLayout newLayout, long minTs, long maxTs) throws Exception {
    long[] sourceRows = {0};
    long[] targetRows = {0};
    long[] misplaced = {0};
    long[] expected =
        hashes(c, source, oldLayout, newLayout, sourceRows, new long[1], minTs, maxTs);
    long[] actual = hashes(c, target, newLayout, null, targetRows, misplaced, 0, Long.MAX_VALUE);
    long missing = 0;
    long extra = 0;
    int a = 0;
    int b = 0;
    while (a < expected.length || b < actual.length) {
      if (b == actual.length || (a < expected.length && expected[a] < actual[b])) {
        missing++;
        a++;
      } else if (a == expected.length || actual[b] < expected[a]) {
        extra++;
        b++;
      } else {
        a++;
        b++;
      }
    }
    System.out.println("{\"source_rows\":" + sourceRows[0] + ",\"source_cells\":"
        + expected.length + ",\"target_rows\":" + targetRows[0] + ",\"target_cells\":"
        + actual.length + ",\"missing\":" + missing + ",\"extra\":" + extra + ",\"misplaced\":"
        + misplaced[0] + "}");
    if (missing != 0 || extra != 0 || misplaced[0] != 0 || expected.length == 0) {
      System.err.println("MapReduceE2E: the target does not hold exactly the source's cells");
      System.exit(1);
    }
  }

  static void writeFile(String path, int rows, String separator) throws Exception {
    String sep = separator.equals("tab") ? "\t" : separator;
    try (BufferedWriter w = Files.newBufferedWriter(Paths.get(path), StandardCharsets.UTF_8)) {
      for (int r = 0; r < rows; r++) {
        w.write("k" + String.format("%07d", r) + "|x" + sep + "v" + r + sep + (r * 7L));
        w.write('\n');
      }
    }
    System.out.println("{\"rows\":" + rows + "}");
  }

  static void sdkRead(Connection c, String zk, String root, String table, int rows)
      throws Exception {
    long found = 0;
    long wrong = 0;
    try (io.presplit.client.PresplitTables tables =
        io.presplit.client.PresplitTables.open(c, zk, root)) {
      io.presplit.client.SaltedTable t = tables.table(table);
      t.awaitReady(java.time.Duration.ofSeconds(30));
      for (int start = 0; start < rows; start += 1000) {
        List<org.apache.hadoop.hbase.client.Get> gets = new ArrayList<>();
        for (int r = start; r < Math.min(rows, start + 1000); r++) {
          gets.add(new org.apache.hadoop.hbase.client.Get(
              Bytes.toBytes("k" + String.format("%07d", r) + "|x")));
        }
        Result[] results = t.get(gets);
        for (int k = 0; k < results.length; k++) {
          int r = start + k;
          Result res = results[k];
          if (res == null || res.isEmpty()) {
            continue;
          }
          found++;
          if (!Bytes.toString(res.getValue(F, A)).equals("v" + r)
              || !Bytes.toString(res.getValue(F, B)).equals(Long.toString(r * 7L))) {
            wrong++;
          }
        }
      }
    }
    System.out.println("{\"rows\":" + rows + ",\"found\":" + found + ",\"wrong\":" + wrong + "}");
    if (found != rows || wrong != 0) {
      System.err.println("MapReduceE2E: rows missing or wrong through the SDK");
      System.exit(1);
    }
  }

  static void storeFiles(Connection c, String table, String rootDir) throws Exception {
    TableName name = TableName.valueOf(table);
    File tableDir = new File(rootDir, "data/" + name.getNamespaceAsString() + "/"
        + name.getQualifierAsString());
    List<Integer> files = new ArrayList<>();
    File[] regions = tableDir.listFiles(f -> new File(f, ".regioninfo").isFile());
    if (regions == null) {
      throw new IllegalStateException("no table directory " + tableDir);
    }
    Arrays.sort(regions);
    for (File region : regions) {
      File[] hfiles = new File(region, "f").listFiles(f -> f.isFile() && !f.getName().startsWith("."));
      files.add(hfiles == null ? 0 : hfiles.length);
    }
    int online;
    try (org.apache.hadoop.hbase.client.RegionLocator l = c.getRegionLocator(name)) {
      online = l.getAllRegionLocations().size();
    }
    System.out.println("{\"regions\":" + online + ",\"region_dirs\":" + regions.length
        + ",\"files_per_region\":" + files + "}");
  }

  static void drop(Connection c, String table) throws Exception {
    TableName name = TableName.valueOf(table);
    try (Admin admin = c.getAdmin()) {
      if (admin.tableExists(name)) {
        if (admin.isTableEnabled(name)) {
          admin.disableTable(name);
        }
        admin.deleteTable(name);
      }
    }
  }
}
