package io.presplit.capture;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.replication.ReplicationException;
import org.apache.hadoop.hbase.replication.ReplicationQueueInfo;
import org.apache.hadoop.hbase.replication.ReplicationQueueStorage;
import org.apache.hadoop.hbase.replication.ReplicationStorageFactory;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;

/**
 * The part of a capture peer's backlog that probes cannot see: the WALs of a RegionServer that
 * died. A probe is acknowledged by the live server now holding its region, but the edits the dead
 * server wrote before it died are shipped from its WALs by a "recovered" queue, claimed by some
 * live server after the HMaster has processed the crash, and shipped later. Until that queue is
 * gone, an acknowledged probe does not mean every earlier write arrived.
 *
 * <p>Read from HBase's replication queue storage (its ZooKeeper), where a queue is listed under
 * the server that replicates it: a queue of the peer under a server that is not alive (not yet
 * claimed), or a recovered queue ({@code <peer>-<dead server>}) under a live one, waits while it
 * still lists a WAL. One ZooKeeper client is kept for all calls.
 */
final class RecoveredQueues {
  private static ZKWatcher watcher;
  private static String watcherQuorum;

  private RecoveredQueues() {
  }

  /**
   * The queues of {@code peerId} that still hold a dead RegionServer's WALs, as
   * {@code queue@server} (empty when none).
   */
  static synchronized List<String> pending(Configuration conf, Collection<ServerName> live,
      String peerId) throws IOException {
    ReplicationQueueStorage storage =
        ReplicationStorageFactory.getReplicationQueueStorage(watcher(conf), conf);
    Set<ServerName> alive = new HashSet<>(live);
    List<String> pending = new ArrayList<>();
    try {
      for (ServerName server : storage.getListOfReplicators()) {
        boolean serverAlive = alive.contains(server);
        for (String queueId : storage.getAllQueues(server)) {
          ReplicationQueueInfo queue = new ReplicationQueueInfo(queueId);
          if (!queue.getPeerId().equals(peerId)) {
            continue;
          }
          if ((!serverAlive || queue.isQueueRecovered())
              && !storage.getWALsInQueue(server, queueId).isEmpty()) {
            pending.add(queueId + "@" + server);
          }
        }
      }
    } catch (ReplicationException e) {
      closeWatcher(); // a new client next time: this one may have lost its session
      throw new IOException("reading HBase's replication queues: " + e.getMessage(), e);
    }
    return pending;
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
