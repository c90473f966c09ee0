package io.presplit.hbase;

import io.presplit.hbase.coprocessor.LoadSamplerRegistry;
import io.presplit.hbase.coprocessor.RegionLoadSampler;
import io.presplit.hbase.nativelib.LoadSplitChoice;
import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.hbase.nativelib.SizeParams;
import io.presplit.hbase.policy.PolicyConfig;
import io.presplit.hbase.policy.SteppingFallback;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.RegionSplitPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * presplit's split policy: a thin RegionSplitPolicy whose decisions come from libpresplit
 * through JNI.
 * <ul>
 *   <li>When: libpresplit's size modes (table attribute {@code presplit.split.size-policy}:
 *       stepping by default, constant-size, increasing-to-upper-bound) with HBase's inputs and
 *       defaults (MAX_FILESIZE / hbase.hregion.max.filesize, MEMSTORE_FLUSHSIZE /
 *       hbase.hregion.memstore.flush.size, hbase.increasing.policy.initial.size,
 *       hbase.hregion.max.filesize.jitter, hbase.hregion.split.overallfiles).</li>
 *   <li>Where: the key that splits the region's sampled requests evenly (LoadSamplingObserver)
 *       when there are enough samples, else the largest store's mid key; always snapped to a
 *       group boundary of the table's key layout strictly inside the region. No valid point: no
 *       split.</li>
 *   <li>Any native error, a missing library or an invalid parameter: logs once for the region,
 *       at WARN, why, and behaves exactly like HBase's SteppingSplitPolicy from then on.</li>
 * </ul>
 * Safe to load on the HMaster (which instantiates policies without a region): nothing native is
 * touched before {@link #configureForRegion}.
 */
public class NativeSplitPolicy extends RegionSplitPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(NativeSplitPolicy.class);

  private final SteppingFallback fallback = new SteppingFallback();
  private PolicyConfig config;
  private SizeParams sizeParams;
  private volatile String fallbackReason; // non-null: delegate everything to the fallback
  private String regionName = "?";

  @Override
  protected void configureForRegion(HRegion region) {
    super.configureForRegion(region);
    fallback.setConf(getConf());
    fallback.configure(region);
    regionName = region.getRegionInfo().getRegionNameAsString();
    try {
      TableDescriptor desc = region.getTableDescriptor();
      Configuration conf = getConf();
      config = PolicyConfig.read(desc, conf);
      for (String warning : config.warnings()) {
        LOG.warn("presplit: region {}: {}", regionName, warning);
      }
      if (!config.errors().isEmpty()) {
        fallBack("invalid parameter: " + String.join("; ", config.errors()));
        return;
      }
      int kind = PresplitNative.parseSizePolicy(config.sizePolicy());
      sizeParams = sizeParams(kind, desc, conf);
      // Validates the layout parameters once, up front, so a broken table says so at open.
      PresplitNative.validateLayout(config.layout());
      LOG.info("presplit: region {} split by presplit (size policy {}, layout {})", regionName,
          config.sizePolicy(), describe(config));
    } catch (NativeException e) {
      fallBack(e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      fallBack(e.toString());
    }
  }

  private static SizeParams sizeParams(int kind, TableDescriptor desc, Configuration conf) {
    long maxFileSize = desc == null ? -1 : desc.getMaxFileSize();
    if (maxFileSize <= 0) {
      maxFileSize = conf.getLong(HConstants.HREGION_MAX_FILESIZE,
          HConstants.DEFAULT_MAX_FILE_SIZE);
    }
    long flushSize = desc == null ? -1 : desc.getMemStoreFlushSize();
    if (flushSize <= 0) {
      flushSize = conf.getLong(HConstants.HREGION_MEMSTORE_FLUSH_SIZE,
          TableDescriptorBuilder.DEFAULT_MEMSTORE_FLUSH_SIZE);
    }
    long initialSize = conf.getLong("hbase.increasing.policy.initial.size", -1);
    if (initialSize <= 0) {
      initialSize = 2 * flushSize;
    }
    double jitter = conf.getDouble("hbase.hregion.max.filesize.jitter", 0.25D);
    boolean overall = conf.getBoolean("hbase.hregion.split.overallfiles", false);
    return new SizeParams(kind, maxFileSize, flushSize, initialSize, jitter,
        ThreadLocalRandom.current().nextLong(), overall);
  }

  private void fallBack(String reason) {
    if (fallbackReason == null) {
      fallbackReason = reason;
      LOG.warn("presplit: region {} falls back to HBase's SteppingSplitPolicy: {}", regionName,
          reason);
    }
  }

  /** Why this region uses HBase's SteppingSplitPolicy, or null when presplit decides. */
  public String fallbackReason() {
    return fallbackReason;
  }

  /**
   * Set by {@link #shouldSplit} when the region outgrew its size, read by the
   * {@link #getSplitPoint} that follows on the same thread: without it, the split point was asked
   * for an explicit split request.
   */
  private final ThreadLocal<Boolean> sizeSplitDue = ThreadLocal.withInitial(() -> false);

  @Override
  protected boolean shouldSplit() {
    if (fallbackReason != null) {
      return fallback.decideShouldSplit();
    }
    try {
      if (!canSplit()) {
        return false;
      }
      List<HStore> stores = region.getStores();
      long[] sizes = new long[stores.size()];
      for (int i = 0; i < sizes.length; i++) {
        sizes[i] = stores.get(i).getSize();
      }
      boolean split = PresplitNative.shouldSplitBySize(sizeParams, tableRegionsOnServer(), sizes);
      sizeSplitDue.set(split);
      return split;
    } catch (NativeException e) {
      fallBack(e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      fallBack(e.toString());
    }
    return fallback.decideShouldSplit();
  }

  @Override
  protected byte[] getSplitPoint() {
    if (fallbackReason != null) {
      return fallback.decideSplitPoint();
    }
    // HBase asks for a split point after shouldSplit() said yes (the region outgrew its size), or
    // directly for an explicit split request without a point (Admin.split: what presplitd's load
    // watcher sends for a hot region).
    final boolean requested = !sizeSplitDue.get();
    sizeSplitDue.set(false);
    try {
      RegionInfo info = region.getRegionInfo();
      byte[] start = info.getStartKey();
      byte[] end = info.getEndKey();
      byte[] loadPoint = loadBalancedPoint(start, end);
      if (loadPoint != null) {
        return loadPoint;
      }
      if (requested && loadSampled()) {
        // A split asked for without a point is asked for the load; when the sampled requests
        // have no balanced key (one hot key, or requests spanning every candidate), the size
        // midpoint would not divide the load: refuse, and the master says so to the caller.
        if (LOG.isInfoEnabled()) {
          LOG.info("presplit: region {}: split requested, but its sampled requests give no "
              + "balanced split key; not splitting", regionName);
        }
        return null;
      }
      byte[] midKey = super.getSplitPoint();
      if (midKey == null || midKey.length == 0) {
        return null;
      }
      byte[] snapped = PresplitNative.snapSplitPoint(config.layout(), start, end, midKey);
      // Guarded: toStringBinary runs on every split check otherwise, logged or not.
      if (snapped == null) {
        if (LOG.isInfoEnabled()) {
          LOG.info("presplit: region {}: no group boundary inside the region near {}; not "
              + "splitting", regionName, Bytes.toStringBinary(midKey));
        }
      } else if (LOG.isDebugEnabled()) {
        LOG.debug("presplit: region {}: size split point {} (mid key {})", regionName,
            Bytes.toStringBinary(snapped), Bytes.toStringBinary(midKey));
      }
      return snapped;
    } catch (NativeException e) {
      fallBack(e.getMessage());
    } catch (RuntimeException | LinkageError e) {
      fallBack(e.toString());
    }
    return fallback.decideSplitPoint();
  }

  /** Whether this region's sampler has recorded enough requests to judge its load. */
  private boolean loadSampled() {
    if (!config.loadEnabled()) {
      return false;
    }
    RegionLoadSampler sampler =
        LoadSamplerRegistry.get(region.getRegionInfo().getEncodedName());
    return sampler != null && sampler.recorded() >= config.loadMinRequests();
  }

  /**
   * The key-group boundary of [start, end) that best balances this region's sampled requests
   * (libpresplit judges each boundary by the sampled keys around it), or null.
   */
  private byte[] loadBalancedPoint(byte[] start, byte[] end) throws NativeException {
    if (!config.loadEnabled()) {
      return null;
    }
    RegionLoadSampler sampler =
        LoadSamplerRegistry.get(region.getRegionInfo().getEncodedName());
    if (sampler == null) {
      return null;
    }
    RegionLoadSampler.Snapshot s = sampler.snapshot();
    if (s.size() == 0) {
      return null;
    }
    LoadSplitChoice choice = PresplitNative.chooseGroupSafeLoadSplitPoint(config.layout(), start,
        end, s.keys(), s.left(), s.right(), s.contained(), config.loadMinRequests(),
        config.loadMaxImbalance(), config.loadMaxContainedFraction());
    if (choice == null) {
      LOG.debug("presplit: region {}: {} sampled requests give no balanced split point",
          regionName, s.requests());
      return null;
    }
    if (LOG.isInfoEnabled()) {
      LOG.info("presplit: region {}: load-balanced split point {} (estimated imbalance {}, "
          + "contained {}, {} requests)", regionName, Bytes.toStringBinary(choice.key()),
          String.format("%.3f", choice.imbalance()),
          String.format("%.3f", choice.containedFraction()), choice.requests());
    }
    return choice.key();
  }

  /**
   * HBase's count: this table's default-replica regions on this RegionServer (0 when unknown, as
   * in HBase's tests). Read through the public OnlineRegions a region coprocessor sees, else
   * through HRegion's RegionServerServices (not public API: reflection, looked up once).
   */
  private int tableRegionsOnServer() {
    TableName table = region.getTableDescriptor().getTableName();
    try {
      OnlineRegions online = LoadSamplerRegistry.onlineRegions();
      if (online == null) {
        online = regionServerServices(region);
      }
      if (online == null) {
        return 0;
      }
      List<? extends Region> regions = online.getRegions(table);
      if (regions == null) {
        return 0;
      }
      int count = 0;
      for (Region r : regions) {
        if (r.getRegionInfo().getReplicaId() == RegionInfo.DEFAULT_REPLICA_ID) {
          count++;
        }
      }
      return count;
    } catch (IOException | RuntimeException e) {
      LOG.debug("presplit: region {}: could not count the table's regions", regionName, e);
      return 0;
    }
  }

  private static volatile Method rssGetter;
  private static volatile boolean rssGetterFailed;

  private static OnlineRegions regionServerServices(HRegion region) {
    if (rssGetterFailed) {
      return null;
    }
    try {
      Method m = rssGetter;
      if (m == null) {
        m = HRegion.class.getDeclaredMethod("getRegionServerServices");
        m.setAccessible(true);
        rssGetter = m;
      }
      return (OnlineRegions) m.invoke(region);
    } catch (ReflectiveOperationException | RuntimeException e) {
      rssGetterFailed = true;
      LOG.warn("presplit: cannot count a table's regions on this RegionServer ({}); load "
          + "LoadSamplingObserver on the table to provide them", e.toString());
      return null;
    }
  }

  private static String describe(PolicyConfig c) {
    StringBuilder b = new StringBuilder();
    if (c.layout().saltBuckets() > 0) {
      b.append("salt ").append(c.layout().saltBuckets()).append(' ')
          .append(c.layout().saltEncoding());
    }
    if (c.layout().groupLength() > 0) {
      b.append(b.length() > 0 ? ", " : "").append("group length ")
          .append(c.layout().groupLength());
    }
    if (c.layout().groupDelimiter() != null) {
      b.append(b.length() > 0 ? ", " : "").append("group delimiter ")
          .append(Bytes.toStringBinary(c.layout().groupDelimiter()));
    }
    return b.length() == 0 ? "none" : b.toString();
  }

  @Override
  public String toString() {
    return "NativeSplitPolicy{" + (fallbackReason != null ? "fallback=" + fallback : "config="
        + sizeParams) + "}";
  }
}
