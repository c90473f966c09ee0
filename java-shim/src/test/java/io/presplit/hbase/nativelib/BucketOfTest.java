package io.presplit.hbase.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.client.KeyLayout;
import io.presplit.client.KeyLayoutException;
import io.presplit.client.SaltEncoding;
import io.presplit.client.SaltHash;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The salting entry points ({@code bucketOf}, {@code bucketsOf}) against the pure-Java
 * {@link KeyLayout}: every case of the shared vectors (tests/vectors/layouts.json), random keys
 * on several layouts, and every error path. Runs with -Xcheck:jni (pom), like
 * {@link PresplitNativeTest}.
 */
class BucketOfTest {

  @BeforeAll
  static void load() throws NativeException {
    NativeLibrary.require();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** tests/vectors, from the project root (java-shim's parent, Maven's basedir). */
  private static Path vectorsDir() {
    String explicit = System.getProperty("presplit.vectors.dir");
    if (explicit != null) {
      return Paths.get(explicit);
    }
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    Path dir = Paths.get(basedir).toAbsolutePath().getParent().resolve("tests").resolve("vectors");
    assertTrue(Files.isDirectory(dir), "shared vectors not found at " + dir);
    return dir;
  }

  /** The same layout as the JNI surface takes it (the resolved width, as a document may). */
  static LayoutSpec spec(KeyLayout l) {
    return new LayoutSpec(l.buckets(), l.encoding().documentName(),
        l.isSalted() ? l.saltWidth() : 0, l.hash().documentName(),
        l.saltFromKey() ? "key" : "group", l.groupLength(), l.groupDelimiter());
  }

  /** KeyLayout.bucketOf, or -1 when the key does not fit. */
  private static int javaBucket(KeyLayout layout, byte[] key) {
    try {
      return layout.bucketOf(key);
    } catch (KeyLayoutException e) {
      return -1;
    }
  }

  /** Checks one key one call at a time: same bucket, or both refuse it. */
  private static void checkSingle(KeyLayout layout, LayoutSpec spec, byte[] key, String where)
      throws NativeException {
    int expected = javaBucket(layout, key);
    if (expected < 0) {
      NativeException e = assertThrows(NativeException.class,
          () -> PresplitNative.bucketOf(spec, key), where);
      assertEquals("INVALID_ARGUMENT", e.code(), where);
    } else {
      assertEquals(expected, PresplitNative.bucketOf(spec, key), where);
    }
  }

  @Test
  void everySharedVectorAsJava() throws IOException, NativeException {
    String text = Files.readString(vectorsDir().resolve("layouts.json"), StandardCharsets.UTF_8);
    JsonObject root = JsonParser.parseString(text).getAsJsonObject();
    int layouts = 0;
    int cases = 0;
    for (JsonElement le : root.getAsJsonArray("layouts")) {
      JsonObject l = le.getAsJsonObject();
      String name = l.get("name").getAsString();
      KeyLayout layout = KeyLayout.fromDocument(l.getAsJsonObject("layout"));
      LayoutSpec spec = spec(layout);
      List<byte[]> keys = new ArrayList<>();
      List<Integer> expected = new ArrayList<>();
      for (JsonElement ce : l.getAsJsonArray("cases")) {
        JsonObject c = ce.getAsJsonObject();
        byte[] key = Bytes.toBytesBinary(c.get("key").getAsString());
        boolean error = c.has("error") && c.get("error").getAsBoolean();
        int bucket = error ? -1 : c.get("bucket").getAsInt();
        String where = name + " key '" + c.get("key").getAsString() + "'";
        assertEquals(bucket, javaBucket(layout, key), where);
        checkSingle(layout, spec, key, where);
        keys.add(key);
        expected.add(bucket);
        cases++;
      }
      int[] out = new int[keys.size()];
      PresplitNative.bucketsOf(spec, keys.toArray(new byte[0][]), out);
      assertArrayEquals(expected.stream().mapToInt(Integer::intValue).toArray(), out, name);
      layouts++;
    }
    assertTrue(layouts >= 20, "only " + layouts + " layouts");
    assertTrue(cases >= 1000, "only " + cases + " cases");
  }

  @Test
  void randomKeysAsJava() throws NativeException {
    List<KeyLayout> layouts = List.of(
        KeyLayout.of(16, SaltEncoding.BYTE, 0, SaltHash.MURMUR3, false, 0, b("|")),
        KeyLayout.of(256, SaltEncoding.BYTE, 0, SaltHash.MURMUR3, true, 0, null),
        KeyLayout.of(10, SaltEncoding.DECIMAL, 0, SaltHash.JAVA_HASHCODE, false, 32, null),
        KeyLayout.of(37, SaltEncoding.HEX, 3, SaltHash.PHOENIX, false, 4, null),
        KeyLayout.of(1000, SaltEncoding.DECIMAL, 0, SaltHash.JAVA_HASHCODE, true, 0, b("||")),
        KeyLayout.of(0, SaltEncoding.BYTE, 0, SaltHash.MURMUR3, false, 0, b("|")));
    Random random = new Random(20261122);
    for (KeyLayout layout : layouts) {
      LayoutSpec spec = spec(layout);
      byte[][] keys = new byte[3000][];
      int[] expected = new int[keys.length];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = randomKey(random);
        expected[i] = javaBucket(layout, keys[i]);
        if (i % 10 == 0) {
          checkSingle(layout, spec, keys[i], layout + " key " + Bytes.toStringBinary(keys[i]));
        }
      }
      int[] out = new int[keys.length];
      PresplitNative.bucketsOf(spec, keys, out);
      assertArrayEquals(expected, out, layout.toString());
      int fitting = 0;
      for (int e : expected) {
        fitting += e >= 0 ? 1 : 0;
      }
      assertTrue(fitting > keys.length / 10, layout + ": only " + fitting + " keys fit");
    }
  }

  /** 0..80 bytes: printable ASCII (often with a '|'), valid multi-byte UTF-8, or any bytes. */
  private static byte[] randomKey(Random random) {
    int length = random.nextInt(81);
    switch (random.nextInt(3)) {
      case 0: {
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
          k[i] = (byte) (random.nextInt(8) == 0 ? '|' : 0x20 + random.nextInt(95));
        }
        return k;
      }
      case 1: {
        StringBuilder s = new StringBuilder();
        while (s.length() < length) {
          s.appendCodePoint(random.nextBoolean() ? 'a' + random.nextInt(26)
              : random.nextInt(8) == 0 ? '|' : 0xA0 + random.nextInt(0x2000));
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
      }
      default: {
        byte[] k = new byte[length];
        random.nextBytes(k);
        return k;
      }
    }
  }

  @Test
  void errorPaths() throws NativeException {
    LayoutSpec layout = new LayoutSpec(16, "byte", 0, "murmur3", "group", 0, b("|"));
    // A key that does not fit: an error for one key, -1 in a batch (and the batch goes on).
    NativeException e = assertThrows(NativeException.class,
        () -> PresplitNative.bucketOf(layout, b("no delimiter")));
    assertEquals("INVALID_ARGUMENT", e.code());
    int[] out = {7, 7, 7};
    PresplitNative.bucketsOf(layout, new byte[][] {b("a|1"), b("nothing"), b("a|2")}, out);
    assertEquals(-1, out[1]);
    assertEquals(out[0], out[2]);
    assertTrue(out[0] >= 0 && out[0] < 16);
    // java-hashcode needs UTF-8.
    LayoutSpec javaHash = new LayoutSpec(10, "decimal", 0, "java-hashcode", "key", 0, null);
    assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
        () -> PresplitNative.bucketOf(javaHash, new byte[] {(byte) 0xC3})).code());
    int[] one = {0};
    PresplitNative.bucketsOf(javaHash, new byte[][] {{(byte) 0xFF}}, one);
    assertEquals(-1, one[0]);
    // Nulls and a wrong output length.
    assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
        () -> PresplitNative.bucketOf(layout, null)).code());
    assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
        () -> PresplitNative.bucketsOf(layout, null, new int[0])).code());
    assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
        () -> PresplitNative.bucketsOf(layout, new byte[][] {b("a|1")}, null)).code());
    NativeException length = assertThrows(NativeException.class,
        () -> PresplitNative.bucketsOf(layout, new byte[][] {b("a|1")}, new int[2]));
    assertTrue(length.getMessage().contains("2 entries"), length.getMessage());
    NativeException element = assertThrows(NativeException.class,
        () -> PresplitNative.bucketsOf(layout, new byte[][] {b("a|1"), null}, new int[2]));
    assertTrue(element.getMessage().contains("keys[1]"), element.getMessage());
    // An empty batch is fine; an invalid layout is refused before any key is looked at.
    PresplitNative.bucketsOf(layout, new byte[0][], new int[0]);
    for (LayoutSpec bad : List.of(
        new LayoutSpec(-1, "byte", 0, "murmur3", "group", 0, b("|")),
        new LayoutSpec(16, "base64", 0, "murmur3", "group", 0, b("|")),
        new LayoutSpec(16, "byte", 0, "sha1", "group", 0, b("|")),
        new LayoutSpec(16, null, 0, "murmur3", "group", 0, b("|")),
        new LayoutSpec(16, "byte", 0, "murmur3", "group", 0, null),
        new LayoutSpec(300, "byte", 0, "murmur3", "group", 0, b("|")),
        new LayoutSpec(16, "byte", 0, "murmur3", "group", 4, b("|")))) {
      assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
          () -> PresplitNative.bucketOf(bad, b("a|1")), bad.toString()).code(), bad.toString());
      assertEquals("INVALID_ARGUMENT", assertThrows(NativeException.class,
          () -> PresplitNative.bucketsOf(bad, new byte[][] {b("a|1")}, new int[1]),
          bad.toString()).code(), bad.toString());
    }
    // Unsalted: bucket 0 for a key that fits.
    LayoutSpec unsalted = new LayoutSpec(0, "byte", 0, "murmur3", "group", 0, b("|"));
    assertEquals(0, PresplitNative.bucketOf(unsalted, b("a|1")));
  }
}
