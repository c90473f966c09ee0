package io.presplit.mapreduce;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.Merger;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapreduce.CryptoUtils;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * The reduce side's shuffle for Hadoop's local job runner on a secure cluster without Hadoop's
 * native library: it merges this reduce's partition of every map output straight from the local
 * files the map tasks of this JVM wrote.
 *
 * <p>Hadoop's own shuffle reads those files through {@code SecureIOUtils}, which (security on)
 * checks their owner with a native {@code fstat} and, without {@code libhadoop}, fails every
 * reduce ("Secure IO is not possible without native code extensions"). The files are this JVM's
 * own, so there is no owner to check. Each map output's index file holds, per partition, three
 * longs: the partition's start offset, its raw length and its length on disk; the partition is
 * an IFile segment that {@link Merger} reads (its checksums included).
 */
public final class LocalShuffle<K, V> implements ShuffleConsumerPlugin<K, V> {

  /** Bytes per partition in a map output's index file (start offset, raw and part length). */
  static final int INDEX_RECORD_LENGTH = 24;

  private Context<K, V> context;

  @Override
  public void init(Context<K, V> context) {
    this.context = context;
  }

  @Override
  @SuppressWarnings("unchecked")
  public RawKeyValueIterator run() throws IOException {
    JobConf job = context.getJobConf();
    Map<TaskAttemptID, MapOutputFile> maps = context.getLocalMapFiles();
    if (maps == null) {
      throw new IOException("LocalShuffle runs on the local job runner only (no local map outputs)");
    }
    if (CryptoUtils.isEncryptedSpillEnabled(job)) {
      throw new IOException("LocalShuffle does not read encrypted map outputs ("
          + MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA + ")");
    }
    int partition = context.getReduceId().getTaskID().getId();
    FileSystem raw = FileSystem.getLocal(job).getRaw();
    List<Merger.Segment<K, V>> segments = new ArrayList<>();
    for (MapOutputFile file : maps.values()) {
      Path output = file.getOutputFile();
      long[] entry = indexEntry(raw, output.suffix(".index"), partition);
      // preserve: the local runner deletes the map outputs itself.
      segments.add(new Merger.Segment<>(job, raw, output, entry[0], entry[2],
          context.getCodec(), true));
      context.getShuffledMapsCounter().increment(1);
      context.getReduceShuffleBytes().increment(entry[2]);
    }
    context.getCopyPhase().complete();
    return Merger.merge(job, raw, (Class<K>) job.getMapOutputKeyClass(),
        (Class<V>) job.getMapOutputValueClass(), segments,
        Math.max(2, job.getInt(MRJobConfig.IO_SORT_FACTOR, 100)),
        new Path(context.getReduceId().toString()),
        (RawComparator<K>) job.getOutputKeyComparator(), context.getReporter(),
        context.getSpilledRecordsCounter(), null, context.getMergePhase());
  }

  /** {start offset, raw length, part length} of {@code partition} in an index file. */
  static long[] indexEntry(FileSystem fs, Path index, int partition) throws IOException {
    try (FSDataInputStream in = fs.open(index)) {
      in.seek((long) partition * INDEX_RECORD_LENGTH);
      return new long[] {in.readLong(), in.readLong(), in.readLong()};
    }
  }

  @Override
  public void close() {}
}
