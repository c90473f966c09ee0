package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WAL;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.apache.hadoop.hbase.wal.WALKeyImpl;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * Probes and their acknowledgements for rows of any length: what presplitd waits for
 * (CapturePeers.probe's "acks") is exactly what the endpoint's acknowledgements read back as
 * (CapturePeers.acks' "probe_acks").
 */
class CaptureSignalsTest {
  static final byte[] F = Bytes.toBytes("f");

  static byte[] rowOf(int length, char fill) {
    byte[] row = new byte[length];
    Arrays.fill(row, (byte) fill);
    return row;
  }

  /** The endpoint's acknowledgements of probes of these rows, as presplitd reads them back. */
  static List<CaptureSignals.Ack> shippedProbes(long probeId, byte[]... rows) {
    WalEntryRekeyer rekeyer = WalEntryRekeyerTest.fake();
    List<WAL.Entry> entries = new ArrayList<>();
    for (byte[] row : rows) {
      WALEdit edit = new WALEdit();
      edit.add(new KeyValue(row, F, CaptureSignals.PROBE_QUALIFIER, probeId,
          KeyValue.Type.Delete));
      entries.add(new WAL.Entry(new WALKeyImpl(Bytes.toBytes("region1"),
          WalEntryRekeyerTest.SOURCE, 0, 1, new ArrayList<UUID>(), 0, 0, null), edit));
    }
    List<CaptureSignals.Ack> acks = new ArrayList<>();
    for (Mutation m : rekeyer.rekey(entries).mutations()) {
      acks.addAll(CaptureSignals.parse(m.getFamilyCellMap().get(F).toArray(new Cell[0])));
    }
    return acks;
  }

  static List<String> strings(JsonArray array) {
    List<String> out = new ArrayList<>();
    array.forEach(e -> out.add(e.getAsString()));
    return out;
  }

  @Test
  void probesOfRowsOfAnyLengthAreAcknowledgedAsPresplitdWaitsForThem() {
    // 1 KiB and the longest row HBase takes (64 KiB start keys are probed at a row of that
    // length, see below); the two long rows share their first 256 bytes.
    byte[] short1 = Bytes.toBytes("7");
    byte[] kib = rowOf(1024, 'a');
    byte[] kibOther = Arrays.copyOf(kib, kib.length);
    kibOther[1000] = 'b';
    byte[] longest = rowOf(HConstants.MAX_ROW_LENGTH, 'z');
    List<byte[]> rows = List.of(short1, kib, kibOther, longest);

    JsonObject probe = JsonParser.parseString(CapturePeers.probeJson(42, rows)).getAsJsonObject();
    List<String> wanted = strings(probe.getAsJsonArray("acks"));
    assertEquals(4, wanted.size());
    assertEquals(4, wanted.stream().distinct().count(), "rows that share 256 bytes still differ");

    List<CaptureSignals.Ack> acks = shippedProbes(42, rows.toArray(new byte[0][]));
    for (CaptureSignals.Ack ack : acks) {
      assertEquals(CaptureSignals.Kind.PROBE_DIGEST, ack.kind());
      assertEquals(32, ack.payload().length, "an acknowledgement has the same size for any row");
    }
    JsonObject read = JsonParser.parseString(CapturePeers.acksJson(acks, 42)).getAsJsonObject();
    assertEquals(wanted, strings(read.getAsJsonArray("probe_acks")));
    JsonObject otherRound =
        JsonParser.parseString(CapturePeers.acksJson(acks, 41)).getAsJsonObject();
    assertEquals(0, otherRound.getAsJsonArray("probe_acks").size());
  }

  @Test
  void anOldEndpointsAcknowledgementStillMatchesAShortRow() {
    byte[] row = Bytes.toBytes("row-1");
    Delete old = CaptureSignals.ack(F, CaptureSignals.Kind.PROBE, row, 7);
    List<CaptureSignals.Ack> acks =
        CaptureSignals.parse(old.getFamilyCellMap().get(F).toArray(new Cell[0]));
    assertEquals(CaptureSignals.Kind.PROBE, acks.get(0).kind());
    assertEquals(CaptureSignals.probeAckHex(row), CaptureSignals.probeAckHex(acks.get(0)));
    assertNull(CaptureSignals.probeAckHex(
        new CaptureSignals.Ack(CaptureSignals.Kind.CLOSED, row, 7)));
  }

  @Test
  void anUnfitRowIsShownByItsFirstBytesOnly() {
    byte[] huge = rowOf(64 * 1024, 'x');
    Delete ack = CaptureSignals.ack(F, CaptureSignals.Kind.UNFIT, huge, 9);
    CaptureSignals.Ack read =
        CaptureSignals.parse(ack.getFamilyCellMap().get(F).toArray(new Cell[0])).get(0);
    assertEquals(CaptureSignals.MAX_ACK_ROW_BYTES, read.payload().length);
    JsonObject json =
        JsonParser.parseString(CapturePeers.acksJson(List.of(read), 0)).getAsJsonObject();
    String shown = json.getAsJsonArray("unfit").get(0).getAsJsonObject().get("row").getAsString();
    assertEquals(CaptureSignals.MAX_ACK_ROW_BYTES, shown.length());
  }

  @Test
  void aStartKeyLongerThanARowIsProbedAtTheFirstRowAfterIt() {
    byte[] start = rowOf(64 * 1024, 'a');
    byte[] row = CapturePeers.probeRow(start, new byte[0]);
    assertEquals(HConstants.MAX_ROW_LENGTH, row.length);
    assertTrue(Bytes.compareTo(row, start) > 0, "the probe is inside the region");
    byte[] expected = rowOf(HConstants.MAX_ROW_LENGTH, 'a');
    expected[expected.length - 1] = 'b';
    assertArrayEquals(expected, row);
    new Delete(row); // HBase takes it as a row

    byte[] end = Bytes.add(rowOf(HConstants.MAX_ROW_LENGTH, 'a'), Bytes.toBytes("b"));
    assertNull(CapturePeers.probeRow(start, end), "no row of a valid length lies in the region");

    byte[] tail = Bytes.add(Bytes.toBytes("a"), rowOf(64 * 1024, (char) 0xff));
    assertArrayEquals(Bytes.toBytes("b"), CapturePeers.probeRow(tail, new byte[0]));
    assertNull(CapturePeers.probeRow(rowOf(64 * 1024, (char) 0xff), new byte[0]));
    assertNotEquals(null, CapturePeers.probeRow(rowOf(1024, 'a'), new byte[0]));
  }
}
