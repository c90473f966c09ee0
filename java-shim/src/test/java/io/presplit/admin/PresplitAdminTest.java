package io.presplit.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PresplitAdmin against a real ZooKeeper server in this JVM and libpresplit through JNI: the
 * validator's pointers, compare-and-set, awaitApplied on statuses written here as presplitd would,
 * the ACLs of the credentials file, and the migration requests' rules.
 */
class PresplitAdminTest {

  static final String DOCUMENT = "{\"version\": 1, \"table\": \"t\", \"layout\": {\"salt\": "
      + "{\"buckets\": 4, \"encoding\": \"decimal\"}, \"group\": {\"length\": 4}}, "
      + "\"split\": {\"algorithm\": \"salt-buckets\"}, \"families\": [{\"name\": \"f\"}]}";
  static final String PORTAL_ID = "portal:16ciC4sAPjH/zeFdaN3ZY7WdiuQ="; // portal:portal-secret
  static final String DAEMON_ID = "daemon:ij6ZJUCqoxs8PpCJSem+Yyn9jm0="; // daemon:daemon-secret

  Path dir;
  ZooKeeperServer server;
  ServerCnxnFactory factory;
  ZooKeeper raw;

  @BeforeEach
  void startZooKeeper() throws Exception {
    dir = Files.createTempDirectory("presplit-admin-zk");
    File data = dir.resolve("zk").toFile();
    assertTrue(data.mkdir());
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

  static String withBuckets(Object buckets) {
    return DOCUMENT.replace("\"buckets\": 4", "\"buckets\": " + buckets);
  }

  /** Writes a status as presplitd does (raw bytes; the daemon's identity is not modelled). */
  void writeStatus(String table, String phase, int configVersion) throws Exception {
    writeStatus(table, table, phase, configVersion);
  }

  void writeStatus(String table, String physicalTable, String phase, int configVersion)
      throws Exception {
    byte[] data = ("{\"table\": \"" + table + "\", \"phase\": \"" + phase + "\", "
        + "\"physical_table\": \"" + physicalTable + "\", \"generation\": 1, \"regions\": 4, "
        + "\"config_version\": " + configVersion + "}").getBytes(StandardCharsets.UTF_8);
    String path = "/presplit/status/" + table;
    if (raw.exists("/presplit/status", false) == null) {
      raw.create("/presplit/status", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);
    }
    try {
      raw.setData(path, data, -1);
    } catch (KeeperException.NoNodeException e) {
      raw.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }

  /** A znode's ACL as the portal sees it (ZooKeeper shows digests to administrators only). */
  List<ACL> aclAsPortal(String path) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper portal = new ZooKeeper(quorum(), 30_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      portal.addAuthInfo("digest", "portal:portal-secret".getBytes(StandardCharsets.UTF_8));
      assertTrue(connected.await(30, TimeUnit.SECONDS), "no ZooKeeper session");
      return portal.getACL(path, new Stat());
    } finally {
      portal.close();
    }
  }

  Path credentials(String identity) throws Exception {
    Path file = dir.resolve(identity.substring(0, identity.indexOf(':')) + ".conf");
    Files.writeString(file, "identity = " + identity + "\nportal = " + PORTAL_ID + "\ndaemon = "
        + DAEMON_ID + "\n");
    return file;
  }

  // ---- the validator: libpresplit's, with pointers ----

  @Test
  void validatePointsAtTheRefusedField() throws Exception {
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit")) {
      ValidationResult zero = admin.validate(withBuckets(0));
      assertFalse(zero.isValid());
      assertEquals(1, zero.errors().size());
      assertEquals("/layout/salt/buckets", zero.errors().get(0).pointer());
      assertTrue(zero.errors().get(0).message().contains("between 1 and 10000"),
          zero.errors().get(0).message());
      assertNull(zero.canonical());
      assertEquals("/layout/salt/buckets",
          admin.validate(withBuckets("\"four\"")).errors().get(0).pointer());
      String noName = DOCUMENT.replace("{\"name\": \"f\"}", "{\"name\": \"\"}");
      assertEquals("/families/0/name", admin.validate(noName).errors().get(0).pointer());
      String twice = DOCUMENT.replace("{\"name\": \"f\"}", "{\"name\": \"f\"}, {\"name\": \"f\"}");
      assertEquals("/families/1/name", admin.validate(twice).errors().get(0).pointer());
      String typo = DOCUMENT.replace("\"group\": {\"length\": 4}", "\"group\": {\"lenght\": 4}");
      assertEquals("/layout/group/lenght", admin.validate(typo).errors().get(0).pointer());
      String algorithm = DOCUMENT.replace("salt-buckets", "salted");
      assertEquals("/split/algorithm", admin.validate(algorithm).errors().get(0).pointer());
      ValidationResult broken = admin.validate("{\"version\": 1,");
      assertEquals("", broken.errors().get(0).pointer());
      assertTrue(broken.errors().get(0).message().startsWith("malformed JSON"));
    }
  }

  @Test
  void validateGivesTheCanonicalFormAndPlanTheSplitKeys() throws Exception {
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit")) {
      String described = DOCUMENT.replace("\"table\": \"t\"",
          "\"table\": \"t\", \"description\": \"caf\u00e9 \u2603\"");
      ValidationResult v = admin.validate(described);
      assertTrue(v.isValid(), v.toString());
      assertEquals("default:t", v.table());
      assertTrue(v.canonical().contains("\"width\": 1"), v.canonical());
      assertTrue(v.canonical().contains("caf\u00e9 \u2603"), v.canonical());
      assertEquals(v.canonical(), admin.validate(v.canonical()).canonical());
      Plan plan = admin.plan(DOCUMENT);
      assertEquals(4, plan.regions());
      List<byte[]> keys = plan.splitKeys();
      assertEquals(3, keys.size());
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(String.valueOf(i + 1).getBytes(StandardCharsets.US_ASCII), keys.get(i));
      }
      InvalidDocumentException e = assertThrows(InvalidDocumentException.class,
          () -> admin.plan(withBuckets(0)));
      assertEquals("/layout/salt/buckets", e.errors().get(0).pointer());
    }
  }

  // ---- documents in ZooKeeper ----

  @Test
  void putCompareAndSetGetListRemove() throws Exception {
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit")) {
      assertTrue(admin.list().isEmpty());
      assertEquals(0, admin.put(DOCUMENT, PresplitAdmin.NEW));
      assertEquals(0, admin.put(DOCUMENT), "the same bytes again: nothing written");
      String eight = withBuckets(8);
      assertEquals(1, admin.put(eight));
      VersionConflictException stale = assertThrows(VersionConflictException.class,
          () -> admin.put(DOCUMENT, 0));
      assertEquals(1, stale.currentVersion());
      assertEquals(0, stale.expectedVersion());
      assertTrue(stale.getMessage().contains("at version 1"), stale.getMessage());
      VersionConflictException exists = assertThrows(VersionConflictException.class,
          () -> admin.put(DOCUMENT, PresplitAdmin.NEW));
      assertEquals(1, exists.currentVersion());
      assertEquals(eight, admin.get("t").get().json(), "a conflict writes nothing");
      assertEquals(2, admin.put(DOCUMENT, 1));

      InvalidDocumentException invalid = assertThrows(InvalidDocumentException.class,
          () -> admin.put(withBuckets(0)));
      assertEquals("/layout/salt/buckets", invalid.errors().get(0).pointer());
      StoredDocument stored = admin.get("default:t").get();
      assertEquals(2, stored.version(), "an invalid document writes nothing");
      assertEquals(DOCUMENT, stored.json());
      assertEquals("default:t", stored.table());
      assertEquals(List.of("default:t"), admin.list());

      assertTrue(admin.remove("t"));
      assertFalse(admin.remove("t"));
      assertTrue(admin.get("t").isEmpty());
      VersionConflictException gone = assertThrows(VersionConflictException.class,
          () -> admin.put(DOCUMENT, 2));
      assertEquals(PresplitAdmin.NEW, gone.currentVersion());
    }
  }

  @Test
  void awaitAppliedWaitsForTheVersionInAFinalPhase() throws Exception {
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit")) {
      int version = admin.put(DOCUMENT);
      int next = admin.put(withBuckets(8));
      assertEquals(version + 1, next);
      // Nothing yet, then the previous version's ready: neither is the answer.
      ApplyTimeoutException none = assertThrows(ApplyTimeoutException.class,
          () -> admin.awaitApplied("t", next, Duration.ofMillis(300)));
      assertNull(none.lastStatus());
      writeStatus("default:t", "ready", version);
      ApplyTimeoutException old = assertThrows(ApplyTimeoutException.class,
          () -> admin.awaitApplied("t", next, Duration.ofMillis(300)));
      assertEquals(version, old.lastStatus().configVersion());
      assertTrue(old.getMessage().contains("phase ready of version " + version),
          old.getMessage());
      // creating, then ready, written while awaitApplied waits.
      Thread daemon = new Thread(() -> {
        try {
          Thread.sleep(200);
          writeStatus("default:t", "creating", next);
          Thread.sleep(200);
          writeStatus("default:t", "drift", next);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      daemon.start();
      TableStatus applied = admin.awaitApplied("t", next, Duration.ofSeconds(30));
      daemon.join();
      assertEquals("drift", applied.phase());
      assertEquals(next, applied.configVersion());
      writeStatus("default:t", "invalid", next);
      assertEquals("invalid", admin.awaitApplied("t", next, Duration.ofSeconds(5)).phase());
      assertEquals("invalid", admin.status("t").get().phase());
      writeStatus("default:t", "ready", next);
      TableStatus ready = admin.awaitApplied("default:t", next, Duration.ofSeconds(5));
      assertEquals("ready", ready.phase());
      assertEquals(4, ready.regions());
      assertTrue(admin.status("other").isEmpty());
    }
  }

  // ---- access control ----

  @Test
  void createsWithTheFilesAclsAndRefusesOtherIdentities() throws Exception {
    PresplitAdmin.Options portal = new PresplitAdmin.Options()
        .authFile(credentials("portal:portal-secret"));
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit", portal)) {
      assertEquals(0, admin.put(DOCUMENT));
    }
    List<ACL> acl = aclAsPortal("/presplit/tables/default:t");
    assertEquals(List.of(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("digest",
        PORTAL_ID)), new ACL(ZooDefs.Perms.READ, new org.apache.zookeeper.data.Id("digest",
        DAEMON_ID)), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)), acl);
    // <root>: ZooKeeper shows its digests to the daemon only; the users and permissions to all.
    List<ACL> rootAcl = raw.getACL("/presplit", new Stat());
    assertEquals(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, rootAcl.stream()
        .filter(a -> a.getId().getId().startsWith("portal:")).findFirst().get().getPerms());
    assertEquals(ZooDefs.Perms.ALL, rootAcl.stream()
        .filter(a -> a.getId().getId().startsWith("daemon:")).findFirst().get().getPerms());

    // Unauthenticated, and as the daemon: may read, may not write.
    try (PresplitAdmin anyone = PresplitAdmin.open(quorum(), "/presplit")) {
      assertEquals(DOCUMENT, anyone.get("t").get().json());
      PresplitAdminException e = assertThrows(PresplitAdminException.class,
          () -> anyone.put(withBuckets(8)));
      assertTrue(e.getMessage().startsWith("not authorised to write /presplit/tables/default:t"),
          e.getMessage());
      assertTrue(e.getMessage().contains("an unauthenticated session"), e.getMessage());
      assertThrows(PresplitAdminException.class, () -> anyone.remove("t"));
    }
    PresplitAdmin.Options daemon = new PresplitAdmin.Options()
        .digestAuth("daemon", "daemon-secret");
    try (PresplitAdmin other = PresplitAdmin.open(quorum(), "/presplit", daemon)) {
      PresplitAdminException e = assertThrows(PresplitAdminException.class,
          () -> other.put(withBuckets(8), 0));
      assertTrue(e.getMessage().contains("this session (digest:daemon)"), e.getMessage());
    }
    // The portal's digest identity alone: a new document takes the ACL of <root>/tables.
    PresplitAdmin.Options digest = new PresplitAdmin.Options()
        .digestAuth("portal", "portal-secret");
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit", digest)) {
      assertEquals(1, admin.put(withBuckets(8), 0));
      assertEquals(0, admin.put(DOCUMENT.replace("\"t\"", "\"ns:u\"")));
    }
    assertEquals(acl, aclAsPortal("/presplit/tables/ns:u"));
    assertEquals(1, raw.exists("/presplit/tables/default:t", false).getVersion());

    // Migration requests: the daemon's identity in their ACL comes from the file only.
    // presplitd's part, as the daemon: the plan and <root>/requests with its ACL.
    raw.addAuthInfo("digest", "daemon:daemon-secret".getBytes(StandardCharsets.UTF_8));
    writePlan("copying", false);
    raw.create("/presplit/requests", new byte[0], java.util.Arrays.asList(
        new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("digest", DAEMON_ID)),
        new ACL(ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE | ZooDefs.Perms.READ,
            new org.apache.zookeeper.data.Id("digest", PORTAL_ID)),
        new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)), CreateMode.PERSISTENT);
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit", digest)) {
      PresplitAdminException e = assertThrows(PresplitAdminException.class,
          () -> admin.migration("t").pause());
      assertTrue(e.getMessage().contains("needs presplit's credentials file"), e.getMessage());
    }
    try (PresplitAdmin anyone = PresplitAdmin.open(quorum(), "/presplit")) {
      PresplitAdminException e = assertThrows(PresplitAdminException.class,
          () -> anyone.migration("t").pause());
      assertTrue(e.getMessage().startsWith("not authorised to write /presplit/requests/default:t"),
          e.getMessage());
    }
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit", portal)) {
      assertTrue(admin.migration("t").pause());
    }
    List<ACL> request = raw.getACL("/presplit/requests/default:t", new Stat());
    assertEquals(ZooDefs.Perms.READ | ZooDefs.Perms.WRITE, request.stream()
        .filter(a -> a.getId().getId().equals(PORTAL_ID)).findFirst().get().getPerms());
    assertEquals(ZooDefs.Perms.ALL, request.stream()
        .filter(a -> a.getId().getId().equals(DAEMON_ID)).findFirst().get().getPerms());
  }

  @Test
  void aBadCredentialsFileIsRefusedWithoutItsPassword() throws Exception {
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "identity = portal:s3cret-pw\nportal = other\ndaemon = " + DAEMON_ID
        + "\n");
    PresplitAdminException e = assertThrows(PresplitAdminException.class,
        () -> new PresplitAdmin.Options().authFile(file));
    assertTrue(e.getMessage().contains("portal: user 'other' is not this file's identity"),
        e.getMessage());
    assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
  }

  // ---- migrations ----

  void writePlan(String phase, boolean paused) throws Exception {
    for (String path : new String[] {"/presplit", "/presplit/migrations"}) {
      if (raw.exists(path, false) == null) {
        raw.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }
    }
    byte[] plan = ("{\"phase\": \"" + phase + "\", \"paused\": " + paused + ", \"source\": "
        + "\"default:t\", \"target\": \"default:t__g2\", \"target_generation\": 2, "
        + "\"source_regions\": [\"a\", \"b\"]}").getBytes(StandardCharsets.UTF_8);
    String path = "/presplit/migrations/default:t";
    if (raw.exists(path, false) == null) {
      raw.create(path, plan, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } else {
      raw.setData(path, plan, -1);
    }
  }

  String request() throws Exception {
    return new String(raw.getData("/presplit/requests/default:t", false, null),
        StandardCharsets.UTF_8);
  }

  @Test
  void migrationRequestsFollowPresplitctlsRules() throws Exception {
    try (PresplitAdmin admin = PresplitAdmin.open(quorum(), "/presplit")) {
      MigrationControl m = admin.migration("t");
      assertTrue(m.status().isEmpty());
      assertThrows(MigrationRefusedException.class, m::pause);

      writePlan("copying", false);
      assertFalse(m.resume(), "not paused: nothing to resume");
      assertNull(raw.exists("/presplit/requests/default:t", false));
      MigrationRefusedException early = assertThrows(MigrationRefusedException.class,
          m::rollback);
      assertTrue(early.getMessage().contains("abort it instead"), early.getMessage());
      assertTrue(m.pause());
      assertTrue(request().contains("\"request\":\"pause\""), request());
      MigrationStatus s = m.status().get();
      assertTrue(s.isUnderWay());
      assertEquals("copying", s.phase());
      assertEquals("pause", s.pendingRequest());
      assertEquals("default:t__g2", s.target());
      assertEquals(2, s.regionsTotal());
      assertTrue(m.resume(), "a pause pending: resume overrides it");
      assertTrue(request().contains("\"request\":\"resume\""), request());

      writePlan("grace", false);
      MigrationRefusedException late = assertThrows(MigrationRefusedException.class, m::abort);
      assertTrue(late.getMessage().startsWith("abort refused"), late.getMessage());
      assertTrue(m.rollback());
      assertTrue(request().contains("\"request\":\"rollback\""), request());
      writePlan("done", false);
      assertThrows(MigrationRefusedException.class, m::rollback);

      // In `switching` the status decides: before its write the switch has not happened...
      writePlan("switching", false);
      writeStatus("default:t", "ready", 1);
      MigrationRefusedException before = assertThrows(MigrationRefusedException.class,
          m::rollback);
      assertTrue(before.getMessage().contains("has not switched (phase switching)"),
          before.getMessage());
      // ...after it (the plan not written yet) readers use the new generation.
      writeStatus("default:t", "default:t__g2", "ready", 1);
      MigrationRefusedException after = assertThrows(MigrationRefusedException.class, m::abort);
      assertTrue(after.getMessage().contains("already names default:t__g2"), after.getMessage());
      assertTrue(m.rollback());
      // A failed verification waits already: pause is refused, resume verifies again.
      writePlan("failed_verification", false);
      assertThrows(MigrationRefusedException.class, m::pause);
      assertTrue(m.resume());
    }
  }
}
