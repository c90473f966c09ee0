package io.presplit.mapreduce;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.MapReduceExtendedCell;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

import io.presplit.client.KeyLayout;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;
import io.presplit.client.TableSnapshot;
import io.presplit.hbase.admin.KerberosLogin;

/**
 * Bulk import of row files (CSV, TSV) into a salted, pre-split table: the history load of a new
 * table, as HFiles instead of puts (no WAL, no memstore, no splits).
 *
 * <p>Each line is cut by a column mapping like ImportTsv's ({@code HBASE_ROW_KEY,cf:col,...});
 * the row key field is the <em>logical</em> key, salted with the table's current layout, which
 * comes from presplit's ZooKeeper (the status of the table: physical table and layout of the
 * current generation, read through the SDK) or, without ZooKeeper, from {@code --layout} and
 * {@code --physical-table}. A MapReduce job on HBase's own machinery (TextInputFormat, a mapper
 * emitting cells, {@code HFileOutputFormat2.configureIncrementalLoad} against the table's
 * regions) writes one HFile per family per region; {@code BulkLoadHFiles} moves them in.
 *
 * <p>Bad lines (wrong field count, empty row key, a key that does not fit the layout, a bad
 * timestamp) are counted and the first ones reported with their file and byte offset; more
 * than {@code --max-bad-lines} and nothing is loaded. {@code --dry-run} checks every
 * line without a job and loads nothing.
 *
 * <p>Run: {@code java -cp presplit-hbase.jar:<HBase classpath> io.presplit.mapreduce.SaltedImport
 * --help}, or {@code hadoop jar presplit-hbase.jar io.presplit.mapreduce.SaltedImport ...}.
 */
public final class SaltedImport {

  static final String COLUMNS_KEY = "presplit.import.columns";
  static final String SEPARATOR_KEY = "presplit.import.separator";
  static final String QUOTE_KEY = "presplit.import.quote";
  static final String LAYOUT_KEY = "presplit.import.layout";
  static final String TIMESTAMP_KEY = "presplit.import.timestamp";
  static final String MAX_BAD_KEY = "presplit.import.max.bad.lines";
  static final String SKIP_HEADER_KEY = "presplit.import.skip.header";
  static final String BAD_LINES = "bad_lines";
  /** Bad lines reported in the log per task. */
  private static final int REPORTED_BAD_LINES = 10;

  private SaltedImport() {}

  /** The command line, parsed. */
  static final class Options {
    String zk;
    String root = "/presplit";
    String authFile;
    String table;
    String physicalTable;
    String layoutJson;
    String columns;
    byte separator = '\t';
    int quote = -1;
    boolean skipHeader;
    long timestamp = -1;
    long maxBadLines = 0;
    String staging;
    String hadoopConfDir;
    String hbaseConfDir;
    Map<String, String> conf = new LinkedHashMap<>();
    int localTasks = 2;
    boolean dryRun;
    boolean keepStaging;
    List<String> inputs = new ArrayList<>();

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (!a.startsWith("--")) {
          o.inputs.add(a);
          continue;
        }
        switch (a) {
          case "--dry-run":
            o.dryRun = true;
            continue;
          case "--skip-header":
            o.skipHeader = true;
            continue;
          case "--keep-staging":
            o.keepStaging = true;
            continue;
          default:
            break;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = args[++i];
        switch (a) {
          case "--zk": o.zk = v; break;
          case "--root": o.root = v; break;
          case "--auth-file": o.authFile = v; break;
          case "--table": o.table = v; break;
          case "--physical-table": o.physicalTable = v; break;
          case "--layout": o.layoutJson = v; break;
          case "--columns": o.columns = v; break;
          case "--separator": o.separator = separator(v); break;
          case "--quote":
            if (v.length() != 1) {
              throw new IllegalArgumentException("--quote takes one character");
            }
            o.quote = v.charAt(0);
            break;
          case "--timestamp": o.timestamp = Long.parseLong(v); break;
          case "--max-bad-lines": o.maxBadLines = Long.parseLong(v); break;
          case "--staging": o.staging = v; break;
          case "--hadoop-conf-dir": o.hadoopConfDir = v; break;
          case "--hbase-conf-dir": o.hbaseConfDir = v; break;
          case "--local-tasks": o.localTasks = Integer.parseInt(v); break;
          case "--conf": {
            int eq = v.indexOf('=');
            if (eq <= 0) {
              throw new IllegalArgumentException("--conf takes KEY=VALUE");
            }
            o.conf.put(v.substring(0, eq), v.substring(eq + 1));
            break;
          }
          default:
            throw new IllegalArgumentException("unknown option " + a);
        }
      }
      if (o.columns == null) {
        throw new IllegalArgumentException("--columns is required");
      }
      new DelimitedLine.Columns(o.columns); // checks it
      if (o.inputs.isEmpty()) {
        throw new IllegalArgumentException("no input file");
      }
      if (o.table == null && o.physicalTable == null) {
        throw new IllegalArgumentException("--table (with --zk) or --physical-table is required");
      }
      if (o.table != null && o.zk == null) {
        throw new IllegalArgumentException("--table reads the layout from ZooKeeper: give --zk");
      }
      if (o.physicalTable != null && o.layoutJson == null) {
        throw new IllegalArgumentException("--physical-table needs --layout");
      }
      if (o.maxBadLines < 0) {
        throw new IllegalArgumentException("--max-bad-lines must not be negative");
      }
      if (o.localTasks < 1) {
        throw new IllegalArgumentException("--local-tasks must be at least 1");
      }
      return o;
    }

    private static byte separator(String v) {
      if (v.equals("tab") || v.equals("\\t")) {
        return '\t';
      }
      if (v.equals("comma")) {
        return ',';
      }
      if (v.length() != 1 || v.charAt(0) > 127) {
        throw new IllegalArgumentException(
            "--separator takes one ASCII character, 'tab' or 'comma' (got '" + v + "')");
      }
      return (byte) v.charAt(0);
    }
  }

  /** Emits the cells of one line, salted; counts and reports bad lines. */
  public static final class ImportMapper
      extends Mapper<LongWritable, Text, ImmutableBytesWritable, MapReduceExtendedCell> {
    private DelimitedLine.Columns columns;
    private DelimitedLine line;
    private long timestamp;
    private long maxBadLines;
    private boolean skipHeader;
    private Counter cells;
    private Counter rows;
    private Counter badLines;
    private String file;

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      columns = new DelimitedLine.Columns(conf.get(COLUMNS_KEY));
      KeyLayout layout =
          KeyLayout.fromDocument(JsonParser.parseString(conf.get(LAYOUT_KEY)).getAsJsonObject());
      line = new DelimitedLine(columns, (byte) conf.getInt(SEPARATOR_KEY, '\t'),
          conf.getInt(QUOTE_KEY, -1), layout);
      timestamp = conf.getLong(TIMESTAMP_KEY, System.currentTimeMillis());
      maxBadLines = conf.getLong(MAX_BAD_KEY, 0);
      skipHeader = conf.getBoolean(SKIP_HEADER_KEY, false);
      cells = context.getCounter(BulkJobs.COUNTERS, BulkJobs.CELLS);
      rows = context.getCounter(BulkJobs.COUNTERS, BulkJobs.ROWS);
      badLines = context.getCounter(BulkJobs.COUNTERS, BAD_LINES);
      file = context.getInputSplit() instanceof FileSplit
          ? ((FileSplit) context.getInputSplit()).getPath().toString() : "input";
    }

    @Override
    protected void map(LongWritable offset, Text text, Context context)
        throws IOException, InterruptedException {
      if (skipHeader && offset.get() == 0) {
        return;
      }
      if (text.getLength() == 0) {
        return; // blank lines carry nothing
      }
      byte[] row;
      long ts;
      try {
        line.parse(text.getBytes(), text.getLength());
        row = line.rowKey();
        ts = line.timestamp();
      } catch (DelimitedLine.BadLineException e) {
        badLines.increment(1);
        if (badLines.getValue() <= REPORTED_BAD_LINES) {
          System.err.println("SaltedImport: bad line at " + file + " byte " + offset.get() + ": "
              + e.getMessage());
        }
        return;
      }
      if (badLines.getValue() > maxBadLines) {
        // Over the limit: nothing will be loaded (the driver checks the total), so writing more
        // HFile data is wasted; the rest of the input is only counted.
        return;
      }
      if (ts < 0) {
        ts = timestamp;
      }
      ImmutableBytesWritable key = new ImmutableBytesWritable(row);
      for (int i = 0; i < columns.size(); i++) {
        if (columns.families[i] == null) {
          continue;
        }
        context.write(key, new MapReduceExtendedCell(new KeyValue(row, columns.families[i],
            columns.qualifiers[i], ts, KeyValue.Type.Put, line.field(i))));
        cells.increment(1);
      }
      rows.increment(1);
    }
  }

  /** Where the rows go: the physical table and its layout. */
  static final class Target {
    final TableName table;
    final KeyLayout layout;

    Target(TableName table, KeyLayout layout) {
      this.table = table;
      this.layout = layout;
    }
  }

  static Target resolve(Options o, Connection connection) throws IOException {
    if (o.physicalTable != null) {
      KeyLayout layout =
          KeyLayout.fromDocument(JsonParser.parseString(o.layoutJson).getAsJsonObject());
      return new Target(TableName.valueOf(o.physicalTable), layout);
    }
    PresplitTables.Options options = new PresplitTables.Options();
    if (o.authFile != null) {
      options.authFile(Paths.get(o.authFile));
    }
    try (PresplitTables tables = PresplitTables.open(connection, o.zk, o.root, options)) {
      SaltedTable table = tables.table(o.table);
      TableSnapshot snapshot = table.awaitReady(Duration.ofSeconds(30));
      return new Target(snapshot.physicalTable(), snapshot.layout());
    }
  }

  /**
   * Runs the import (or the dry run) and returns its result as JSON:
   * {@code {"table","physical_table","rows","cells","bad_lines","files","bytes","job_ms",
   * "load_ms"}}; a dry run: {@code {"dry_run":true,"lines","rows","bad_lines","errors":[...],
   * "rows_per_bucket":[...]}}.
   */
  static String run(Options o) throws IOException, InterruptedException {
    Path staging = new Path(o.staging != null ? o.staging
        : System.getProperty("java.io.tmpdir") + "/presplit-import-" + System.currentTimeMillis());
    Configuration conf = BulkJobs.configuration(o.hbaseConfDir, o.hadoopConfDir, o.conf,
        staging, o.localTasks);
    if (o.zk != null) {
      int colon = o.zk.lastIndexOf(':');
      String hosts = colon > 0 ? o.zk.substring(0, colon) : o.zk;
      conf.set("hbase.zookeeper.quorum", hosts.replaceAll(":\\d+", ""));
      if (colon > 0) {
        conf.set("hbase.zookeeper.property.clientPort", o.zk.substring(colon + 1));
      }
    }
    // presplitctl import passes presplitd's kerberos_principal and kerberos_keytab.
    KerberosLogin.loginFromProperties(conf);
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      Target target = resolve(o, connection);
      DelimitedLine.Columns columns = new DelimitedLine.Columns(o.columns);
      try (Table table = connection.getTable(target.table)) {
        TableDescriptor descriptor = table.getDescriptor();
        for (String family : columns.familyNames()) {
          if (!descriptor.hasColumnFamily(Bytes.toBytes(family))) {
            throw new IllegalArgumentException("table " + target.table + " has no family '"
                + family + "' (the column mapping writes to it)");
          }
        }
      }
      if (o.dryRun) {
        return dryRun(o, conf, target, columns);
      }
      return importFiles(o, conf, connection, target, staging);
    }
  }

  private static String importFiles(Options o, Configuration conf, Connection connection,
      Target target, Path staging) throws IOException, InterruptedException {
    long started = System.nanoTime();
    FileSystem fs = staging.getFileSystem(conf);
    Path hfiles = new Path(staging, BulkJobs.HFILES_DIR);
    fs.delete(hfiles, true);
    Job job = Job.getInstance(conf, "presplit import into " + target.table);
    job.setJarByClass(SaltedImport.class);
    Configuration jobConf = job.getConfiguration();
    jobConf.set(COLUMNS_KEY, o.columns);
    jobConf.setInt(SEPARATOR_KEY, o.separator);
    jobConf.setInt(QUOTE_KEY, o.quote);
    jobConf.set(LAYOUT_KEY, target.layout.toString());
    // One timestamp for every cell of the import (unless the file has a timestamp column).
    jobConf.setLong(TIMESTAMP_KEY, o.timestamp >= 0 ? o.timestamp : System.currentTimeMillis());
    jobConf.setLong(MAX_BAD_KEY, o.maxBadLines);
    jobConf.setBoolean(SKIP_HEADER_KEY, o.skipHeader);
    job.setInputFormatClass(TextInputFormat.class);
    for (String input : o.inputs) {
      FileInputFormat.addInputPath(job, new Path(input));
    }
    job.setMapperClass(ImportMapper.class);
    job.setMapOutputKeyClass(ImmutableBytesWritable.class);
    job.setMapOutputValueClass(MapReduceExtendedCell.class);
    try (Table table = connection.getTable(target.table);
        RegionLocator regions = connection.getRegionLocator(target.table)) {
      HFileOutputFormat2.configureIncrementalLoad(job, table.getDescriptor(), regions);
    }
    FileOutputFormat.setOutputPath(job, hfiles);
    // On a secure cluster: an HBase token (a job of text files gets none from HBase's helpers)
    // and a token of each NameNode of the staging directory and the input files.
    List<Path> paths = new ArrayList<>(FileInputFormat.getInputPaths(job).length + 1);
    paths.add(staging);
    paths.addAll(Arrays.asList(FileInputFormat.getInputPaths(job)));
    List<String> tokens = BulkJobs.addDelegationTokens(job, paths.toArray(new Path[0]));
    String jobId = BulkJobs.submit(job);
    System.err.println("SaltedImport: submitted " + jobId + " into " + target.table
        + "; delegation tokens: " + BulkJobs.describeTokens(tokens));
    try {
      job.waitForCompletion(false);
    } catch (ClassNotFoundException e) {
      throw new IOException(e);
    }
    JsonObject progress = JsonParser.parseString(BulkJobs.progress(jobId, conf)).getAsJsonObject();
    long bad = job.getCounters().findCounter(BulkJobs.COUNTERS, BAD_LINES).getValue();
    BulkJobs.forget(jobId);
    if (job.getStatus().getState() != JobStatus.State.SUCCEEDED) {
      String why = BulkJobs.failureOf(job);
      throw new IOException(
          "the import job " + jobId + " failed, nothing was loaded" + (why.isEmpty() ? "" : ": ")
              + why);
    }
    if (bad > o.maxBadLines) {
      BulkJobs.deleteStaging(conf, staging);
      throw new IOException(bad + " bad lines (at most " + o.maxBadLines
          + " allowed; the first are reported above); nothing was loaded");
    }
    long jobMs = (System.nanoTime() - started) / 1_000_000;
    long loadStarted = System.nanoTime();
    JsonObject loaded = JsonParser.parseString(BulkJobs.load(conf, target.table, hfiles))
        .getAsJsonObject();
    long loadMs = (System.nanoTime() - loadStarted) / 1_000_000;
    if (!o.keepStaging) {
      BulkJobs.deleteStaging(conf, staging);
    }
    JsonObject out = new JsonObject();
    if (o.table != null) {
      out.addProperty("table", o.table);
    }
    out.addProperty("physical_table", target.table.getNameAsString());
    out.add("rows", progress.get("rows"));
    out.add("cells", progress.get("cells"));
    out.addProperty("bad_lines", bad);
    out.add("files", loaded.get("files"));
    out.add("bytes", loaded.get("bytes"));
    out.addProperty("job_ms", jobMs);
    out.addProperty("load_ms", loadMs);
    return out.toString();
  }

  /** Checks every line of the inputs without a job; loads nothing. */
  private static String dryRun(Options o, Configuration conf, Target target,
      DelimitedLine.Columns columns) throws IOException {
    DelimitedLine line = new DelimitedLine(columns, o.separator, o.quote, target.layout);
    long lines = 0;
    long good = 0;
    long bad = 0;
    long[] perBucket = new long[Math.max(target.layout.buckets(), 1)];
    List<String> errors = new ArrayList<>();
    for (String input : o.inputs) {
      Path path = new Path(input);
      FileSystem fs = path.getFileSystem(conf);
      List<Path> files = new ArrayList<>();
      FileStatus status = fs.getFileStatus(path);
      if (status.isDirectory()) {
        for (FileStatus f : fs.listStatus(path)) {
          String n = f.getPath().getName();
          if (f.isFile() && !n.startsWith("_") && !n.startsWith(".")) {
            files.add(f.getPath());
          }
        }
      } else {
        files.add(path);
      }
      for (Path file : files) {
        try (FSDataInputStream in = fs.open(file);
            BufferedReader reader =
                new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
          String text;
          long number = 0;
          while ((text = reader.readLine()) != null) {
            number++;
            if ((o.skipHeader && number == 1) || text.isEmpty()) {
              continue;
            }
            lines++;
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            try {
              line.parse(bytes, bytes.length);
              line.timestamp();
              line.rowKey();
              perBucket[target.layout.bucketOf(line.logicalKey())]++;
              good++;
            } catch (DelimitedLine.BadLineException e) {
              bad++;
              if (errors.size() < REPORTED_BAD_LINES) {
                errors.add(file + " line " + number + ": " + e.getMessage());
              }
            }
          }
        }
      }
    }
    JsonObject out = new JsonObject();
    out.addProperty("dry_run", true);
    out.addProperty("physical_table", target.table.getNameAsString());
    out.addProperty("lines", lines);
    out.addProperty("rows", good);
    out.addProperty("bad_lines", bad);
    out.addProperty("max_bad_lines", o.maxBadLines);
    org.apache.hbase.thirdparty.com.google.gson.JsonArray e =
        new org.apache.hbase.thirdparty.com.google.gson.JsonArray();
    errors.forEach(e::add);
    out.add("errors", e);
    org.apache.hbase.thirdparty.com.google.gson.JsonArray b =
        new org.apache.hbase.thirdparty.com.google.gson.JsonArray();
    for (long n : perBucket) {
      b.add(n);
    }
    out.add("rows_per_bucket", b);
    out.addProperty("ok", bad <= o.maxBadLines);
    return out.toString();
  }

  private static final String USAGE = String.join("\n",
      "usage: SaltedImport --columns MAPPING (--zk HOST:PORT --table NS:TABLE [--root R]",
      "                    [--auth-file F] | --physical-table NS:TABLE --layout JSON)",
      "                    [options] FILE|DIR...",
      "Bulk-loads row files into a salted, pre-split table: each line's row key field is the",
      "logical key, salted with the table's current layout (from presplit's ZooKeeper status).",
      "  --columns M          ImportTsv-style mapping: HBASE_ROW_KEY,cf:col,... (HBASE_TS_KEY:",
      "                       a timestamp column, ms)",
      "  --separator C        field separator: one character, 'tab' (default) or 'comma'",
      "  --quote C            fields may be quoted with C (CSV: --quote '\"')",
      "  --skip-header        ignore the first line of each file",
      "  --timestamp MS       timestamp of every cell (default: the time of the import)",
      "  --max-bad-lines N    bad lines tolerated (default 0); more fail, nothing is loaded",
      "  --dry-run            check every line and report; no job, nothing loaded",
      "  --staging DIR        job output (HFiles) directory, on the cluster's file system",
      "                       (default a new directory under java.io.tmpdir); deleted after the",
      "                       load unless --keep-staging",
      "  --hadoop-conf-dir D  Hadoop configuration (mapreduce.framework.name=yarn: run on YARN);",
      "                       default: the local job runner in this JVM",
      "  --hbase-conf-dir D   directory of an hbase-site.xml",
      "  --local-tasks N      local runner: map/reduce tasks at a time (default 2)",
      "  --conf KEY=VALUE     any Hadoop/HBase setting (repeatable)",
      "Prints one JSON line; exit 0 on success, 1 on failure (or a dry run over the limit),",
      "2 on a usage error.");

  public static void main(String[] args) {
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        System.out.println(USAGE);
        System.exit(0);
      }
    }
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("SaltedImport: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    try {
      String result = run(o);
      System.out.println(result);
      if (o.dryRun && !JsonParser.parseString(result).getAsJsonObject().get("ok")
          .getAsBoolean()) {
        System.exit(1);
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("SaltedImport: " + e.getMessage());
      System.exit(1);
    } catch (InterruptedException e) {
      System.err.println("SaltedImport: interrupted");
      System.exit(1);
    }
    System.exit(0);
  }
}
