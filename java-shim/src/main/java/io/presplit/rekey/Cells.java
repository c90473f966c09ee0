package io.presplit.rekey;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.ExtendedCellBuilder;

/**
 * A cell moved to another row: what the migration's copy (io.presplit.migrate) and its change
 * capture (io.presplit.capture) both do to every cell they re-key.
 */
public final class Cells {
  private Cells() {
  }

  /**
   * The cell at another row: family, qualifier, timestamp, type, value and tags kept (with a
   * SHALLOW_COPY builder, over the cell's own arrays). The copy and the capture endpoint both
   * move cells with it.
   */
  public static Cell moved(ExtendedCellBuilder builder, byte[] row, Cell cell) {
    builder.clear();
    return builder.setRow(row)
        .setFamily(cell.getFamilyArray(), cell.getFamilyOffset(), cell.getFamilyLength())
        .setQualifier(cell.getQualifierArray(), cell.getQualifierOffset(),
            cell.getQualifierLength())
        .setTimestamp(cell.getTimestamp()).setType(cell.getTypeByte())
        .setValue(cell.getValueArray(), cell.getValueOffset(), cell.getValueLength())
        .setTags(cell.getTagsArray(), cell.getTagsOffset(), cell.getTagsLength()).build();
  }
}
