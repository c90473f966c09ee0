package io.presplit.client;

import java.util.Locale;

/** How a bucket number is written at the front of a row key: {@code layout.salt.encoding}. */
public enum SaltEncoding {
  /** One raw byte (at most 256 buckets). */
  BYTE("byte"),
  /** Zero-padded decimal digits. */
  DECIMAL("decimal"),
  /** Zero-padded lower-case hex digits. */
  HEX("hex");

  private final String documentName;

  SaltEncoding(String documentName) {
    this.documentName = documentName;
  }

  public String documentName() {
    return documentName;
  }

  int radix() {
    return this == HEX ? 16 : 10;
  }

  /** "byte", "decimal" or "hex", in any letter case. */
  public static SaltEncoding parse(String name) {
    for (SaltEncoding e : values()) {
      if (e.documentName.equals(name.toLowerCase(Locale.ROOT))) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown salt encoding '" + name + "' (expected one of byte, decimal, hex)");
  }
}
