package io.presplit.client;

/**
 * A key that does not fit the table's layout: shorter than the group length, without the group
 * delimiter, not well-formed UTF-8 under the java-hashcode salt, a row key whose salt is not a
 * bucket or disagrees with the hash, or a layout that is not valid. Nothing was sent to HBase.
 */
public class KeyLayoutException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public KeyLayoutException(String message) {
    super(message);
  }
}
