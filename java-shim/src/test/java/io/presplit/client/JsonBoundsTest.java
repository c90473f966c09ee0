package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The bounds on JSON from ZooKeeper ({@link JsonBounds}), and the SDK's reads of documents and
 * statuses through them: a znode nested 200,000 deep is a {@link PresplitConfigException} that
 * says why, never a {@link StackOverflowError}.
 */
class JsonBoundsTest {

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String nested(int depth, String open, String inner, String close) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      b.append(open);
    }
    b.append(inner);
    for (int i = 0; i < depth; i++) {
      b.append(close);
    }
    return b.toString();
  }

  /** {"":{"":...1}}: 4 bytes a level, so 200,000 levels fit in a znode's 1 MiB. */
  static String deepObjects(int depth) {
    return nested(depth, "{\"\":", "1", "}");
  }

  @Test
  void limitsAreZooKeepersZnodeSizeAnd64LevelsLikePresplitds() {
    assertEquals(1048576, JsonBounds.MAX_BYTES);
    assertEquals(64, JsonBounds.MAX_DEPTH);
    assertNull(JsonBounds.problem(utf8(nested(64, "[", "", "]"))));
    assertEquals("JSON nested deeper than 64 levels (at byte offset 64)",
        JsonBounds.problem(utf8(nested(65, "[", "", "]"))));
    assertEquals("JSON nested deeper than 64 levels (at byte offset 256)",
        JsonBounds.problem(utf8(deepObjects(65))));
    byte[] atLimit = new byte[JsonBounds.MAX_BYTES];
    java.util.Arrays.fill(atLimit, (byte) ' ');
    assertNull(JsonBounds.problem(atLimit));
    assertEquals("JSON of 1048577 bytes is larger than the limit of 1048576 bytes",
        JsonBounds.problem(new byte[JsonBounds.MAX_BYTES + 1]));
  }

  @Test
  void twoHundredThousandLevelsAreRefusedWithoutRecursion() {
    assertEquals("JSON nested deeper than 64 levels (at byte offset 64)",
        JsonBounds.problem(utf8(nested(200_000, "[", "", "]"))));
    assertEquals("JSON nested deeper than 64 levels (at byte offset 256)",
        JsonBounds.problem(utf8(deepObjects(200_000))));
  }

  @Test
  void bytesAboveAsciiAreStringContent() {
    // Not UTF-8, and UTF-8 whose bytes are all above 0x7F: nothing in them is a quote.
    byte[] text = {'[', '"', (byte) 0xff, (byte) 0xc3, (byte) 0xa9, '[', '"', ']'};
    assertNull(JsonBounds.problem(text, 100, 1));
  }

  /** The cases presplitd's CheckJsonBounds checks too (tests/vectors/json_bounds.json). */
  @Test
  void sharedVectorsGiveTheSameVerdictAndMessage() throws IOException {
    JsonObject vectors = JsonParser.parseString(Files.readString(
        SharedVectorsTest.vectorsDir().resolve("json_bounds.json"), StandardCharsets.UTF_8))
        .getAsJsonObject();
    int checked = 0;
    for (JsonElement e : vectors.getAsJsonArray("cases")) {
      JsonObject c = e.getAsJsonObject();
      String expected = c.get("problem").isJsonNull() ? null : c.get("problem").getAsString();
      assertEquals(expected, JsonBounds.problem(utf8(c.get("text").getAsString()),
          c.get("max_bytes").getAsInt(), c.get("max_depth").getAsInt()),
          c.get("name").getAsString());
      checked++;
    }
    assertTrue(checked >= 10, "only " + checked + " cases");
  }

  /** What the SDK does with a document or status znode: refused with the reason, no parse. */
  @Test
  void aZnodeNestedTooDeepIsAConfigExceptionThatSaysWhy() throws Exception {
    String path = "/presplit/tables/default:t";
    for (String text : new String[] {nested(200_000, "[", "", "]"), deepObjects(200_000),
        "{\"version\": 1, \"layout\": " + deepObjects(200_000) + "}"}) {
      PresplitConfigException e = assertThrows(PresplitConfigException.class,
          () -> PresplitTables.parseObject(path, utf8(text)));
      assertTrue(e.getMessage().startsWith(
          path + " cannot be read: JSON nested deeper than 64 levels (at byte offset "),
          e.getMessage());
    }
    JsonObject ok = PresplitTables.parseObject(path, utf8("{\"phase\": \"ready\"}"));
    assertEquals("ready", ok.get("phase").getAsString());
  }
}
