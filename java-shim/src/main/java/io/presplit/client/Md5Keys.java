package io.presplit.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Helpers for the fixed-length hashed fields of existing key designs, such as the reference
 * case's {@code salt + MD5(query key) + id}: the 32 lower-case hex characters of a field's MD5
 * make a fixed-length group out of a variable-length key.
 */
public final class Md5Keys {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Md5Keys() {}

  /** The MD5 of {@code bytes} as 32 lower-case hex characters. */
  public static String md5Hex(byte[] bytes) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no MD5", e);
    }
    byte[] digest = md.digest(bytes);
    char[] out = new char[32];
    for (int i = 0; i < 16; i++) {
      out[2 * i] = HEX[(digest[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[digest[i] & 0xf];
    }
    return new String(out);
  }

  /** The MD5 of a string's UTF-8 bytes as 32 lower-case hex characters. */
  public static String md5Hex(String s) {
    return md5Hex(s.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code md5Hex(queryKey) + rest}: a logical key with a 32-byte group, as UTF-8 bytes. */
  public static byte[] hashedGroupKey(String queryKey, String rest) {
    return (md5Hex(queryKey) + rest).getBytes(StandardCharsets.UTF_8);
  }
}
