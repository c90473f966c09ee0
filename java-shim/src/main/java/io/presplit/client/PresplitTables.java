package io.presplit.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point of presplit's writer SDK: salted tables whose layout comes from presplit's
 * documents in ZooKeeper.
 *
 * <pre>{@code
 * try (Connection hbase = ConnectionFactory.createConnection(conf);
 *      PresplitTables tables = PresplitTables.open(hbase, "zk1:2181,zk2:2181")) {
 *   SaltedTable check = tables.table("tinawang:check");
 *   check.put(new Put(logicalKey).addColumn(f, q, v));      // the SDK adds the salt
 *   List<Result> rows = check.scanGroup(checkId);           // one bucket-local prefix scan
 * }
 * }</pre>
 *
 * <p>For each table it reads {@code <root>/tables/<ns>:<table>} (the document: the key layout)
 * and {@code <root>/status/<ns>:<table>} (what presplitd observed: phase, physical table,
 * generation, bucket count), caches them and watches both. When either changes it builds a new
 * immutable {@link TableSnapshot} and swaps it in at once; operations already running finish on
 * the snapshot they started with. Watches are re-armed on every read, the whole state is re-read
 * after a ZooKeeper session expiry and every {@code resync} interval as a safety net. While
 * ZooKeeper is unreachable the last snapshot stays in use.
 *
 * <p>The {@link Connection} stays the caller's; {@link #close()} closes only what this object
 * opened (its ZooKeeper session, its threads and, when it opened one, the asynchronous HBase
 * connection of merged scans: see {@link Options#asyncConnection}).
 */
public final class PresplitTables implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(PresplitTables.class);

  /** Settings; the defaults suit most writers. */
  public static final class Options extends ZkSessionOptions<Options> {
    long resyncMs = 30_000;
    int scanThreads = 32;
    int groupScanCaching = 100;
    int scanBatch = 1000;
    boolean readBothGenerationsDuringMigration;
    AsyncConnection asyncConnection;
    ZkAuth auth;
    // How long past a pause's writes_paused_until_ms a held write still waits for the status
    // that ends it (the daemon writes it at that time at the latest; it takes a moment to
    // arrive). Not an option: the daemon's pause is the bound; tests shorten it.
    long writePauseSlackMs = 2_000;
    // How long a write refused by a read-only generation waits for a status that explains it
    // (a pause, a switch) when the SDK has seen no pause yet. Tests shorten it.
    long readOnlyRefusalWaitMs = 5_000;

    /**
     * During a re-salting migration, from the switch to the new generation until its catch-up
     * is done (the status's {@code migration.phase} is {@code switching} or {@code catching_up}),
     * and after a rollback until the abandoned generation is drained ({@code rolling_back}),
     * read the previous generation too: gets, exists and scans read both physical tables, each
     * with its own layout, and merge them by logical key (a row in both = its cells merged, a
     * cell in both = once, the active generation's copy; versions cut to what the read asked
     * for), so nothing written to the old generation before the switch is invisible while it
     * is being copied. Costs a second read per operation only during that window. Off by
     * default: readers then read the active generation alone. (A cell deleted in the new
     * generation during the window stays visible from the old one until the window ends.)
     */
    public Options readBothGenerationsDuringMigration(boolean on) {
      this.readBothGenerationsDuringMigration = on;
      return this;
    }

    /**
     * Authenticate presplit's ZooKeeper sessions with presplit's credentials file (its
     * {@code identity = user:password}; digest), when presplit's znodes are readable only by named
     * readers. Every session gets it, including one opened after an expiry.
     *
     * @throws IOException when the file cannot be read or is malformed (the message never
     *     contains the password)
     */
    public Options authFile(java.nio.file.Path file) throws IOException {
      this.auth = ZkAuth.fromFile(file);
      return this;
    }

    /** Authenticate presplit's ZooKeeper sessions as digest {@code user:password}. */
    public Options digestAuth(String user, String password) {
      this.auth = ZkAuth.digest(user, password);
      return this;
    }

    @Override
    protected Options self() {
      return this;
    }

    /** Re-read every table's document and status this often, besides watches (default 30 s). */
    public Options resyncMs(long ms) {
      this.resyncMs = ms;
      return this;
    }

    /**
     * Threads of the SDK's scan pool (default 32). Merged scans no longer use it: they fetch
     * their buckets on HBase's asynchronous client (see {@link #asyncConnection}).
     */
    @Deprecated
    public Options scanThreads(int n) {
      this.scanThreads = n;
      return this;
    }

    /** Rows per RPC of a group scan (default 100: a group of ~50 rows is one round trip). */
    public Options groupScanCaching(int n) {
      this.groupScanCaching = n;
      return this;
    }

    /**
     * Rows per RPC of each bucket of a merged scan, when the scan does not set its own caching
     * (default 1000: with 100, a 16-bucket scan made ten times the round trips of a plain scan
     * and ran at 0.39x its speed, see bench/RESULTS.md); each bucket buffers at most about twice
     * this many rows ahead of the reader.
     */
    public Options scanBatch(int n) {
      this.scanBatch = n;
      return this;
    }

    /**
     * The asynchronous HBase connection that merged scans ({@link SaltedTable#scan}) fetch their
     * buckets on; it stays the caller's. Without one, the first merged scan opens one with the
     * configuration of the {@link Connection} given to {@code open} and the current user (as
     * {@code ConnectionFactory.createAsyncConnection(conf)} does), and {@link #close()} closes
     * it. Pass your own when the blocking connection was opened as another user.
     */
    public Options asyncConnection(AsyncConnection connection) {
      this.asyncConnection = connection;
      return this;
    }
  }

  private final Connection connection;
  private final String quorum;
  private final String root;
  private final Options options;
  private final Map<String, Handle> tables = new ConcurrentHashMap<>();
  private final ScheduledExecutorService refresher;
  private final ExecutorService scanExecutor;
  private final Object zkLock = new Object();
  private AsyncConnection ownAsyncConnection; // opened on the first merged scan, under the lock
  private volatile ZooKeeper zk;
  private volatile boolean closed;

  /** One logical table's current snapshot. */
  static final class Handle {
    final String name; // ns:qualifier
    final String znode; // the document's znode name
    final AtomicReference<TableSnapshot> current = new AtomicReference<>();
    // Notified (notifyAll) every time a snapshot is loaded and swapped in: writes held by a
    // pause wait on it (see awaitWritesResumed).
    private final Object loaded = new Object();
    // Writes waiting now for the status to end a pause or to explain a read-only refusal.
    private final AtomicInteger writesHeld = new AtomicInteger();
    // The pause (writes_paused_until_ms) last warned about, so each is warned about once.
    private final AtomicLong pauseWarned = new AtomicLong();

    Handle(String name, String znode) {
      this.name = name;
      this.znode = znode;
    }

    /** Swaps in a snapshot and wakes the writes waiting for one. */
    boolean publish(TableSnapshot expected, TableSnapshot next) {
      if (!current.compareAndSet(expected, next)) {
        return false;
      }
      synchronized (loaded) {
        loaded.notifyAll();
      }
      return true;
    }

    /** Writes held now by a pause or waiting after a read-only refusal (for tests and tools). */
    int writesHeld() {
      return writesHeld.get();
    }
  }

  private PresplitTables(Connection connection, String quorum, String root, Options options) {
    this.connection = connection;
    this.quorum = quorum;
    this.root = root.endsWith("/") && root.length() > 1 ? root.substring(0, root.length() - 1)
        : root;
    this.options = options;
    ScheduledThreadPoolExecutor r = new ScheduledThreadPoolExecutor(1, daemonThreads("refresh"));
    r.setRemoveOnCancelPolicy(true);
    this.refresher = r;
    ThreadPoolExecutor s = new ThreadPoolExecutor(options.scanThreads, options.scanThreads, 30,
        TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemonThreads("scan"));
    s.allowCoreThreadTimeOut(true);
    this.scanExecutor = s;
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String what) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, "presplit-" + what + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** {@link #open(Connection, String, String)} with the root {@code /presplit}. */
  public static PresplitTables open(Connection connection, String zkQuorum) throws IOException {
    return open(connection, zkQuorum, "/presplit");
  }

  public static PresplitTables open(Connection connection, String zkQuorum, String root)
      throws IOException {
    return open(connection, zkQuorum, root, new Options());
  }

  /**
   * Connects to presplit's ZooKeeper.
   *
   * @param zkQuorum {@code host:port[,host:port...]}; null = the HBase connection's own quorum
   *     ({@code hbase.zookeeper.quorum} and {@code hbase.zookeeper.property.clientPort})
   * @param root presplit's root znode, {@code /presplit} by default
   * @throws PresplitConfigException when ZooKeeper cannot be reached in time
   */
  public static PresplitTables open(Connection connection, String zkQuorum, String root,
      Options options) throws IOException {
    if (zkQuorum == null) {
      zkQuorum = quorumOf(connection.getConfiguration());
    }
    PresplitTables t = new PresplitTables(connection, zkQuorum, root, options);
    try {
      t.connect();
    } catch (IOException | RuntimeException e) {
      t.close();
      throw e;
    }
    if (options.resyncMs > 0) {
      t.refresher.scheduleWithFixedDelay(t::refreshAllQuietly, options.resyncMs,
          options.resyncMs, TimeUnit.MILLISECONDS);
    }
    return t;
  }

  private static String quorumOf(Configuration conf) {
    String hosts = conf.get("hbase.zookeeper.quorum", "127.0.0.1");
    String port = conf.get("hbase.zookeeper.property.clientPort", "2181");
    StringBuilder b = new StringBuilder();
    for (String h : hosts.split(",")) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(h.trim());
      if (!h.contains(":")) {
        b.append(':').append(port);
      }
    }
    return b.toString();
  }

  private void connect() throws IOException {
    zk = ZkConnect.connect(quorum, options.sessionTimeoutMs(), options.connectTimeoutMs(),
        options.auth == null ? null : options.auth.secret(), state -> {
          if (state == Watcher.Event.KeeperState.Expired) {
            onExpired();
          }
        });
  }

  private void onExpired() {
    if (closed) {
      return;
    }
    LOG.warn("presplit: ZooKeeper session at {} expired; reconnecting", quorum);
    refresher.execute(() -> {
      synchronized (zkLock) {
        ZooKeeper old = zk;
        try {
          connect();
        } catch (IOException e) {
          LOG.warn("presplit: cannot reconnect to ZooKeeper {}: {}; retrying", quorum,
              e.getMessage());
          refresher.schedule(this::onExpired, 1, TimeUnit.SECONDS);
          return;
        }
        try {
          old.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      refreshAllQuietly();
    });
  }

  /** The canonical {@code namespace:qualifier} of a table name. */
  static String canonical(String name) {
    return name.indexOf(':') < 0 ? "default:" + name : name;
  }

  /**
   * The salted table for a logical table name ({@code ns:qualifier}, or a qualifier in the
   * default namespace). The first call reads its document and status; later calls return the
   * same watched state. A table whose status is not ready yet is returned: operations then throw
   * {@link TableNotReadyException} until it is ({@link SaltedTable#awaitReady}).
   *
   * @throws PresplitConfigException when there is no document for the table, or it cannot be
   *     read or used
   */
  public SaltedTable table(String logicalName) throws IOException {
    if (closed) {
      throw new IOException("PresplitTables is closed");
    }
    String name = canonical(logicalName);
    Handle handle = tables.get(name);
    if (handle == null) {
      String znode = name;
      if (name.startsWith("default:") && !exists(documentPath(name))
          && exists(documentPath(name.substring("default:".length())))) {
        znode = name.substring("default:".length());
      }
      Handle fresh = new Handle(name, znode);
      TableSnapshot first = load(fresh);
      fresh.current.set(first);
      Handle raced = tables.putIfAbsent(name, fresh);
      handle = raced != null ? raced : fresh;
    }
    return new SaltedTable(this, handle);
  }

  Connection connection() {
    return connection;
  }

  Options options() {
    return options;
  }

  ExecutorService scanExecutor() {
    return scanExecutor;
  }

  /**
   * The asynchronous connection of merged scans: the caller's ({@link Options#asyncConnection})
   * or one opened now, once, from the blocking connection's configuration.
   */
  AsyncConnection asyncConnection() throws IOException {
    if (options.asyncConnection != null) {
      return options.asyncConnection;
    }
    synchronized (this) {
      if (closed) {
        throw new IOException("presplit's tables are closed");
      }
      if (ownAsyncConnection == null) {
        long waitMs = Math.max(options.connectTimeoutMs(), 1);
        try {
          ownAsyncConnection = ConnectionFactory
              .createAsyncConnection(connection.getConfiguration())
              .get(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while connecting to HBase");
        } catch (ExecutionException e) {
          throw new IOException("cannot open the asynchronous HBase connection of merged scans: "
              + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
          throw new IOException("cannot open the asynchronous HBase connection of merged scans in "
              + waitMs + " ms", e);
        }
      }
      return ownAsyncConnection;
    }
  }

  String documentPath(String znode) {
    return root + "/tables/" + znode;
  }

  String statusPath(String znode) {
    return root + "/status/" + znode;
  }

  private boolean exists(String path) throws IOException {
    try {
      return zk.exists(path, false) != null;
    } catch (KeeperException e) {
      throw readRefused(path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + path);
    }
  }

  private PresplitConfigException readRefused(String path, KeeperException e) {
    if (e instanceof KeeperException.NoAuthException) {
      return new PresplitConfigException("not authorised to read " + path + " in ZooKeeper "
          + quorum + ": its ACL names presplit's readers; authenticate as one of them ("
          + (options.auth == null ? "no credentials given" : "this session is " + options.auth)
          + "; PresplitTables.Options.authFile or digestAuth)", e);
    }
    return new PresplitConfigException("cannot read " + path + " in ZooKeeper " + quorum + ": "
        + e.getMessage(), e);
  }

  private final Watcher tableWatcher = this::onEvent;

  private void onEvent(WatchedEvent event) {
    if (closed || event.getPath() == null) {
      return;
    }
    String path = event.getPath();
    for (Handle h : tables.values()) {
      if (path.equals(documentPath(h.znode)) || path.equals(statusPath(h.znode))) {
        refresher.execute(() -> refreshQuietly(h));
      }
    }
  }

  /** Data of a znode with a watch, or null (and a watch on its creation) when it is missing. */
  private byte[] readWatched(String path, Stat stat) throws IOException {
    ZooKeeper z = zk;
    try {
      try {
        return z.getData(path, tableWatcher, stat);
      } catch (KeeperException.NoNodeException e) {
        if (z.exists(path, tableWatcher) == null) {
          return null;
        }
        return z.getData(path, tableWatcher, stat);
      }
    } catch (KeeperException e) {
      throw readRefused(path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + path);
    }
  }

  /**
   * The znode's JSON object. Bounded first ({@link JsonBounds}): a znode nested too deep or too
   * large is refused like invalid JSON, so a refresh keeps the last good snapshot.
   */
  static JsonObject parseObject(String path, byte[] data) throws PresplitConfigException {
    String outOfBounds = JsonBounds.problem(data);
    if (outOfBounds != null) {
      throw new PresplitConfigException(path + " cannot be read: " + outOfBounds);
    }
    try {
      JsonElement e = JsonParser.parseString(new String(data, StandardCharsets.UTF_8));
      if (!e.isJsonObject()) {
        throw new PresplitConfigException(path + " does not hold a JSON object");
      }
      return e.getAsJsonObject();
    } catch (JsonParseException e) {
      throw new PresplitConfigException(path + " does not hold valid JSON: " + e.getMessage(), e);
    }
  }

  /** Reads a table's document and status (arming watches) into a snapshot. */
  TableSnapshot load(Handle h) throws IOException {
    String docPath = documentPath(h.znode);
    Stat docStat = new Stat();
    byte[] doc = readWatched(docPath, docStat);
    if (doc == null) {
      throw new PresplitConfigException("presplit has no document for table " + h.name + " (no "
          + docPath + " in ZooKeeper " + quorum + ")");
    }
    JsonObject document = parseObject(docPath, doc);
    KeyLayout documentLayout;
    try {
      JsonElement layout = document.get("layout");
      documentLayout = KeyLayout.fromDocument(
          layout == null || layout.isJsonNull() ? null : layout.getAsJsonObject());
    } catch (RuntimeException e) {
      throw new PresplitConfigException(
          "the layout of " + docPath + " cannot be used: " + e.getMessage(), e);
    }
    String statusPath = statusPath(h.znode);
    Stat statusStat = new Stat();
    byte[] status = readWatched(statusPath, statusStat);
    if (status == null) {
      return new TableSnapshot(h.name, null, null, null, 0, documentLayout, docStat.getVersion(),
          -1, false);
    }
    JsonObject s = parseObject(statusPath, status);
    String phase = text(s, "phase");
    String error = text(s, "error");
    String physical = text(s, "physical_table");
    long generation = s.has("generation") && !s.get("generation").isJsonNull()
        ? s.get("generation").getAsLong() : 0;
    KeyLayout layout = documentLayout;
    boolean layoutFromStatus = false;
    try {
      JsonElement statusLayout = s.get("layout");
      if (statusLayout != null && statusLayout.isJsonObject()) {
        // A status that names the layout of its generation is the most precise source.
        layout = KeyLayout.fromDocument(statusLayout.getAsJsonObject());
        layoutFromStatus = true;
      } else if (s.has("buckets") && !s.get("buckets").isJsonNull()) {
        // The status names the bucket count the physical table was built with; during a
        // migration the document may already describe the next generation.
        layout = documentLayout.withBuckets(s.get("buckets").getAsInt());
      }
    } catch (RuntimeException e) {
      throw new PresplitConfigException("the status " + statusPath
          + " names a layout that cannot be used: " + e.getMessage(), e);
    }
    TableName table = null;
    if (physical != null) {
      try {
        table = TableName.valueOf(physical);
      } catch (IllegalArgumentException e) {
        throw new PresplitConfigException("the status " + statusPath
            + " names an invalid physical table '" + physical + "'", e);
      }
    }
    TableSnapshot loaded = new TableSnapshot(h.name, phase, error, table, generation, layout,
        docStat.getVersion(), statusStat.getVersion(), layoutFromStatus);
    JsonElement migration = s.get("migration");
    if (migration == null || !migration.isJsonObject()) {
      return loaded;
    }
    try {
      loaded = loaded.withMigration(migration.getAsJsonObject());
    } catch (RuntimeException e) {
      throw new PresplitConfigException("the status " + statusPath
          + " has a migration object that cannot be used: " + e.getMessage(), e);
    }
    try {
      return loaded.withPreviousFrom(migration.getAsJsonObject());
    } catch (RuntimeException e) {
      throw new PresplitConfigException("the status " + statusPath
          + " names a previous generation that cannot be used: " + e.getMessage(), e);
    }
  }

  private static String text(JsonObject o, String field) {
    JsonElement e = o.get(field);
    return e == null || e.isJsonNull() ? null : e.getAsString();
  }

  /** Re-reads one table; keeps the last snapshot when the new state cannot be read or used. */
  void refreshQuietly(Handle h) {
    if (closed) {
      return;
    }
    try {
      TableSnapshot loaded = load(h);
      TableSnapshot previous;
      TableSnapshot next;
      // refresh() may run beside the refresher: the rule applies to the snapshot replaced.
      do {
        previous = h.current.get();
        next = TableSnapshot.following(previous, loaded);
      } while (!h.publish(previous, next));
      if (previous == null || previous.generation() != next.generation()
          || !java.util.Objects.equals(previous.physicalTable(), next.physicalTable())
          || !previous.layout().equals(next.layout())
          || !java.util.Objects.equals(previous.phase(), next.phase())
          || previous.writesPausedUntilMs() != next.writesPausedUntilMs()) {
        if (next.isCarriedOver()) {
          LOG.warn("presplit: table {}: status is '{}'{}; writes go on with generation {} ({},"
              + " layout {})", h.name, next.phase(),
              next.error() == null ? "" : " (" + next.error() + ")", next.generation(),
              next.physicalTable(), next.layout());
        } else {
          LOG.info("presplit: table {} now {}", h.name, next);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("presplit: table {}: keeping generation {}: {}", h.name,
          h.current.get() == null ? "none" : h.current.get().generation(), e.getMessage());
    }
  }

  /**
   * The snapshot a write is to use: the current one, unless it says writes are paused (the
   * daemon made its physical table read-only to drain it before a switch). Then the write waits
   * for the next status that ends the pause (one naming another physical table: the switch; or
   * the pause removed when the daemon gives up), woken by the watch that loads it, and at most
   * until the pause's end plus {@code writePauseSlackMs}: a status that never comes (ZooKeeper
   * unreachable, a daemon gone) never holds a write longer. After the deadline the write goes to
   * the table the snapshot names then (refused if it is still read-only: see
   * {@link #awaitAfterReadOnlyRefusal}). The deadline is the daemon's clock: a writer's clock
   * behind it by some seconds holds writes that much longer when no status comes.
   *
   * @throws InterruptedIOException when the waiting thread is interrupted
   */
  TableSnapshot awaitWritesResumed(Handle h) throws InterruptedIOException {
    TableSnapshot s = h.current.get();
    if (s == null || !s.writesPausedAt(System.currentTimeMillis())) {
      return s;
    }
    TableName paused = s.physicalTable();
    h.writesHeld.incrementAndGet();
    try {
      synchronized (h.loaded) {
        while (true) {
          // Read under the monitor: a snapshot published after this read notifies after wait().
          s = h.current.get();
          long until = s.writesPausedUntilMs();
          // Over when the status no longer says so, or names another table (the switch: the
          // pause was the drained table's).
          if (until <= 0 || !java.util.Objects.equals(s.physicalTable(), paused)) {
            return s;
          }
          long remaining = until + options.writePauseSlackMs - System.currentTimeMillis();
          if (remaining <= 0) {
            if (h.pauseWarned.getAndSet(until) != until) {
              LOG.warn("presplit: table {}: writes were paused until {} ms for a re-salt switch and"
                  + " no status ended the pause; writes go on to {}", h.name, until,
                  s.physicalTable() == null ? null
                      : s.physicalTable().getNameWithNamespaceInclAsString());
            }
            return s;
          }
          h.loaded.wait(remaining);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while a write to " + h.name
          + " waited for the re-salt switch to end its pause");
    } finally {
      h.writesHeld.decrementAndGet();
    }
  }

  /**
   * After {@code refusing} refused a write because it is read-only: the snapshot to retry on,
   * or the current one naming {@code refusing} still when no switch came in time (the caller
   * then gives up). Waits, woken by every status loaded, until a status names another physical
   * table; or, when a pause was seen ({@code heldByPause}: the write itself waited for one) and
   * is over without a switch (the daemon gave up), at once; at most until the pause's end plus
   * {@code writePauseSlackMs} while a pause is in force, else {@code readOnlyRefusalWaitMs} from
   * now (a write that reached the old generation before the SDK saw the pause). A deadline
   * already passed returns at once.
   *
   * @throws InterruptedIOException when the waiting thread is interrupted
   */
  TableSnapshot awaitAfterReadOnlyRefusal(Handle h, TableName refusing, boolean heldByPause)
      throws InterruptedIOException {
    long fallback = System.currentTimeMillis() + options.readOnlyRefusalWaitMs;
    boolean sawPause = heldByPause;
    h.writesHeld.incrementAndGet();
    try {
      synchronized (h.loaded) {
        while (true) {
          TableSnapshot s = h.current.get();
          if (!java.util.Objects.equals(s.physicalTable(), refusing)) {
            return s;
          }
          long until = s.writesPausedUntilMs();
          long deadline;
          if (until > 0) {
            sawPause = true;
            deadline = until + options.writePauseSlackMs;
          } else if (sawPause) {
            return s; // the pause ended without a switch
          } else {
            deadline = fallback;
          }
          long remaining = deadline - System.currentTimeMillis();
          if (remaining <= 0) {
            return s;
          }
          h.loaded.wait(remaining);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while a write to " + h.name
          + " refused by the read-only " + refusing + " waited for the re-salt switch");
    } finally {
      h.writesHeld.decrementAndGet();
    }
  }

  private void refreshAllQuietly() {
    for (Handle h : tables.values()) {
      refreshQuietly(h);
    }
  }

  /** Re-reads every table now (watches do this by themselves; for tests and tools). */
  public void refresh() {
    for (Handle h : tables.values()) {
      refreshQuietly(h);
    }
  }

  @Override
  public void close() {
    closed = true;
    refresher.shutdownNow();
    scanExecutor.shutdown();
    AsyncConnection own;
    synchronized (this) {
      own = ownAsyncConnection;
      ownAsyncConnection = null;
    }
    if (own != null) {
      try {
        own.close(); // ends the merged scans still running, as closing a Connection would
      } catch (IOException e) {
        LOG.warn("closing the asynchronous HBase connection of merged scans: {}", e.toString());
      }
    }
    ZooKeeper z = zk;
    if (z != null) {
      try {
        z.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
