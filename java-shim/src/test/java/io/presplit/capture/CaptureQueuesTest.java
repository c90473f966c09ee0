package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** A drain counts the marked WAL files any queue of the peer still lists, wherever it is. */
class CaptureQueuesTest {
  private static final ServerName RS1 = ServerName.valueOf("rs1.example,16020,1");
  private static final ServerName RS2 = ServerName.valueOf("rs2.example,16020,2");
  private static final String PEER = "presplit_ns_t__g2";

  private static JsonObject unshipped(List<CaptureQueues.QueuedWal> queued, Set<String> marked) {
    return JsonParser.parseString(CaptureQueues.unshippedJson(queued, marked)).getAsJsonObject();
  }

  @Test
  void onlyMarkedFilesCountAndARecoveredQueueStillHoldsThem() {
    List<CaptureQueues.QueuedWal> queued = List.of(
        // rs1 still ships the file written before the region moved to rs2
        new CaptureQueues.QueuedWal(RS1, PEER, false, "rs1%2C16020%2C1.100"),
        // written after the mark: no edit of the drained table is in it
        new CaptureQueues.QueuedWal(RS1, PEER, false, "rs1%2C16020%2C1.200"),
        // a dead server's file, claimed by rs2: the same name under a recovered queue
        new CaptureQueues.QueuedWal(RS2, PEER + "-rs3.example,16020,3", true,
            "rs3%2C16020%2C3.150"));
    JsonObject out = unshipped(queued, Set.of("rs1%2C16020%2C1.100", "rs3%2C16020%2C3.150",
        "rs2%2C16020%2C2.120"));
    assertEquals(2, out.get("unshipped").getAsInt());
    assertEquals("rs1%2C16020%2C1.100@" + PEER + "@" + RS1,
        out.getAsJsonArray("first").get(0).getAsString());
    assertEquals("rs3%2C16020%2C3.150@" + PEER + "-rs3.example,16020,3@" + RS2,
        out.getAsJsonArray("first").get(1).getAsString());
  }

  @Test
  void drainedWhenNoMarkedFileIsListed() {
    List<CaptureQueues.QueuedWal> queued =
        List.of(new CaptureQueues.QueuedWal(RS1, PEER, false, "rs1%2C16020%2C1.200"));
    JsonObject out = unshipped(queued, Set.of("rs1%2C16020%2C1.100"));
    assertEquals(0, out.get("unshipped").getAsInt());
    assertEquals(0, out.getAsJsonArray("first").size());
  }

  @Test
  void namesAFewAndCountsThemAll() {
    List<CaptureQueues.QueuedWal> queued = new ArrayList<>();
    Set<String> marked = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      queued.add(new CaptureQueues.QueuedWal(RS1, PEER, false, "w." + i));
      marked.add("w." + i);
    }
    JsonObject out = unshipped(queued, marked);
    assertEquals(12, out.get("unshipped").getAsInt());
    assertEquals(CaptureQueues.NAMED_AT_MOST, out.getAsJsonArray("first").size());
  }
}
