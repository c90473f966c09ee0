package io.presplit.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.replication.ReplicationLoadSource;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** Capture peers carry the root of the deployment that added them, and are listed with it. */
class CapturePeersTest {

  static ReplicationPeerDescription peer(String id, Map<String, String> conf) {
    return new ReplicationPeerDescription(id, true,
        ReplicationPeerConfig.newBuilder().setClusterKey("zk:2181:/hbase")
            .putAllConfiguration(conf).build());
  }

  /** An Admin with no peers that records the peers added; every other call refuses. */
  static Admin recordingAdmin(List<ReplicationPeerConfig> added) {
    Connection connection = (Connection) Proxy.newProxyInstance(
        CapturePeersTest.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          throw new IOException("no cluster: " + method.getName());
        });
    return (Admin) Proxy.newProxyInstance(CapturePeersTest.class.getClassLoader(),
        new Class<?>[] {Admin.class}, (proxy, method, args) -> switch (method.getName()) {
          case "listReplicationPeers" -> List.of();
          case "getConnection" -> connection;
          case "addReplicationPeer" -> {
            added.add((ReplicationPeerConfig) args[1]);
            yield null;
          }
          default -> throw new IOException("no cluster: " + method.getName());
        });
  }

  @Test
  void aPeerAddedCarriesItsOwnersRootOutsideTheSpec() throws IOException {
    List<ReplicationPeerConfig> added = new ArrayList<>();
    String result = CapturePeers.ensure(recordingAdmin(added), "presplit_ns_t__g2_0a1b2c3d",
        WalEntryRekeyerTest.spec(), "/presplit-a");
    assertTrue(result.contains("\"added\":true"), result);
    assertEquals(1, added.size());
    assertEquals("/presplit-a", added.get(0).getConfiguration().get(CaptureSpec.OWNER_KEY));
    assertEquals(null, CapturePeers.differenceOf(added.get(0), WalEntryRekeyerTest.spec()),
        "the owner is not part of the spec an existing peer is compared on");

    added.clear();
    CapturePeers.ensure(recordingAdmin(added), "presplit_ns_t__g2_0a1b2c3d",
        WalEntryRekeyerTest.spec(), "");
    assertFalse(added.get(0).getConfiguration().containsKey(CaptureSpec.OWNER_KEY));
  }

  @Test
  void onlyPresplitCapturePeersAreListedWithTheirOwner() {
    String json = CapturePeers.listJson(List.of(
        peer("presplit_ns_t__g2_0a1b2c3d", Map.of(CaptureSpec.OWNER_KEY, "/presplit-a")),
        peer("presplit_ns_u__g3_0a1b2c3d_r", Map.of()),
        peer("backup_to_dr", Map.of(CaptureSpec.OWNER_KEY, "/presplit-a")),
        peer("presplit_not-a-capture", Map.of())));
    JsonArray peers = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("peers");
    assertEquals(2, peers.size(), json);
    JsonObject first = peers.get(0).getAsJsonObject();
    assertEquals("presplit_ns_t__g2_0a1b2c3d", first.get("id").getAsString());
    assertEquals("/presplit-a", first.get("owner").getAsString());
    JsonObject second = peers.get(1).getAsJsonObject();
    assertEquals("presplit_ns_u__g3_0a1b2c3d_r", second.get("id").getAsString());
    assertTrue(second.get("owner").isJsonNull(), "an older version's peer carries no owner");
  }

  static ReplicationLoadSource source(String peer, long lagMs, long ageMs, int walFiles) {
    return ReplicationLoadSource.newBuilder().setPeerID(peer).setQueueId(peer)
        .setReplicationLag(lagMs).setAgeOfLastShippedOp(ageMs).setSizeOfLogQueue(walFiles)
        .build();
  }

  @Test
  void aPeersLagIsItsSlowestSourceAndItsQueueTheSumOfTheirs() {
    String forward = "presplit_ns_t__g2_0a1b2c3d";
    String reverse = "presplit_ns_t__g2_0a1b2c3d_r";
    String json = CapturePeers.lagsJson(List.of(
        source(forward, 1200, 900, 2), // rs1
        source(forward, 65000, 70000, 5), // rs2, far behind
        source(forward, 0, 0, 1), // a recovered queue of a dead server, on rs1
        source(reverse, 10, 5, 1),
        source("backup_to_dr", 999999, 999999, 99)), Set.of(forward, reverse, "presplit_gone_1"));
    JsonArray peers = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("peers");
    assertEquals(2, peers.size(), json + ": a peer no server reports is left out");
    JsonObject f = peers.get(0).getAsJsonObject();
    assertEquals(forward, f.get("id").getAsString());
    assertEquals(65000, f.get("lag_ms").getAsLong());
    assertEquals(70000, f.get("age_of_last_shipped_ms").getAsLong());
    assertEquals(8, f.get("wal_queue_files").getAsLong());
    assertEquals(3, f.get("sources").getAsInt());
    JsonObject r = peers.get(1).getAsJsonObject();
    assertEquals(reverse, r.get("id").getAsString());
    assertEquals(1, r.get("wal_queue_files").getAsLong());
  }
}
