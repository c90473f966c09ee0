package io.presplit.capture;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALKey;

/**
 * The WAL edits a new capture peer need not ship: per region of the source table, the highest
 * sequence id whose edits were already in the region's store files before the peer was added.
 *
 * <p>Why: HBase starts a new peer at the beginning of each RegionServer's current WAL, not at the
 * moment it was added, so without this the peer would re-key and write again everything written
 * into that file before (a table loaded just before its migration: the whole load, which the copy
 * moves anyway). Rolling the WAL first would avoid it, but a peer added while a roll is under way
 * makes HBase enqueue the new WAL twice and abort the RegionServer, and a roll's end cannot be
 * seen from outside.
 *
 * <p>Why it is exact: a region's reported "completed sequence id" is the highest sequence id
 * whose edit is flushed (HBase's own WAL splitting skips the edits at or below it for the same
 * reason), and every edit below the sequence id a region opened at (hbase:meta's
 * {@code seqnumDuringOpen}) was in its store files when it opened: its last close flushed it, or
 * the open replayed and flushed it. presplitd flushes the table, reads these ids and only then
 * adds the peer; its copy starts after that and reads every such edit from the store files. Sequence
 * ids only grow within a region (across moves and reopens too), so an edit made after the peer
 * was added is above the mark; a region not in the map (a daughter of a later split, a region the
 * RegionServers did not report) has nothing skipped. Timestamps play no part.
 *
 * <p>The map travels in the peer's configuration as {@code region:seqid,...} (encoded region
 * names). A value that cannot be read skips nothing: shipping an edit twice writes the same cell
 * twice, which the target holds as once.
 */
final class FlushedBefore {
  static final FlushedBefore NOTHING = new FlushedBefore(Collections.emptyMap());

  private final Map<String, Long> flushedSeqIdByRegion;

  private FlushedBefore(Map<String, Long> flushedSeqIdByRegion) {
    this.flushedSeqIdByRegion = flushedSeqIdByRegion;
  }

  static FlushedBefore of(Map<String, Long> flushedSeqIdByRegion) {
    return new FlushedBefore(Collections.unmodifiableMap(new TreeMap<>(flushedSeqIdByRegion)));
  }

  /**
   * Reads the peer configuration's value.
   *
   * @throws IllegalArgumentException naming the part that is not {@code region:seqid}
   */
  static FlushedBefore parse(String value) {
    if (value == null || value.isEmpty()) {
      return NOTHING;
    }
    Map<String, Long> map = new TreeMap<>();
    for (String part : value.split(",")) {
      int colon = part.lastIndexOf(':');
      if (colon <= 0 || colon == part.length() - 1) {
        throw new IllegalArgumentException("'" + part + "' is not region:seqid");
      }
      long seqId;
      try {
        seqId = Long.parseLong(part.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + part + "' is not region:seqid", e);
      }
      map.put(part.substring(0, colon), seqId);
    }
    return of(map);
  }

  /** The peer configuration's value. */
  String format() {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Long> e : flushedSeqIdByRegion.entrySet()) {
      out.append(out.length() > 0 ? "," : "").append(e.getKey()).append(':').append(e.getValue());
    }
    return out.toString();
  }

  int regions() {
    return flushedSeqIdByRegion.size();
  }

  /** Whether the copy reads this entry's edit from the store files anyway. */
  boolean covers(WALKey key) {
    if (flushedSeqIdByRegion.isEmpty()) {
      return false;
    }
    Long flushed = flushedSeqIdByRegion.get(Bytes.toString(key.getEncodedRegionName()));
    long seqId = key.getSequenceId();
    return flushed != null && seqId > 0 && seqId <= flushed;
  }
}
