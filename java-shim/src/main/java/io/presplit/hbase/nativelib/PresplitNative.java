package io.presplit.hbase.nativelib;

/**
 * libpresplit's split decisions, through JNI ({@code libpresplit_jni}). Every method loads the
 * library on first use ({@link NativeLibrary#require()}) and reports every failure — a native
 * error, an invalid argument, a missing library — as a {@link NativeException}; nothing else is
 * thrown. The native method signatures are compiled into the C++ glue through the header
 * {@code javac -h} generates from this class, so a drift fails the build.
 */
public final class PresplitNative {
  /** Bumped with every change of the native methods; the library must report the same. */
  public static final int ABI_VERSION = 5;

  private PresplitNative() {
  }

  /** The size policy kind's number for a name ("stepping", "constant-size", ...). */
  public static int parseSizePolicy(String name) throws NativeException {
    NativeLibrary.require();
    return nParseSizePolicy(name);
  }

  /** The size above which a store (or the region, with overallFiles) makes a region split. */
  public static long splitSizeThreshold(SizeParams p, int tableRegionsOnServer)
      throws NativeException {
    NativeLibrary.require();
    return nSplitSizeThreshold(p.kind(), p.maxFileSize(), p.flushSize(), p.initialSize(),
        p.jitter(), p.jitterSeed(), p.overallFiles(), tableRegionsOnServer);
  }

  /** Whether a region with these store sizes should split by size. */
  public static boolean shouldSplitBySize(SizeParams p, int tableRegionsOnServer,
      long[] storeSizes) throws NativeException {
    NativeLibrary.require();
    return nShouldSplitBySize(p.kind(), p.maxFileSize(), p.flushSize(), p.initialSize(),
        p.jitter(), p.jitterSeed(), p.overallFiles(), tableRegionsOnServer, storeSizes);
  }

  /** Checks a layout as libpresplit does (bucket count, widths, names, group). */
  public static void validateLayout(LayoutSpec layout) throws NativeException {
    NativeLibrary.require();
    nValidateLayout(layout.saltBuckets(), layout.saltEncoding(), layout.saltWidth(),
        layout.saltHash(), layout.saltFrom(), layout.groupLength(), layout.groupDelimiter());
  }

  /**
   * The candidate snapped to a group boundary strictly inside [regionStart, regionEnd) (an empty
   * end is the end of the table), or null when the region has no valid split point (or the
   * candidate is empty). A candidate outside the region is an error.
   */
  public static byte[] snapSplitPoint(LayoutSpec layout, byte[] regionStart, byte[] regionEnd,
      byte[] candidate) throws NativeException {
    NativeLibrary.require();
    return nSnapSplitPoint(layout.saltBuckets(), layout.saltEncoding(), layout.saltWidth(),
        layout.saltHash(), layout.saltFrom(), layout.groupLength(), layout.groupDelimiter(),
        regionStart, regionEnd, candidate);
  }

  /**
   * The bucket of a logical key (group + rest, no salt) under a layout: 0..buckets-1, 0 for an
   * unsalted layout (libpresplit's {@code BucketOf}). A key that does not fit the layout (too
   * short for its group, no delimiter, or not UTF-8 for java-hashcode) is an error. One JNI call,
   * which validates the layout again each time.
   */
  public static int bucketOf(LayoutSpec layout, byte[] logicalKey) throws NativeException {
    NativeLibrary.require();
    return nBucketOf(layout.saltBuckets(), layout.saltEncoding(), layout.saltWidth(),
        layout.saltHash(), layout.saltFrom(), layout.groupLength(), layout.groupDelimiter(),
        logicalKey);
  }

  /**
   * {@link #bucketOf} for many keys in one JNI call (libpresplit's {@code BucketsOf}): writes
   * the bucket of keys[i] into out[i], or -1 when that key does not fit the layout. out must
   * have as many entries as keys; a null key is an error.
   */
  public static void bucketsOf(LayoutSpec layout, byte[][] keys, int[] out)
      throws NativeException {
    NativeLibrary.require();
    nBucketsOf(layout.saltBuckets(), layout.saltEncoding(), layout.saltWidth(),
        layout.saltHash(), layout.saltFrom(), layout.groupLength(), layout.groupDelimiter(), keys,
        out);
  }

  /**
   * Re-keys row keys from one layout to another in one JNI call (libpresplit's
   * {@code RekeyAll}, a re-salting migration's step): the row key under {@code to} of each row
   * key's logical key under {@code from} (its {@code from} salt stripped, not checked against the
   * hash). The first key that cannot be re-keyed (shorter than the old salt, or its logical key
   * does not fit the new layout) fails the whole call with an INVALID_ARGUMENT naming it; a null
   * key is an error.
   */
  public static byte[][] rekeyAll(LayoutSpec from, LayoutSpec to, byte[][] rowKeys)
      throws NativeException {
    NativeLibrary.require();
    return nRekeyAll(from.saltBuckets(), from.saltEncoding(), from.saltWidth(), from.saltHash(),
        from.saltFrom(), from.groupLength(), from.groupDelimiter(), to.saltBuckets(),
        to.saltEncoding(), to.saltWidth(), to.saltHash(), to.saltFrom(), to.groupLength(),
        to.groupDelimiter(), rowKeys);
  }

  /**
   * The candidate key that splits the sampled requests most evenly, or null when none is good
   * enough (too few requests, too unbalanced, or most requests span it). The arrays are
   * parallel: keys[i] counted left[i], right[i] and contained[i] requests.
   */
  public static LoadSplitChoice chooseLoadSplitKey(byte[][] keys, long[] left, long[] right,
      long[] contained, long minRequests, double maxImbalance, double maxContainedFraction)
      throws NativeException {
    NativeLibrary.require();
    return nChooseLoadSplitKey(keys, left, right, contained, minRequests, maxImbalance,
        maxContainedFraction);
  }

  /**
   * The key-group boundary of the region [regionStart, regionEnd) that splits the sampled
   * requests most evenly, judged by the sampled keys around each boundary (libpresplit's
   * {@code ChooseGroupSafeLoadSplitPoint}), or null when none is good enough. The key is already
   * a valid split point: no snapping needed. The arrays are parallel as for
   * {@link #chooseLoadSplitKey}.
   */
  public static LoadSplitChoice chooseGroupSafeLoadSplitPoint(LayoutSpec layout,
      byte[] regionStart, byte[] regionEnd, byte[][] keys, long[] left, long[] right,
      long[] contained, long minRequests, double maxImbalance, double maxContainedFraction)
      throws NativeException {
    NativeLibrary.require();
    return nChooseGroupSafeLoadSplitPoint(layout.saltBuckets(), layout.saltEncoding(),
        layout.saltWidth(), layout.saltHash(), layout.saltFrom(), layout.groupLength(),
        layout.groupDelimiter(), regionStart, regionEnd, keys, left, right, contained,
        minRequests, maxImbalance, maxContainedFraction);
  }

  /**
   * Parses and validates a table document with libpresplit's own parser (as presplitd and
   * {@code presplitctl put} do) and, when it is valid, computes its canonical form and split keys
   * (as {@code presplitctl plan}). An invalid document is a result, not an exception.
   *
   * @param utf8 the document's text in UTF-8
   */
  public static DocumentCheck checkTableDocument(byte[] utf8) throws NativeException {
    NativeLibrary.require();
    return nCheckTableDocument(utf8);
  }

  // The JNI surface. Only NativeLibrary and the wrappers above call these.

  static native int nAbiVersion();

  static native int nParseSizePolicy(String name) throws NativeException;

  static native long nSplitSizeThreshold(int kind, long maxFileSize, long flushSize,
      long initialSize, double jitter, long jitterSeed, boolean overallFiles,
      int tableRegionsOnServer) throws NativeException;

  static native boolean nShouldSplitBySize(int kind, long maxFileSize, long flushSize,
      long initialSize, double jitter, long jitterSeed, boolean overallFiles,
      int tableRegionsOnServer, long[] storeSizes) throws NativeException;

  static native void nValidateLayout(int saltBuckets, String saltEncoding, int saltWidth,
      String saltHash, String saltFrom, int groupLength, byte[] groupDelimiter)
      throws NativeException;

  static native byte[] nSnapSplitPoint(int saltBuckets, String saltEncoding, int saltWidth,
      String saltHash, String saltFrom, int groupLength, byte[] groupDelimiter,
      byte[] regionStart, byte[] regionEnd, byte[] candidate) throws NativeException;

  static native int nBucketOf(int saltBuckets, String saltEncoding, int saltWidth,
      String saltHash, String saltFrom, int groupLength, byte[] groupDelimiter,
      byte[] logicalKey) throws NativeException;

  static native void nBucketsOf(int saltBuckets, String saltEncoding, int saltWidth,
      String saltHash, String saltFrom, int groupLength, byte[] groupDelimiter, byte[][] keys,
      int[] out) throws NativeException;

  static native byte[][] nRekeyAll(int fromBuckets, String fromEncoding, int fromWidth,
      String fromHash, String fromFrom, int fromGroupLength, byte[] fromDelimiter, int toBuckets,
      String toEncoding, int toWidth, String toHash, String toFrom, int toGroupLength,
      byte[] toDelimiter, byte[][] rowKeys) throws NativeException;

  static native LoadSplitChoice nChooseLoadSplitKey(byte[][] keys, long[] left, long[] right,
      long[] contained, long minRequests, double maxImbalance, double maxContainedFraction)
      throws NativeException;

  static native LoadSplitChoice nChooseGroupSafeLoadSplitPoint(int saltBuckets,
      String saltEncoding, int saltWidth, String saltHash, String saltFrom, int groupLength,
      byte[] groupDelimiter, byte[] regionStart, byte[] regionEnd, byte[][] keys, long[] left,
      long[] right, long[] contained, long minRequests, double maxImbalance,
      double maxContainedFraction) throws NativeException;

  static native DocumentCheck nCheckTableDocument(byte[] utf8) throws NativeException;

  /** Test hook: raises a native error of the given code name from C++ (exception path tests). */
  static native void nRaiseForTest(String what) throws NativeException;
}
