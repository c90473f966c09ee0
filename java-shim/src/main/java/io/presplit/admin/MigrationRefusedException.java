package io.presplit.admin;

/**
 * A migration request presplitctl would refuse too: no migration under way, an abort after the
 * switch, a rollback outside catching_up and grace. Nothing was written.
 */
public final class MigrationRefusedException extends PresplitAdminException {
  private static final long serialVersionUID = 1L;

  MigrationRefusedException(String message) {
    super(message);
  }
}
