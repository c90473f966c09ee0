package io.presplit.hbase.policy;

import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.SteppingSplitPolicy;

/**
 * HBase's own SteppingSplitPolicy, configured for the same region as the presplit policy that
 * owns it, with its protected decisions made callable. What presplit does whenever it cannot
 * decide itself (library absent, native error, invalid parameter): exactly HBase's default.
 */
public final class SteppingFallback extends SteppingSplitPolicy {
  public void configure(HRegion region) {
    configureForRegion(region);
  }

  public boolean decideShouldSplit() {
    return shouldSplit();
  }

  public byte[] decideSplitPoint() {
    return getSplitPoint();
  }
}
