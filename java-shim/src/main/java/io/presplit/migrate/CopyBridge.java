package io.presplit.migrate;

import static io.presplit.migrate.BridgeConnection.connection;
import static io.presplit.migrate.BridgeSupport.BATCH_ROWS;
import static io.presplit.migrate.BridgeSupport.SCAN_CACHING;
import static io.presplit.migrate.BridgeSupport.descriptor;
import static io.presplit.migrate.BridgeSupport.rangeScan;
import static io.presplit.migrate.BridgeSupport.rekey;
import static io.presplit.migrate.BridgeSupport.startKeys;
import static io.presplit.migrate.BridgeSupport.tableName;

import io.presplit.hbase.admin.AccessDenial;
import io.presplit.mapreduce.SourceSnapshot;
import io.presplit.mapreduce.StagingSpec;
import io.presplit.rekey.Cells;
import io.presplit.rekey.MigrationLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.ExtendedCellBuilder;
import org.apache.hadoop.hbase.ExtendedCellBuilderFactory;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.tool.BulkLoadHFilesTool;

/**
 * The copy of a re-salting migration, as presplitd calls it (see package-info): one chunk of a
 * source region at a time, re-keyed into the new generation by puts or by HFiles bulk-loaded.
 */
public final class CopyBridge {

  private static final long WRITE_BUFFER_BYTES = 8L << 20;

  /** The configuration of the last staging spec, by its key (see stagingConfiguration). */
  private static volatile StagingConfiguration lastStaging;

  private record StagingConfiguration(String key, Configuration conf) {}

  private CopyBridge() {
  }

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
}
