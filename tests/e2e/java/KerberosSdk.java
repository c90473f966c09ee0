/*
 * KerberosSdk: the writer SDK as a Kerberos user on the Kerberized test cluster
 * (scripts/local-cluster --kerberos), driven by tests/e2e/test_kerberos.py. It sets up what
 * docs/sdk.md tells a writer to: the cluster's hbase-site.xml first on the classpath,
 * -Djava.security.krb5.conf, and a login from the keytab before the HBase connection and
 * PresplitTables.open.
 *
 *   java -Djava.security.krb5.conf=KRB5 -cp CONF_DIR:presplit-hbase.jar:$(hbase classpath) \
 *       KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE ROWS
 *
 * Writes ROWS rows (logical keys "uG|NNNNN", ten groups, in a shuffled order) with one
 * SaltedTable.put(List), then reads the whole table back with a merged scan and checks that it
 * returns exactly those rows, values included, in logical key order. Prints one line
 * "RESULT {json}" (the user HBase sees, the counts, the buckets the rows went to).
 *
 *   ... KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE hot SECONDS
 *
 * A hot key range, for a load split: writes 10 rows in each of 200 groups ("hNNN|RR"), then for
 * SECONDS (or until killed) reads and writes only the rows of the groups salted into the bucket
 * of group "h000" (batches of 50 gets through the SDK, one put in ten batches). Once the rows are
 * written it prints "HOT {json}" (the user, the hot bucket and its groups); at the end
 * "RESULT {json}" with the counts.
 *
 *   ... KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE dump
 *
 * Every cell of the table's current generation, read from its physical table with a plain HBase
 * scan (every version): "RESULT {json}" with the physical table, the rows, how many rows are
 * not at the key the layout gives their logical key (in another bucket), and per logical key its
 * cells as [timestamp, value] (what a migration must carry over unchanged).
 *
 * A refusal by HBase's AccessController prints "DENIED <HBase's reason>" on stderr and exits 3;
 * any other failure exits 1 with the reason on stderr.
 */

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

public final class KerberosSdk {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");

  private KerberosSdk() {}

  public static void main(String[] args) {
    int rc = 0;
    try {
      System.out.println("RESULT " + run(args));
    } catch (Throwable t) {
      AccessDeniedException denied = denied(t);
      if (denied != null) {
        System.err.println("DENIED " + firstLine(denied));
        rc = 3;
      } else {
        System.err.println("KerberosSdk: " + firstLine(t));
        t.printStackTrace();
        rc = 1;
      }
    }
    System.exit(rc);
  }

  private static String run(String[] args) throws Exception {
    boolean hot = args.length == 7 && args[5].equals("hot");
    boolean dump = args.length == 6 && args[5].equals("dump");
    if (args.length != 6 && !hot) {
      throw new IllegalArgumentException("usage: KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE ROWS"
          + "\n       KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE hot SECONDS"
          + "\n       KerberosSdk PRINCIPAL KEYTAB ZK ROOT TABLE dump");
    }
    // The cluster's hbase-site.xml (first on the classpath): Kerberos authentication and the
    // servers' principals. Then the login, before any connection is opened.
    Configuration conf = HBaseConfiguration.create();
    if (!"kerberos".equals(conf.get("hbase.security.authentication"))) {
      throw new IllegalStateException("no Kerberized hbase-site.xml on the classpath");
    }
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(args[0], args[1]);
    // Few retries, so that a refusal or a broken set-up is reported quickly; the hot workload
    // keeps HBase's default, which rides out the split of the region it reads (its parent
    // answers NotServingRegionException until the daughters are open), as a writer's must.
    if (!hot) {
      conf.setInt("hbase.client.retries.number", 3);
    }

    try (Connection hbase = ConnectionFactory.createConnection(conf);
         PresplitTables tables = PresplitTables.open(hbase, args[2], args[3])) {
      SaltedTable table = tables.table(args[4]);
      table.awaitReady(Duration.ofSeconds(60));
      if (dump) {
        return dump(hbase, table);
      }
      return hot ? hotRange(table, Integer.parseInt(args[6]))
          : writeAndScan(table, Integer.parseInt(args[5]));
    }
  }

  /** ROWS rows written with one batch put, read back with one merged scan. */
  private static String writeAndScan(SaltedTable table, int rows) throws Exception {
    TreeMap<String, String> written = new TreeMap<>(); // String order = byte order for ASCII
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      String key = "u" + (i % 10) + "|" + String.format("%05d", i);
      written.put(key, "v" + i);
      puts.add(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes("v" + i)));
    }
    Collections.shuffle(puts, new Random(24));
    table.put(puts);

    // One merged scan over every bucket: logical keys, in logical key order.
    List<String> scanned = new ArrayList<>();
    TreeSet<Integer> buckets = new TreeSet<>();
    try (ResultScanner scanner = table.scan(new Scan())) {
      for (Result r : scanner) {
        String key = Bytes.toString(r.getRow());
        String value = Bytes.toString(r.getValue(F, Q));
        if (!written.containsKey(key) || !written.get(key).equals(value)) {
          throw new AssertionError("scan returned " + key + " = " + value
              + ", which was not written");
        }
        if (!scanned.isEmpty() && scanned.get(scanned.size() - 1).compareTo(key) >= 0) {
          throw new AssertionError("scan out of order: " + key + " after "
              + scanned.get(scanned.size() - 1));
        }
        scanned.add(key);
        buckets.add(table.layout().bucketOf(r.getRow()));
      }
    }
    if (!scanned.equals(new ArrayList<>(written.keySet()))) {
      throw new AssertionError("scan returned " + scanned.size() + " rows, " + rows
          + " were written");
    }
    return "{\"user\":\"" + User.getCurrent().getShortName() + "\",\"written\":" + rows
        + ",\"scanned\":" + scanned.size() + ",\"first\":\"" + scanned.get(0)
        + "\",\"last\":\"" + scanned.get(scanned.size() - 1) + "\",\"buckets\":"
        + table.snapshot().buckets() + ",\"buckets_written\":" + buckets.size() + "}";
  }

  /** Every cell of the current generation's physical table, by logical key; misplaced rows. */
  private static String dump(Connection hbase, SaltedTable table) throws Exception {
    io.presplit.client.TableSnapshot snapshot = table.snapshot();
    io.presplit.client.KeyLayout layout = snapshot.layout();
    TreeMap<String, List<String>> cells = new TreeMap<>();
    long misplaced = 0;
    try (org.apache.hadoop.hbase.client.Table physical = hbase.getTable(snapshot.physicalTable());
         ResultScanner scanner = physical.getScanner(new Scan().readAllVersions())) {
      for (Result r : scanner) {
        byte[] logical = layout.logicalKey(r.getRow());
        if (!Bytes.equals(layout.encode(logical), r.getRow())) {
          misplaced++;
        }
        List<String> out = cells.computeIfAbsent(Bytes.toStringBinary(logical),
            k -> new ArrayList<>());
        for (org.apache.hadoop.hbase.Cell cell : r.rawCells()) {
          out.add("[" + cell.getTimestamp() + ",\""
              + Bytes.toStringBinary(org.apache.hadoop.hbase.CellUtil.cloneValue(cell)) + "\"]");
        }
      }
    }
    StringBuilder json = new StringBuilder("{\"user\":\"" + User.getCurrent().getShortName()
        + "\",\"physical_table\":\"" + snapshot.physicalTable().getNameAsString()
        + "\",\"buckets\":" + snapshot.buckets() + ",\"rows\":" + cells.size()
        + ",\"misplaced\":" + misplaced + ",\"cells\":{");
    String sep = "";
    for (var e : cells.entrySet()) {
      json.append(sep).append('"').append(e.getKey()).append("\":[")
          .append(String.join(",", e.getValue())).append(']');
      sep = ",";
    }
    return json.append("}}").toString();
  }

  /** The hot key range: the rows of the groups in one bucket, read and written for SECONDS. */
  private static String hotRange(SaltedTable table, int seconds) throws Exception {
    List<Put> puts = new ArrayList<>();
    List<byte[]> hotKeys = new ArrayList<>();
    TreeSet<String> hotGroups = new TreeSet<>();
    int hotBucket = table.layout().bucketOf(Bytes.toBytes("h000|"));
    for (int g = 0; g < 200; g++) {
      for (int r = 0; r < 10; r++) {
        byte[] key = Bytes.toBytes(String.format("h%03d|%02d", g, r));
        puts.add(new Put(key).addColumn(F, Q, Bytes.toBytes("v" + r)));
        if (table.layout().bucketOf(key) == hotBucket) {
          hotKeys.add(key);
          hotGroups.add(String.format("h%03d", g));
        }
      }
    }
    table.put(puts);
    System.out.println("HOT {\"user\":\"" + User.getCurrent().getShortName() + "\",\"rows\":"
        + puts.size() + ",\"bucket\":" + hotBucket + ",\"groups\":" + hotGroups.size()
        + ",\"keys\":" + hotKeys.size() + "}");
    System.out.flush();

    Random random = new Random(24);
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    long gets = 0;
    long written = 0;
    for (long batch = 0; System.nanoTime() < deadline; batch++) {
      List<Get> batchGets = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        batchGets.add(new Get(hotKeys.get(random.nextInt(hotKeys.size()))));
      }
      for (Result r : table.get(batchGets)) {
        if (r.isEmpty()) {
          throw new AssertionError("a hot row was not found: " + Bytes.toString(r.getRow()));
        }
      }
      gets += batchGets.size();
      if (batch % 10 == 0) {
        byte[] key = hotKeys.get(random.nextInt(hotKeys.size()));
        table.put(new Put(key).addColumn(F, Q, Bytes.toBytes("w" + batch)));
        written++;
      }
    }
    return "{\"user\":\"" + User.getCurrent().getShortName() + "\",\"gets\":" + gets
        + ",\"puts\":" + written + "}";
  }

  /** The AccessDeniedException behind a failure, also inside a batch's details. */
  private static AccessDeniedException denied(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof AccessDeniedException) {
        return (AccessDeniedException) t;
      }
      if (t instanceof RetriesExhaustedWithDetailsException) {
        for (Throwable cause : ((RetriesExhaustedWithDetailsException) t).getCauses()) {
          AccessDeniedException found = denied(cause);
          if (found != null) {
            return found;
          }
        }
      }
    }
    return null;
  }

  /** The class and the first line of the message, which a remote exception's repeats. */
  private static String firstLine(Throwable t) {
    String prefix = t.getClass().getName() + ": ";
    String message = String.valueOf(t.getMessage());
    while (message.startsWith(prefix)) {
      message = message.substring(prefix.length());
    }
    int nl = message.indexOf('\n');
    return prefix + (nl < 0 ? message : message.substring(0, nl));
  }
}
