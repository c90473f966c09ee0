package io.presplit.migrate;

import org.apache.hadoop.hbase.Cell;

/**
 * The order-independent digest of a set of cells that a re-salting migration compares between
 * the old and the new generation: the sum modulo 2^64 of one 64-bit hash per cell, with the row,
 * cell and byte counts beside it.
 *
 * <p>A cell's hash is XXH64 (seed 0) of its fields, each length-prefixed so that no two different
 * cells give the same bytes (("ab","c") and ("a","bc") differ):
 *
 * <pre>
 *   u32 length, logical key | u32 length, family | u32 length, qualifier |
 *   i64 timestamp | u32 length, value | u32 length, tags     (all big-endian)
 * </pre>
 *
 * The logical key is the row key without its salt, so a cell hashes the same in both generations.
 * The tags (a per-cell TTL, visibility labels, cell ACLs) are the serialized tag bytes, as the
 * tag-carrying RPC codec delivers them (none without it). The type is not hashed: only live
 * cells (puts) are digested. Not thread-safe: one per scan.
 */
final class CellDigest {
  private long rows;
  private long cells;
  private long bytes;
  private long sum;
  private byte[] buffer = new byte[256];

  /** Counts one more row (a row with at least one digested cell). */
  void addRow() {
    rows++;
  }

  /** Adds one cell whose row has the logical key key[keyOff, keyOff + keyLen). */
  void addCell(byte[] key, int keyOff, int keyLen, Cell cell) {
    sum += hash(key, keyOff, keyLen, cell);
    cells++;
    bytes += keyLen + cell.getFamilyLength() + cell.getQualifierLength() + cell.getValueLength()
        + Long.BYTES;
  }

  /**
   * One row's hash from its cells' sum and count: never 0, which stands for "no such row". The
   * same row (the same cells) hashes the same in both generations.
   */
  static long rowHash(long sum, long cells) {
    long h = sum + cells * 0x9E3779B97F4A7C15L;
    return h == 0 ? 1 : h;
  }

  /** The partition of a logical key among `partitions`: both generations agree on it. */
  static int partitionOf(byte[] key, int keyOff, int keyLen, int partitions) {
    return (int) Long.remainderUnsigned(XxHash64.hash(key, keyOff, keyLen, 0x5EEDL), partitions);
  }

  /** Adds what another digest counted (the counts and the sum). */
  void addAll(CellDigest other) {
    rows += other.rows;
    cells += other.cells;
    bytes += other.bytes;
    sum += other.sum;
  }

  long rows() {
    return rows;
  }

  long cells() {
    return cells;
  }

  /** Bytes of the digested cells: logical key + family + qualifier + value + 8 (timestamp). */
  long bytes() {
    return bytes;
  }

  long sum() {
    return sum;
  }

  /** The digest as 16 lower-case hex digits. */
  String hex() {
    return hex(sum);
  }

  static String hex(long value) {
    String digits = Long.toHexString(value);
    return "0".repeat(16 - digits.length()) + digits;
  }

  /** The hash of one cell (see the class comment). */
  long hash(byte[] key, int keyOff, int keyLen, Cell cell) {
    int size = 4 + keyLen + 4 + cell.getFamilyLength() + 4 + cell.getQualifierLength() + 8 + 4
        + cell.getValueLength() + 4 + cell.getTagsLength();
    if (buffer.length < size) {
      buffer = new byte[Math.max(size, buffer.length * 2)];
    }
    int at = 0;
    at = putField(buffer, at, key, keyOff, keyLen);
    at = putField(buffer, at, cell.getFamilyArray(), cell.getFamilyOffset(),
        cell.getFamilyLength());
    at = putField(buffer, at, cell.getQualifierArray(), cell.getQualifierOffset(),
        cell.getQualifierLength());
    long ts = cell.getTimestamp();
    for (int shift = 56; shift >= 0; shift -= 8) {
      buffer[at++] = (byte) (ts >>> shift);
    }
    at = putField(buffer, at, cell.getValueArray(), cell.getValueOffset(), cell.getValueLength());
    at = putField(buffer, at, cell.getTagsArray(), cell.getTagsOffset(), cell.getTagsLength());
    return XxHash64.hash(buffer, 0, at, 0L);
  }

  private static int putField(byte[] out, int at, byte[] src, int off, int len) {
    out[at] = (byte) (len >>> 24);
    out[at + 1] = (byte) (len >>> 16);
    out[at + 2] = (byte) (len >>> 8);
    out[at + 3] = (byte) len;
    System.arraycopy(src, off, out, at + 4, len);
    return at + 4 + len;
  }
}
