package io.presplit.hbase.admin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.hbase.thirdparty.com.google.gson.JsonPrimitive;

/**
 * A table specification as {@link AdminBridge#createTable(String, byte[][])} receives it, parsed
 * and validated into an HBase {@link TableDescriptor}. Pure: no cluster access, so it is unit
 * testable.
 *
 * <h2>Spec JSON</h2>
 *
 * <pre>{@code
 * {"table": "ns:qualifier",               // required; "qualifier" alone means namespace "default"
 *  "families": [                          // required, at least one, names unique
 *    {"name": "f",                        // required, non-empty
 *     "compression": "SNAPPY",            // Compression.Algorithm name: NONE GZ LZO SNAPPY LZ4 BZIP2 ZSTD LZMA (BROTLI)
 *     "data_block_encoding": "FAST_DIFF", // DataBlockEncoding: NONE PREFIX DIFF FAST_DIFF ROW_INDEX_V1
 *     "bloom_filter": "ROW",              // BloomType: NONE ROW ROWCOL ROWPREFIX_FIXED_LENGTH
 *     "max_versions": 1,                  // int >= 1
 *     "ttl_seconds": 2147483647,          // int >= 1; 2147483647 = FOREVER
 *     "block_size": 65536,                // int bytes, >= 1
 *     "in_memory": false}],               // bool
 *  "attributes": {"KEY": "value"}}        // optional; string -> string, set with TableDescriptorBuilder.setValue
 * }</pre>
 *
 * <p>Every family key except {@code name} is optional; an absent key keeps HBase's default.
 * Enumerated names are matched exactly (upper case, as HBase prints them). Unknown keys, at the
 * top level or in a family, are rejected, so that a typo never silently falls back to a default.
 * Every validation failure is an {@link IllegalArgumentException} whose message names the table,
 * the family (where there is one), the key and the offending value.
 */
public final class TableSpec {

  /** Family keys, in the order {@link AdminBridge#describeTable(String)} reports them. */
  public static final String NAME = "name";
  public static final String COMPRESSION = "compression";
  public static final String DATA_BLOCK_ENCODING = "data_block_encoding";
  public static final String BLOOM_FILTER = "bloom_filter";
  public static final String MAX_VERSIONS = "max_versions";
  public static final String TTL_SECONDS = "ttl_seconds";
  public static final String BLOCK_SIZE = "block_size";
  public static final String IN_MEMORY = "in_memory";

  private static final Set<String> FAMILY_KEYS = Set.of(NAME, COMPRESSION, DATA_BLOCK_ENCODING,
      BLOOM_FILTER, MAX_VERSIONS, TTL_SECONDS, BLOCK_SIZE, IN_MEMORY);
  private static final Set<String> TOP_KEYS = Set.of("table", "families", "attributes");

  private final TableName tableName;
  private final TableDescriptor descriptor;

  private TableSpec(TableName tableName, TableDescriptor descriptor) {
    this.tableName = tableName;
    this.descriptor = descriptor;
  }

  /** The table's name (namespace "default" when the spec named none). */
  public TableName tableName() {
    return tableName;
  }

  /** The descriptor to create the table with. */
  public TableDescriptor descriptor() {
    return descriptor;
  }

  /**
   * Parses and validates a spec.
   *
   * @throws IllegalArgumentException if the JSON is malformed or any value is missing, of the
   *     wrong type, out of range or unknown to HBase
   */
  public static TableSpec parse(String specJson) {
    if (specJson == null) {
      throw new IllegalArgumentException("table spec is null");
    }
    JsonElement rootEl;
    try {
      rootEl = JsonParser.parseString(specJson);
    } catch (JsonParseException e) {
      throw new IllegalArgumentException("table spec is not valid JSON: " + e.getMessage(), e);
    }
    if (!rootEl.isJsonObject()) {
      throw new IllegalArgumentException("table spec must be a JSON object, got: " + abbrev(rootEl));
    }
    JsonObject root = rootEl.getAsJsonObject();
    for (String key : root.keySet()) {
      if (!TOP_KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "table spec: unknown key '" + key + "' (known: " + sorted(TOP_KEYS) + ")");
      }
    }

    String table = requireString(root, "table", "table spec");
    TableName tableName = parseTableName(table);
    String where = "table " + qualified(tableName);

    TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(tableName);

    JsonElement famsEl = root.get("families");
    if (famsEl == null || famsEl.isJsonNull()) {
      throw new IllegalArgumentException(where + ": 'families' is required");
    }
    if (!famsEl.isJsonArray()) {
      throw new IllegalArgumentException(
          where + ": 'families' must be an array, got: " + abbrev(famsEl));
    }
    JsonArray fams = famsEl.getAsJsonArray();
    if (fams.size() == 0) {
      throw new IllegalArgumentException(where + ": 'families' must name at least one family");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < fams.size(); i++) {
      JsonElement famEl = fams.get(i);
      if (!famEl.isJsonObject()) {
        throw new IllegalArgumentException(
            where + ": families[" + i + "] must be an object, got: " + abbrev(famEl));
      }
      ColumnFamilyDescriptor cf = parseFamily(where, i, famEl.getAsJsonObject());
      if (!seen.add(cf.getNameAsString())) {
        throw new IllegalArgumentException(
            where + ": family '" + cf.getNameAsString() + "' is listed twice");
      }
      builder.setColumnFamily(cf);
    }

    JsonElement attrsEl = root.get("attributes");
    if (attrsEl != null && !attrsEl.isJsonNull()) {
      if (!attrsEl.isJsonObject()) {
        throw new IllegalArgumentException(
            where + ": 'attributes' must be an object of strings, got: " + abbrev(attrsEl));
      }
      for (Map.Entry<String, JsonElement> e : attrsEl.getAsJsonObject().entrySet()) {
        String key = e.getKey();
        JsonElement v = e.getValue();
        if (key.isEmpty()) {
          throw new IllegalArgumentException(where + ": attribute with an empty key");
        }
        if (!isString(v)) {
          throw new IllegalArgumentException(where + ": attribute '" + key
              + "' must be a string, got: " + abbrev(v));
        }
        builder.setValue(key, v.getAsString());
      }
    }

    return new TableSpec(tableName, builder.build());
  }

  /**
   * Parses "ns:qualifier" or "qualifier" with HBase's own validation.
   *
   * @throws IllegalArgumentException naming the table if the name is not a legal HBase table name
   */
  public static TableName parseTableName(String table) {
    if (table == null || table.isEmpty()) {
      throw new IllegalArgumentException("table name is empty");
    }
    try {
      return TableName.valueOf(table);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid table name '" + table + "': " + e.getMessage(), e);
    }
  }

  /** "namespace:qualifier", always with the namespace (also for "default"). */
  public static String qualified(TableName tn) {
    return tn.getNamespaceAsString() + ":" + tn.getQualifierAsString();
  }

  private static ColumnFamilyDescriptor parseFamily(String where, int index, JsonObject fam) {
    JsonElement nameEl = fam.get(NAME);
    if (nameEl == null || nameEl.isJsonNull()) {
      throw new IllegalArgumentException(where + ": families[" + index + "] has no 'name'");
    }
    if (!isString(nameEl) || nameEl.getAsString().isEmpty()) {
      throw new IllegalArgumentException(where + ": families[" + index
          + "].name must be a non-empty string, got: " + abbrev(nameEl));
    }
    String name = nameEl.getAsString();
    String fw = where + ", family '" + name + "'";
    for (String key : fam.keySet()) {
      if (!FAMILY_KEYS.contains(key)) {
        throw new IllegalArgumentException(
            fw + ": unknown key '" + key + "' (known: " + sorted(FAMILY_KEYS) + ")");
      }
    }
    byte[] nameBytes = Bytes.toBytes(name);
    try {
      ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName(nameBytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(fw + ": illegal family name: " + e.getMessage(), e);
    }
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(nameBytes);

    String s;
    if ((s = optEnumName(fam, COMPRESSION, fw)) != null) {
      b.setCompressionType(
          lookup(Compression.Algorithm.values(), Compression.Algorithm::name, s, COMPRESSION, fw));
    }
    if ((s = optEnumName(fam, DATA_BLOCK_ENCODING, fw)) != null) {
      b.setDataBlockEncoding(
          lookup(DataBlockEncoding.values(), DataBlockEncoding::name, s, DATA_BLOCK_ENCODING, fw));
    }
    if ((s = optEnumName(fam, BLOOM_FILTER, fw)) != null) {
      b.setBloomFilterType(lookup(BloomType.values(), BloomType::name, s, BLOOM_FILTER, fw));
    }
    Integer n;
    if ((n = optPositiveInt(fam, MAX_VERSIONS, fw)) != null) {
      b.setMaxVersions(n);
    }
    if ((n = optPositiveInt(fam, TTL_SECONDS, fw)) != null) {
      b.setTimeToLive(n);
    }
    if ((n = optPositiveInt(fam, BLOCK_SIZE, fw)) != null) {
      b.setBlocksize(n);
    }
    JsonElement im = fam.get(IN_MEMORY);
    if (im != null && !im.isJsonNull()) {
      if (!(im.isJsonPrimitive() && im.getAsJsonPrimitive().isBoolean())) {
        throw new IllegalArgumentException(
            fw + ": '" + IN_MEMORY + "' must be true or false, got: " + abbrev(im));
      }
      b.setInMemory(im.getAsBoolean());
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(fw + ": " + e.getMessage(), e);
    }
  }

  private static <E> E lookup(E[] values, Function<E, String> nameOf, String given, String key,
      String fw) {
    for (E v : values) {
      if (nameOf.apply(v).equals(given)) {
        return v;
      }
    }
    throw new IllegalArgumentException(fw + ": unknown " + key + " '" + given + "' (valid: "
        + Arrays.stream(values).map(nameOf).collect(Collectors.joining(" ")) + ")");
  }

  private static String optEnumName(JsonObject o, String key, String fw) {
    JsonElement e = o.get(key);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!isString(e)) {
      throw new IllegalArgumentException(fw + ": '" + key + "' must be a string, got: " + abbrev(e));
    }
    return e.getAsString();
  }

  private static Integer optPositiveInt(JsonObject o, String key, String fw) {
    JsonElement e = o.get(key);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber())) {
      throw new IllegalArgumentException(
          fw + ": '" + key + "' must be an integer, got: " + abbrev(e));
    }
    java.math.BigDecimal d;
    try {
      d = e.getAsBigDecimal();
    } catch (NumberFormatException ex) {
      throw new IllegalArgumentException(
          fw + ": '" + key + "' must be an integer, got: " + abbrev(e), ex);
    }
    int v;
    try {
      v = d.intValueExact();
    } catch (ArithmeticException ex) {
      throw new IllegalArgumentException(fw + ": '" + key
          + "' must be an integer between 1 and 2147483647, got: " + abbrev(e), ex);
    }
    if (v < 1) {
      throw new IllegalArgumentException(
          fw + ": '" + key + "' must be at least 1, got: " + abbrev(e));
    }
    return v;
  }

  private static String requireString(JsonObject o, String key, String where) {
    JsonElement e = o.get(key);
    if (e == null || e.isJsonNull()) {
      throw new IllegalArgumentException(where + ": '" + key + "' is required");
    }
    if (!isString(e)) {
      throw new IllegalArgumentException(
          where + ": '" + key + "' must be a string, got: " + abbrev(e));
    }
    return e.getAsString();
  }

  private static boolean isString(JsonElement e) {
    return e != null && e.isJsonPrimitive() && ((JsonPrimitive) e).isString();
  }

  private static String abbrev(JsonElement e) {
    String s = String.valueOf(e);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  private static String sorted(Set<String> keys) {
    List<String> l = new ArrayList<>(keys);
    Collections.sort(l);
    return String.join(", ", l);
  }

  /**
   * Validates split keys and returns a sorted copy (empty for null or empty input).
   *
   * @throws IllegalArgumentException naming the table and the key (in toStringBinary form) for a
   *     null or empty key or a duplicate
   */
  public static byte[][] checkSplitKeys(TableName tn, byte[][] splitKeys) {
    if (splitKeys == null || splitKeys.length == 0) {
      return new byte[0][];
    }
    byte[][] sorted = new byte[splitKeys.length][];
    for (int i = 0; i < splitKeys.length; i++) {
      if (splitKeys[i] == null || splitKeys[i].length == 0) {
        throw new IllegalArgumentException("table " + qualified(tn) + ": split key #" + i
            + " is " + (splitKeys[i] == null ? "null" : "empty"));
      }
      sorted[i] = splitKeys[i].clone();
    }
    Arrays.sort(sorted, Bytes.BYTES_COMPARATOR);
    for (int i = 1; i < sorted.length; i++) {
      if (Bytes.equals(sorted[i - 1], sorted[i])) {
        throw new IllegalArgumentException("table " + qualified(tn) + ": duplicate split key '"
            + Bytes.toStringBinary(sorted[i]) + "'");
      }
    }
    return sorted;
  }

  // --- describe side: the family JSON shape shared with AdminBridge#describeTable ---

  /** The family as describeTable reports it (every key present, HBase's names for enums). */
  static Map<String, Object> describeFamily(ColumnFamilyDescriptor cf) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(NAME, cf.getNameAsString());
    m.put(COMPRESSION, cf.getCompressionType().name());
    m.put(DATA_BLOCK_ENCODING, cf.getDataBlockEncoding().name());
    m.put(BLOOM_FILTER, cf.getBloomFilterType().name());
    m.put(MAX_VERSIONS, cf.getMaxVersions());
    m.put(TTL_SECONDS, cf.getTimeToLive());
    m.put(BLOCK_SIZE, cf.getBlocksize());
    m.put(IN_MEMORY, cf.isInMemory());
    return m;
  }
}
