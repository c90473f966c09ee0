package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PresplitTables against a real ZooKeeper server in this JVM (no HBase: the SDK reads only
 * ZooKeeper until a table is used): a document or status znode nested 200,000 deep, valid JSON,
 * is refused with the reason and the last good snapshot stays in use.
 */
class PresplitTablesTest {

  static final String DOCUMENT = "{\"version\": 1, \"table\": \"t\", \"layout\": {\"salt\": "
      + "{\"buckets\": 4, \"encoding\": \"decimal\"}, \"group\": {\"length\": 4}}, "
      + "\"split\": {\"algorithm\": \"salt-buckets\"}, \"families\": [{\"name\": \"f\"}]}";

  static String status(String physical, int generation, int buckets) {
    return "{\"table\": \"default:t\", \"phase\": \"ready\", \"physical_table\": \"" + physical
        + "\", \"generation\": " + generation + ", \"buckets\": " + buckets + ", \"layout\": "
        + "{\"salt\": {\"buckets\": " + buckets + ", \"encoding\": \"decimal\", \"width\": "
        + (buckets > 10 ? 2 : 1) + ", \"hash\": \"murmur3\", \"from\": \"group\"}, "
        + "\"group\": {\"length\": 4}}}";
  }

  Path dir;
  ZooKeeperServer server;
  ServerCnxnFactory factory;
  ZooKeeper raw;

  @BeforeEach
  void startZooKeeper() throws Exception {
    dir = Files.createTempDirectory("presplit-zk");
    File data = dir.toFile();
    server = new ZooKeeperServer(data, data, 2000);
    factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 16);
    factory.startup(server);
    CountDownLatch connected = new CountDownLatch(1);
    raw = new ZooKeeper(quorum(), 30_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    assertTrue(connected.await(30, TimeUnit.SECONDS), "no ZooKeeper session");
    for (String path : new String[] {"/presplit", "/presplit/tables", "/presplit/status"}) {
      raw.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  @AfterEach
  void stopZooKeeper() throws Exception {
    if (raw != null) {
      raw.close();
    }
    if (factory != null) {
      factory.shutdown();
    }
    if (server != null) {
      server.shutdown();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
  }

  String quorum() {
    return "127.0.0.1:" + factory.getLocalPort();
  }

  /** Writes a znode the way a faulty portal or zkCli would: bytes, no validation. */
  void set(String path, String text) throws Exception {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    try {
      raw.setData(path, data, -1);
    } catch (KeeperException.NoNodeException e) {
      raw.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  @Test
  void aZnodeNestedTooDeepKeepsTheLastGoodSnapshot() throws Exception {
    set("/presplit/tables/default:t", DOCUMENT);
    set("/presplit/status/default:t", status("default:t", 1, 4));
    String deep = JsonBoundsTest.deepObjects(200_000);
    PresplitTables.Options options = new PresplitTables.Options().resyncMs(0);
    try (PresplitTables tables = PresplitTables.open(null, quorum(), "/presplit", options)) {
      SaltedTable t = tables.table("t");
      TableSnapshot good = t.snapshot();
      assertEquals("ready", good.phase());
      assertEquals(1, good.generation());

      // The document, then the status too, then the status alone nested too deep: every
      // refresh (the test's and the watches') fails to load, so the snapshot is the same object.
      // (A refresh that loads a good state builds a new, equal one.)
      set("/presplit/tables/default:t", deep);
      tables.refresh();
      assertSame(good, t.snapshot());
      set("/presplit/status/default:t", "{\"phase\": \"ready\", \"layout\": " + deep + "}");
      tables.refresh();
      assertSame(good, t.snapshot());
      set("/presplit/tables/default:t", DOCUMENT);
      tables.refresh();
      assertSame(good, t.snapshot());

      // A good status again is followed at once: the refreshes above did read the znodes.
      set("/presplit/status/default:t", status("default:t__g2", 2, 16));
      tables.refresh();
      assertNotSame(good, t.snapshot());
      assertEquals(2, t.snapshot().generation());
      assertEquals(16, t.snapshot().layout().buckets());

      // A table first opened on a document nested too deep: refused, with the reason.
      set("/presplit/tables/default:deep", "[" + deep + "]");
      PresplitConfigException e =
          assertThrows(PresplitConfigException.class, () -> tables.table("deep"));
      assertTrue(e.getMessage().contains(
          "/presplit/tables/default:deep cannot be read: JSON nested deeper than 64 levels"),
          e.getMessage());
    }
  }
}
