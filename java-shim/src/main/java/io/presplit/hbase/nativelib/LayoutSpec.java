package io.presplit.hbase.nativelib;

/**
 * A table's row-key layout as its descriptor states it, validated by libpresplit
 * ({@code LayoutFromConfig}) on every use.
 *
 * @param saltBuckets 0 = no salt
 * @param saltEncoding "byte" | "decimal" | "hex"
 * @param saltWidth 0 = the minimum width for the bucket count
 * @param saltHash "murmur3" | "phoenix" | "java-hashcode"
 * @param saltFrom "group" | "key"
 * @param groupLength 0 = no fixed-length group
 * @param groupDelimiter null = no delimited group (raw bytes otherwise)
 */
public record LayoutSpec(int saltBuckets, String saltEncoding, int saltWidth, String saltHash,
    String saltFrom, int groupLength, byte[] groupDelimiter) {

  /** No salt and no group: every key is a valid split point. */
  public static LayoutSpec none() {
    return new LayoutSpec(0, "byte", 0, "murmur3", "group", 0, null);
  }
}
