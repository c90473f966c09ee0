package io.presplit.admin;

import java.time.Duration;

/** {@link PresplitAdmin#awaitApplied} ran out of time; it carries the last status read. */
public final class ApplyTimeoutException extends PresplitAdminException {
  private static final long serialVersionUID = 1L;

  private final transient TableStatus lastStatus;

  ApplyTimeoutException(String table, int version, Duration timeout, TableStatus last) {
    super("timed out after " + timeout.toMillis() + " ms waiting for presplitd to apply version "
        + version + " of the document of " + table + " (last status: "
        + (last == null ? "none" : "phase " + last.phase() + " of version "
            + last.configVersion()) + ")");
    this.lastStatus = last;
  }

  /** The last status read, null when there was none. */
  public TableStatus lastStatus() {
    return lastStatus;
  }
}
