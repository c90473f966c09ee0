package io.presplit.capture;

import io.presplit.hbase.admin.AccessDenial;
import io.presplit.hbase.admin.JsonText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.replication.ReplicationLoadSource;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfigBuilder;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * presplitd's side of change capture: the replication peers of a migration (added, checked,
 * removed through the HMaster), the probes it writes into a table and the acknowledgements it
 * reads back (see {@link CaptureSignals}). Results are JSON, for the daemon's migration engine.
 *
 * <p>Only peers whose id starts with {@value #PEER_PREFIX} are ever added or removed here, so no
 * operator's replication peer can be touched by a migration.
 */
public final class CapturePeers {
  private static final Logger LOG = LoggerFactory.getLogger(CapturePeers.class);
  public static final String PEER_PREFIX = "presplit_";
  /** The id of every capture peer presplit adds, and of no other. */
  public static final Pattern PEER_ID = Pattern.compile("presplit_[A-Za-z0-9_]{1,200}");

  private CapturePeers() {
  }

  static void checkPeerId(String peerId) {
    if (peerId == null || !PEER_ID.matcher(peerId).matches()) {
      throw new IllegalArgumentException("'" + peerId + "' is not a presplit capture peer id ("
          + PEER_PREFIX + " followed by letters, digits and underscores)");
    }
  }

  /**
   * Adds the peer, enabled, shipping the source table to the capture endpoint, unless it exists:
   * then it must be this capture (same endpoint, table and configuration), or nothing changes and
   * the call fails saying how it differs.
   *
   * <p>Before adding it, flushes the source and records which edits the copy will read from its
   * store files anyway, so the new peer does not ship them again ({@link FlushedBefore}).
   *
   * @return {@code {"added":true,"flushed_regions":N}} or {@code {"added":false}} (it was there
   *     already); N: the regions whose flushed edits the peer skips
   */
  public static String ensure(Admin admin, String peerId, CaptureSpec spec) throws IOException {
    return ensure(admin, peerId, spec, null);
  }

  /**
   * {@link #ensure(Admin, String, CaptureSpec)}, a peer added now marked as owned by the
   * deployment at ZooKeeper root {@code owner} ({@link CaptureSpec#OWNER_KEY}; null or empty: no
   * mark). An existing peer is not compared on it.
   */
  public static String ensure(Admin admin, String peerId, CaptureSpec spec, String owner)
      throws IOException {
    checkPeerId(peerId);
    try {
      return ensureChecked(admin, peerId, spec, owner);
    } catch (IOException e) {
      // Listing, adding and enabling peers take global ADMIN.
      throw AccessDenial.map(AccessDenial.Operation.ADD_PEER, spec.source, e);
    }
  }

  private static String ensureChecked(Admin admin, String peerId, CaptureSpec spec,
      String owner) throws IOException {
    ReplicationPeerDescription existing = find(admin, peerId);
    if (existing != null) {
      String difference = differenceOf(existing.getPeerConfig(), spec);
      if (difference != null) {
        throw new IllegalStateException("replication peer " + peerId + " exists but is not this "
            + "capture: " + difference);
      }
      if (!existing.isEnabled()) {
        admin.enableReplicationPeer(peerId);
      }
      return "{\"added\":false}";
    }
    Map<TableName, List<String>> tables = new HashMap<>();
    tables.put(spec.source, null); // every family
    ReplicationPeerConfigBuilder config = ReplicationPeerConfig.newBuilder()
        .setReplicationEndpointImpl(RekeyingReplicationEndpoint.class.getName())
        .setReplicateAllUserTables(false).setTableCFsMap(tables)
        .putAllConfiguration(spec.toConfiguration());
    if (owner != null && !owner.isEmpty()) {
      config.putConfiguration(CaptureSpec.OWNER_KEY, owner);
    }
    FlushedBefore flushed = flushedBefore(admin, spec.source);
    admin.addReplicationPeer(peerId,
        config.putConfiguration(CaptureSpec.FLUSHED_KEY, flushed.format()).build(), true);
    return "{\"added\":true,\"flushed_regions\":" + flushed.regions() + "}";
  }

  /**
   * Flushes the table and reads, from each RegionServer holding it, every region's highest
   * flushed sequence id, or the sequence id it opened at less one when that is higher: the
   * edits the new peer need not ship (see {@link FlushedBefore}). Only
   * a cost depends on it, so a flush that fails (a region moving) or a server that does not
   * answer leaves regions out, which skips nothing for them.
   */
  static FlushedBefore flushedBefore(Admin admin, TableName table) {
    try {
      admin.flush(table);
    } catch (IOException e) {
      LOG.warn("flushing {} before its capture peer: {}; the peer ships more of the WAL again",
          table, e.toString());
    }
    Set<ServerName> servers = new HashSet<>();
    Map<String, Long> flushed = new HashMap<>();
    try (RegionLocator locator = admin.getConnection().getRegionLocator(table)) {
      for (HRegionLocation location : locator.getAllRegionLocations()) {
        if (location != null && location.getServerName() != null) {
          servers.add(location.getServerName());
          // Everything below the sequence id a region opened at was in its store files when it
          // opened (the close before flushed it, or the open replayed and flushed it): a region
          // reopened since its last flush (a table altered at the copy's end) reports no flush.
          if (location.getSeqNum() > 1) {
            flushed.merge(location.getRegion().getEncodedName(), location.getSeqNum() - 1,
                Math::max);
          }
        }
      }
    } catch (IOException e) {
      LOG.warn("locating {}'s regions: {}; its capture peer ships the whole WAL", table,
          e.toString());
      return FlushedBefore.NOTHING;
    }
    for (ServerName server : servers) {
      try {
        for (RegionMetrics region : admin.getRegionMetrics(server, table)) {
          long seqId = region.getCompletedSequenceId();
          if (seqId > 0) {
            flushed.merge(RegionInfo.encodeRegionName(region.getRegionName()), seqId, Math::max);
          }
        }
      } catch (IOException e) {
        LOG.warn("reading the flushed sequence ids of {} on {}: {}", table, server, e.toString());
      }
    }
    return FlushedBefore.of(flushed);
  }

  /** Removes the peer. @return {@code {"removed":true|false}} (false: there was none) */
  public static String remove(Admin admin, String peerId) throws IOException {
    checkPeerId(peerId);
    try {
      if (find(admin, peerId) == null) {
        return "{\"removed\":false}";
      }
      admin.removeReplicationPeer(peerId);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.REMOVE_PEER, peerId, e);
    }
    return "{\"removed\":true}";
  }

  /**
   * Every replication peer whose id is a presplit capture peer's ({@link #PEER_ID}), with the
   * ZooKeeper root of the deployment that added it ({@link CaptureSpec#OWNER_KEY}; null: added by
   * a version that did not mark its peers).
   *
   * @return {@code {"peers":[{"id":"presplit_...","owner":"/root"|null},...]}}
   */
  public static String list(Admin admin) throws IOException {
    List<ReplicationPeerDescription> peers;
    try {
      peers = admin.listReplicationPeers();
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_PEER, PEER_PREFIX + "*", e);
    }
    return listJson(peers);
  }

  static String listJson(List<ReplicationPeerDescription> peers) {
    StringBuilder json = new StringBuilder("{\"peers\":[");
    boolean first = true;
    for (ReplicationPeerDescription peer : peers) {
      if (!PEER_ID.matcher(peer.getPeerId()).matches()) {
        continue;
      }
      Map<String, String> conf = peer.getPeerConfig() == null ? Map.of()
          : peer.getPeerConfig().getConfiguration();
      String owner = conf.get(CaptureSpec.OWNER_KEY);
      json.append(first ? "" : ",").append("{\"id\":").append(JsonText.quote(peer.getPeerId()))
          .append(",\"owner\":").append(jsonOrNull(owner == null || owner.isEmpty() ? null
              : owner)).append('}');
      first = false;
    }
    return json.append("]}").toString();
  }

  /**
   * How far behind these peers are, as the RegionServers report their replication sources to
   * the HMaster (one ClusterMetrics call): per peer, the largest replication lag and age of the
   * last shipped edit among its sources, and the WAL files they hold, summed (a recovered
   * queue, a dead server's WALs, counts as a source of its own). A peer no server reports (not
   * there, or not started yet) is left out.
   *
   * @return {@code {"peers":[{"id":"presplit_...","lag_ms":N,"age_of_last_shipped_ms":N,
   *     "wal_queue_files":N,"sources":N},...]}}
   */
  public static String lags(Admin admin, Set<String> peerIds) throws IOException {
    for (String peerId : peerIds) {
      checkPeerId(peerId);
    }
    ClusterMetrics cluster;
    try {
      cluster = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_PEER, PEER_PREFIX + "*", e);
    }
    List<ReplicationLoadSource> sources = new ArrayList<>();
    for (ServerMetrics server : cluster.getLiveServerMetrics().values()) {
      sources.addAll(server.getReplicationLoadSourceList());
    }
    return lagsJson(sources, peerIds);
  }

  static String lagsJson(List<ReplicationLoadSource> sources, Set<String> peerIds) {
    Map<String, long[]> byPeer = new TreeMap<>(); // lag, age, queue files, sources
    for (ReplicationLoadSource source : sources) {
      if (!peerIds.contains(source.getPeerID())) {
        continue;
      }
      long[] peer = byPeer.computeIfAbsent(source.getPeerID(), id -> new long[4]);
      peer[0] = Math.max(peer[0], source.getReplicationLag());
      peer[1] = Math.max(peer[1], source.getAgeOfLastShippedOp());
      peer[2] += source.getSizeOfLogQueue();
      peer[3]++;
    }
    StringBuilder json = new StringBuilder("{\"peers\":[");
    boolean first = true;
    for (Map.Entry<String, long[]> e : byPeer.entrySet()) {
      long[] v = e.getValue();
      json.append(first ? "" : ",").append("{\"id\":").append(JsonText.quote(e.getKey()))
          .append(",\"lag_ms\":").append(v[0]).append(",\"age_of_last_shipped_ms\":")
          .append(v[1]).append(",\"wal_queue_files\":").append(v[2]).append(",\"sources\":")
          .append(v[3]).append('}');
      first = false;
    }
    return json.append("]}").toString();
  }

  /**
   * The peer and the queues of it that still hold a dead RegionServer's WALs (see
   * {@link CaptureQueues#recovered}; a probe cannot tell that they shipped).
   *
   * @return {@code {"exists":bool,"enabled":bool,"source":"ns:t"|null,"target":"ns:t"|null,
   *     "recovered_queues":["queue@server",...]}}
   */
  public static String describe(Admin admin, String peerId) throws IOException {
    checkPeerId(peerId);
    ReplicationPeerDescription peer;
    try {
      peer = find(admin, peerId);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_PEER, peerId, e);
    }
    if (peer == null) {
      return "{\"exists\":false,\"enabled\":false,\"source\":null,\"target\":null,"
          + "\"recovered_queues\":[]}";
    }
    Map<String, String> conf = peer.getPeerConfig().getConfiguration();
    StringBuilder recovered = new StringBuilder();
    for (String queue : CaptureQueues.recovered(admin.getConfiguration(),
        admin.getRegionServers(), peerId)) {
      recovered.append(recovered.length() > 0 ? "," : "").append(JsonText.quote(queue));
    }
    return "{\"exists\":true,\"enabled\":" + peer.isEnabled() + ",\"source\":"
        + jsonOrNull(conf.get(CaptureSpec.SOURCE_KEY)) + ",\"target\":"
        + jsonOrNull(conf.get(CaptureSpec.TARGET_KEY)) + ",\"recovered_queues\":[" + recovered
        + "]}";
  }

  /**
   * Marks the peer's replication queues once writes to its table have stopped: the WAL files
   * they list, every live RegionServer's WAL rolled (see {@link CaptureQueues#mark}).
   *
   * @return {@code {"wals":["<file>",...],"servers_rolled":N,"roll_failed":["<server>: why"]}}
   */
  public static String markQueues(Admin admin, String peerId) throws IOException {
    checkPeerId(peerId);
    return CaptureQueues.mark(admin, peerId);
  }

  /**
   * Which of the marked WAL files ({@link #markQueues}) the peer's queues still list: none once
   * the peer has shipped every edit they held, whichever server wrote it.
   *
   * @return {@code {"unshipped":N,"first":["<file>@<queue>@<server>",...]}}
   */
  public static String unshippedWals(Admin admin, String peerId, Set<String> marked)
      throws IOException {
    checkPeerId(peerId);
    try {
      return CaptureQueues.unshipped(admin.getConfiguration(), peerId, marked);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_PEER, peerId, e);
    }
  }

  /**
   * Writes one probe with this id into every region of the table (its first family).
   *
   * @return {@code {"probe_id":N,"rows":["<base64>",...],"acks":["<hex>",...]}}: the probed
   *     rows, one per region, and what acknowledges each ({@link CaptureSignals#probeAckHex},
   *     as {@link #acks} lists them)
   */
  public static String probe(Connection c, TableName table, long probeId) throws IOException {
    if (probeId <= 0) {
      throw new IllegalArgumentException("a probe id is a positive timestamp, got " + probeId);
    }
    byte[] family;
    try (Admin admin = c.getAdmin()) {
      family = admin.getDescriptor(table).getColumnFamilyNames().iterator().next();
    }
    List<byte[]> rows = new ArrayList<>();
    try (RegionLocator locator = c.getRegionLocator(table)) {
      for (HRegionLocation location : locator.getAllRegionLocations()) {
        if (location.getRegion().isSplitParent() || location.getRegion().getReplicaId() != 0) {
          continue;
        }
        byte[] row = probeRow(location.getRegion().getStartKey(),
            location.getRegion().getEndKey());
        if (row != null) {
          rows.add(row);
        }
      }
    }
    List<Delete> probes = new ArrayList<>(rows.size());
    for (byte[] row : rows) {
      probes.add(CaptureSignals.probe(row, family, probeId));
    }
    try (Table t = c.getTable(table)) {
      t.delete(probes);
    }
    return probeJson(probeId, rows);
  }

  static String probeJson(long probeId, List<byte[]> rows) {
    StringBuilder json = new StringBuilder("{\"probe_id\":").append(probeId).append(",\"rows\":[");
    for (int i = 0; i < rows.size(); i++) {
      json.append(i > 0 ? "," : "").append('"')
          .append(Base64.getEncoder().encodeToString(rows.get(i))).append('"');
    }
    json.append("],\"acks\":[");
    for (int i = 0; i < rows.size(); i++) {
      json.append(i > 0 ? "," : "").append('"').append(CaptureSignals.probeAckHex(rows.get(i)))
          .append('"');
    }
    return json.append("]}").toString();
  }

  /**
   * A row inside [start, end) to probe a region with: its start key, or {@code \x00} for the
   * first region; null when the region can hold no row at all. A start key longer than a row
   * may be (HBase takes split keys of any length, rows of at most {@code
   * HConstants.MAX_ROW_LENGTH} bytes) is probed at the smallest row of that length after it.
   */
  static byte[] probeRow(byte[] start, byte[] end) {
    byte[] row = start.length == 0 ? new byte[] {0}
        : start.length <= HConstants.MAX_ROW_LENGTH ? start : firstRowAfter(start);
    if (row == null || (end.length > 0 && Bytes.compareTo(row, end) >= 0)) {
      return null;
    }
    return row;
  }

  /**
   * The smallest row of at most MAX_ROW_LENGTH bytes above a longer key: its first
   * MAX_ROW_LENGTH bytes with the last byte below 0xff raised by one (and the 0xff bytes after it
   * dropped); null when they are all 0xff (no such row).
   */
  private static byte[] firstRowAfter(byte[] key) {
    for (int i = HConstants.MAX_ROW_LENGTH - 1; i >= 0; i--) {
      if (key[i] != (byte) 0xff) {
        byte[] row = Arrays.copyOf(key, i + 1);
        row[i]++;
        return row;
      }
    }
    return null;
  }

  /**
   * What the endpoint acknowledged into {@code ackTable}: the probes with this id (each as
   * {@link CaptureSignals#probeAckHex}, what {@link #probe} said to wait for), the
   * regions of the source whose close it shipped (the latest close time each), the bulk loads
   * into the source it saw, and the source rows that did not fit the source's layout.
   *
   * @return {@code {"probe_acks":["<hex>",...],"closed":{"<region>":ts,...},
   *     "bulk_loads":[{"region":"..","ts":N}],"unfit":[{"row":"<printable>","ts":N}]}}
   */
  public static String acks(Connection c, TableName ackTable, long probeId) throws IOException {
    Scan scan = new Scan().withStartRow(CaptureSignals.ACK_ROW, true)
        .withStopRow(CaptureSignals.ACK_ROW, true).setRaw(true).readAllVersions();
    List<CaptureSignals.Ack> acks = new ArrayList<>();
    try (Table t = c.getTable(ackTable); ResultScanner scanner = t.getScanner(scan)) {
      for (Result r : scanner) {
        acks.addAll(CaptureSignals.parse(r.rawCells()));
      }
    }
    return acksJson(acks, probeId);
  }

  static String acksJson(List<CaptureSignals.Ack> acks, long probeId) {
    StringBuilder probes = new StringBuilder();
    Map<String, Long> closed = new TreeMap<>();
    StringBuilder bulkLoads = new StringBuilder();
    StringBuilder unfit = new StringBuilder();
    for (CaptureSignals.Ack ack : acks) {
      switch (ack.kind()) {
        case PROBE, PROBE_DIGEST -> {
          if (ack.timestamp() == probeId) {
            probes.append(probes.length() > 0 ? "," : "").append('"')
                .append(CaptureSignals.probeAckHex(ack)).append('"');
          }
        }
        case CLOSED -> closed.merge(Bytes.toString(ack.payload()), ack.timestamp(), Math::max);
        case BULK_LOAD -> bulkLoads.append(bulkLoads.length() > 0 ? "," : "")
            .append("{\"region\":").append(JsonText.quote(Bytes.toString(
                ack.payload()))).append(",\"ts\":").append(ack.timestamp()).append('}');
        case UNFIT -> unfit.append(unfit.length() > 0 ? "," : "").append("{\"row\":")
            .append(JsonText.quote(Bytes.toStringBinary(ack.payload())))
            .append(",\"ts\":").append(ack.timestamp()).append('}');
        default -> { }
      }
    }
    StringBuilder json = new StringBuilder("{\"probe_acks\":[").append(probes)
        .append("],\"closed\":{");
    boolean first = true;
    for (Map.Entry<String, Long> e : closed.entrySet()) {
      json.append(first ? "" : ",").append(JsonText.quote(e.getKey())).append(':')
          .append(e.getValue());
      first = false;
    }
    return json.append("},\"bulk_loads\":[").append(bulkLoads).append("],\"unfit\":[")
        .append(unfit).append("]}").toString();
  }

  private static ReplicationPeerDescription find(Admin admin, String peerId) throws IOException {
    for (ReplicationPeerDescription peer : admin.listReplicationPeers(
        Pattern.compile(Pattern.quote(peerId)))) {
      if (peer.getPeerId().equals(peerId)) {
        return peer;
      }
    }
    return null;
  }

  /** How an existing peer's configuration differs from the spec, or null when it does not. */
  static String differenceOf(ReplicationPeerConfig config, CaptureSpec spec) {
    if (!RekeyingReplicationEndpoint.class.getName().equals(config.getReplicationEndpointImpl())) {
      return "its endpoint is " + config.getReplicationEndpointImpl();
    }
    Map<String, String> have = config.getConfiguration();
    for (Map.Entry<String, String> want : spec.toConfiguration().entrySet()) {
      if (!want.getValue().equals(have.get(want.getKey()))) {
        return want.getKey() + " is '" + have.get(want.getKey()) + "', not '" + want.getValue()
            + "'";
      }
    }
    Map<TableName, List<String>> tables = config.getTableCFsMap();
    if (config.replicateAllUserTables() || tables == null || tables.size() != 1
        || !tables.containsKey(spec.source)) {
      return "it does not ship exactly " + spec.source;
    }
    return null;
  }

  private static String jsonOrNull(String s) {
    return s == null ? "null" : JsonText.quote(s);
  }
}
