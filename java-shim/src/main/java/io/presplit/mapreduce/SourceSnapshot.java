package io.presplit.mapreduce;

import io.presplit.hbase.admin.AccessDenial;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.TableSnapshotScanner;
import org.apache.hadoop.hbase.snapshot.RestoreSnapshotHelper;
import org.apache.hadoop.hbase.util.CommonFSUtils;

/**
 * The "hfile" engine's source read from a snapshot's files instead of through the RegionServers:
 * the chunk copy opens the source's regions read-only in this JVM (HBase's own
 * {@link TableSnapshotScanner}, as {@code TableSnapshotInputFormat} does for the bulk job) and
 * reads their HFiles directly, so the RegionServers spend nothing on the copy's scan: no RPCs, no
 * results serialized, no block cache churn.
 *
 * <p>Why it is safe for a migration: the snapshot is taken (flush type: memstores first) once,
 * after the plan's start timestamp, and every chunk of the migration reads that one snapshot, so a
 * chunk copied again after a crash or by a new leader reads the same cells as the first time. It
 * holds every cell older than the start timestamp that the source had when it was taken; what
 * changes afterwards is the capture peer's to carry, as for the live scan. The verification reads
 * the live source, not the snapshot.
 *
 * <p>The snapshot is restored (reference files only, no data copied) once per JVM into a
 * directory of its own under the staging directory, which must be on the file system of
 * {@code hbase.rootdir} (TableSnapshotScanner opens the restored regions there) and is removed
 * with the staging directory when the copy ends or the migration is aborted. Thread-safe.
 */
public final class SourceSnapshot {

  private static final Object LOCK = new Object();

  /**
   * Restore directories of this JVM, by snapshot name, creation time and staging directory: a
   * snapshot of the same name taken again (a migration aborted and started anew) is restored
   * anew, never read through links to the files of the one before.
   */
  private static final Map<String, Path> RESTORED = new HashMap<>();

  private SourceSnapshot() {
  }

  /**
   * A scanner over the snapshot for the scan's range; the snapshot is taken first when it does not
   * exist yet (it must be of the source table) and restored when this JVM has not restored that
   * very snapshot (one master RPC a chunk finds out).
   *
   * @param conf a configuration of its own (the region scanners change it), naming hbase.rootdir
   * @param stagingDir the migration's staging directory, qualified (the restore goes below it)
   */
  public static ResultScanner scanner(Connection c, Configuration conf, Path stagingDir,
      String snapshot, TableName source, Scan scan) throws IOException {
    Path rootDir = CommonFSUtils.getRootDir(conf);
    Path restoreDir = restored(c, conf, rootDir, stagingDir, snapshot, source);
    return new TableSnapshotScanner(conf, rootDir, restoreDir, snapshot, scan, true);
  }

  private static Path restored(Connection c, Configuration conf, Path rootDir, Path stagingDir,
      String snapshot, TableName source) throws IOException {
    FileSystem rootFs = rootDir.getFileSystem(conf);
    synchronized (LOCK) {
      long created = ensureTaken(c, snapshot, source);
      String key = snapshot + "\u0000" + created + "\u0000" + stagingDir;
      Path dir = RESTORED.get(key);
      if (dir != null && rootFs.exists(dir)) {
        return dir;
      }
      FileSystem stagingFs = stagingDir.getFileSystem(conf);
      if (!stagingFs.getUri().equals(rootFs.getUri())) {
        throw new IllegalArgumentException("the staging directory " + stagingDir + " is on "
            + stagingFs.getUri() + ", hbase.rootdir " + rootDir + " on " + rootFs.getUri()
            + ": a snapshot is restored as links to hbase.rootdir's files, so the staging "
            + "directory must be on the same file system");
      }
      // One directory per JVM: another daemon (an old leader still finishing a chunk) may be
      // reading its own restore while this one restores.
      dir = new Path(stagingFs.makeQualified(stagingDir), "restore-" + UUID.randomUUID());
      RestoreSnapshotHelper.copySnapshotForScanner(conf, rootFs, rootDir, dir, snapshot);
      RESTORED.put(key, dir);
      return dir;
    }
  }

  /**
   * Takes a flush-type snapshot of the source unless one of that name exists; returns its
   * creation time. The one place both engines take their snapshot (the bulk job's submit too).
   *
   * @throws IOException when HBase fails, or a snapshot of that name is of another table
   */
  public static long ensureTaken(Connection c, String snapshot, TableName source) throws IOException {
    try (Admin admin = c.getAdmin()) {
      SnapshotDescription found = find(admin, snapshot);
      if (found == null) {
        try {
          admin.snapshot(snapshot, source);
        } catch (IOException e) {
          throw AccessDenial.map(AccessDenial.Operation.SNAPSHOT, source, e);
        }
        found = find(admin, snapshot);
        if (found == null) {
          throw new IOException("snapshot " + snapshot + " of " + source
              + " was taken but is not listed");
        }
      }
      if (!found.getTableName().equals(source)) {
        throw new IOException("snapshot " + snapshot + " exists but is of table "
            + found.getTableName() + ", not of the source " + source);
      }
      return found.getCreationTime();
    }
  }

  private static SnapshotDescription find(Admin admin, String snapshot) throws IOException {
    List<SnapshotDescription> listed =
        admin.listSnapshots(Pattern.compile(Pattern.quote(snapshot)));
    for (SnapshotDescription d : listed) {
      if (d.getName().equals(snapshot)) {
        return d;
      }
    }
    return null;
  }
}
