package io.presplit.hbase.nativelib;

/**
 * An error reported by libpresplit through JNI (or the library being unavailable). It carries
 * the native status code name ({@code INVALID_ARGUMENT}, {@code INTERNAL}, ...) and message.
 * Thrown only by {@link PresplitNative}; no C++ exception ever reaches Java any other way.
 */
public final class NativeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Code of the errors raised on the Java side when the library cannot be loaded. */
  public static final String UNAVAILABLE = "UNAVAILABLE";

  private final String code;

  /** Called from native code (constructor ID cached at load time): keep the signature. */
  public NativeException(String code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /** The native status code name, e.g. {@code INVALID_ARGUMENT}. */
  public String code() {
    return code;
  }
}
