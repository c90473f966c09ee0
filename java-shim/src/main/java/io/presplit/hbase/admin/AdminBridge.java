package io.presplit.hbase.admin;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.DoNotRetryRegionException;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.security.SecurityCapability;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.master.RegionState;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What presplitd's embedded JVM calls through JNI: a small, stable surface over the HBase Admin
 * API that takes and returns only {@code String}, {@code String[]} and {@code byte[][]}.
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link #connect(String[])} opens one HBase {@code Connection} and one {@code Admin}; the
 *       instance owns both until {@link #close()}. Methods are {@code synchronized}: one call at a
 *       time per instance.
 *   <li>Table names are {@code "namespace:qualifier"}, or a bare qualifier for the
 *       {@code default} namespace. JSON output always names the table as
 *       {@code "namespace:qualifier"} (also {@code "default:t"}).
 *   <li>Binary keys in JSON use HBase's {@code Bytes.toStringBinary} form.
 *   <li>Errors are thrown, never encoded in return values:
 *       <ul>
 *         <li>{@link IllegalArgumentException} — bad input (malformed spec, unknown compression /
 *             encoding / bloom name, illegal table or family name, empty or duplicate split key);
 *             the message names the table, family, key and value. Nothing was changed.
 *         <li>{@link TableExistsException} (an {@link IOException}) — {@code createTable} of a
 *             table that exists; message is the table name.
 *         <li>{@link DoNotRetryIOException} (an {@link IOException}) — the master's sanity check
 *             refused the descriptor, e.g. a compression codec the cluster cannot load. The
 *             message is one line: {@code master rejected table ns:t: <the master's reason>},
 *             followed for a codec problem by
 *             {@code [compression the cluster cannot load? family 'f' LZO]}; the master's
 *             exception (with its remote stack trace) is the cause. Nothing was created.
 *         <li>any other {@link IOException} — the cluster could not be reached or the operation
 *             failed or timed out; the message and cause chain say why.
 *       </ul>
 * </ul>
 *
 * <h2>describeTable JSON</h2>
 *
 * <pre>{@code
 * {"exists":false,"table":"ns:t"}
 *
 * {"exists":true,"table":"ns:t","enabled":true,
 *  "families":[{"name":"f","compression":"SNAPPY","data_block_encoding":"FAST_DIFF",
 *               "bloom_filter":"ROW","max_versions":1,"ttl_seconds":2147483647,
 *               "block_size":65536,"in_memory":false}],
 *  "attributes":{"KEY":"value"},
 *  "regions":[{"name":"<encoded region name>","start_key":"","end_key":"1",
 *              "server":"host,port,startcode"}],
 *  "split_keys":["1","2"]}
 * }</pre>
 *
 * <p>{@code families} are in HBase's (name) order, every key present. {@code attributes} are the
 * table descriptor's values except those HBase manages itself (see
 * {@link TableDescription#HBASE_MANAGED_VALUES}). {@code regions} lists only default replicas
 * that are not split parents, sorted by start key; {@code server} is {@code null} for a region
 * that is not assigned. {@code split_keys} is the start key of every region but the first.
 */
public final class AdminBridge implements AutoCloseable {

  /**
   * Configuration key (settable through {@code confPairs}): how long {@link #createTable} waits,
   * after the master reports the table created, for every region to have a server in
   * {@code hbase:meta}. Milliseconds; default {@value #DEFAULT_ONLINE_WAIT_MS}.
   */
  public static final String ONLINE_WAIT_MS_KEY = "presplit.admin.online.wait.ms";

  public static final long DEFAULT_ONLINE_WAIT_MS = 120_000L;

  // The configuration of the last connect(), shared with io.presplit.migrate.BridgeConnection so
  // that the daemon's migration code reaches the same cluster without being told twice.
  private static volatile Configuration lastConfiguration;

  private final Connection connection;
  private final Admin admin;
  private final long onlineWaitMs;
  private final long splitVerdictWaitMs;
  private boolean closed;

  private AdminBridge(Connection connection, Admin admin, long onlineWaitMs,
      long splitVerdictWaitMs) {
    this.connection = connection;
    this.admin = admin;
    this.onlineWaitMs = onlineWaitMs;
    this.splitVerdictWaitMs = splitVerdictWaitMs;
  }

  /** The configuration of the last {@link #connect} in this JVM (null before the first). */
  public static Configuration lastConfiguration() {
    return lastConfiguration;
  }

  /**
   * Opens one {@code Connection} and one {@code Admin}.
   *
   * @param confPairs alternating key, value applied over {@code HBaseConfiguration.create()}, e.g.
   *     {@code {"hbase.zookeeper.quorum","127.0.0.1","hbase.zookeeper.property.clientPort","2181"}};
   *     may be null or empty (then hbase-site.xml on the classpath decides)
   * @throws IllegalArgumentException if confPairs has an odd length or a null/empty key or a null
   *     value
   * @throws IOException if the connection cannot be created
   */
  public static AdminBridge connect(String[] confPairs) throws IOException {
    Configuration conf = configuration(confPairs);
    if (KerberosLogin.loggedIn()) {
      // HBase's client would log in again as these (ConnectionFactory's AuthUtil.loginClient)
      // when they name another principal than the one KerberosLogin logged in.
      conf.unset("hbase.client.keytab.file");
      conf.unset("hbase.client.keytab.principal");
    }
    lastConfiguration = conf;
    long wait = conf.getLong(ONLINE_WAIT_MS_KEY, DEFAULT_ONLINE_WAIT_MS);
    long splitWait = conf.getLong(SPLIT_VERDICT_WAIT_MS_KEY, DEFAULT_SPLIT_VERDICT_WAIT_MS);
    Connection c = ConnectionFactory.createConnection(conf);
    try {
      return new AdminBridge(c, c.getAdmin(), wait, splitWait);
    } catch (IOException | RuntimeException e) {
      try {
        c.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * {@code HBaseConfiguration.create()} with {@code confPairs} applied over it, as
   * {@link #connect} and {@link KerberosLogin#login} read them.
   *
   * @throws IllegalArgumentException if confPairs has an odd length or a null/empty key or a null
   *     value
   */
  public static Configuration configuration(String[] confPairs) {
    Configuration conf = HBaseConfiguration.create();
    if (confPairs != null) {
      if (confPairs.length % 2 != 0) {
        throw new IllegalArgumentException(
            "confPairs must alternate key and value; got an odd count " + confPairs.length);
      }
      for (int i = 0; i < confPairs.length; i += 2) {
        String k = confPairs[i];
        String v = confPairs[i + 1];
        if (k == null || k.isEmpty()) {
          throw new IllegalArgumentException("confPairs[" + i + "]: empty configuration key");
        }
        if (v == null) {
          throw new IllegalArgumentException("confPairs[" + (i + 1) + "]: null value for " + k);
        }
        conf.set(k, v);
      }
    }
    return conf;
  }

  /**
   * Describes the table as the cluster sees it.
   *
   * @param tableName {@code "ns:qualifier"} or {@code "qualifier"}
   * @return the JSON documented on this class; {@code {"exists":false,"table":"ns:t"}} when the
   *     table does not exist
   * @throws IllegalArgumentException if the name is not a legal table name
   * @throws IOException if the cluster cannot answer
   */
  public synchronized String describeTable(String tableName) throws IOException {
    ensureOpen();
    TableName tn = TableSpec.parseTableName(tableName);
    try {
      if (!admin.tableExists(tn)) {
        return TableDescription.missing(tn);
      }
      TableDescriptor td = admin.getDescriptor(tn);
      boolean enabled = admin.isTableEnabled(tn);
      List<HRegionLocation> locs = regionLocations(tn);
      return TableDescription.toJson(td, enabled, locs);
    } catch (TableNotFoundException gone) {
      // deleted between tableExists and the reads
      return TableDescription.missing(tn);
    } catch (IOException e) {
      // getDescriptor takes ADMIN or CREATE on the table
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_TABLE, tn, e);
    }
  }

  /**
   * Creates the table pre-split and returns once every region is online.
   *
   * <p>Creates the namespace first if it is missing. Validates the whole spec and the split keys
   * before contacting the cluster. Submits the master's create procedure with
   * {@code createTableAsync} (the master's sanity checks, e.g. of compression codecs, answer at
   * once), then waits until the table is enabled and all {@code splitKeys.length + 1} regions
   * have a server in {@code hbase:meta}, or the procedure fails, for up to the time set by
   * {@value #ONLINE_WAIT_MS_KEY} (default two minutes). Polling meta itself, instead of
   * {@code Admin.createTable}'s wait on the procedure result (whose polling backs off to about a
   * second), reports a table ready as soon as it is.
   *
   * @param specJson the table spec, see {@link TableSpec}
   * @param splitKeys split points, any order (they are sorted); null or empty for one region;
   *     none may be null or empty, none may repeat
   * @throws IllegalArgumentException for a bad spec or bad split keys (nothing changed)
   * @throws TableExistsException if the table exists (nothing changed)
   * @throws IOException if the master refuses the table (e.g. an unavailable compression codec:
   *     {@code DoNotRetryIOException} naming the codec), or the cluster fails or times out
   */
  public synchronized void createTable(String specJson, byte[][] splitKeys) throws IOException {
    ensureOpen();
    TableSpec spec = TableSpec.parse(specJson);
    byte[][] splits = TableSpec.checkSplitKeys(spec.tableName(), splitKeys);
    TableName tn = spec.tableName();
    if (admin.tableExists(tn)) {
      throw new TableExistsException(tn);
    }
    try {
      ensureNamespace(tn.getNamespaceAsString());
    } catch (AccessDeniedException e) {
      throw namespaceDenied(tn, e);
    }
    try {
      Future<Void> procedure = splits.length == 0
          ? admin.createTableAsync(spec.descriptor())
          : admin.createTableAsync(spec.descriptor(), splits);
      awaitOnline(tn, splits.length + 1, procedure);
    } catch (TableExistsException raced) {
      // created concurrently since the check above; the remote message carries a stack trace
      TableExistsException e = new TableExistsException(tn);
      e.initCause(raced);
      throw e;
    } catch (AccessDeniedException e) {
      throw AccessDenial.map(AccessDenial.Operation.CREATE_TABLE, tn, e);
    } catch (DoNotRetryIOException e) {
      if (e.getClass() != DoNotRetryIOException.class) {
        throw e;
      }
      throw rejected(spec, e);
    }
  }

  /**
   * The master's AccessController refused to create the missing namespace of a table (creating a
   * namespace takes global ADMIN, which presplitd's principal seldom holds): one line naming the
   * permission, the principal and the table, and the two ways out; the original is the cause.
   * Its own wording, not {@link AccessDenial}'s: the better way out is no grant at all.
   */
  static AccessDeniedException namespaceDenied(TableName tn, AccessDeniedException e) {
    String reason = AccessDenial.reason(e);
    String principal = AccessDenial.user(true);
    String user = AccessDenial.user(false);
    String ns = tn.getNamespaceAsString();
    AccessDeniedException out = new AccessDeniedException("HBase denied creating namespace " + ns
        + " for table " + tn.getNameAsString() + ": " + reason + "; creating a namespace needs "
        + "global ADMIN, which presplitd's principal " + principal + " lacks: create the "
        + "namespace as an HBase admin and grant CREATE on it (hbase shell: create_namespace '"
        + ns + "'; grant '" + user + "', 'C', '@" + ns + "'), or grant global ADMIN (grant '"
        + user + "', 'A')");
    out.initCause(e);
    return out;
  }

  private static final Pattern COMPRESSION_HINT = Pattern.compile(
      "(?i)compress|codec|zstandard|zstd|lzo|lz4|snappy|gzip|bzip|lzma|brotli");

  /**
   * The master's sanity check refused the descriptor. Its message is the remote exception's
   * whole stack trace, and for compression it names the codec in varying ways (the codec class
   * the first time, "Compression algorithm 'lzo' previously failed test" afterwards, "native
   * zStandard library not available" for ZSTD). Keep the class (permanent failure), the
   * original as cause, and give a one-line message that names the table and, for a codec
   * problem, each family's compression as written in the spec.
   */
  static DoNotRetryIOException rejected(TableSpec spec, DoNotRetryIOException e) {
    String first = firstLine(e.getMessage());
    String prefix = DoNotRetryIOException.class.getName() + ": ";
    while (first.startsWith(prefix)) {
      first = first.substring(prefix.length());
    }
    StringBuilder msg = new StringBuilder("master rejected table ")
        .append(TableSpec.qualified(spec.tableName())).append(": ").append(first);
    if (COMPRESSION_HINT.matcher(first).find()) {
      StringJoiner fams = new StringJoiner(", ");
      for (ColumnFamilyDescriptor cf : spec.descriptor().getColumnFamilies()) {
        if (cf.getCompressionType() != Compression.Algorithm.NONE) {
          fams.add("family '" + cf.getNameAsString() + "' " + cf.getCompressionType().name());
        }
      }
      if (fams.length() > 0) {
        msg.append(" [compression the cluster cannot load? ").append(fams).append(']');
      }
    }
    return new DoNotRetryIOException(msg.toString(), e);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }

  /**
   * The load of the given tables' regions as the live RegionServers last reported it (one
   * {@code Admin.getClusterMetrics} call for the servers, hbase:meta for each table's regions).
   * A table that does not exist contributes nothing.
   *
   * @param tableNames {@code "ns:qualifier"} or {@code "qualifier"} each
   * @return the JSON documented on {@link RegionLoads}
   * @throws IllegalArgumentException if a name is not a legal table name
   * @throws IOException if the cluster cannot answer
   */
  public synchronized String regionLoads(String[] tableNames) throws IOException {
    ensureOpen();
    Map<TableName, List<RegionInfo>> tables = new LinkedHashMap<>();
    for (String name : tableNames) {
      TableName tn = TableSpec.parseTableName(name);
      try {
        tables.put(tn, admin.getRegions(tn));
      } catch (TableNotFoundException gone) {
        // dropped since the caller listed it: nothing to report
      }
    }
    ClusterMetrics cluster = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    return RegionLoads.toJson(tables, RegionLoads.byRegionName(cluster),
        cluster.getLiveServerMetrics().keySet());
  }

  /**
   * How long {@link #splitRegion} waits for the master's verdict on a split before it returns with
   * the split still running. Milliseconds; default {@value #DEFAULT_SPLIT_VERDICT_WAIT_MS}.
   */
  public static final String SPLIT_VERDICT_WAIT_MS_KEY = "presplit.admin.split.verdict.wait.ms";

  public static final long DEFAULT_SPLIT_VERDICT_WAIT_MS = 10_000L;

  /**
   * Asks the master to split a region without a split point, so the RegionServer's split policy
   * chooses it (NativeSplitPolicy: load-balanced and group-safe). The master refuses at once when
   * the policy finds no point (one hot key, or requests spanning every candidate): that refusal is
   * thrown, so the caller can leave the region alone. Otherwise returns when the split is done or
   * after the verdict wait, with the split still running.
   *
   * @param encodedRegionName the region's encoded name
   * @throws IOException if the master refuses or the split fails within the wait
   */
  public synchronized void splitRegion(String encodedRegionName) throws IOException {
    ensureOpen();
    try {
      awaitSplitVerdict(admin.splitRegionAsync(Bytes.toBytes(encodedRegionName)),
          encodedRegionName);
    } catch (IOException e) {
      throwIfInTransition(encodedRegionName, e);
      // The request names a region only: HBase's reason names its table.
      throw AccessDenial.map(AccessDenial.Operation.SPLIT, (String) null, e);
    }
  }

  /**
   * Asks the master to split a region at a given point: for tables whose RegionServers do not
   * choose a load-balanced point (HBase's own split policy), presplitd computes a group-safe point
   * from the region's keys ({@link #sampleRowKeys}) and passes it here. Waits and throws as
   * {@link #splitRegion}.
   *
   * @param encodedRegionName the region's encoded name
   * @param splitPoint the row key the upper half starts at, strictly inside the region
   * @throws IOException if the master refuses or the split fails within the wait
   */
  public synchronized void splitRegionAt(String encodedRegionName, byte[] splitPoint)
      throws IOException {
    ensureOpen();
    try {
      awaitSplitVerdict(admin.splitRegionAsync(Bytes.toBytes(encodedRegionName), splitPoint),
          encodedRegionName);
    } catch (IOException e) {
      throwIfInTransition(encodedRegionName, e);
      // The request names a region only: HBase's reason names its table.
      throw AccessDenial.map(AccessDenial.Operation.SPLIT, (String) null, e);
    }
  }

  /**
   * Asks the master to move a region to a given RegionServer (presplitd moves the hotter daughter
   * of a load split off its sibling's server when the balancer has not). Returns once the master
   * has moved it; throws its refusal (the destination is not live, the region is in transition,
   * the principal lacks ADMIN on the table: then one line naming the grant).
   *
   * @param encodedRegionName the region's encoded name
   * @param serverName the destination, {@code "host,port,startcode"}
   * @throws IllegalArgumentException if the server name is not of that form
   * @throws IOException if the master refuses or the move fails
   */
  public synchronized void moveRegion(String encodedRegionName, String serverName)
      throws IOException {
    ensureOpen();
    ServerName destination = ServerName.valueOf(serverName);
    try {
      admin.move(Bytes.toBytes(encodedRegionName), destination);
    } catch (IOException e) {
      // The request names a region only: HBase's reason names its table.
      throw AccessDenial.map(AccessDenial.Operation.MOVE, (String) null, e);
    }
  }

  /**
   * Thrown for a split the master refused because the region was not open (moving, opening,
   * splitting, merging): asking again once it is open can succeed. A plain IOException, its
   * HBase cause named in the message rather than chained, so it is not taken for HBase's
   * DoNotRetryIOException (the refusal of a region with no split point, which asking again does
   * not change).
   */
  public static final class RegionInTransitionException extends IOException {
    RegionInTransitionException(String message) {
      super(message);
    }
  }

  /**
   * The state a split refusal says the region was in when it was not open ("OPENING", or "not
   * open" when the refusal names none), or null when it says something else: HBase's master
   * refuses a split of a region in transition with a DoNotRetryRegionException "ENCODED is not
   * OPEN; state=STATE".
   */
  static String notOpenState(Throwable refusal) {
    for (Throwable t = refusal; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      if (t instanceof DoNotRetryRegionException && message != null
          && message.contains(" is not OPEN")) {
        int at = message.indexOf("state=");
        if (at < 0) {
          return "not open";
        }
        String state = message.substring(at + "state=".length()).split("[\\s,;]", 2)[0];
        return state.isEmpty() ? "not open" : state;
      }
    }
    return null;
  }

  /**
   * Throws a {@link RegionInTransitionException} when the refused split's region is in
   * transition: the refusal says it was not open, or the master lists it in transition now.
   */
  private void throwIfInTransition(String encodedRegionName, IOException refusal)
      throws RegionInTransitionException {
    String state = notOpenState(refusal);
    if (state == null) {
      try {
        for (RegionState rit : admin.getClusterMetrics(
            EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
            .getRegionStatesInTransition()) {
          if (rit.getRegion().getEncodedName().equals(encodedRegionName)) {
            state = rit.getState().toString();
          }
        }
      } catch (IOException | RuntimeException unknown) {
        return; // the refusal stands as it is
      }
    }
    if (state != null) {
      String reason = String.valueOf(refusal.getMessage());
      throw new RegionInTransitionException("region " + encodedRegionName
          + " is in transition (" + state + "); HBase refused the split for now: "
          + reason.substring(0, reason.indexOf('\n') < 0 ? reason.length()
              : reason.indexOf('\n')));
    }
  }

  /**
   * Waits up to the verdict wait for a split the master accepted: returns when it is done or
   * still running after the wait (the watcher sees the halves in a later poll); throws the
   * master's refusal or the split's failure.
   */
  private void awaitSplitVerdict(Future<Void> split, String encodedRegionName)
      throws IOException {
    try {
      split.get(splitVerdictWaitMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException stillRunning) {
      // accepted and running: the watcher sees the halves in a later poll
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted splitting region " + encodedRegionName);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      throw new IOException("splitting region " + encodedRegionName + " failed", cause);
    }
  }

  /**
   * A bounded, evenly spread sample of the row keys in [startRow, stopRow) of a table: a key-only
   * scan (first cell of each row, no values) reading at most {@code maxRows} rows, keeping every
   * k-th row, k doubling each time {@code 2 * maxKeys} keys are kept (then every other kept key
   * is dropped). So fewer than {@code 2 * maxKeys} keys come back, in row order, spread over the
   * rows read; the scan does not fill the block cache.
   *
   * @param tableName "ns:qualifier"
   * @param startRow the first row (empty: the table's start)
   * @param stopRow the row the scan stops before (empty: the table's end)
   * @param maxKeys about how many keys to return (at least 1)
   * @param maxRows how many rows to read at most (at least 1)
   * @throws IllegalArgumentException if the name is not a legal table name or a bound is not
   *     positive
   * @throws IOException if the scan fails
   */
  public synchronized byte[][] sampleRowKeys(String tableName, byte[] startRow, byte[] stopRow,
      int maxKeys, long maxRows) throws IOException {
    ensureOpen();
    if (maxKeys < 1 || maxRows < 1) {
      throw new IllegalArgumentException("maxKeys and maxRows must be positive");
    }
    TableName tn = TableSpec.parseTableName(tableName);
    Scan scan = new Scan().withStartRow(startRow == null ? new byte[0] : startRow)
        .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
        .setCacheBlocks(false).setCaching(1000)
        .setLimit((int) Math.min(maxRows, Integer.MAX_VALUE));
    if (stopRow != null && stopRow.length > 0) {
      scan.withStopRow(stopRow);
    }
    List<byte[]> kept = new ArrayList<>();
    long stride = 1;
    long seen = 0;
    try (Table table = connection.getTable(tn); ResultScanner scanner = table.getScanner(scan)) {
      for (Result row : scanner) {
        if (seen++ % stride != 0) {
          continue;
        }
        kept.add(row.getRow());
        if (kept.size() >= 2 * maxKeys) {
          List<byte[]> thinned = new ArrayList<>(maxKeys);
          for (int i = 0; i < kept.size(); i += 2) {
            thinned.add(kept.get(i));
          }
          kept = thinned;
          stride *= 2;
        }
      }
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.SAMPLE_KEYS, tn, e);  // READ on the table
    } catch (RuntimeException e) {
      // The scanner's iterator wraps what the RegionServer threw.
      if (AccessDenial.find(e) == null) {
        throw e;
      }
      throw AccessDenial.map(AccessDenial.Operation.SAMPLE_KEYS, tn, new IOException(e));
    }
    return kept.toArray(new byte[0][]);
  }

  /**
   * Asks HBase which of the permissions presplitd needs for {@code tableNames} its principal
   * holds ({@code Admin#hasUserPermissions} for itself, which needs no permission of its own):
   * see {@link PermissionCheck} for what is needed and the JSON returned. With the
   * AccessController off nothing is checked: {@code "authorization":false}.
   *
   * @param tableNames the documented tables, {@code "ns:qualifier"} or {@code "qualifier"}; a
   *     name that is no legal table name is left out
   * @param replication whether migrations' replication peers are needed (global ADMIN)
   * @throws IOException if the cluster cannot answer
   */
  public synchronized String checkPermissions(String[] tableNames, boolean replication)
      throws IOException {
    ensureOpen();
    String principal = AccessDenial.user(true);
    String user = AccessDenial.user(false);
    if (!admin.getSecurityCapabilities().contains(SecurityCapability.AUTHORIZATION)) {
      return PermissionCheck.toJson(principal, user, List.of(), null);
    }
    List<TableName> tables = new ArrayList<>();
    Set<TableName> existing = new HashSet<>();
    for (String name : tableNames) {
      TableName tn;
      try {
        tn = TableSpec.parseTableName(name);
      } catch (IllegalArgumentException refused) {
        continue;  // its document is refused on its own, with the reason
      }
      tables.add(tn);
      if (admin.tableExists(tn)) {
        existing.add(tn);
      }
    }
    Set<String> namespaces = new HashSet<>(Arrays.asList(admin.listNamespaces()));
    List<PermissionCheck.Need> needs =
        PermissionCheck.needs(tables, namespaces, existing, replication);
    List<Permission> asked = new ArrayList<>();
    for (PermissionCheck.Need n : needs) {
      asked.add(n.permission());
    }
    List<Boolean> held;
    try {
      held = asked.isEmpty() ? List.of() : admin.hasUserPermissions(asked);
    } catch (DoNotRetryIOException e) {
      // The master answers so when the AccessController is not among its coprocessors, which
      // the security capabilities above normally said already.
      if (String.valueOf(e.getMessage()).contains("is not loaded")) {
        return PermissionCheck.toJson(principal, user, List.of(), null);
      }
      throw e;
    }
    return PermissionCheck.toJson(principal, user, needs, held);
  }

  /**
   * Disables the table; nothing happens when it is disabled already. presplitd calls this only
   * for the generation a re-salt migration replaced, after its grace period.
   *
   * @throws TableNotFoundException if there is no such table
   * @throws IOException if the cluster fails
   */
  public synchronized void disableTable(String tableName) throws IOException {
    ensureOpen();
    TableName tn = TableSpec.parseTableName(tableName);
    if (!admin.tableExists(tn)) {
      throw new TableNotFoundException(tn);
    }
    try {
      if (!admin.isTableDisabled(tn)) {
        admin.disableTable(tn);
      }
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DISABLE_TABLE, tn, e);
    }
  }

  /**
   * Disables (when needed) and deletes the table. presplitd calls this only for a re-salt
   * migration's own target (on abort) and for the generation it replaced (when the document asks
   * for it, after a final check found every cell in the new generation).
   *
   * @throws TableNotFoundException if there is no such table
   * @throws IOException if the cluster fails
   */
  public synchronized void deleteTable(String tableName) throws IOException {
    ensureOpen();
    TableName tn = TableSpec.parseTableName(tableName);
    if (!admin.tableExists(tn)) {
      throw new TableNotFoundException(tn);
    }
    try {
      if (!admin.isTableDisabled(tn)) {
        admin.disableTable(tn);
      }
      admin.deleteTable(tn);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DELETE_TABLE, tn, e);
    }
  }

  /** Closes the Admin and the Connection. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    IOException first = null;
    try {
      admin.close();
    } catch (IOException e) {
      first = e;
    }
    try {
      connection.close();
    } catch (IOException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void ensureOpen() throws IOException {
    if (closed || connection.isClosed()) {
      throw new IOException("AdminBridge is closed");
    }
  }

  private void ensureNamespace(String ns) throws IOException {
    if (NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR.equals(ns)
        || NamespaceDescriptor.SYSTEM_NAMESPACE_NAME_STR.equals(ns)) {
      return;
    }
    // listNamespaces, not getNamespaceDescriptor: on a cluster with the AccessController every
    // user may list the namespaces, while reading a descriptor takes ADMIN on the namespace, which
    // creating tables in it (CREATE) does not need.
    if (Arrays.asList(admin.listNamespaces()).contains(ns)) {
      return;
    }
    try {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
    } catch (NamespaceExistException raced) {
      // created concurrently: fine
    }
  }

  /** Default-replica, non-split-parent region locations from hbase:meta, sorted by start key. */
  private List<HRegionLocation> regionLocations(TableName tn) throws IOException {
    try (RegionLocator locator = connection.getRegionLocator(tn)) {
      return TableDescription.defaultReplicasSorted(locator.getAllRegionLocations());
    }
  }

  /**
   * Waits until the table is enabled with {@code expected} regions online, or the create
   * procedure fails (its exception is rethrown as the IOException it carries).
   */
  private void awaitOnline(TableName tn, int expected, Future<Void> procedure)
      throws IOException {
    long deadline = System.nanoTime() + onlineWaitMs * 1_000_000L;
    long sleep = 20;
    while (true) {
      if (procedure.isDone()) {
        try {
          procedure.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted creating " + TableSpec.qualified(tn));
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException) {
            throw (IOException) cause;
          }
          throw new IOException("creating " + TableSpec.qualified(tn) + " failed", cause);
        }
      }
      List<HRegionLocation> locs = regionLocations(tn);
      int online = 0;
      for (HRegionLocation l : locs) {
        if (l.getServerName() != null) {
          online++;
        }
      }
      if (locs.size() == expected && online == expected && admin.isTableEnabled(tn)) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("table " + TableSpec.qualified(tn) + " was created but only "
            + online + " of " + expected + " regions are online (" + locs.size()
            + " in hbase:meta) after " + onlineWaitMs + " ms");
      }
      try {
        Thread.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException iie = new InterruptedIOException(
            "interrupted waiting for the regions of " + TableSpec.qualified(tn));
        iie.initCause(e);
        throw iie;
      }
      sleep = Math.min(sleep * 2, 200);
    }
  }

  @Override
  public String toString() {
    return "AdminBridge" + Arrays.asList(connection.getConfiguration().get("hbase.zookeeper.quorum"),
        connection.getConfiguration().get("hbase.zookeeper.property.clientPort"));
  }
}
