package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.ByteBufferKeyValue;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Stored rows seen under their logical keys: the salt left out, nothing else changed. */
class LogicalCellTest {

  private static final KeyLayout LAYOUT = KeyLayoutTest.layout(
      "{\"salt\": {\"buckets\": 16, \"encoding\": \"hex\", \"width\": 2}, \"group\": {\"length\": 4}}");
  private static final byte[] F = Bytes.toBytes("f");

  private static KeyValue stored(String row, String q, long ts, String value) {
    return new KeyValue(Bytes.toBytes(row), F, Bytes.toBytes(q), ts, Bytes.toBytes(value));
  }

  /** What the SDK built before: a new KeyValue with the salt cut off the row. */
  private static KeyValue expected(String row, String q, long ts, String value) {
    return stored(row.substring(2), q, ts, value);
  }

  @Test
  void logicalRowIsTheStoredRowWithoutItsSaltAndEverythingElseIsKept() {
    Result logical = SaltedTable.toLogical(LAYOUT, Result.create(new Cell[] {
        stored("0aabcd|1", "a", 7, "x"), stored("0aabcd|1", "b", 9, "yy"),
        stored("0aabcd|1", "b", 8, "zzz")}));
    assertArrayEquals(Bytes.toBytes("abcd|1"), logical.getRow());
    assertArrayEquals(Bytes.toBytes("yy"), logical.getValue(F, Bytes.toBytes("b")));
    assertEquals(2, logical.getColumnCells(F, Bytes.toBytes("b")).size());
    Cell[] want = {expected("0aabcd|1", "a", 7, "x"), expected("0aabcd|1", "b", 9, "yy"),
        expected("0aabcd|1", "b", 8, "zzz")};
    for (int i = 0; i < want.length; i++) {
      Cell got = logical.rawCells()[i];
      assertInstanceOf(LogicalCell.class, got);
      assertTrue(CellUtil.equals(want[i], got), got.toString());
      assertEquals(want[i].getTimestamp(), got.getTimestamp());
      assertEquals(want[i].getType(), got.getType());
      assertTrue(CellUtil.matchingValue(want[i], got));
      assertEquals(0, CellComparator.getInstance().compare(want[i], got));
    }
    assertEquals(want[0].getSerializedSize(), logical.rawCells()[0].getSerializedSize());
    // Nothing copied: the logical cell reads the stored cell's arrays.
    KeyValue one = stored("0aabcd|1", "a", 7, "x");
    Cell wrapped = SaltedTable.toLogical(LAYOUT, Result.create(new Cell[] {one})).rawCells()[0];
    assertSame(one.getRowArray(), wrapped.getRowArray());
    assertSame(one.getValueArray(), wrapped.getValueArray());
  }

  @Test
  void byteBufferCellsAreCopiedOnceAndRowsShorterThanTheSaltRefused() {
    KeyValue kv = stored("0aabcd|2", "a", 5, "v");
    Cell direct = new ByteBufferKeyValue(ByteBuffer.wrap(kv.getBuffer()), kv.getOffset(),
        kv.getLength());
    Cell got = SaltedTable.toLogical(LAYOUT, Result.create(new Cell[] {direct})).rawCells()[0];
    assertInstanceOf(KeyValue.class, got);
    assertTrue(CellUtil.equals(expected("0aabcd|2", "a", 5, "v"), got));
    assertTrue(CellUtil.matchingValue(expected("0aabcd|2", "a", 5, "v"), got));

    assertThrows(KeyLayoutException.class, () -> SaltedTable.toLogical(LAYOUT,
        Result.create(new Cell[] {stored("0", "a", 1, "v")})));
  }
}
