package io.presplit.rekey;

import io.presplit.client.KeyLayout;
import io.presplit.hbase.nativelib.LayoutSpec;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * A layout as the migration receives it (the JSON of a status znode's {@code layout} object),
 * validated by the SDK's {@link KeyLayout} and handed to libpresplit as a {@link LayoutSpec}.
 */
public final class MigrationLayout {
  public final KeyLayout layout;
  public final LayoutSpec spec;

  private MigrationLayout(KeyLayout layout) {
    this.layout = layout;
    this.spec = new LayoutSpec(layout.buckets(), layout.encoding().documentName(),
        layout.isSalted() ? layout.saltWidth() : 0, layout.hash().documentName(),
        layout.saltFromKey() ? "key" : "group", layout.groupLength(), layout.groupDelimiter());
  }

  /**
   * Parses a layout object; null, blank, {@code null} or {@code {}} = unsalted, ungrouped.
   *
   * @throws IllegalArgumentException naming what (e.g. "old layout") and why
   */
  public static MigrationLayout parse(String json, String what) {
    try {
      if (json == null || json.isBlank()) {
        return new MigrationLayout(KeyLayout.fromDocument(null));
      }
      JsonElement e = JsonParser.parseString(json);
      if (e.isJsonNull()) {
        return new MigrationLayout(KeyLayout.fromDocument(null));
      }
      if (!e.isJsonObject()) {
        throw new IllegalArgumentException(what + " is not a JSON object: " + json);
      }
      return new MigrationLayout(KeyLayout.fromDocument(e.getAsJsonObject()));
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException
        | NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not valid: " + e.getMessage() + ": " + json,
          e);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(what)) {
        throw e;
      }
      throw new IllegalArgumentException(what + " is not valid: " + e.getMessage(), e);
    }
  }

  /** Bytes of the salt prefix (0 when unsalted). */
  public int saltWidth() {
    return layout.isSalted() ? layout.saltWidth() : 0;
  }
}
