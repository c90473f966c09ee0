package io.presplit.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether the daemon's user may read a snapshot's files: tried on a local root directory
 * through a file system that refuses what a secure HDFS refuses (a root directory of mode 700
 * owned by hbase, or one store file).
 */
class SourceFilesTest {

  static final TableName TABLE = TableName.valueOf("ns:t");

  /** The local file system, refusing every path under {@code refused} as a NameNode does. */
  static final class Refusing extends RawLocalFileSystem {
    String refused = "/nothing-refused";
    String denialPath = "";

    private void check(Path p) throws AccessControlException {
      if (Path.getPathWithoutSchemeAndAuthority(p).toString().startsWith(refused)) {
        throw new AccessControlException("Permission denied: user=presplit, access=READ_EXECUTE, "
            + "inode=\"" + denialPath + "\":hbase:hbase:drwx------\n\tat the NameNode");
      }
    }

    @Override
    public FileStatus[] listStatus(Path p) throws IOException {
      check(p);
      return super.listStatus(p);
    }

    @Override
    public FSDataInputStream open(Path p, int bufferSize) throws IOException {
      check(p);
      return super.open(p, bufferSize);
    }
  }

  @TempDir java.nio.file.Path dir;
  Refusing fs;
  Path root;

  @BeforeEach
  void rootDirWithOneStoreFile() throws IOException {
    java.nio.file.Path family = dir.resolve("hbase/data/ns/t/0123abcd/f");
    Files.createDirectories(family);
    Files.createDirectories(dir.resolve("hbase/data/ns/t/.tabledesc"));
    Files.write(family.resolve("4567cdef"), "hfile".getBytes(StandardCharsets.UTF_8));
    fs = new Refusing();
    fs.initialize(java.net.URI.create("file:///"), new Configuration());
    root = new Path("file", null, dir.resolve("hbase").toString());
  }

  @Test
  void readableFilesAreReadable() throws IOException {
    assertNull(SourceFiles.unreadable(fs, root, TABLE));
  }

  @Test
  void aTableWithoutStoreFilesOrSnapshotsIsReadable() throws IOException {
    Files.delete(dir.resolve("hbase/data/ns/t/0123abcd/f/4567cdef"));
    assertNull(SourceFiles.unreadable(fs, root, TABLE));
  }

  @Test
  void aRootDirectoryOfHBaseAloneIsNamedWithTheRefusal() throws IOException {
    fs.refused = dir.resolve("hbase").toString();
    fs.denialPath = "/hbase";
    String reason = SourceFiles.unreadable(fs, root, TABLE);
    assertTrue(reason.startsWith("cannot read " + root + "/.hbase-snapshot: Permission denied: "
        + "user=presplit"), reason);
    assertTrue(reason.endsWith("drwx------"), "the first line only: " + reason);
  }

  @Test
  void anUnreadableStoreFileIsNamed() throws IOException {
    fs.refused = dir.resolve("hbase/data/ns/t/0123abcd/f/4567cdef").toString();
    String reason = SourceFiles.unreadable(fs, root, TABLE);
    assertTrue(reason.startsWith("cannot read " + root + "/data/ns/t/0123abcd/f/4567cdef: "),
        reason);
  }

  @Test
  void aMissingTableIsAnErrorNotARefusal() throws IOException {
    assertThrows(java.io.FileNotFoundException.class,
        () -> SourceFiles.unreadable(fs, root, TableName.valueOf("ns:none")));
  }

  @Test
  void tokenKindsAreDistinctAndSorted() {
    Credentials credentials = new Credentials();
    assertEquals("none", BulkJobs.describeTokens(BulkJobs.tokenKinds(credentials)));
    credentials.addToken(new Text("nn1"), token("HDFS_DELEGATION_TOKEN"));
    credentials.addToken(new Text("nn2"), token("HDFS_DELEGATION_TOKEN"));
    credentials.addToken(new Text("cluster-id"), token("HBASE_AUTH_TOKEN"));
    List<String> kinds = BulkJobs.tokenKinds(credentials);
    assertEquals(List.of("HBASE_AUTH_TOKEN", "HDFS_DELEGATION_TOKEN"), kinds);
    assertEquals("HBASE_AUTH_TOKEN, HDFS_DELEGATION_TOKEN", BulkJobs.describeTokens(kinds));
  }

  static Token<TokenIdentifier> token(String kind) {
    return new Token<>(new byte[0], new byte[0], new Text(kind), new Text("service"));
  }
}
