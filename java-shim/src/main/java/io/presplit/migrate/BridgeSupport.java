package io.presplit.migrate;

import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.rekey.MigrationLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/** What the bridge's entry points share: argument parsing, region lookups, re-keying, scans. */
final class BridgeSupport {

  /** Rows re-keyed per JNI call and per batch of mutations. */
  static final int BATCH_ROWS = 512;

  /** Rows read per scanner RPC. */
  static final int SCAN_CACHING = 1000;

  private BridgeSupport() {
  }

  static long parseLong(String value, String what) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + value + "' is not a number", e);
    }
  }

  static boolean parseBoolean(String value, String what) {
    if (!"true".equals(value) && !"false".equals(value)) {
      throw new IllegalArgumentException(what + " must be true or false, got '" + value + "'");
    }
    return Boolean.parseBoolean(value);
  }

  static byte[] base64(String value) {
    try {
      return value == null ? new byte[0] : Base64.getDecoder().decode(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + value + "' is not base64", e);
    }
  }

  static List<byte[]> base64List(String json) {
    List<byte[]> out = new ArrayList<>();
    try {
      for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
        out.add(base64(e.getAsString()));
      }
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
      throw new IllegalArgumentException("not a JSON array of base64 strings: " + e.getMessage(),
          e);
    }
    return out;
  }

  static TableDescriptor descriptor(Connection c, TableName table) throws IOException {
    try (Admin admin = c.getAdmin()) {
      return admin.getDescriptor(table);
    }
  }

  /** A table's region start keys, ascending (the first is empty). */
  static byte[][] startKeys(Connection c, TableName table) throws IOException {
    try (RegionLocator locator = c.getRegionLocator(table)) {
      return locator.getStartKeys();
    }
  }

  /** The index of the last start <= key, or -1 when the key is before every start. */
  static int regionOf(byte[][] starts, byte[] key) {
    int lo = 0;
    int hi = starts.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Bytes.compareTo(starts[mid], key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Region start keys as given, checked: at least one, strictly increasing. */
  static byte[][] checkStarts(List<byte[]> given) {
    if (given == null || given.isEmpty()) {
      throw new IllegalArgumentException("sourceRegionStarts must name at least one region");
    }
    byte[][] out = new byte[given.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = given.get(i) == null ? new byte[0] : given.get(i);
      if (i > 0 && Bytes.compareTo(out[i - 1], out[i]) >= 0) {
        throw new IllegalArgumentException("sourceRegionStarts are not strictly increasing at "
            + i + ": '" + Bytes.toStringBinary(out[i - 1]) + "' then '"
            + Bytes.toStringBinary(out[i]) + "'");
      }
    }
    return out;
  }

  /** The rows' keys re-keyed from one layout to the other, by libpresplit (one JNI call). */
  static byte[][] rekey(List<Result> rows, MigrationLayout from, MigrationLayout to) {
    byte[][] keys = new byte[rows.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = rows.get(i).getRow();
    }
    return rekeyKeys(keys, from, to);
  }

  /** Row keys re-keyed from one layout to the other, by libpresplit (one JNI call). */
  static byte[][] rekeyKeys(byte[][] keys, MigrationLayout from, MigrationLayout to) {
    try {
      return PresplitNative.rekeyAll(from.spec, to.spec, keys);
    } catch (NativeException e) {
      if ("INVALID_ARGUMENT".equals(e.code())) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
      throw new IllegalStateException("libpresplit could not re-key: " + e.getMessage(), e);
    }
  }

  /** A scan of [fromRow, endRow) returning every live version, whatever its timestamp. */
  static Scan rangeScan(byte[] fromRow, byte[] endRow, int caching) {
    Scan scan = new Scan().readAllVersions().setCaching(caching).setCacheBlocks(false);
    if (fromRow != null && fromRow.length > 0) {
      scan.withStartRow(fromRow, true);
    }
    if (endRow != null && endRow.length > 0) {
      if (fromRow != null && fromRow.length > 0 && Bytes.compareTo(fromRow, endRow) >= 0) {
        throw new IllegalArgumentException("the range ['" + Bytes.toStringBinary(fromRow)
            + "', '" + Bytes.toStringBinary(endRow) + "') is empty");
      }
      scan.withStopRow(endRow, false);
    }
    return scan;
  }

  static TableName tableName(String name, String what) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(what + " is missing");
    }
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " '" + name + "' is not a table name: "
          + e.getMessage(), e);
    }
  }

  static TableName[] tableNames(String csv) {
    if (csv == null || csv.isEmpty()) {
      throw new IllegalArgumentException("no tables named");
    }
    String[] parts = csv.split(",");
    TableName[] names = new TableName[parts.length];
    for (int i = 0; i < parts.length; i++) {
      names[i] = tableName(parts[i], "table");
    }
    return names;
  }
}
