package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.ArrayBackedTag;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TagType;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The migration digest: XXH64 itself, order independence, field boundaries, the salt ignored. */
class CellDigestTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static Cell cell(String row, String family, String qualifier, long ts, String value) {
    return new KeyValue(b(row), b(family), b(qualifier), ts, b(value));
  }

  private static long hashOf(String logicalKey, Cell c) {
    byte[] key = b(logicalKey);
    return new CellDigest().hash(key, 0, key.length, c);
  }

  /** Values of the reference implementation (libxxhash 0.8.1, XXH64) for seeds 0 and 2654435761. */
  @Test
  void xxHash64MatchesTheReference() {
    byte[] range40 = new byte[40];
    byte[] range100 = new byte[100];
    for (int i = 0; i < range100.length; i++) {
      range100[i] = (byte) i;
      if (i < 40) {
        range40[i] = (byte) i;
      }
    }
    byte[] sentence = b("Nobody inspects the spammish repetition");
    assertEquals(0xef46db3751d8e999L, XxHash64.hash(new byte[0], 0, 0, 0));
    assertEquals(0xd24ec4f1a98c6e5bL, XxHash64.hash(b("a"), 0, 1, 0));
    assertEquals(0x44bc2cf5ad770999L, XxHash64.hash(b("abc"), 0, 3, 0));
    assertEquals(0xf5da40f1b11741e9L, XxHash64.hash(range40, 0, 40, 0));
    assertEquals(0x6ac1e58032166597L, XxHash64.hash(range100, 0, 100, 0));
    assertEquals(0xfbcea83c8a378bf1L, XxHash64.hash(sentence, 0, sentence.length, 0));
    assertEquals(0xac75fda2929b17efL, XxHash64.hash(new byte[0], 0, 0, 2654435761L));
    assertEquals(0x1318df30094a85fdL, XxHash64.hash(b("abc"), 0, 3, 2654435761L));
    assertEquals(0x8832442a88284f11L, XxHash64.hash(range100, 0, 100, 2654435761L));
    // An offset into a larger array hashes only the range.
    byte[] padded = b("xxabcyy");
    assertEquals(0x44bc2cf5ad770999L, XxHash64.hash(padded, 2, 3, 0));
  }

  @Test
  void orderOfCellsDoesNotMatter() {
    List<Cell> cells = new ArrayList<>();
    Random random = new Random(7);
    for (int i = 0; i < 500; i++) {
      cells.add(cell("r" + random.nextInt(50), "f", "q" + random.nextInt(5),
          1_700_000_000_000L + random.nextInt(1000), "v" + random.nextLong()));
    }
    CellDigest forward = new CellDigest();
    for (Cell c : cells) {
      forward.addCell(c.getRowArray(), c.getRowOffset(), c.getRowLength(), c);
    }
    Collections.shuffle(cells, new Random(11));
    CellDigest shuffled = new CellDigest();
    for (Cell c : cells) {
      shuffled.addCell(c.getRowArray(), c.getRowOffset(), c.getRowLength(), c);
    }
    assertEquals(forward.hex(), shuffled.hex());
    assertEquals(500, shuffled.cells());
    assertEquals(16, shuffled.hex().length());
    // Split into two halves and added up: the same digest (per-region sums add to the total).
    CellDigest first = new CellDigest();
    CellDigest second = new CellDigest();
    for (int i = 0; i < cells.size(); i++) {
      Cell c = cells.get(i);
      (i % 2 == 0 ? first : second).addCell(c.getRowArray(), c.getRowOffset(),
          c.getRowLength(), c);
    }
    first.addAll(second);
    assertEquals(forward.sum(), first.sum());
    assertEquals(forward.cells(), first.cells());
  }

  @Test
  void fieldBoundariesAreHashed() {
    long base = hashOf("ab", cell("x", "f", "c", 1, "v"));
    // The same bytes cut elsewhere: key/qualifier, qualifier/value, family/qualifier.
    assertNotEquals(base, hashOf("a", cell("x", "f", "bc", 1, "v")));
    assertNotEquals(hashOf("k", cell("x", "f", "ab", 1, "c")),
        hashOf("k", cell("x", "f", "a", 1, "bc")));
    assertNotEquals(hashOf("k", cell("x", "fa", "b", 1, "v")),
        hashOf("k", cell("x", "f", "ab", 1, "v")));
    // Every field counts.
    assertNotEquals(base, hashOf("ab", cell("x", "f", "c", 2, "v")));
    assertNotEquals(base, hashOf("ab", cell("x", "f", "c", 1, "w")));
    assertNotEquals(base, hashOf("ab", cell("x", "g", "c", 1, "v")));
    assertNotEquals(base, hashOf("ac", cell("x", "f", "c", 1, "v")));
    // A tag too: a cell whose per-cell TTL (or visibility label, ACL) was lost differs.
    Cell tagged = new KeyValue(b("x"), b("f"), b("c"), 1, KeyValue.Type.Put, b("v"),
        List.of(new ArrayBackedTag(TagType.TTL_TAG_TYPE, Bytes.toBytes(60_000L))));
    assertNotEquals(base, hashOf("ab", tagged));
  }

  @Test
  void rowsHashToNonZeroAndPartitionsAreStable() {
    assertNotEquals(0L, CellDigest.rowHash(0, 0), "0 stands for no row");
    assertNotEquals(CellDigest.rowHash(5, 1), CellDigest.rowHash(5, 2));
    byte[] key = b("0012abcd");
    int p = CellDigest.partitionOf(key, 4, 4, 256);
    assertEquals(p, CellDigest.partitionOf(b("3abcd"), 1, 4, 256),
        "the same logical key in another salt falls into the same partition");
    for (int i = 0; i < 1000; i++) {
      byte[] k = b("key-" + i);
      int q = CellDigest.partitionOf(k, 0, k.length, 7);
      assertEquals(true, q >= 0 && q < 7, "partition " + q);
    }
  }

  @Test
  void onlyTheLogicalKeyCountsNotTheStoredRow() {
    // The same cell stored under two salts hashes the same when given the same logical key.
    Cell old = cell("3abcd", "f", "q", 5, "v");
    Cell moved = cell("0012abcd", "f", "q", 5, "v");
    CellDigest a = new CellDigest();
    a.addCell(old.getRowArray(), old.getRowOffset() + 1, old.getRowLength() - 1, old);
    CellDigest b = new CellDigest();
    b.addCell(moved.getRowArray(), moved.getRowOffset() + 4, moved.getRowLength() - 4, moved);
    assertEquals(a.hex(), b.hex());
    assertEquals(a.bytes(), b.bytes());
    assertEquals("0000000000000000", new CellDigest().hex());
  }
}
