/*
 * ReactionBench: how long presplitd takes from a document written into ZooKeeper to a table
 * enabled with all its regions online, against what the same table costs with a bare
 * Admin.createTable and the same split keys on the same cluster. Run by
 * bench/run_reaction_bench.sh, which starts the cluster and presplitd:
 *
 *   java -cp <classes>:<hbase cp> ReactionBench --zk HOST:PORT --root /presplit-bench
 *        --document FILE --keys FILE [--rounds R] [--poll-ms P]
 *
 * --document is a table document whose "table" field is a placeholder the bench replaces with
 * a fresh name per round; --keys holds the split keys presplitctl plans for it, one
 * Bytes.toStringBinary key a line (`presplitctl plan FILE`), so both variants build exactly the
 * same regions.
 *
 * Each round measures three variants back to back, the order rotating from round to round:
 *  - presplit: the clock starts when the bench writes the document's znode under <root>/tables
 *    and stops when the observer below sees the table;
 *  - createTable: the clock starts when the bench calls Admin.createTable(descriptor, keys) (the
 *    same single family "f" with HBase's defaults, which is what the document asks for) and
 *    stops when the same observer sees the table (createTable returns once the create procedure
 *    has finished, so it usually sees it at once);
 *  - async: the strongest baseline: Admin.createTableAsync(descriptor, keys), then the observer
 *    at once, without createTable's own wait for the procedure (whose result polling backs off).
 * The ratio reported is presplit against the faster of the two baselines. For presplit the bench
 * also reports when the daemon's status znode says "ready" (writers wait for that), a figure no
 * baseline has.
 * The observer polls every P ms (default 10): Admin.isTableEnabled, Admin.isTableAvailable (every
 * region assigned in hbase:meta) and Admin.getRegions().size() == the planned count. The same
 * observer for both keeps the comparison fair; its poll interval bounds the error.
 * Between rounds the tables are dropped (the document first, so the daemon does not recreate
 * its table). Prints one line per round and a summary with medians and the ratio
 * presplit/baseline. With PRESPLIT_BENCH_SUMMARY set, appends its summary row to that file
 * (bench/run_all.sh). Exit code 0 when measured, 1 on an error or a wrong result.
 */

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class ReactionBench {
  static final String NAMESPACE = "reactionbench";
  static final String PLACEHOLDER = "@TABLE@";
  static final long TIMEOUT_MS = 300_000;

  public static void main(String[] args) throws Exception {
    String zkQuorum = null;
    String root = "/presplit-bench";
    Path documentFile = null;
    Path keysFile = null;
    int rounds = 10;
    int pollMs = 10;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--zk" -> zkQuorum = args[++i];
        case "--root" -> root = args[++i];
        case "--document" -> documentFile = Path.of(args[++i]);
        case "--keys" -> keysFile = Path.of(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--poll-ms" -> pollMs = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (zkQuorum == null || documentFile == null || keysFile == null) {
      throw new IllegalArgumentException("--zk, --document and --keys are required");
    }
    String template = Files.readString(documentFile);
    if (!template.contains(PLACEHOLDER)) {
      throw new IllegalArgumentException(documentFile + " has no " + PLACEHOLDER + " table name");
    }
    List<byte[]> keys = new ArrayList<>();
    for (String line : Files.readAllLines(keysFile)) {
      if (!line.isEmpty()) {
        keys.add(Bytes.toBytesBinary(line));
      }
    }
    byte[][] splitKeys = keys.toArray(new byte[0][]);
    int regions = splitKeys.length + 1;

    Configuration conf = HBaseConfiguration.create();
    String[] hostPort = zkQuorum.split(":");
    conf.set("hbase.zookeeper.quorum", hostPort[0]);
    conf.set("hbase.zookeeper.property.clientPort", hostPort[1]);
    CountDownLatch connected = new CountDownLatch(1);
    try (Connection hbase = ConnectionFactory.createConnection(conf);
        Admin admin = hbase.getAdmin();
        ZooKeeper zk = new ZooKeeper(zkQuorum, 30_000, e -> {
          if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
            connected.countDown();
          }
        })) {
      if (!connected.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("cannot connect to ZooKeeper " + zkQuorum);
      }
      try {
        admin.getNamespaceDescriptor(NAMESPACE);
      } catch (NamespaceNotFoundException e) {
        admin.createNamespace(NamespaceDescriptor.create(NAMESPACE).build());
      }
      String tables = root + "/tables";
      System.out.printf("reaction: %d rounds, %d regions per table, poll every %d ms%n", rounds,
          regions, pollMs);
      // One discarded warm-up round of each: class loading, connection set-up, JIT.
      long[] presplitMs = new long[rounds];
      long[] readyMs = new long[rounds];
      long[] syncMs = new long[rounds];
      long[] asyncMs = new long[rounds];
      for (int round = -1; round < rounds; round++) {
        String suffix = round < 0 ? "warmup" : String.valueOf(round);
        TableName viaDaemon = TableName.valueOf(NAMESPACE, "doc_" + suffix);
        TableName viaAdmin = TableName.valueOf(NAMESPACE, "admin_" + suffix);
        TableName viaAsync = TableName.valueOf(NAMESPACE, "async_" + suffix);
        long[] took = new long[3];
        long statusReady = 0;
        int first = Math.floorMod(round, 3);
        for (int turn = 0; turn < 3; turn++) {
          int variant = (first + turn) % 3;
          long start = System.nanoTime();
          if (variant == 0) {
            String doc = template.replace(PLACEHOLDER, viaDaemon.getNameAsString());
            zk.create(tables + "/" + viaDaemon.getNameAsString(),
                doc.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
            awaitTable(admin, viaDaemon, regions, pollMs);
            took[0] = System.nanoTime() - start;
            awaitReadyStatus(zk, root + "/status/" + viaDaemon.getNameAsString(), pollMs);
            statusReady = System.nanoTime() - start;
            continue;
          } else if (variant == 1) {
            admin.createTable(descriptor(viaAdmin), splitKeys);
            awaitTable(admin, viaAdmin, regions, pollMs);
          } else {
            admin.createTableAsync(descriptor(viaAsync), splitKeys);
            awaitTable(admin, viaAsync, regions, pollMs);
          }
          took[variant] = System.nanoTime() - start;
        }
        // The document goes first, so the daemon's next pass does not recreate its table.
        try {
          zk.delete(tables + "/" + viaDaemon.getNameAsString(), -1);
        } catch (KeeperException.NoNodeException ignored) {
          // already gone
        }
        drop(admin, viaDaemon);
        drop(admin, viaAdmin);
        drop(admin, viaAsync);
        if (round < 0) {
          continue;
        }
        presplitMs[round] = TimeUnit.NANOSECONDS.toMillis(took[0]);
        readyMs[round] = TimeUnit.NANOSECONDS.toMillis(statusReady);
        syncMs[round] = TimeUnit.NANOSECONDS.toMillis(took[1]);
        asyncMs[round] = TimeUnit.NANOSECONDS.toMillis(took[2]);
        System.out.printf("round %2d: presplit %6d ms (status ready %6d ms), createTable %6d ms,"
            + " async %6d ms%n", round, presplitMs[round], readyMs[round], syncMs[round],
            asyncMs[round]);
      }
      double medianP = median(presplitMs);
      double medianSync = median(syncMs);
      double medianAsync = median(asyncMs);
      double best = Math.min(medianSync, medianAsync);
      System.out.printf("summary: %d regions, %d rounds; median presplit %.0f ms (status ready"
              + " %.0f ms), createTable %.0f ms, createTableAsync+poll %.0f ms; presplit / best"
              + " baseline %.2f (target <= 1.2), status ready / best baseline %.2f%n",
          regions, rounds, medianP, median(readyMs), medianSync, medianAsync, medianP / best,
          median(readyMs) / best);
      BenchSummary.row("reaction", "reaction.online", "document -> " + regions
          + " regions online, median ms", medianP, best, medianAsync <= medianSync
              ? "createTableAsync + meta poll" : "Admin.createTable", medianP / best,
          "presplit/baseline", "<= 1.2", medianP / best <= 1.2, String.format(
              "medians of %d rounds; status ready %.0f ms; createTable %.0f ms", rounds, median(readyMs),
              medianSync));
    }
  }

  static org.apache.hadoop.hbase.client.TableDescriptor descriptor(TableName table) {
    return TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build();
  }

  /** Waits until the table is enabled, available and has all its regions. */
  static void awaitTable(Admin admin, TableName table, int regions, int pollMs) throws Exception {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (System.currentTimeMillis() < deadline) {
      if (admin.tableExists(table) && admin.isTableEnabled(table)
          && admin.isTableAvailable(table) && admin.getRegions(table).size() == regions) {
        return;
      }
      Thread.sleep(pollMs);
    }
    throw new IllegalStateException(table + " not online with " + regions + " regions after "
        + TIMEOUT_MS + " ms");
  }

  /** Waits until the daemon's status znode for the table says "ready". */
  static void awaitReadyStatus(ZooKeeper zk, String path, int pollMs) throws Exception {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (System.currentTimeMillis() < deadline) {
      try {
        String status = new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
        if (status.replace(" ", "").contains("\"phase\":\"ready\"")) {
          return;
        }
      } catch (KeeperException.NoNodeException notYet) {
        // the daemon has not written it yet
      }
      Thread.sleep(pollMs);
    }
    throw new IllegalStateException(path + " not ready after " + TIMEOUT_MS + " ms");
  }

  static void drop(Admin admin, TableName table) throws Exception {
    if (admin.tableExists(table)) {
      if (admin.isTableEnabled(table)) {
        admin.disableTable(table);
      }
      admin.deleteTable(table);
    }
  }

  static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  }
}
