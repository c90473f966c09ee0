/*
 * ForegroundLoad: what an application does to a table while presplit re-salts it, for
 * bench/migrate/capture_bench.py. Through the SDK (so it follows a generation switch), at a fixed
 * rate, one synchronous operation at a time: alternately a get of one of its own rows and a put
 * of a new one. Prints {"started":true} once warmed up and running, then one JSON line:
 * operations, errors and latency percentiles in microseconds (measured from when each operation
 * was due, so a stall counts for every operation behind it).
 *
 *   java -cp classes:presplit-hbase.jar:$(hbase classpath) ForegroundLoad --zk HOST:PORT
 *       --root ROOT --table NS:T [--seed] --rows N --rate OPS_PER_S --seconds S [--tag T]
 *       [--trace FILE]
 *
 * --trace writes one line per operation: its due time (epoch ms), its latency (us), get|put and
 * the generation it used, for a caller that splits the run by the migration's phases.
 *
 * --seed writes its N rows (logical keys "fg-seed-%027d", 32 bytes, one group each) and exits;
 * a run then gets those. A fixed rate (not as fast as possible) is what a latency comparison
 * needs: the same offered load with and without a migration.
 */
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;

public final class ForegroundLoad {
  public static void main(String[] args) throws Exception {
    String zk = null;
    String root = "/presplit";
    String table = null;
    String tag = "";
    String trace = null;
    boolean seed = false;
    int rows = 0;
    int rate = 200;
    int seconds = 30;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--zk" -> zk = args[i + 1];
        case "--root" -> root = args[i + 1];
        case "--table" -> table = args[i + 1];
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--rate" -> rate = Integer.parseInt(args[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
        case "--tag" -> tag = args[i + 1];
        case "--trace" -> trace = args[i + 1];
        case "--seed" -> {
          seed = true;
          i--;
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    byte[] f = Bytes.toBytes("f");
    Random random = new Random(7);
    long[] latencies = new long[rate * seconds + 16];
    long[] dueMs = new long[latencies.length];
    long[] generation = new long[latencies.length];
    int n = 0;
    int errors = 0;
    try (Connection c = ConnectionFactory.createConnection(conf);
        PresplitTables tables = PresplitTables.open(c, zk, root, new PresplitTables.Options())) {
      SaltedTable t = tables.table(table);
      t.awaitReady(Duration.ofSeconds(60));
      if (seed) {
        java.util.List<Put> puts = new java.util.ArrayList<>();
        for (int i = 0; i < rows; i++) {
          puts.add(new Put(key(i)).addColumn(f, Bytes.toBytes("q"), Bytes.toBytes(i)));
        }
        t.put(puts);
        System.out.println("{\"seeded\":" + rows + "}");
        return;
      }
      // Warm-up: connections, region locations, JIT.
      for (int i = 0; i < 200; i++) {
        t.get(new Get(key(random.nextInt(rows))));
      }
      // A caller that starts something once the load runs waits for this line.
      System.out.println("{\"started\":true}");
      System.out.flush();
      long periodNs = 1_000_000_000L / rate;
      long start = System.nanoTime();
      long end = start + seconds * 1_000_000_000L;
      for (long due = start; due < end && n < latencies.length; due += periodNs) {
        long now = System.nanoTime();
        if (now < due) {
          Thread.sleep((due - now) / 1_000_000, (int) ((due - now) % 1_000_000));
        }
        long t0 = System.nanoTime();
        dueMs[n] = System.currentTimeMillis() - (t0 - due) / 1_000_000;
        generation[n] = t.snapshot().generation();
        try {
          if (n % 2 == 0) {
            t.get(new Get(key(random.nextInt(rows))));
          } else {
            t.put(new Put(Bytes.toBytes(String.format("fg-%-4.4s-%024d", tag, n)))
                .addColumn(f, Bytes.toBytes("q"), Bytes.toBytes(n)));
          }
        } catch (Exception e) {
          errors++;
        }
        // From when the operation was due: a stall delays every operation behind it.
        latencies[n++] = (System.nanoTime() - Math.min(due, t0)) / 1000;
      }
    }
    if (trace != null) {
      try (java.io.PrintWriter w = new java.io.PrintWriter(trace, "UTF-8")) {
        for (int i = 0; i < n; i++) {
          w.printf("%d %d %s %d%n", dueMs[i], latencies[i], i % 2 == 0 ? "get" : "put",
              generation[i]);
        }
      }
    }
    long[] sorted = Arrays.copyOf(latencies, n);
    Arrays.sort(sorted);
    System.out.printf("{\"ops\":%d,\"errors\":%d,\"p50_us\":%d,\"p99_us\":%d,\"p999_us\":%d,"
        + "\"max_us\":%d}%n", n, errors, pct(sorted, 0.50), pct(sorted, 0.99),
        pct(sorted, 0.999), sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
  }

  static byte[] key(int i) {
    return Bytes.toBytes(String.format("fg-seed-%024d", i));
  }

  static long pct(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }
}
