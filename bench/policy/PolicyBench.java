/*
 * PolicyBench: the cost of one split decision (shouldSplit + getSplitPoint) of presplit's
 * NativeSplitPolicy (decisions through JNI, delimited-group layout) against HBase's own
 * SteppingSplitPolicy + DelimitedKeyPrefix split restriction, on real HRegions.
 *
 * Single-file program, run by bench/run_policy_bench.sh:
 *
 *   java -cp <hbase classpath>:presplit-hbase.jar -Djava.library.path=<dir of libpresplit_jni.so>
 *        PolicyBench.java --dir DIR [--rows N] [--groups G] [--flushes F] [--ops N] [--rounds R]
 *        [--warmup W]
 *
 * What it does:
 *  1. Opens regions of three tables on the local filesystem under DIR/policy-bench-regions
 *     (HRegion.createHRegion with a WAL of its own, no RegionServer), identical but for their
 *     split settings:
 *       hbase        SPLIT_POLICY SteppingSplitPolicy,
 *                    hbase.regionserver.region.split_restriction.type=DelimitedKeyPrefix, '|'
 *       native       SPLIT_POLICY io.presplit.hbase.NativeSplitPolicy,
 *                    presplit.layout.group.delimiter='|' (no request samples: size mid key)
 *       native-load  as native, plus a RegionLoadSampler registered for the region and filled
 *                    with skewed requests (the load-balanced split key path)
 *     MAX_FILESIZE is 1 MB so that every policy decides to split.
 *  2. Writes the same rows "g%05d|r%06d" (100-byte values) into each and flushes F times, so
 *     each region has F store files and a mid key.
 *  3. Checks that every variant decides to split and prints its split point; the native
 *     policies must not have fallen back to SteppingSplitPolicy.
 *  4. Times region.checkSplit(false) -- what the RegionServer calls after a flush or a
 *     compaction: policy.shouldSplit(), policy.getSplitPoint(), then the table's split
 *     restriction -- and, to see where the time goes, shouldSplit() alone and getSplitPoint()
 *     + restriction alone (the protected methods through a private MethodHandles lookup), in
 *     rounds of N calls per case and variant, the variants interleaved within each round and
 *     their order rotated from round to round. W rounds of warm-up are discarded. Each batch
 *     is timed by the thread's CPU time (robust when other processes share the cores) and by
 *     the wall clock.
 *  5. Prints ns per call per case and variant (median over rounds, min, mean and standard
 *     deviation), the median of the per-round ratios against hbase, and, for reference, the
 *     calls the native policy makes, alone (shouldSplitBySize, snapSplitPoint, the sampler's
 *     snapshot, chooseLoadSplitKey), and the sampler's recordPoint (LoadSamplingObserver's
 *     per-request work, single-threaded).
 *  6. The decision through JNI per call: PresplitNative.shouldSplitBySize + snapSplitPoint with
 *     exactly the inputs of native_bench's BM_SplitDecisionAndSnap (stepping defaults, 3 regions,
 *     stores of 3 and 12 GiB, 16 decimal murmur3 buckets with a '|' group, the same region and
 *     mid key), so bench/run_all.sh can set it beside the pure C++ figure: the difference is
 *     what JNI (and the layout's validation on every call) adds.
 * With PRESPLIT_BENCH_SUMMARY set, appends its summary rows to that file (bench/run_all.sh).
 * Exit code: 0 when measured (whatever the ratio), 1 on an error.
 */

import io.presplit.hbase.NativeSplitPolicy;
import io.presplit.hbase.coprocessor.LoadSamplerRegistry;
import io.presplit.hbase.coprocessor.RegionLoadSampler;
import io.presplit.hbase.nativelib.LayoutSpec;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.hbase.nativelib.SizeParams;
import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.RegionSplitPolicy;
import org.apache.hadoop.hbase.regionserver.RegionSplitRestriction;
import org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALFactory;

public class PolicyBench {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final String DELIMITER_KEY = "hbase.regionserver.region.split_restriction.delimiter";
  static final long MAX_FILESIZE = 1L << 20;

  static volatile long sink; // keeps the JIT from discarding results

  record Variant(String name, HRegion region) {}

  public static void main(String[] args) throws Throwable {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(
        org.apache.logging.log4j.Level.ERROR);
    String dir = null;
    int rows = 60000, groups = 600, flushes = 3, ops = 2000, rounds = 15, warmup = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir": dir = args[++i]; break;
        case "--rows": rows = Integer.parseInt(args[++i]); break;
        case "--groups": groups = Integer.parseInt(args[++i]); break;
        case "--flushes": flushes = Integer.parseInt(args[++i]); break;
        case "--ops": ops = Integer.parseInt(args[++i]); break;
        case "--rounds": rounds = Integer.parseInt(args[++i]); break;
        case "--warmup": warmup = Integer.parseInt(args[++i]); break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (dir == null) {
      throw new IllegalArgumentException("--dir DIR is required");
    }
    File root = new File(dir, "policy-bench-regions").getAbsoluteFile(); // deleted and recreated
    deleteTree(root);
    if (!root.mkdirs()) {
      throw new IllegalStateException("cannot create " + root);
    }

    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.rootdir", root.toURI().toString());
    conf.set("fs.defaultFS", "file:///");
    conf.set(WALFactory.WAL_PROVIDER, "filesystem");
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    Path rootDir = new Path(root.toURI());
    WALFactory wals = new WALFactory(conf, "policy-bench");

    List<Variant> variants = new ArrayList<>();
    variants.add(new Variant("hbase", open(conf, rootDir, wals, "bench_hbase",
        b -> b.setRegionSplitPolicyClassName(SteppingSplitPolicy.class.getName())
            .setValue(RegionSplitRestriction.RESTRICTION_TYPE_KEY,
                RegionSplitRestriction.RESTRICTION_TYPE_DELIMITED_KEY_PREFIX)
            .setValue(DELIMITER_KEY, "|"))));
    variants.add(new Variant("native", open(conf, rootDir, wals, "bench_native",
        b -> b.setRegionSplitPolicyClassName(NativeSplitPolicy.class.getName())
            .setValue("presplit.layout.group.delimiter", "|"))));
    variants.add(new Variant("native-load", open(conf, rootDir, wals, "bench_native_load",
        b -> b.setRegionSplitPolicyClassName(NativeSplitPolicy.class.getName())
            .setValue("presplit.layout.group.delimiter", "|"))));

    for (Variant v : variants) {
      fill(v.region(), rows, groups, flushes);
    }
    // Skewed requests for native-load: 70% on the first fifth of the groups.
    RegionLoadSampler sampler = new RegionLoadSampler();
    Random rnd = new Random(7);
    for (int i = 0; i < 20000; i++) {
      int g = rnd.nextInt(100) < 70 ? rnd.nextInt(groups / 5) : groups / 5
          + rnd.nextInt(groups - groups / 5);
      sampler.recordPoint(rowKey(g, rnd.nextInt(rows / groups)));
    }
    LoadSamplerRegistry.register(variants.get(2).region().getRegionInfo().getEncodedName(),
        sampler);

    // Sanity: every variant splits, the native ones without falling back.
    System.out.printf("regions: %d rows in %d groups, %d store files each, store size %d bytes,"
        + " MAX_FILESIZE %d%n", rows, groups, flushes, storeSize(variants.get(0).region()),
        MAX_FILESIZE);
    for (Variant v : variants) {
      RegionSplitPolicy p = RegionSplitPolicy.create(v.region(), conf);
      if (p instanceof NativeSplitPolicy && ((NativeSplitPolicy) p).fallbackReason() != null) {
        throw new IllegalStateException(v.name() + ": NativeSplitPolicy fell back: "
            + ((NativeSplitPolicy) p).fallbackReason());
      }
      Optional<byte[]> point = v.region().checkSplit(false);
      if (point.isEmpty()) {
        throw new IllegalStateException(v.name() + ": checkSplit gave no split point");
      }
      System.out.printf("  %-12s %-22s split point %s%n", v.name(),
          p.getClass().getSimpleName(), Bytes.toStringBinary(point.get()));
    }

    // Timed rounds: every case of every variant once per round, the variants interleaved and
    // their order rotated from round to round. Each batch is timed by the thread's CPU time
    // (what the decision costs, unaffected by other processes taking the cores) and by the
    // wall clock.
    int n = variants.size();
    String[] cases = {"checkSplit", "shouldSplit", "getSplitPoint"};
    MethodHandle should = MethodHandles.privateLookupIn(RegionSplitPolicy.class,
        MethodHandles.lookup()).findVirtual(RegionSplitPolicy.class, "shouldSplit",
        MethodType.methodType(boolean.class));
    MethodHandle point = MethodHandles.privateLookupIn(RegionSplitPolicy.class,
        MethodHandles.lookup()).findVirtual(RegionSplitPolicy.class, "getSplitPoint",
        MethodType.methodType(byte[].class));
    RegionSplitPolicy[] policies = new RegionSplitPolicy[n];
    RegionSplitRestriction[] restrictions = new RegionSplitRestriction[n];
    for (int v = 0; v < n; v++) {
      policies[v] = RegionSplitPolicy.create(variants.get(v).region(), conf);
      restrictions[v] = RegionSplitRestriction.create(
          variants.get(v).region().getTableDescriptor(), conf);
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    double[][][] cpu = new double[n][cases.length][rounds];
    double[][][] wall = new double[n][cases.length][rounds];
    for (int r = -warmup; r < rounds; r++) {
      for (int k = 0; k < n; k++) {
        int vi = (k + Math.floorMod(r, n)) % n;
        HRegion region = variants.get(vi).region();
        RegionSplitPolicy policy = policies[vi];
        RegionSplitRestriction restriction = restrictions[vi];
        for (int c = 0; c < cases.length; c++) {
          long acc = 0;
          long c0 = mx.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          switch (c) {
            case 0:
              for (int i = 0; i < ops; i++) {
                acc += region.checkSplit(false).get().length;
              }
              break;
            case 1:
              for (int i = 0; i < ops; i++) {
                acc += ((boolean) should.invokeExact(policy)) ? 1 : 0;
              }
              break;
            default:
              for (int i = 0; i < ops; i++) {
                acc += restriction.getRestrictedSplitPoint((byte[]) point.invokeExact(policy))
                    .length;
              }
              break;
          }
          long t1 = System.nanoTime();
          long c1 = mx.getCurrentThreadCpuTime();
          sink += acc;
          if (r >= 0) {
            cpu[vi][c][r] = (c1 - c0) / (double) ops;
            wall[vi][c][r] = (t1 - t0) / (double) ops;
          }
        }
      }
    }

    // The bare JNI calls NativeSplitPolicy makes, for reference.
    LayoutSpec layout = new LayoutSpec(0, "byte", 0, "murmur3", "group", 0, Bytes.toBytes("|"));
    SizeParams sp = new SizeParams(PresplitNative.parseSizePolicy("stepping"), MAX_FILESIZE,
        128L << 20, 256L << 20, 0.25, 42L, false);
    long[] sizes = {storeSize(variants.get(1).region())};
    byte[] mid = rowKey(groups / 2, 3);
    double[] jniShould = new double[rounds];
    double[] jniSnap = new double[rounds];
    double[] snapshot = new double[rounds];
    double[] jniLoad = new double[rounds];
    double[] record = new double[rounds];
    double[] jniDecision = new double[rounds];
    // BM_SplitDecisionAndSnap's inputs (bench/native_bench.cc), through JNI.
    LayoutSpec cppLayout = new LayoutSpec(16, "decimal", 0, "murmur3", "group", 0,
        Bytes.toBytes("|"));
    SizeParams cppParams = new SizeParams(PresplitNative.parseSizePolicy("stepping"), 10L << 30,
        128L << 20, 0, 0.25, 0L, false);
    long[] cppStores = {3L << 30, 12L << 30};
    byte[] cppStart = Bytes.toBytes("07");
    byte[] cppEnd = Bytes.toBytes("08");
    byte[] cppMid = Bytes.toBytes("07customer-004711|order-000000981|line-03");
    if (!PresplitNative.shouldSplitBySize(cppParams, 3, cppStores)
        || !Bytes.toString(PresplitNative.snapSplitPoint(cppLayout, cppStart, cppEnd, cppMid))
            .equals("07customer-004711|")) {
      throw new IllegalStateException("the JNI decision differs from BM_SplitDecisionAndSnap's: "
          + "expected a split at 07customer-004711|");
    }
    byte[][] recordKeys = new byte[1024][];
    for (int i = 0; i < recordKeys.length; i++) {
      recordKeys[i] = rowKey(rnd.nextInt(groups), rnd.nextInt(rows / groups));
    }
    RegionLoadSampler.Snapshot snap = sampler.snapshot();
    for (int r = -warmup; r < rounds; r++) {
      long acc = 0;
      long c0 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        acc += PresplitNative.shouldSplitBySize(sp, 0, sizes) ? 1 : 0;
      }
      long c1 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        acc += PresplitNative.snapSplitPoint(layout, new byte[0], new byte[0], mid).length;
      }
      long c2 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        acc += sampler.snapshot().size();
      }
      long c3 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        acc += PresplitNative.chooseLoadSplitKey(snap.keys(), snap.left(), snap.right(),
            snap.contained(), 100, 0.25, 0.5).key().length;
      }
      long c4 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops * 50; i++) {
        sampler.recordPoint(recordKeys[i & 1023]);
      }
      long c5 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        acc += PresplitNative.shouldSplitBySize(cppParams, 3, cppStores) ? 1 : 0;
        acc += PresplitNative.snapSplitPoint(cppLayout, cppStart, cppEnd, cppMid).length;
      }
      long c6 = mx.getCurrentThreadCpuTime();
      sink += acc + sampler.requests();
      if (r >= 0) {
        jniShould[r] = (c1 - c0) / (double) ops;
        jniSnap[r] = (c2 - c1) / (double) ops;
        snapshot[r] = (c3 - c2) / (double) ops;
        jniLoad[r] = (c4 - c3) / (double) ops;
        record[r] = (c5 - c4) / (double) (ops * 50);
        jniDecision[r] = (c6 - c5) / (double) ops;
      }
    }

    System.out.printf("%n%d rounds x %d calls per case and variant, interleaved (%d warm-up "
        + "rounds discarded); ns per call%n", rounds, ops, warmup);
    System.out.println("  checkSplit    = region.checkSplit(false), the RegionServer's path: "
        + "shouldSplit + getSplitPoint + the table's split restriction");
    System.out.println("  shouldSplit   = policy.shouldSplit() alone");
    System.out.println("  getSplitPoint = policy.getSplitPoint() + the table's restriction");
    System.out.printf("  %-26s %9s %9s %9s %9s   %9s %9s%n", "", "cpu med", "cpu min",
        "cpu mean", "cpu sd", "wall med", "wall sd");
    for (int c = 0; c < cases.length; c++) {
      for (int v = 0; v < n; v++) {
        printRow(cases[c] + " " + variants.get(v).name(), cpu[v][c], wall[v][c]);
      }
    }
    printRow("jni shouldSplitBySize", jniShould, null);
    printRow("jni snapSplitPoint", jniSnap, null);
    printRow("sampler snapshot", snapshot, null);
    printRow("jni chooseLoadSplitKey", jniLoad, null);
    printRow("sampler recordPoint", record, null);
    printRow("jni decision + snap", jniDecision, null);
    System.out.printf("  (reference rows, cpu only: the calls NativeSplitPolicy makes, alone; the"
        + " sampler holds %d keys; recordPoint is what LoadSamplingObserver adds per request,"
        + " one thread; 'jni decision + snap' is shouldSplitBySize + snapSplitPoint through JNI"
        + " with native_bench's BM_SplitDecisionAndSnap inputs, to set beside its pure C++"
        + " figure)%n", snap.size());

    // The like-for-like comparison first: getSplitPoint + restriction is the same work in both
    // policies (the largest store's mid key cut to a delimited group); checkSplit adds
    // shouldSplit, where HBase formats log arguments it may never print.
    System.out.println();
    int[] caseOrder = {2, 0, 1};
    for (int c : caseOrder) {
      for (int v = 1; v < n; v++) {
        double[] ratio = new double[rounds];
        double[] wratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          ratio[r] = cpu[v][c][r] / cpu[0][c][r];
          wratio[r] = wall[v][c][r] / wall[0][c][r];
        }
        String target = c == 0 && v == 1
            ? "   target <= 1.5x: " + (median(ratio) <= 1.5 ? "met" : "NOT met") : "";
        String like = c == 2 && v == 1 ? "   (like for like: the same work in both)" : "";
        System.out.printf("ratio %-13s %s/hbase: %5.2fx cpu [rounds %.2f..%.2f], %5.2fx wall%s%s%n",
            cases[c], variants.get(v).name(), median(ratio), min(ratio), max(ratio),
            median(wratio), target, like);
        if (v == 1 && c != 1) {
          BenchSummary.row("policy", "policy." + cases[c], c == 2
              ? "getSplitPoint + restriction, CPU ns/call (like for like)"
              : "checkSplit (the whole decision), CPU ns/call",
              median(cpu[1][c]), median(cpu[0][c]), "SteppingSplitPolicy + DelimitedKeyPrefix",
              median(ratio), "presplit/baseline", c == 0 ? "<= 1.5" : null,
              c == 0 ? median(ratio) <= 1.5 : null, String.format("%d rounds x %d calls, "
                  + "median of per-round ratios %.2f..%.2f", rounds, ops, min(ratio), max(ratio)));
        }
      }
    }
    System.out.println("(ratios: median over rounds of the per-round ratio)");
    BenchSummary.row("policy", "policy.jni_decision_snap", "split decision + snap through JNI, "
        + "CPU ns/call", median(jniDecision), Double.NaN, null, Double.NaN, null, null, null,
        "BM_SplitDecisionAndSnap's inputs; run_all.sh sets it beside the pure C++ figure");

    for (Variant v : variants) {
      v.region().close();
    }
    wals.close();
    deleteTree(root);
  }

  interface Customizer {
    TableDescriptorBuilder apply(TableDescriptorBuilder b);
  }

  static HRegion open(Configuration conf, Path rootDir, WALFactory wals, String table,
      Customizer c) throws Exception {
    TableDescriptor td = c.apply(TableDescriptorBuilder.newBuilder(TableName.valueOf(table))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
        .setMaxFileSize(MAX_FILESIZE)).build();
    RegionInfo info = RegionInfoBuilder.newBuilder(td.getTableName()).build();
    WAL wal = wals.getWAL(info);
    return HRegion.createHRegion(info, rootDir, conf, td, wal, true);
  }

  static byte[] rowKey(int group, int row) {
    return Bytes.toBytes(String.format("g%05d|r%06d", group, row));
  }

  static void fill(HRegion region, int rows, int groups, int flushes) throws Exception {
    Random rnd = new Random(1);
    int perGroup = rows / groups;
    int perFlush = (groups + flushes - 1) / flushes;
    byte[] value = new byte[100];
    List<Put> batch = new ArrayList<>();
    // Every flush writes a share of the groups, in a shuffled order of groups.
    List<Integer> order = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      order.add(g);
    }
    java.util.Collections.shuffle(order, rnd);
    for (int f = 0; f < flushes; f++) {
      for (int gi = f * perFlush; gi < Math.min(groups, (f + 1) * perFlush); gi++) {
        int g = order.get(gi);
        for (int r = 0; r < perGroup; r++) {
          rnd.nextBytes(value);
          Put p = new Put(rowKey(g, r)).addColumn(F, Q, value.clone());
          p.setDurability(Durability.SKIP_WAL);
          batch.add(p);
          if (batch.size() == 500) {
            region.batchMutate(batch.toArray(new Put[0]));
            batch.clear();
          }
        }
      }
      if (!batch.isEmpty()) {
        region.batchMutate(batch.toArray(new Put[0]));
        batch.clear();
      }
      region.flush(true);
    }
  }

  static long storeSize(HRegion region) {
    long size = 0;
    for (HStore s : region.getStores()) {
      size += s.getSize();
    }
    return size;
  }

  static void printRow(String name, double[] cpu, double[] wall) {
    System.out.printf("  %-26s %9.0f %9.0f %9.0f %9.0f   %9s %9s%n", name, median(cpu), min(cpu),
        mean(cpu), stddev(cpu), wall == null ? "" : String.format("%.0f", median(wall)),
        wall == null ? "" : String.format("%.0f", stddev(wall)));
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

  static void deleteTree(File f) {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteTree(c);
      }
    }
    f.delete();
  }
}
