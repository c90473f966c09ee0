package io.presplit.client;

/**
 * What every presplit ZooKeeper client sets of its session the same way: the writers' SDK
 * ({@link PresplitTables.Options}) and the portal's admin API
 * ({@code io.presplit.admin.PresplitAdmin.Options}). Each adds its own credentials (a reader's
 * identity; an administrator's, with the ACLs of what it creates) and settings.
 *
 * @param <T> the options class itself, which every setter returns
 */
public abstract class ZkSessionOptions<T extends ZkSessionOptions<T>> {
  private int sessionTimeoutMs = 30_000;
  private int connectTimeoutMs = 30_000;

  /** ZooKeeper session timeout (default 30 s). */
  public T sessionTimeoutMs(int ms) {
    this.sessionTimeoutMs = ms;
    return self();
  }

  /**
   * How long opening the client (and a reconnection after an expired session) waits for
   * ZooKeeper (default 30 s).
   */
  public T connectTimeoutMs(int ms) {
    this.connectTimeoutMs = ms;
    return self();
  }

  public int sessionTimeoutMs() {
    return sessionTimeoutMs;
  }

  public int connectTimeoutMs() {
    return connectTimeoutMs;
  }

  /** {@code this}, as the options class: what the setters return. */
  protected abstract T self();
}
