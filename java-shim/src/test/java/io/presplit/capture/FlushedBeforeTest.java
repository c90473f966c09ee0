package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALKeyImpl;
import org.junit.jupiter.api.Test;

class FlushedBeforeTest {
  private static final TableName TABLE = TableName.valueOf("ns", "t");

  private static WALKeyImpl key(String region, long seqId) {
    return new WALKeyImpl(Bytes.toBytes(region), TABLE, seqId, 1L, HConstants.DEFAULT_CLUSTER_ID);
  }

  @Test
  void skipsExactlyTheEditsAtOrBelowTheRegionsFlushedSequenceId() {
    FlushedBefore flushed = FlushedBefore.of(Map.of("aaa", 100L, "bbb", 7L));
    assertTrue(flushed.covers(key("aaa", 1)));
    assertTrue(flushed.covers(key("aaa", 100)));
    assertFalse(flushed.covers(key("aaa", 101)), "an edit after the flush must be shipped");
    assertTrue(flushed.covers(key("bbb", 7)));
    assertFalse(flushed.covers(key("bbb", 8)));
    assertFalse(flushed.covers(key("ccc", 1)), "a region not measured (a daughter) ships all");
    assertFalse(flushed.covers(key("aaa", HConstants.NO_SEQNUM)), "no sequence id: shipped");
  }

  @Test
  void nothingSkipsNothing() {
    assertFalse(FlushedBefore.NOTHING.covers(key("aaa", 1)));
    assertFalse(FlushedBefore.parse(null).covers(key("aaa", 1)));
    assertFalse(FlushedBefore.parse("").covers(key("aaa", 1)));
  }

  @Test
  void travelsThroughThePeerConfiguration() {
    FlushedBefore flushed = FlushedBefore.of(Map.of("b1946ac92492d2347c6235b4d2611184", 42L,
        "0d7ef6b5bd1d5ff5a3d3f9c63c0d7e1c", 9_000_000_000L));
    FlushedBefore back = FlushedBefore.parse(flushed.format());
    assertEquals(flushed.format(), back.format());
    assertEquals(2, back.regions());
    assertTrue(back.covers(key("0d7ef6b5bd1d5ff5a3d3f9c63c0d7e1c", 9_000_000_000L)));
    assertFalse(back.covers(key("b1946ac92492d2347c6235b4d2611184", 43L)));
  }

  @Test
  void anUnreadableValueIsRefusedNamingThePart() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FlushedBefore.parse("aaa:1,bbb"));
    assertTrue(e.getMessage().contains("'bbb'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FlushedBefore.parse("aaa:x"));
    assertThrows(IllegalArgumentException.class, () -> FlushedBefore.parse(":5"));
    assertThrows(IllegalArgumentException.class, () -> FlushedBefore.parse("aaa:"));
  }
}
