package io.presplit.migrate;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.ExtendedCellBuilder;

/**
 * Small pieces the migration's Java side shares between its copy (MigrationBridge), its
 * verification and its change capture (io.presplit.capture): a cell moved to another row, and a
 * string as JSON.
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

  /** A string as a JSON string literal (quotes and backslashes escaped, control characters too). */
  public static String jsonString(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        out.append('\\').append(ch);
      } else if (ch < 0x20) {
        out.append(String.format("\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    return out.append('"').toString();
  }}
