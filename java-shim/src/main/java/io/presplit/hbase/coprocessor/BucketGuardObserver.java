package io.presplit.hbase.coprocessor;

import io.presplit.hbase.policy.PolicyConfig;
import io.presplit.hbase.policy.SaltBuckets;
import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Protects the salt buckets of presplit-managed tables on the HMaster
 * (hbase.coprocessor.master.classes): refuses a merge that would put rows of two salt buckets in
 * one region, and a split whose point lies inside a salt prefix (shorter than the prefix, or a
 * prefix that is no bucket), with a DoNotRetryIOException saying why. Tables without
 * {@code presplit.managed=true} and a salt ({@code presplit.layout.salt.buckets} &gt; 0) are not
 * touched. Pure Java: no native library needed on the master.
 */
public class BucketGuardObserver implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(BucketGuardObserver.class);

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preMergeRegions(ObserverContext<MasterCoprocessorEnvironment> ctx,
      RegionInfo[] regions) throws IOException {
    checkMerge(ctx.getEnvironment(), regions);
  }

  @Override
  public void preMergeRegionsAction(ObserverContext<MasterCoprocessorEnvironment> ctx,
      RegionInfo[] regions) throws IOException {
    checkMerge(ctx.getEnvironment(), regions);
  }

  @Override
  public void preSplitRegion(ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName table, byte[] splitRow) throws IOException {
    checkSplit(ctx.getEnvironment(), table, splitRow);
  }

  @Override
  public void preSplitRegionAction(ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName table, byte[] splitRow) throws IOException {
    checkSplit(ctx.getEnvironment(), table, splitRow);
  }

  private static SaltBuckets bucketsOf(MasterCoprocessorEnvironment env, TableName table)
      throws IOException {
    if (table == null || table.isSystemTable()) {
      return null;
    }
    TableDescriptor desc;
    try (Admin admin = env.getConnection().getAdmin()) {
      desc = admin.getDescriptor(table);
    }
    if (desc == null || !"true".equalsIgnoreCase(desc.getValue(PolicyConfig.MANAGED))) {
      return null;
    }
    PolicyConfig config = PolicyConfig.read(desc, null);
    if (config.layout().saltBuckets() <= 0) {
      return null;
    }
    try {
      return SaltBuckets.of(config.layout());
    } catch (IllegalArgumentException e) {
      LOG.warn("presplit: table {} is managed but its salt is invalid ({}); not guarding it",
          table, e.getMessage());
      return null;
    }
  }

  static void checkMerge(MasterCoprocessorEnvironment env, RegionInfo[] regions)
      throws IOException {
    if (regions == null || regions.length < 2) {
      return;
    }
    SaltBuckets buckets = bucketsOf(env, regions[0].getTable());
    if (buckets == null) {
      return;
    }
    byte[] start = regions[0].getStartKey();
    byte[] end = regions[0].getEndKey();
    for (RegionInfo r : regions) {
      if (Bytes.compareTo(r.getStartKey(), start) < 0) {
        start = r.getStartKey();
      }
      if (end.length > 0 && (r.getEndKey().length == 0 || Bytes.compareTo(r.getEndKey(), end) > 0)) {
        end = r.getEndKey();
      }
    }
    byte[] boundary = buckets.boundaryInside(start, end);
    if (boundary != null) {
      throw new DoNotRetryIOException("presplit: merge refused: table "
          + regions[0].getTable() + " is salted into " + buckets.count() + " buckets, and the "
          + "merged region [" + Bytes.toStringBinary(start) + ", " + Bytes.toStringBinary(end)
          + ") would join two buckets across the bucket boundary '"
          + Bytes.toStringBinary(boundary) + "'");
    }
  }

  static void checkSplit(MasterCoprocessorEnvironment env, TableName table, byte[] splitRow)
      throws IOException {
    if (splitRow == null || splitRow.length == 0) {
      return; // the RegionServer's policy chooses the point
    }
    SaltBuckets buckets = bucketsOf(env, table);
    if (buckets == null) {
      return;
    }
    String problem = buckets.splitProblem(splitRow);
    if (problem != null) {
      throw new DoNotRetryIOException("presplit: split refused: table " + table + ": split point '"
          + Bytes.toStringBinary(splitRow) + "' " + problem);
    }
  }
}
