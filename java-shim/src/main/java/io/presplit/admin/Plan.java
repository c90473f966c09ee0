package io.presplit.admin;

import java.util.ArrayList;
import java.util.List;

/** The regions a valid document creates ({@link PresplitAdmin#plan}), as presplitctl plan. */
public final class Plan {
  private final String table;
  private final List<byte[]> splitKeys;
  private final List<String> notes;

  Plan(String table, byte[][] splitKeys, String[] notes) {
    this.table = table;
    List<byte[]> keys = new ArrayList<>(splitKeys.length);
    for (byte[] k : splitKeys) {
      keys.add(k.clone());
    }
    this.splitKeys = keys;
    this.notes = List.of(notes);
  }

  public String table() {
    return table;
  }

  /** The split keys the table is created with, in order; copies on every call. */
  public List<byte[]> splitKeys() {
    List<byte[]> out = new ArrayList<>(splitKeys.size());
    for (byte[] k : splitKeys) {
      out.add(k.clone());
    }
    return out;
  }

  /** The number of regions: split keys + 1. */
  public int regions() {
    return splitKeys.size() + 1;
  }

  /** Notes of the split, e.g. that a sample had too few distinct keys for the regions asked. */
  public List<String> notes() {
    return notes;
  }
}
