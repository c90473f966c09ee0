package io.presplit.hbase.coprocessor;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.wal.WALEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the row keys of a region's gets, puts, deletes and scan starts into a
 * {@link RegionLoadSampler}, which {@code NativeSplitPolicy} reads to find the key that splits
 * the region's request load evenly. Pure Java, no native code on the request path. Load it on a
 * table (table coprocessor attribute) or on every region (hbase.coprocessor.region.classes).
 * Configuration: presplit.load.sampler.shards (8), presplit.load.sampler.capacity (20),
 * presplit.load.sampler.every (4: one request in four is recorded, to keep the write path cheap),
 * presplit.load.sampler.half-life-ms (60000: counts halve every minute, so the split point follows
 * the current load; 0 keeps them from the region's opening on).
 * The RegionServer's samplers are summed in the JMX bean {@value LoadSamplerStats#OBJECT_NAME}.
 */
public class LoadSamplingObserver implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(LoadSamplingObserver.class);
  public static final String SHARDS_KEY = "presplit.load.sampler.shards";
  public static final String SAMPLE_EVERY_KEY = "presplit.load.sampler.every";
  public static final String CAPACITY_KEY = "presplit.load.sampler.capacity";
  public static final String HALF_LIFE_MS_KEY = "presplit.load.sampler.half-life-ms";

  private volatile RegionLoadSampler sampler;
  private volatile String encodedName;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(CoprocessorEnvironment env) throws IOException {
    if (!(env instanceof RegionCoprocessorEnvironment)) {
      LOG.warn("presplit: LoadSamplingObserver is a region coprocessor; loaded elsewhere, it "
          + "does nothing");
      return;
    }
    RegionCoprocessorEnvironment renv = (RegionCoprocessorEnvironment) env;
    int shards = Math.max(1, env.getConfiguration().getInt(SHARDS_KEY,
        RegionLoadSampler.DEFAULT_SHARDS));
    int capacity = Math.max(1, env.getConfiguration().getInt(CAPACITY_KEY,
        RegionLoadSampler.DEFAULT_CAPACITY));
    LoadSamplerRegistry.setOnlineRegions(renv.getOnlineRegions());
    encodedName = renv.getRegionInfo().getEncodedName();
    int every = Math.max(1, env.getConfiguration().getInt(SAMPLE_EVERY_KEY,
        RegionLoadSampler.DEFAULT_SAMPLE_EVERY));
    long halfLifeMs = Math.max(0L, env.getConfiguration().getLong(HALF_LIFE_MS_KEY,
        RegionLoadSampler.DEFAULT_HALF_LIFE_MS));
    sampler = new RegionLoadSampler(shards, capacity, every, halfLifeMs,
        System::currentTimeMillis);
    LoadSamplerRegistry.register(encodedName, sampler);
    LoadSamplerStats.registerOnce();
  }

  @Override
  public void stop(CoprocessorEnvironment env) throws IOException {
    RegionLoadSampler s = sampler;
    if (s != null) {
      LoadSamplerRegistry.unregister(encodedName, s);
    }
  }

  @Override
  public void postClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested) {
    RegionLoadSampler s = sampler;
    if (s != null) {
      LoadSamplerRegistry.unregister(encodedName, s);
    }
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get,
      List<Cell> result) {
    RegionLoadSampler s = sampler;
    if (s != null) {
      s.recordPoint(get.getRow());
    }
  }

  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, Put put, WALEdit edit) {
    RegionLoadSampler s = sampler;
    if (s != null) {
      s.recordPoint(put.getRow());
    }
  }

  @Override
  public void preDelete(ObserverContext<RegionCoprocessorEnvironment> c, Delete delete,
      WALEdit edit) {
    RegionLoadSampler s = sampler;
    if (s != null) {
      s.recordPoint(delete.getRow());
    }
  }

  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan) {
    RegionLoadSampler s = sampler;
    if (s != null) {
      s.recordRange(scan.getStartRow(), scan.getStopRow());
    }
  }

  /** This region's sampler (tests). */
  public RegionLoadSampler sampler() {
    return sampler;
  }
}
