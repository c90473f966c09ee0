package io.presplit.admin;

import java.util.List;

/** libpresplit's verdict on a table document ({@link PresplitAdmin#validate}). */
public final class ValidationResult {
  private final String table;
  private final String canonical;
  private final List<ValidationError> errors;

  ValidationResult(String table, String canonical, List<ValidationError> errors) {
    this.table = table;
    this.canonical = canonical;
    this.errors = List.copyOf(errors);
  }

  public boolean isValid() {
    return errors.isEmpty();
  }

  /** Why it was refused; empty when valid. The parser stops at the first error. */
  public List<ValidationError> errors() {
    return errors;
  }

  /**
   * The canonical document: every default written out, fields in a fixed order (what presplitd
   * compares and records). Null when invalid.
   */
  public String canonical() {
    return canonical;
  }

  /** The table the document describes, {@code namespace:qualifier}; null when invalid. */
  public String table() {
    return table;
  }

  @Override
  public String toString() {
    return isValid() ? "valid document of " + table : "invalid document: " + errors;
  }
}
