package io.presplit.mapreduce;

import io.presplit.hbase.admin.AccessDenial;
import io.presplit.throttle.ThrottleGate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * What the bulk jobs ({@link ResaltBulkJob}, {@link SaltedImport}) share: the job
 * configuration (local job runner by default, YARN when a Hadoop configuration directory says
 * so), the jobs this JVM submitted, progress as JSON, and the bulk load of a finished job's
 * HFiles.
 */
final class BulkJobs {

  /** Counter group of presplit's own counters. */
  static final String COUNTERS = "presplit";

  /** Counter: cells written to the HFiles. */
  static final String CELLS = "cells";

  /** Counter: rows (source rows, or good lines of an import). */
  static final String ROWS = "rows";

  /**
   * Job setting: the table whose {@link ThrottleGate} the map tasks take their cells from, set
   * only on a job of this JVM's local runner that reads the live table (tasks elsewhere, or
   * reading a snapshot's files, do not load the RegionServers through this JVM's gate).
   */
  static final String THROTTLE_GATE_KEY = "presplit.bulk.throttle.gate.table";

  /** Sub-directory of the staging directory that receives the HFiles. */
  static final String HFILES_DIR = "hfiles";

  /** Jobs submitted by this JVM, by job id (the local runner's jobs only exist here). */
  private static final Map<String, Job> JOBS = new ConcurrentHashMap<>();

  private BulkJobs() {}

  /**
   * The configuration of a bulk job: {@link StagingSpec#clusterConfiguration} (HBase's defaults,
   * then the files of {@code hbaseConfDir} (hbase-site.xml) and {@code hadoopConfDir} (core-,
   * hdfs-, mapred-, yarn-site.xml) when given, then {@code overrides}). Unless the Hadoop
   * configuration names another framework ({@code mapreduce.framework.name = yarn}), the job
   * runs on Hadoop's local job runner in this JVM, with {@code localTasks} map and reduce tasks
   * at a time and a sort buffer small enough for the daemon's heap; its temporary files go under
   * {@code staging}.
   */
  static Configuration configuration(String hbaseConfDir, String hadoopConfDir,
      Map<String, String> overrides, Path staging, int localTasks) throws IOException {
    Configuration conf = StagingSpec.clusterConfiguration(hbaseConfDir, hadoopConfDir, overrides);
    // HFileOutputFormat2 writes its partition file under hbase.fs.tmp.dir: keep it with the job.
    conf.set("hbase.fs.tmp.dir", new Path(staging, "tmp").toString());
    if (isLocal(conf)) {
      conf.set("mapreduce.framework.name", "local");
      conf.setInt("mapreduce.local.map.tasks.maximum", localTasks);
      conf.setInt("mapreduce.local.reduce.tasks.maximum", localTasks);
      if (overrides.get("mapreduce.task.io.sort.mb") == null) {
        // Every local task sorts in this JVM's heap (Hadoop's default is 100 MB per task).
        conf.setInt("mapreduce.task.io.sort.mb", 32);
      }
      // The local runner keeps the job's files and the tasks' spill files on the local file
      // system: with the staging directory when it is local, else (HDFS) under this JVM's
      // temporary directory.
      Path local = localRunnerDir(conf, staging);
      if (local == null) {
        local = staging;
      }
      conf.set("mapreduce.jobtracker.staging.root.dir",
          new Path(local, "mapred-staging").toString());
      conf.set("mapreduce.cluster.local.dir", new Path(local, "mapred-local").toString());
    }
    return conf;
  }

  /**
   * The local directory of the local runner's job and spill files for a staging directory that
   * is not on the local file system (under this JVM's temporary directory), else null (they go
   * into the staging directory).
   */
  static Path localRunnerDir(Configuration conf, Path staging) throws IOException {
    if (staging.getFileSystem(conf) instanceof LocalFileSystem) {
      return null;
    }
    return new Path("file://" + System.getProperty("java.io.tmpdir"),
        "presplit-mapred/" + staging.getName());
  }

  /** Deletes the staging directory and, when it has one elsewhere, its local runner directory. */
  static void deleteStaging(Configuration conf, Path staging) throws IOException {
    staging.getFileSystem(conf).delete(staging, true);
    Path local = localRunnerDir(conf, staging);
    if (local != null) {
      local.getFileSystem(conf).delete(local, true);
    }
  }

  /** True when jobs of this configuration run on the local job runner. */
  static boolean isLocal(Configuration conf) {
    return "local".equals(conf.get("mapreduce.framework.name", "local"));
  }

  /** Kind of HBase's authentication token (what TokenUtil obtains from the cluster). */
  static final String HBASE_TOKEN_KIND = "HBASE_AUTH_TOKEN";

  /** The reduce side's shuffle of a job (Hadoop's own by default). */
  static final String SHUFFLE_PLUGIN_KEY = "mapreduce.job.reduce.shuffle.consumer.plugin.class";

  /** Whom Hadoop names as the renewer of a job's HDFS tokens (YARN's ResourceManager). */
  static final String RENEWER_KEY = "yarn.resourcemanager.principal";

  /**
   * Puts the delegation tokens a job's tasks need into its credentials, and returns the kinds
   * of token it then carries (sorted, e.g. {@code [HBASE_AUTH_TOKEN, HDFS_DELEGATION_TOKEN]};
   * empty on a cluster without security). A task on YARN has no Kerberos ticket of its own: it
   * reads HBase with an HBase token and HDFS with a token of each NameNode of {@code paths} (the
   * staging directory, the job's input files).
   *
   * <ul>
   *   <li>HBase: TableMapReduceUtil.initTableMapperJob obtains the token already, but
   *       initTableSnapshotMapperJob and a job of text files do not (HBase 2.6): asked for here
   *       unless the job has one.
   *   <li>HDFS: Hadoop's TokenCache, which names the ResourceManager's principal
   *       ({@value #RENEWER_KEY}) as the tokens' renewer and refuses to go on without one, even
   *       for a path on the local file system (the local runner's own job directory, at
   *       submit). On the local job runner the tasks run in this JVM with its Kerberos login and
   *       no ResourceManager renews anything: when the key is unset the renewer is this JVM's
   *       own principal.
   *   <li>The local runner's reduces, security on and Hadoop's native library absent, read the
   *       map outputs with {@link LocalShuffle}: Hadoop's shuffle cannot.
   * </ul>
   */
  static List<String> addDelegationTokens(Job job, Path... paths) throws IOException {
    Configuration conf = job.getConfiguration();
    if (User.isHBaseSecurityEnabled(conf)
        && !tokenKinds(job.getCredentials()).contains(HBASE_TOKEN_KIND)) {
      TableMapReduceUtil.initCredentials(job);
    }
    if (UserGroupInformation.isSecurityEnabled()) {
      if (isLocal(conf) && conf.getTrimmed(RENEWER_KEY, "").isEmpty()) {
        conf.set(RENEWER_KEY, UserGroupInformation.getCurrentUser().getUserName());
      }
      if (isLocal(conf) && !NativeIO.isAvailable()) {
        // Hadoop's shuffle cannot read the map outputs then (see LocalShuffle).
        conf.setClass(SHUFFLE_PLUGIN_KEY, LocalShuffle.class, ShuffleConsumerPlugin.class);
      }
      if (paths.length > 0) {
        TokenCache.obtainTokensForNamenodes(job.getCredentials(), paths, conf);
      }
    }
    return tokenKinds(job.getCredentials());
  }

  /** The distinct kinds of the tokens in {@code credentials}, sorted. */
  static List<String> tokenKinds(Credentials credentials) {
    TreeSet<String> kinds = new TreeSet<>();
    for (Token<?> token : credentials.getAllTokens()) {
      kinds.add(token.getKind().toString());
    }
    return new ArrayList<>(kinds);
  }

  /** "HBASE_AUTH_TOKEN, HDFS_DELEGATION_TOKEN", or "none" for a job without tokens. */
  static String describeTokens(List<String> kinds) {
    return kinds.isEmpty() ? "none" : String.join(", ", kinds);
  }

  /** Whether the job's map tasks take from a {@link ThrottleGate} ({@link #THROTTLE_GATE_KEY}). */
  static boolean isPaced(Job job) {
    return job.getConfiguration().get(THROTTLE_GATE_KEY) != null;
  }

  /** Submits a configured job (returns once it runs) and remembers it by its id. */
  static String submit(Job job) throws IOException {
    try {
      job.submit();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while submitting " + job.getJobName(), e);
    } catch (ClassNotFoundException e) {
      throw new IOException("cannot submit " + job.getJobName() + ": " + e.getMessage(), e);
    }
    String id = job.getJobID().toString();
    JOBS.put(id, job);
    return id;
  }

  /**
   * The jobs among {@code statuses} named {@code jobName} that have not finished. Job names are
   * deterministic per migration, so these are what an earlier submit left running when its
   * submitter died before it recorded the job's id.
   */
  static List<JobID> unfinishedNamed(JobStatus[] statuses, String jobName) {
    List<JobID> unfinished = new ArrayList<>();
    if (statuses == null) {
      return unfinished;
    }
    for (JobStatus status : statuses) {
      if (status != null && jobName.equals(status.getJobName()) && !status.isJobComplete()) {
        unfinished.add(status.getJobID());
      }
    }
    return unfinished;
  }

  /**
   * Kills every unfinished job named {@code jobName} on the cluster of {@code conf} and returns
   * their ids. Called before a job is submitted again: on YARN a job outlives a submitter that
   * died between its submit and writing down the id, and two copies would race on the same
   * output directory. The local runner's jobs die with their JVM, so there it does nothing.
   */
  static List<String> killUnfinishedNamed(String jobName, Configuration conf) throws IOException {
    List<String> killed = new ArrayList<>();
    if (isLocal(conf)) {
      return killed;
    }
    Cluster cluster = new Cluster(conf);
    try {
      for (JobID id : unfinishedNamed(cluster.getAllJobStatuses(), jobName)) {
        Job job = cluster.getJob(id);
        if (job != null && !job.isComplete()) {
          job.killJob();
          killed.add(id.toString());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while looking for unfinished jobs named " + jobName, e);
    } finally {
      cluster.close();
    }
    return killed;
  }

  /** A job this JVM submitted, or null. */
  static Job known(String jobId) {
    return JOBS.get(jobId);
  }

  static void forget(String jobId) {
    JOBS.remove(jobId);
  }

  /**
   * Progress of a job as JSON: {@code {"job_id","state","map_progress","reduce_progress",
   * "cells","rows","failure"}}. A job this JVM did not submit is looked up on the cluster of
   * {@code conf} (YARN); a local-runner job of another (say, crashed) JVM no longer exists:
   * state {@code "UNKNOWN"}, and the caller submits the job again.
   */
  static String progress(String jobId, Configuration conf) throws IOException {
    JsonObject out = new JsonObject();
    out.addProperty("job_id", jobId);
    try {
      Job job = JOBS.get(jobId);
      Cluster cluster = null;
      try {
        if (job == null && conf != null && !isLocal(conf)) {
          cluster = new Cluster(conf);
          job = cluster.getJob(JobID.forName(jobId));
        }
        if (job == null) {
          out.addProperty("state", "UNKNOWN");
          out.addProperty("map_progress", 0.0);
          out.addProperty("reduce_progress", 0.0);
          out.addProperty("cells", 0);
          out.addProperty("rows", 0);
          return out.toString();
        }
        JobStatus status = job.getStatus();
        out.addProperty("state", status.getState().name());
        out.addProperty("paced", isPaced(job));
        out.addProperty("map_progress", status.getMapProgress());
        out.addProperty("reduce_progress", status.getReduceProgress());
        Counters counters = job.getCounters();
        out.addProperty("cells",
            counters == null ? 0 : counters.findCounter(COUNTERS, CELLS).getValue());
        out.addProperty("rows",
            counters == null ? 0 : counters.findCounter(COUNTERS, ROWS).getValue());
        if (status.getState() == JobStatus.State.FAILED) {
          out.addProperty("failure", failureOf(job));
        }
        return out.toString();
      } finally {
        if (cluster != null) {
          cluster.close();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the progress of " + jobId, e);
    } catch (IllegalArgumentException e) {
      throw new IOException("'" + jobId + "' is not a MapReduce job id", e);
    }
  }

  /**
   * Bulk-loads the HFiles of a finished job ({@code <staging>/hfiles}) into {@code table}, then
   * deletes them and leaves a {@code _LOADED} marker, so calling this again loads nothing. A
   * crash in the middle leaves the files; loading them again writes the same cells (same row,
   * column, timestamp and value) a second time, which HBase reads as one: safe to repeat. (On
   * HDFS the region servers move the files in; on a local file system they copy them.) Refuses
   * an output without the job's {@code _SUCCESS} marker (a job that failed or still runs).
   * Returns {@code {"files":N,"bytes":N}} of what this call loaded.
   */
  static String load(Configuration conf, TableName table, Path hfiles) throws IOException {
    FileSystem fs = hfiles.getFileSystem(conf);
    if (!fs.exists(new Path(hfiles, "_SUCCESS"))) {
      throw new IOException("no finished job output in " + hfiles
          + " (no _SUCCESS marker): the job failed, still runs or never ran");
    }
    Path loadedMarker = new Path(hfiles, "_LOADED");
    long files = 0;
    long bytes = 0;
    List<Path> families = new ArrayList<>();
    if (fs.exists(loadedMarker)) {
      return loadResult(0, 0);
    }
    for (FileStatus family : fs.listStatus(hfiles)) {
      String name = family.getPath().getName();
      if (!family.isDirectory() || name.startsWith("_") || name.startsWith(".")) {
        continue;
      }
      families.add(family.getPath());
      for (FileStatus f : fs.listStatus(family.getPath())) {
        if (f.isFile() && !f.getPath().getName().startsWith("_")
            && !f.getPath().getName().startsWith(".")) {
          files++;
          bytes += f.getLen();
        }
      }
    }
    if (files > 0) {
      try {
        BulkLoadHFiles.create(conf).bulkLoad(table, hfiles);
      } catch (IOException e) {
        throw AccessDenial.map(AccessDenial.Operation.BULK_LOAD, table, e);
      }
    }
    // Everything is in the table now: what is left of the files is not needed again.
    for (Path family : families) {
      fs.delete(family, true);
    }
    fs.create(loadedMarker, true).close();
    return loadResult(files, bytes);
  }

  /** {@code {"finished": bool, "loaded": bool}} of a job's output directory. */
  static String output(Configuration conf, Path hfiles) throws IOException {
    FileSystem fs = hfiles.getFileSystem(conf);
    JsonObject out = new JsonObject();
    out.addProperty("finished", fs.exists(new Path(hfiles, "_SUCCESS")));
    out.addProperty("loaded", fs.exists(new Path(hfiles, "_LOADED")));
    return out.toString();
  }

  /**
   * Kills a job this JVM submitted, or (not on the local runner) one the cluster of {@code conf}
   * knows; then forgets it. Unknown or finished jobs are left alone.
   */
  static void kill(String jobId, Configuration conf) throws IOException {
    Cluster cluster = null;
    try {
      Job job = JOBS.get(jobId);
      if (job == null && !isLocal(conf)) {
        cluster = new Cluster(conf);
        job = cluster.getJob(JobID.forName(jobId));
      }
      if (job != null && !job.isComplete()) {
        job.killJob();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while killing " + jobId, e);
    } catch (IllegalArgumentException e) {
      throw new IOException("'" + jobId + "' is not a MapReduce job id", e);
    } finally {
      JOBS.remove(jobId);
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  /**
   * Blocks until a job ends (a job of this JVM, or, not on the local runner, any job the cluster
   * of {@code conf} knows), following it with Hadoop's own job monitor.
   *
   * @throws IOException when the job is unknown (a local-runner job of a JVM that is gone)
   */
  static void await(String jobId, Configuration conf) throws IOException {
    Cluster cluster = null;
    try {
      Job job = JOBS.get(jobId);
      if (job == null && !isLocal(conf)) {
        cluster = new Cluster(conf);
        job = cluster.getJob(JobID.forName(jobId));
      }
      if (job == null) {
        throw new IOException("job " + jobId + " is unknown (a local-runner job of a JVM that is "
            + "gone, or a job the cluster no longer lists)");
      }
      job.monitorAndPrintJob();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for " + jobId, e);
    } catch (IllegalArgumentException e) {
      throw new IOException("'" + jobId + "' is not a MapReduce job id", e);
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  private static String loadResult(long files, long bytes) {
    JsonObject out = new JsonObject();
    out.addProperty("files", files);
    out.addProperty("bytes", bytes);
    return out.toString();
  }

  /**
   * Why a finished job failed: the first line of the first failed task's diagnostics (the
   * exception a task threw), else the job's failure info; empty when nothing says.
   */
  static String failureOf(Job job) {
    try {
      for (org.apache.hadoop.mapreduce.TaskCompletionEvent event : job.getTaskCompletionEvents(0,
          1000)) {
        if (event.getStatus() == org.apache.hadoop.mapreduce.TaskCompletionEvent.Status.FAILED) {
          for (String diagnostics : job.getTaskDiagnostics(event.getTaskAttemptId())) {
            if (diagnostics != null && !diagnostics.isBlank()) {
              return diagnostics.strip().split("\n", 2)[0];
            }
          }
        }
      }
      String info = job.getStatus().getFailureInfo();
      return info == null || info.equals("NA") ? "" : info.strip().split("\n", 2)[0];
    } catch (IOException | RuntimeException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  // ---- JSON helpers ------------------------------------------------------------------------

  static String text(JsonObject o, String name, String otherwise) {
    JsonElement e = o.get(name);
    return e == null || e.isJsonNull() ? otherwise : e.getAsString();
  }

  static String requiredText(JsonObject o, String name) {
    String value = text(o, name, null);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("field '" + name + "': required");
    }
    return value;
  }

  static long number(JsonObject o, String name, long otherwise) {
    JsonElement e = o.get(name);
    return e == null || e.isJsonNull() ? otherwise : e.getAsLong();
  }
}
