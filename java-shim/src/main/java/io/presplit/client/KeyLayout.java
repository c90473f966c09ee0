package io.presplit.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * A row-key layout, {@code [salt][group][rest]}, with the semantics of libpresplit's
 * {@code layout.h}, in pure Java.
 *
 * <p>A <em>logical key</em> is what the application writes: the group (the part look-ups go by)
 * followed by the rest. The <em>row key</em> is the salt prefix followed by the logical key. The
 * group is the first {@code length} bytes of the logical key, or everything before the first
 * occurrence of the delimiter (the delimiter then belongs to the group's scan prefix, so a scan
 * for group "ab" does not return group "abc"). The salt is computed from the group (every row of
 * a group in one bucket) or from the whole logical key. A logical key that does not fit the group
 * is refused whenever a group is configured, even when the salt comes from the whole key.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class KeyLayout {

  /** HBase's limit on a row key's length. */
  public static final int MAX_ROW_KEY_LENGTH = Short.MAX_VALUE;

  private static final int MAX_GROUP_LENGTH = 32767;
  private static final int MAX_DECIMAL_BUCKETS = 10000;
  private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final int buckets;
  private final SaltEncoding encoding;
  private final int saltWidth;
  private final SaltHash hash;
  private final boolean saltFromKey;
  private final int groupLength; // 0 = none
  private final byte[] groupDelimiter; // null = none
  private final int requestedWidth; // the width asked for, 0 = the minimum

  private KeyLayout(int buckets, SaltEncoding encoding, int saltWidth, SaltHash hash,
      boolean saltFromKey, int groupLength, byte[] groupDelimiter, int requestedWidth) {
    this.requestedWidth = requestedWidth;
    this.buckets = buckets;
    this.encoding = encoding;
    this.saltWidth = saltWidth;
    this.hash = hash;
    this.saltFromKey = saltFromKey;
    this.groupLength = groupLength;
    this.groupDelimiter = groupDelimiter;
  }

  /**
   * A validated layout, with the rules of the table document's {@code layout} (libpresplit's
   * MakeLayout).
   *
   * @param buckets 0 = unsalted; 1..256 for byte encoding, 1..10000 for decimal and hex, at most
   *     256 with the phoenix hash
   * @param saltWidth 0 = the minimum for the bucket count
   * @param groupLength 0 = no length group
   * @param groupDelimiter null = no delimiter group
   * @throws KeyLayoutException when the layout is not valid
   */
  public static KeyLayout of(int buckets, SaltEncoding encoding, int saltWidth, SaltHash hash,
      boolean saltFromKey, int groupLength, byte[] groupDelimiter) {
    Objects.requireNonNull(encoding, "encoding");
    Objects.requireNonNull(hash, "hash");
    if (groupLength != 0 && groupDelimiter != null) {
      throw new KeyLayoutException("a group is cut by a length or a delimiter, not both");
    }
    if (groupLength < 0 || groupLength > MAX_GROUP_LENGTH) {
      throw new KeyLayoutException("the group length must be between 1 and " + MAX_GROUP_LENGTH
          + " (got " + groupLength + ")");
    }
    if (groupDelimiter != null && groupDelimiter.length == 0) {
      throw new KeyLayoutException("the group delimiter must not be empty");
    }
    if (buckets < 0) {
      throw new KeyLayoutException(
          "the number of salt buckets must not be negative (got " + buckets + ")");
    }
    byte[] delimiter = groupDelimiter == null ? null : groupDelimiter.clone();
    if (buckets == 0) {
      if (saltFromKey) {
        throw new KeyLayoutException("an unsalted layout (0 buckets) cannot salt from the key");
      }
      return new KeyLayout(0, SaltEncoding.BYTE, 0, SaltHash.MURMUR3, false, groupLength,
          delimiter, 0);
    }
    int maxBuckets = encoding == SaltEncoding.BYTE ? 256 : MAX_DECIMAL_BUCKETS;
    if (buckets > maxBuckets) {
      throw new KeyLayoutException("the number of salt buckets must be between 1 and "
          + maxBuckets + " for " + encoding.documentName() + " encoding (got " + buckets + ")");
    }
    if (hash == SaltHash.PHOENIX && buckets > 256) {
      throw new KeyLayoutException(
          "the phoenix hash allows at most 256 buckets (got " + buckets + ")");
    }
    int width = saltWidth(encoding, buckets, saltWidth);
    if (!saltFromKey && groupLength == 0 && delimiter == null) {
      throw new KeyLayoutException("salting from the group needs a group (a length or a "
          + "delimiter), or salt from the key");
    }
    return new KeyLayout(buckets, encoding, width, hash, saltFromKey, groupLength, delimiter,
        saltWidth);
  }

  /** The width of a salt prefix (libpresplit's SaltWidth). */
  static int saltWidth(SaltEncoding encoding, int buckets, int requested) {
    if (buckets < 1) {
      throw new KeyLayoutException(
          "the number of salt buckets must be at least 1 (got " + buckets + ")");
    }
    if (requested < 0) {
      throw new KeyLayoutException("the salt width must not be negative (got " + requested + ")");
    }
    if (encoding == SaltEncoding.BYTE) {
      if (buckets > 256) {
        throw new KeyLayoutException(
            "a 1-byte salt cannot hold " + buckets + " buckets (at most 256)");
      }
      if (requested > 1) {
        throw new KeyLayoutException(
            "a byte salt is always 1 byte wide (got width " + requested + ")");
      }
      return 1;
    }
    int needed = 1;
    for (int v = (buckets - 1) / encoding.radix(); v > 0; v /= encoding.radix()) {
      needed++;
    }
    if (requested == 0) {
      return needed;
    }
    if (requested > 10) {
      throw new KeyLayoutException(
          "the salt width must be at most 10 characters (got " + requested + ")");
    }
    if (requested < needed) {
      throw new KeyLayoutException("a " + requested + "-character " + encoding.documentName()
          + " salt cannot hold " + buckets + " buckets");
    }
    return requested;
  }

  /**
   * The layout of a table document's {@code layout} object (JSON as in
   * {@code conf/tables/README.md}); null or no {@code salt} = unsalted.
   */
  public static KeyLayout fromDocument(JsonObject layout) {
    int buckets = 0;
    SaltEncoding encoding = SaltEncoding.BYTE;
    int width = 0;
    SaltHash hash = SaltHash.MURMUR3;
    boolean fromKey = false;
    int groupLength = 0;
    byte[] delimiter = null;
    if (layout != null) {
      JsonObject salt = object(layout, "salt");
      if (salt != null) {
        buckets = integer(salt, "buckets", -1);
        if (buckets < 1) {
          throw new KeyLayoutException("field 'layout.salt.buckets': required, at least 1");
        }
        String e = string(salt, "encoding");
        if (e != null) {
          encoding = SaltEncoding.parse(e);
        }
        width = integer(salt, "width", 0);
        String h = string(salt, "hash");
        if (h != null) {
          hash = SaltHash.parse(h);
        }
        String from = string(salt, "from");
        if (from != null) {
          if (from.equalsIgnoreCase("key")) {
            fromKey = true;
          } else if (!from.equalsIgnoreCase("group")) {
            throw new KeyLayoutException(
                "unknown salt source '" + from + "' (expected group or key)");
          }
        }
      }
      JsonObject group = object(layout, "group");
      if (group != null) {
        groupLength = integer(group, "length", 0);
        String d = string(group, "delimiter");
        if (d != null) {
          delimiter = Bytes.toBytesBinary(d);
        }
        if ((groupLength != 0) == (d != null)) {
          throw new KeyLayoutException(
              "field 'layout.group': needs exactly one of 'length' or 'delimiter'");
        }
      }
    }
    return of(buckets, encoding, width, hash, fromKey, groupLength, delimiter);
  }

  private static JsonObject object(JsonObject o, String name) {
    JsonElement e = o.get(name);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonObject()) {
      throw new KeyLayoutException("field '" + name + "' must be an object");
    }
    return e.getAsJsonObject();
  }

  private static String string(JsonObject o, String name) {
    JsonElement e = o.get(name);
    return e == null || e.isJsonNull() ? null : e.getAsString();
  }

  private static int integer(JsonObject o, String name, int otherwise) {
    JsonElement e = o.get(name);
    return e == null || e.isJsonNull() ? otherwise : e.getAsInt();
  }

  /**
   * This layout with another bucket count (another generation of the table): same encoding,
   * hash, source and group; a width the document asked for stays when it can hold the new count,
   * else (and when the document asked for none) the minimum width for the new count.
   */
  public KeyLayout withBuckets(int newBuckets) {
    if (newBuckets == buckets) {
      return this;
    }
    if (newBuckets == 0) {
      return of(0, encoding, 0, hash, false, groupLength, groupDelimiter);
    }
    int width = 0;
    if (requestedWidth > 0 && encoding != SaltEncoding.BYTE) {
      width = Math.max(saltWidth(encoding, newBuckets, 0), requestedWidth);
    }
    return of(newBuckets, encoding, width, hash, saltFromKey, groupLength, groupDelimiter);
  }

  public int buckets() {
    return buckets;
  }

  public boolean isSalted() {
    return buckets > 0;
  }

  public SaltEncoding encoding() {
    return encoding;
  }

  public int saltWidth() {
    return saltWidth;
  }

  public SaltHash hash() {
    return hash;
  }

  public boolean saltFromKey() {
    return saltFromKey;
  }

  public boolean hasGroup() {
    return groupLength > 0 || groupDelimiter != null;
  }

  /** The group length, 0 when the group is cut by a delimiter or there is none. */
  public int groupLength() {
    return groupLength;
  }

  /** A copy of the group delimiter, or null. */
  public byte[] groupDelimiter() {
    return groupDelimiter == null ? null : groupDelimiter.clone();
  }

  // ---- keys ---------------------------------------------------------------------------------

  /** Index in key[off, off+len) of the first occurrence of the delimiter, or -1. */
  private int findDelimiter(byte[] key, int off, int len) {
    final byte[] d = groupDelimiter;
    final int last = off + len - d.length;
    outer:
    for (int i = off; i <= last; i++) {
      for (int j = 0; j < d.length; j++) {
        if (key[i + j] != d[j]) {
          continue outer;
        }
      }
      return i - off;
    }
    return -1;
  }

  /** Length of the group (without delimiter) in key[off, off+len), or -1 if incomplete. */
  private int groupEnd(byte[] key, int off, int len) {
    if (groupLength > 0) {
      return len >= groupLength ? groupLength : -1;
    }
    if (groupDelimiter != null) {
      return findDelimiter(key, off, len);
    }
    return 0;
  }

  private KeyLayoutException groupError(String what, byte[] whole, int logicalLength,
      boolean salted) {
    String subject = what + " '" + Bytes.toStringBinary(whole) + "'";
    if (groupLength > 0) {
      return new KeyLayoutException(subject + " is too short for its group: " + logicalLength
          + " bytes" + (salted ? " after the salt" : "") + ", the group is " + groupLength
          + " bytes long");
    }
    return new KeyLayoutException(subject + " has no group delimiter '"
        + Bytes.toStringBinary(groupDelimiter) + "'" + (salted ? " after its salt" : ""));
  }

  private int bucketOfSource(byte[] src, int off, int len, boolean fromKey) {
    int bucket = SaltHashes.bucket(hash, src, off, len, buckets);
    if (bucket < 0) {
      throw new KeyLayoutException((fromKey ? "key '" : "group '")
          + Bytes.toStringBinary(src, off, len)
          + "' is not well-formed UTF-8, which java-hashcode salting needs");
    }
    return bucket;
  }

  /**
   * The bucket of a logical key: 0..buckets-1, 0 when unsalted.
   *
   * @throws KeyLayoutException when the key does not fit the layout
   */
  public int bucketOf(byte[] logicalKey) {
    int group = groupEnd(logicalKey, 0, logicalKey.length);
    if (group < 0) {
      throw groupError("key", logicalKey, logicalKey.length, false);
    }
    if (buckets == 0) {
      return 0;
    }
    return saltFromKey ? bucketOfSource(logicalKey, 0, logicalKey.length, true)
        : bucketOfSource(logicalKey, 0, group, false);
  }

  /** Writes the salt of {@code bucket} into out[off, off + saltWidth). */
  private void writeSalt(int bucket, byte[] out, int off) {
    if (encoding == SaltEncoding.BYTE) {
      out[off] = (byte) bucket;
      return;
    }
    int radix = encoding.radix();
    for (int i = saltWidth - 1; i >= 0; i--) {
      out[off + i] = DIGITS[bucket % radix];
      bucket /= radix;
    }
  }

  /** The salt prefix of a bucket (empty when unsalted). */
  public byte[] saltPrefix(int bucket) {
    if (bucket < 0 || bucket >= Math.max(buckets, 1)) {
      throw new IllegalArgumentException("bucket " + bucket + " is not in 0.." + (buckets - 1));
    }
    byte[] salt = new byte[saltWidth];
    if (buckets > 0) {
      writeSalt(bucket, salt, 0);
    }
    return salt;
  }

  /** The bucket a salt names, or -1. */
  private int parseSalt(byte[] row, int off) {
    if (encoding == SaltEncoding.BYTE) {
      int v = row[off] & 0xff;
      return v < buckets ? v : -1;
    }
    long value = 0;
    for (int i = 0; i < saltWidth; i++) {
      int c = row[off + i];
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (encoding == SaltEncoding.HEX && c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else {
        return -1;
      }
      value = value * encoding.radix() + digit;
    }
    return value < buckets ? (int) value : -1;
  }

  /**
   * The row key of a logical key: salt prefix + logical key.
   *
   * @throws KeyLayoutException when the key does not fit the layout, or the row key would be
   *     empty or longer than HBase allows
   */
  public byte[] encode(byte[] logicalKey) {
    int bucket = bucketOf(logicalKey);
    int size = saltWidth + logicalKey.length;
    if (size == 0) {
      throw new KeyLayoutException("an unsalted row key must not be empty");
    }
    if (size > MAX_ROW_KEY_LENGTH) {
      throw new KeyLayoutException("the row key would be " + size + " bytes long (at most "
          + MAX_ROW_KEY_LENGTH + ")");
    }
    byte[] row = new byte[size];
    if (buckets > 0) {
      writeSalt(bucket, row, 0);
    }
    System.arraycopy(logicalKey, 0, row, saltWidth, logicalKey.length);
    return row;
  }

  /** A row key split into bucket, group and rest. */
  public static final class Decoded {
    public final int bucket;
    public final byte[] group;
    public final byte[] rest;

    Decoded(int bucket, byte[] group, byte[] rest) {
      this.bucket = bucket;
      this.group = group;
      this.rest = rest;
    }
  }

  /**
   * Splits and checks a row key (libpresplit's DecodeKey): the salt must be a bucket, the group
   * complete and the salt equal to the hash of its source.
   */
  public Decoded decode(byte[] rowKey) {
    int bucket = 0;
    if (buckets > 0) {
      if (rowKey.length < saltWidth) {
        throw new KeyLayoutException("row key '" + Bytes.toStringBinary(rowKey)
            + "' is shorter than its " + saltWidth + "-"
            + (encoding == SaltEncoding.BYTE ? "byte" : "character") + " "
            + encoding.documentName() + " salt");
      }
      bucket = parseSalt(rowKey, 0);
      if (bucket < 0) {
        throw new KeyLayoutException("row key '" + Bytes.toStringBinary(rowKey) + "' starts with '"
            + Bytes.toStringBinary(rowKey, 0, saltWidth) + "', which is not the "
            + encoding.documentName() + " salt of a bucket 0.." + (buckets - 1));
      }
    }
    int logicalLength = rowKey.length - saltWidth;
    int group = groupEnd(rowKey, saltWidth, logicalLength);
    if (group < 0) {
      throw groupError("row key", rowKey, logicalLength, buckets > 0);
    }
    if (buckets > 0) {
      int expected;
      try {
        expected = saltFromKey ? bucketOfSource(rowKey, saltWidth, logicalLength, true)
            : bucketOfSource(rowKey, saltWidth, group, false);
      } catch (KeyLayoutException e) {
        throw new KeyLayoutException(
            "row key '" + Bytes.toStringBinary(rowKey) + "': " + e.getMessage());
      }
      if (expected != bucket) {
        throw new KeyLayoutException("row key '" + Bytes.toStringBinary(rowKey) + "' is in bucket "
            + bucket + " but its " + (saltFromKey ? "key" : "group") + " hashes to " + expected);
      }
    }
    int restStart = saltWidth + group + (groupDelimiter != null ? groupDelimiter.length : 0);
    if (!hasGroup()) {
      restStart = saltWidth;
    }
    return new Decoded(bucket, Arrays.copyOfRange(rowKey, saltWidth, saltWidth + group),
        Arrays.copyOfRange(rowKey, restStart, rowKey.length));
  }

  /** The logical key of a row key: the row key without its salt (not checked). */
  public byte[] logicalKey(byte[] rowKey) {
    if (rowKey.length < saltWidth) {
      throw new KeyLayoutException("row key '" + Bytes.toStringBinary(rowKey)
          + "' is shorter than its salt");
    }
    return saltWidth == 0 ? rowKey : Arrays.copyOfRange(rowKey, saltWidth, rowKey.length);
  }

  /**
   * The scan prefix of every row of {@code group}: its salt + group (+ the delimiter)
   * (libpresplit's GroupScanPrefix).
   *
   * @throws KeyLayoutException when the layout has no group, the salt comes from the whole key
   *     (the group's rows are in every bucket: use the logical prefix and a merged scan), the
   *     group does not have the configured length or contains the delimiter
   */
  public byte[] groupScanPrefix(byte[] group) {
    byte[] logical = logicalGroupPrefix(group);
    if (buckets > 0 && saltFromKey) {
      throw new KeyLayoutException(
          "the salt comes from the whole key: a group's rows are in every bucket");
    }
    if (buckets == 0) {
      return logical;
    }
    int bucket = bucketOfSource(group, 0, group.length, false);
    byte[] prefix = new byte[saltWidth + logical.length];
    writeSalt(bucket, prefix, 0);
    System.arraycopy(logical, 0, prefix, saltWidth, logical.length);
    return prefix;
  }

  /** The logical-key prefix of a group: the group (+ the delimiter), checked. */
  public byte[] logicalGroupPrefix(byte[] group) {
    if (!hasGroup()) {
      throw new KeyLayoutException("the layout has no key group");
    }
    if (groupLength > 0 && group.length != groupLength) {
      throw new KeyLayoutException("group '" + Bytes.toStringBinary(group) + "' is "
          + group.length + " bytes long, not " + groupLength);
    }
    if (groupDelimiter != null) {
      if (findDelimiter(group, 0, group.length) >= 0) {
        throw new KeyLayoutException("group '" + Bytes.toStringBinary(group)
            + "' contains the group delimiter '" + Bytes.toStringBinary(groupDelimiter) + "'");
      }
      byte[] prefix = Arrays.copyOf(group, group.length + groupDelimiter.length);
      System.arraycopy(groupDelimiter, 0, prefix, group.length, groupDelimiter.length);
      return prefix;
    }
    return group.clone();
  }

  /**
   * The smallest key greater than every key that starts with {@code prefix}: the prefix with
   * trailing 0xFF bytes dropped and its last byte incremented; empty (no upper bound) when every
   * byte is 0xFF or the prefix is empty.
   */
  public static byte[] prefixEnd(byte[] prefix) {
    int last = prefix.length;
    while (last > 0 && prefix[last - 1] == (byte) 0xFF) {
      last--;
    }
    if (last == 0) {
      return new byte[0];
    }
    byte[] end = Arrays.copyOf(prefix, last);
    end[last - 1]++;
    return end;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    if (buckets > 0) {
      b.append("\"salt\": {\"buckets\": ").append(buckets).append(", \"encoding\": \"")
          .append(encoding.documentName()).append("\", \"width\": ").append(saltWidth)
          .append(", \"hash\": \"").append(hash.documentName()).append("\", \"from\": \"")
          .append(saltFromKey ? "key" : "group").append("\"}");
    }
    if (hasGroup()) {
      if (buckets > 0) {
        b.append(", ");
      }
      b.append("\"group\": {");
      if (groupLength > 0) {
        b.append("\"length\": ").append(groupLength);
      } else {
        b.append("\"delimiter\": \"")
            .append(Bytes.toStringBinary(groupDelimiter).replace("\\", "\\\\")
                .replace("\"", "\\\""))
            .append('"');
      }
      b.append('}');
    }
    return b.append('}').toString();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof KeyLayout)) {
      return false;
    }
    KeyLayout l = (KeyLayout) o;
    return buckets == l.buckets && encoding == l.encoding && saltWidth == l.saltWidth
        && hash == l.hash && saltFromKey == l.saltFromKey && groupLength == l.groupLength
        && Arrays.equals(groupDelimiter, l.groupDelimiter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(buckets, encoding, saltWidth, hash, saltFromKey, groupLength,
        Arrays.hashCode(groupDelimiter));
  }
}
