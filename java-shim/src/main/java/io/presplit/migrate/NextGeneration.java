package io.presplit.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.presplit.capture.MigrationGuard;
import java.util.Optional;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The descriptor of a re-salting migration's new generation: the same table as the old one, in a
 * new layout. Pure (no cluster access), so it is unit tested.
 *
 * <p>Everything an operator or an application set on the old generation is kept: table attributes
 * ({@code MAX_FILESIZE}, {@code DURABILITY}, {@code OWNER}, table coprocessors, custom values)
 * and every family's settings ({@code MIN_VERSIONS}, {@code KEEP_DELETED_CELLS}, {@code TTL},
 * {@code NEW_VERSION_BEHAVIOR}, {@code REPLICATION_SCOPE}, compression, blooms...), so that a
 * setting made in the shell does not silently end at the switch. What presplit owns comes from
 * the table's document instead: its layout record and split policy parameters (every
 * {@code presplit.*} value), presplit's split policy and coprocessors, and every attribute the
 * document sets. A family the document names and the old generation lacks is added as the
 * document says. The marker ({@link #MARKER_SOURCE}, {@link #MARKER_PLAN}) says which migration
 * created the table, so that nothing acts on a table a plan did not create. The new generation is
 * born with the plan's {@link MigrationGuard}, letting through the bulk loads of presplit's own
 * copy until the copy ends ({@link GenerationBridge#guardTable}), and removed at the fence
 * ({@link GenerationBridge#settleNewGeneration}).
 */
public final class NextGeneration {

  /** The table this generation was created to replace (its old generation). */
  public static final String MARKER_SOURCE = "presplit.migration.source";

  /** The id of the plan that created it. */
  public static final String MARKER_PLAN = "presplit.migration.plan";

  private static final String PRESPLIT_PREFIX = "presplit.";
  private static final String PRESPLIT_CLASSES = "io.presplit.";

  private NextGeneration() {
  }

  /**
   * @param source the old generation's descriptor, as the cluster has it now
   * @param document the descriptor the table's document alone gives (name, families, presplit's
   *     attributes: {@link io.presplit.hbase.admin.TableSpec})
   * @param keepReplicationScope false: every family gets {@code REPLICATION_SCOPE} 0 (the
   *     document's {@code migration.replication} is {@code stop})
   * @param planId the marker's plan id
   */
  public static TableDescriptor of(TableDescriptor source, TableDescriptor document,
      boolean keepReplicationScope, String planId) {
    TableName name = document.getTableName();
    TableDescriptorBuilder builder =
        TableDescriptorBuilder.newBuilder(TableDescriptorBuilder.copy(name, source));
    // What presplit owns in the old descriptor goes; the document's values replace it.
    for (Map.Entry<Bytes, Bytes> e : source.getValues().entrySet()) {
      String key = Bytes.toString(e.getKey().get());
      if (key.startsWith(PRESPLIT_PREFIX)) {
        builder.removeValue(e.getKey());
      }
    }
    Optional<String> splitPolicy = Optional.ofNullable(source.getRegionSplitPolicyClassName());
    if (splitPolicy.isPresent() && splitPolicy.get().startsWith(PRESPLIT_CLASSES)) {
      builder.removeValue(Bytes.toBytes(TableDescriptorBuilder.SPLIT_POLICY));
    }
    for (CoprocessorDescriptor cp : source.getCoprocessorDescriptors()) {
      if (cp.getClassName().startsWith(PRESPLIT_CLASSES)) {
        builder.removeCoprocessor(cp.getClassName());
      }
    }
    for (Map.Entry<Bytes, Bytes> e : document.getValues().entrySet()) {
      // A coprocessor goes in under a key of its own ("coprocessor$N"): the document's N may be
      // the number of one of the operator's coprocessors here.
      if (!HConstants.CP_HTD_ATTR_KEY_PATTERN.matcher(Bytes.toString(e.getKey().get()))
          .matches()) {
        builder.setValue(e.getKey(), e.getValue());
      }
    }
    for (CoprocessorDescriptor cp : document.getCoprocessorDescriptors()) {
      if (!source.hasCoprocessor(cp.getClassName())
          || cp.getClassName().startsWith(PRESPLIT_CLASSES)) {
        try {
          builder.setCoprocessor(cp);
        } catch (java.io.IOException e) {
          throw new IllegalArgumentException("coprocessor " + cp.getClassName() + ": "
              + e.getMessage(), e);
        }
      }
    }
    builder.setValue(MARKER_SOURCE, source.getTableName().getNameWithNamespaceInclAsString());
    builder.setValue(MARKER_PLAN, planId);

    for (ColumnFamilyDescriptor family : source.getColumnFamilies()) {
      if (!keepReplicationScope && family.getScope() != HConstants.REPLICATION_SCOPE_LOCAL) {
        builder.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
            .setScope(HConstants.REPLICATION_SCOPE_LOCAL).build());
      }
    }
    for (ColumnFamilyDescriptor family : document.getColumnFamilies()) {
      if (!source.hasColumnFamily(family.getName())) {
        builder.setColumnFamily(family);
      }
    }
    // Created guarded: no reopen later. The old generation's guard (an io.presplit class, a
    // presplit.* value) went with the rest of what presplit owns above.
    return MigrationGuard.guarded(builder.build(), planId, /*copyLoads=*/true);
  }

  /** The families whose REPLICATION_SCOPE is not local (another cluster may receive them). */
  public static List<String> replicatedFamilies(TableDescriptor table) {
    List<String> out = new ArrayList<>();
    for (ColumnFamilyDescriptor family : table.getColumnFamilies()) {
      if (family.getScope() != HConstants.REPLICATION_SCOPE_LOCAL) {
        out.add(family.getNameAsString());
      }
    }
    return out;
  }

  /**
   * Whether {@code table} carries the marker of the migration {@code planId} from
   * {@code source}: "" when it does, else why not (for the refusal's message).
   */
  public static String whyNotMarked(TableDescriptor table, String source, String planId) {
    String markedSource = table.getValue(MARKER_SOURCE);
    String markedPlan = table.getValue(MARKER_PLAN);
    String name = table.getTableName().getNameWithNamespaceInclAsString();
    if (markedSource == null || markedPlan == null) {
      return name + " carries no presplit migration marker (" + MARKER_SOURCE + ", "
          + MARKER_PLAN + "): presplit did not create it for a migration";
    }
    String wantedSource = TableName.valueOf(source).getNameWithNamespaceInclAsString();
    if (!markedSource.equals(wantedSource) || !markedPlan.equals(planId)) {
      return name + " was created by presplit for the migration of " + markedSource
          + " (plan " + markedPlan + "), not of " + wantedSource + " (plan " + planId + ")";
    }
    return "";
  }
}
