package io.presplit.admin;

import java.util.List;

/** A put or plan of a document libpresplit refuses; nothing was written. */
public final class InvalidDocumentException extends PresplitAdminException {
  private static final long serialVersionUID = 1L;

  private final transient List<ValidationError> errors;

  InvalidDocumentException(List<ValidationError> errors) {
    super("document refused, nothing written: " + errors);
    this.errors = List.copyOf(errors);
  }

  /** The same errors as {@link PresplitAdmin#validate}. */
  public List<ValidationError> errors() {
    return errors;
  }
}
