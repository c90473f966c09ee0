package io.presplit.capture;

import io.presplit.rekey.MigrationLayout;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.hbase.TableName;

/**
 * What one change-capture peer of a re-salting migration does: the table whose WAL edits it
 * ships ({@code source}), the table it writes them to ({@code target}), re-keyed from the
 * source's layout to the target's, and the mark every write it makes carries.
 *
 * <p>The spec travels in the replication peer's configuration map (the {@code presplit.capture.*}
 * keys below), so every RegionServer's endpoint reads the same spec from HBase's own peer
 * storage; nothing else is needed to start an endpoint after a RegionServer restart.
 *
 * <p>The <b>mark</b> is a UUID that every mutation a capture endpoint writes carries as its
 * cluster id ({@code Mutation.setClusterIds}); HBase writes a mutation's cluster ids into its WAL
 * entry. Both peers of one migration (forward: old generation to new; reverse: new to old, from
 * the switch on) share one mark and drop every entry that carries it, so an edit one peer wrote
 * is never shipped back by the other: the two never loop. The mark is derived from the
 * migration's name (its target table), so it needs no storage of its own.
 */
public final class CaptureSpec {
  public static final String SOURCE_KEY = "presplit.capture.source";
  public static final String TARGET_KEY = "presplit.capture.target";
  public static final String SOURCE_LAYOUT_KEY = "presplit.capture.source.layout";
  public static final String TARGET_LAYOUT_KEY = "presplit.capture.target.layout";
  public static final String MARK_KEY = "presplit.capture.mark";
  public static final String ACK_FAMILY_KEY = "presplit.capture.ack.family";
  /**
   * Not part of the spec: what the peer need not ship ({@link FlushedBefore}), measured when the
   * peer is added, so an existing peer is never compared on it.
   */
  public static final String FLUSHED_KEY = "presplit.capture.flushed";
  /**
   * Not part of the spec: the ZooKeeper root of the presplit deployment that added the peer, so
   * that its presplitd removes the peer once no migration plan of its own names it, and never
   * another deployment's (several may share one HBase cluster). A peer without it was added by
   * an older version and is never removed automatically.
   */
  public static final String OWNER_KEY = "presplit.capture.owner";

  public final TableName source;
  public final TableName target;
  public final String sourceLayoutJson;
  public final String targetLayoutJson;
  public final UUID mark;
  /** The target's family the endpoint writes its acknowledgements into (see CaptureSignals). */
  public final byte[] ackFamily;

  public CaptureSpec(TableName source, TableName target, String sourceLayoutJson,
      String targetLayoutJson, UUID mark, byte[] ackFamily) {
    if (source == null || target == null) {
      throw new IllegalArgumentException("a capture needs a source and a target table");
    }
    if (source.equals(target)) {
      throw new IllegalArgumentException("a capture's source and target are both " + source);
    }
    if (mark == null) {
      throw new IllegalArgumentException("a capture needs a mark");
    }
    if (ackFamily == null || ackFamily.length == 0) {
      throw new IllegalArgumentException("a capture needs the target family of its acks");
    }
    // Both layouts must parse here, not first in a RegionServer's shipper thread.
    MigrationLayout.parse(sourceLayoutJson, "source layout");
    MigrationLayout.parse(targetLayoutJson, "target layout");
    this.source = source;
    this.target = target;
    this.sourceLayoutJson = sourceLayoutJson;
    this.targetLayoutJson = targetLayoutJson;
    this.mark = mark;
    this.ackFamily = ackFamily.clone();
  }

  /** The mark of the migration whose target (new generation) is {@code migrationTarget}. */
  public static UUID markOf(String migrationTarget) {
    return UUID.nameUUIDFromBytes(
        ("presplit-capture:" + migrationTarget).getBytes(StandardCharsets.UTF_8));
  }

  /** The peer configuration entries that carry this spec. */
  public Map<String, String> toConfiguration() {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put(SOURCE_KEY, source.getNameAsString());
    conf.put(TARGET_KEY, target.getNameAsString());
    conf.put(SOURCE_LAYOUT_KEY, sourceLayoutJson == null ? "" : sourceLayoutJson);
    conf.put(TARGET_LAYOUT_KEY, targetLayoutJson == null ? "" : targetLayoutJson);
    conf.put(MARK_KEY, mark.toString());
    conf.put(ACK_FAMILY_KEY, new String(ackFamily, StandardCharsets.UTF_8));
    return conf;
  }

  /**
   * The spec a peer's configuration carries.
   *
   * @throws IllegalArgumentException naming the key that is missing or wrong
   */
  public static CaptureSpec fromConfiguration(Map<String, String> conf) {
    return new CaptureSpec(table(conf, SOURCE_KEY), table(conf, TARGET_KEY),
        conf.get(SOURCE_LAYOUT_KEY), conf.get(TARGET_LAYOUT_KEY), mark(conf),
        required(conf, ACK_FAMILY_KEY).getBytes(StandardCharsets.UTF_8));
  }

  private static String required(Map<String, String> conf, String key) {
    String value = conf.get(key);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("capture peer configuration lacks " + key);
    }
    return value;
  }

  private static TableName table(Map<String, String> conf, String key) {
    String name = required(conf, key);
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + " '" + name + "' is not a table name", e);
    }
  }

  private static UUID mark(Map<String, String> conf) {
    String value = required(conf, MARK_KEY);
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(MARK_KEY + " '" + value + "' is not a UUID", e);
    }
  }
}
