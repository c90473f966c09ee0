package io.presplit.hbase.nativelib;

/** The load-balanced split key libpresplit chose from a region's request samples. */
public final class LoadSplitChoice {
  private final byte[] key;
  private final double imbalance;
  private final double containedFraction;
  private final long requests;

  /** Called from native code (constructor ID cached at load time): keep the signature. */
  public LoadSplitChoice(byte[] key, double imbalance, double containedFraction, long requests) {
    this.key = key;
    this.imbalance = imbalance;
    this.containedFraction = containedFraction;
    this.requests = requests;
  }

  public byte[] key() {
    return key;
  }

  /** |left - right| / (left + right) of the chosen candidate. */
  public double imbalance() {
    return imbalance;
  }

  /** contained / (left + right + contained) of the chosen candidate. */
  public double containedFraction() {
    return containedFraction;
  }

  /** The requests counted for the chosen candidate. */
  public long requests() {
    return requests;
  }
}
