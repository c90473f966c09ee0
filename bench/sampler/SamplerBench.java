/*
 * SamplerBench: the cost of presplit's LoadSamplingObserver on the write path -- puts per
 * second against a running cluster into two tables identical but for the coprocessor.
 * Client side: the official HBase client only (presplit-hbase.jar is needed on the
 * RegionServer, not here). Run by bench/run_sampler_bench.sh:
 *
 *   java -cp <hbase classpath> SamplerBench.java --zk HOST:PORT [--rs-pid PID [--clk-tck HZ]]
 *        [--rounds R]
 *        [--warmup W] [--puts N] [--batch B] [--threads T] [--regions K] [--value-bytes V]
 *
 * What it does:
 *  1. (Re)creates three tables, family 'f', K regions pre-split on the same keys,
 *     DisabledRegionSplitPolicy (so no split lands in the middle of a run), identical but for
 *     their coprocessor:
 *       presplit_bench_plain     none
 *       presplit_bench_sampled   io.presplit.hbase.coprocessor.LoadSamplingObserver (default
 *                                priority, as deployed)
 *       presplit_bench_observer  HBase's ConstraintProcessor without constraints: a no-op
 *                                RegionObserver, i.e. what any observer on the table costs
 *  2. Runs (A/B/C): every round flushes the tables (untimed, so each run starts with empty
 *     memstores), then writes N puts into each table in turn, the order rotated every round
 *     and reversed every other round, with T client threads each sending Table.put(List) of B
 *     puts: rows "g%05d|r%06d" of random groups and rows, V-byte values, default durability.
 *     W warm-up rounds are discarded. Reports per table puts/s (mean, standard deviation, min,
 *     max over rounds) and, with --rs-pid, the RegionServer's CPU time per put (from /proc, all
 *     its threads), then the ratios sampled/plain, observer/plain and sampled/observer: of the
 *     means, and the median and spread of the per-round ratios.
 *  3. Interleaved batches: R rounds (after one discarded) in which every client thread sends
 *     its Table.put calls to the three tables in turn (threads start on different tables), N
 *     puts per table per round; a table's puts/s is the sum over threads of its puts over the
 *     time its calls took. All tables then see the same background load at the same moments,
 *     which runs of seconds cannot guarantee on a shared machine. Same ratios, plus the median
 *     batch latencies.
 * Exit code: 0 when measured (whatever the ratio), 1 on an error.
 */

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class SamplerBench {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final String SAMPLER = "io.presplit.hbase.coprocessor.LoadSamplingObserver";
  // HBase's own ConstraintProcessor with no constraint configured: a RegionObserver whose
  // prePut loops over an empty list -- what any RegionObserver on the table costs.
  static final String NOOP_OBSERVER = "org.apache.hadoop.hbase.constraint.ConstraintProcessor";
  static final int GROUPS = 10000;
  static long clockTicks = 100; // per second, `getconf CLK_TCK`

  public static void main(String[] args) throws Exception {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(
        org.apache.logging.log4j.Level.ERROR);
    String zk = null;
    long rsPid = -1;
    int rounds = 16, warmup = 3, puts = 30000, batch = 100, threads = 4, regions = 4;
    int valueBytes = 100;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--zk": zk = args[++i]; break;
        case "--rs-pid": rsPid = Long.parseLong(args[++i]); break;
        case "--clk-tck": clockTicks = Long.parseLong(args[++i]); break;
        case "--rounds": rounds = Integer.parseInt(args[++i]); break;
        case "--warmup": warmup = Integer.parseInt(args[++i]); break;
        case "--puts": puts = Integer.parseInt(args[++i]); break;
        case "--batch": batch = Integer.parseInt(args[++i]); break;
        case "--threads": threads = Integer.parseInt(args[++i]); break;
        case "--regions": regions = Integer.parseInt(args[++i]); break;
        case "--value-bytes": valueBytes = Integer.parseInt(args[++i]); break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (zk == null) {
      throw new IllegalArgumentException("--zk HOST:PORT is required");
    }
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);

    TableName[] tables = {TableName.valueOf("presplit_bench_plain"),
        TableName.valueOf("presplit_bench_sampled"), TableName.valueOf("presplit_bench_observer")};
    String[] names = {"plain", "sampled", "observer"};
    String[] coprocessors = {null, SAMPLER, NOOP_OBSERVER};
    int n = tables.length;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      for (int ti = 0; ti < n; ti++) {
        create(admin, tables[ti], coprocessors[ti], regions);
        System.out.printf("table %-8s %s%s%n", names[ti], tables[ti],
            coprocessors[ti] == null ? "" : " + coprocessor " + coprocessors[ti]);
      }
      System.out.printf("%d regions each, splits disabled; workload per run: %d puts, %d client "
          + "threads, Table.put of %d puts, %d-byte values; %d rounds after %d warm-up rounds, "
          + "table order rotated every round and reversed every other round%n", regions, puts,
          threads, batch, valueBytes, rounds, warmup);

      double[][] rate = new double[n][rounds];
      double[][] cpuPerPut = new double[n][rounds];
      for (int r = -warmup; r < rounds; r++) {
        for (TableName t : tables) {
          admin.flush(t);
        }
        int[] order = new int[n];
        for (int k = 0; k < n; k++) {
          int rot = (k + Math.floorMod(r / 2, n)) % n;
          order[Math.floorMod(r, 2) == 0 ? k : n - 1 - k] = rot;
        }
        StringBuilder line = new StringBuilder();
        for (int ti : order) {
          long cpu0 = processCpuNanos(rsPid);
          long t0 = System.nanoTime();
          write(c, pool, tables[ti], puts, batch, threads, valueBytes);
          long t1 = System.nanoTime();
          long cpu1 = processCpuNanos(rsPid);
          double putsPerSecond = puts / ((t1 - t0) / 1e9);
          double cpuUs = rsPid > 0 ? (cpu1 - cpu0) / 1e3 / puts : Double.NaN;
          if (r >= 0) {
            rate[ti][r] = putsPerSecond;
            cpuPerPut[ti][r] = cpuUs;
          }
          line.append(String.format("  %-8s %7.0f puts/s%s", names[ti], putsPerSecond,
              rsPid > 0 ? String.format(" %5.1f us RS cpu/put", cpuUs) : ""));
        }
        System.out.printf("round %s%s%n", r < 0 ? "warm-up" : String.valueOf(r), line);
      }

      System.out.printf("%n  %-8s %10s %10s %10s %10s   %s%n", "table", "mean", "stddev", "min",
          "max", rsPid > 0 ? "RS cpu us/put (mean, stddev)" : "");
      for (int ti = 0; ti < n; ti++) {
        System.out.printf("  %-8s %10.0f %10.0f %10.0f %10.0f   %s%n", names[ti],
            mean(rate[ti]), stddev(rate[ti]), min(rate[ti]), max(rate[ti]),
            rsPid > 0 ? String.format("%.2f, %.2f", mean(cpuPerPut[ti]),
                stddev(cpuPerPut[ti])) : "");
      }
      System.out.println();
      double[] ratio = null;
      for (int[] pair : new int[][] {{1, 0}, {2, 0}, {1, 2}}) {
        double[] rr = new double[rounds];
        double[] cr = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          rr[r] = rate[pair[0]][r] / rate[pair[1]][r];
          cr[r] = cpuPerPut[pair[0]][r] / cpuPerPut[pair[1]][r];
        }
        if (ratio == null) {
          ratio = rr;
        }
        String label = names[pair[0]] + "/" + names[pair[1]];
        System.out.printf("throughput %-17s %.4f (ratio of means); per-round ratios: median "
            + "%.4f, mean %.4f, stddev %.4f, min %.4f, max %.4f%n", label,
            mean(rate[pair[0]]) / mean(rate[pair[1]]), median(rr), mean(rr), stddev(rr),
            min(rr), max(rr));
        if (rsPid > 0) {
          System.out.printf("RS cpu/put  %-17s %.4f (ratio of means); per-round ratios: median "
              + "%.4f, stddev %.4f%n", label, mean(cpuPerPut[pair[0]]) / mean(cpuPerPut[pair[1]]),
              median(cr), stddev(cr));
        }
      }
      System.out.printf("target: under 3%% slower: %s (ABBA runs, median per-round ratio "
          + "%.4f)%n", median(ratio) > 0.97 ? "met" : "NOT met", median(ratio));

      // Phase 2: batches interleaved. Every client thread alternates its batches between the
      // two tables (half of the threads start with each), so both tables are written under
      // the same conditions at the same moments; each table's rate is its puts over the time
      // its calls took (x threads), its latency the median batch call.
      System.out.printf("%ninterleaved batches: %d rounds of %d puts per table, every thread "
          + "sending its Table.put calls to the tables in turn%n", rounds, puts);
      double[][] mixedRate = new double[n][rounds];
      double[][] mixedLatency = new double[n][rounds];
      for (int r = -1; r < rounds; r++) {
        for (TableName t : tables) {
          admin.flush(t);
        }
        double[][] res = writeMixed(c, pool, tables, puts, batch, threads, valueBytes);
        if (r >= 0) {
          StringBuilder line = new StringBuilder();
          for (int ti = 0; ti < n; ti++) {
            mixedRate[ti][r] = res[ti][0];
            mixedLatency[ti][r] = res[ti][1];
            line.append(String.format("  %-8s %7.0f puts/s (median batch %.2f ms)", names[ti],
                res[ti][0], res[ti][1] / 1e6));
          }
          System.out.printf("round %d%s%n", r, line);
        }
      }
      double[] mixedRatio = null;
      for (int[] pair : new int[][] {{1, 0}, {2, 0}, {1, 2}}) {
        double[] rr = new double[rounds];
        double[] lr = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          rr[r] = mixedRate[pair[0]][r] / mixedRate[pair[1]][r];
          lr[r] = mixedLatency[pair[1]][r] / mixedLatency[pair[0]][r];
        }
        if (mixedRatio == null) {
          mixedRatio = rr;
        }
        System.out.printf("interleaved %-17s throughput %.4f (ratio of means); per-round "
            + "ratios: median %.4f, mean %.4f, stddev %.4f, min %.4f, max %.4f; inverse "
            + "median-batch-latency ratio: median %.4f%n", names[pair[0]] + "/" + names[pair[1]],
            mean(mixedRate[pair[0]]) / mean(mixedRate[pair[1]]), median(rr), mean(rr),
            stddev(rr), min(rr), max(rr), median(lr));
      }
      System.out.printf("target: under 3%% slower: %s (interleaved batches, median per-round "
          + "ratio %.4f)%n", median(mixedRatio) > 0.97 ? "met" : "NOT met", median(mixedRatio));

      for (TableName t : tables) {
        admin.disableTable(t);
        admin.deleteTable(t);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static void create(Admin admin, TableName t, String coprocessor, int regions)
      throws Exception {
    if (admin.tableExists(t)) {
      if (admin.isTableEnabled(t)) {
        admin.disableTable(t);
      }
      admin.deleteTable(t);
    }
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
        .setRegionSplitPolicyClassName(
            "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy");
    if (coprocessor != null) {
      b.setCoprocessor(CoprocessorDescriptorBuilder.of(coprocessor));
    }
    byte[][] splits = new byte[regions - 1][];
    for (int i = 1; i < regions; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("g%05d", i * GROUPS / regions));
    }
    admin.createTable(b.build(), splits);
  }

  static void write(Connection c, ExecutorService pool, TableName t, int puts, int batch,
      int threads, int valueBytes) throws Exception {
    List<Future<?>> done = new ArrayList<>();
    for (int th = 0; th < threads; th++) {
      int mine = puts / threads + (th < puts % threads ? 1 : 0);
      done.add(pool.submit(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        byte[] value = new byte[valueBytes];
        try (Table table = c.getTable(t)) {
          List<Put> list = new ArrayList<>(batch);
          for (int i = 0; i < mine; i++) {
            rnd.nextBytes(value);
            list.add(new Put(Bytes.toBytes(String.format("g%05d|r%06d", rnd.nextInt(GROUPS),
                rnd.nextInt(1000000)))).addColumn(F, Q, value.clone()));
            if (list.size() == batch || i == mine - 1) {
              table.put(list);
              list = new ArrayList<>(batch);
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
  }

  /**
   * Each thread alternates batches between the tables. Returns, per table, {puts/s (its puts
   * over the summed duration of its calls, times the thread count), median call nanos}.
   */
  static double[][] writeMixed(Connection c, ExecutorService pool, TableName[] tables, int puts,
      int batch, int threads, int valueBytes) throws Exception {
    int n = tables.length;
    long[][] nanos = new long[threads][n];
    long[][] counts = new long[threads][n];
    List<List<Long>> calls = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      calls.add(java.util.Collections.synchronizedList(new ArrayList<>()));
    }
    List<Future<?>> done = new ArrayList<>();
    for (int th = 0; th < threads; th++) {
      final int me = th;
      int mine = n * (puts / threads + (th < puts % threads ? 1 : 0));
      done.add(pool.submit(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        byte[] value = new byte[valueBytes];
        Table[] ts = new Table[tables.length];
        for (int t = 0; t < tables.length; t++) {
          ts[t] = c.getTable(tables[t]);
        }
        try {
          int next = me % tables.length;
          List<Put> list = new ArrayList<>(batch);
          for (int i = 0; i < mine; i++) {
            rnd.nextBytes(value);
            list.add(new Put(Bytes.toBytes(String.format("g%05d|r%06d", rnd.nextInt(GROUPS),
                rnd.nextInt(1000000)))).addColumn(F, Q, value.clone()));
            if (list.size() == batch || i == mine - 1) {
              long t0 = System.nanoTime();
              ts[next].put(list);
              long d = System.nanoTime() - t0;
              nanos[me][next] += d;
              counts[me][next] += list.size();
              calls.get(next).add(d);
              list = new ArrayList<>(batch);
              next = (next + 1) % tables.length;
            }
          }
        } finally {
          for (Table t : ts) {
            t.close();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    double[][] out = new double[n][2];
    for (int t = 0; t < n; t++) {
      double rateSum = 0;
      for (int th = 0; th < threads; th++) {
        rateSum += counts[th][t] / (nanos[th][t] / 1e9);
      }
      out[t][0] = rateSum;
      double[] d = calls.get(t).stream().mapToDouble(Long::doubleValue).toArray();
      out[t][1] = median(d);
    }
    return out;
  }

  /** utime + stime of a process, from /proc/PID/stat, in nanoseconds; -1 without a pid. */
  static long processCpuNanos(long pid) throws Exception {
    if (pid <= 0) {
      return -1;
    }
    String stat = new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/stat")));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15
    return ticks * (1_000_000_000L / clockTicks);
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  static double min(double[] xs) {
    return Arrays.stream(xs).min().orElse(Double.NaN);
  }

  static double max(double[] xs) {
    return Arrays.stream(xs).max().orElse(Double.NaN);
  }

  static double mean(double[] xs) {
    return Arrays.stream(xs).average().orElse(Double.NaN);
  }

  static double stddev(double[] xs) {
    double m = mean(xs);
    double ss = 0;
    for (double x : xs) {
      ss += (x - m) * (x - m);
    }
    return xs.length > 1 ? Math.sqrt(ss / (xs.length - 1)) : 0;
  }
}
