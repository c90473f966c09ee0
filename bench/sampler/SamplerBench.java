/*
 * SamplerBench: the cost of presplit's LoadSamplingObserver on the write path -- puts per
 * second against a running cluster into tables identical but for their coprocessors (and of the
 * dormant MigrationGuard presplitd adds to every table it creates).
 * Client side: the official HBase client only (presplit-hbase.jar is needed on the
 * RegionServer, not here). Run by bench/run_sampler_bench.sh:
 *
 *   java -cp <classes>:<hbase classpath> SamplerBench --zk HOST:PORT --rs-pid PID [--clk-tck HZ]
 *        [--rounds R] [--max-rounds M] [--run-rounds Q] [--warmup W] [--puts N] [--batch B]
 *        [--threads T] [--regions K] [--value-bytes V]
 *
 * What it does:
 *  1. (Re)creates four tables, family 'f', K regions pre-split on the same keys,
 *     DisabledRegionSplitPolicy (so no split lands in the middle of a run), identical but for
 *     their coprocessor:
 *       presplit_bench_plain     none
 *       presplit_bench_sampled   io.presplit.hbase.coprocessor.LoadSamplingObserver (default
 *                                priority, as deployed)
 *       presplit_bench_observer  HBase's ConstraintProcessor without constraints: a no-op
 *                                RegionObserver, i.e. what any observer on the table costs
 *       presplit_bench_born      the sampler and io.presplit.capture.MigrationGuard, dormant
 *                                (priority 0), as presplitd creates every table: born/sampled
 *                                is what the guard adds to a table that is never migrated
 *  2. Runs (A/B/C/D), Q rounds (default R; 0 skips them): every round flushes the tables
 *     (untimed, so each run starts with empty memstores), then writes N puts into each table in
 *     turn, the order rotated every round and reversed every other round, with T client threads
 *     each sending Table.put(List) of B puts: rows "g%05d|r%06d" of random groups and rows,
 *     V-byte values, default durability.
 *     W warm-up rounds are discarded. Reports per table puts/s (mean, standard deviation, min,
 *     max over rounds) and, with --rs-pid, the RegionServer's CPU time per put (from /proc, all
 *     its threads), then the ratios sampled/plain, observer/plain and sampled/observer: of the
 *     means, and the median and spread of the per-round ratios.
 *  3. Interleaved batches: at least R and at most M rounds (after one discarded) in which every
 *     client thread sends its Table.put calls to the four tables in turn (threads start on
 *     different tables), N puts per table per round; a table's puts/s is the sum over threads of
 *     its puts over the time its calls took. All tables then see the same background load at the
 *     same moments, which runs of seconds cannot guarantee on a shared machine. Rounds continue
 *     past R until the standard errors of the mean per-round ratios sampled/plain and
 *     born/sampled are each at most a third of their margin to the target (|mean - 0.97|), so
 *     neither verdict is noise; both are printed, and whether the margins were resolved. Same
 *     ratios, plus the median batch latencies.
 *  4. Checks that the sampler worked: it reads the RegionServer's JMX bean
 *     io.presplit:type=LoadSampler (LoadSamplingObserver's counters, summed over the regions;
 *     through the JDK attach API on --rs-pid) before and after, and fails unless the sampled
 *     table's regions are registered, the samplers saw at least every put sent to the sampled
 *     table (a retried batch may be seen twice) and recorded some of them; and that the
 *     RegionServer reports MigrationGuard loaded and the born table took a SKIP_WAL put (a
 *     dormant guard refuses nothing).
 * Exit code: 0 when measured (whatever the ratio), 1 on an error or when the sampler recorded
 * nothing.
 */

import com.sun.tools.attach.VirtualMachine;
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
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

public class SamplerBench {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final String SAMPLER = "io.presplit.hbase.coprocessor.LoadSamplingObserver";
  // HBase's own ConstraintProcessor with no constraint configured: a RegionObserver whose
  // prePut loops over an empty list -- what any RegionObserver on the table costs.
  static final String NOOP_OBSERVER = "org.apache.hadoop.hbase.constraint.ConstraintProcessor";
  static final int GROUPS = 10000;
  static final double TARGET = 0.97; // sampled/plain throughput: under 3% slower
  static final String SAMPLER_BEAN = "io.presplit:type=LoadSampler";
  // What presplitd attaches to every table it creates besides the sampler, dormant: it refuses
  // nothing until a migration's capture of the table runs.
  static final String GUARD = "io.presplit.capture.MigrationGuard";
  static final int GUARD_PRIORITY = 0; // Coprocessor.PRIORITY_HIGHEST, as presplitd sets it
  static final int PLAIN = 0, SAMPLED = 1, OBSERVER = 2, BORN = 3;
  static long clockTicks = 100; // per second, `getconf CLK_TCK`

  public static void main(String[] args) throws Exception {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(
        org.apache.logging.log4j.Level.ERROR);
    String zk = null;
    long rsPid = -1;
    int rounds = 16, warmup = 3, puts = 30000, batch = 100, threads = 4, regions = 4;
    int valueBytes = 100, maxRounds = -1, runRounds = -1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--zk": zk = args[++i]; break;
        case "--rs-pid": rsPid = Long.parseLong(args[++i]); break;
        case "--clk-tck": clockTicks = Long.parseLong(args[++i]); break;
        case "--rounds": rounds = Integer.parseInt(args[++i]); break;
        case "--max-rounds": maxRounds = Integer.parseInt(args[++i]); break;
        case "--run-rounds": runRounds = Integer.parseInt(args[++i]); break;
        case "--warmup": warmup = Integer.parseInt(args[++i]); break;
        case "--puts": puts = Integer.parseInt(args[++i]); break;
        case "--batch": batch = Integer.parseInt(args[++i]); break;
        case "--threads": threads = Integer.parseInt(args[++i]); break;
        case "--regions": regions = Integer.parseInt(args[++i]); break;
        case "--value-bytes": valueBytes = Integer.parseInt(args[++i]); break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (zk == null || rsPid <= 0) {
      throw new IllegalArgumentException("--zk HOST:PORT and --rs-pid PID are required");
    }
    if (maxRounds < rounds) {
      maxRounds = Math.max(rounds, 96);
    }
    if (runRounds < 0) {
      runRounds = rounds;
    }
    Configuration conf = HBaseConfiguration.create();
    String[] hp = zk.split(":");
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);

    TableName[] tables = {TableName.valueOf("presplit_bench_plain"),
        TableName.valueOf("presplit_bench_sampled"), TableName.valueOf("presplit_bench_observer"),
        TableName.valueOf("presplit_bench_born")};
    String[] names = {"plain", "sampled", "observer", "born"};
    String[][] coprocessors = {{}, {SAMPLER}, {NOOP_OBSERVER}, {SAMPLER, GUARD}};
    int n = tables.length;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin();
        JMXConnector jmx = attachJmx(rsPid)) {
      MBeanServerConnection rsBeans = jmx.getMBeanServerConnection();
      for (int ti = 0; ti < n; ti++) {
        create(admin, tables[ti], coprocessors[ti], regions);
        System.out.printf("table %-8s %s%s%n", names[ti], tables[ti],
            coprocessors[ti].length == 0 ? "" : " + " + String.join(", ", coprocessors[ti]));
      }
      long[] samplerBefore = samplerCounters(rsBeans);
      if (samplerBefore[0] != 2L * regions) {
        throw new IllegalStateException("the RegionServer has " + samplerBefore[0] + " sampled "
            + "regions, expected the sampled and born tables' " + 2 * regions + " (is "
            + "LoadSamplingObserver loaded?)");
      }
      checkGuardDormant(c, admin, tables[BORN]);
      long sentToSampled = 0;

      if (runRounds > 0) {
        System.out.printf("runs: %d regions each, splits disabled; workload per run: %d puts, %d "
            + "client threads, Table.put of %d puts, %d-byte values; %d rounds after %d warm-up "
            + "rounds, table order rotated every round and reversed every other round%n",
            regions, puts, threads, batch, valueBytes, runRounds, warmup);
        sentToSampled += runs(c, admin, pool, tables, names, runRounds, warmup, puts, batch,
            threads, valueBytes, rsPid);
      }

      // Phase 2: batches interleaved. Every client thread alternates its batches between the
      // tables (threads start on different tables), so all tables are written under the same
      // conditions at the same moments; each table's rate is its puts over the time its calls
      // took (x threads), its latency the median batch call. Rounds continue past the minimum
      // until the verdict on the target is not within noise, or the maximum is reached.
      System.out.printf("%ninterleaved batches: %d to %d rounds of %d puts per table, every "
          + "thread sending its Table.put calls to the tables in turn; stops once the standard "
          + "errors of the mean ratios sampled/plain and born/sampled are each at most a third "
          + "of their margin to %.2f%n",
          rounds, maxRounds, puts, TARGET);
      double[][] mixedRate = new double[n][maxRounds];
      double[][] mixedLatency = new double[n][maxRounds];
      int done = 0;
      for (int r = -1; r < maxRounds; r++) {
        for (TableName t : tables) {
          admin.flush(t);
        }
        double[][] res = writeMixed(c, pool, tables, puts, batch, threads, valueBytes);
        sentToSampled += (long) (res[SAMPLED][2] + res[BORN][2]);
        if (r < 0) {
          continue;
        }
        StringBuilder line = new StringBuilder();
        for (int ti = 0; ti < n; ti++) {
          mixedRate[ti][r] = res[ti][0];
          mixedLatency[ti][r] = res[ti][1];
          line.append(String.format("  %-8s %7.0f puts/s (median batch %.2f ms)", names[ti],
              res[ti][0], res[ti][1] / 1e6));
        }
        done = r + 1;
        double[] sofar = ratios(mixedRate, SAMPLED, PLAIN, done);
        double se = stddev(sofar) / Math.sqrt(done);
        double[] guardSofar = ratios(mixedRate, BORN, SAMPLED, done);
        double guardSe = stddev(guardSofar) / Math.sqrt(done);
        System.out.printf("round %d%s  | sampled/plain mean %.4f, se %.4f | born/sampled mean "
            + "%.4f, se %.4f%n", r, line, mean(sofar), se, mean(guardSofar), guardSe);
        if (done >= rounds && done >= 3 && se <= Math.abs(mean(sofar) - TARGET) / 3
            && guardSe <= Math.abs(mean(guardSofar) - TARGET) / 3) {
          break;
        }
      }
      for (int ti = 0; ti < n; ti++) {
        mixedRate[ti] = Arrays.copyOf(mixedRate[ti], done);
        mixedLatency[ti] = Arrays.copyOf(mixedLatency[ti], done);
      }
      for (int[] pair : new int[][] {{SAMPLED, PLAIN}, {OBSERVER, PLAIN}, {SAMPLED, OBSERVER},
          {BORN, SAMPLED}, {BORN, PLAIN}}) {
        double[] rr = ratios(mixedRate, pair[0], pair[1], done);
        double[] lr = new double[done];
        for (int r = 0; r < done; r++) {
          lr[r] = mixedLatency[pair[1]][r] / mixedLatency[pair[0]][r];
        }
        System.out.printf("interleaved %-17s throughput %.4f (ratio of means); per-round "
            + "ratios: median %.4f, mean %.4f, stddev %.4f, se %.4f, min %.4f, max %.4f; inverse "
            + "median-batch-latency ratio: median %.4f%n", names[pair[0]] + "/" + names[pair[1]],
            mean(mixedRate[pair[0]]) / mean(mixedRate[pair[1]]), median(rr), mean(rr),
            stddev(rr), stddev(rr) / Math.sqrt(done), min(rr), max(rr), median(lr));
      }
      Verdict sampler = verdict("sampled/plain", mixedRate, SAMPLED, PLAIN, done);
      Verdict guard = verdict("born/sampled", mixedRate, BORN, SAMPLED, done);

      long[] samplerAfter = samplerCounters(rsBeans);
      long seen = samplerAfter[1] - samplerBefore[1];
      long recorded = samplerAfter[2] - samplerBefore[2];
      long skipped = samplerAfter[3] - samplerBefore[3];
      System.out.printf("sampler (JMX %s on the RegionServer): %d sampled regions; %d puts sent "
          + "to the sampled and born tables, the samplers saw %d requests, recorded %d (%.3f of them), "
          + "skipped %d as busy%n", SAMPLER_BEAN, samplerAfter[0], sentToSampled, seen, recorded,
          seen > 0 ? (double) recorded / seen : 0.0, skipped);
      if (samplerAfter[0] != 2L * regions || seen < sentToSampled || recorded <= 0) {
        throw new IllegalStateException("the sampler did not record the sampled and born tables' puts: "
            + samplerAfter[0] + " regions, " + seen + " requests seen of " + sentToSampled
            + " sent, " + recorded + " recorded");
      }

      BenchSummary.row("sampler", "sampler.throughput", "puts/s with LoadSamplingObserver vs "
          + "none (interleaved batches)", mean(mixedRate[SAMPLED]), mean(mixedRate[PLAIN]),
          "same table without coprocessor", sampler.ratio, "presplit/baseline", ">= 0.97",
          sampler.resolved() ? sampler.met() : null, sampler.note(done) + String.format(
              "; sampler saw %d requests, recorded %d", seen, recorded));
      BenchSummary.row("sampler", "sampler.guard_throughput", "puts/s with the dormant "
          + "MigrationGuard beside the sampler (as presplitd creates tables) vs the sampler "
          + "alone (interleaved batches)", mean(mixedRate[BORN]), mean(mixedRate[SAMPLED]),
          "same table with the sampler only", guard.ratio, "presplit/baseline", ">= 0.97",
          guard.resolved() ? guard.met() : null, guard.note(done));

      for (TableName t : tables) {
        admin.disableTable(t);
        admin.deleteTable(t);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** The mean per-round ratio of two tables' puts/s against TARGET, and its noise. */
  static final class Verdict {
    final double ratio;
    final double se;
    final double margin;

    Verdict(double ratio, double se) {
      this.ratio = ratio;
      this.se = se;
      this.margin = Math.abs(ratio - TARGET);
    }

    boolean met() {
      return ratio >= TARGET;
    }

    /** The standard error is at most a third of the margin: the verdict is not noise. */
    boolean resolved() {
      return se <= margin / 3;
    }

    String note(int rounds) {
      return String.format("mean of %d per-round ratios, se %.4f, margin %.4f: %s", rounds, se,
          margin, resolved() ? "resolved"
              : "NOT resolved (se > margin/3): " + (met() ? "met" : "missed") + " within noise");
    }
  }

  static Verdict verdict(String label, double[][] rate, int a, int b, int done) {
    double[] rr = ratios(rate, a, b, done);
    Verdict v = new Verdict(mean(rr), stddev(rr) / Math.sqrt(done));
    System.out.printf("target: under 3%% slower (%s >= %.2f): %s; interleaved batches, mean "
        + "per-round ratio %.4f over %d rounds; standard error %.4f = %.2f of the margin to the "
        + "target (%.4f): %s%n", label, TARGET, v.met() ? "met" : "NOT met", v.ratio, done, v.se,
        v.margin > 0 ? v.se / v.margin : Double.POSITIVE_INFINITY, v.margin, v.resolved()
            ? "well below it (<= 1/3), the verdict stands"
            : "NOT well below it (> 1/3): the verdict is within noise; more rounds or a quieter "
                + "machine needed");
    return v;
  }

  /**
   * The born table's guard is loaded and dormant: the RegionServer lists MigrationGuard among
   * its coprocessors, and a SKIP_WAL put (which an active guard refuses) goes through.
   */
  static void checkGuardDormant(Connection c, Admin admin, TableName born) throws Exception {
    boolean loaded = false;
    for (org.apache.hadoop.hbase.ServerMetrics server : admin.getClusterMetrics()
        .getLiveServerMetrics().values()) {
      for (String name : server.getCoprocessorNames()) {
        loaded |= name.endsWith("MigrationGuard");
      }
    }
    if (!loaded) {
      throw new IllegalStateException("no RegionServer reports MigrationGuard loaded (is "
          + "presplit-hbase.jar on its classpath?)");
    }
    try (Table table = c.getTable(born)) {
      table.put(new Put(Bytes.toBytes("g00000|dormant-check")).addColumn(F, Q, Bytes.toBytes(1))
          .setDurability(org.apache.hadoop.hbase.client.Durability.SKIP_WAL));
    }
    System.out.println("MigrationGuard: loaded on the RegionServer, dormant (a SKIP_WAL put to "
        + born + " went through)");
  }

  /** Per-round ratios rate[a][r] / rate[b][r] of the first n rounds. */
  static double[] ratios(double[][] rate, int a, int b, int n) {
    double[] rr = new double[n];
    for (int r = 0; r < n; r++) {
      rr[r] = rate[a][r] / rate[b][r];
    }
    return rr;
  }

  /** The JMX connection of a local JVM (same user), through the JDK's attach API. */
  static JMXConnector attachJmx(long pid) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    try {
      return JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()));
    } finally {
      vm.detach();
    }
  }

  /** {sampled regions, requests, recorded, skipped} of the RegionServer's load samplers. */
  static long[] samplerCounters(MBeanServerConnection beans) throws Exception {
    ObjectName name = new ObjectName(SAMPLER_BEAN);
    String[] attributes = {"SampledRegions", "Requests", "RecordedRequests", "SkippedRequests"};
    long[] out = new long[attributes.length];
    for (int i = 0; i < attributes.length; i++) {
      out[i] = ((Number) beans.getAttribute(name, attributes[i])).longValue();
    }
    return out;
  }

  /** Phase 1, runs (A/B/C/D); returns the puts sent to the sampled and born tables. */
  static long runs(Connection c, Admin admin, ExecutorService pool, TableName[] tables,
      String[] names, int rounds, int warmup, int puts, int batch, int threads, int valueBytes,
      long rsPid) throws Exception {
    int n = tables.length;
    long sentToSampled = 0;
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
        if (ti == SAMPLED || ti == BORN) {
          sentToSampled += puts;
        }
        double putsPerSecond = puts / ((t1 - t0) / 1e9);
        double cpuUs = (cpu1 - cpu0) / 1e3 / puts;
        if (r >= 0) {
          rate[ti][r] = putsPerSecond;
          cpuPerPut[ti][r] = cpuUs;
        }
        line.append(String.format("  %-8s %7.0f puts/s %5.1f us RS cpu/put", names[ti],
            putsPerSecond, cpuUs));
      }
      System.out.printf("round %s%s%n", r < 0 ? "warm-up" : String.valueOf(r), line);
    }

    System.out.printf("%n  %-8s %10s %10s %10s %10s   %s%n", "table", "mean", "stddev", "min",
        "max", "RS cpu us/put (mean, stddev)");
    for (int ti = 0; ti < n; ti++) {
      System.out.printf("  %-8s %10.0f %10.0f %10.0f %10.0f   %.2f, %.2f%n", names[ti],
          mean(rate[ti]), stddev(rate[ti]), min(rate[ti]), max(rate[ti]), mean(cpuPerPut[ti]),
          stddev(cpuPerPut[ti]));
    }
    System.out.println();
    for (int[] pair : new int[][] {{SAMPLED, PLAIN}, {OBSERVER, PLAIN}, {SAMPLED, OBSERVER},
        {BORN, SAMPLED}}) {
      double[] rr = ratios(rate, pair[0], pair[1], rounds);
      double[] cr = ratios(cpuPerPut, pair[0], pair[1], rounds);
      String label = names[pair[0]] + "/" + names[pair[1]];
      System.out.printf("runs throughput %-17s %.4f (ratio of means); per-round ratios: median "
          + "%.4f, mean %.4f, stddev %.4f, min %.4f, max %.4f%n", label,
          mean(rate[pair[0]]) / mean(rate[pair[1]]), median(rr), mean(rr), stddev(rr), min(rr),
          max(rr));
      System.out.printf("runs RS cpu/put  %-17s %.4f (ratio of means); per-round ratios: median "
          + "%.4f, stddev %.4f%n", label, mean(cpuPerPut[pair[0]]) / mean(cpuPerPut[pair[1]]),
          median(cr), stddev(cr));
    }
    System.out.println("(runs are for reference: on a shared machine their per-round ratios "
        + "scatter too widely to resolve 3%; the verdict comes from the interleaved batches)");
    return sentToSampled;
  }

  static void create(Admin admin, TableName t, String[] coprocessors, int regions)
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
    for (String coprocessor : coprocessors) {
      b.setCoprocessor(coprocessor.equals(GUARD)
          ? CoprocessorDescriptorBuilder.newBuilder(GUARD).setPriority(GUARD_PRIORITY).build()
          : CoprocessorDescriptorBuilder.of(coprocessor));
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
   * over the summed duration of its calls, times the thread count), median call nanos, puts}.
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
    double[][] out = new double[n][3];
    for (int t = 0; t < n; t++) {
      double rateSum = 0;
      long sent = 0;
      for (int th = 0; th < threads; th++) {
        rateSum += counts[th][t] / (nanos[th][t] / 1e9);
        sent += counts[th][t];
      }
      out[t][0] = rateSum;
      out[t][2] = sent;
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
