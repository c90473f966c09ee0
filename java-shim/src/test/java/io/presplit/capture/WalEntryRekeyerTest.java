package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.client.KeyLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.hbase.ArrayBackedTag;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Tag;
import org.apache.hadoop.hbase.TagType;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.hadoop.hbase.wal.WALKeyImpl;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The capture endpoint's computation: WAL entries of the source become the target's mutations,
 * every cell kept as it is but for its row; probes and markers become acknowledgements.
 */
class WalEntryRekeyerTest {
  static final TableName SOURCE = TableName.valueOf("ns:t");
  static final TableName TARGET = TableName.valueOf("ns:t__g2");
  static final String OLD = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\",\"from\":\"key\"}}";
  static final String NEW = "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\",\"from\":\"key\"}}";
  static final byte[] F = Bytes.toBytes("f");
  static final UUID MARK = CaptureSpec.markOf("ns:t__g2");

  static CaptureSpec spec() {
    return new CaptureSpec(SOURCE, TARGET, OLD, NEW, MARK, F);
  }

  /** "Re-keys" by prefixing "n" (rows that start with 'x' do not fit the layout). */
  static WalEntryRekeyer fake() {
    return new WalEntryRekeyer(spec(), rows -> {
      byte[][] out = new byte[rows.length][];
      for (int i = 0; i < rows.length; i++) {
        if (rows[i][0] == 'x') {
          throw new IllegalArgumentException("row " + i + " does not fit");
        }
        out[i] = Bytes.add(Bytes.toBytes("n"), rows[i]);
      }
      return out;
    });
  }

  static WAL.Entry entry(TableName table, long writeTime, Cell... cells) {
    return entry(table, writeTime, List.of(), cells);
  }

  /** A WAL entry written by mutations that carried these cluster ids. */
  static WAL.Entry entry(TableName table, long writeTime, List<UUID> clusterIds, Cell... cells) {
    WALEdit edit = new WALEdit();
    for (Cell c : cells) {
      edit.add(c);
    }
    return new WAL.Entry(new WALKeyImpl(Bytes.toBytes("region1"), table, 0, writeTime,
        new ArrayList<>(clusterIds), 0, 0, null), edit);
  }

  static KeyValue cell(String row, String qualifier, long ts, KeyValue.Type type, String value,
      Tag... tags) {
    return new KeyValue(Bytes.toBytes(row), F, Bytes.toBytes(qualifier), ts, type,
        Bytes.toBytes(value), tags.length == 0 ? null : List.of(tags));
  }

  @Test
  void everyCellKeepsItsTypeTimestampValueAndTagsOnlyTheRowChanges() {
    Tag ttl = new ArrayBackedTag(TagType.TTL_TAG_TYPE, Bytes.toBytes(60_000L));
    long ahead = System.currentTimeMillis() + 86_400_000L;
    WAL.Entry e = entry(SOURCE, 5,
        cell("1a", "q", ahead, KeyValue.Type.Put, "a day ahead", ttl),
        cell("1a", "r", 3, KeyValue.Type.Put, "old"),
        cell("1a", "q", 7, KeyValue.Type.Delete, ""),
        cell("1a", "q", 8, KeyValue.Type.DeleteColumn, ""),
        cell("2b", "", 9, KeyValue.Type.DeleteFamily, ""),
        cell("2b", "", 4, KeyValue.Type.DeleteFamilyVersion, ""),
        cell("2b", "s", 10, KeyValue.Type.Put, "after"));
    WalEntryRekeyer.Batch batch = fake().rekey(List.of(e));
    // Consecutive cells of a row and kind make one mutation: put, delete, delete, put.
    List<Mutation> m = batch.mutations();
    assertEquals(4, m.size());
    assertInstanceOf(Put.class, m.get(0));
    assertInstanceOf(Delete.class, m.get(1));
    assertInstanceOf(Delete.class, m.get(2));
    assertInstanceOf(Put.class, m.get(3));
    assertArrayEquals(Bytes.toBytes("n1a"), m.get(0).getRow());
    assertArrayEquals(Bytes.toBytes("n2b"), m.get(2).getRow());
    assertEquals(3, batch.puts());
    assertEquals(4, batch.deletes());
    List<Cell> out = new ArrayList<>();
    for (Mutation mutation : m) {
      assertEquals(List.of(MARK), mutation.getClusterIds(), "every write carries the mark");
      mutation.getFamilyCellMap().values().forEach(out::addAll);
    }
    List<Cell> in = e.getEdit().getCells();
    assertEquals(in.size(), out.size());
    for (Cell want : in) {
      Cell got = out.stream().filter(c -> c.getTimestamp() == want.getTimestamp()
          && c.getType() == want.getType() && CellUtil.matchingQualifier(c, want)).findFirst()
          .orElseThrow(() -> new AssertionError("no cell for " + want));
      assertArrayEquals(CellUtil.cloneValue(want), CellUtil.cloneValue(got));
      assertArrayEquals(CellUtil.cloneTags(want), CellUtil.cloneTags(got));
      assertArrayEquals(Bytes.add(Bytes.toBytes("n"), CellUtil.cloneRow(want)),
          CellUtil.cloneRow(got));
    }
  }

  @Test
  void otherTablesAndWhatACaptureWroteItselfAreNotShipped() {
    WalEntryRekeyer r = fake();
    WAL.Entry other = entry(TableName.valueOf("ns:other"), 1,
        cell("1a", "q", 1, KeyValue.Type.Put, "v"));
    WAL.Entry marked = entry(SOURCE, 1, List.of(MARK),
        cell("1a", "q", 1, KeyValue.Type.Put, "v"));
    // Replicated here from another cluster: shipped on.
    WAL.Entry foreign = entry(SOURCE, 1, List.of(UUID.randomUUID()),
        cell("1a", "q", 1, KeyValue.Type.Put, "v"));
    assertFalse(r.wants(other));
    assertFalse(r.wants(marked), "the reverse peer's writes are not shipped back: no loop");
    assertTrue(r.wants(foreign));
    WalEntryRekeyer.Batch batch = r.rekey(List.of(other, marked, foreign));
    assertEquals(1, batch.mutations().size());
    assertEquals(1, batch.puts());
  }

  @Test
  void probesClosesAndBulkLoadsAreAcknowledgedNotCopied() {
    WAL.Entry probe = entry(SOURCE, 11, new KeyValue(Bytes.toBytes("3"), F,
        CaptureSignals.PROBE_QUALIFIER, 1234, KeyValue.Type.Delete));
    WAL.Entry close = entry(SOURCE, 12, new KeyValue(Bytes.toBytes("3"), WALEdit.METAFAMILY,
        Bytes.toBytes("HBASE::REGION_EVENT::REGION_CLOSE"), 12, KeyValue.Type.Put, new byte[0]));
    WAL.Entry bulk = entry(SOURCE, 13, new KeyValue(Bytes.toBytes("3"), WALEdit.METAFAMILY,
        WALEdit.BULK_LOAD, 13, KeyValue.Type.Put, new byte[0]));
    WAL.Entry flush = entry(SOURCE, 14, new KeyValue(Bytes.toBytes("3"), WALEdit.METAFAMILY,
        Bytes.toBytes("HBASE::FLUSH"), 14, KeyValue.Type.Put, new byte[0]));
    WalEntryRekeyer.Batch batch = fake().rekey(List.of(probe, close, bulk, flush));
    assertEquals(3, batch.acks());
    assertEquals(0, batch.puts() + batch.deletes());
    List<CaptureSignals.Ack> acks = new ArrayList<>();
    for (Mutation m : batch.mutations()) {
      assertArrayEquals(CaptureSignals.ACK_ROW, m.getRow());
      assertEquals(List.of(MARK), m.getClusterIds());
      acks.addAll(CaptureSignals.parse(m.getFamilyCellMap().get(F).toArray(new Cell[0])));
    }
    assertEquals(3, acks.size());
    assertEquals(CaptureSignals.Kind.PROBE_DIGEST, acks.get(0).kind());
    assertEquals(1234, acks.get(0).timestamp(), "a probe is acknowledged with its id");
    assertEquals(CaptureSignals.probeAckHex(Bytes.toBytes("3")),
        CaptureSignals.probeAckHex(acks.get(0)), "and with the digest of its row");
    assertEquals(CaptureSignals.Kind.CLOSED, acks.get(1).kind());
    assertEquals("region1", Bytes.toString(acks.get(1).payload()));
    assertEquals(12, acks.get(1).timestamp());
    assertEquals(CaptureSignals.Kind.BULK_LOAD, acks.get(2).kind());
  }

  @Test
  void aBulkLoadFromBeforeTheRegionsGuardRefusedLoadsIsNotANotice() {
    // region1's guard confirmed at read point 600: a load's marker at or below it was made
    // before the guard refused loads, and the copy, which starts later, reads its files.
    CaptureRegistry.reset();
    CaptureRegistry.settled("region1", 600);
    try {
      WalEntryRekeyer.Batch batch = fake().rekey(List.of(bulkLoadMarker("region1", 500),
          bulkLoadMarker("region1", 600), bulkLoadMarker("region1", 700)));
      assertEquals(1, batch.acks(), "only the load after the guard is a notice");
      List<CaptureSignals.Ack> acks = CaptureSignals.parse(batch.mutations().get(0)
          .getFamilyCellMap().get(F).toArray(new Cell[0]));
      assertEquals(CaptureSignals.Kind.BULK_LOAD, acks.get(0).kind());
      assertEquals(1, fake().rekey(List.of(bulkLoadMarker("region2", 500))).acks(),
          "a region whose guard never confirmed: every marker is a notice");
    } finally {
      CaptureRegistry.reset();
    }
  }

  private static WAL.Entry bulkLoadMarker(String region, long sequenceId) {
    WALEdit edit = new WALEdit();
    edit.add(new KeyValue(Bytes.toBytes("3"), WALEdit.METAFAMILY, WALEdit.BULK_LOAD, 13,
        KeyValue.Type.Put, new byte[0]));
    return new WAL.Entry(new WALKeyImpl(Bytes.toBytes(region), SOURCE, sequenceId, 13,
        new ArrayList<>(), 0, 0, null), edit);
  }

  @Test
  void aRowThatDoesNotFitIsAcknowledgedAsUnfitAndTheOthersStillShip() {
    WalEntryRekeyer.Batch batch = fake().rekey(List.of(entry(SOURCE, 20,
        cell("1a", "q", 1, KeyValue.Type.Put, "v"),
        cell("xbad", "q", 1, KeyValue.Type.Put, "v"),
        cell("2b", "q", 1, KeyValue.Type.Put, "v"))));
    assertEquals(1, batch.unfit());
    assertEquals(2, batch.puts());
    List<CaptureSignals.Ack> acks = new ArrayList<>();
    for (Mutation m : batch.mutations()) {
      if (Bytes.equals(m.getRow(), CaptureSignals.ACK_ROW)) {
        acks.addAll(CaptureSignals.parse(m.getFamilyCellMap().get(F).toArray(new Cell[0])));
      }
    }
    assertEquals(1, acks.size());
    assertEquals(CaptureSignals.Kind.UNFIT, acks.get(0).kind());
    assertEquals("xbad", Bytes.toString(acks.get(0).payload()));
  }

  @Test
  void libpresplitRekeysAsTheSdksLayoutsDo() {
    KeyLayout oldLayout = KeyLayout.fromDocument(JsonParser.parseString(OLD).getAsJsonObject());
    KeyLayout newLayout = KeyLayout.fromDocument(JsonParser.parseString(NEW).getAsJsonObject());
    List<WAL.Entry> entries = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      byte[] logical = Bytes.toBytes("key-" + i);
      entries.add(entry(SOURCE, i, new KeyValue(oldLayout.encode(logical), F,
          Bytes.toBytes("q"), i, Bytes.toBytes(i))));
    }
    WalEntryRekeyer.Batch batch = WalEntryRekeyer.withLibpresplit(spec()).rekey(entries);
    assertEquals(200, batch.mutations().size());
    for (int i = 0; i < 200; i++) {
      assertArrayEquals(newLayout.encode(Bytes.toBytes("key-" + i)),
          batch.mutations().get(i).getRow());
    }
  }

  @Test
  void aPeerConfigurationRoundTripsAndABadOneIsRefusedByName() {
    CaptureSpec back = CaptureSpec.fromConfiguration(spec().toConfiguration());
    assertEquals(SOURCE, back.source);
    assertEquals(TARGET, back.target);
    assertEquals(MARK, back.mark);
    assertArrayEquals(F, back.ackFamily);
    Map<String, String> bad = new java.util.HashMap<>(spec().toConfiguration());
    bad.put(CaptureSpec.MARK_KEY, "not-a-uuid");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CaptureSpec.fromConfiguration(bad));
    assertTrue(e.getMessage().contains(CaptureSpec.MARK_KEY), e.getMessage());
    bad.remove(CaptureSpec.TARGET_KEY);
    e = assertThrows(IllegalArgumentException.class, () -> CaptureSpec.fromConfiguration(bad));
    assertTrue(e.getMessage().contains(CaptureSpec.TARGET_KEY), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new CaptureSpec(SOURCE, SOURCE, OLD, NEW, MARK, F), "a capture into itself");
    assertEquals(CaptureSpec.markOf("ns:t__g2"), MARK, "the mark is the migration's");
    assertFalse(CaptureSpec.markOf("ns:t__g3").equals(MARK));
  }

  @Test
  void onlyPresplitPeersAreEverTouched() {
    CapturePeers.checkPeerId("presplit_ns_t__g2_0a1b2c3d");
    for (String bad : new String[] {"1", "backup_peer", "presplit_a-b", "presplit_", null}) {
      assertThrows(IllegalArgumentException.class, () -> CapturePeers.checkPeerId(bad), bad);
    }
    assertArrayEquals(new byte[] {0}, CapturePeers.probeRow(new byte[0], Bytes.toBytes("1")));
    assertArrayEquals(Bytes.toBytes("5"), CapturePeers.probeRow(Bytes.toBytes("5"), new byte[0]));
    assertEquals(null, CapturePeers.probeRow(new byte[0], new byte[] {0}),
        "a region that can hold no row is not probed");
  }
}
