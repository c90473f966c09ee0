package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * Reading both generations during a migration, with fakes: the status's migration object, the
 * merge of one row from two generations, and the merge of two scanners.
 */
class GenerationMergeTest {

  private static final byte[] F = Bytes.toBytes("f");

  private static Cell cell(String row, String q, long ts, String value) {
    return new KeyValue(Bytes.toBytes(row), F, Bytes.toBytes(q), ts, Bytes.toBytes(value));
  }

  private static Result row(Cell... cells) {
    return Result.create(cells);
  }

  private static String describe(Result r) {
    if (r == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Bytes.toString(r.getRow()) + ":");
    for (Cell c : r.rawCells()) {
      out.append(' ').append(Bytes.toString(c.getQualifierArray(), c.getQualifierOffset(),
          c.getQualifierLength())).append('@').append(c.getTimestamp()).append('=').append(
              Bytes.toString(c.getValueArray(), c.getValueOffset(), c.getValueLength()));
    }
    return out.toString();
  }

  /** A scanner over fixed rows. */
  private static final class ListScanner implements ResultScanner {
    final Deque<Result> rows;
    boolean closed;

    ListScanner(Result... rows) {
      this.rows = new ArrayDeque<>(List.of(rows));
    }

    @Override
    public Result next() {
      return rows.poll();
    }

    @Override
    public void close() {
      closed = true;
    }

    @Override
    public boolean renewLease() {
      return true;
    }

    @Override
    public ScanMetrics getScanMetrics() {
      return null;
    }
  }

  @Test
  void aRowInBothGenerationsHasItsCellsOnce() {
    Result active = row(cell("k", "a", 20, "new"), cell("k", "b", 5, "same"));
    Result previous = row(cell("k", "a", 10, "old"), cell("k", "b", 5, "same-old-copy"),
        cell("k", "c", 1, "only-old"));
    assertEquals("k: a@20=new a@10=old b@5=same c@1=only-old",
        describe(GenerationMerge.merge(active, previous, 3)));
    // Versions cut to what the read asked for: the newest per column.
    assertEquals("k: a@20=new b@5=same c@1=only-old",
        describe(GenerationMerge.merge(active, previous, 1)));
    // One side empty or missing: the other as it is.
    assertSame(active, GenerationMerge.merge(active, Result.EMPTY_RESULT, 1));
    assertSame(previous, GenerationMerge.merge(Result.EMPTY_RESULT, previous, 1));
    assertSame(previous, GenerationMerge.merge(null, previous, 1));
    assertTrue(GenerationMerge.merge(Result.EMPTY_RESULT, null, 1).isEmpty());
  }

  @Test
  void scannersMergeByLogicalKeyForwardAndReversed() throws IOException {
    ListScanner active = new ListScanner(row(cell("a", "q", 2, "A2")), row(cell("c", "q", 2,
        "C2")), row(cell("e", "q", 2, "E2")));
    ListScanner previous = new ListScanner(row(cell("b", "q", 1, "B1")), row(cell("c", "q", 1,
        "C1")), row(cell("d", "q", 1, "D1")), row(cell("f", "q", 1, "F1")));
    List<String> got = new ArrayList<>();
    try (ResultScanner merged = new GenerationMerge.Scanner(active, previous, false, 0, 5)) {
      for (Result r = merged.next(); r != null; r = merged.next()) {
        got.add(describe(r));
      }
      assertNull(merged.next());
    }
    assertEquals(List.of("a: q@2=A2", "b: q@1=B1", "c: q@2=C2 q@1=C1", "d: q@1=D1", "e: q@2=E2",
        "f: q@1=F1"), got);
    assertTrue(active.closed && previous.closed);

    ListScanner activeReversed = new ListScanner(row(cell("e", "q", 2, "E2")), row(cell("c",
        "q", 2, "C2")));
    ListScanner previousReversed = new ListScanner(row(cell("d", "q", 1, "D1")), row(cell("c",
        "q", 2, "C2-old")), row(cell("a", "q", 1, "A1")));
    got.clear();
    try (ResultScanner merged = new GenerationMerge.Scanner(activeReversed, previousReversed,
        true, 3, 1)) {
      for (Result r = merged.next(); r != null; r = merged.next()) {
        got.add(describe(r));
      }
    }
    // Reversed order, the cell in both once (the active one), the limit on the merged rows.
    assertEquals(List.of("e: q@2=E2", "d: q@1=D1", "c: q@2=C2"), got);
  }

  private static TableSnapshot active() {
    KeyLayout sixteen = KeyLayout.fromDocument(JsonParser.parseString(
        "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\"},\"group\":{\"length\":4}}")
        .getAsJsonObject());
    return new TableSnapshot("ns:t", "ready", null, TableName.valueOf("ns:t__g2"), 2, sixteen, 3,
        7, true);
  }

  private static JsonObject migration(String phase) {
    return JsonParser.parseString("{\"phase\":\"" + phase + "\",\"previous\":{"
        + "\"physical_table\":\"ns:t\",\"generation\":1,\"layout\":{\"salt\":{\"buckets\":10,"
        + "\"encoding\":\"decimal\"},\"group\":{\"length\":4}}}}").getAsJsonObject();
  }

  @Test
  void thePreviousGenerationIsReadOnlyUntilCatchUpIsDone() {
    TableSnapshot during = active().withPreviousFrom(migration("catching_up"));
    TableSnapshot previous = during.previousGeneration();
    assertNotNull(previous);
    assertEquals(TableName.valueOf("ns:t"), previous.physicalTable());
    assertEquals(1, previous.generation());
    assertEquals(10, previous.buckets());
    assertTrue(previous.isUsable());
    assertEquals(16, during.buckets());
    assertNotNull(active().withPreviousFrom(migration("switching")).previousGeneration());
    // After a rollback, until the abandoned generation is drained into the old one.
    assertNotNull(active().withPreviousFrom(migration("rolling_back")).previousGeneration());
    // Before the switch the active generation is the old one; after catch-up, one generation.
    for (String phase : List.of("planned", "copying", "verifying", "grace", "fencing", "done",
        "aborted", "rolled_back")) {
      assertNull(active().withPreviousFrom(migration(phase)).previousGeneration(), phase);
    }
    assertNull(active().withPreviousFrom(null).previousGeneration());
    assertNull(active().withPreviousFrom(JsonParser.parseString("{\"phase\":\"catching_up\"}")
        .getAsJsonObject()).previousGeneration());
    // A previous generation that names the active table is no second generation.
    JsonObject same = migration("catching_up");
    same.getAsJsonObject("previous").addProperty("physical_table", "ns:t__g2");
    assertNull(active().withPreviousFrom(same).previousGeneration());
    // A previous generation without a layout cannot be read: an error, not a silent one-read.
    JsonObject broken = migration("catching_up");
    broken.getAsJsonObject("previous").remove("layout");
    assertThrows(KeyLayoutException.class, () -> active().withPreviousFrom(broken));
  }

  @Test
  void aCarriedOverSnapshotKeepsThePreviousGeneration() {
    TableSnapshot during = active().withPreviousFrom(migration("catching_up"));
    TableSnapshot failing = new TableSnapshot("ns:t", "error", "HBase down",
        TableName.valueOf("ns:t__g2"), 2, during.layout(), 3, 8, true)
        .withPreviousFrom(migration("catching_up"));
    TableSnapshot kept = TableSnapshot.following(during, failing);
    assertTrue(kept.isCarriedOver());
    assertNotNull(kept.previousGeneration());
  }
}
