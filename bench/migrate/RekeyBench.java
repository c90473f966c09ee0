/*
 * RekeyBench: what re-keying costs in a re-salting copy, no cluster: 200,000 reference-case row
 * keys (32-hex-digit group + "|" + sequence) re-keyed from 10 to 16 decimal buckets (java-hashcode)
 * by libpresplit's RekeyAll through JNI in batches of 512 (what CopyBridge does) and by the
 * SDK's pure-Java KeyLayout one key at a time, five rounds each, interleaved. Checks both give the
 * same keys.
 *
 *   java -Djava.library.path=<build>/jni -cp presplit-hbase.jar:$(hbase classpath) \
 *       bench/migrate/RekeyBench.java
 */

import io.presplit.client.KeyLayout;
import io.presplit.hbase.nativelib.LayoutSpec;
import io.presplit.hbase.nativelib.PresplitNative;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

public final class RekeyBench {
  public static void main(String[] args) throws Exception {
    String oldJson = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\","
        + "\"hash\":\"java-hashcode\"},\"group\":{\"length\":32}}";
    String newJson = oldJson.replace("\"buckets\":10,", "\"buckets\":16,");
    KeyLayout oldLayout = KeyLayout.fromDocument(JsonParser.parseString(oldJson)
        .getAsJsonObject());
    KeyLayout newLayout = KeyLayout.fromDocument(JsonParser.parseString(newJson)
        .getAsJsonObject());
    LayoutSpec oldSpec = new LayoutSpec(10, "decimal", 1, "java-hashcode", "group", 32, null);
    LayoutSpec newSpec = new LayoutSpec(16, "decimal", 2, "java-hashcode", "group", 32, null);
    Random random = new Random(1);
    byte[][] keys = new byte[200_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = oldLayout.encode(Bytes.toBytes(String.format("%016x%016x|%d",
          random.nextLong(), (long) (i / 20), i)));
    }
    for (int round = 0; round < 5; round++) {
      byte[][] nativeKeys = new byte[keys.length][];
      long t0 = System.nanoTime();
      for (int i = 0; i < keys.length; i += 512) {
        byte[][] batch = Arrays.copyOfRange(keys, i, Math.min(keys.length, i + 512));
        byte[][] out = PresplitNative.rekeyAll(oldSpec, newSpec, batch);
        System.arraycopy(out, 0, nativeKeys, i, out.length);
      }
      long t1 = System.nanoTime();
      byte[][] javaKeys = new byte[keys.length][];
      for (int i = 0; i < keys.length; i++) {
        javaKeys[i] = newLayout.encode(oldLayout.logicalKey(keys[i]));
      }
      long t2 = System.nanoTime();
      for (int i = 0; i < keys.length; i++) {
        if (!Arrays.equals(nativeKeys[i], javaKeys[i])) {
          System.err.println("RekeyBench: key " + i + " differs");
          System.exit(1);
        }
      }
      System.out.printf("round %d: RekeyAll (JNI, 512 a call) %.0f ns/key, KeyLayout (Java) "
          + "%.0f ns/key%n", round, (t1 - t0) / (double) keys.length,
          (t2 - t1) / (double) keys.length);
    }
  }
}
