package io.presplit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Opens a ZooKeeper session to presplit's quorum and returns once it is connected: the one way
 * the SDK ({@link PresplitTables}) and {@code io.presplit.admin} open theirs. Credentials are
 * added before the session is established, so nothing runs unauthenticated.
 */
public final class ZkConnect {

  private ZkConnect() {
  }

  /**
   * The connected session.
   *
   * @param secret digest credentials ({@code user:password}), or null for none
   * @param onSessionState every later state change of the session (Expired, Disconnected, ...),
   *     on ZooKeeper's event thread; may be null
   * @throws PresplitConfigException when the session is not connected within
   *     {@code connectTimeoutMs}
   */
  public static ZooKeeper connect(String quorum, int sessionTimeoutMs, long connectTimeoutMs,
      byte[] secret, Consumer<Watcher.Event.KeeperState> onSessionState) throws IOException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper z = new ZooKeeper(quorum, sessionTimeoutMs, event -> {
      if (event.getType() != Watcher.Event.EventType.None) {
        return;
      }
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
      if (onSessionState != null) {
        onSessionState.accept(event.getState());
      }
    });
    if (secret != null) {
      z.addAuthInfo("digest", secret);
    }
    try {
      if (!connected.await(connectTimeoutMs, TimeUnit.MILLISECONDS)) {
        z.close();
        throw new PresplitConfigException("cannot reach presplit's ZooKeeper at " + quorum
            + " within " + connectTimeoutMs + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while connecting to ZooKeeper " + quorum);
    }
    return z;
  }
}
