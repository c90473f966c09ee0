package io.presplit.hbase.coprocessor;

import java.util.Collection;
import java.util.Collections;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;

/**
 * The samplers of the regions open on this RegionServer, by encoded region name: the sampling
 * coprocessor registers one when a region opens and removes it when the region closes; the split
 * policy reads it when the region is asked for a split point.
 */
public final class LoadSamplerRegistry {
  private static final ConcurrentHashMap<String, RegionLoadSampler> SAMPLERS =
      new ConcurrentHashMap<>();

  private static volatile OnlineRegions onlineRegions;

  private LoadSamplerRegistry() {
  }

  /** The RegionServer's online regions, as the sampling coprocessor saw them (null: unknown). */
  public static OnlineRegions onlineRegions() {
    return onlineRegions;
  }

  static void setOnlineRegions(OnlineRegions regions) {
    if (regions != null) {
      onlineRegions = regions;
    }
  }

  public static void register(String encodedRegionName, RegionLoadSampler sampler) {
    SAMPLERS.put(encodedRegionName, sampler);
  }

  /** Removes the region's sampler if it is still this one. */
  public static void unregister(String encodedRegionName, RegionLoadSampler sampler) {
    SAMPLERS.remove(encodedRegionName, sampler);
  }

  /** The region's sampler, or null when the region has none. */
  public static RegionLoadSampler get(String encodedRegionName) {
    return SAMPLERS.get(encodedRegionName);
  }

  public static int size() {
    return SAMPLERS.size();
  }

  /** The registered samplers (a live, unmodifiable view). */
  public static Collection<RegionLoadSampler> samplers() {
    return Collections.unmodifiableCollection(SAMPLERS.values());
  }
}
