package io.presplit.client;

import java.util.Locale;

/** How writers compute a key's bucket: the table document's {@code layout.salt.hash}. */
public enum SaltHash {
  MURMUR3("murmur3"),
  PHOENIX("phoenix"),
  JAVA_HASHCODE("java-hashcode");

  private final String documentName;

  SaltHash(String documentName) {
    this.documentName = documentName;
  }

  /** The name the table document uses. */
  public String documentName() {
    return documentName;
  }

  /** "murmur3", "phoenix" or "java-hashcode", in any letter case. */
  public static SaltHash parse(String name) {
    for (SaltHash h : values()) {
      if (h.documentName.equals(name.toLowerCase(Locale.ROOT))) {
        return h;
      }
    }
    throw new IllegalArgumentException(
        "unknown salt hash '" + name + "' (expected one of murmur3, phoenix, java-hashcode)");
  }
}
