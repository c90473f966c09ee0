package io.presplit.admin;

import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * A re-salting migration as {@code presplitctl migration status --json} shows it: the plan's
 * phase, generations and error while one is under way, else the last outcome the status records;
 * the copy's progress from the status. Immutable.
 */
public final class MigrationStatus {
  private final String table;
  private final boolean underWay;
  private final String phase;
  private final boolean paused;
  private final String source;
  private final String target;
  private final long targetGeneration;
  private final String error;
  private final String pendingRequest;
  private final long regionsDone;
  private final long regionsTotal;
  private final String json;

  MigrationStatus(String table, JsonObject plan, JsonObject progress, String pendingRequest) {
    this.table = table;
    this.underWay = plan != null;
    JsonObject main = plan != null ? plan : progress;
    this.phase = MigrationControl.string(main, "phase");
    this.paused = plan != null && plan.has("paused") && plan.get("paused").isJsonPrimitive()
        && plan.get("paused").getAsBoolean();
    this.source = MigrationControl.string(plan, "source");
    this.target = MigrationControl.string(plan, "target");
    this.targetGeneration = number(plan, "target_generation");
    String e = MigrationControl.string(main, "error");
    this.error = e.isEmpty() ? null : e;
    this.pendingRequest = pendingRequest.isEmpty() ? null : pendingRequest;
    this.regionsDone = number(progress, "regions_done");
    long total = plan != null && plan.has("source_regions") && plan.get("source_regions")
        .isJsonArray() ? plan.getAsJsonArray("source_regions").size()
        : number(progress, "regions_total");
    this.regionsTotal = total;
    JsonObject out = new JsonObject();
    out.addProperty("table", table);
    if (plan != null) {
      out.add("plan", plan);
    }
    if (progress != null) {
      out.add("progress", progress);
    }
    out.addProperty("request", this.pendingRequest);
    this.json = out.toString();
  }

  private static long number(JsonObject o, String key) {
    JsonElement e = o == null ? null : o.get(key);
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsLong()
        : 0;
  }

  public String table() {
    return table;
  }

  /** True while a plan exists (a migration under way); false: the last outcome only. */
  public boolean isUnderWay() {
    return underWay;
  }

  /** {@code planned}, {@code copying}, ..., {@code done}, {@code aborted}, {@code rolled_back}. */
  public String phase() {
    return phase;
  }

  public boolean isPaused() {
    return paused;
  }

  public String source() {
    return source;
  }

  public String target() {
    return target;
  }

  public long targetGeneration() {
    return targetGeneration;
  }

  /** The error the migration waits on, null when none. */
  public String error() {
    return error;
  }

  /** The request written and not handled yet ({@code pause}, ...), null when none. */
  public String pendingRequest() {
    return pendingRequest;
  }

  public long regionsDone() {
    return regionsDone;
  }

  public long regionsTotal() {
    return regionsTotal;
  }

  /** {@code {"table", "plan", "progress", "request"}}: everything read, as JSON. */
  public String json() {
    return json;
  }
}
