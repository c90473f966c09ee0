package io.presplit.migrate;

import static io.presplit.migrate.BridgeConnection.connection;
import static io.presplit.migrate.BridgeSupport.base64List;
import static io.presplit.migrate.BridgeSupport.descriptor;
import static io.presplit.migrate.BridgeSupport.parseBoolean;
import static io.presplit.migrate.BridgeSupport.tableName;

import io.presplit.capture.MigrationGuard;
import io.presplit.hbase.admin.AccessDenial;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * The generations' tables, as presplitd's migration changes them (see package-info): the new
 * generation created as the same table in a new layout ({@link NextGeneration},
 * {@link GenerationSettings}), the MigrationGuard attached and removed, KEEP_DELETED_CELLS and
 * READONLY set, regions reopened.
 */
public final class GenerationBridge {

  private GenerationBridge() {
  }

  /**
   * Sets KEEP_DELETED_CELLS of every family of the table (a modifyTable, which reopens its
   * regions; nothing when every family has it already).
   */
  public static String setKeepDeletedCells(String table, String keep) throws IOException {
    TableName name = tableName(table, "table");
    KeepDeletedCells wanted = parseBoolean(keep, "keep") ? KeepDeletedCells.TRUE
        : KeepDeletedCells.FALSE;
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(descriptor);
      boolean changed = false;
      for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
        if (family.getKeepDeletedCells() != wanted) {
          builder.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(wanted).build());
          changed = true;
        }
      }
      if (changed) {
        modify(admin, builder.build());
      }
      return "{\"changed\":" + changed + "}";
    }
  }

  /**
   * Creates the migration's new generation, pre-split at {@code splitKeysJson} (a JSON array of
   * base64 keys), as {@link NextGeneration#of} describes it (the old generation's settings, the
   * document's layout, the marker of plan {@code planId}), then copies the old generation's
   * grants and quotas and, with {@code replication} "follow", joins the peers that name it.
   * Refuses, creating nothing, what {@link GenerationSettings#refusal} refuses, and a table of
   * the new generation's name that this plan did not create. A rerun after a crash finds the
   * table it created and only copies the settings again.
   *
   * @return {@code {"created":true|false,"refused":null|"<why>","grants":N,"quotas":N,
   *     "peers_followed":[...],"replication_scope":"kept"|"cleared"|"none"}}
   */
  public static String createGeneration(String specJson, String splitKeysJson, String source,
      String replication, String planId) throws IOException {
    TableDescriptor document = io.presplit.hbase.admin.TableSpec.parse(specJson).descriptor();
    List<byte[]> splits = base64List(splitKeysJson);
    TableName from = tableName(source, "source");
    GenerationSettings.Replication mode = GenerationSettings.Replication.parse(replication);
    requirePlanId(planId);
    JsonObject out = new JsonObject();
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor old = admin.getDescriptor(from);
      boolean created = false;
      if (admin.tableExists(document.getTableName())) {
        String whyNot = NextGeneration.whyNotMarked(admin.getDescriptor(
            document.getTableName()), source, planId);
        if (!whyNot.isEmpty()) {
          return refused(out, "a table named " + document.getTableName() + " exists: " + whyNot
              + "; rename or drop it, or abort the migration");
        }
      } else {
        String refusal = GenerationSettings.refusal(admin, old, mode);
        if (!refusal.isEmpty()) {
          return refused(out, refusal);
        }
        TableDescriptor target = NextGeneration.of(old, document,
            mode != GenerationSettings.Replication.STOP, planId);
        // The copy and the capture need deleted cells kept (see setKeepDeletedCells): set from
        // the start, which spares the new table a reopen; settleNewGeneration gives the
        // source's back once the fence drained the capture.
        TableDescriptorBuilder keeping = TableDescriptorBuilder.newBuilder(target);
        for (ColumnFamilyDescriptor family : target.getColumnFamilies()) {
          keeping.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(KeepDeletedCells.TRUE).build());
        }
        target = keeping.build();
        try {
          if (splits.isEmpty()) {
            admin.createTable(target);
          } else {
            admin.createTable(target, splits.toArray(new byte[0][]));
          }
          created = true;
        } catch (org.apache.hadoop.hbase.TableExistsException e) {
          created = false;  // a concurrent create of ours: its marker is checked on the next run
        } catch (IOException e) {
          throw AccessDenial.map(AccessDenial.Operation.CREATE_TABLE, document.getTableName(), e);
        }
      }
      out.addProperty("created", created);
      out.add("refused", null);
      addCopied(out, GenerationSettings.copy(admin, from, document.getTableName(), mode));
      out.addProperty("replication_scope",
          NextGeneration.replicatedFamilies(old).isEmpty() ? "none"
              : mode == GenerationSettings.Replication.STOP ? "cleared" : "kept");
      return out.toString();
    }
  }

  /** {@code "grants":N,"quotas":N,"peers_followed":[...]}: what GenerationSettings copied. */
  private static void addCopied(JsonObject out, GenerationSettings.Copied copied) {
    out.addProperty("grants", copied.grants());
    out.addProperty("quotas", copied.quotas());
    JsonArray followed = new JsonArray();
    copied.peersFollowed().forEach(followed::add);
    out.add("peers_followed", followed);
  }

  private static String refused(JsonObject out, String why) {
    out.addProperty("created", false);
    out.addProperty("refused", why);
    return out.toString();
  }

  /**
   * Copies the grants and quotas of {@code source} to {@code target} again (and, with "follow",
   * joins the peers that name the source): right before the switch, for whatever an operator
   * changed on the old generation during the copy.
   *
   * @return {@code {"grants":N,"quotas":N,"peers_followed":[...]}}
   */
  public static String copyTableSettings(String source, String target, String replication)
      throws IOException {
    TableName from = tableName(source, "source");
    TableName to = tableName(target, "target");
    GenerationSettings.Replication mode = GenerationSettings.Replication.parse(replication);
    try (Admin admin = connection().getAdmin()) {
      JsonObject out = new JsonObject();
      addCopied(out, GenerationSettings.copy(admin, from, to, mode));
      return out.toString();
    }
  }

  /**
   * Whether {@code table} carries the marker of plan {@code planId} of the migration of
   * {@code source} ({@link NextGeneration#whyNotMarked}).
   *
   * @return {@code {"exists":true|false,"why_not":""|"<why>"}}
   */
  public static String checkGeneration(String table, String source, String planId)
      throws IOException {
    TableName name = tableName(table, "table");
    tableName(source, "source");
    JsonObject out = new JsonObject();
    try (Admin admin = connection().getAdmin()) {
      if (!admin.tableExists(name)) {
        out.addProperty("exists", false);
        out.addProperty("why_not", name + " does not exist");
        return out.toString();
      }
      out.addProperty("exists", true);
      out.addProperty("why_not",
          NextGeneration.whyNotMarked(admin.getDescriptor(name), source, planId));
      return out.toString();
    }
  }

  /**
   * The new generation once no capture peer writes into it any more (the fence drained and removed
   * the forward peer), in one modifyTable of {@code target} (a reopen of its regions; none when
   * nothing changes): every family gets the KEEP_DELETED_CELLS of the same family of
   * {@code source} (FALSE for a family the source lacks), the setting its owner chose, kept TRUE
   * since the creation because a moved region's older edits can arrive after a delete marker; and
   * the {@link MigrationGuard} of plan {@code planId} (or one naming no plan) is removed, another
   * plan's left in place.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the other guard's plan id>"}}
   */
  public static String settleNewGeneration(String target, String source, String planId)
      throws IOException {
    TableName to = tableName(target, "target");
    TableName from = tableName(source, "source");
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor old = admin.getDescriptor(from);
      TableDescriptor descriptor = admin.getDescriptor(to);
      TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(descriptor);
      boolean changed = false;
      for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
        ColumnFamilyDescriptor before = old.getColumnFamily(family.getName());
        KeepDeletedCells wanted = before == null ? KeepDeletedCells.FALSE
            : before.getKeepDeletedCells();
        if (family.getKeepDeletedCells() != wanted) {
          builder.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family)
              .setKeepDeletedCells(wanted).build());
          changed = true;
        }
      }
      TableDescriptor settled = builder.build();
      String[] otherPlan = new String[1];
      TableDescriptor unguarded = unguardedFor(settled, planId, otherPlan);
      if (unguarded != null) {
        settled = unguarded;
        changed = true;
      }
      if (changed) {
        modify(admin, settled);
      }
      return guardChange(changed, otherPlan[0]);
    }
  }

  /**
   * Attaches the {@link MigrationGuard} to {@code table} dormant, when it is not attached (a
   * modifyTable, which reopens the table's regions; nothing when it is there, as on every table
   * presplitd created). A dormant guard refuses nothing until a capture of the table runs on its
   * RegionServer ({@link CaptureBridge#confirmGuard}).
   *
   * @return {@code {"changed":true|false}}
   */
  public static String attachGuard(String table) throws IOException {
    TableName name = tableName(table, "table");
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      boolean changed = MigrationGuard.guardingPlan(descriptor) == null;
      if (changed) {
        modify(admin, MigrationGuard.dormant(descriptor));
      }
      return "{\"changed\":" + changed + "}";
    }
  }

  /**
   * Attaches the {@link MigrationGuard} of plan {@code planId} to {@code table}, refusing
   * SKIP_WAL writes and bulk loads (a modifyTable, which reopens its regions; nothing when it is
   * attached so already). A guard of another plan (one whose plan was removed by hand before it
   * could end) is replaced.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the replaced plan's id>"}}
   */
  public static String guardTable(String table, String planId) throws IOException {
    TableName name = tableName(table, "table");
    requirePlanId(planId);
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      String before = MigrationGuard.guardingPlan(descriptor);
      boolean changed = !MigrationGuard.isGuarded(descriptor, planId, /*copyLoads=*/false);
      if (changed) {
        modify(admin, MigrationGuard.guarded(descriptor, planId, /*copyLoads=*/false));
      }
      return guardChange(changed,
          before == null || before.isEmpty() || before.equals(planId) ? null : before);
    }
  }

  /**
   * Removes the {@link MigrationGuard} of plan {@code planId} (or one without its plan
   * attribute) from {@code table} (a modifyTable, which reopens its regions; nothing when no
   * guard is attached, or the table is gone). A guard of another plan is left in place: that
   * migration's own end removes it.
   *
   * @return {@code {"changed":true|false,"other_plan":null|"<the plan of the guard left>"}}
   */
  public static String unguardTable(String table, String planId) throws IOException {
    TableName name = tableName(table, "table");
    requirePlanId(planId);
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor;
      try {
        descriptor = admin.getDescriptor(name);
      } catch (TableNotFoundException e) {
        return guardChange(false, null);
      }
      String[] otherPlan = new String[1];
      TableDescriptor unguarded = unguardedFor(descriptor, planId, otherPlan);
      if (unguarded != null) {
        modify(admin, unguarded);
      }
      return guardChange(unguarded != null, otherPlan[0]);
    }
  }

  /**
   * {@code descriptor} without the {@link MigrationGuard} of plan {@code planId} (or one naming
   * no plan); null when it carries no such guard. Another plan's guard is left in place and named
   * in {@code otherPlan[0]}.
   */
  private static TableDescriptor unguardedFor(TableDescriptor descriptor, String planId,
      String[] otherPlan) {
    String guarding = MigrationGuard.guardingPlan(descriptor);
    if (guarding == null || guarding.isEmpty()) {
      return null; // none, or dormant already
    }
    if (!guarding.equals(planId)) {
      otherPlan[0] = guarding;
      return null;
    }
    return MigrationGuard.dormant(descriptor);
  }


  private static String guardChange(boolean changed, String otherPlan) {
    JsonObject out = new JsonObject();
    out.addProperty("changed", changed);
    out.addProperty("other_plan", otherPlan);
    return out.toString();
  }

  private static void requirePlanId(String planId) {
    if (planId == null || planId.isEmpty()) {
      throw new IllegalArgumentException("plan id is missing");
    }
  }

  private static void modify(Admin admin, TableDescriptor descriptor) throws IOException {
    try {
      admin.modifyTable(descriptor);
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.MODIFY_TABLE, descriptor.getTableName(), e);
    }
  }

  /**
   * Sets the table's READONLY (a modifyTable, which reopens its regions: each region's close is
   * its last entry in the WAL; nothing when it is so already). Read-only regions refuse every
   * write with an error the writer sees.
   */
  public static String setReadOnly(String table, String readOnly) throws IOException {
    TableName name = tableName(table, "table");
    boolean wanted = parseBoolean(readOnly, "readOnly");
    try (Admin admin = connection().getAdmin()) {
      TableDescriptor descriptor = admin.getDescriptor(name);
      if (descriptor.isReadOnly() == wanted) {
        return "{\"changed\":false}";
      }
      modify(admin, TableDescriptorBuilder.newBuilder(descriptor).setReadOnly(wanted).build());
      return "{\"changed\":true}";
    }
  }

  /**
   * Closes and reopens the named regions of the table, each on a server HBase picks (a move):
   * the close is the region's last entry in its server's WAL. For a fenced (read-only)
   * generation whose regions a RegionServer's crash reopened elsewhere without a close, so that
   * the drain of its capture can end. Every region is tried; names that are not regions of the
   * table are refused before anything moves.
   *
   * @param encodedRegions encoded region names, comma-separated
   * @return {@code {"reopened":N}}
   */
  public static String reopenRegions(String table, String encodedRegions) throws IOException {
    TableName name = tableName(table, "table");
    List<String> wanted = encodedRegionNames(encodedRegions);
    try (Admin admin = connection().getAdmin()) {
      TreeSet<String> ofTable = new TreeSet<>();
      for (RegionInfo r : admin.getRegions(name)) {
        ofTable.add(r.getEncodedName());
      }
      for (String region : wanted) {
        if (!ofTable.contains(region)) {
          throw new IllegalArgumentException(region + " is not a region of " + name);
        }
      }
      List<String> failed = new ArrayList<>();
      for (String region : wanted) {
        try {
          admin.move(Bytes.toBytes(region));
        } catch (IOException e) {
          failed.add(region + ": " + AccessDenial.map(AccessDenial.Operation.MOVE, name, e));
        }
      }
      if (!failed.isEmpty()) {
        throw new IOException("reopening " + failed.size() + " of " + wanted.size()
            + " regions of " + name + " failed: " + String.join("; ", failed));
      }
      return "{\"reopened\":" + wanted.size() + "}";
    }
  }

  /** Comma-separated encoded region names (32 lowercase hex digits each), at least one. */
  static List<String> encodedRegionNames(String names) {
    if (names == null || names.isEmpty()) {
      throw new IllegalArgumentException("no region named");
    }
    List<String> out = new ArrayList<>();
    for (String region : names.split(",", -1)) {
      if (!region.matches("[0-9a-f]{32}")) {
        throw new IllegalArgumentException("not an encoded region name: '" + region + "'");
      }
      out.add(region);
    }
    return out;
  }
}
