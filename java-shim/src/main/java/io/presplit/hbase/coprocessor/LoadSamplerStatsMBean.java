package io.presplit.hbase.coprocessor;

/**
 * The load samplers of this RegionServer, summed over its regions, as JMX attributes of
 * {@value LoadSamplerStats#OBJECT_NAME}: an operator (or a benchmark) can see that
 * LoadSamplingObserver is loaded and counting without reading the RegionServer's memory. The
 * sums cover the regions open now; a closed region's counts leave with it.
 */
public interface LoadSamplerStatsMBean {
  /** Regions with a sampler registered (LoadSamplingObserver loaded and the region open). */
  int getSampledRegions();

  /** Requests the samplers have seen (every get, put, delete and scan start). */
  long getRequests();

  /** Requests drawn for recording (one in presplit.load.sampler.every), busy ones included. */
  long getRecordedRequests();

  /** Requests drawn but not counted because their shard was busy. */
  long getSkippedRequests();
}
