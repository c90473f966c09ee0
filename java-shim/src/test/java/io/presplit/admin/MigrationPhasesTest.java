package io.presplit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * PresplitAdmin's copy of presplitd's phase table: the one in the jar is the project's
 * daemon/migrate/migration_phases.json (which daemon_unit_tests proves equal to the C++ table),
 * and it answers every request as tests/vectors/migration_requests.json says, word for word, as
 * presplitd and presplitctl do.
 */
class MigrationPhasesTest {

  static Path projectDir() {
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    return Paths.get(basedir).toAbsolutePath().getParent();
  }

  @Test
  void theJarCarriesTheDaemonsTable() throws Exception {
    JsonObject file = JsonParser.parseString(Files.readString(
        projectDir().resolve("daemon/migrate/migration_phases.json"), StandardCharsets.UTF_8))
        .getAsJsonObject();
    assertEquals(MigrationPhases.parse(file).values().stream().toList(), MigrationPhases.all());
    List<String> names = MigrationPhases.all().stream().map(MigrationPhases.Phase::name).toList();
    assertEquals(List.of("planned", "copying", "verifying", "failed_verification", "switching",
        "catching_up", "grace", "fencing", "done", "rolling_back"), names);
    for (MigrationPhases.Phase phase : MigrationPhases.all()) {
      assertTrue(names.containsAll(phase.next()), phase.name() + " -> " + phase.next());
      assertEquals(4, phase.requests().size(), phase.name());
    }
  }

  @Test
  void answersEveryRequestAsTheSharedVectorsSay() throws Exception {
    JsonObject vectors = JsonParser.parseString(Files.readString(
        projectDir().resolve("tests/vectors/migration_requests.json"), StandardCharsets.UTF_8))
        .getAsJsonObject();
    JsonObject names = vectors.getAsJsonObject("names");
    int checked = 0;
    for (JsonElement e : vectors.getAsJsonArray("cases")) {
      JsonObject c = e.getAsJsonObject();
      MigrationPhases.Phase phase = MigrationPhases.phase(c.get("phase").getAsString())
          .orElseThrow(() -> new AssertionError("unknown phase in " + c));
      Optional<String> refusal = MigrationPhases.refusal(phase, c.get("request").getAsString(),
          c.get("status_names_target").getAsBoolean(), names.get("table").getAsString(),
          names.get("source").getAsString(), names.get("target").getAsString());
      assertEquals(c.get("accepted").getAsBoolean(), refusal.isEmpty(), c.toString());
      assertEquals(c.has("refusal") ? c.get("refusal").getAsString() : "", refusal.orElse(""),
          c.toString());
      checked++;
    }
    assertEquals(MigrationPhases.all().size() * 4 * 2, checked);
  }
}
