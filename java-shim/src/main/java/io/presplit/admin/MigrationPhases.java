package io.presplit.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * presplitd's migration phase table, read from the copy of {@code migration_phases.json} the jar
 * carries (the file daemon/migrate/migration_phase.cc is tested equal to): for each phase of a
 * plan whether the status names the new generation, the phases it may move to, and how it
 * answers each request. {@link MigrationControl} refuses a request with the daemon's own words
 * before writing it; nothing in this class decides a rule.
 */
final class MigrationPhases {
  static final String RESOURCE = "migration_phases.json";

  enum Verdict {
    ACCEPT, REFUSE, ACCEPT_IF_SWITCHED, ACCEPT_IF_NOT_SWITCHED;

    static Verdict parse(String name) {
      for (Verdict v : values()) {
        if (v.name().equalsIgnoreCase(name)) {
          return v;
        }
      }
      throw new IllegalStateException(RESOURCE + ": unknown verdict '" + name + "'");
    }

    /** Whether the answer depends on the status naming the new generation. */
    boolean conditional() {
      return this == ACCEPT_IF_SWITCHED || this == ACCEPT_IF_NOT_SWITCHED;
    }
  }

  record Rule(Verdict verdict, String refusal) {}

  record Phase(String name, boolean switched, List<String> next, Map<String, Rule> requests) {}

  private static final Map<String, Phase> PHASES = load();

  private MigrationPhases() {
  }

  /** The phases, in order. */
  static List<Phase> all() {
    return List.copyOf(PHASES.values());
  }

  static Optional<Phase> phase(String name) {
    return Optional.ofNullable(PHASES.get(name));
  }

  /**
   * The refusal of {@code request} by a plan in {@code phase} ("&lt;request&gt; refused: why"), or
   * empty when it is accepted. {@code statusNamesTarget} is consulted by the conditional verdicts
   * only ({@code switching}).
   */
  static Optional<String> refusal(Phase phase, String request, boolean statusNamesTarget,
      String table, String source, String target) {
    Rule rule = phase.requests().get(request);
    if (rule == null) {
      throw new IllegalArgumentException("unknown migration request '" + request + "'");
    }
    boolean accepted = switch (rule.verdict()) {
      case ACCEPT -> true;
      case REFUSE -> false;
      case ACCEPT_IF_SWITCHED -> statusNamesTarget;
      case ACCEPT_IF_NOT_SWITCHED -> !statusNamesTarget;
    };
    if (accepted) {
      return Optional.empty();
    }
    return Optional.of(request + " refused: " + rule.refusal().replace("{table}", table)
        .replace("{source}", source).replace("{target}", target).replace("{phase}", phase.name()));
  }

  private static Map<String, Phase> load() {
    try (InputStream in = MigrationPhases.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not in the jar next to "
            + MigrationPhases.class.getName() + " (a build without it)");
      }
      try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
        return parse(JsonParser.parseReader(reader).getAsJsonObject());
      }
    } catch (IOException e) {
      throw new IllegalStateException("reading " + RESOURCE + ": " + e.getMessage(), e);
    }
  }

  static Map<String, Phase> parse(JsonObject table) {
    Map<String, Phase> out = new LinkedHashMap<>();
    for (JsonElement e : table.getAsJsonArray("phases")) {
      JsonObject o = e.getAsJsonObject();
      List<String> next = new ArrayList<>();
      o.getAsJsonArray("next").forEach(n -> next.add(n.getAsString()));
      Map<String, Rule> requests = new LinkedHashMap<>();
      for (Map.Entry<String, JsonElement> r : o.getAsJsonObject("requests").entrySet()) {
        JsonObject rule = r.getValue().getAsJsonObject();
        requests.put(r.getKey(), new Rule(Verdict.parse(rule.get("verdict").getAsString()),
            rule.has("refusal") ? rule.get("refusal").getAsString() : ""));
      }
      String name = o.get("name").getAsString();
      out.put(name, new Phase(name, o.get("switched").getAsBoolean(), List.copyOf(next),
          Map.copyOf(requests)));
    }
    return out;
  }
}
