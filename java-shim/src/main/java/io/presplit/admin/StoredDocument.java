package io.presplit.admin;

/** A table document as stored in ZooKeeper, with the znode version to compare-and-set against. */
public final class StoredDocument {
  private final String table;
  private final String json;
  private final int version;

  StoredDocument(String table, String json, int version) {
    this.table = table;
    this.json = json;
    this.version = version;
  }

  /** The znode's name: {@code namespace:qualifier}. */
  public String table() {
    return table;
  }

  /** The document's text as written. */
  public String json() {
    return json;
  }

  /** The znode's data version: pass it to {@link PresplitAdmin#put(String, int)}. */
  public int version() {
    return version;
  }
}
