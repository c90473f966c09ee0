package io.presplit.admin;

/**
 * A compare-and-set put whose expected version is no longer the stored one: someone else wrote
 * (or removed) the document since it was read. Nothing was written.
 */
public final class VersionConflictException extends PresplitAdminException {
  private static final long serialVersionUID = 1L;

  private final String table;
  private final int expectedVersion;
  private final int currentVersion;

  VersionConflictException(String table, int expectedVersion, int currentVersion) {
    super("the document of " + table + " is at version "
        + (currentVersion == PresplitAdmin.NEW ? "none (no document)" : currentVersion)
        + ", not the expected "
        + (expectedVersion == PresplitAdmin.NEW ? "none (a new document)" : expectedVersion)
        + "; nothing written: read it again (get) and retry");
    this.table = table;
    this.expectedVersion = expectedVersion;
    this.currentVersion = currentVersion;
  }

  public String table() {
    return table;
  }

  public int expectedVersion() {
    return expectedVersion;
  }

  /** The stored version now, {@link PresplitAdmin#NEW} (-1) when there is no document. */
  public int currentVersion() {
    return currentVersion;
  }
}
