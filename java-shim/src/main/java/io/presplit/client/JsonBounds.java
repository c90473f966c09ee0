package io.presplit.client;

/**
 * Bounds on the JSON the SDK reads from ZooKeeper (table documents and statuses), checked on the
 * znode's bytes before Gson sees them: the same limits and messages as presplitd's
 * ({@code native/include/presplit/json_bounds.h}), so a znode either side refuses is refused
 * with the same reason.
 *
 * <p>Why: {@code JsonElement}'s {@code equals}, {@code hashCode}, {@code toString} and
 * {@code deepCopy} recurse once per level, and Gson's own nesting limit (255) exists only from
 * Gson 2.12 on, while the SDK runs with whatever Gson the application's HBase shades. A valid JSON
 * nested 200,000 deep would end the reading thread with a {@link StackOverflowError}, which no
 * caller expects. One pass over the bytes, no recursion, no allocation.
 */
public final class JsonBounds {
  /** ZooKeeper's default jute.maxbuffer: no znode of a default ZooKeeper holds more. */
  static final int MAX_BYTES = 1024 * 1024;
  /** presplit's own documents nest 4 levels deep (a status's load.decisions[i]). */
  static final int MAX_DEPTH = 64;

  private JsonBounds() {}

  /** {@link #problem(byte[], int, int)} with the default limits. */
  public static String problem(byte[] json) {
    return problem(json, MAX_BYTES, MAX_DEPTH);
  }

  /**
   * Null when {@code json} has at most {@code maxBytes} bytes and no array or object in it is
   * nested more than {@code maxDepth} deep (the outermost array or object is level 1; brackets
   * inside strings, escaped quotes included, do not count). Otherwise the problem, e.g. "JSON of
   * 2097152 bytes is larger than the limit of 1048576 bytes" or "JSON nested deeper than 64
   * levels (at byte offset 64)". Nothing else is validated: malformed JSON within the bounds is
   * left to the parser. UTF-8 needs no decoding here: every byte of a multi-byte character is
   * above 0x7F, so none is mistaken for a bracket, quote or backslash.
   */
  static String problem(byte[] json, int maxBytes, int maxDepth) {
    if (json.length > maxBytes) {
      return "JSON of " + json.length + " bytes is larger than the limit of " + maxBytes
          + " bytes";
    }
    int depth = 0;
    boolean inString = false;
    boolean escaped = false;
    for (int i = 0; i < json.length; i++) {
      byte c = json[i];
      if (inString) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          inString = false;
        }
        continue;
      }
      switch (c) {
        case '"':
          inString = true;
          break;
        case '[':
        case '{':
          if (++depth > maxDepth) {
            return "JSON nested deeper than " + maxDepth + " levels (at byte offset " + i + ")";
          }
          break;
        case ']':
        case '}':
          // A closer too many is malformed, the parser's to refuse; not counted below 0 so that
          // it cannot hide an opener after it.
          if (depth > 0) {
            depth--;
          }
          break;
        default:
          break;
      }
    }
    return null;
  }
}
