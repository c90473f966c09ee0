package io.presplit.hbase.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JNI surface, every entry point and every error path. Runs with -Xcheck:jni (pom), so a
 * JNI misuse in the glue (a call with an exception pending, a leaked local reference in a loop,
 * a wrong signature) fails or warns here.
 */
class PresplitNativeTest {
  private static final int STEPPING = 2;
  private static final long MB = 1L << 20;

  @BeforeAll
  static void load() throws NativeException {
    NativeLibrary.require();
    assertNotNull(NativeLibrary.source());
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
  }

  private static SizeParams stepping(long max, long flush) {
    return new SizeParams(STEPPING, max, flush, 2 * flush, 0.0, 7, false);
  }

  private static NativeException fails(String code, Executable e) {
    NativeException ex = assertThrows(NativeException.class, e::run);
    assertEquals(code, ex.code(), ex.getMessage());
    return ex;
  }

  interface Executable {
    void run() throws Exception;
  }

  @Test
  void abiMatches() {
    assertEquals(PresplitNative.ABI_VERSION, PresplitNative.nAbiVersion());
  }

  @Test
  void sizePolicyNames() throws Exception {
    assertEquals(STEPPING, PresplitNative.parseSizePolicy("stepping"));
    assertEquals(0, PresplitNative.parseSizePolicy("constant-size"));
    assertEquals(1, PresplitNative.parseSizePolicy("IncreasingToUpperBoundRegionSplitPolicy"));
    NativeException e = fails("INVALID_ARGUMENT", () -> PresplitNative.parseSizePolicy("fast"));
    assertTrue(e.getMessage().contains("stepping"), e.getMessage());
    fails("INVALID_ARGUMENT", () -> PresplitNative.parseSizePolicy(null));
    fails("INVALID_ARGUMENT", () -> PresplitNative.parseSizePolicy(""));
  }

  @Test
  void steppingThresholdsAsHBase() throws Exception {
    SizeParams p = stepping(1024 * MB, 16 * MB);
    assertEquals(32 * MB, PresplitNative.splitSizeThreshold(p, 1));
    assertEquals(1024 * MB, PresplitNative.splitSizeThreshold(p, 2));
    assertEquals(1024 * MB, PresplitNative.splitSizeThreshold(p, 0));
    assertTrue(PresplitNative.shouldSplitBySize(p, 1, new long[] {1, 33 * MB}));
    assertFalse(PresplitNative.shouldSplitBySize(p, 1, new long[] {32 * MB}));
    assertFalse(PresplitNative.shouldSplitBySize(p, 2, new long[] {33 * MB}));
    assertFalse(PresplitNative.shouldSplitBySize(p, 1, new long[0]));
  }

  @Test
  void sizeErrors() {
    SizeParams bad = new SizeParams(7, 1, 1, 1, 0, 0, false);
    fails("INVALID_ARGUMENT", () -> PresplitNative.splitSizeThreshold(bad, 1));
    fails("INVALID_ARGUMENT", () -> PresplitNative.shouldSplitBySize(bad, 1, new long[] {1}));
    SizeParams p = stepping(MB, MB);
    fails("INVALID_ARGUMENT", () -> PresplitNative.shouldSplitBySize(p, 1, null));
    fails("INVALID_ARGUMENT", () -> PresplitNative.shouldSplitBySize(p, -1, new long[] {1}));
    fails("INVALID_ARGUMENT", () -> PresplitNative.splitSizeThreshold(p, -1));
  }

  private static LayoutSpec delimited(String d) {
    return new LayoutSpec(0, "byte", 0, "murmur3", "group", 0, b(d));
  }

  @Test
  void snapsToGroupBoundaries() throws Exception {
    LayoutSpec layout = delimited("|");
    assertEquals("abc|", s(PresplitNative.snapSplitPoint(layout, b(""), b(""), b("abc|def"))));
    // The candidate's group holds the region start (HBASE-23620): the next group instead.
    assertEquals("abc}", s(PresplitNative.snapSplitPoint(layout, b("abc|a"), b("b"),
        b("abc|x"))));
    // One group fills the region: no valid point, no split.
    assertNull(PresplitNative.snapSplitPoint(layout, b("abc|"), b("abc|zz"), b("abc|d")));
    // HBase found no mid key.
    assertNull(PresplitNative.snapSplitPoint(layout, b(""), b(""), b("")));
    LayoutSpec fixed = new LayoutSpec(10, "decimal", 0, "murmur3", "group", 4, null);
    assertEquals("3abcd", s(PresplitNative.snapSplitPoint(fixed, b(""), b(""), b("3abcdefg"))));
    // Binary keys round-trip unchanged.
    byte[] binary = {(byte) 0xff, 0, (byte) 0x80, '|', 1};
    assertArrayEquals(new byte[] {(byte) 0xff, 0, (byte) 0x80, '|'},
        PresplitNative.snapSplitPoint(layout, b(""), b(""), binary));
    // No layout: any key strictly after the start.
    assertEquals("a\0", s(PresplitNative.snapSplitPoint(LayoutSpec.none(), b("a"), b("b"), b("a"))));
  }

  @Test
  void groupSafeLoadSplitPointThroughJni() throws Exception {
    LayoutSpec layout = delimited("|");
    // Sampled keys in groups 8, 9 and 10 of 20 equally hot ones: the boundary between 9 and 10.
    byte[][] keys = {b("g008|002"), b("g009|009"), b("g010|001")};
    LoadSplitChoice choice = PresplitNative.chooseGroupSafeLoadSplitPoint(layout, b(""), b(""),
        keys, new long[] {405, 495, 505}, new long[] {595, 505, 495}, new long[] {0, 0, 0}, 100,
        0.25, 0.5);
    assertEquals("g010|", s(choice.key()));
    assertEquals(0.005, choice.imbalance(), 1e-9);
    assertEquals(1000, choice.requests());
    // Too lopsided everywhere: null.
    assertNull(PresplitNative.chooseGroupSafeLoadSplitPoint(layout, b(""), b(""),
        new byte[][] {b("g001|1")}, new long[] {100}, new long[] {900}, new long[] {0}, 100,
        0.25, 0.5));
    // Bad input is an exception, never a crash.
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseGroupSafeLoadSplitPoint(layout, b("m"),
        b("a"), keys, new long[3], new long[3], new long[3], 100, 0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseGroupSafeLoadSplitPoint(layout, b(""),
        b(""), keys, new long[2], new long[3], new long[3], 100, 0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseGroupSafeLoadSplitPoint(layout, b(""),
        b(""), null, new long[0], new long[0], new long[0], 100, 0.25, 0.5));
  }

  @Test
  void snapErrors() {
    LayoutSpec layout = delimited("|");
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(layout, null, b(""), b("a")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(layout, b(""), null, b("a")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(layout, b(""), b(""), null));
    // A candidate outside the region.
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(layout, b("m"), b("p"),
        b("z|")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(4, "base64", 0, "murmur3", "group", 4, null), b(""), b(""), b("1abcd")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(4, "byte", 0, "sha1", "group", 4, null), b(""), b(""), b("1abcd")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(4, null, 0, "murmur3", "group", 4, null), b(""), b(""), b("1abcd")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(0, "byte", 0, "murmur3", "group", 4, b("|")), b(""), b(""), b("1")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(-1, "byte", 0, "murmur3", "group", 4, null), b(""), b(""), b("1")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(
        new LayoutSpec(0, "byte", 0, "murmur3", "group", -4, null), b(""), b(""), b("1")));
    fails("INVALID_ARGUMENT", () -> PresplitNative.snapSplitPoint(delimited(""), b(""), b(""),
        b("1")));
  }

  @Test
  void validatesLayouts() throws Exception {
    PresplitNative.validateLayout(LayoutSpec.none());
    PresplitNative.validateLayout(new LayoutSpec(10, "decimal", 1, "java-hashcode", "group",
        32, null));
    NativeException e = fails("INVALID_ARGUMENT", () -> PresplitNative.validateLayout(
        new LayoutSpec(11, "decimal", 1, "murmur3", "group", 32, null)));
    assertTrue(e.getMessage().contains("11"), e.getMessage());
    // A salt from the group needs a group.
    fails("INVALID_ARGUMENT", () -> PresplitNative.validateLayout(
        new LayoutSpec(4, "byte", 0, "murmur3", "group", 0, null)));
  }

  @Test
  void choosesTheBalancedKey() throws Exception {
    byte[][] keys = {b("b"), b("m"), b("x")};
    LoadSplitChoice c = PresplitNative.chooseLoadSplitKey(keys, new long[] {10, 100, 180},
        new long[] {190, 95, 20}, new long[] {0, 5, 0}, 100, 0.25, 0.5);
    assertNotNull(c);
    assertEquals("m", s(c.key()));
    assertEquals(200, c.requests());
    assertTrue(c.imbalance() < 0.05);
    assertEquals(0.025, c.containedFraction(), 1e-9);
    // Too few requests, or too unbalanced: no choice.
    assertNull(PresplitNative.chooseLoadSplitKey(keys, new long[] {1, 2, 3},
        new long[] {3, 2, 1}, new long[] {0, 0, 0}, 100, 0.25, 0.5));
    assertNull(PresplitNative.chooseLoadSplitKey(new byte[0][], new long[0], new long[0],
        new long[0], 100, 0.25, 0.5));
  }

  @Test
  void loadErrors() {
    byte[][] keys = {b("b")};
    long[] one = {1};
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(null, one, one, one, 1,
        0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, null, one, one, 1,
        0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, one, new long[2],
        one, 1, 0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(new byte[][] {null}, one,
        one, one, 1, 0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, new long[] {-1},
        one, one, 1, 0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, one, one, one, -1,
        0.25, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, one, one, one, 1,
        0.0, 0.5));
    fails("INVALID_ARGUMENT", () -> PresplitNative.chooseLoadSplitKey(keys, one, one, one, 1,
        0.25, Double.NaN));
  }

  @Test
  void cxxExceptionsAndStatusesBecomeNativeExceptions() {
    assertTrue(fails("INTERNAL", () -> PresplitNative.nRaiseForTest("status")).getMessage()
        .contains("raised for a test"));
    assertTrue(fails("INTERNAL", () -> PresplitNative.nRaiseForTest("std-exception"))
        .getMessage().contains("unexpected C++ exception: raised for a test"));
    assertTrue(fails("INTERNAL", () -> PresplitNative.nRaiseForTest("bad-alloc")).getMessage()
        .contains("out of native memory"));
    assertTrue(fails("INTERNAL", () -> PresplitNative.nRaiseForTest("unknown")).getMessage()
        .contains("unknown type"));
    // Bytes that are not modified UTF-8 reach Java escaped, not as a JNI failure.
    assertTrue(fails("INVALID_ARGUMENT", () -> PresplitNative.nRaiseForTest("binary-message"))
        .getMessage().contains("bytes \\x00\\xFF\\x0A end"));
    fails("INVALID_ARGUMENT", () -> PresplitNative.nRaiseForTest(null));
  }

  @Test
  void missingLibraryNamesBothPlaces() {
    String message = NativeLibrary.tryLoad("presplit_jni_absent", "/native/absent/lib.so");
    assertNotNull(message);
    assertTrue(message.contains("java.library.path"), message);
    assertTrue(message.contains("/native/absent/lib.so"), message);
    assertTrue(message.contains("not inside the jar"), message);
  }

  @Test
  void jarResourceNamesThePlatform() {
    assertEquals("/native/" + NativeLibrary.platform() + "/libpresplit_jni.so",
        NativeLibrary.jarResource());
  }
}
