package io.presplit.hbase.admin;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;

/**
 * The one home of HBase's AccessDeniedException as presplitd reports it: one line naming what
 * presplitd was doing, the table, the permission and scope HBase wanted, presplitd's principal
 * and the {@code hbase shell} grant that fixes it. The remote exception (whose message is the
 * server's stack trace) is the cause.
 *
 * <p>HBase 2.x's AccessChecker words a denial in two ways (AuthResult.toContextString, and the
 * global checks of requirePermission / requireGlobalPermission):
 *
 * <pre>
 * Insufficient permissions (user=presplit/h@R, scope=ns:t, params=[table=ns:t],action=ADMIN)
 * Insufficient permissions for user 'presplit' (global, action=ADMIN)
 * Insufficient permissions for user 'presplit' (table=ns:t, action=READ)
 * </pre>
 *
 * (the last from a RegionServer refusing a scan). The scope is {@code GLOBAL}, a namespace ({@code ns}) or a table ({@code ns:t}). Where HBase
 * accepts either of two actions (ADMIN or CREATE for modifyTable, bulk loads, disable, delete)
 * it names the last it tried, CREATE, the smaller grant.
 */
public final class AccessDenial {

  /** What presplitd was doing when HBase refused, and what it takes when HBase does not say. */
  public enum Operation {
    DESCRIBE_TABLE("describing table", "CREATE", Scope.TABLE),
    CREATE_TABLE("creating table", "CREATE", Scope.NAMESPACE),
    SAMPLE_KEYS("sampling the row keys of table", "READ", Scope.TABLE),
    SPLIT("splitting a region of table", "ADMIN", Scope.TABLE),
    MOVE("moving a region of table", "ADMIN", Scope.TABLE),
    MODIFY_TABLE("modifying table", "CREATE", Scope.TABLE),
    SNAPSHOT("snapshotting table", "ADMIN", Scope.TABLE),
    BULK_LOAD("bulk loading HFiles into table", "CREATE", Scope.TABLE),
    FLUSH("flushing table", "CREATE", Scope.TABLE),
    DISABLE_TABLE("disabling table", "CREATE", Scope.TABLE),
    DELETE_TABLE("deleting table", "CREATE", Scope.TABLE),
    ADD_PEER("adding the change capture's replication peer for table", "ADMIN", Scope.GLOBAL),
    REMOVE_PEER("removing the change capture's replication peer", "ADMIN", Scope.GLOBAL),
    DESCRIBE_PEER("reading the change capture's replication peer", "ADMIN", Scope.GLOBAL),
    ROLL_WAL("rolling the RegionServers' WALs to drain the change capture's replication peer",
        "ADMIN", Scope.GLOBAL),
    COPY_GRANTS("copying the grants of table", "ADMIN", Scope.TABLE),
    COPY_QUOTAS("copying the quotas of table", "ADMIN", Scope.GLOBAL);

    final String doing;
    final String action;
    final Scope scope;

    Operation(String doing, String action, Scope scope) {
      this.doing = doing;
      this.action = action;
      this.scope = scope;
    }
  }

  enum Scope { GLOBAL, NAMESPACE, TABLE }

  private static final Pattern ACTION = Pattern.compile("action=([A-Z]+)");
  private static final Pattern SCOPE = Pattern.compile("scope=([^,)\\s]+)");
  private static final Pattern GLOBAL = Pattern.compile("\\(global,");
  private static final Pattern TABLE = Pattern.compile("\\(table=([^,)\\s]+)");

  private AccessDenial() {}

  /**
   * {@code e} as one line when an AccessDeniedException is in its cause chain (however the
   * client wrapped it: a procedure's ExecutionException cause, the bulk load tool's
   * IOException); otherwise {@code e} itself.
   *
   * @param table the table the operation was on; null when the caller only knows a region
   *     (then HBase's scope names the table)
   */
  public static IOException map(Operation op, TableName table, IOException e) {
    return map(op, table == null ? null : table.getNameAsString(), e);
  }

  /** As above, for an operation on something else than a table (a replication peer's id). */
  public static IOException map(Operation op, String subject, IOException e) {
    AccessDeniedException denied = find(e);
    return denied == null ? e : denial(op, subject, denied);
  }

  /** The one line for HBase's refusal {@code e} of {@code op} on {@code table}. */
  static AccessDeniedException denial(Operation op, String table, AccessDeniedException e) {
    String reason = reason(e);
    Matcher action = ACTION.matcher(reason);
    String wanted = action.find() ? action.group(1) : op.action;
    Matcher scopeMatch = SCOPE.matcher(reason);
    String hbaseScope = scopeMatch.find() ? scopeMatch.group(1) : null;
    Matcher tableMatch = TABLE.matcher(reason);
    if (hbaseScope == null && tableMatch.find()) {
      hbaseScope = tableMatch.group(1);
    }
    if (table == null) {
      table = hbaseScope != null && hbaseScope.contains(":") ? hbaseScope : "(unknown)";
    }
    Scope scope;
    String where;
    if (GLOBAL.matcher(reason).find() || "GLOBAL".equals(hbaseScope)) {
      scope = Scope.GLOBAL;
      where = null;
    } else if (hbaseScope != null) {
      scope = hbaseScope.contains(":") ? Scope.TABLE : Scope.NAMESPACE;
      where = hbaseScope;
    } else {
      scope = op.scope;
      where = op.scope == Scope.NAMESPACE ? namespaceOf(table) : table;
    }
    String principal = user(true);
    String user = user(false);
    String needs = switch (scope) {
      case GLOBAL -> "global " + wanted;
      case NAMESPACE -> wanted + " on namespace " + where;
      case TABLE -> wanted + " on table " + where;
    };
    AccessDeniedException out = new AccessDeniedException("HBase denied " + op.doing + " "
        + table + ": " + reason + "; presplitd's principal " + principal + " needs " + needs
        + " (hbase shell: " + grant(user, wanted, scope, where) + ")");
    out.initCause(e);
    return out;
  }

  /** The {@code hbase shell} grant of {@code action} on the scope. */
  static String grant(String user, String action, Scope scope, String where) {
    String letter = action.isEmpty() ? "?" : action.substring(0, 1);
    return switch (scope) {
      case GLOBAL -> "grant '" + user + "', '" + letter + "'";
      case NAMESPACE -> "grant '" + user + "', '" + letter + "', '@" + where + "'";
      case TABLE -> "grant '" + user + "', '" + letter + "', '" + where + "'";
    };
  }

  /** The first AccessDeniedException in the cause chain, or null. */
  static AccessDeniedException find(Throwable t) {
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      if (t instanceof AccessDeniedException) {
        return (AccessDeniedException) t;
      }
    }
    return null;
  }

  /** HBase's reason: the message's first line, without the class names the RPC put before it. */
  static String reason(AccessDeniedException e) {
    String reason = e.getMessage() == null ? "(no message)" : e.getMessage();
    int nl = reason.indexOf('\n');
    if (nl >= 0) {
      reason = reason.substring(0, nl);
    }
    String prefix = AccessDeniedException.class.getName() + ": ";
    while (reason.startsWith(prefix)) {
      reason = reason.substring(prefix.length());
    }
    return reason.trim();
  }

  private static String namespaceOf(String table) {
    int colon = table.indexOf(':');
    return colon < 0 ? "default" : table.substring(0, colon);
  }

  /** The user this JVM talks to HBase as: the whole principal, or its short name (for grants). */
  static String user(boolean full) {
    try {
      User current = User.getCurrent();
      if (current != null) {
        return full ? current.getName() : current.getShortName();
      }
    } catch (IOException | RuntimeException unknown) {
      // fall through
    }
    return "presplit";
  }
}
