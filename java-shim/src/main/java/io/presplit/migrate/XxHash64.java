package io.presplit.migrate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64 (Yann Collet's xxHash, 64-bit variant) of a byte range, as its specification defines it
 * (little-endian reads, the five 64-bit primes). Written here rather than taken from a library so
 * the migration digest depends on nothing that could change under it; checked against the
 * reference implementation's published values in the unit tests.
 */
final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private XxHash64() {
  }

  static long hash(byte[] data, int off, int len, long seed) {
    int end = off + len;
    int p = off;
    long h;
    if (len >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      int limit = end - 32;
      do {
        v1 = round(v1, readLong(data, p));
        v2 = round(v2, readLong(data, p + 8));
        v3 = round(v3, readLong(data, p + 16));
        v4 = round(v4, readLong(data, p + 24));
        p += 32;
      } while (p <= limit);
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12)
          + Long.rotateLeft(v4, 18);
      h = mergeRound(h, v1);
      h = mergeRound(h, v2);
      h = mergeRound(h, v3);
      h = mergeRound(h, v4);
    } else {
      h = seed + P5;
    }
    h += len;
    while (p + 8 <= end) {
      h ^= round(0, readLong(data, p));
      h = Long.rotateLeft(h, 27) * P1 + P4;
      p += 8;
    }
    if (p + 4 <= end) {
      h ^= (readInt(data, p) & 0xFFFFFFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      p += 4;
    }
    while (p < end) {
      h ^= (data[p] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
      p++;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long mergeRound(long acc, long val) {
    acc ^= round(0, val);
    return acc * P1 + P4;
  }

  // Little-endian views of a byte[]: one bounds-checked 8- or 4-byte load instead of eight or
  // four byte loads and shifts (every cell of a migration is hashed twice: copy and verify).
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static long readLong(byte[] b, int i) {
    return (long) LONGS.get(b, i);
  }

  private static int readInt(byte[] b, int i) {
    return (int) INTS.get(b, i);
  }
}
