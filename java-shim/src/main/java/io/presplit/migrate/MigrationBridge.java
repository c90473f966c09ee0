package io.presplit.migrate;

import io.presplit.capture.CapturePeers;
import io.presplit.capture.CaptureSpec;
import io.presplit.capture.MigrationGuard;
import io.presplit.hbase.admin.AccessDenial;
import io.presplit.hbase.admin.AdminBridge;
import io.presplit.hbase.admin.JsonText;
import io.presplit.hbase.nativelib.NativeException;
import io.presplit.hbase.nativelib.PresplitNative;
import io.presplit.mapreduce.SourceSnapshot;
import io.presplit.mapreduce.StagingSpec;
import io.presplit.rekey.Cells;
import io.presplit.rekey.MigrationLayout;
import io.presplit.throttle.ThrottleGate;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.ExtendedCellBuilder;
import org.apache.hadoop.hbase.ExtendedCellBuilderFactory;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.tool.BulkLoadHFilesTool;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * What presplitd's migration engine calls, through the daemon's embedded JVM, to move and check
 * the cells of a re-salting migration (a table copied from an old generation, salted one way, to
 * a new one salted another). Static methods, simple types, results as JSON strings; errors are
 * thrown ({@link IllegalArgumentException} for bad input, which changes nothing; {@link
 * IOException} when HBase fails; a rerun of the same call is always safe).
 *
 * <h2>Conventions</h2>
 *
 * <ul>
 *   <li>Layouts are the JSON of a status znode's {@code layout} object (as a table document's
 *       {@code layout}); null or {@code {}} = unsalted.
 *   <li>Row keys are {@code byte[]}; an empty (or null) key is an open end. Ranges are
 *       {@code [fromRow, endRow)}; time ranges {@code [minTs, maxTs)} in milliseconds
 *       ({@code Long.MAX_VALUE} for no upper bound; an empty range [t, t) matches nothing).
 *   <li>Re-keying (old salt stripped, new salt computed from the logical key) is libpresplit's
 *       ({@code RekeyAll}, one JNI call per batch of rows), loaded by
 *       {@link io.presplit.hbase.nativelib.NativeLibrary}: from {@code java.library.path} (in
 *       presplitd: {@code jvm_options = -Djava.library.path=DIR}), else from the copy inside
 *       presplit-hbase.jar. Without it every re-keying call fails; nothing falls back to Java.
 *   <li>Every cell keeps its timestamp; a copy writes every version the scan returns (all the
 *       family keeps). Writing a cell twice (same row, column, timestamp, value) leaves the table
 *       as writing it once, so every call is idempotent and a chunk may be copied again.
 *   <li>One HBase {@link Connection} per JVM, opened on first use: from {@link #configure}'s
 *       settings when called, else from the configuration of the last
 *       {@link AdminBridge#connect}, else from {@code hbase-site.xml} on the classpath; the
 *       "hfile" engine's bulk loads go through it as well. Every method is thread-safe; the
 *       daemon runs one region per thread.
 * </ul>
 *
 * <h2>Digest</h2>
 *
 * Rows, cells and the sum modulo 2^64 of XXH64 (seed 0) over each live cell's length-prefixed
 * (logical key, family, qualifier, timestamp, value), as 16 hex digits ({@link CellDigest}).
 * Counts and digest equal = the same cells. The digest of a {@link #copyChunk} is that of the
 * source cells it copied, so it equals {@link #digestRange} over the same range.
 */
public final class MigrationBridge {

  /** Rows re-keyed per JNI call and per batch of mutations. */
  static final int BATCH_ROWS = 512;

  /** Rows read per scanner RPC. */
  static final int SCAN_CACHING = 1000;

  /** Target regions digested at once by {@link #digestTargetBySourceRegion}. */
  static final int DIGEST_THREADS = 4;

  /** Rows looked up per multi-get of {@link #checkPresent}. */
  static final int GET_BATCH_ROWS = 200;

  private static final long WRITE_BUFFER_BYTES = 8L << 20;

  /** The RPC codec that carries cell tags (HBase's replication sink uses it too). */
  static final String TAGS_CODEC = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

  private static final Object CONNECTION_LOCK = new Object();
  private static volatile Connection connection;
  private static volatile Configuration explicitConfiguration;

  /** The configuration of the last staging spec, by its key (see stagingConfiguration). */
  private static volatile StagingConfiguration lastStaging;

  private record StagingConfiguration(String key, Configuration conf) {}

  private MigrationBridge() {
  }

  /**
   * Sets the HBase configuration of the shared connection (alternating key, value over
   * {@code HBaseConfiguration.create()}, as {@link AdminBridge#connect}); closes a connection
   * opened with other settings, so calls running meanwhile may fail (and be retried).
   */
  public static void configure(String[] confPairs) throws IOException {
    Configuration conf = HBaseConfiguration.create();
    if (confPairs != null) {
      if (confPairs.length % 2 != 0) {
        throw new IllegalArgumentException(
            "confPairs must alternate key and value; got an odd count " + confPairs.length);
      }
      for (int i = 0; i < confPairs.length; i += 2) {
        if (confPairs[i] == null || confPairs[i].isEmpty() || confPairs[i + 1] == null) {
          throw new IllegalArgumentException("confPairs[" + i + "]: empty key or null value");
        }
        conf.set(confPairs[i], confPairs[i + 1]);
      }
    }
    synchronized (CONNECTION_LOCK) {
      explicitConfiguration = conf;
      closeConnection();
    }
  }

  /**
   * Closes the shared connection, which the "hfile" engine's bulk loads use too (the next call
   * opens a new one).
   */
  public static void closeConnection() throws IOException {
    synchronized (CONNECTION_LOCK) {
      Connection c = connection;
      connection = null;
      if (c != null) {
        c.close();
      }
    }
  }

  static Connection connection() throws IOException {
    Connection c = connection;
    if (c != null && !c.isClosed()) {
      return c;
    }
    synchronized (CONNECTION_LOCK) {
      c = connection;
      if (c == null || c.isClosed()) {
        Configuration conf = explicitConfiguration;
        if (conf == null) {
          conf = AdminBridge.lastConfiguration();
        }
        if (conf == null) {
          conf = HBaseConfiguration.create();
        }
        // Cells travel with their tags (a per-cell TTL, visibility labels, ACLs) both ways: the
        // copy reads them from the source and writes them into the target.
        conf = new Configuration(conf);
        conf.set(HConstants.RPC_CODEC_CONF_KEY, TAGS_CODEC);
        c = ConnectionFactory.createConnection(conf);
        connection = c;
      }
      return c;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // copyChunk

  /**
   * Copies the source rows [fromRow, endRow) (every live cell, every version the families keep,
   * whatever its timestamp) to the target, each row re-keyed from the old layout to the new,
   * timestamps and tags kept; stops after maxRows rows; durable before returning. Throttled to
   * maxCellsPerSecond (0 = unlimited). No time range selects anything: a cell's timestamp is its
   * writer's data; the migration's capture peer carries what is written meanwhile.
   *
   * <p>Two ways to write, the same cells either way: puts through one {@link BufferedMutator}
   * (hfileStagingSpec null or empty: the "put" engine), or HFiles written here by {@link
   * RekeyedHFiles} (the "hfile" engine) and bulk-loaded into the target before returning (no WAL,
   * no memstore, no flush of the copied cells on the RegionServer). hfileStagingSpec is then the
   * JSON of a bulk job's spec, of which {@link StagingSpec} reads {@code staging_dir},
   * {@code hbase_conf_dir}, {@code hadoop_conf_dir} and {@code hbase_conf}: the files go to a
   * fresh directory under staging_dir, on the file system that configuration names (the one the
   * bulk job's cleanup removes the staging directory from, and which the RegionServers must
   * read), and are handed to the RegionServers as full URIs; the HFile writers and the bulk load
   * use that configuration too. When the spec says {@code "input": "snapshot"} and names a
   * snapshot, the source rows are read from that snapshot's files in this JVM ({@link
   * SourceSnapshot}: taken on the first chunk, the same for every chunk of the migration) instead
   * of through the RegionServers. The chunk's directory is removed afterwards, loaded or not. A
   * bulk load repeated after a crash writes the same cells again, which HBase reads as one. The
   * load goes through this JVM's shared connection (see {@link #bulkLoad}).
   *
   * @return {@code {"rows":N,"cells":N,"bytes":N,"digest":"<16 hex>","next_row":"<base64>"|null}}:
   *     next_row is the first row not copied (where the next chunk starts), null when the range
   *     is done; bytes as {@link CellDigest#bytes}
   */
  public static String copyChunk(String sourceTable, String targetTable, String oldLayoutJson,
      String newLayoutJson, byte[] fromRow, byte[] endRow, int maxRows, long maxCellsPerSecond,
      String hfileStagingSpec) throws IOException {
    TableName source = tableName(sourceTable, "source table");
    TableName target = tableName(targetTable, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    if (maxRows < 1) {
      throw new IllegalArgumentException("maxRows must be at least 1 (got " + maxRows + ")");
    }
    boolean hfiles = hfileStagingSpec != null && !hfileStagingSpec.isEmpty();
    StagingSpec stagingSpec = hfiles ? StagingSpec.parse(hfileStagingSpec) : null;
    RateLimiter limiter = new RateLimiter(maxCellsPerSecond, source);
    Scan scan = rangeScan(fromRow, endRow, Math.min(maxRows + 1, SCAN_CACHING));
    CellDigest digest = new CellDigest();
    byte[] nextRow = null;
    Connection c = connection();
    ChunkStaging staging = hfiles ? chunkStaging(stagingSpec) : null;
    try (Table table = c.getTable(source); ResultScanner scanner = staging != null
            && stagingSpec.sourceSnapshot != null
            ? SourceSnapshot.scanner(c, new Configuration(staging.conf()),
                staging.dir().getParent(), stagingSpec.sourceSnapshot, source, scan)
            : table.getScanner(scan);
        BufferedMutator mutator = hfiles ? null : c.getBufferedMutator(
            new BufferedMutatorParams(target).writeBufferSize(WRITE_BUFFER_BYTES));
        RekeyedHFiles files = hfiles ? new RekeyedHFiles(staging.conf(), staging.dir(),
            descriptor(c, target), startKeys(c, target),
            newLayout.saltWidth()) : null) {
      List<Result> batch = new ArrayList<>(BATCH_ROWS);
      long rows = 0;
      Result r;
      while (rows < maxRows && (r = scanner.next()) != null) {
        if (r.isEmpty()) {
          continue;
        }
        batch.add(r);
        rows++;
        if (batch.size() == BATCH_ROWS) {
          copyBatch(batch, oldLayout, newLayout, mutator, files, digest, limiter);
        }
      }
      copyBatch(batch, oldLayout, newLayout, mutator, files, digest, limiter);
      if (rows == maxRows) {
        while ((r = scanner.next()) != null) {
          if (!r.isEmpty()) {
            nextRow = r.getRow();
            break;
          }
        }
      }
      if (mutator != null) {
        mutator.flush();
      } else {
        Map<byte[], List<Path>> written = files.finish();
        if (!written.isEmpty()) {
          bulkLoad(c, staging.conf(), target, written);
        }
      }
    } finally {
      if (staging != null) {
        staging.fs().delete(staging.dir(), true);
      }
    }
    StringBuilder json = new StringBuilder(160);
    json.append("{\"rows\":").append(digest.rows()).append(",\"cells\":").append(digest.cells())
        .append(",\"bytes\":").append(digest.bytes()).append(",\"digest\":\"")
        .append(digest.hex()).append("\",\"next_row\":");
    if (nextRow == null) {
      json.append("null");
    } else {
      json.append('"').append(Base64.getEncoder().encodeToString(nextRow)).append('"');
    }
    return json.append('}').toString();
  }

  /**
   * Where one chunk's HFiles go: a fresh directory under the spec's staging_dir, qualified (a full
   * URI: the RegionServers resolve nothing against their own default file system), on the file
   * system of {@link #stagingConfiguration}, with that configuration (the HFile writers' and the
   * bulk load's).
   */
  record ChunkStaging(Configuration conf, FileSystem fs, Path dir) {}

  static ChunkStaging chunkStaging(StagingSpec spec) throws IOException {
    Configuration conf = stagingConfiguration(spec);
    FileSystem fs = spec.dir.getFileSystem(conf);
    return new ChunkStaging(conf, fs,
        fs.makeQualified(new Path(spec.dir, "chunk-" + UUID.randomUUID())));
  }

  /**
   * The configuration of a staging spec ({@link StagingSpec#configuration()}), a private copy per
   * call. Built once and kept while the specs name the same configuration directories and
   * settings (a daemon's do not change while it runs), so a chunk does not parse the XML files
   * again.
   */
  static Configuration stagingConfiguration(StagingSpec spec) throws IOException {
    String key = spec.configurationKey();
    StagingConfiguration cached = lastStaging;
    if (cached == null || !cached.key().equals(key)) {
      Configuration conf = spec.configuration();
      conf.size(); // loads the resources now: a copy of a loaded configuration parses nothing
      cached = new StagingConfiguration(key, conf);
      lastStaging = cached;
    }
    return new Configuration(cached.conf());
  }

  /**
   * Bulk-loads a chunk's HFiles into the target through the shared connection. HBase's
   * {@code BulkLoadHFiles.create(conf).bulkLoad(table, files)} opens a cluster connection of its
   * own on every call (and closes it): a ZooKeeper session, the cluster id and region lookups per
   * chunk. {@code doBulkLoad} (inherited from LoadIncrementalHFiles, HBase 2.x's public API)
   * takes the Admin, Table and RegionLocator of a connection instead. The tool is made per call:
   * it keeps per-load state (bulk token, retry count), so it is not shared between the copy
   * threads; making it opens nothing (it copies the configuration). Its configuration is the
   * staging one, whose file system the files are read from (and split on, when a region split
   * meanwhile).
   *
   * @throws IOException when a file is not loaded (HBase gives up on files it could not load
   *     with a RuntimeException, rethrown as an IOException): the chunk fails and is copied again
   */
  static void bulkLoad(Connection c, Configuration stagingConf, TableName target,
      Map<byte[], List<Path>> files) throws IOException {
    BulkLoadHFilesTool loader = new BulkLoadHFilesTool(stagingConf);
    try (Admin admin = c.getAdmin(); Table table = c.getTable(target);
        RegionLocator locator = c.getRegionLocator(target)) {
      loader.doBulkLoad(files, admin, table, locator, false, false);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.BULK_LOAD, target, e);
    } catch (RuntimeException e) {
      throw AccessDenial.map(AccessDenial.Operation.BULK_LOAD, target,
          new IOException("bulk load into " + target + " failed: " + e.getMessage(), e));
    }
  }

  /** Re-keys and writes one batch of source rows, digesting the source cells; clears it. */
  private static void copyBatch(List<Result> batch, MigrationLayout oldLayout,
      MigrationLayout newLayout, BufferedMutator mutator, RekeyedHFiles files, CellDigest digest,
      RateLimiter limiter) throws IOException {
    if (batch.isEmpty()) {
      return;
    }
    byte[][] newKeys = rekey(batch, oldLayout, newLayout);
    int oldWidth = oldLayout.saltWidth();
    ExtendedCellBuilder builder = ExtendedCellBuilderFactory.create(CellBuilderType.SHALLOW_COPY);
    List<Mutation> puts = new ArrayList<>(files == null ? batch.size() : 0);
    long cells = 0;
    for (int i = 0; i < batch.size(); i++) {
      Result r = batch.get(i);
      byte[] row = r.getRow();
      byte[] newRow = newKeys[i];
      Cell[] rowCells = r.rawCells();
      for (Cell cell : rowCells) {
        digest.addCell(row, oldWidth, row.length - oldWidth, cell);
      }
      if (files != null) {
        files.add(newRow, rowCells);
      } else {
        Put put = new Put(newRow, true);
        for (Cell cell : rowCells) {
          put.add(Cells.moved(builder, newRow, cell));
        }
        puts.add(put);
      }
      digest.addRow();
      cells += rowCells.length;
    }
    batch.clear();
    if (mutator != null) {
      mutator.mutate(puts);
    }
    limiter.acquire(cells);
  }



  // ---------------------------------------------------------------------------------------------
  // Change capture and verification: thin entry points for the daemon (String in, JSON out)

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

  /**
   * Sets KEEP_DELETED_CELLS of every family of the table (a modifyTable, which reopens its
   * regions; nothing when every family has it already).
   */
  public static String setKeepDeletedCells(String table, String keep) throws IOException {
    TableName name = tableName(table, "table");
    KeepDeletedCells wanted = parseBoolean(keep, "keep") ? KeepDeletedCells.TRUE
        : KeepDeletedCells.FALSE;
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(descriptor);
      boolean changed = false;
      for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
        if (family.getKeepDeletedCells() != wanted) {
          builder.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(wanted).build());
          changed = true;
        }
      }
      if (changed) {
        modify(admin, builder.build());
      }
      return "{\"changed\":" + changed + "}";
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The new generation: the same table in a new layout (NextGeneration, GenerationSettings)

  /**
   * Creates the migration's new generation, pre-split at {@code splitKeysJson} (a JSON array of
   * base64 keys), as {@link NextGeneration#of} describes it (the old generation's settings, the
   * document's layout, the marker of plan {@code planId}), then copies the old generation's
   * grants and quotas and, with {@code replication} "follow", joins the peers that name it.
   * Refuses, creating nothing, what {@link GenerationSettings#refusal} refuses, and a table of
   * the new generation's name that this plan did not create. A rerun after a crash finds the
   * table it created and only copies the settings again.
   *
   * @return {@code {"created":true|false,"refused":null|"<why>","grants":N,"quotas":N,
   *     "peers_followed":[...],"replication_scope":"kept"|"cleared"|"none"}}
   */
  public static String createGeneration(String specJson, String splitKeysJson, String source,
      String replication, String planId) throws IOException {
    TableDescriptor document = io.presplit.hbase.admin.TableSpec.parse(specJson).descriptor();
    List<byte[]> splits = base64List(splitKeysJson);
    TableName from = tableName(source, "source");
    GenerationSettings.Replication mode = GenerationSettings.Replication.parse(replication);
    requirePlanId(planId);
    JsonObject out = new JsonObject();
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor old = admin.getDescriptor(from);
      boolean created = false;
      if (admin.tableExists(document.getTableName())) {
        String whyNot = NextGeneration.whyNotMarked(admin.getDescriptor(
            document.getTableName()), source, planId);
        if (!whyNot.isEmpty()) {
          return refused(out, "a table named " + document.getTableName() + " exists: " + whyNot
              + "; rename or drop it, or abort the migration");
        }
      } else {
        String refusal = GenerationSettings.refusal(admin, old, mode);
        if (!refusal.isEmpty()) {
          return refused(out, refusal);
        }
        TableDescriptor target = NextGeneration.of(old, document,
            mode != GenerationSettings.Replication.STOP, planId);
        // The copy and the capture need deleted cells kept (see setKeepDeletedCells): set from
        // the start, which spares the new table a reopen; settleNewGeneration gives the
        // source's back once the fence drained the capture.
        TableDescriptorBuilder keeping = TableDescriptorBuilder.newBuilder(target);
        for (ColumnFamilyDescriptor family : target.getColumnFamilies()) {
          keeping.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(KeepDeletedCells.TRUE).build());
        }
        target = keeping.build();
        try {
          if (splits.isEmpty()) {
            admin.createTable(target);
          } else {
            admin.createTable(target, splits.toArray(new byte[0][]));
          }
          created = true;
        } catch (org.apache.hadoop.hbase.TableExistsException e) {
          created = false;  // a concurrent create of ours: its marker is checked on the next run
        } catch (IOException e) {
          throw AccessDenial.map(AccessDenial.Operation.CREATE_TABLE, document.getTableName(), e);
        }
      }
      out.addProperty("created", created);
      out.add("refused", null);
      addCopied(out, GenerationSettings.copy(admin, from, document.getTableName(), mode));
      out.addProperty("replication_scope",
          NextGeneration.replicatedFamilies(old).isEmpty() ? "none"
              : mode == GenerationSettings.Replication.STOP ? "cleared" : "kept");
      return out.toString();
    }
  }

  /** {@code "grants":N,"quotas":N,"peers_followed":[...]}: what GenerationSettings copied. */
  private static void addCopied(JsonObject out, GenerationSettings.Copied copied) {
    out.addProperty("grants", copied.grants());
    out.addProperty("quotas", copied.quotas());
    JsonArray followed = new JsonArray();
    copied.peersFollowed().forEach(followed::add);
    out.add("peers_followed", followed);
  }

  private static String refused(JsonObject out, String why) {
    out.addProperty("created", false);
    out.addProperty("refused", why);
    return out.toString();
  }

  /**
   * Copies the grants and quotas of {@code source} to {@code target} again (and, with "follow",
   * joins the peers that name the source): right before the switch, for whatever an operator
   * changed on the old generation during the copy.
   *
   * @return {@code {"grants":N,"quotas":N,"peers_followed":[...]}}
   */
  public static String copyTableSettings(String source, String target, String replication)
      throws IOException {
    TableName from = tableName(source, "source");
    TableName to = tableName(target, "target");
    GenerationSettings.Replication mode = GenerationSettings.Replication.parse(replication);
    try (Admin admin = connection().getAdmin()) {
      JsonObject out = new JsonObject();
      addCopied(out, GenerationSettings.copy(admin, from, to, mode));
      return out.toString();
    }
  }

  /**
   * Whether {@code table} carries the marker of plan {@code planId} of the migration of
   * {@code source} ({@link NextGeneration#whyNotMarked}).
   *
   * @return {@code {"exists":true|false,"why_not":""|"<why>"}}
   */
  public static String checkGeneration(String table, String source, String planId)
      throws IOException {
    TableName name = tableName(table, "table");
    tableName(source, "source");
    JsonObject out = new JsonObject();
    try (Admin admin = connection().getAdmin()) {
      if (!admin.tableExists(name)) {
        out.addProperty("exists", false);
        out.addProperty("why_not", name + " does not exist");
        return out.toString();
      }
      out.addProperty("exists", true);
      out.addProperty("why_not",
          NextGeneration.whyNotMarked(admin.getDescriptor(name), source, planId));
      return out.toString();
    }
  }

  /**
   * The new generation once no capture peer writes into it any more (the fence drained and removed
   * the forward peer), in one modifyTable of {@code target} (a reopen of its regions; none when
   * nothing changes): every family gets the KEEP_DELETED_CELLS of the same family of
   * {@code source} (FALSE for a family the source lacks), the setting its owner chose, kept TRUE
   * since the creation because a moved region's older edits can arrive after a delete marker; and
   * the {@link MigrationGuard} of plan {@code planId} (or one naming no plan) is removed, another
   * plan's left in place.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the other guard's plan id>"}}
   */
  public static String settleNewGeneration(String target, String source, String planId)
      throws IOException {
    TableName to = tableName(target, "target");
    TableName from = tableName(source, "source");
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor old = admin.getDescriptor(from);
      TableDescriptor descriptor = admin.getDescriptor(to);
      TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(descriptor);
      boolean changed = false;
      for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
        ColumnFamilyDescriptor before = old.getColumnFamily(family.getName());
        KeepDeletedCells wanted = before == null ? KeepDeletedCells.FALSE
            : before.getKeepDeletedCells();
        if (family.getKeepDeletedCells() != wanted) {
          builder.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(wanted).build());
          changed = true;
        }
      }
      TableDescriptor settled = builder.build();
      String[] otherPlan = new String[1];
      TableDescriptor unguarded = unguardedFor(settled, planId, otherPlan);
      if (unguarded != null) {
        settled = unguarded;
        changed = true;
      }
      if (changed) {
        modify(admin, settled);
      }
      return guardChange(changed, otherPlan[0]);
    }
  }

  /**
   * Attaches the {@link MigrationGuard} of plan {@code planId} to {@code table}, refusing
   * SKIP_WAL writes and bulk loads (a modifyTable, which reopens its regions; nothing when it is
   * attached so already). A guard of another plan (one whose plan was removed by hand before it
   * could end) is replaced.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the replaced plan's id>"}}
   */
  public static String guardTable(String table, String planId) throws IOException {
    TableName name = tableName(table, "table");
    requirePlanId(planId);
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      String before = MigrationGuard.guardingPlan(descriptor);
      boolean changed = !MigrationGuard.isGuarded(descriptor, planId, /*copyLoads=*/false);
      if (changed) {
        modify(admin, MigrationGuard.guarded(descriptor, planId, /*copyLoads=*/false));
      }
      return guardChange(changed,
          before == null || before.isEmpty() || before.equals(planId) ? null : before);
    }
  }

  /**
   * Removes the {@link MigrationGuard} of plan {@code planId} (or one without its plan
   * attribute) from {@code table} (a modifyTable, which reopens its regions; nothing when no
   * guard is attached, or the table is gone). A guard of another plan is left in place: that
   * migration's own end removes it.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the plan of the guard left>"}}
   */
  public static String unguardTable(String table, String planId) throws IOException {
    TableName name = tableName(table, "table");
    requirePlanId(planId);
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor;
      try {
        descriptor = admin.getDescriptor(name);
      } catch (TableNotFoundException e) {
        return guardChange(false, null);
      }
      String[] otherPlan = new String[1];
      TableDescriptor unguarded = unguardedFor(descriptor, planId, otherPlan);
      if (unguarded != null) {
        modify(admin, unguarded);
      }
      return guardChange(unguarded != null, otherPlan[0]);
    }
  }

  /**
   * {@code descriptor} without the {@link MigrationGuard} of plan {@code planId} (or one naming
   * no plan); null when it carries no such guard. Another plan's guard is left in place and named
   * in {@code otherPlan[0]}.
   */
  private static TableDescriptor unguardedFor(TableDescriptor descriptor, String planId,
      String[] otherPlan) {
    String guarding = MigrationGuard.guardingPlan(descriptor);
    if (guarding == null) {
      return null;
    }
    if (!guarding.isEmpty() && !guarding.equals(planId)) {
      otherPlan[0] = guarding;
      return null;
    }
    return MigrationGuard.unguarded(descriptor);
  }

  private static String guardChange(boolean changed, String otherPlan) {
    JsonObject out = new JsonObject();
    out.addProperty("changed", changed);
    out.addProperty("other_plan", otherPlan);
    return out.toString();
  }

  private static void requirePlanId(String planId) {
    if (planId == null || planId.isEmpty()) {
      throw new IllegalArgumentException("plan id is missing");
    }
  }

  private static void modify(Admin admin, TableDescriptor descriptor) throws IOException {
    try {
      admin.modifyTable(descriptor);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.MODIFY_TABLE, descriptor.getTableName(), e);
    }
  }

  /**
   * Sets the table's READONLY (a modifyTable, which reopens its regions: each region's close is
   * its last entry in the WAL; nothing when it is so already). Read-only regions refuse every
   * write with an error the writer sees.
   */
  public static String setReadOnly(String table, String readOnly) throws IOException {
    TableName name = tableName(table, "table");
    boolean wanted = parseBoolean(readOnly, "readOnly");
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      if (descriptor.isReadOnly() == wanted) {
        return "{\"changed\":false}";
      }
      modify(admin, TableDescriptorBuilder.newBuilder(descriptor).setReadOnly(wanted).build());
      return "{\"changed\":true}";
    }
  }

  /**
   * Closes and reopens the named regions of the table, each on a server HBase picks (a move):
   * the close is the region's last entry in its server's WAL. For a fenced (read-only)
   * generation whose regions a RegionServer's crash reopened elsewhere without a close, so that
   * the drain of its capture can end. Every region is tried; names that are not regions of the
   * table are refused before anything moves.
   *
   * @param encodedRegions encoded region names, comma-separated
   * @return {@code {"reopened":N}}
   */
  public static String reopenRegions(String table, String encodedRegions) throws IOException {
    TableName name = tableName(table, "table");
    List<String> wanted = encodedRegionNames(encodedRegions);
    try (Admin admin = connection().getAdmin()) {
      TreeSet<String> ofTable = new TreeSet<>();
      for (RegionInfo r : admin.getRegions(name)) {
        ofTable.add(r.getEncodedName());
      }
      for (String region : wanted) {
        if (!ofTable.contains(region)) {
          throw new IllegalArgumentException(region + " is not a region of " + name);
        }
      }
      List<String> failed = new ArrayList<>();
      for (String region : wanted) {
        try {
          admin.move(Bytes.toBytes(region));
        } catch (IOException e) {
          failed.add(region + ": " + AccessDenial.map(AccessDenial.Operation.MOVE, name, e));
        }
      }
      if (!failed.isEmpty()) {
        throw new IOException("reopening " + failed.size() + " of " + wanted.size()
            + " regions of " + name + " failed: " + String.join("; ", failed));
      }
      return "{\"reopened\":" + wanted.size() + "}";
    }
  }

  /** Comma-separated encoded region names (32 lowercase hex digits each), at least one. */
  static List<String> encodedRegionNames(String names) {
    if (names == null || names.isEmpty()) {
      throw new IllegalArgumentException("no region named");
    }
    List<String> out = new ArrayList<>();
    for (String region : names.split(",", -1)) {
      if (!region.matches("[0-9a-f]{32}")) {
        throw new IllegalArgumentException("not an encoded region name: '" + region + "'");
      }
      out.add(region);
    }
    return out;
  }

  // Each entry point checks its arguments before it opens the shared connection: bad input is an
  // IllegalArgumentException that changes nothing, with or without a cluster.

  public static String digestPartitions(String table, String layoutJson, String fromRow,
      String endRow, String partitions) throws IOException {
    TableName name = tableName(table, "table");
    MigrationLayout layout = MigrationLayout.parse(layoutJson, "layout");
    byte[] from = base64(fromRow);
    byte[] end = base64(endRow);
    int count = parsePartitions(partitions);
    return Verification.digestPartitions(connection(), name, layout, from, end, count);
  }

  public static String digestTargetPartitions(String target, String newLayoutJson,
      String oldLayoutJson, String sourceStartsJson, String partitions) throws IOException {
    TableName name = tableName(target, "target table");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    List<byte[]> starts = base64List(sourceStartsJson);
    checkStarts(starts);
    int count = parsePartitions(partitions);
    return Verification.digestTargetPartitions(connection(), name, newLayout, oldLayout, starts,
        count);
  }

  public static String diffPartitions(String source, String target, String oldLayoutJson,
      String newLayoutJson, String sourceStartsJson, String regionsJson, String partitions,
      String maxKeys) throws IOException {
    TableName from = tableName(source, "source table");
    TableName to = tableName(target, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    List<byte[]> starts = base64List(sourceStartsJson);
    checkStarts(starts);
    List<Verification.RegionPartitions> regions = Verification.parseRegions(regionsJson);
    int count = parsePartitions(partitions);
    long max = parseLong(maxKeys, "maxKeys");
    if (max < 1 || max > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("maxKeys must be positive, got " + max);
    }
    return Verification.diffPartitions(connection(), from, to, oldLayout, newLayout, starts,
        regions, count, (int) max);
  }

  public static String rowHashes(String table, String layoutJson, String keysJson)
      throws IOException {
    TableName name = tableName(table, "table");
    MigrationLayout layout = MigrationLayout.parse(layoutJson, "layout");
    List<byte[]> keys = base64List(keysJson);
    return Verification.rowHashes(connection(), name, layout, keys);
  }

  public static String describeRow(String source, String target, String oldLayoutJson,
      String newLayoutJson, String key) throws IOException {
    TableName from = tableName(source, "source table");
    TableName to = tableName(target, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    byte[] logicalKey = base64(key);
    return Verification.describeRow(connection(), from, to, oldLayout, newLayout, logicalKey);
  }

  private static long parseLong(String value, String what) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + value + "' is not a number", e);
    }
  }

  private static boolean parseBoolean(String value, String what) {
    if (!"true".equals(value) && !"false".equals(value)) {
      throw new IllegalArgumentException(what + " must be true or false, got '" + value + "'");
    }
    return Boolean.parseBoolean(value);
  }

  private static int parsePartitions(String value) {
    long n = parseLong(value, "partitions");
    if (n < 1 || n > 65536) {
      throw new IllegalArgumentException("partitions must be within 1..65536, got " + n);
    }
    return (int) n;
  }

  static byte[] base64(String value) {
    try {
      return value == null ? new byte[0] : Base64.getDecoder().decode(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + value + "' is not base64", e);
    }
  }

  static List<byte[]> base64List(String json) {
    List<byte[]> out = new ArrayList<>();
    try {
      for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
        out.add(base64(e.getAsString()));
      }
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
      throw new IllegalArgumentException("not a JSON array of base64 strings: " + e.getMessage(),
          e);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // checkPresent

  /**
   * The final check before the old generation may be dropped: every live source cell must be in
   * the target at its new key (same column, timestamp and value), unless the target holds a newer
   * cell of that column or a delete marker that covers it (a writer changed it after the switch).
   * Batched gets, paced by the migration's {@link ThrottleGate}; a raw read of a target row only
   * for a cell not found.
   *
   * @return {@code {"checked":N,"missing":N,"first_missing":"<printable>"|null}}: the first
   *     missing cell as {@code 'logical key' family:qualifier@timestamp} in toStringBinary form
   */
  public static String checkPresent(String sourceTable, String targetTable, String oldLayoutJson,
      String newLayoutJson) throws IOException {
    TableName source = tableName(sourceTable, "source table");
    TableName target = tableName(targetTable, "target table");
    MigrationLayout oldLayout = MigrationLayout.parse(oldLayoutJson, "old layout");
    MigrationLayout newLayout = MigrationLayout.parse(newLayoutJson, "new layout");
    long[] counts = new long[2]; // checked, missing
    String[] firstMissing = new String[1];
    Connection c = connection();
    try (Table sourceTableHandle = c.getTable(source); Table targetTableHandle =
        c.getTable(target); ResultScanner scanner = sourceTableHandle.getScanner(
            rangeScan(null, null, SCAN_CACHING))) {
      List<Result> batch = new ArrayList<>(GET_BATCH_ROWS);
      Result r;
      do {
        r = scanner.next();
        if (r != null && !r.isEmpty()) {
          batch.add(r);
        }
        if (batch.size() == GET_BATCH_ROWS || (r == null && !batch.isEmpty())) {
          checkBatch(batch, oldLayout, newLayout, targetTableHandle, counts, firstMissing);
          batch.clear();
        }
      } while (r != null);
    }
    return "{\"checked\":" + counts[0] + ",\"missing\":" + counts[1] + ",\"first_missing\":"
        + (firstMissing[0] == null ? "null" : JsonText.quote(firstMissing[0])) + "}";
  }

  private static void checkBatch(List<Result> batch, MigrationLayout oldLayout,
      MigrationLayout newLayout, Table target, long[] counts, String[] firstMissing)
      throws IOException {
    byte[][] newKeys = rekey(batch, oldLayout, newLayout);
    List<Get> gets = new ArrayList<>(batch.size());
    for (byte[] key : newKeys) {
      gets.add(new Get(key).readAllVersions());
    }
    long cells = 0;
    for (Result r : batch) {
      cells += r.size();
    }
    // The target serves the application by now: the adaptive throttle's gate paces these gets.
    ThrottleGate.acquire(target.getName(), cells);
    Result[] found = target.get(gets);
    for (int i = 0; i < batch.size(); i++) {
      Result targetRow = found[i];
      List<Cell> rawTargetRow = null;
      for (Cell cell : batch.get(i).rawCells()) {
        counts[0]++;
        if (isPresentOrSuperseded(targetRow, cell)) {
          continue;
        }
        if (rawTargetRow == null) {
          rawTargetRow = rawRow(target, newKeys[i]);
        }
        if (isDeleted(rawTargetRow, cell)) {
          continue;
        }
        counts[1]++;
        if (firstMissing[0] == null) {
          byte[] row = batch.get(i).getRow();
          int width = oldLayout.saltWidth();
          firstMissing[0] = "'" + Bytes.toStringBinary(row, width, row.length - width) + "' "
              + Bytes.toStringBinary(CellUtil.cloneFamily(cell)) + ":"
              + Bytes.toStringBinary(CellUtil.cloneQualifier(cell)) + "@" + cell.getTimestamp();
        }
      }
    }
  }

  /** The target row holds the cell (same value), or a newer cell of its column. */
  private static boolean isPresentOrSuperseded(Result targetRow, Cell cell) {
    if (targetRow == null || targetRow.isEmpty()) {
      return false;
    }
    List<Cell> column = targetRow.getColumnCells(CellUtil.cloneFamily(cell),
        CellUtil.cloneQualifier(cell));
    for (Cell t : column) {
      if (t.getTimestamp() > cell.getTimestamp()) {
        return true;
      }
      if (t.getTimestamp() == cell.getTimestamp() && CellUtil.matchingValue(t, cell)) {
        return true;
      }
    }
    return false;
  }

  /** Every cell and delete marker of one target row (a raw read). */
  private static List<Cell> rawRow(Table target, byte[] row) throws IOException {
    Scan scan = new Scan().withStartRow(row, true).withStopRow(row, true).setRaw(true)
        .readAllVersions();
    List<Cell> cells = new ArrayList<>();
    try (ResultScanner scanner = target.getScanner(scan)) {
      for (Result r : scanner) {
        cells.addAll(Arrays.asList(r.rawCells()));
      }
    }
    return cells;
  }

  /** A delete marker among the raw cells that covers the cell (HBase's delete semantics). */
  private static boolean isDeleted(List<Cell> raw, Cell cell) {
    long ts = cell.getTimestamp();
    for (Cell m : raw) {
      if (!CellUtil.matchingFamily(m, cell)) {
        continue;
      }
      switch (m.getType()) {
        case DeleteFamily:
          if (m.getTimestamp() >= ts) {
            return true;
          }
          break;
        case DeleteFamilyVersion:
          if (m.getTimestamp() == ts) {
            return true;
          }
          break;
        case DeleteColumn:
          if (CellUtil.matchingQualifier(m, cell) && m.getTimestamp() >= ts) {
            return true;
          }
          break;
        case Delete:
          if (CellUtil.matchingQualifier(m, cell) && m.getTimestamp() == ts) {
            return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Shared pieces

  static TableDescriptor descriptor(Connection c, TableName table) throws IOException {
    try (Admin admin = c.getAdmin()) {
      return admin.getDescriptor(table);
    }
  }

  /** A table's region start keys, ascending (the first is empty). */
  static byte[][] startKeys(Connection c, TableName table) throws IOException {
    try (RegionLocator locator = c.getRegionLocator(table)) {
      return locator.getStartKeys();
    }
  }

  /** The index of the last start <= key, or -1 when the key is before every start. */
  static int regionOf(byte[][] starts, byte[] key) {
    int lo = 0;
    int hi = starts.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Bytes.compareTo(starts[mid], key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Region start keys as given, checked: at least one, strictly increasing. */
  static byte[][] checkStarts(List<byte[]> given) {
    if (given == null || given.isEmpty()) {
      throw new IllegalArgumentException("sourceRegionStarts must name at least one region");
    }
    byte[][] out = new byte[given.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = given.get(i) == null ? new byte[0] : given.get(i);
      if (i > 0 && Bytes.compareTo(out[i - 1], out[i]) >= 0) {
        throw new IllegalArgumentException("sourceRegionStarts are not strictly increasing at "
            + i + ": '" + Bytes.toStringBinary(out[i - 1]) + "' then '"
            + Bytes.toStringBinary(out[i]) + "'");
      }
    }
    return out;
  }


  /** The rows' keys re-keyed from one layout to the other, by libpresplit (one JNI call). */
  static byte[][] rekey(List<Result> rows, MigrationLayout from, MigrationLayout to) {
    byte[][] keys = new byte[rows.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = rows.get(i).getRow();
    }
    return rekeyKeys(keys, from, to);
  }

  /** Row keys re-keyed from one layout to the other, by libpresplit (one JNI call). */
  static byte[][] rekeyKeys(byte[][] keys, MigrationLayout from, MigrationLayout to) {
    try {
      return PresplitNative.rekeyAll(from.spec, to.spec, keys);
    } catch (NativeException e) {
      if ("INVALID_ARGUMENT".equals(e.code())) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
      throw new IllegalStateException("libpresplit could not re-key: " + e.getMessage(), e);
    }
  }

  /** A scan of [fromRow, endRow) returning every live version, whatever its timestamp. */
  static Scan rangeScan(byte[] fromRow, byte[] endRow, int caching) {
    Scan scan = new Scan().readAllVersions().setCaching(caching).setCacheBlocks(false);
    if (fromRow != null && fromRow.length > 0) {
      scan.withStartRow(fromRow, true);
    }
    if (endRow != null && endRow.length > 0) {
      if (fromRow != null && fromRow.length > 0 && Bytes.compareTo(fromRow, endRow) >= 0) {
        throw new IllegalArgumentException("the range ['" + Bytes.toStringBinary(fromRow)
            + "', '" + Bytes.toStringBinary(endRow) + "') is empty");
      }
      scan.withStopRow(endRow, false);
    }
    return scan;
  }

  static TableName tableName(String name, String what) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(what + " is missing");
    }
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " '" + name + "' is not a table name: "
          + e.getMessage(), e);
    }
  }


  // ---------------------------------------------------------------------------------------------
  // The adaptive throttle (daemon/migrate/throttler.h)

  /**
   * One health sample of the RegionServers holding these tables ({@link ClusterHealth#sample}).
   *
   * @param tables comma-separated table names (the migration's source and target)
   * @param probes small gets per table (decimal)
   */
  public static String clusterHealth(String tables, String probes) throws IOException {
    return ClusterHealth.sample(connection(), tableNames(tables), Integer.parseInt(probes));
  }

  /**
   * Sets the rate of these tables' shared {@link ThrottleGate} (cells per second, decimal; 0 =
   * open; negative: removed, and the topology {@link #clusterHealth} cached forgotten).
   *
   * @return {@code {"taken":N}}: the cells read or written through the gate since the last call
   */
  public static String setThrottle(String tables, String cellsPerSecond) {
    TableName[] names = tableNames(tables);
    long rate = Long.parseLong(cellsPerSecond);
    long taken = ThrottleGate.set(names, rate);
    if (rate < 0) {
      ClusterHealth.forget(names);
    }
    return "{\"taken\":" + taken + "}";
  }

  private static TableName[] tableNames(String csv) {
    if (csv == null || csv.isEmpty()) {
      throw new IllegalArgumentException("no tables named");
    }
    String[] parts = csv.split(",");
    TableName[] names = new TableName[parts.length];
    for (int i = 0; i < parts.length; i++) {
      names[i] = tableName(parts[i], "table");
    }
    return names;
  }
}
