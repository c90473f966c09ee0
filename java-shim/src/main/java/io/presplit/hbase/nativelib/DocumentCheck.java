package io.presplit.hbase.nativelib;

import java.nio.charset.StandardCharsets;

/**
 * What libpresplit's own parser says of a table document ({@code ParseTableConfig}): its canonical
 * form, table and split keys when it is valid, else the error with the JSON Pointer of the field
 * at fault. Built by {@link PresplitNative#checkTableDocument}.
 */
public final class DocumentCheck {
  private final byte[] canonical;
  private final String table;
  private final String pointer;
  private final String message;
  private final byte[][] splitKeys;
  private final String[] notes;

  /** Called from native code (constructor ID cached at load time): keep the signature. */
  public DocumentCheck(byte[] canonical, String table, String pointer, String message,
      byte[][] splitKeys, String[] notes) {
    this.canonical = canonical;
    this.table = table;
    this.pointer = pointer;
    this.message = message;
    this.splitKeys = splitKeys;
    this.notes = notes;
  }

  public boolean isValid() {
    return canonical != null;
  }

  /** The canonical document (every default written out), null when invalid. */
  public String canonical() {
    return canonical == null ? null : new String(canonical, StandardCharsets.UTF_8);
  }

  /** The table's {@code namespace:qualifier}, null when invalid. */
  public String table() {
    return table;
  }

  /** The JSON Pointer of the refused field ("" = the whole document), null when valid. */
  public String pointer() {
    return pointer;
  }

  /** Why the document was refused, without the field's name; null when valid. */
  public String message() {
    return message;
  }

  /** The split keys the table is created with (empty when invalid). */
  public byte[][] splitKeys() {
    return splitKeys == null ? new byte[0][] : splitKeys.clone();
  }

  /** Notes of the split (e.g. a sample with too few distinct keys), empty when none. */
  public String[] notes() {
    return notes == null ? new String[0] : notes.clone();
  }
}
