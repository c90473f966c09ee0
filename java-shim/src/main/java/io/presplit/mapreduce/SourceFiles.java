package io.presplit.mapreduce;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.security.AccessControlException;

/**
 * Whether this JVM's user may read what a snapshot input (TableSnapshotInputFormat) reads: the
 * snapshots' directory and the table's region, family and store files under {@code
 * hbase.rootdir}. Asked by trying, as the job would (list the directories, open one store
 * file), not by comparing owners and modes: on a local file system the process's user reads
 * files whatever Hadoop's user is called, and on HDFS ACLs and groups decide.
 */
final class SourceFiles {

  private SourceFiles() {}

  /**
   * Null when the files of {@code table} under {@code rootDir} can be read; otherwise why not:
   * the path refused and the file system's message (its first line).
   *
   * @throws IOException when the file system fails otherwise than by refusing
   */
  static String unreadable(Configuration conf, Path rootDir, TableName table) throws IOException {
    return unreadable(rootDir.getFileSystem(conf), rootDir, table);
  }

  static String unreadable(FileSystem fs, Path rootDir, TableName table) throws IOException {
    Path at = rootDir;
    try {
      at = new Path(rootDir, HConstants.SNAPSHOT_DIR_NAME);
      try {
        fs.listStatus(at);
      } catch (FileNotFoundException e) {
        // No snapshot taken yet: HBase makes the directory with the first one.
      }
      at = CommonFSUtils.getTableDir(rootDir, table);
      for (FileStatus region : fs.listStatus(at)) {
        if (!region.isDirectory() || region.getPath().getName().startsWith(".")) {
          continue;
        }
        at = region.getPath();
        for (FileStatus family : fs.listStatus(at)) {
          if (!family.isDirectory() || family.getPath().getName().startsWith(".")
              || family.getPath().getName().equals("recovered.edits")) {
            continue;
          }
          at = family.getPath();
          for (FileStatus file : fs.listStatus(at)) {
            if (file.isFile()) {
              at = file.getPath();
              try (InputStream in = fs.open(at)) {
                in.read();
              }
              return null; // one store file read: the others have the same owner and mode
            }
          }
        }
      }
      return null;
    } catch (AccessControlException | AccessDeniedException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return "cannot read " + at + ": " + message.strip().split("\n", 2)[0];
    }
  }
}
