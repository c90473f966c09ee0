package io.presplit.mapreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

import io.presplit.client.KeyLayout;

/** The row-file parser of SaltedImport: fields, quotes, mapping and the reasons for bad lines. */
class DelimitedLineTest {

  static final KeyLayout LAYOUT = KeyLayout.fromDocument(JsonParser.parseString(
      "{\"salt\": {\"buckets\": 8, \"encoding\": \"hex\"}, \"group\": {\"delimiter\": \"|\"}}")
      .getAsJsonObject());

  static DelimitedLine parser(String columns, char separator, int quote) {
    return new DelimitedLine(new DelimitedLine.Columns(columns), (byte) separator, quote, LAYOUT);
  }

  static void parse(DelimitedLine line, String text) throws DelimitedLine.BadLineException {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    line.parse(b, b.length);
  }

  static String reason(DelimitedLine line, String text) {
    return assertThrows(DelimitedLine.BadLineException.class, () -> {
      parse(line, text);
      line.rowKey();
    }).getMessage();
  }

  @Test
  void tabSeparatedFieldsAndTheSaltedKey() throws Exception {
    DelimitedLine line = parser("HBASE_ROW_KEY,f:a,f:b", '\t', -1);
    parse(line, "user1|x\tone\t\r");
    assertEquals("user1|x", Bytes.toString(line.logicalKey()));
    assertEquals("one", Bytes.toString(line.field(1)));
    assertEquals("", Bytes.toString(line.field(2)));
    assertArrayEquals(LAYOUT.encode(Bytes.toBytes("user1|x")), line.rowKey());
    assertEquals(-1, line.timestamp());
  }

  @Test
  void quotedCsvFieldsKeepSeparatorsAndDoubledQuotes() throws Exception {
    DelimitedLine line = parser("f:a,HBASE_ROW_KEY,HBASE_TS_KEY", ',', '"');
    parse(line, "\"a,\"\"b\"\"\",k|1,1700000000000");
    assertEquals("a,\"b\"", Bytes.toString(line.field(0)));
    assertEquals("k|1", Bytes.toString(line.logicalKey()));
    assertEquals(1700000000000L, line.timestamp());
  }

  @Test
  void badLinesSayWhy() {
    DelimitedLine line = parser("HBASE_ROW_KEY,f:a,HBASE_TS_KEY", ',', '"');
    assertEquals("2 fields, the mapping has 3", reason(line, "k|1,a"));
    assertEquals("more than the 3 fields of the mapping", reason(line, "k|1,a,1,extra"));
    assertEquals("empty row key", reason(line, ",a,1"));
    assertEquals("timestamp 'soon' is not a number of ms >= 0", reason(line, "k|1,a,soon"));
    assertEquals("field 2: no closing quote", reason(line, "k|1,\"a,1"));
    assertEquals("field 2: text after the closing quote", reason(line, "k|1,\"a\"b,1"));
    assertEquals("key 'nogroup' has no group delimiter '|'", reason(line, "nogroup,a,1"));
  }

  @Test
  void mappingsAreChecked() {
    for (String bad : List.of("f:a,f:b", "HBASE_ROW_KEY", "HBASE_ROW_KEY,a",
        "HBASE_ROW_KEY,HBASE_ROW_KEY,f:a")) {
      assertThrows(IllegalArgumentException.class, () -> new DelimitedLine.Columns(bad), bad);
    }
    assertEquals(List.of("f", "g"),
        new DelimitedLine.Columns("HBASE_ROW_KEY,f:a,g:b,f:c").familyNames());
  }
}
