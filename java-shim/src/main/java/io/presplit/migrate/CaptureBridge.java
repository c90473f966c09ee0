package io.presplit.migrate;

import static io.presplit.migrate.BridgeConnection.connection;
import static io.presplit.migrate.BridgeSupport.parseLong;
import static io.presplit.migrate.BridgeSupport.tableName;

import io.presplit.capture.CapturePeers;
import io.presplit.capture.CaptureSignals;
import io.presplit.capture.CaptureSpec;
import io.presplit.capture.GuardConfirmations;
import io.presplit.hbase.admin.AccessDenial;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * The change capture of a re-salting migration, as presplitd calls it (see package-info): thin
 * entry points over {@link CapturePeers} and {@link CaptureSignals}, String in, JSON out.
 */
public final class CaptureBridge {

  private CaptureBridge() {
  }

  /** See {@link CapturePeers#ensure}; the mark is the migration's (its target table). */
  public static String ensureCapture(String peerId, String source, String target,
      String sourceLayoutJson, String targetLayoutJson, String migration) throws IOException {
    return ensureCapture(peerId, source, target, sourceLayoutJson, targetLayoutJson, migration,
        "");
  }

  /**
   * {@link #ensureCapture(String, String, String, String, String, String)}, a peer added now
   * marked as owned by the deployment at ZooKeeper root {@code owner} ("": unmarked).
   */
  public static String ensureCapture(String peerId, String source, String target,
      String sourceLayoutJson, String targetLayoutJson, String migration, String owner)
      throws IOException {
    TableName from = tableName(source, "capture source");
    TableName to = tableName(target, "capture target");
    Connection c = connection();
    byte[] ackFamily;
    try (Admin admin = c.getAdmin()) {
      ackFamily = admin.getDescriptor(to).getColumnFamilyNames().iterator().next();
      CaptureSpec spec = new CaptureSpec(from, to, sourceLayoutJson, targetLayoutJson,
          CaptureSpec.markOf(migration), ackFamily);
      return CapturePeers.ensure(admin, peerId, spec, owner);
    }
  }

  public static String removeCapture(String peerId) throws IOException {
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.remove(admin, peerId);
    }
  }

  public static String describeCapture(String peerId) throws IOException {
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.describe(admin, peerId);
    }
  }

  public static String markCaptureQueues(String peerId) throws IOException {
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.markQueues(admin, peerId);
    }
  }

  /** {@code walsJson}: the JSON array of file names {@link #markCaptureQueues} returned. */
  public static String unshippedCaptureWals(String peerId, String walsJson) throws IOException {
    Set<String> marked = new HashSet<>();
    try {
      for (JsonElement e : JsonParser.parseString(walsJson).getAsJsonArray()) {
        marked.add(e.getAsString());
      }
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
      throw new IllegalArgumentException("not a JSON array of WAL file names: " + e.getMessage(),
          e);
    }
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.unshippedWals(admin, peerId, marked);
    }
  }

  public static String probe(String table, String probeId) throws IOException {
    TableName name = tableName(table, "table");
    long id = parseLong(probeId, "probe id");
    return CapturePeers.probe(connection(), name, id);
  }

  public static String captureAcks(String ackTable, String probeId) throws IOException {
    TableName name = tableName(ackTable, "ack table");
    long id = parseLong(probeId, "probe id");
    return CapturePeers.acks(connection(), name, id);
  }

  /** See {@link CapturePeers#list}: every presplit capture peer and the root that owns it. */
  public static String listCapturePeers() throws IOException {
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.list(admin);
    }
  }

  /** See {@link CapturePeers#lags}; {@code peerIds}: comma-separated. */
  public static String captureLags(String peerIds) throws IOException {
    java.util.Set<String> ids = new java.util.TreeSet<>();
    for (String id : peerIds.split(",")) {
      if (!id.isEmpty()) {
        ids.add(id);
      }
    }
    try (Admin admin = connection().getAdmin()) {
      return CapturePeers.lags(admin, ids);
    }
  }

  /** How long the regions have to confirm, and again after the stale ones were reopened. */
  static final Duration GUARD_CONFIRM_DEADLINE = Duration.ofSeconds(60);

  /**
   * Waits until every region of {@code table} confirms that its {@link MigrationGuard} refuses
   * what the capture cannot carry, with nothing it let through before still under way
   * ({@link GuardConfirmations}): the guard of a table being captured turns on by itself when the
   * capture's endpoint starts on its RegionServer. A region that does not confirm within 60 s is
   * reopened (which ends every write under way and asks again where it opens), and waited for 60 s
   * more.
   *
   * @return {@code {"regions":N,"reopened":N}}
   */
  public static String confirmGuard(String table) throws IOException {
    TableName name = tableName(table, "table");
    Connection c = connection();
    try {
      GuardConfirmations.Round round =
          GuardConfirmations.awaitSettled(c, name, GUARD_CONFIRM_DEADLINE);
      return "{\"regions\":" + round.states().size() + ",\"reopened\":0}";
    } catch (GuardConfirmations.StaleGuards stale) {
      List<String> failed = new ArrayList<>();
      try (Admin admin = c.getAdmin()) {
        for (String region : stale.regions().keySet()) {
          try {
            admin.move(Bytes.toBytes(region));
          } catch (IOException e) {
            failed.add(region + ": " + AccessDenial.map(AccessDenial.Operation.MOVE, name, e));
          }
        }
      }
      if (!failed.isEmpty()) {
        throw new IOException(stale.getMessage() + "; reopening them failed: "
            + String.join("; ", failed), stale);
      }
      GuardConfirmations.Round round =
          GuardConfirmations.awaitSettled(c, name, GUARD_CONFIRM_DEADLINE);
      return "{\"regions\":" + round.states().size() + ",\"reopened\":"
          + stale.regions().size() + "}";
    }
  }

}
