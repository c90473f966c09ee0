package io.presplit.admin;

/** One reason a table document was refused, as libpresplit's parser gives it. */
public final class ValidationError {
  private final String pointer;
  private final String message;

  public ValidationError(String pointer, String message) {
    this.pointer = pointer;
    this.message = message;
  }

  /**
   * The JSON Pointer (RFC 6901) of the offending field, e.g. {@code /layout/salt/buckets} or
   * {@code /families/0/name}; {@code ""} when the error is about the whole document (malformed
   * JSON, too large, not an object).
   */
  public String pointer() {
    return pointer;
  }

  /** What is wrong with it, e.g. "must be between 1 and 256 for byte encoding (got 0)". */
  public String message() {
    return message;
  }

  /** {@code pointer: message}, or the message alone for the whole document. */
  @Override
  public String toString() {
    return pointer.isEmpty() ? message : pointer + ": " + message;
  }
}
