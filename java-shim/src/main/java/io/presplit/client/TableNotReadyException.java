package io.presplit.client;

import java.io.IOException;

/**
 * The table cannot be used yet (or any more): its status in ZooKeeper is missing or its phase is
 * not one the SDK writes to ({@code creating}, {@code invalid}, {@code error}, ...). The message
 * names the table, the phase and the daemon's error when there is one.
 */
public class TableNotReadyException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String phase;

  public TableNotReadyException(String message, String phase) {
    super(message);
    this.phase = phase;
  }

  /** The status phase, or null when there is no status. */
  public String phase() {
    return phase;
  }
}
