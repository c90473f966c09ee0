package io.presplit.admin;

/** One of presplitd's load split decisions kept in a status's {@code load.decisions}. */
public final class LoadDecision {
  private final long timeMs;
  private final String physicalTable;
  private final String region;
  private final String splitKey;
  private final double requestsPerS;
  private final String action;
  private final String reason;

  LoadDecision(long timeMs, String physicalTable, String region, String splitKey,
      double requestsPerS, String action, String reason) {
    this.timeMs = timeMs;
    this.physicalTable = physicalTable;
    this.region = region;
    this.splitKey = splitKey;
    this.requestsPerS = requestsPerS;
    this.action = action;
    this.reason = reason;
  }

  public long timeMs() {
    return timeMs;
  }

  public String physicalTable() {
    return physicalTable;
  }

  /** The region's encoded name. */
  public String region() {
    return region;
  }

  /** The point presplitd computed (toStringBinary form), null when the RegionServer chose it. */
  public String splitKey() {
    return splitKey;
  }

  public double requestsPerS() {
    return requestsPerS;
  }

  /** {@code split}, or the skip: {@code dry_run}, {@code cooldown}, {@code region_budget}... */
  public String action() {
    return action;
  }

  public String reason() {
    return reason;
  }
}
