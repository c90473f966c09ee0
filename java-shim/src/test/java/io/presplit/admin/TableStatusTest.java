package io.presplit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** TableStatus over presplitd's status JSON (conf/tables/README.md, "Status documents"). */
class TableStatusTest {

  static TableStatus parse(String json) {
    return TableStatus.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsTheDocumentedStatus() {
    TableStatus s = parse("{\"table\": \"tinawang:check\", \"phase\": \"ready\", "
        + "\"physical_table\": \"tinawang:check__g2\", \"generation\": 2, \"buckets\": 10, "
        + "\"layout\": {\"group\": {\"length\": 32}, \"salt\": {\"buckets\": 10}}, "
        + "\"regions\": 12, \"planned_regions\": 10, \"config_version\": 3, \"error\": null, "
        + "\"differences\": [], \"updated_at\": \"2026-11-22T13:41:54Z\", \"daemon\": \"h:1\"}");
    assertEquals("tinawang:check", s.table());
    assertEquals("ready", s.phase());
    assertTrue(s.isFinal());
    assertEquals("tinawang:check__g2", s.physicalTable());
    assertEquals(2, s.generation());
    assertEquals(10, s.buckets());
    assertEquals(12, s.regions());
    assertEquals(10, s.plannedRegions());
    assertEquals(3, s.configVersion());
    assertNull(s.error());
    assertTrue(s.differences().isEmpty());
    assertEquals("{\"group\":{\"length\":32},\"salt\":{\"buckets\":10}}", s.layout());
    assertTrue(s.loadDecisions().isEmpty());
    assertNull(s.migration());
    assertNull(s.migrationPhase());
  }

  @Test
  void readsErrorsDecisionsAndMigration() {
    TableStatus s = parse("{\"table\": \"ns:t\", \"phase\": \"drift\", \"layout\": null, "
        + "\"error\": \"field 'x': bad\", \"differences\": [\"layout: salt buckets 4 -> 8\"], "
        + "\"load\": {\"decisions\": [{\"time_ms\": 17, \"physical_table\": \"ns:t\", "
        + "\"region\": \"5f1c\", \"start_key\": \"\", \"split_key\": null, "
        + "\"requests_per_s\": 2130.5, \"action\": \"dry_run\", \"reason\": \"r\"}]}, "
        + "\"migration\": {\"phase\": \"copying\", \"regions_done\": 1}}");
    assertEquals("drift", s.phase());
    assertTrue(s.isFinal());
    assertNull(s.layout());
    assertEquals(-1, s.configVersion());
    assertEquals("field 'x': bad", s.error());
    assertEquals(1, s.differences().size());
    assertEquals(1, s.loadDecisions().size());
    LoadDecision d = s.loadDecisions().get(0);
    assertEquals(17, d.timeMs());
    assertEquals("5f1c", d.region());
    assertNull(d.splitKey());
    assertEquals(2130.5, d.requestsPerS());
    assertEquals("dry_run", d.action());
    assertEquals("copying", s.migrationPhase());
    assertTrue(s.migration().contains("\"regions_done\":1"));
  }

  @Test
  void onlyReadyErrorInvalidAndDriftAreFinal() {
    for (String phase : new String[] {"creating", "missing"}) {
      assertFalse(parse("{\"phase\": \"" + phase + "\"}").isFinal(), phase);
    }
    for (String phase : new String[] {"ready", "error", "invalid", "drift"}) {
      assertTrue(parse("{\"phase\": \"" + phase + "\"}").isFinal(), phase);
    }
  }

  @Test
  void refusesWhatIsNoStatus() {
    assertThrows(IllegalArgumentException.class, () -> parse("[1]"));
    assertThrows(IllegalArgumentException.class, () -> parse("{\"phase\": "));
    String deep = "[".repeat(100) + "]".repeat(100);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> parse("{\"x\": " + deep + "}"));
    assertTrue(e.getMessage().contains("nested deeper than 64"), e.getMessage());
  }
}
