package io.presplit.hbase.admin;

/** Strings as JSON text, for the JSON answers the daemon's JVM side writes by hand. */
public final class JsonText {
  private JsonText() {
  }

  /** A string as a JSON string literal (quotes and backslashes escaped, control characters too). */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        out.append('\\').append(ch);
      } else if (ch < 0x20) {
        out.append(String.format("\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    return out.append('"').toString();
  }
}
