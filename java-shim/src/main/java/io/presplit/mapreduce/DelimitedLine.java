package io.presplit.mapreduce;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;

import io.presplit.client.KeyLayout;
import io.presplit.client.KeyLayoutException;

/**
 * One line of a row file, cut into fields and checked against a column mapping
 * ({@code HBASE_ROW_KEY,cf:col,...}, as HBase's ImportTsv takes it; {@code HBASE_TS_KEY} names a
 * timestamp column in ms). Fields are separated by one byte; with a quote byte, a field that
 * starts with it runs to the matching quote, and a doubled quote inside stands for one (CSV).
 * Works on the line's bytes, so values are stored exactly as they are in the file.
 *
 * <p>Not thread-safe (one per task).
 */
final class DelimitedLine {

  /** A line that cannot be imported; the message says why. */
  static final class BadLineException extends Exception {
    private static final long serialVersionUID = 1L;

    BadLineException(String message) {
      super(message);
    }
  }

  /** The column mapping, parsed. */
  static final class Columns {
    final int rowKeyIndex;
    final int timestampIndex; // -1 = none
    final byte[][] families; // null at the row key and timestamp indexes
    final byte[][] qualifiers;

    Columns(String spec) {
      String[] names = spec.split(",", -1);
      families = new byte[names.length][];
      qualifiers = new byte[names.length][];
      int rowKey = -1;
      int ts = -1;
      for (int i = 0; i < names.length; i++) {
        String name = names[i].trim();
        if (name.equals("HBASE_ROW_KEY")) {
          if (rowKey >= 0) {
            throw new IllegalArgumentException("the column mapping names HBASE_ROW_KEY twice");
          }
          rowKey = i;
        } else if (name.equals("HBASE_TS_KEY")) {
          if (ts >= 0) {
            throw new IllegalArgumentException("the column mapping names HBASE_TS_KEY twice");
          }
          ts = i;
        } else {
          int colon = name.indexOf(':');
          if (colon <= 0) {
            throw new IllegalArgumentException("column " + (i + 1) + " of the mapping, '" + name
                + "', is not HBASE_ROW_KEY, HBASE_TS_KEY or family:qualifier");
          }
          families[i] = Bytes.toBytes(name.substring(0, colon));
          qualifiers[i] = Bytes.toBytes(name.substring(colon + 1));
        }
      }
      if (rowKey < 0) {
        throw new IllegalArgumentException("the column mapping has no HBASE_ROW_KEY");
      }
      if (names.length - (ts >= 0 ? 2 : 1) < 1) {
        throw new IllegalArgumentException("the column mapping has no family:qualifier column");
      }
      rowKeyIndex = rowKey;
      timestampIndex = ts;
    }

    int size() {
      return families.length;
    }

    /** The distinct families the mapping writes to. */
    List<String> familyNames() {
      List<String> out = new ArrayList<>();
      for (byte[] f : families) {
        if (f != null && !out.contains(Bytes.toString(f))) {
          out.add(Bytes.toString(f));
        }
      }
      return out;
    }
  }

  private final Columns columns;
  private final byte separator;
  private final int quote; // -1 = none
  private final KeyLayout layout;
  private final int[] starts;
  private final int[] ends;
  private final boolean[] quoted;
  private byte[] line;

  DelimitedLine(Columns columns, byte separator, int quote, KeyLayout layout) {
    this.columns = columns;
    this.separator = separator;
    this.quote = quote;
    this.layout = layout;
    this.starts = new int[columns.size()];
    this.ends = new int[columns.size()];
    this.quoted = new boolean[columns.size()];
  }

  /**
   * Cuts {@code bytes[0, length)} into fields and checks them: the field count matches the
   * mapping, the row key is not empty and fits the layout, the timestamp (if mapped) is a
   * non-negative number.
   */
  void parse(byte[] bytes, int length) throws BadLineException {
    if (length > 0 && bytes[length - 1] == '\r') {
      length--;
    }
    line = bytes;
    int field = 0;
    int pos = 0;
    while (true) {
      if (field == starts.length) {
        throw new BadLineException("more than the " + starts.length + " fields of the mapping");
      }
      if (quote >= 0 && pos < length && bytes[pos] == (byte) quote) {
        int close = pos + 1;
        while (true) {
          if (close >= length) {
            throw new BadLineException("field " + (field + 1) + ": no closing quote");
          }
          if (bytes[close] == (byte) quote) {
            if (close + 1 < length && bytes[close + 1] == (byte) quote) {
              close += 2;
              continue;
            }
            break;
          }
          close++;
        }
        starts[field] = pos + 1;
        ends[field] = close;
        quoted[field] = true;
        pos = close + 1;
        if (pos < length && bytes[pos] != separator) {
          throw new BadLineException("field " + (field + 1) + ": text after the closing quote");
        }
      } else {
        int end = pos;
        while (end < length && bytes[end] != separator) {
          end++;
        }
        starts[field] = pos;
        ends[field] = end;
        quoted[field] = false;
        pos = end;
      }
      field++;
      if (pos >= length) {
        break;
      }
      pos++; // the separator
      if (pos == length) {
        // a trailing separator: one more, empty field
        if (field == starts.length) {
          throw new BadLineException(
              "more than the " + starts.length + " fields of the mapping");
        }
        starts[field] = pos;
        ends[field] = pos;
        quoted[field] = false;
        field++;
        break;
      }
    }
    if (field != starts.length) {
      throw new BadLineException(
          field + " field" + (field == 1 ? "" : "s") + ", the mapping has " + starts.length);
    }
    if (ends[columns.rowKeyIndex] == starts[columns.rowKeyIndex]) {
      throw new BadLineException("empty row key");
    }
    if (columns.timestampIndex >= 0) {
      timestamp();
    }
  }

  /** Field {@code i} of the parsed line (quotes removed, doubled quotes undone). */
  byte[] field(int i) {
    byte[] raw = Arrays.copyOfRange(line, starts[i], ends[i]);
    if (!quoted[i]) {
      return raw;
    }
    int n = 0;
    for (int k = 0; k < raw.length; k++) {
      raw[n++] = raw[k];
      if (raw[k] == (byte) quote && k + 1 < raw.length && raw[k + 1] == (byte) quote) {
        k++;
      }
    }
    return Arrays.copyOf(raw, n);
  }

  /** The logical key (the row key field). */
  byte[] logicalKey() {
    return field(columns.rowKeyIndex);
  }

  /** The salted row key of the parsed line. */
  byte[] rowKey() throws BadLineException {
    try {
      return layout.encode(logicalKey());
    } catch (KeyLayoutException e) {
      throw new BadLineException(e.getMessage());
    }
  }

  /** The timestamp column's value, or -1 when the mapping has none. */
  long timestamp() throws BadLineException {
    if (columns.timestampIndex < 0) {
      return -1;
    }
    String text = Bytes.toString(field(columns.timestampIndex)).trim();
    try {
      long ts = Long.parseLong(text);
      if (ts < 0) {
        throw new NumberFormatException();
      }
      return ts;
    } catch (NumberFormatException e) {
      throw new BadLineException("timestamp '" + text + "' is not a number of ms >= 0");
    }
  }
}
