package io.presplit.hbase.nativelib;

/**
 * The size-based split parameters of one region, as libpresplit's {@code SizePolicyParams}.
 *
 * @param kind a size policy kind from {@link PresplitNative#parseSizePolicy(String)}
 * @param maxFileSize the table's MAX_FILESIZE, else hbase.hregion.max.filesize
 * @param flushSize the table's MEMSTORE_FLUSHSIZE, else hbase.hregion.memstore.flush.size
 * @param initialSize hbase.increasing.policy.initial.size, else 2 x flushSize
 * @param jitter hbase.hregion.max.filesize.jitter (HBase: 0.25)
 * @param jitterSeed the seed of this region's jitter draw (fixed for the region's lifetime)
 * @param overallFiles hbase.hregion.split.overallfiles: compare the sum of the stores
 */
public record SizeParams(int kind, long maxFileSize, long flushSize, long initialSize,
    double jitter, long jitterSeed, boolean overallFiles) {
}
