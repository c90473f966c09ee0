package io.presplit.hbase.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.access.Permission;

/**
 * Which HBase permissions presplitd's principal needs for the tables it manages, and the JSON
 * that {@link AdminBridge#checkPermissions} answers with. Derived from HBase 2.6's
 * AccessController hooks:
 *
 * <ul>
 *   <li>CREATE on a namespace that exists: createTable (ADMIN or CREATE on the namespace);
 *   <li>global ADMIN for a namespace that does not exist: createNamespace;
 *   <li>ADMIN on a table that exists: split, snapshot (modifyTable, disable, delete, flush and
 *       bulk loads take ADMIN or CREATE, so ADMIN covers them). Tables presplitd created are its
 *       own: HBase granted their creator every permission on them;
 *   <li>global ADMIN for migrations: the change capture's replication peers
 *       (add/list/enable/removeReplicationPeer).
 * </ul>
 */
final class PermissionCheck {

  /** One permission: its action (CREATE, ADMIN), scope ("" global, "@ns", "ns:t") and why. */
  record Need(String action, String scope, String why) {

    Permission permission() {
      Permission.Action a = Permission.Action.valueOf(action);
      if (scope.isEmpty()) {
        return Permission.newBuilder().withActions(a).build();
      }
      if (scope.startsWith("@")) {
        return Permission.newBuilder(scope.substring(1)).withActions(a).build();
      }
      return Permission.newBuilder(TableName.valueOf(scope)).withActions(a).build();
    }

    String grant(String user) {
      String letter = action.substring(0, 1);
      String on = scope.isEmpty() ? "" : ", '" + scope + "'";
      return "grant '" + user + "', '" + letter + "'" + on;
    }
  }

  private PermissionCheck() {}

  /**
   * What presplitd needs for {@code tables}, one entry per permission (the reasons joined), in
   * the order first needed.
   */
  static List<Need> needs(List<TableName> tables, Set<String> existingNamespaces,
      Set<TableName> existingTables, boolean replication) {
    Map<String, Need> needs = new LinkedHashMap<>();
    for (TableName t : tables) {
      String ns = t.getNamespaceAsString();
      if (existingNamespaces.contains(ns)) {
        add(needs, "CREATE", "@" + ns, "creating tables in namespace " + ns);
      } else {
        add(needs, "ADMIN", "", "creating namespace " + ns);
      }
      if (existingTables.contains(t)) {
        add(needs, "ADMIN", t.getNameAsString(), "load splits and migration snapshots of "
            + t.getNameAsString());
      }
    }
    if (replication) {
      add(needs, "ADMIN", "", "the replication peers of migrations' change capture");
    }
    return new ArrayList<>(needs.values());
  }

  private static void add(Map<String, Need> needs, String action, String scope, String why) {
    needs.merge(action + " " + scope, new Need(action, scope, why),
        (a, b) -> new Need(a.action, a.scope, a.why + "; " + b.why));
  }

  /**
   * {@code {"authorization":bool,"principal":"...","checked":N,"create_checked":C,
   * "missing":[{"permission":"ADMIN",
   * "scope":"GLOBAL"|"@ns"|"ns:t","for":"...","grant":"grant 'u', 'A'"}]}}; {@code held} is
   * null when the AccessController is off (nothing checked, nothing missing).
   */
  static String toJson(String principal, String user, List<Need> needs, List<Boolean> held) {
    StringBuilder json = new StringBuilder("{\"authorization\":").append(held != null)
        .append(",\"principal\":").append(JsonText.quote(principal))
        .append(",\"checked\":").append(held == null ? 0 : needs.size())
        .append(",\"create_checked\":")
        .append(held == null ? 0 : needs.stream().filter(n -> n.action.equals("CREATE")).count())
        .append(",\"missing\":[");
    boolean first = true;
    for (int i = 0; held != null && i < needs.size(); i++) {
      if (i < held.size() && Boolean.TRUE.equals(held.get(i))) {
        continue;
      }
      Need n = needs.get(i);
      json.append(first ? "" : ",").append("{\"permission\":").append(JsonText.quote(n.action))
          .append(",\"scope\":").append(JsonText.quote(n.scope.isEmpty() ? "GLOBAL" : n.scope))
          .append(",\"for\":").append(JsonText.quote(n.why))
          .append(",\"grant\":").append(JsonText.quote(n.grant(user))).append('}');
      first = false;
    }
    return json.append("]}").toString();
  }
}
