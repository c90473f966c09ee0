package io.presplit.admin;

import io.presplit.client.JsonBounds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * presplitd's status of a table ({@code <root>/status/<ns>:<table>}, see conf/tables/README.md,
 * "Status documents"), read once: immutable. The whole JSON is kept ({@link #json()}); the fields
 * a portal shows have getters.
 */
public final class TableStatus {
  /** The phases after which presplitd does nothing more with a document version by itself. */
  public static final Set<String> FINAL_PHASES = Set.of("ready", "error", "invalid", "drift");

  private final String json;
  private final String table;
  private final String phase;
  private final String physicalTable;
  private final long generation;
  private final int regions;
  private final int plannedRegions;
  private final int buckets;
  private final String layout;
  private final String error;
  private final List<String> differences;
  private final long configVersion;
  private final String updatedAt;
  private final List<LoadDecision> loadDecisions;
  private final String migration;
  private final String migrationPhase;

  private TableStatus(String json, JsonObject o) {
    this.json = json;
    this.table = string(o, "table");
    this.phase = string(o, "phase");
    this.physicalTable = string(o, "physical_table");
    this.generation = number(o, "generation", 1);
    this.regions = (int) number(o, "regions", 0);
    this.plannedRegions = (int) number(o, "planned_regions", 0);
    this.buckets = (int) number(o, "buckets", 0);
    this.layout = o.has("layout") && o.get("layout").isJsonObject() ? o.get("layout").toString()
        : null;
    this.error = string(o, "error");
    List<String> diffs = new ArrayList<>();
    if (o.has("differences") && o.get("differences").isJsonArray()) {
      for (JsonElement d : o.getAsJsonArray("differences")) {
        if (d.isJsonPrimitive()) {
          diffs.add(d.getAsString());
        }
      }
    }
    this.differences = List.copyOf(diffs);
    this.configVersion = number(o, "config_version", -1);
    this.updatedAt = string(o, "updated_at");
    List<LoadDecision> decisions = new ArrayList<>();
    JsonObject load = o.has("load") && o.get("load").isJsonObject() ? o.getAsJsonObject("load")
        : null;
    if (load != null && load.has("decisions") && load.get("decisions").isJsonArray()) {
      for (JsonElement d : load.getAsJsonArray("decisions")) {
        if (d.isJsonObject()) {
          JsonObject x = d.getAsJsonObject();
          decisions.add(new LoadDecision(number(x, "time_ms", 0), string(x, "physical_table"),
              string(x, "region"), string(x, "split_key"), fraction(x, "requests_per_s"),
              string(x, "action"), string(x, "reason")));
        }
      }
    }
    this.loadDecisions = List.copyOf(decisions);
    JsonObject m = o.has("migration") && o.get("migration").isJsonObject()
        ? o.getAsJsonObject("migration") : null;
    this.migration = m == null ? null : m.toString();
    this.migrationPhase = m == null ? null : string(m, "phase");
  }

  /**
   * Parses a status znode's bytes.
   *
   * @throws IllegalArgumentException when they are not a JSON object within presplit's bounds
   */
  public static TableStatus parse(byte[] data) {
    String outOfBounds = JsonBounds.problem(data);
    if (outOfBounds != null) {
      throw new IllegalArgumentException("status cannot be read: " + outOfBounds);
    }
    String text = new String(data, StandardCharsets.UTF_8);
    JsonElement e;
    try {
      e = JsonParser.parseString(text);
    } catch (JsonParseException ex) {
      throw new IllegalArgumentException("status is not JSON: " + ex.getMessage(), ex);
    }
    if (!e.isJsonObject()) {
      throw new IllegalArgumentException("status is not a JSON object");
    }
    return new TableStatus(text, e.getAsJsonObject());
  }

  private static String string(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
  }

  private static long number(JsonObject o, String key, long absent) {
    JsonElement e = o.get(key);
    if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
      return absent;
    }
    return e.getAsLong();
  }

  private static double fraction(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()
        ? e.getAsDouble() : 0;
  }

  /** The whole status as presplitd wrote it. */
  public String json() {
    return json;
  }

  public String table() {
    return table;
  }

  /** {@code creating}, {@code ready}, {@code invalid}, {@code error}, {@code drift}, {@code missing}. */
  public String phase() {
    return phase;
  }

  /** Whether the phase is one of {@link #FINAL_PHASES}. */
  public boolean isFinal() {
    return phase != null && FINAL_PHASES.contains(phase);
  }

  /** The HBase table serving the document ({@code ns:t}, or {@code ns:t__g2} after a re-salt). */
  public String physicalTable() {
    return physicalTable;
  }

  public long generation() {
    return generation;
  }

  /** The physical table's region count when presplitd last looked. */
  public int regions() {
    return regions;
  }

  /** The regions the document plans. */
  public int plannedRegions() {
    return plannedRegions;
  }

  public int buckets() {
    return buckets;
  }

  /** The key layout the physical table was built with, as JSON; null when there is no table. */
  public String layout() {
    return layout;
  }

  /** Why the document was refused or could not be applied; null when none. */
  public String error() {
    return error;
  }

  /** How the table differs from the document ({@code drift}); empty when it does not. */
  public List<String> differences() {
    return differences;
  }

  /** The ZooKeeper data version of the document this status describes; -1 when absent. */
  public long configVersion() {
    return configVersion;
  }

  public String updatedAt() {
    return updatedAt;
  }

  /** The last load split decisions, oldest first; empty without {@code load_split}. */
  public List<LoadDecision> loadDecisions() {
    return loadDecisions;
  }

  /** The {@code migration} object as JSON (a re-salt's progress); null when there is none. */
  public String migration() {
    return migration;
  }

  /** The migration's phase, null when there is none. */
  public String migrationPhase() {
    return migrationPhase;
  }

  @Override
  public String toString() {
    return json;
  }
}
