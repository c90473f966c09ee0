package io.presplit.admin;

import io.presplit.client.PresplitConfigException;
import io.presplit.client.ZkConnect;
import io.presplit.client.ZkSessionOptions;
import io.presplit.hbase.nativelib.DocumentCheck;
import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * A portal's hand on presplit: validates table documents with libpresplit's own parser (the one
 * presplitd uses, through the JNI library inside presplit-hbase.jar), previews their split keys,
 * writes them to ZooKeeper with compare-and-set, reads them back, and waits for presplitd to apply
 * them. It writes what {@code presplitctl put}, {@code rm} and {@code migration} write, where
 * they write it ({@code <root>/tables/<ns>:<table>}, {@code <root>/requests/<ns>:<table>}), with
 * the same ACLs.
 *
 * <pre>{@code
 * try (PresplitAdmin admin = PresplitAdmin.open("zk1:2181", "/presplit",
 *     new PresplitAdmin.Options().authFile(Path.of("/etc/portal/zk-auth.conf")))) {
 *   ValidationResult v = admin.validate(json);      // as the user types
 *   int version = admin.put(json);                  // or put(json, versionTheFormWasLoadedAt)
 *   TableStatus s = admin.awaitApplied(v.table(), version, Duration.ofMinutes(2));
 * }
 * }</pre>
 *
 * <p>Thread-safe: one instance serves a whole portal. Close it to end its ZooKeeper session.
 */
public final class PresplitAdmin implements Closeable {
  /** The expected version of a document that must not exist yet (a create). */
  public static final int NEW = -1;

  /** Options of {@link #open(String, String, Options)}. */
  public static final class Options extends ZkSessionOptions<Options> {
    AdminCredentials credentials;

    /**
     * Authenticate with presplit's credentials file (presplitctl's {@code --auth-file}: the
     * portal's {@code identity} and the {@code portal}, {@code daemon} and {@code readers} the
     * znodes it creates are given to).
     */
    public Options authFile(Path file) throws IOException {
      this.credentials = AdminCredentials.fromFile(file);
      return this;
    }

    /**
     * Authenticate as digest {@code user:password}. Without the file's ACL lines, a new document
     * takes the ACL of {@code <root>/tables} (the same, by presplit's ACLs), {@code <root>} and
     * {@code <root>/tables} must exist already, and a new migration request is refused (its ACL
     * names the daemon's identity): use {@link #authFile} for those.
     */
    public Options digestAuth(String user, String password) {
      this.credentials = AdminCredentials.digest(user, password);
      return this;
    }

    @Override
    protected Options self() {
      return this;
    }
  }

  private final String quorum;
  private final String root;
  private final Options options;
  private final Object zkLock = new Object();
  private ZooKeeper zk; // under zkLock
  private volatile boolean closed;

  private PresplitAdmin(String quorum, String root, Options options) {
    this.quorum = quorum;
    this.root = root.length() > 1 && root.endsWith("/") ? root.substring(0, root.length() - 1)
        : root;
    this.options = options;
  }

  /** {@link #open(String, String, Options)} without credentials. */
  public static PresplitAdmin open(String zkQuorum, String root) throws IOException {
    return open(zkQuorum, root, new Options());
  }

  /**
   * Connects to presplit's ZooKeeper.
   *
   * @param zkQuorum {@code host:port[,host:port...]}
   * @param root presplit's root znode, {@code /presplit} by default
   */
  public static PresplitAdmin open(String zkQuorum, String root, Options options)
      throws IOException {
    if (zkQuorum == null || zkQuorum.isEmpty() || root == null || !root.startsWith("/")) {
      throw new IllegalArgumentException("a ZooKeeper quorum and an absolute root are needed");
    }
    PresplitAdmin admin = new PresplitAdmin(zkQuorum, root, options);
    synchronized (admin.zkLock) {
      admin.zk = admin.connect();
    }
    return admin;
  }

  private ZooKeeper connect() throws IOException {
    try {
      return ZkConnect.connect(quorum, options.sessionTimeoutMs(), options.connectTimeoutMs(),
          options.credentials == null ? null : options.credentials.secret(), null);
    } catch (PresplitConfigException e) {
      throw new PresplitAdminException(e.getMessage(), e);
    }
  }

  /** The session, replaced when it expired (nothing this class holds is tied to a session). */
  private ZooKeeper zk() throws IOException {
    synchronized (zkLock) {
      if (closed) {
        throw new PresplitAdminException("PresplitAdmin is closed");
      }
      if (!zk.getState().isAlive()) {
        try {
          zk.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        zk = connect();
      }
      return zk;
    }
  }

  @Override
  public void close() {
    synchronized (zkLock) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (zk != null) {
          zk.close();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---- documents, offline ----

  /** Checks a document with libpresplit's parser, as presplitd and presplitctl put do. */
  public ValidationResult validate(String json) throws PresplitAdminException {
    DocumentCheck check = check(json);
    if (check.isValid()) {
      return new ValidationResult(check.table(), check.canonical(), List.of());
    }
    return new ValidationResult(null, null,
        List.of(new ValidationError(check.pointer(), check.message())));
  }

  /** The split keys and notes of a valid document, as {@code presplitctl plan}. */
  public Plan plan(String json) throws PresplitAdminException {
    DocumentCheck check = valid(json);
    return new Plan(check.table(), check.splitKeys(), check.notes());
  }

  private static DocumentCheck check(String json) throws PresplitAdminException {
    if (json == null) {
      throw new IllegalArgumentException("the document must not be null");
    }
    try {
      return PresplitNative.checkTableDocument(json.getBytes(StandardCharsets.UTF_8));
    } catch (NativeException e) {
      throw new PresplitAdminException("cannot check the document with libpresplit: "
          + e.getMessage(), e);
    }
  }

  private static DocumentCheck valid(String json) throws PresplitAdminException {
    DocumentCheck check = check(json);
    if (!check.isValid()) {
      throw new InvalidDocumentException(
          List.of(new ValidationError(check.pointer(), check.message())));
    }
    return check;
  }

  // ---- documents in ZooKeeper ----

  /**
   * Validates, then writes the document to {@code <root>/tables/<ns>:<table>} whatever version is
   * stored (as {@code presplitctl put}). A document byte-for-byte equal to the stored one is not
   * written again (no new revision for presplitd to look at).
   *
   * @return the znode version that now holds the document
   * @throws InvalidDocumentException when libpresplit refuses it; nothing is written
   */
  public int put(String json) throws IOException {
    return write(json, null);
  }

  /**
   * Compare-and-set: writes only if the stored document is still at {@code expectedVersion}
   * ({@link StoredDocument#version()}), or, with {@link #NEW}, only if there is none.
   *
   * @throws VersionConflictException naming the current version when it is not; nothing written
   * @throws InvalidDocumentException when libpresplit refuses it; nothing is written
   */
  public int put(String json, int expectedVersion) throws IOException {
    if (expectedVersion < NEW) {
      throw new IllegalArgumentException("expected version " + expectedVersion
          + " (a znode version, or NEW)");
    }
    return write(json, expectedVersion);
  }

  private int write(String json, Integer expected) throws IOException {
    DocumentCheck check = valid(json);
    String table = check.table();
    String path = documentPath(table);
    byte[] data = json.getBytes(StandardCharsets.UTF_8);
    ZooKeeper z = zk();
    ensure(z, root, acl -> acl.rootAcl());
    ensure(z, tablesPath(), acl -> acl.tablesAcl());
    try {
      if (expected == null) {
        Stat stat = new Stat();
        try {
          byte[] current = z.getData(path, false, stat);
          if (Arrays.equals(current, data)) {
            return stat.getVersion();
          }
          return z.setData(path, data, stat.getVersion()).getVersion();
        } catch (KeeperException.NoNodeException e) {
          z.create(path, data, documentAcl(z), CreateMode.PERSISTENT);
          return 0;
        } catch (KeeperException.BadVersionException e) {
          // Written by someone else between the read and the write: last writer wins, as put.
          return z.setData(path, data, -1).getVersion();
        }
      }
      if (expected == NEW) {
        try {
          z.create(path, data, documentAcl(z), CreateMode.PERSISTENT);
          return 0;
        } catch (KeeperException.NodeExistsException e) {
          throw new VersionConflictException(table, NEW, currentVersion(z, path));
        }
      }
      try {
        return z.setData(path, data, expected).getVersion();
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
        throw new VersionConflictException(table, expected, currentVersion(z, path));
      }
    } catch (KeeperException e) {
      throw refused("write", path, e);
    } catch (InterruptedException e) {
      throw interrupted(path);
    }
  }

  private static int currentVersion(ZooKeeper z, String path)
      throws KeeperException, InterruptedException {
    Stat stat = z.exists(path, false);
    return stat == null ? NEW : stat.getVersion();
  }

  /** The stored document of a table ({@code ns:qualifier}, or a qualifier in default). */
  public Optional<StoredDocument> get(String table) throws IOException {
    String name = canonical(table);
    String path = documentPath(name);
    try {
      Stat stat = new Stat();
      byte[] data = zk().getData(path, false, stat);
      return Optional.of(new StoredDocument(name, new String(data, StandardCharsets.UTF_8),
          stat.getVersion()));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (KeeperException e) {
      throw refused("read", path, e);
    } catch (InterruptedException e) {
      throw interrupted(path);
    }
  }

  /** The tables that have a document, sorted. */
  public List<String> list() throws IOException {
    try {
      List<String> names = new ArrayList<>(zk().getChildren(tablesPath(), false));
      Collections.sort(names);
      return names;
    } catch (KeeperException.NoNodeException e) {
      return List.of(); // nothing written yet
    } catch (KeeperException e) {
      throw refused("read", tablesPath(), e);
    } catch (InterruptedException e) {
      throw interrupted(tablesPath());
    }
  }

  /**
   * Removes a table's document (as {@code presplitctl rm}): presplitd removes its status; the
   * HBase table and its data are left as they are.
   *
   * @return false when there was no document
   */
  public boolean remove(String table) throws IOException {
    String path = documentPath(canonical(table));
    try {
      zk().delete(path, -1);
      return true;
    } catch (KeeperException.NoNodeException e) {
      return false;
    } catch (KeeperException e) {
      throw refused("delete", path, e);
    } catch (InterruptedException e) {
      throw interrupted(path);
    }
  }

  // ---- statuses ----

  /** presplitd's status of the table; empty when there is none (yet). */
  public Optional<TableStatus> status(String table) throws IOException {
    return readStatus(zk(), statusPath(canonical(table)), null);
  }

  private Optional<TableStatus> readStatus(ZooKeeper z, String path, Watcher watcher)
      throws IOException {
    try {
      byte[] data;
      try {
        data = z.getData(path, watcher, null);
      } catch (KeeperException.NoNodeException e) {
        if (watcher != null && z.exists(path, watcher) != null) {
          data = z.getData(path, watcher, null); // created in between
        } else {
          return Optional.empty();
        }
      }
      try {
        return Optional.of(TableStatus.parse(data));
      } catch (IllegalArgumentException e) {
        throw new PresplitAdminException(path + ": " + e.getMessage(), e);
      }
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (KeeperException e) {
      throw refused("read", path, e);
    } catch (InterruptedException e) {
      throw interrupted(path);
    }
  }

  /**
   * Waits until presplitd's status describes document version {@code version} (its
   * {@code config_version}) in a final phase ({@code ready}, {@code error}, {@code invalid},
   * {@code drift}), and returns it. Watches the status znode; a status of an older version, or of
   * this version still {@code creating}, is waited past.
   *
   * @throws ApplyTimeoutException when {@code timeout} passes first (it carries the last status)
   */
  public TableStatus awaitApplied(String table, int version, Duration timeout)
      throws IOException {
    String path = statusPath(canonical(table));
    long deadline = System.nanoTime() + timeout.toNanos();
    Semaphore changed = new Semaphore(0);
    Watcher watcher = event -> changed.release();
    TableStatus last = null;
    while (true) {
      Optional<TableStatus> status = readStatus(zk(), path, watcher);
      if (status.isPresent()) {
        last = status.get();
        if (last.configVersion() == version && last.isFinal()) {
          return last;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new ApplyTimeoutException(canonical(table), version, timeout, last);
      }
      try {
        // The watch wakes this at the next change; at most a second apart regardless, in case
        // the session was replaced and its watches lost.
        changed.tryAcquire(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
        changed.drainPermits();
      } catch (InterruptedException e) {
        throw interrupted(path);
      }
    }
  }

  // ---- migrations ----

  /** A handle on the table's re-salting migration: its status and the operators' requests. */
  public MigrationControl migration(String table) {
    return new MigrationControl(this, canonical(table));
  }

  ZooKeeper session() throws IOException {
    return zk();
  }

  String migrationPlanPath(String table) {
    return join(join(root, "migrations"), table);
  }

  String requestsPath() {
    return join(root, "requests");
  }

  String statusPath(String table) {
    return join(join(root, "status"), table);
  }

  /** Creates {@code <root>/requests} when missing (presplitd creates it at its first start). */
  void ensureRequests(ZooKeeper z) throws IOException {
    ensure(z, root, acl -> acl.rootAcl());
    ensure(z, requestsPath(), acl -> acl.requestsAcl());
  }

  /** The ACL of a new request: presplitctl's (the credentials file's), or open without one. */
  List<ACL> requestAcl() throws PresplitAdminException {
    AdminCredentials c = options.credentials;
    if (c == null) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    if (!c.knowsAcls()) {
      // The request's ACL names the daemon's identity, which only the file says (ZooKeeper shows
      // the digests of <root>/requests' ACL to its administrators alone: the daemons).
      throw new PresplitAdminException("a new migration request under access control needs"
          + " presplit's credentials file (PresplitAdmin.Options.authFile): a digest identity"
          + " alone does not say which daemon identity its ACL names");
    }
    return c.requestAcl();
  }

  // ---- paths, ACLs, errors ----

  private interface AclOf {
    List<ACL> of(AdminCredentials credentials);
  }

  private void ensure(ZooKeeper z, String path, AclOf acl) throws IOException {
    try {
      if (z.exists(path, false) != null) {
        return;
      }
      AdminCredentials c = options.credentials;
      if (c != null && !c.knowsAcls()) {
        throw new PresplitAdminException(path + " does not exist, and a digest identity alone"
            + " does not say which ACL to create it with: start presplitd once first, or open"
            + " with Options.authFile (presplit's credentials file)");
      }
      z.create(path, new byte[0], c == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : acl.of(c),
          CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // Created meanwhile by someone else: fine.
    } catch (KeeperException e) {
      throw refused("create", path, e);
    } catch (InterruptedException e) {
      throw interrupted(path);
    }
  }

  private List<ACL> documentAcl(ZooKeeper z) throws KeeperException, InterruptedException {
    AdminCredentials c = options.credentials;
    if (c == null) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    if (c.knowsAcls()) {
      return c.documentAcl();
    }
    // A document's ACL is its parent's (both the portal's): without the file, copy it. ZooKeeper
    // shows the digests only to who may administer <root>/tables, which the portal may.
    List<ACL> acl = z.getACL(tablesPath(), null);
    for (ACL entry : acl) {
      if (entry.getId().getScheme().equals("digest") && entry.getId().getId().endsWith(":x")) {
        throw KeeperException.create(KeeperException.Code.NOAUTH, tablesPath());
      }
    }
    return acl;
  }

  PresplitAdminException refused(String what, String path, KeeperException e) {
    if (e instanceof KeeperException.NoAuthException) {
      return new PresplitAdminException("not authorised to " + what + " " + path
          + " in ZooKeeper " + quorum + ": its ACL does not grant "
          + (options.credentials == null ? "an unauthenticated session"
              : "this session (" + options.credentials + ")")
          + "; documents and migration requests need the portal's identity"
          + " (PresplitAdmin.Options.authFile or digestAuth)", e);
    }
    return new PresplitAdminException("cannot " + what + " " + path + " in ZooKeeper " + quorum
        + ": " + e.getMessage(), e);
  }

  static InterruptedIOException interrupted(String path) {
    Thread.currentThread().interrupt();
    return new InterruptedIOException("interrupted while using " + path);
  }

  private String tablesPath() {
    return join(root, "tables");
  }

  private String documentPath(String table) {
    return join(tablesPath(), table);
  }

  private static String join(String parent, String child) {
    return parent.equals("/") ? "/" + child : parent + "/" + child;
  }

  /** The canonical {@code namespace:qualifier} of a table name, as presplitctl's. */
  static String canonical(String name) {
    if (name == null || name.isEmpty() || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("not a table name: '" + name + "'");
    }
    return name.indexOf(':') < 0 ? "default:" + name : name;
  }
}
