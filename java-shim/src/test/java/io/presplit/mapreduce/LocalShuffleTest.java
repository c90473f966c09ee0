package io.presplit.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LocalShuffle in a real job on the local runner: three map outputs, two reduces, each reduce
 * sees its partition's keys once, sorted, with every value (the shuffle a secure cluster
 * without libhadoop gets; security itself needs a KDC: tests/e2e/test_kerberos_hdfs.py).
 */
class LocalShuffleTest {

  public static final class Words extends Mapper<LongWritable, Text, Text, IntWritable> {
    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      for (String word : line.toString().split(" ")) {
        context.write(new Text(word), new IntWritable(1));
      }
    }
  }

  public static final class Sum extends Reducer<Text, IntWritable, Text, Text> {
    private String last = "";

    @Override
    protected void reduce(Text word, Iterable<IntWritable> ones, Context context)
        throws IOException, InterruptedException {
      if (word.toString().compareTo(last) <= 0) {
        throw new IOException("keys out of order: " + word + " after " + last);
      }
      last = word.toString();
      int n = 0;
      for (IntWritable one : ones) {
        n += one.get();
      }
      context.write(word, new Text(Integer.toString(n)));
    }
  }

  @TempDir java.nio.file.Path dir;

  @Test
  void everyKeyOnceSortedWithEveryValue() throws Exception {
    java.nio.file.Path in = Files.createDirectories(dir.resolve("in"));
    TreeMap<String, Integer> expected = new TreeMap<>();
    for (int f = 0; f < 3; f++) {
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        String a = "w" + (i * 7 + f) % 97;
        String b = "w" + (i * 13) % 89;
        lines.add(a + " " + b);
        expected.merge(a, 1, Integer::sum);
        expected.merge(b, 1, Integer::sum);
      }
      Files.write(in.resolve("part-" + f), lines, StandardCharsets.UTF_8);
    }
    Configuration conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    conf.set("mapreduce.jobtracker.staging.root.dir", dir.resolve("staging").toString());
    conf.set("mapreduce.cluster.local.dir", dir.resolve("local").toString());
    conf.setInt("mapreduce.task.io.sort.mb", 8);
    conf.setClass(BulkJobs.SHUFFLE_PLUGIN_KEY, LocalShuffle.class, ShuffleConsumerPlugin.class);
    Job job = Job.getInstance(conf, "local shuffle");
    job.setMapperClass(Words.class);
    job.setReducerClass(Sum.class);
    job.setMapOutputKeyClass(Text.class);
    job.setMapOutputValueClass(IntWritable.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    job.setNumReduceTasks(2);
    FileInputFormat.addInputPath(job, new Path(in.toUri()));
    FileOutputFormat.setOutputPath(job, new Path(dir.resolve("out").toUri()));
    assertTrue(job.waitForCompletion(false), "the job succeeds");

    TreeMap<String, Integer> counted = new TreeMap<>();
    for (int r = 0; r < 2; r++) {
      for (String line : Files.readAllLines(dir.resolve("out").resolve("part-r-0000" + r))) {
        String[] kv = line.split("\t");
        assertEquals(null, counted.put(kv[0], Integer.parseInt(kv[1])), "once: " + kv[0]);
      }
    }
    assertEquals(expected, counted);
    assertEquals(3, job.getCounters().findCounter(
        org.apache.hadoop.mapreduce.TaskCounter.SHUFFLED_MAPS).getValue() / 2);
  }
}
