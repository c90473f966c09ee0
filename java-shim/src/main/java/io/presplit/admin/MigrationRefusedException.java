package io.presplit.admin;

/**
 * A migration request refused before it was written, by presplitd's phase table as presplitctl
 * refuses it (MigrationPhases): no migration under way, an abort after the switch, a rollback
 * before it or after the fence, a pause of a failed verification. Nothing was written.
 */
public final class MigrationRefusedException extends PresplitAdminException {
  private static final long serialVersionUID = 1L;

  MigrationRefusedException(String message) {
    super(message);
  }
}
