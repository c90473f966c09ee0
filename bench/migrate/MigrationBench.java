/*
 * MigrationBench: the copy step of a re-salting migration (issue 10's benchmark), on one cluster
 * and the same data, two ways:
 *
 *  - plain copy: what a user would write by hand: one scanner over the whole source (all
 *    versions), each row re-keyed from the old salt to the new (the SDK's KeyLayout), every cell
 *    put through one BufferedMutator into a pre-split target;
 *  - CopyBridge.copyChunk: what presplitd runs, one worker per source region (at most
 *    --workers at a time), each copying its region in chunks of --chunk rows (next_row to next
 *    chunk, as the daemon's checkpoints would; no ZooKeeper here), into another pre-split target;
 *    then the digests the daemon's verification starts with: digestPartitions of every source
 *    region against digestTargetPartitions (one target scan).
 *
 * Both targets must end with the source's cells (digests compared; a mismatch exits 1).
 *
 *   java -Djava.library.path=<build>/jni -cp classes:presplit-hbase.jar:$(hbase classpath) \
 *       MigrationBench --zk HOST:PORT [--rows N] [--versions V] [--value-bytes B]
 *       [--workers W] [--chunk C] [--old-buckets 10] [--new-buckets 16]
 *
 * For the daemon-level benchmark (bench/migrate/daemon_migration_bench.py, where presplitd
 * creates the source from a document and migrates it itself), two parts of this on their own:
 *
 *   MigrationBench --zk HOST:PORT --load-into NS:TABLE [--rows N ...]   fills an existing table
 *   MigrationBench --zk HOST:PORT --plain-copy NS:TABLE [...]           the plain copy of it into
 *                                                                      a new pre-split table,
 *                                                                      checked and dropped
 */

import io.presplit.client.KeyLayout;
import io.presplit.migrate.BridgeConnection;
import io.presplit.migrate.CopyBridge;
import io.presplit.migrate.VerificationBridge;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

public final class MigrationBench {
  static final byte[] F = Bytes.toBytes("f");

  public static void main(String[] args) throws Exception {
    String zk = null;
    int rows = 200_000;
    int versions = 3;
    int valueBytes = 40;
    int workers = 4;
    int chunk = 10_000;
    int oldBuckets = 10;
    int newBuckets = 16;
    String loadInto = null;
    String plainCopyOf = null;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--load-into" -> loadInto = args[i + 1];
        case "--plain-copy" -> plainCopyOf = args[i + 1];
        case "--zk" -> zk = args[i + 1];
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--versions" -> versions = Integer.parseInt(args[i + 1]);
        case "--value-bytes" -> valueBytes = Integer.parseInt(args[i + 1]);
        case "--workers" -> workers = Integer.parseInt(args[i + 1]);
        case "--chunk" -> chunk = Integer.parseInt(args[i + 1]);
        case "--old-buckets" -> oldBuckets = Integer.parseInt(args[i + 1]);
        case "--new-buckets" -> newBuckets = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    String oldJson = layoutJson(oldBuckets);
    String newJson = layoutJson(newBuckets);
    KeyLayout oldLayout = KeyLayout.fromDocument(JsonParser.parseString(oldJson)
        .getAsJsonObject());
    KeyLayout newLayout = KeyLayout.fromDocument(JsonParser.parseString(newJson)
        .getAsJsonObject());
    String[] hostPort = zk.split(":");
    String[] pairs = {"hbase.zookeeper.quorum", hostPort[0],
        "hbase.zookeeper.property.clientPort", hostPort[1]};
    Configuration conf = HBaseConfiguration.create();
    conf.set(pairs[0], pairs[1]);
    conf.set(pairs[2], pairs[3]);
    BridgeConnection.configure(pairs);
    if (loadInto != null || plainCopyOf != null) {
      try (Connection conn = ConnectionFactory.createConnection(conf);
          Admin admin = conn.getAdmin()) {
        if (loadInto != null) {
          TableName table = TableName.valueOf(loadInto);
          long t0 = System.nanoTime();
          long cells = load(conn, table, oldLayout, rows, versions, valueBytes);
          admin.flush(table);
          System.out.printf("load: %d rows, %d cells in %.1f s%n", rows, cells, secs(t0));
          // The compactions the load's flushes started would otherwise run inside the next
          // measured window (a copy's RegionServer CPU), whichever copy comes next.
          long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
          while (admin.getCompactionState(table) != CompactionState.NONE) {
            if (System.nanoTime() > deadline) {
              throw new IOException(table + " still compacting 10 minutes after its load");
            }
            Thread.sleep(200);
          }
        } else {
          TableName source = TableName.valueOf(plainCopyOf);
          TableName target = TableName.valueOf(source.getNamespaceAsString(),
              source.getQualifierAsString() + "_plain");
          create(admin, target, newLayout, versions);
          long t0 = System.nanoTime();
          long startMs = System.currentTimeMillis();
          long copied = plainCopy(conn, source, target, oldLayout, newLayout);
          long endMs = System.currentTimeMillis();
          double seconds = secs(t0);
          System.out.printf("plain copy: %d rows in %.1f s = %.0f rows/s%n", copied, seconds,
              copied / seconds);
          // The copy alone (not the digests below) for a caller that measures the RegionServer.
          System.out.printf("plain copy window ms: %d %d%n", startMs, endMs);
          String sourceAll = total(source.getNameAsString(), oldJson, null, null);
          String plainAll = total(target.getNameAsString(), newJson, null, null);
          System.out.println("digests: source " + sourceAll + " plain " + plainAll);
          admin.disableTable(target);
          admin.deleteTable(target);
          if (!sourceAll.equals(plainAll)) {
            System.err.println("MigrationBench: the plain copy differs from the source");
            System.exit(1);
          }
        }
      } finally {
        BridgeConnection.closeConnection();
      }
      return;
    }
    String ns = "migbench";
    TableName source = TableName.valueOf(ns, "src");
    TableName plainTarget = TableName.valueOf(ns, "plain");
    TableName bridgeTarget = TableName.valueOf(ns, "bridge");
    System.out.printf("migration bench: %d rows x 2 columns x %d versions, %d-byte values, "
        + "%d -> %d buckets, %d workers, chunks of %d rows%n", rows, versions, valueBytes,
        oldBuckets, newBuckets, workers, chunk);
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
      create(admin, source, oldLayout, versions);
      create(admin, plainTarget, newLayout, versions);
      create(admin, bridgeTarget, newLayout, versions);

      long t0 = System.nanoTime();
      long cells = load(conn, source, oldLayout, rows, versions, valueBytes);
      admin.flush(source);
      System.out.printf("load: %d cells in %.1f s%n", cells, secs(t0));

      // Plain copy: one scanner, one BufferedMutator, each row re-keyed with KeyLayout.
      t0 = System.nanoTime();
      long plainRows = plainCopy(conn, source, plainTarget, oldLayout, newLayout);
      double plainSeconds = secs(t0);
      System.out.printf("plain copy: %d rows in %.1f s = %.0f rows/s%n", plainRows,
          plainSeconds, plainRows / plainSeconds);

      // CopyBridge.copyChunk, one task per source region, `workers` at a time.
      List<byte[]> starts = new ArrayList<>();
      List<byte[]> ends = new ArrayList<>();
      for (HRegionLocation loc : conn.getRegionLocator(source).getAllRegionLocations()) {
        starts.add(loc.getRegion().getStartKey());
        ends.add(loc.getRegion().getEndKey());
      }
      ExecutorService pool = Executors.newFixedThreadPool(workers);
      AtomicLong bridgeRows = new AtomicLong();
      AtomicLong bridgeDigest = new AtomicLong();
      t0 = System.nanoTime();
      List<Future<?>> tasks = new ArrayList<>();
      final int chunkRows = chunk;
      for (int r = 0; r < starts.size(); r++) {
        byte[] start = starts.get(r);
        byte[] end = ends.get(r);
        tasks.add(pool.submit(() -> {
          byte[] from = start;
          while (true) {
            JsonObject out = JsonParser.parseString(CopyBridge.copyChunk(
                source.getNameAsString(), bridgeTarget.getNameAsString(), oldJson, newJson,
                from, end, chunkRows, 0, null)).getAsJsonObject();
            bridgeRows.addAndGet(out.get("rows").getAsLong());
            bridgeDigest.addAndGet(Long.parseUnsignedLong(out.get("digest").getAsString(), 16));
            if (out.get("next_row").isJsonNull()) {
              return null;
            }
            from = Base64.getDecoder().decode(out.get("next_row").getAsString());
          }
        }));
      }
      for (Future<?> f : tasks) {
        f.get();
      }
      double copySeconds = secs(t0);
      long v0 = System.nanoTime();
      List<Future<String>> sourceDigests = new ArrayList<>();
      for (int r = 0; r < starts.size(); r++) {
        byte[] start = starts.get(r);
        byte[] end = ends.get(r);
        sourceDigests.add(pool.submit(() -> total(
            source.getNameAsString(), oldJson, start, end)));
      }
      JsonArray starts64 = new JsonArray();
      for (byte[] start : starts) {
        starts64.add(Base64.getEncoder().encodeToString(start));
      }
      JsonArray targetDigests = JsonParser.parseString(VerificationBridge.digestTargetPartitions(
          bridgeTarget.getNameAsString(), newJson, oldJson, starts64.toString(), "16"))
          .getAsJsonArray();
      int mismatches = 0;
      for (int r = 0; r < starts.size(); r++) {
        if (!JsonParser.parseString(sourceDigests.get(r).get()).equals(targetDigests.get(r))) {
          mismatches++;
        }
      }
      double verifySeconds = secs(v0);
      pool.shutdown();
      System.out.printf("CopyBridge.copyChunk: %d rows in %.1f s = %.0f rows/s "
          + "(%d regions, %d workers)%n", bridgeRows.get(), copySeconds,
          bridgeRows.get() / copySeconds, starts.size(), workers);
      System.out.printf("  + verification (per-region digests, one target scan): %.1f s; "
          + "copy + verify = %.0f rows/s; %d regions differ%n", verifySeconds,
          bridgeRows.get() / (copySeconds + verifySeconds), mismatches);
      System.out.printf("ratio copyChunk / plain: %.2fx (copy), %.2fx (copy + verify)%n",
          (bridgeRows.get() / copySeconds) / (plainRows / plainSeconds),
          (bridgeRows.get() / (copySeconds + verifySeconds)) / (plainRows / plainSeconds));

      // Both targets hold the source's cells.
      String sourceAll = total(source.getNameAsString(), oldJson, null, null);
      String plainAll = total(plainTarget.getNameAsString(), newJson, null, null);
      String bridgeAll = total(bridgeTarget.getNameAsString(), newJson, null, null);
      System.out.println("digests: source " + sourceAll + " plain " + plainAll + " bridge "
          + bridgeAll);
      boolean ok = mismatches == 0 && sourceAll.equals(plainAll) && sourceAll.equals(bridgeAll)
          && plainRows == rows && bridgeRows.get() == rows;
      for (TableName tn : List.of(source, plainTarget, bridgeTarget)) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      admin.deleteNamespace(ns);
      if (!ok) {
        System.err.println("MigrationBench: a copy differs from the source");
        System.exit(1);
      }
    } finally {
      BridgeConnection.closeConnection();
    }
  }

  /** Rows, cells, digest and 16 partition digests of a table's rows [from, end). */
  static String total(String table, String layout, byte[] from, byte[] end) throws Exception {
    return VerificationBridge.digestPartitions(table, layout,
        from == null ? "" : Base64.getEncoder().encodeToString(from),
        end == null ? "" : Base64.getEncoder().encodeToString(end), "16");
  }

  /** What a user would write: one scanner, each row re-keyed, one BufferedMutator. */
  static long plainCopy(Connection conn, TableName source, TableName target, KeyLayout oldLayout,
      KeyLayout newLayout) throws Exception {
    long plainRows = 0;
    try (Table t = conn.getTable(source);
        ResultScanner scanner = t.getScanner(new Scan().readAllVersions().setCaching(1000)
            .setCacheBlocks(false));
        BufferedMutator mutator = conn.getBufferedMutator(
            new BufferedMutatorParams(target).writeBufferSize(8L << 20))) {
      for (Result r : scanner) {
        byte[] newRow = newLayout.encode(oldLayout.logicalKey(r.getRow()));
        Put put = new Put(newRow);
        for (Cell c : r.rawCells()) {
          put.addColumn(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c), c.getTimestamp(),
              CellUtil.cloneValue(c));
        }
        mutator.mutate(put);
        plainRows++;
      }
      mutator.flush();
    }
    return plainRows;
  }

  static String layoutJson(int buckets) {
    return "{\"salt\":{\"buckets\":" + buckets + ",\"encoding\":\"decimal\","
        + "\"hash\":\"java-hashcode\"},\"group\":{\"length\":32}}";
  }

  static double secs(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  static void create(Admin admin, TableName name, KeyLayout layout, int versions)
      throws Exception {
    byte[][] splits = new byte[layout.buckets() - 1][];
    for (int b = 1; b < layout.buckets(); b++) {
      splits[b - 1] = layout.saltPrefix(b);
    }
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(versions)
            .build()).build(), splits);
  }

  /** The reference case's keys: a 32-hex-digit group (check id) + "|" + a sequence number. */
  static long load(Connection conn, TableName table, KeyLayout layout, int rows, int versions,
      int valueBytes) throws Exception {
    Random random = new Random(1);
    long cells = 0;
    long ts = System.currentTimeMillis() - 86_400_000L;
    try (BufferedMutator m = conn.getBufferedMutator(
        new BufferedMutatorParams(table).writeBufferSize(8L << 20))) {
      for (int i = 0; i < rows; i++) {
        String group = String.format("%016x%016x", random.nextLong(), (long) (i / 20));
        byte[] logical = Bytes.toBytes(group + "|" + i);
        Put p = new Put(layout.encode(logical));
        for (int q = 0; q < 2; q++) {
          for (int v = 0; v < versions; v++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            p.addColumn(F, Bytes.toBytes("q" + q), ts + v, value);
            cells++;
          }
        }
        m.mutate(p);
      }
      m.flush();
    }
    return cells;
  }
}
