package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.mapreduce.ResaltBulkJob;
import io.presplit.mapreduce.StagingSpec;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "hfile" engine's chunk copy stages its files where the bulk job's cleanup looks for them:
 * both resolve the spec's staging_dir through hbase_conf_dir, hadoop_conf_dir and hbase_conf.
 * A file system of its own ("marked", local files under a temporary root) stands for HDFS, so a
 * bare path that went to the daemon's local disk instead of the configured default file system
 * shows.
 */
class ChunkStagingTest {

  /** The local file system under {@link #root}, as the scheme "marked". */
  public static final class MarkedFileSystem extends RawLocalFileSystem {
    static volatile File root;

    @Override
    public URI getUri() {
      return URI.create("marked:///");
    }

    @Override
    public String getScheme() {
      return "marked";
    }

    @Override
    public File pathToFile(Path path) {
      return new File(root, super.pathToFile(path).getPath());
    }
  }

  @TempDir
  File temp;

  private File confDir(String name, String fileName, String... properties) throws IOException {
    File dir = new File(temp, name);
    assertTrue(dir.mkdirs());
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (int i = 0; i < properties.length; i += 2) {
      xml.append("  <property><name>").append(properties[i]).append("</name><value>")
          .append(properties[i + 1]).append("</value></property>\n");
    }
    xml.append("</configuration>\n");
    Files.writeString(new File(dir, fileName).toPath(), xml, StandardCharsets.UTF_8);
    return dir;
  }

  /** A Hadoop configuration directory whose default file system is the "marked" one. */
  private File markedHadoopConfDir() throws IOException {
    MarkedFileSystem.root = new File(temp, "marked-root");
    assertTrue(MarkedFileSystem.root.mkdirs());
    return confDir("hadoop-conf", "core-site.xml", "fs.defaultFS", "marked:///",
        "fs.marked.impl", MarkedFileSystem.class.getName(), "fs.marked.impl.disable.cache",
        "true");
  }

  /** The spec the daemon gives both the chunk copy and the cleanup (Migrator::SpecOf). */
  private static JsonObject spec(String stagingDir) {
    JsonObject o = JsonParser.parseString("{\"source\": \"ns:t\", \"target\": \"ns:t__g2\","
        + " \"old_layout\": {}, \"new_layout\": {}, \"min_ts\": 0, \"max_ts\": 1000,"
        + " \"input\": \"table\", \"hbase_conf\": {\"hbase.zookeeper.quorum\": \"zk.invalid\"},"
        + " \"local_tasks\": 2}").getAsJsonObject();
    o.addProperty("staging_dir", stagingDir);
    return o;
  }

  @Test
  void aBarePathIsStagedAndCleanedOnTheConfiguredDefaultFileSystem() throws IOException {
    JsonObject o = spec("/staging/ns_t__g2");
    o.addProperty("hadoop_conf_dir", markedHadoopConfDir().getPath());
    String json = o.toString();

    CopyBridge.ChunkStaging chunk = CopyBridge.chunkStaging(StagingSpec.parse(json));
    assertEquals("marked", chunk.dir().toUri().getScheme(), "chunk dir " + chunk.dir());
    assertEquals(new Path("marked:/staging/ns_t__g2"), chunk.dir().getParent());
    assertEquals("marked", chunk.fs().getScheme());
    Path hfile = new Path(new Path(chunk.dir(), "f"), "00000");
    chunk.fs().create(hfile).close();
    File onDisk = new File(MarkedFileSystem.root, "/staging/ns_t__g2/" + chunk.dir().getName()
        + "/f/00000");
    assertTrue(onDisk.isFile(), "the copy wrote " + hfile + " on the configured file system");
    assertFalse(new File("/staging/ns_t__g2").exists(), "nothing on the local disk's path");

    // What the migrator runs once the copy is done (or aborted): the same directory goes.
    ResaltBulkJob.cleanup(json);
    assertFalse(chunk.fs().exists(chunk.dir()));
    assertFalse(new File(MarkedFileSystem.root, "/staging/ns_t__g2").exists());
  }

  @Test
  void theWritersConfigurationHasTheConfDirsAndTheDaemonsSettingsLast() throws IOException {
    JsonObject o = spec(new File(temp, "staging").getPath());
    o.addProperty("hbase_conf_dir", confDir("hbase-conf", "hbase-site.xml",
        "presplit.test.site", "from-hbase-site", "hbase.zookeeper.quorum", "site.invalid")
        .getPath());
    o.addProperty("hadoop_conf_dir", markedHadoopConfDir().getPath());
    o.getAsJsonObject("hbase_conf").addProperty("fs.defaultFS", "file:///");

    CopyBridge.ChunkStaging chunk = CopyBridge.chunkStaging(
        StagingSpec.parse(o.toString()));
    assertEquals("from-hbase-site", chunk.conf().get("presplit.test.site"));
    assertEquals("zk.invalid", chunk.conf().get("hbase.zookeeper.quorum"),
        "hbase_conf (the daemon's settings) over hbase-site.xml");
    assertEquals("file", chunk.dir().toUri().getScheme(), "hbase_conf over core-site.xml");
    assertTrue(chunk.dir().toString().startsWith("file:" + temp.getPath() + "/staging/chunk-"),
        chunk.dir().toString());
  }

  @Test
  void everyChunkGetsItsOwnDirectoryAndConfiguration() throws IOException {
    StagingSpec spec = StagingSpec.parse(spec(new File(temp, "s").getPath()).toString());
    CopyBridge.ChunkStaging a = CopyBridge.chunkStaging(spec);
    CopyBridge.ChunkStaging b = CopyBridge.chunkStaging(spec);
    assertFalse(a.dir().equals(b.dir()));
    assertNotSame(a.conf(), b.conf(), "a chunk may change its copy of the configuration");
    a.conf().set("hbase.zookeeper.quorum", "changed.invalid");
    assertEquals("zk.invalid", CopyBridge.chunkStaging(spec).conf()
        .get("hbase.zookeeper.quorum"));

    // Other settings, another configuration (not the cached one).
    JsonObject other = spec(new File(temp, "s").getPath());
    other.getAsJsonObject("hbase_conf").addProperty("hbase.zookeeper.quorum", "other.invalid");
    assertEquals("other.invalid", CopyBridge.chunkStaging(StagingSpec.parse(
        other.toString())).conf().get("hbase.zookeeper.quorum"));
  }

  @Test
  void theSourceIsReadFromASnapshotOnlyWhenTheSpecSaysSoAndNamesIt() {
    String dir = new File(temp, "staging").getPath();
    JsonObject o = spec(dir);
    assertNull(StagingSpec.parse(o.toString()).sourceSnapshot, "input table: the live source");
    o.addProperty("input", "snapshot");
    assertNull(StagingSpec.parse(o.toString()).sourceSnapshot, "no snapshot named");
    o.addProperty("snapshot", "presplit_resalt_ns_t__g2");
    assertEquals("presplit_resalt_ns_t__g2", StagingSpec.parse(o.toString()).sourceSnapshot);
    o.addProperty("input", "table");
    assertNull(StagingSpec.parse(o.toString()).sourceSnapshot, "a name alone reads nothing");
  }

  @Test
  void aBadStagingSpecIsRefusedBeforeAnythingIsRead() {
    for (String bad : new String[] {"/tmp/staging", "[]", "{}", "{\"staging_dir\": \"\"}",
        "{\"staging_dir\": \"/s\", \"hbase_conf\": [1]}",
        "{\"staging_dir\": \"/s\", \"hbase_conf\": {\"k\": {}}}",
        "{\"staging_dir\": \"/s\", \"input\": \"hfiles\"}"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CopyBridge.copyChunk("ns:t", "ns:t__g2", "{}", "{}", null, null, 10, 0, bad),
          bad);
      assertTrue(e.getMessage().contains("staging spec") || e.getMessage().contains("field"),
          e.getMessage());
    }
  }

  @Test
  void aMissingConfigurationDirectoryIsAnError() {
    JsonObject o = spec(new File(temp, "s").getPath());
    o.addProperty("hadoop_conf_dir", new File(temp, "nowhere").getPath());
    IOException e = assertThrows(IOException.class,
        () -> CopyBridge.chunkStaging(StagingSpec.parse(o.toString())));
    assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
  }
}
