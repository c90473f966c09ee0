package io.presplit.client;

/**
 * The salt hashes of presplit's key layouts in pure Java, byte-identical to libpresplit's
 * {@code hash.h} (checked against the shared vectors in {@code tests/vectors/}).
 *
 * <ul>
 *   <li>{@code murmur3}: MurmurHash3 x86 32-bit with seed 0, read as an unsigned 32-bit number,
 *       modulo the bucket count;
 *   <li>{@code phoenix}: {@code h = 1; h = 31 * h + b} over the bytes as signed bytes,
 *       {@code Math.abs(h % buckets)}, at most 256 buckets;
 *   <li>{@code java-hashcode}: {@code Math.abs(s.hashCode() % buckets)} of the key decoded as
 *       UTF-8; a key that is not well-formed UTF-8 has no bucket.
 * </ul>
 *
 * Every function works on a slice of a byte array and allocates nothing.
 */
public final class SaltHashes {

  /** The seed of presplit's murmur3 salt. */
  public static final int MURMUR3_SEED = 0;

  /** Returned by the bucket functions when a key has no bucket (non-UTF-8 for java-hashcode). */
  public static final int NO_BUCKET = -1;

  private SaltHashes() {}

  /** MurmurHash3 x86 32-bit of {@code bytes[off, off + len)} with {@code seed}, as a Java int. */
  public static int murmur3_32(byte[] bytes, int off, int len, int seed) {
    final int c1 = 0xcc9e2d51;
    final int c2 = 0x1b873593;
    int h = seed;
    final int blocks = len >>> 2;
    int p = off;
    for (int i = 0; i < blocks; i++, p += 4) {
      int k = (bytes[p] & 0xff) | ((bytes[p + 1] & 0xff) << 8) | ((bytes[p + 2] & 0xff) << 16)
          | ((bytes[p + 3] & 0xff) << 24);
      k *= c1;
      k = Integer.rotateLeft(k, 15);
      k *= c2;
      h ^= k;
      h = Integer.rotateLeft(h, 13);
      h = h * 5 + 0xe6546b64;
    }
    int k = 0;
    switch (len & 3) {
      case 3:
        k ^= (bytes[p + 2] & 0xff) << 16;
        // fall through
      case 2:
        k ^= (bytes[p + 1] & 0xff) << 8;
        // fall through
      case 1:
        k ^= bytes[p] & 0xff;
        k *= c1;
        k = Integer.rotateLeft(k, 15);
        k *= c2;
        h ^= k;
        break;
      default:
        break;
    }
    h ^= len;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  public static int murmur3_32(byte[] bytes, int seed) {
    return murmur3_32(bytes, 0, bytes.length, seed);
  }

  /** presplit's murmur3 salt: the seed-0 hash as unsigned, modulo buckets (>= 1). */
  public static int murmur3Bucket(byte[] bytes, int off, int len, int buckets) {
    return Integer.remainderUnsigned(murmur3_32(bytes, off, len, MURMUR3_SEED), buckets);
  }

  /** Phoenix's row-key hash: h = 1, then h = 31 * h + b over signed bytes. */
  public static int phoenixHashCode(byte[] bytes, int off, int len) {
    int h = 1;
    for (int i = off; i < off + len; i++) {
      h = 31 * h + bytes[i];
    }
    return h;
  }

  /** Phoenix's salt byte: Math.abs(hash % buckets), buckets 1..256 (else -1). */
  public static int phoenixBucket(byte[] bytes, int off, int len, int buckets) {
    if (buckets < 1 || buckets > 256) {
      return NO_BUCKET;
    }
    return Math.abs(phoenixHashCode(bytes, off, len) % buckets);
  }

  /**
   * {@code new String(bytes, UTF_8).hashCode()} for well-formed UTF-8, decoded strictly (no
   * overlong forms, no surrogate code points, nothing above U+10FFFF, no stray or missing
   * continuation byte), as a long; {@link Long#MIN_VALUE} when the bytes are not well-formed
   * UTF-8 (presplit refuses such keys rather than imitate the JDK's replacement rules).
   */
  public static long javaStringHashCode(byte[] bytes, int off, int len) {
    int h = 0;
    int i = off;
    final int end = off + len;
    while (i < end) {
      final int b0 = bytes[i] & 0xff;
      if (b0 < 0x80) {
        h = 31 * h + b0;
        i++;
        continue;
      }
      int cp;
      int n;
      int min;
      if (b0 >= 0xC2 && b0 <= 0xDF) {
        cp = b0 & 0x1F;
        n = 2;
        min = 0x80;
      } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        cp = b0 & 0x0F;
        n = 3;
        min = 0x800;
      } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        cp = b0 & 0x07;
        n = 4;
        min = 0x10000;
      } else {
        return Long.MIN_VALUE;
      }
      if (end - i < n) {
        return Long.MIN_VALUE;
      }
      for (int j = 1; j < n; j++) {
        final int b = bytes[i + j] & 0xff;
        if ((b & 0xC0) != 0x80) {
          return Long.MIN_VALUE;
        }
        cp = (cp << 6) | (b & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return Long.MIN_VALUE;
      }
      if (cp < 0x10000) {
        h = 31 * h + cp;
      } else {
        final int v = cp - 0x10000;
        h = 31 * h + (0xD800 + (v >>> 10));
        h = 31 * h + (0xDC00 + (v & 0x3FF));
      }
      i += n;
    }
    return h;
  }

  /** The reference case's salt: Math.abs(String.hashCode() % buckets); -1 for non-UTF-8. */
  public static int javaHashCodeBucket(byte[] bytes, int off, int len, int buckets) {
    final long h = javaStringHashCode(bytes, off, len);
    if (h == Long.MIN_VALUE || buckets < 1) {
      return NO_BUCKET;
    }
    return Math.abs((int) h % buckets);
  }

  /** The bucket of {@code bytes[off, off + len)} under {@code hash}, or -1. */
  public static int bucket(SaltHash hash, byte[] bytes, int off, int len, int buckets) {
    switch (hash) {
      case MURMUR3:
        return murmur3Bucket(bytes, off, len, buckets);
      case PHOENIX:
        return phoenixBucket(bytes, off, len, buckets);
      case JAVA_HASHCODE:
        return javaHashCodeBucket(bytes, off, len, buckets);
      default:
        throw new AssertionError(hash);
    }
  }
}
