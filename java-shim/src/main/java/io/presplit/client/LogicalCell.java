package io.presplit.client;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.util.ClassSize;

/**
 * A stored cell seen under its logical row key: the same cell with its salt prefix left out of
 * the row. Nothing is copied: the row, family, qualifier and value stay in the stored cell's
 * arrays, only the row's offset and length move. The SDK hands these to callers in place of
 * re-built {@code KeyValue}s, which copied every byte of every cell of every row it read (the
 * merged scan's largest cost per row beyond the scan itself).
 *
 * <p>Behaves as any read-only client {@link Cell}: {@code CellUtil}, {@code CellComparator} and
 * {@code Result}'s look-ups only use these accessors. Not an {@code ExtendedCell}: it is never
 * written back or serialized by the SDK.
 */
final class LogicalCell implements Cell {
  private static final long FIXED_OVERHEAD =
      ClassSize.align(ClassSize.OBJECT + ClassSize.REFERENCE + Integer.BYTES);

  private final Cell stored;
  private final int saltWidth;

  /** {@code stored}'s row must be at least {@code saltWidth} bytes long (the caller checks). */
  LogicalCell(Cell stored, int saltWidth) {
    this.stored = stored;
    this.saltWidth = saltWidth;
  }

  @Override
  public byte[] getRowArray() {
    return stored.getRowArray();
  }

  @Override
  public int getRowOffset() {
    return stored.getRowOffset() + saltWidth;
  }

  @Override
  public short getRowLength() {
    return (short) (stored.getRowLength() - saltWidth);
  }

  @Override
  public byte[] getFamilyArray() {
    return stored.getFamilyArray();
  }

  @Override
  public int getFamilyOffset() {
    return stored.getFamilyOffset();
  }

  @Override
  public byte getFamilyLength() {
    return stored.getFamilyLength();
  }

  @Override
  public byte[] getQualifierArray() {
    return stored.getQualifierArray();
  }

  @Override
  public int getQualifierOffset() {
    return stored.getQualifierOffset();
  }

  @Override
  public int getQualifierLength() {
    return stored.getQualifierLength();
  }

  @Override
  public long getTimestamp() {
    return stored.getTimestamp();
  }

  @Override
  public byte getTypeByte() {
    return stored.getTypeByte();
  }

  @Override
  public Type getType() {
    return stored.getType();
  }

  @Override
  public long getSequenceId() {
    return stored.getSequenceId();
  }

  @Override
  public byte[] getValueArray() {
    return stored.getValueArray();
  }

  @Override
  public int getValueOffset() {
    return stored.getValueOffset();
  }

  @Override
  public int getValueLength() {
    return stored.getValueLength();
  }

  @Override
  public byte[] getTagsArray() {
    return stored.getTagsArray();
  }

  @Override
  public int getTagsOffset() {
    return stored.getTagsOffset();
  }

  @Override
  public int getTagsLength() {
    return stored.getTagsLength();
  }

  /** The stored cell's size less the salt: what the logical cell would take serialized. */
  @Override
  public int getSerializedSize() {
    return stored.getSerializedSize() - saltWidth;
  }

  @Override
  public long heapSize() {
    return FIXED_OVERHEAD + stored.heapSize();
  }

  @Override
  public String toString() {
    return org.apache.hadoop.hbase.CellUtil.toString(this, false);
  }
}
