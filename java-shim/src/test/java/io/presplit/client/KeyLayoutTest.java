package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** Layout rules, errors and the per-bucket ranges of a logical scan, without a cluster. */
class KeyLayoutTest {

  static KeyLayout layout(String json) {
    return KeyLayout.fromDocument(JsonParser.parseString(json).getAsJsonObject());
  }

  @Test
  void invalidLayoutsAreRefusedWithTheReason() {
    KeyLayoutException e = assertThrows(KeyLayoutException.class,
        () -> layout("{\"salt\": {\"buckets\": 11, \"encoding\": \"decimal\", \"width\": 1},"
            + " \"group\": {\"length\": 4}}"));
    assertEquals("a 1-character decimal salt cannot hold 11 buckets", e.getMessage());
    e = assertThrows(KeyLayoutException.class,
        () -> layout("{\"salt\": {\"buckets\": 300, \"hash\": \"phoenix\"}, "
            + "\"group\": {\"length\": 4}}"));
    assertTrue(e.getMessage().contains("between 1 and 256"), e.getMessage());
    e = assertThrows(KeyLayoutException.class, () -> layout("{\"salt\": {\"buckets\": 4}}"));
    assertTrue(e.getMessage().contains("needs a group"), e.getMessage());
  }

  @Test
  void keysThatDoNotFitAreRefused() {
    KeyLayout l = layout("{\"salt\": {\"buckets\": 10, \"encoding\": \"decimal\", "
        + "\"hash\": \"java-hashcode\"}, \"group\": {\"length\": 4}}");
    assertEquals("key 'ab' is too short for its group: 2 bytes, the group is 4 bytes long",
        assertThrows(KeyLayoutException.class, () -> l.encode(Bytes.toBytes("ab"))).getMessage());
    assertThrows(KeyLayoutException.class, () -> l.encode(new byte[] {(byte) 0xC3, 40, 1, 2}));
    KeyLayoutException e = assertThrows(KeyLayoutException.class,
        () -> l.decode(Bytes.toBytes("zabcd")));
    assertTrue(e.getMessage().contains("not the decimal salt"), e.getMessage());
    byte[] row = l.encode(Bytes.toBytes("abcdrest"));
    row[0] = (byte) (row[0] == '9' ? '0' : row[0] + 1);
    e = assertThrows(KeyLayoutException.class, () -> l.decode(row));
    assertTrue(e.getMessage().contains("hashes to"), e.getMessage());
    assertThrows(KeyLayoutException.class, () -> l.groupScanPrefix(Bytes.toBytes("abc")));
  }

  @Test
  void anotherGenerationKeepsOnlyARequestedWidth() {
    KeyLayout auto = layout("{\"salt\": {\"buckets\": 12, \"encoding\": \"decimal\"}, "
        + "\"group\": {\"delimiter\": \"|\"}}");
    assertEquals(2, auto.saltWidth());
    assertEquals(1, auto.withBuckets(4).saltWidth());
    KeyLayout fixed = layout("{\"salt\": {\"buckets\": 12, \"encoding\": \"decimal\", "
        + "\"width\": 3}, \"group\": {\"delimiter\": \"|\"}}");
    assertEquals(3, fixed.withBuckets(4).saltWidth());
    assertEquals(auto.withBuckets(4).hash(), auto.hash());
  }

  @Test
  void bucketScansCoverEachBucketsPartOfTheRange() throws Exception {
    KeyLayout l = layout("{\"salt\": {\"buckets\": 3, \"encoding\": \"byte\"}, "
        + "\"group\": {\"delimiter\": \"|\"}}");
    List<Scan> scans = MergedScanner.bucketScans(l,
        new Scan().withStartRow(Bytes.toBytes("b")).withStopRow(Bytes.toBytes("d")));
    assertEquals(3, scans.size());
    for (int b = 0; b < 3; b++) {
      assertArrayEquals(Bytes.add(new byte[] {(byte) b}, Bytes.toBytes("b")),
          scans.get(b).getStartRow());
      assertArrayEquals(Bytes.add(new byte[] {(byte) b}, Bytes.toBytes("d")),
          scans.get(b).getStopRow());
    }
    scans = MergedScanner.bucketScans(l, new Scan().setReversed(true));
    assertArrayEquals(new byte[] {1}, scans.get(0).getStartRow());
    assertArrayEquals(new byte[] {0}, scans.get(0).getStopRow());
    assertTrue(scans.get(0).includeStopRow());
    KeyLayout ff = layout("{\"salt\": {\"buckets\": 256, \"encoding\": \"byte\"}, "
        + "\"group\": {\"delimiter\": \"|\"}}");
    scans = MergedScanner.bucketScans(ff, new Scan());
    assertEquals(0, scans.get(255).getStopRow().length, "the last bucket runs to the end");
  }

  @Test
  void prefixEnd() {
    assertArrayEquals(Bytes.toBytes("ac"), KeyLayout.prefixEnd(Bytes.toBytes("ab")));
    assertArrayEquals(new byte[] {2}, KeyLayout.prefixEnd(new byte[] {1, (byte) 0xFF}));
    assertEquals(0, KeyLayout.prefixEnd(new byte[] {(byte) 0xFF}).length);
  }
}
