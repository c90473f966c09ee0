package io.presplit.capture;

import io.presplit.hbase.admin.AccessDenial;
import io.presplit.hbase.admin.JsonText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.replication.ReplicationException;
import org.apache.hadoop.hbase.replication.ReplicationQueueInfo;
import org.apache.hadoop.hbase.replication.ReplicationQueueStorage;
import org.apache.hadoop.hbase.replication.ReplicationStorageFactory;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A capture peer's replication queues, read from HBase's replication queue storage (its
 * ZooKeeper), where each RegionServer lists, per peer, the WAL files its replication source has
 * still to ship. Two questions are answered from there:
 *
 * <ul>
 *   <li>the backlog probes cannot see ({@link #recovered}): the WALs of a RegionServer that died.
 *       A probe is acknowledged by the live server now holding its region, but the edits the dead
 *       server wrote are shipped by a "recovered" queue ({@code <peer>-<dead server>}), claimed by
 *       some live server after the HMaster processed the crash, and shipped later;
 *   <li>the drain of a table nobody writes any more ({@link #mark}, {@link #unshipped}): once
 *       writes to it have stopped, every edit it took is in some WAL file one of the peer's queues
 *       lists now, on the server that wrote it whether or not its region has moved since (a region
 *       moved, split or merged leaves its older edits in the first server's queue, which a probe
 *       into the region's new server says nothing about). Every live server then rolls its WAL,
 *       so each of those files ends; a queue drops a file from its list only once it has read it
 *       to its end and shipped what it held. When none of the marked files is listed any more,
 *       the peer has shipped every edit of the table, whichever server wrote it.
 * </ul>
 *
 * <p>One ZooKeeper client is kept for all calls.
 */
final class CaptureQueues {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureQueues.class);
  /** At most this many unshipped files are named in an answer (their count is always there). */
  static final int NAMED_AT_MOST = 5;
  /** How long a mark waits for the rolls it asked for to show in the queues. */
  private static final long ROLL_TIMEOUT_NANOS = 10_000_000_000L;
  private static final long ROLL_POLL_MS = 100;

  private static ZKWatcher watcher;
  private static String watcherQuorum;

  private CaptureQueues() {
  }

  /**
   * The queues of {@code peerId} that still hold a dead RegionServer's WALs, as
   * {@code queue@server} (empty when none): a queue of the peer under a server that is not alive
   * (not yet claimed), or a recovered queue under a live one, while it still lists a WAL.
   */
  static List<String> recovered(Configuration conf, Collection<ServerName> live,
      String peerId) throws IOException {
    Set<ServerName> alive = new HashSet<>(live);
    List<String> pending = new ArrayList<>();
    for (QueuedWal wal : queued(conf, peerId)) {
      if (!alive.contains(wal.server) || wal.recovered) {
        String queue = wal.queueId + "@" + wal.server;
        if (!pending.contains(queue)) {
          pending.add(queue);
        }
      }
    }
    return pending;
  }

  /**
   * Marks the peer's queues: lists every WAL file any of them holds, then rolls the WAL of every
   * live RegionServer so that each listed file ends, and waits (up to 10 s) until each server's
   * queue of the peer lists a new file: its roll is done. Call it once writes to the shipped table have
   * stopped (its regions reopened read-only): every edit the table took is then in a marked file.
   * A server whose roll fails is named in {@code roll_failed}; a server that died meanwhile has
   * its files claimed as a recovered queue, which ends them too; one that lives on without a roll
   * ends its file at its next roll (hbase.regionserver.logroll.period), which the drain waits
   * for.
   *
   * @return {@code {"wals":["<file>",...],"servers_rolled":N,"roll_failed":["<server>: why"]}}
   */
  static String mark(Admin admin, String peerId) throws IOException {
    TreeSet<String> wals = new TreeSet<>();
    for (QueuedWal wal : queued(admin.getConfiguration(), peerId)) {
      wals.add(wal.name);
    }
    List<String> failed = new ArrayList<>();
    Collection<ServerName> servers;
    try {
      servers = admin.getRegionServers();
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.ROLL_WAL, peerId, e);
    }
    Set<ServerName> asked = new HashSet<>();
    for (ServerName server : servers) {
      try {
        admin.rollWALWriter(server);
        asked.add(server);
      } catch (IOException e) {
        IOException denied = AccessDenial.map(AccessDenial.Operation.ROLL_WAL, peerId, e);
        if (denied != e) {
          throw denied; // every other server would refuse the same
        }
        LOG.warn("capture peer {}: rolling the WAL of {} failed: {}; its marked files end at its "
            + "next roll", peerId, server, e.toString());
        failed.add(server + ": " + e.getMessage());
      }
    }
    // A RegionServer answers before its roll is done. A roll half done while a replication peer
    // is added has made HBase abort the server (the peer's queue lost the new file's position),
    // so presplitd adds no peer meanwhile, and the mark ends only once each server's queue of
    // the peer lists a file it did not mark: the roll is over there.
    Set<ServerName> pending = new HashSet<>(asked);
    long deadline = System.nanoTime() + ROLL_TIMEOUT_NANOS;
    while (!pending.isEmpty()) {
      for (QueuedWal wal : queued(admin.getConfiguration(), peerId)) {
        if (!wal.recovered && !wals.contains(wal.name)) {
          pending.remove(wal.server);
        }
      }
      if (pending.isEmpty() || System.nanoTime() >= deadline) {
        break;
      }
      try {
        Thread.sleep(ROLL_POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for the WAL rolls of " + pending, e);
      }
    }
    for (ServerName server : pending) {
      failed.add(server + ": its queue of " + peerId + " shows no new WAL file "
          + ROLL_TIMEOUT_NANOS / 1_000_000_000L + " s after the roll was asked");
    }
    int rolled = asked.size() - pending.size();
    StringBuilder json = new StringBuilder("{\"wals\":[");
    boolean first = true;
    for (String wal : wals) {
      json.append(first ? "" : ",").append(JsonText.quote(wal));
      first = false;
    }
    json.append("],\"servers_rolled\":").append(rolled).append(",\"roll_failed\":[");
    for (int i = 0; i < failed.size(); i++) {
      json.append(i > 0 ? "," : "").append(JsonText.quote(failed.get(i)));
    }
    return json.append("]}").toString();
  }

  /**
   * The marked files some queue of the peer still lists.
   *
   * @return {@code {"unshipped":N,"first":["<file>@<queue>@<server>",...]}} (at most
   *     {@value #NAMED_AT_MOST} named)
   */
  static String unshipped(Configuration conf, String peerId, Set<String> marked)
      throws IOException {
    return unshippedJson(queued(conf, peerId), marked);
  }

  static String unshippedJson(List<QueuedWal> queued, Set<String> marked) {
    int count = 0;
    StringBuilder first = new StringBuilder();
    for (QueuedWal wal : queued) {
      if (!marked.contains(wal.name)) {
        continue;
      }
      if (count++ < NAMED_AT_MOST) {
        first.append(first.length() > 0 ? "," : "")
            .append(JsonText.quote(wal.name + "@" + wal.queueId + "@" + wal.server));
      }
    }
    return "{\"unshipped\":" + count + ",\"first\":[" + first + "]}";
  }

  /** One WAL file listed by one queue of the peer, under the server replicating that queue. */
  static final class QueuedWal {
    final ServerName server;
    final String queueId;
    final boolean recovered;
    final String name;

    QueuedWal(ServerName server, String queueId, boolean recovered, String name) {
      this.server = server;
      this.queueId = queueId;
      this.recovered = recovered;
      this.name = name;
    }
  }

  /** Every file every queue of the peer lists, under every server that has queues. */
  private static synchronized List<QueuedWal> queued(Configuration conf, String peerId)
      throws IOException {
    ReplicationQueueStorage storage =
        ReplicationStorageFactory.getReplicationQueueStorage(watcher(conf), conf);
    List<QueuedWal> out = new ArrayList<>();
    try {
      for (ServerName server : storage.getListOfReplicators()) {
        for (String queueId : storage.getAllQueues(server)) {
          ReplicationQueueInfo queue = new ReplicationQueueInfo(queueId);
          if (!queue.getPeerId().equals(peerId)) {
            continue;
          }
          for (String wal : storage.getWALsInQueue(server, queueId)) {
            out.add(new QueuedWal(server, queueId, queue.isQueueRecovered(), wal));
          }
        }
      }
    } catch (ReplicationException e) {
      closeWatcher(); // a new client next time: this one may have lost its session
      throw new IOException("reading HBase's replication queues: " + e.getMessage(), e);
    }
    return out;
  }

  private static ZKWatcher watcher(Configuration conf) throws IOException {
    String quorum = conf.get("hbase.zookeeper.quorum", "") + "/"
        + conf.get("zookeeper.znode.parent", "/hbase");
    if (watcher != null && !quorum.equals(watcherQuorum)) {
      closeWatcher();
    }
    if (watcher == null) {
      watcher = new ZKWatcher(conf, "presplit-capture-queues", null);
      watcherQuorum = quorum;
    }
    return watcher;
  }

  private static void closeWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }
}
