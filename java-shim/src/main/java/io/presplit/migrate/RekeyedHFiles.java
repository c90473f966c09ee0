package io.presplit.migrate;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;
import org.apache.hadoop.hbase.regionserver.StoreUtils;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Re-keyed rows written as HFiles ready for a bulk load into the target table, without sorting
 * anything: the rows of one source range arrive in the source's key order, (old salt, logical
 * key), and a new salt is a function of the logical key, so the rows that share a new salt and a
 * target region arrive in ascending new-key order as long as the old salt does not change. One
 * open file per (target region, new salt, family) therefore receives its rows already sorted;
 * when a row would go backwards in its file (the range crossed into the next old salt) that file
 * is closed and another begun. The files follow the target family's compression, encoding, block
 * size and bloom filter, like HBase's own HFileOutputFormat2.
 *
 * <p>Not thread-safe: one instance per chunk being copied.
 */
final class RekeyedHFiles implements Closeable {

  private final Configuration conf;
  private final FileSystem fs;
  private final Path dir;
  private final TableDescriptor target;
  private final byte[][] regionStarts;
  private final int saltWidth;
  private final Map<Slot, SlotFiles> open = new HashMap<>();
  private final Map<byte[], List<Path>> written = new TreeMap<>(Bytes.BYTES_COMPARATOR);
  private int fileCount;
  private long bytesWritten;

  /**
   * @param dir where the files go (created), on a file system the RegionServers can read
   * @param regionStarts the target's region start keys, ascending (the first empty)
   * @param saltWidth the new layout's salt width in bytes (0 = unsalted)
   */
  RekeyedHFiles(Configuration conf, Path dir, TableDescriptor target, byte[][] regionStarts,
      int saltWidth) throws IOException {
    this.conf = conf;
    this.fs = dir.getFileSystem(conf);
    this.dir = dir;
    this.target = target;
    this.regionStarts = regionStarts;
    this.saltWidth = saltWidth;
    if (!fs.mkdirs(dir)) {
      throw new IOException("could not create the staging directory " + dir);
    }
  }

  /**
   * Adds one row under its new key: the source row's cells in their scan order (family,
   * qualifier, newest first), each written with the new row key, same family, qualifier,
   * timestamp and value.
   */
  void add(byte[] newRow, Cell[] cells) throws IOException {
    int region = Math.max(0, BridgeSupport.regionOf(regionStarts, newRow));
    Slot slot = new Slot(region, Bytes.toStringBinary(newRow, 0, Math.min(saltWidth,
        newRow.length)));
    SlotFiles files = open.get(slot);
    if (files != null && Bytes.compareTo(files.lastRow, newRow) >= 0) {
      files.close(); // the range moved on to the next old salt: a new sorted run begins
      files = null;
    }
    if (files == null) {
      files = new SlotFiles();
      open.put(slot, files);
    }
    for (Cell cell : cells) {
      StoreFileWriter writer = files.writerFor(cell);
      writer.append(new KeyValue(newRow, 0, newRow.length, cell.getFamilyArray(),
          cell.getFamilyOffset(), cell.getFamilyLength(), cell.getQualifierArray(),
          cell.getQualifierOffset(), cell.getQualifierLength(), cell.getTimestamp(),
          KeyValue.Type.Put, cell.getValueArray(), cell.getValueOffset(),
          cell.getValueLength(), cell.getTagsArray(), cell.getTagsOffset(), cell.getTagsLength()));
    }
    files.lastRow = newRow;
  }

  /** Closes every open file; returns the files written, by family. */
  Map<byte[], List<Path>> finish() throws IOException {
    close();
    return written;
  }

  int fileCount() {
    return fileCount;
  }

  long bytesWritten() {
    return bytesWritten;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (SlotFiles files : open.values()) {
      try {
        files.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    open.clear();
    if (first != null) {
      throw first;
    }
  }

  private record Slot(int region, String salt) {}

  /** The open files of one slot, one per family, and the last row they received. */
  private final class SlotFiles {
    final Map<byte[], StoreFileWriter> writers = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    byte[] lastRow;

    StoreFileWriter writerFor(Cell cell) throws IOException {
      byte[] family = new byte[cell.getFamilyLength()];
      System.arraycopy(cell.getFamilyArray(), cell.getFamilyOffset(), family, 0, family.length);
      StoreFileWriter writer = writers.get(family);
      if (writer == null) {
        writer = create(family);
        writers.put(family, writer);
      }
      return writer;
    }

    private StoreFileWriter create(byte[] family) throws IOException {
      ColumnFamilyDescriptor cf = target.getColumnFamily(family);
      if (cf == null) {
        throw new IllegalArgumentException("the target " + target.getTableName()
            + " has no family '" + Bytes.toStringBinary(family) + "'");
      }
      HFileContext context = new HFileContextBuilder().withCompression(cf.getCompressionType())
          .withDataBlockEncoding(cf.getDataBlockEncoding()).withBlockSize(cf.getBlocksize())
          .withChecksumType(StoreUtils.getChecksumType(conf))
          .withBytesPerCheckSum(StoreUtils.getBytesPerChecksum(conf)).withIncludesTags(true)
          .withColumnFamily(family).withTableName(target.getTableName().getName()).build();
      Path familyDir = new Path(dir, Bytes.toString(family));
      Path file = new Path(familyDir, String.format("%05d", fileCount++));
      return new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs).withFilePath(file)
          .withBloomType(cf.getBloomFilterType()).withFileContext(context).build();
    }

    void close() throws IOException {
      for (Map.Entry<byte[], StoreFileWriter> e : writers.entrySet()) {
        StoreFileWriter writer = e.getValue();
        writer.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY,
            Bytes.toBytes(System.currentTimeMillis()));
        writer.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendFileInfo(HStoreFile.EXCLUDE_FROM_MINOR_COMPACTION_KEY, Bytes.toBytes(false));
        writer.appendTrackedTimestampsToMetadata();
        writer.close();
        bytesWritten += fs.getFileStatus(writer.getPath()).getLen();
        written.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(writer.getPath());
      }
      writers.clear();
    }
  }
}
