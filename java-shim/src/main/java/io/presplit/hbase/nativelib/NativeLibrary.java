package io.presplit.hbase.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libpresplit_jni} once, lazily (never from a static initialiser, so classes that
 * use it can be loaded where the library is absent, e.g. on an HMaster). Looks in
 * {@code java.library.path} first, then inside the jar at
 * {@code /native/<os>-<arch>/libpresplit_jni.so} (extracted to a temporary file). When neither
 * works, every use fails with a {@link NativeException} ({@link NativeException#UNAVAILABLE})
 * naming both places and why each failed; the attempt is not repeated.
 */
public final class NativeLibrary {
  public static final String LIBRARY_NAME = "presplit_jni";

  private static final Object LOCK = new Object();
  private static volatile boolean loaded;
  private static volatile String failure; // non-null once loading has failed
  private static volatile String source;

  private NativeLibrary() {
  }

  /** The platform directory inside the jar, e.g. {@code linux-x86_64}. */
  public static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String osPart = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "osx" : os;
    String archPart = switch (arch) {
      case "amd64", "x86_64" -> "x86_64";
      case "aarch64", "arm64" -> "aarch64";
      default -> arch;
    };
    return osPart + "-" + archPart;
  }

  /** Where the library is looked for inside the jar on this platform. */
  public static String jarResource() {
    return "/native/" + platform() + "/" + System.mapLibraryName(LIBRARY_NAME);
  }

  /** Loads the library if that has not been tried yet; throws if it is not available. */
  public static void require() throws NativeException {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (!loaded && failure == null) {
        String error = tryLoad(LIBRARY_NAME, jarResource());
        if (error == null) {
          loaded = true;
        } else {
          failure = error;
        }
      }
    }
    if (!loaded) {
      throw new NativeException(NativeException.UNAVAILABLE, failure);
    }
  }

  /** Whether the library is (or can now be) loaded; never throws. */
  public static boolean isAvailable() {
    try {
      require();
      return true;
    } catch (NativeException e) {
      return false;
    }
  }

  /** Why the library is unavailable (null when it is loaded or was not tried yet). */
  public static String failure() {
    return failure;
  }

  /** Where the library was loaded from, e.g. "java.library.path" (null when not loaded). */
  public static String source() {
    return source;
  }

  /**
   * One load attempt: System.loadLibrary(name) from java.library.path, else the jar resource.
   * Returns null on success, else a message naming both places and their errors. Package-private
   * so tests can exercise the failure message with names that do not exist.
   */
  static String tryLoad(String name, String resource) {
    String libraryPathError;
    try {
      System.loadLibrary(name);
      checkAbi();
      source = "java.library.path";
      return null;
    } catch (UnsatisfiedLinkError | SecurityException e) {
      libraryPathError = e.getMessage();
    } catch (NativeException e) {
      return e.getMessage();
    }
    String jarError;
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        jarError = "not inside the jar";
      } else {
        Path tmp = Files.createTempFile("libpresplit_jni-", ".so");
        tmp.toFile().deleteOnExit();
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        System.load(tmp.toAbsolutePath().toString());
        checkAbi();
        source = "jar:" + resource;
        return null;
      }
    } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
      jarError = e.toString();
    } catch (NativeException e) {
      return e.getMessage();
    }
    return "native library " + System.mapLibraryName(name) + " not found: not loadable from "
        + "java.library.path [" + System.getProperty("java.library.path", "") + "] ("
        + libraryPathError + ") and not loadable from the jar resource " + resource + " ("
        + jarError + "); put it on the RegionServer's -Djava.library.path (hbase-env.sh) or use a "
        + "presplit-hbase.jar built with the library";
  }

  private static void checkAbi() throws NativeException {
    int abi;
    try {
      abi = PresplitNative.nAbiVersion();
    } catch (UnsatisfiedLinkError e) {
      throw new NativeException(NativeException.UNAVAILABLE,
          "the loaded libpresplit_jni does not match this jar: " + e.getMessage());
    }
    if (abi != PresplitNative.ABI_VERSION) {
      throw new NativeException(NativeException.UNAVAILABLE, "libpresplit_jni ABI version " + abi
          + " does not match presplit-hbase.jar's " + PresplitNative.ABI_VERSION);
    }
  }
}
