package io.presplit.hbase.policy;

import io.presplit.hbase.nativelib.LayoutSpec;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The salt buckets of a layout in pure Java (for the HMaster, where the native library may be
 * absent): bucket b's prefix is one raw byte b (byte encoding) or b zero-padded to the salt width
 * in decimal or lower-case hex, as presplit's SaltPrefix writes them.
 */
public final class SaltBuckets {
  private final int count;
  private final String encoding;
  private final int width;

  private SaltBuckets(int count, String encoding, int width) {
    this.count = count;
    this.encoding = encoding;
    this.width = width;
  }

  /** IllegalArgumentException when the salt does not describe valid buckets. */
  public static SaltBuckets of(LayoutSpec layout) {
    int n = layout.saltBuckets();
    String enc = layout.saltEncoding() == null ? "byte"
        : layout.saltEncoding().toLowerCase(Locale.ROOT);
    int radix;
    switch (enc) {
      case "byte":
        if (n < 1 || n > 256 || layout.saltWidth() > 1) {
          throw new IllegalArgumentException("byte salt: 1..256 buckets, width 1");
        }
        return new SaltBuckets(n, enc, 1);
      case "decimal":
        radix = 10;
        break;
      case "hex":
        radix = 16;
        break;
      default:
        throw new IllegalArgumentException("unknown salt encoding '" + enc + "'");
    }
    int min = Math.max(1, Integer.toString(Math.max(0, n - 1), radix).length());
    int width = layout.saltWidth() > 0 ? layout.saltWidth() : min;
    if (n < 1 || width < min) {
      throw new IllegalArgumentException("a " + width + "-character " + enc + " salt cannot hold "
          + n + " buckets");
    }
    return new SaltBuckets(n, enc, width);
  }

  public int count() {
    return count;
  }

  public int width() {
    return width;
  }

  /** The prefix of bucket b. */
  public byte[] prefix(int b) {
    if (encoding.equals("byte")) {
      return new byte[] {(byte) b};
    }
    String digits = Integer.toString(b, encoding.equals("hex") ? 16 : 10);
    StringBuilder s = new StringBuilder();
    for (int i = digits.length(); i < width; i++) {
      s.append('0');
    }
    return s.append(digits).toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** The bucket whose prefix the key starts with, or -1. */
  public int bucketOf(byte[] key) {
    if (key.length < width) {
      return -1;
    }
    for (int b = 0; b < count; b++) {
      if (Bytes.startsWith(key, prefix(b))) {
        return b;
      }
    }
    return -1;
  }

  /** A bucket boundary (prefix of buckets 1..n-1) strictly inside (start, end), else null. */
  public byte[] boundaryInside(byte[] start, byte[] end) {
    for (int b = 1; b < count; b++) {
      byte[] p = prefix(b);
      if (Bytes.compareTo(p, start) > 0 && (end.length == 0 || Bytes.compareTo(p, end) < 0)) {
        return p;
      }
    }
    return null;
  }

  /** Why a split point is not allowed (inside a salt prefix), or null when it is. */
  public String splitProblem(byte[] point) {
    if (point.length < width) {
      return "lies inside a " + width + "-byte salt prefix (shorter than the prefix)";
    }
    if (bucketOf(point) < 0) {
      return "does not start with the prefix of one of the " + count + " salt buckets";
    }
    return null;
  }
}
