package io.presplit.mapreduce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.util.MapReduceExtendedCell;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.lib.partition.TotalOrderPartitioner;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

import io.presplit.client.KeyLayout;
import io.presplit.client.KeyLayoutException;
import io.presplit.throttle.ThrottleGate;

/**
 * The re-salting copy of a big table as a MapReduce job on HBase's own machinery: every cell of
 * the source table, re-keyed from the old key layout to the new one, written as HFiles
 * partitioned by the target table's regions and bulk-loaded into the target (no WAL, no
 * memstore).
 *
 * <ul>
 *   <li>Input: {@code TableSnapshotInputFormat} over a snapshot of the source taken at submit
 *       (the job reads the snapshot's files, not the RegionServers), or {@code TableInputFormat}
 *       over the live source ({@code "input": "table"}). The scan reads every version the
 *       families keep, live cells only (deletes applied), timestamps in {@code [min_ts,
 *       max_ts)}.
 *   <li>Map: each row's logical key (the old row key without its salt) gets the new layout's
 *       salt; every cell keeps family, qualifier, timestamp and value. The keys are computed by
 *       the SDK's {@link KeyLayout}, the pure-Java twin of libpresplit's layout code,
 *       byte-identical to it: both are pinned by the shared test vectors
 *       ({@code SharedVectorsTest} and libpresplit's tests). A row that does not fit the old
 *       layout fails the job with its key: nothing is dropped quietly.
 *   <li>Reduce: {@code HFileOutputFormat2.configureIncrementalLoad} against the target's region
 *       boundaries (one reducer and one HFile per family per target region, cells sorted by
 *       {@code CellSortReducer}).
 *   <li>Load: {@code BulkLoadHFiles} moves the HFiles into the target's regions.
 * </ul>
 *
 * <p>Where it runs: Hadoop's local job runner in this JVM by default; a YARN cluster when the
 * spec's {@code hadoop_conf_dir} holds a mapred-site.xml with {@code mapreduce.framework.name =
 * yarn} (the job's jars then travel with it).
 *
 * <p>The static API is for presplitd's embedded JVM (simple types, JSON results, errors as
 * exceptions); {@link #main} runs the same steps by hand. The spec (JSON):
 *
 * <pre>
 * {"source": "ns:t", "target": "ns:t__g2",
 *  "old_layout": {...}, "new_layout": {...},   // the status znode's "layout" objects
 *  "min_ts": 0, "max_ts": 1700000000000,       // ms, [min_ts, max_ts); default all
 *  "staging_dir": "/var/tmp/presplit/t__g2",   // on the cluster's file system
 *  "input": "snapshot" | "table",              // default snapshot
 *  "snapshot": "name",                         // default presplit_resalt_&lt;target&gt;
 *  "hadoop_conf_dir": "/etc/hadoop/conf",      // optional: YARN
 *  "hbase_conf_dir": "/etc/hbase/conf",        // optional: hbase-site.xml (hbase.rootdir)
 *  "hbase_conf": {"key": "value"},             // optional overrides
 *  "local_tasks": 2}                           // local runner: tasks at a time
 * </pre>
 *
 * <p>A snapshot input reads the snapshot's files under {@code hbase.rootdir}, so the
 * configuration must name the cluster's root directory (hbase_conf_dir or hbase_conf).
 */
public final class ResaltBulkJob {

  static final String OLD_LAYOUT_KEY = "presplit.resalt.old.layout";
  static final String NEW_LAYOUT_KEY = "presplit.resalt.new.layout";

  private ResaltBulkJob() {}

  /** A parsed, checked spec. */
  static final class Spec {
    final TableName source;
    final TableName target;
    final String oldLayoutJson;
    final String newLayoutJson;
    final long minTs;
    final long maxTs;
    final Path staging;
    final boolean snapshotInput;
    final String snapshot;
    final String hadoopConfDir;
    final String hbaseConfDir;
    final Map<String, String> hbaseConf = new LinkedHashMap<>();
    final int localTasks;

    Spec(String json) {
      JsonObject o;
      try {
        JsonElement root = JsonParser.parseString(json);
        if (!root.isJsonObject()) {
          throw new IllegalArgumentException("the bulk job spec must be a JSON object");
        }
        o = root.getAsJsonObject();
      } catch (JsonParseException e) {
        throw new IllegalArgumentException("the bulk job spec is not JSON: " + e.getMessage(), e);
      }
      source = TableName.valueOf(BulkJobs.requiredText(o, "source"));
      target = TableName.valueOf(BulkJobs.requiredText(o, "target"));
      if (source.equals(target)) {
        throw new IllegalArgumentException("source and target are the same table " + source);
      }
      oldLayoutJson = layoutJson(o, "old_layout");
      newLayoutJson = layoutJson(o, "new_layout");
      minTs = BulkJobs.number(o, "min_ts", 0);
      maxTs = BulkJobs.number(o, "max_ts", Long.MAX_VALUE);
      if (minTs < 0 || maxTs <= minTs) {
        throw new IllegalArgumentException(
            "the time range [" + minTs + ", " + maxTs + ") is empty or negative");
      }
      String input = BulkJobs.text(o, "input", "snapshot");
      if (!input.equals("snapshot") && !input.equals("table")) {
        throw new IllegalArgumentException(
            "field 'input': '" + input + "' (expected snapshot or table)");
      }
      snapshotInput = input.equals("snapshot");
      snapshot = BulkJobs.text(o, "snapshot",
          "presplit_resalt_" + target.getNameAsString().replaceAll("[^A-Za-z0-9_.-]", "_"));
      // The staging fields as the hfile engine's chunk copy reads them (one parser for both).
      StagingSpec staged = StagingSpec.of(o);
      hadoopConfDir = staged.hadoopConfDir;
      hbaseConfDir = staged.hbaseConfDir;
      staging = staged.dir;
      hbaseConf.putAll(staged.hbaseConf);
      localTasks = (int) BulkJobs.number(o, "local_tasks", 2);
      if (localTasks < 1) {
        throw new IllegalArgumentException("field 'local_tasks' must be at least 1");
      }
    }

    private static String layoutJson(JsonObject o, String name) {
      JsonElement e = o.get(name);
      if (e == null || !e.isJsonObject()) {
        throw new IllegalArgumentException("field '" + name + "': required, a layout object");
      }
      KeyLayout.fromDocument(e.getAsJsonObject()); // checks it now, not in a task
      return e.toString();
    }

    Configuration configuration() throws IOException {
      return BulkJobs.configuration(hbaseConfDir, hadoopConfDir, hbaseConf, staging, localTasks);
    }

    Path hfiles() {
      return new Path(staging, BulkJobs.HFILES_DIR);
    }

    Path restoreDir() {
      return new Path(staging, "restore");
    }
  }

  /**
   * Takes the snapshot (or reuses the one a previous submit of this spec took), configures and
   * submits the job, and returns its id at once. A previous, unfinished output of this spec is
   * deleted first (it is derived from the source, which stays untouched), and on YARN an
   * unfinished job of the same name (an earlier submit whose id was lost with its submitter) is
   * killed first.
   *
   * @throws IOException when the tables cannot be read, the snapshot not taken or the job not
   *     submitted
   * @throws IllegalArgumentException when the spec is not valid
   */
  public static String submit(String specJson) throws IOException {
    return BulkJobs.text(submitted(specJson), "job_id", "");
  }

  /**
   * As {@link #submit}, for presplitd: {@code {"job_id": "...", "tokens": ["HBASE_AUTH_TOKEN",
   * "HDFS_DELEGATION_TOKEN"]}}, the kinds of delegation token the job carries (none on a cluster
   * without security), which the daemon logs.
   */
  public static String submitJob(String specJson) throws IOException {
    return submitted(specJson).toString();
  }

  private static JsonObject submitted(String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    Configuration conf = spec.configuration();
    // First the orphan, then its output: a job still running would write into the new one's.
    String jobName = "presplit re-salt " + spec.source + " -> " + spec.target;
    for (String orphan : BulkJobs.killUnfinishedNamed(jobName, conf)) {
      System.err.println("ResaltBulkJob: killed " + orphan + ", an unfinished earlier submit of "
          + "this migration whose id was never recorded");
    }
    FileSystem fs = spec.staging.getFileSystem(conf);
    fs.delete(spec.hfiles(), true);
    fs.delete(spec.restoreDir(), true);

    Job job = Job.getInstance(conf, jobName);
    job.setJarByClass(ResaltBulkJob.class);
    Configuration jobConf = job.getConfiguration();
    jobConf.set(OLD_LAYOUT_KEY, spec.oldLayoutJson);
    jobConf.set(NEW_LAYOUT_KEY, spec.newLayoutJson);
    // A live-table input reads every cell's tags (a per-cell TTL, visibility labels, ACLs) only
    // with the tag-carrying codec; a snapshot input reads them from the HFiles.
    jobConf.set(HConstants.RPC_CODEC_CONF_KEY,
        "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags");

    Scan scan = new Scan().readAllVersions().setTimeRange(spec.minTs, spec.maxTs)
        .setCacheBlocks(false).setCaching(1000);
    boolean shipJars = !BulkJobs.isLocal(conf);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin();
        Table target = connection.getTable(spec.target);
        RegionLocator targetRegions = connection.getRegionLocator(spec.target)) {
      if (!admin.tableExists(spec.source)) {
        throw new IOException("source table " + spec.source + " does not exist");
      }
      if (!admin.tableExists(spec.target)) {
        throw new IOException("target table " + spec.target + " does not exist");
      }
      if (spec.snapshotInput) {
        // A flush-type snapshot (every cell), or the one an earlier submit of this migration
        // took: it holds every cell older than max_ts that the source had then.
        SourceSnapshot.ensureTaken(connection, spec.snapshot, spec.source);
        TableMapReduceUtil.initTableSnapshotMapperJob(spec.snapshot, scan, ResaltMapper.class,
            ImmutableBytesWritable.class, MapReduceExtendedCell.class, job, shipJars,
            spec.restoreDir());
      } else {
        TableMapReduceUtil.initTableMapperJob(spec.source.getNameAsString(), scan, ResaltMapper.class,
            ImmutableBytesWritable.class, MapReduceExtendedCell.class, job, shipJars);
        if (!shipJars) {
          // The local runner's tasks read the live source in this JVM: they take from the
          // migration's gate, whose rate the daemon's adaptive throttle sets.
          jobConf.set(BulkJobs.THROTTLE_GATE_KEY, spec.source.getNameAsString());
        }
      }
      HFileOutputFormat2.configureIncrementalLoad(job, target.getDescriptor(), targetRegions);
    }
    // configureIncrementalLoad marks its partition file delete-on-exit, but on YARN the job
    // outlives this JVM (`submit`, a daemon restarted while the job runs) and every map task
    // reads the file: seen failing with "Can't read partitions file". It lies in the staging
    // directory (hbase.fs.tmp.dir), which cleanup() removes.
    Path partitions = new Path(TotalOrderPartitioner.getPartitionFile(jobConf));
    partitions.getFileSystem(jobConf).cancelDeleteOnExit(partitions);
    org.apache.hadoop.mapreduce.lib.output.FileOutputFormat.setOutputPath(job, spec.hfiles());
    // A snapshot input's job has no HBase token yet (initTableSnapshotMapperJob obtains none).
    List<String> tokens = BulkJobs.addDelegationTokens(job, spec.staging);
    JsonObject out = new JsonObject();
    out.addProperty("job_id", BulkJobs.submit(job));
    out.addProperty("paced", BulkJobs.isPaced(job));
    JsonArray kinds = new JsonArray();
    tokens.forEach(kinds::add);
    out.add("tokens", kinds);
    return out;
  }

  /**
   * Whether this JVM's user may read the source table's files under {@code hbase.rootdir}, which
   * a snapshot input reads: {@code {"readable": true}}, or {@code {"readable": false, "reason":
   * "..."}} naming the directory or file refused and the file system's message. On a secure
   * HDFS the files there are HBase's own (its data directory is mode 700): presplitd's
   * principal cannot read them, and the daemon reads the live table instead (input "table").
   *
   * @throws IOException when the file system cannot be asked (not a refusal)
   */
  public static String snapshotInput(String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    Configuration conf = spec.configuration();
    String reason = SourceFiles.unreadable(conf, CommonFSUtils.getRootDir(conf), spec.source);
    JsonObject out = new JsonObject();
    out.addProperty("readable", reason == null);
    if (reason != null) {
      out.addProperty("reason", reason);
    }
    return out.toString();
  }

  /**
   * {@code {"job_id","state","map_progress","reduce_progress","cells","rows","failure"?}} of a
   * job submitted by this JVM, or (YARN) by anyone. State {@code UNKNOWN}: a local-runner job of
   * a JVM that is gone: submit it again.
   */
  public static String progress(String jobId) throws IOException {
    Job job = BulkJobs.known(jobId);
    Configuration conf = job != null ? job.getConfiguration() : null;
    return BulkJobs.progress(jobId, conf);
  }

  /**
   * Waits until the job ends (on YARN: a job any process submitted, e.g. with {@code submit})
   * and returns its progress as {@link #progress(String, String)}.
   */
  public static String await(String jobId, String specJson) throws IOException {
    Configuration conf = new Spec(specJson).configuration();
    BulkJobs.await(jobId, conf);
    return BulkJobs.progress(jobId, conf);
  }

  /** As {@link #progress(String)}, looking a job up on the cluster the spec names. */
  public static String progress(String jobId, String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    return BulkJobs.progress(jobId, spec.configuration());
  }

  /**
   * Bulk-loads the finished job's HFiles into the target. Safe to call again: after a load the
   * files are gone and a {@code _LOADED} marker stays (a second call loads nothing); after a
   * crash in the middle, loading again writes the same cells again, which HBase reads as one.
   * Returns {@code {"files":N,"bytes":N}} of what this call loaded.
   */
  public static String load(String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    return BulkJobs.load(spec.configuration(), spec.target, spec.hfiles());
  }

  /**
   * What the staging directory holds: {@code {"finished": bool, "loaded": bool}}. finished: a
   * job's complete output (its {@code _SUCCESS} marker) waits there; loaded: it was bulk-loaded
   * already ({@code _LOADED}). A restarted daemon asks this before it submits a job again, so a
   * finished output is loaded instead of recomputed and a load is never repeated.
   */
  public static String output(String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    return BulkJobs.output(spec.configuration(), spec.hfiles());
  }

  /**
   * Kills the job (a job of this JVM, or on YARN one the cluster knows) and forgets it. A job
   * that is unknown or already finished is left as it is: killing is safe to repeat.
   */
  public static void kill(String jobId, String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    BulkJobs.kill(jobId, spec.configuration());
  }

  /** Deletes the snapshot (when this job took one) and the staging directory. */
  public static void cleanup(String specJson) throws IOException {
    Spec spec = new Spec(specJson);
    Configuration conf = spec.configuration();
    if (spec.snapshotInput) {
      try (Connection connection = ConnectionFactory.createConnection(conf);
          Admin admin = connection.getAdmin()) {
        for (SnapshotDescription existing : admin.listSnapshots()) {
          if (existing.getName().equals(spec.snapshot)) {
            admin.deleteSnapshot(spec.snapshot);
          }
        }
      }
    }
    BulkJobs.deleteStaging(conf, spec.staging);
  }

  /** Re-keys every cell of a source row from the old layout to the new one. */
  public static final class ResaltMapper
      extends TableMapper<ImmutableBytesWritable, MapReduceExtendedCell> {
    private KeyLayout oldLayout;
    private KeyLayout newLayout;
    private Counter cells;
    private Counter rows;
    private TableName gate; // null: the task reads at its own pace

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      oldLayout = KeyLayout.fromDocument(
          JsonParser.parseString(conf.get(OLD_LAYOUT_KEY)).getAsJsonObject());
      newLayout = KeyLayout.fromDocument(
          JsonParser.parseString(conf.get(NEW_LAYOUT_KEY)).getAsJsonObject());
      cells = context.getCounter(BulkJobs.COUNTERS, BulkJobs.CELLS);
      rows = context.getCounter(BulkJobs.COUNTERS, BulkJobs.ROWS);
      String gateTable = conf.get(BulkJobs.THROTTLE_GATE_KEY);
      gate = gateTable == null ? null : TableName.valueOf(gateTable);
    }

    @Override
    protected void map(ImmutableBytesWritable row, Result result, Context context)
        throws IOException, InterruptedException {
      if (gate != null) {
        ThrottleGate.acquire(gate, result.size());
      }
      byte[] oldRow = result.getRow();
      byte[] newRow;
      try {
        oldLayout.decode(oldRow); // the salt must be the old layout's, or the row is not ours
        newRow = newLayout.encode(oldLayout.logicalKey(oldRow));
      } catch (KeyLayoutException e) {
        throw new IOException("source row '" + Bytes.toStringBinary(oldRow)
            + "' cannot be re-keyed: " + e.getMessage(), e);
      }
      ImmutableBytesWritable outKey = new ImmutableBytesWritable(newRow);
      for (Cell cell : result.rawCells()) {
        KeyValue kv = new KeyValue(newRow, 0, newRow.length, cell.getFamilyArray(),
            cell.getFamilyOffset(), cell.getFamilyLength(), cell.getQualifierArray(),
            cell.getQualifierOffset(), cell.getQualifierLength(), cell.getTimestamp(),
            KeyValue.Type.Put, cell.getValueArray(), cell.getValueOffset(),
            cell.getValueLength(), cell.getTagsArray(), cell.getTagsOffset(), cell.getTagsLength());
        context.write(outKey, new MapReduceExtendedCell(kv));
        cells.increment(1);
      }
      rows.increment(1);
    }
  }

  // ---- command line ------------------------------------------------------------------------

  private static final String USAGE = String.join("\n",
      "usage: ResaltBulkJob <command> <spec.json> [job-id]",
      "  run SPEC              submit, wait (progress on stderr), bulk-load, print the result",
      "  submit SPEC           submit and print the job id (YARN: the job outlives this process)",
      "  progress SPEC JOB_ID  print the progress of a YARN job",
      "  wait SPEC JOB_ID      wait until a YARN job ends, print its progress; exit 1 unless it"
          + " succeeded",
      "  load SPEC             bulk-load a finished job's HFiles (safe to repeat)",
      "  cleanup SPEC          delete the job's snapshot and staging directory",
      "The spec is JSON; see the class documentation or README.md (bulk re-salting).");

  /**
   * By hand: {@code java -cp presplit-hbase.jar:<HBase classpath>
   * io.presplit.mapreduce.ResaltBulkJob run spec.json}, or through {@code hadoop jar}. Exit 0
   * on success, 1 on failure, 2 on a usage error.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2
        || ((args[0].equals("progress") || args[0].equals("wait")) && args.length < 3)) {
      System.err.println(USAGE);
      System.exit(2);
    }
    String spec = new String(Files.readAllBytes(Paths.get(args[1])), StandardCharsets.UTF_8);
    try {
      switch (args[0]) {
        case "run":
          System.out.println(run(spec));
          break;
        case "submit":
          System.out.println(submit(spec));
          break;
        case "progress":
          System.out.println(progress(args[2], spec));
          break;
        case "wait": {
          String ended = await(args[2], spec);
          System.out.println(ended);
          if (!"SUCCEEDED".equals(BulkJobs.text(JsonParser.parseString(ended).getAsJsonObject(),
              "state", ""))) {
            System.exit(1);
          }
          break;
        }
        case "load":
          System.out.println(load(spec));
          break;
        case "cleanup":
          cleanup(spec);
          break;
        default:
          System.err.println(USAGE);
          System.exit(2);
      }
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("ResaltBulkJob: " + e.getMessage());
      System.exit(1);
    }
    System.exit(0);
  }

  /**
   * Submit, wait, load: {@code {"job_id","rows","cells","files","bytes","job_ms","load_ms"}}.
   */
  static String run(String specJson) throws IOException, InterruptedException {
    long started = System.nanoTime();
    String jobId = submit(specJson);
    Job job = BulkJobs.known(jobId);
    System.err.println("ResaltBulkJob: submitted " + jobId);
    while (!job.isComplete()) {
      Thread.sleep(1000);
      System.err.println("ResaltBulkJob: " + progress(jobId));
    }
    String last = progress(jobId);
    if (job.getStatus().getState() != JobStatus.State.SUCCEEDED) {
      throw new IOException("job " + jobId + " did not succeed: " + BulkJobs.failureOf(job));
    }
    long jobMs = (System.nanoTime() - started) / 1_000_000;
    long loadStarted = System.nanoTime();
    JsonObject loaded = JsonParser.parseString(load(specJson)).getAsJsonObject();
    JsonObject out = JsonParser.parseString(last).getAsJsonObject();
    out.remove("map_progress");
    out.remove("reduce_progress");
    out.add("files", loaded.get("files"));
    out.add("bytes", loaded.get("bytes"));
    out.addProperty("job_ms", jobMs);
    out.addProperty("load_ms", (System.nanoTime() - loadStarted) / 1_000_000);
    BulkJobs.forget(jobId);
    return out.toString();
  }
}
