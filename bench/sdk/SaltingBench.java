/*
 * SaltingBench: the cost of computing a key's bucket in Java, per key, three ways:
 *   java     io.presplit.client.KeyLayout.bucketOf (pure Java, what the SDK uses)
 *   jni      PresplitNative.bucketOf: one JNI call per key (the layout is passed and validated
 *            on every call, as every PresplitNative entry point does)
 *   batch-B  PresplitNative.bucketsOf: one JNI call for B keys
 * plus a reference row, PresplitNative.validateLayout alone (a JNI call that only builds the
 * layout), to show what part of a per-key call is layout handling.
 * Run by bench/run_sdk_bench.sh (no cluster):
 *
 *   java -Djava.library.path=<dir of libpresplit_jni.so> -cp <classes>:<hbase cp>:presplit-hbase.jar
 *        SaltingBench [--rounds R] [--warmup W] [--keys N] [--target-ms T]
 *
 * For each layout and key length: N distinct random keys that fit the layout; every variant
 * computes the buckets of all N keys, repeated so one measurement takes about T ms (calibrated
 * in the warm-up rounds). R rounds after W warm-up rounds, the variants' order rotated every
 * round, one JVM. Timed by the thread's CPU time (robust against other processes taking the
 * cores) and the wall clock. Reports ns per key, the median over rounds, and ratios to java.
 * Every variant's buckets are checked equal to the pure-Java ones before timing.
 * Exit code: 0 when measured, 1 on an error or a mismatch.
 */

import io.presplit.client.KeyLayout;
import io.presplit.client.SaltEncoding;
import io.presplit.client.SaltHash;
import io.presplit.hbase.nativelib.LayoutSpec;
import io.presplit.hbase.nativelib.PresplitNative;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

public class SaltingBench {
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static long sink;

  interface Variant {
    /** Computes the buckets of every key once; returns a checksum. */
    long run(byte[][] keys) throws Exception;
  }

  record Named(String name, Variant variant) {}

  record Case(String name, KeyLayout layout, LayoutSpec spec, byte[][] keys) {}

  static LayoutSpec spec(KeyLayout l) {
    return new LayoutSpec(l.buckets(), l.encoding().documentName(),
        l.isSalted() ? l.saltWidth() : 0, l.hash().documentName(),
        l.saltFromKey() ? "key" : "group", l.groupLength(), l.groupDelimiter());
  }

  static final String HEX = "0123456789abcdef";

  static String randomHex(Random r, int n) {
    StringBuilder s = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      s.append(HEX.charAt(r.nextInt(16)));
    }
    return s.toString();
  }

  /** group "u%07d" + '|' + hex rest, total length `length`. */
  static byte[][] delimitedKeys(Random r, int n, int length) {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      String group = String.format("u%07d", r.nextInt(10_000_000));
      keys[i] = (group + "|" + randomHex(r, length - group.length() - 1))
          .getBytes(StandardCharsets.US_ASCII);
    }
    return keys;
  }

  /** The reference case's key: MD5(check_id) as 32 hex chars + a 32-hex-char id. */
  static byte[][] md5Keys(Random r, int n) {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = (randomHex(r, 32) + randomHex(r, 32)).getBytes(StandardCharsets.US_ASCII);
    }
    return keys;
  }

  public static void main(String[] args) throws Exception {
    int rounds = 15;
    int warmup = 5;
    int n = 4096;
    double targetMs = 30;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rounds": rounds = Integer.parseInt(args[++i]); break;
        case "--warmup": warmup = Integer.parseInt(args[++i]); break;
        case "--keys": n = Integer.parseInt(args[++i]); break;
        case "--target-ms": targetMs = Double.parseDouble(args[++i]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Random r = new Random(20261122);
    KeyLayout murmur = KeyLayout.of(16, SaltEncoding.BYTE, 0, SaltHash.MURMUR3, false, 0,
        new byte[] {'|'});
    KeyLayout reference = KeyLayout.of(10, SaltEncoding.DECIMAL, 0, SaltHash.JAVA_HASHCODE,
        false, 32, null);
    List<Case> cases = new ArrayList<>();
    for (int length : new int[] {16, 32, 64}) {
      cases.add(new Case("murmur3, 16 byte buckets, '|' group, " + length + "-byte keys", murmur,
          spec(murmur), delimitedKeys(r, n, length)));
    }
    cases.add(new Case("java-hashcode, 10 decimal buckets, 32-byte group (reference case), "
        + "64-byte keys", reference, spec(reference), md5Keys(r, n)));

    System.out.printf("salting bench: %d keys per pass, %d rounds after %d warm-up, "
        + "~%.0f ms per measurement%n", n, rounds, warmup, targetMs);
    boolean ok = true;
    for (Case c : cases) {
      ok &= runCase(c, rounds, warmup, targetMs);
    }
    System.out.println("checksum " + sink);
    System.exit(ok ? 0 : 1);
  }

  static List<Named> variants(Case c) {
    KeyLayout layout = c.layout;
    LayoutSpec spec = c.spec;
    List<Named> v = new ArrayList<>();
    v.add(new Named("java", keys -> {
      long sum = 0;
      for (byte[] k : keys) {
        sum += layout.bucketOf(k);
      }
      return sum;
    }));
    v.add(new Named("jni", keys -> {
      long sum = 0;
      for (byte[] k : keys) {
        sum += PresplitNative.bucketOf(spec, k);
      }
      return sum;
    }));
    for (int batch : new int[] {16, 256, 4096}) {
      v.add(new Named("batch-" + batch, keys -> {
        long sum = 0;
        int[] out = new int[batch];
        byte[][] chunk = new byte[batch][];
        for (int i = 0; i < keys.length; i += batch) {
          int m = Math.min(batch, keys.length - i);
          if (m != chunk.length) {
            chunk = new byte[m][];
            out = new int[m];
          }
          System.arraycopy(keys, i, chunk, 0, m);
          PresplitNative.bucketsOf(spec, chunk, out);
          for (int b : out) {
            sum += b;
          }
        }
        return sum;
      }));
    }
    v.add(new Named("ref: validateLayout", keys -> {
      for (int i = 0; i < keys.length; i++) {
        PresplitNative.validateLayout(spec);
      }
      return 0;
    }));
    return v;
  }

  static boolean runCase(Case c, int rounds, int warmup, double targetMs) throws Exception {
    // Correctness first: every way gives the same buckets.
    int[] expected = new int[c.keys.length];
    for (int i = 0; i < c.keys.length; i++) {
      expected[i] = c.layout.bucketOf(c.keys[i]);
    }
    int[] batch = new int[c.keys.length];
    PresplitNative.bucketsOf(c.spec, c.keys, batch);
    for (int i = 0; i < c.keys.length; i++) {
      int single = PresplitNative.bucketOf(c.spec, c.keys[i]);
      if (single != expected[i] || batch[i] != expected[i]) {
        System.out.printf("MISMATCH %s key %s: java %d, jni %d, batch %d%n", c.name,
            new String(c.keys[i], StandardCharsets.ISO_8859_1), expected[i], single, batch[i]);
        return false;
      }
    }
    List<Named> variants = variants(c);
    int k = variants.size();
    int[] passes = new int[k];
    Arrays.fill(passes, 1);
    double[][] cpu = new double[k][rounds];
    double[][] wall = new double[k][rounds];
    for (int round = -warmup; round < rounds; round++) {
      for (int j = 0; j < k; j++) {
        int v = Math.floorMod(j + round, k);
        long t0 = System.nanoTime();
        long c0 = THREADS.getCurrentThreadCpuTime();
        long sum = 0;
        for (int p = 0; p < passes[v]; p++) {
          sum += variants.get(v).variant.run(c.keys);
        }
        long c1 = THREADS.getCurrentThreadCpuTime();
        long t1 = System.nanoTime();
        sink += sum;
        double keys = (double) passes[v] * c.keys.length;
        if (round < 0) {
          // Calibrate: enough passes for about targetMs per measurement.
          double nsPerPass = (t1 - t0) / (double) passes[v];
          passes[v] = (int) Math.max(1, Math.min(1_000_000, targetMs * 1e6 / nsPerPass));
        } else {
          cpu[v][round] = (c1 - c0) / keys;
          wall[v][round] = (t1 - t0) / keys;
        }
      }
    }
    System.out.println();
    System.out.println(c.name + ":");
    System.out.printf("  %-20s %12s %12s %14s %12s %10s%n", "variant", "CPU ns/key",
        "wall ns/key", "CPU rounds", "M keys/s", "/java");
    double javaCpu = median(cpu[0]);
    for (int v = 0; v < k; v++) {
      double m = median(cpu[v]);
      double[] sorted = cpu[v].clone();
      Arrays.sort(sorted);
      System.out.printf("  %-20s %12.1f %12.1f %6.1f-%-7.1f %12.2f %9.2fx%n",
          variants.get(v).name, m, median(wall[v]), sorted[0], sorted[sorted.length - 1],
          1e3 / m, m / javaCpu);
    }
    return true;
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}
