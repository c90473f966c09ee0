package io.presplit.client;

/**
 * A write was refused by a read-only generation of the table (presplitd drains a generation
 * before a re-salting switch, and makes it read-only for that) and no status naming another
 * generation came in time to send it there. Nothing of the refused write was applied: retry it
 * later. The message names the logical table and the physical table that refused; the cause is
 * HBase's refusal.
 */
public class SwitchInProgressException extends TableNotReadyException {
  private static final long serialVersionUID = 1L;

  private final String refusingTable;

  SwitchInProgressException(String message, String phase, String refusingTable,
      Throwable cause) {
    super(message, phase);
    this.refusingTable = refusingTable;
    initCause(cause);
  }

  /** The physical table that refused the write ({@code ns:t} or {@code ns:t__gN}). */
  public String refusingTable() {
    return refusingTable;
  }
}
