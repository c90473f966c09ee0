package io.presplit.mapreduce;

import java.io.File;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * Where a migration stages its HFiles and the configuration that names their file system: the
 * {@code staging_dir}, {@code hbase_conf_dir}, {@code hadoop_conf_dir} and {@code hbase_conf}
 * fields of a bulk job's spec ({@link ResaltBulkJob}). The "mapreduce" engine's job and cleanup
 * and the "hfile" engine's chunk copy ({@code CopyBridge.copyChunk}) resolve the staging
 * directory through this one configuration, so a path without a scheme lands on the same file
 * system whichever of them writes or removes it (the {@code fs.defaultFS} of the Hadoop
 * configuration directory, else of hbase-site.xml, else the local disk).
 *
 * <p>The chunk copy reads its source rows from a snapshot of the source table instead of through
 * the RegionServers when the spec says {@code "input": "snapshot"} and names the snapshot
 * ({@code "snapshot": "name"}); both must be given ({@link #sourceSnapshot}). The bulk job reads
 * the same two fields with defaults of its own.
 *
 * <p>Deliberately free of MapReduce classes (and of {@link BulkJobs}, which uses them): the
 * chunk copy loads it on a classpath without Hadoop's MapReduce jars.
 */
public final class StagingSpec {

  /** The staging directory as given (resolved against {@link #configuration()}'s file system). */
  public final Path dir;

  /** hbase-site.xml's directory, or null. */
  public final String hbaseConfDir;

  /** The directory of core-, hdfs-, mapred- and yarn-site.xml, or null. */
  public final String hadoopConfDir;

  /** Settings applied last (the daemon's own HBase settings), in their order. */
  public final Map<String, String> hbaseConf;

  /**
   * The snapshot the chunk copy reads the source from: the {@code snapshot} field when
   * {@code input} is {@code "snapshot"} and both are given explicitly; null otherwise (the copy
   * scans the live source through the RegionServers).
   */
  public final String sourceSnapshot;

  private StagingSpec(Path dir, String hbaseConfDir, String hadoopConfDir,
      Map<String, String> hbaseConf, String sourceSnapshot) {
    this.dir = dir;
    this.hbaseConfDir = hbaseConfDir;
    this.hadoopConfDir = hadoopConfDir;
    this.hbaseConf = Collections.unmodifiableMap(hbaseConf);
    this.sourceSnapshot = sourceSnapshot;
  }

  /**
   * The staging fields of a spec (a JSON object; other fields are ignored).
   *
   * @throws IllegalArgumentException when it is not a JSON object, lacks {@code staging_dir} or
   *     has a {@code hbase_conf} that is not an object of strings
   */
  public static StagingSpec parse(String json) {
    if (json == null) {
      throw new IllegalArgumentException("the staging spec is null");
    }
    JsonElement root;
    try {
      root = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      throw new IllegalArgumentException("the staging spec is not JSON: " + e.getMessage(), e);
    }
    if (!root.isJsonObject()) {
      throw new IllegalArgumentException("the staging spec must be a JSON object");
    }
    return of(root.getAsJsonObject());
  }

  /** The staging fields of a parsed spec; see {@link #parse}. */
  static StagingSpec of(JsonObject o) {
    String stagingDir = text(o, "staging_dir");
    if (stagingDir == null) {
      throw new IllegalArgumentException("field 'staging_dir': required");
    }
    Path dir = new Path(stagingDir);
    String hbaseConfDir = text(o, "hbase_conf_dir");
    String hadoopConfDir = text(o, "hadoop_conf_dir");
    Map<String, String> hbaseConf = new LinkedHashMap<>();
    JsonElement overrides = o.get("hbase_conf");
    if (overrides != null && !overrides.isJsonNull()) {
      if (!overrides.isJsonObject()) {
        throw new IllegalArgumentException("field 'hbase_conf' must be an object");
      }
      for (Map.Entry<String, JsonElement> e : overrides.getAsJsonObject().entrySet()) {
        if (!e.getValue().isJsonPrimitive()) {
          throw new IllegalArgumentException(
              "field 'hbase_conf': the value of '" + e.getKey() + "' must be a string");
        }
        hbaseConf.put(e.getKey(), e.getValue().getAsString());
      }
    }
    String input = text(o, "input");
    if (input != null && !input.equals("snapshot") && !input.equals("table")) {
      throw new IllegalArgumentException(
          "field 'input': '" + input + "' (expected snapshot or table)");
    }
    String snapshot = text(o, "snapshot");
    return new StagingSpec(dir, hbaseConfDir, hadoopConfDir, hbaseConf,
        "snapshot".equals(input) ? snapshot : null);
  }

  /**
   * A fresh configuration: HBase's defaults (with the hbase-site.xml on the classpath), then the
   * files of {@link #hbaseConfDir} and {@link #hadoopConfDir}, then {@link #hbaseConf}.
   *
   * @throws IOException when a named configuration directory does not exist
   */
  public Configuration configuration() throws IOException {
    return clusterConfiguration(hbaseConfDir, hadoopConfDir, hbaseConf);
  }

  /**
   * What {@link #configuration()} depends on, as one string: two specs with the same key build
   * the same configuration (as long as the files do not change).
   */
  public String configurationKey() {
    return hbaseConfDir + "\u0000" + hadoopConfDir + "\u0000" + hbaseConf;
  }

  /**
   * HBase's defaults, then the files of {@code hbaseConfDir} (hbase-site.xml) and
   * {@code hadoopConfDir} (core-, hdfs-, mapred-, yarn-site.xml) when given (null: none), then
   * {@code overrides}.
   */
  static Configuration clusterConfiguration(String hbaseConfDir, String hadoopConfDir,
      Map<String, String> overrides) throws IOException {
    Configuration conf = HBaseConfiguration.create();
    if (hbaseConfDir != null) {
      addResources(conf, hbaseConfDir, "hbase-site.xml");
    }
    if (hadoopConfDir != null) {
      addResources(conf, hadoopConfDir, "core-site.xml", "hdfs-site.xml", "mapred-site.xml",
          "yarn-site.xml");
    }
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      conf.set(e.getKey(), e.getValue());
    }
    return conf;
  }

  private static void addResources(Configuration conf, String dir, String... names)
      throws IOException {
    File directory = new File(dir);
    if (!directory.isDirectory()) {
      throw new IOException("configuration directory " + dir + " does not exist");
    }
    for (String name : names) {
      File f = new File(directory, name);
      if (f.isFile()) {
        conf.addResource(new Path(f.getAbsolutePath()));
      }
    }
  }

  /** A string field; null when absent, null or empty. */
  private static String text(JsonObject o, String name) {
    JsonElement e = o.get(name);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive()) {
      throw new IllegalArgumentException("field '" + name + "' must be a string");
    }
    String value = e.getAsString();
    return value.isEmpty() ? null : value;
  }
}
