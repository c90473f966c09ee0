package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.client.KeyLayout;
import io.presplit.client.KeyLayoutException;
import io.presplit.hbase.admin.JsonText;
import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.rekey.MigrationLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * libpresplit's batch re-key (PresplitNative.rekeyAll, what CopyBridge uses) against the
 * SDK's KeyLayout on the shared vectors (tests/vectors/layouts.json): for every pair of layouts,
 * every vector row key of the first re-keys to KeyLayout's row key of the same logical key in
 * the second. Runs with -Xcheck:jni (pom).
 */
class RekeyTest {

  private static Path vectorsDir() {
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    Path dir = Paths.get(basedir).toAbsolutePath().getParent().resolve("tests").resolve("vectors");
    assertTrue(Files.isDirectory(dir), "shared vectors not found at " + dir);
    return dir;
  }

  private record Vectors(String name, MigrationLayout layout, List<byte[]> keys,
      List<byte[]> rows) {
  }

  private static List<Vectors> load() throws IOException {
    String text = Files.readString(vectorsDir().resolve("layouts.json"), StandardCharsets.UTF_8);
    JsonObject root = JsonParser.parseString(text).getAsJsonObject();
    List<Vectors> all = new ArrayList<>();
    for (JsonElement le : root.getAsJsonArray("layouts")) {
      JsonObject l = le.getAsJsonObject();
      MigrationLayout layout = MigrationLayout.parse(l.getAsJsonObject("layout").toString(),
          "layout");
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> rows = new ArrayList<>();
      for (JsonElement ce : l.getAsJsonArray("cases")) {
        JsonObject c = ce.getAsJsonObject();
        if (c.has("error")) {
          continue;
        }
        keys.add(Bytes.toBytesBinary(c.get("key").getAsString()));
        rows.add(Bytes.toBytesBinary(c.get("row_key").getAsString()));
      }
      all.add(new Vectors(l.get("name").getAsString(), layout, keys, rows));
    }
    return all;
  }

  @Test
  void everyPairOfSharedLayoutsAsKeyLayout() throws IOException, NativeException {
    List<Vectors> all = load();
    assertTrue(all.size() >= 20, "only " + all.size() + " layouts");
    long checked = 0;
    for (Vectors from : all) {
      byte[][] rows = from.rows().toArray(new byte[0][]);
      for (Vectors to : all) {
        KeyLayout target = to.layout().layout;
        List<byte[]> fitting = new ArrayList<>();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
          try {
            expected.add(target.encode(from.keys().get(i)));
            fitting.add(rows[i]);
          } catch (KeyLayoutException e) {
            // Does not fit the target: the native call must refuse it alone.
            byte[][] one = {rows[i]};
            NativeException refused = assertThrows(NativeException.class,
                () -> PresplitNative.rekeyAll(from.layout().spec, to.layout().spec, one));
            assertEquals("INVALID_ARGUMENT", refused.code());
            assertTrue(refused.getMessage().contains("cannot be re-keyed"), refused.getMessage());
          }
        }
        byte[][] got = PresplitNative.rekeyAll(from.layout().spec, to.layout().spec,
            fitting.toArray(new byte[0][]));
        assertEquals(expected.size(), got.length);
        for (int i = 0; i < got.length; i++) {
          assertArrayEquals(expected.get(i), got[i], from.name() + " -> " + to.name() + " key "
              + Bytes.toStringBinary(fitting.get(i)));
          checked++;
        }
      }
    }
    assertTrue(checked > 5_000, "only " + checked + " re-keyed");
  }

  @Test
  void tenToSixteenDecimalBuckets() throws NativeException {
    MigrationLayout ten = MigrationLayout.parse(
        "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\",\"hash\":\"java-hashcode\"},"
            + "\"group\":{\"length\":4}}", "old layout");
    MigrationLayout sixteen = MigrationLayout.parse(
        "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\",\"hash\":\"java-hashcode\"},"
            + "\"group\":{\"length\":4}}", "new layout");
    byte[] logical = "abcd|7".getBytes(StandardCharsets.US_ASCII);
    byte[] old = ten.layout.encode(logical);
    byte[][] got = PresplitNative.rekeyAll(ten.spec, sixteen.spec, new byte[][] {old});
    assertArrayEquals(sixteen.layout.encode(logical), got[0]);
    assertEquals(2, sixteen.saltWidth());
    assertEquals(0, PresplitNative.rekeyAll(ten.spec, sixteen.spec, new byte[0][]).length);
  }

  @Test
  void badLayoutsAreRefusedWithTheirName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MigrationLayout.parse("{\"salt\":{\"buckets\":0}}", "new layout"));
    assertTrue(e.getMessage().startsWith("new layout"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> MigrationLayout.parse("[1]", "old layout"));
    assertTrue(e.getMessage().startsWith("old layout"), e.getMessage());
    assertEquals(0, MigrationLayout.parse("{}", "layout").saltWidth());
    assertEquals(0, MigrationLayout.parse(null, "layout").saltWidth());
  }

  @Test
  void regionOfFindsTheLastStartAtOrBeforeTheKey() {
    byte[][] starts = {new byte[0], Bytes.toBytes("3"), Bytes.toBytes("6")};
    assertEquals(0, BridgeSupport.regionOf(starts, Bytes.toBytes("0abc")));
    assertEquals(1, BridgeSupport.regionOf(starts, Bytes.toBytes("3")));
    assertEquals(1, BridgeSupport.regionOf(starts, Bytes.toBytes("5zzz")));
    assertEquals(2, BridgeSupport.regionOf(starts, Bytes.toBytes("9")));
    byte[][] late = {Bytes.toBytes("5")};
    assertEquals(-1, BridgeSupport.regionOf(late, Bytes.toBytes("4")));
  }

  @Test
  void inputErrorsAreIllegalArguments() throws Exception {
    // Refused before any connection is opened (so no cluster is needed here).
    assertThrows(IllegalArgumentException.class, () -> CopyBridge.copyChunk("a", "b", "{}",
        "{}", null, null, 0, 0, null));
    assertThrows(IllegalArgumentException.class, () -> CopyBridge.copyChunk("bad name!",
        "b", "{}", "{}", null, null, 1, 0, null));
    assertThrows(IllegalArgumentException.class, () -> VerificationBridge.digestPartitions("a",
        "{}", "", "", "0"));
    assertThrows(IllegalArgumentException.class, () -> VerificationBridge.digestPartitions("a",
        "{}", "not base64!", "", "16"));
    assertThrows(IllegalArgumentException.class, () -> VerificationBridge.digestTargetPartitions(
        "a", "{}", "{}", "[\"Yg==\", \"YQ==\"]", "16"));
    assertThrows(IllegalArgumentException.class, () -> GenerationBridge.setReadOnly("a", "yes"));
    // Region names are checked before the connection opens: nothing moves on bad input.
    assertThrows(IllegalArgumentException.class, () -> GenerationBridge.reopenRegions("a", ""));
    assertThrows(IllegalArgumentException.class, () -> GenerationBridge.reopenRegions("a",
        "0d38fb9e13f20768cde211e11b85a184,hbase:meta"));
    assertEquals(List.of("0d38fb9e13f20768cde211e11b85a184", "8a87d792fbc99e0f70347ab54ec6dcc5"),
        GenerationBridge.encodedRegionNames(
            "0d38fb9e13f20768cde211e11b85a184,8a87d792fbc99e0f70347ab54ec6dcc5"));
    assertThrows(IllegalArgumentException.class, () -> CaptureBridge.probe("a", "soon"));
    assertEquals("\"a\\\"b\\\\c\"", JsonText.quote("a\"b\\c"));
  }
}
