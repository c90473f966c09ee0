package io.presplit.capture;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;

/**
 * How presplitd and the capture endpoints on the RegionServers talk without a channel of their
 * own: through the WAL they both already use.
 *
 * <p><b>Probes.</b> To learn that a peer has shipped everything written to a table up to now,
 * presplitd writes one probe into every region of the peer's source table: a version delete
 * marker of the reserved column {@code <first family>:\0presplit:probe} at the probe's id as
 * timestamp (it masks nothing a writer stores: no application writes that qualifier, and a
 * delete marker is invisible to every read but a raw scan). A region's probe is written to that
 * region's WAL after every edit made to it before; the peer ships a WAL in order, so once the
 * endpoint has seen the probe, every earlier edit of that region has been applied to the target.
 * The endpoint does not copy a probe: it acknowledges it.
 *
 * <p><b>Acknowledgements</b> are version delete markers the endpoint writes into the target's
 * reserved row {@link #ACK_ROW}, column {@code <ack family>:\0presplit:ack:<kind>:<payload>},
 * the timestamp saying which event: a probe (payload: the SHA-256 of the probed source row, so
 * that a row of any length fits the same 32 bytes; timestamp: the probe's id), a region of the
 * source closed (its encoded name; the close's WAL time), a bulk
 * load into the source, which the WAL does not carry and the peer cannot ship (the region; the
 * WAL time), a source row that does not fit the source's layout and was not shipped (the row; the
 * WAL time; only its first {@value #MAX_ACK_ROW_BYTES} bytes, it is shown, not compared).
 * presplitd reads them with a raw scan of that one row. Markers are invisible to readers and go
 * at the target's next major compaction.
 *
 * <p>A probe's acknowledgement is compared with the probe by {@link #probeAck}, the one
 * definition both sides use: the endpoint when it acknowledges, presplitd (through this jar) when
 * it lists what to wait for. Endpoints of before the digest acknowledged with the row itself, cut
 * at {@value #MAX_ACK_ROW_BYTES} bytes ({@link Kind#PROBE}); those acknowledgements are still
 * read, and match whenever the row was short enough to be kept whole.
 */
public final class CaptureSignals {
  /** The column qualifier of a probe in the source. */
  public static final byte[] PROBE_QUALIFIER = utf8("\u0000presplit:probe");

  /** The target's row that holds the acknowledgements. */
  public static final byte[] ACK_ROW = utf8("\u0000presplit:capture");

  private static final byte[] ACK_PREFIX = utf8("\u0000presplit:ack:");

  /** At most this many bytes of a payload are kept (an "unfit" row's shown part). */
  static final int MAX_ACK_ROW_BYTES = 256;

  /** What an acknowledgement says. */
  public enum Kind {
    /** A probe acknowledged by an endpoint of before {@link #probeAck}: the row, cut. */
    PROBE("probe"),
    /** A probe: the payload is {@link #probeAck} of the probed row. */
    PROBE_DIGEST("probe-sha256"),
    CLOSED("closed"),
    BULK_LOAD("bulkload"),
    UNFIT("unfit");

    final String tag;
    final byte[] prefix;

    Kind(String tag) {
      this.tag = tag;
      this.prefix = concat(ACK_PREFIX, utf8(tag + ":"));
    }

    public String tag() {
      return tag;
    }
  }

  /** One acknowledgement read back from the ack row. */
  public record Ack(Kind kind, byte[] payload, long timestamp) {}

  private CaptureSignals() {
  }

  /** The probe presplitd writes into the source region holding {@code row}. */
  public static Delete probe(byte[] row, byte[] family, long probeId) {
    return new Delete(row).addColumn(family, PROBE_QUALIFIER, probeId);
  }

  /** Whether a WAL cell is a probe (a version delete of the probe column). */
  public static boolean isProbe(Cell cell) {
    return cell.getType() == Cell.Type.Delete
        && CellUtil.matchingQualifier(cell, PROBE_QUALIFIER);
  }

  /**
   * What acknowledges a probe of {@code row}: the SHA-256 of the row, 32 bytes whatever the row's
   * length (a row key may be up to 32767 bytes; an acknowledgement is a column qualifier, one per
   * region and probe round in one row of the target).
   */
  public static byte[] probeAck(byte[] row) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(row);
    } catch (NoSuchAlgorithmException e) { // every Java platform has SHA-256
      throw new IllegalStateException(e);
    }
  }

  /** {@link #probeAck} as lower-case hex: how presplitd compares probes and acknowledgements. */
  public static String probeAckHex(byte[] row) {
    return HexFormat.of().formatHex(probeAck(row));
  }

  /**
   * The acknowledgement of the probe in a WAL cell: {@link Kind#PROBE_DIGEST} of its row, with the
   * probe's id as timestamp.
   */
  public static Delete ackProbe(byte[] ackFamily, Cell probe) {
    return ack(ackFamily, Kind.PROBE_DIGEST, probeAck(CellUtil.cloneRow(probe)),
        probe.getTimestamp());
  }

  /**
   * How an acknowledgement of a probe matches the probe's {@link #probeAckHex}; null when it is
   * not a probe's. An old endpoint's {@link Kind#PROBE} carries the row (cut at
   * {@value #MAX_ACK_ROW_BYTES} bytes): its digest matches when the row was kept whole.
   */
  public static String probeAckHex(Ack ack) {
    return switch (ack.kind()) {
      case PROBE_DIGEST -> HexFormat.of().formatHex(ack.payload());
      case PROBE -> probeAckHex(ack.payload());
      default -> null;
    };
  }

  /**
   * The acknowledgement marker the endpoint writes into the target. A payload beyond
   * {@value #MAX_ACK_ROW_BYTES} bytes is cut there: only an "unfit" row can be that long, and it
   * is shown, never compared.
   */
  public static Delete ack(byte[] ackFamily, Kind kind, byte[] payload, long timestamp) {
    byte[] kept = payload.length > MAX_ACK_ROW_BYTES
        ? Arrays.copyOf(payload, MAX_ACK_ROW_BYTES) : payload;
    return new Delete(ACK_ROW).addColumn(ackFamily, concat(kind.prefix, kept), timestamp);
  }

  /** The acknowledgements among the raw cells of the ack row (other cells are ignored). */
  public static List<Ack> parse(Cell[] rawCells) {
    List<Ack> acks = new ArrayList<>();
    for (Cell cell : rawCells) {
      if (cell.getType() != Cell.Type.Delete || !CellUtil.matchingRows(cell, ACK_ROW)) {
        continue;
      }
      byte[] qualifier = CellUtil.cloneQualifier(cell);
      for (Kind kind : Kind.values()) {
        if (startsWith(qualifier, kind.prefix)) {
          acks.add(new Ack(kind, Arrays.copyOfRange(qualifier, kind.prefix.length,
              qualifier.length), cell.getTimestamp()));
          break;
        }
      }
    }
    return acks;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static boolean startsWith(byte[] value, byte[] prefix) {
    return value.length >= prefix.length
        && Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
  }
}
