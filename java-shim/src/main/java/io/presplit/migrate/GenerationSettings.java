package io.presplit.migrate;

import io.presplit.capture.CapturePeers;
import io.presplit.hbase.admin.AccessDenial;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.security.SecurityCapability;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.replication.ReplicationException;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.apache.hadoop.hbase.security.access.GetUserPermissionsRequest;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.TablePermission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos.SetQuotaRequest;

/**
 * What makes a new generation the same table as the old one beyond its descriptor
 * ({@link NextGeneration}): the grants on it, its quotas, and its place in the cluster's other
 * replication peers; and the checks that refuse a migration presplit cannot carry out without
 * losing something.
 *
 * <p>Grants and quotas are copied when the new generation is created and again right before the
 * switch (whatever an operator granted meanwhile). Both are idempotent: a grant merges with the
 * target's, a quota is set to the source's value.
 */
final class GenerationSettings {

  /** What the document's {@code migration.replication} says. */
  enum Replication {
    REFUSE, FOLLOW, STOP;

    static Replication parse(String value) {
      for (Replication r : values()) {
        if (r.name().equalsIgnoreCase(value)) {
          return r;
        }
      }
      throw new IllegalArgumentException("migration replication must be refuse, follow or stop, "
          + "got '" + value + "'");
    }
  }

  /** What {@link #copy} did. */
  record Copied(int grants, int quotas, List<String> peersFollowed) {}

  private GenerationSettings() {
  }

  /**
   * Why the migration of {@code source} must not start, or "" when it may: visibility labels
   * (presplit's reads would skip the cells its user may not see, so they would be neither copied
   * nor compared, and a drop of the old generation would lose them), a table whose own
   * DURABILITY is SKIP_WAL (none of its writes would reach the capture, and the
   * {@link io.presplit.capture.MigrationGuard} would refuse them all), or a replication peer other
   * than presplit's own that ships the table's families to another cluster when the document
   * does not say what the new generation does about it.
   */
  static String refusal(Admin admin, TableDescriptor source, Replication replication)
      throws IOException {
    List<SecurityCapability> capabilities = admin.getSecurityCapabilities();
    if (capabilities.contains(SecurityCapability.CELL_VISIBILITY)) {
      return "the cluster runs HBase's VisibilityController: presplit's copy and verification "
          + "read only the cells whose labels its user may see, so labelled cells would be "
          + "neither copied nor compared; a table on a cluster with visibility labels is not "
          + "re-salted";
    }
    if (source.getDurability() == Durability.SKIP_WAL) {
      return source.getTableName().getNameWithNamespaceInclAsString() + " has DURABILITY "
          + "SKIP_WAL: none of its writes reaches the WAL, which the change capture reads, so "
          + "none would reach the new generation; give the table a DURABILITY that writes the "
          + "WAL (hbase shell: alter with DURABILITY => 'USE_DEFAULT') before re-salting it";
    }
    if (replication != Replication.REFUSE) {
      return "";
    }
    List<String> peers = shippingPeers(admin, source);
    if (peers.isEmpty()) {
      return "";
    }
    return source.getTableName().getNameWithNamespaceInclAsString() + " is shipped to another "
        + "cluster by the replication peer(s) " + String.join(", ", peers)
        + " (REPLICATION_SCOPE of families " + String.join(", ",
            NextGeneration.replicatedFamilies(source))
        + "): set the document's migration.replication to \"follow\" (the new generation keeps "
        + "REPLICATION_SCOPE and joins those peers; create the new generation's table on the "
        + "peer cluster first) or \"stop\" (the new generation is not replicated)";
  }

  /** The ids of the peers, other than presplit's, that ship some family of the table. */
  static List<String> shippingPeers(Admin admin, TableDescriptor table) throws IOException {
    List<String> replicated = NextGeneration.replicatedFamilies(table);
    List<String> out = new ArrayList<>();
    if (replicated.isEmpty()) {
      return out;
    }
    for (ReplicationPeerDescription peer : listPeers(admin)) {
      if (peer.getPeerId().startsWith(CapturePeers.PEER_PREFIX)) {
        continue;
      }
      ReplicationPeerConfig config = peer.getPeerConfig();
      for (String family : replicated) {
        if (config.needToReplicate(table.getTableName(),
            org.apache.hadoop.hbase.util.Bytes.toBytes(family))) {
          out.add(peer.getPeerId());
          break;
        }
      }
    }
    return out;
  }

  private static List<ReplicationPeerDescription> listPeers(Admin admin) throws IOException {
    try {
      return admin.listReplicationPeers();
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.DESCRIBE_PEER, "(all peers)", e);
    }
  }

  /**
   * Copies the grants and quotas of {@code source} to {@code target} and, with
   * {@link Replication#FOLLOW}, adds {@code target} to every peer whose table list names
   * {@code source} (with the same families); peers that replicate a whole namespace or every
   * table ship it by its REPLICATION_SCOPE already.
   */
  static Copied copy(Admin admin, TableName source, TableName target, Replication replication)
      throws IOException {
    List<SecurityCapability> capabilities = admin.getSecurityCapabilities();
    int grants = capabilities.contains(SecurityCapability.AUTHORIZATION)
        ? copyGrants(admin, source, target)
        : 0;
    int quotas = copyQuotas(admin, source, target);
    List<String> followed = replication == Replication.FOLLOW
        ? follow(admin, source, target)
        : List.of();
    return new Copied(grants, quotas, followed);
  }

  private static int copyGrants(Admin admin, TableName source, TableName target)
      throws IOException {
    List<UserPermission> permissions;
    try {
      permissions = admin.getUserPermissions(GetUserPermissionsRequest.newBuilder(source).build());
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.COPY_GRANTS, source, e);
    }
    int copied = 0;
    for (UserPermission granted : permissions) {
      if (!(granted.getPermission() instanceof TablePermission)) {
        continue;
      }
      TablePermission on = (TablePermission) granted.getPermission();
      if (!source.equals(on.getTableName())) {
        continue;
      }
      Permission.Builder permission = Permission.newBuilder(target).withActions(on.getActions());
      if (on.hasFamily()) {
        permission.withFamily(on.getFamily());
      }
      if (on.hasQualifier()) {
        permission.withQualifier(on.getQualifier());
      }
      try {
        admin.grant(new UserPermission(granted.getUser(), permission.build()), true);
      } catch (IOException e) {
        throw AccessDenial.map(AccessDenial.Operation.COPY_GRANTS, target, e);
      }
      copied++;
    }
    return copied;
  }

  private static int copyQuotas(Admin admin, TableName source, TableName target)
      throws IOException {
    List<QuotaSettings> quotas;
    try {
      quotas = admin.getQuota(new QuotaFilter().setTableFilter(Pattern.quote(
          source.getNameWithNamespaceInclAsString())));
    } catch (TableNotFoundException e) {
      return 0;  // quotas are off on this cluster (no hbase:quota table): nothing to copy
    } catch (IOException e) {
      throw AccessDenial.map(AccessDenial.Operation.COPY_QUOTAS, source, e);
    }
    int copied = 0;
    for (QuotaSettings quota : quotas) {
      if (!source.equals(quota.getTableName())) {
        continue;
      }
      // The same request the shell's set_quota makes, with the table's name changed: throttles
      // (of the table, or of a user on the table) and space limits alike.
      SetQuotaRequest request = QuotaSettings.buildSetQuotaRequestProto(quota).toBuilder()
          .setTableName(ProtobufUtil.toProtoTableName(target)).build();
      try {
        admin.setQuota(QuotaSettings.buildFromProto(request));
      } catch (IOException e) {
        throw AccessDenial.map(AccessDenial.Operation.COPY_QUOTAS, target, e);
      }
      copied++;
    }
    return copied;
  }

  private static List<String> follow(Admin admin, TableName source, TableName target)
      throws IOException {
    List<String> followed = new ArrayList<>();
    for (ReplicationPeerDescription peer : listPeers(admin)) {
      if (peer.getPeerId().startsWith(CapturePeers.PEER_PREFIX)) {
        continue;
      }
      Map<TableName, List<String>> tables = peer.getPeerConfig().getTableCFsMap();
      if (tables == null || !tables.containsKey(source)) {
        continue;
      }
      if (!tables.containsKey(target)) {
        Map<TableName, List<String>> add = new HashMap<>();
        List<String> families = tables.get(source);
        add.put(target, families == null ? null : new ArrayList<>(families));
        try {
          admin.appendReplicationPeerTableCFs(peer.getPeerId(), add);
        } catch (ReplicationException e) {
          throw new IOException("adding " + target + " to replication peer " + peer.getPeerId()
              + ": " + e.getMessage(), e);
        } catch (IOException e) {
          throw AccessDenial.map(AccessDenial.Operation.ADD_PEER, target, e);
        }
      }
      followed.add(peer.getPeerId());
    }
    return followed;
  }
}
