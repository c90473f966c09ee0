import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The end-to-end tests' HBase client on the Kerberized cluster (scripts/local-cluster
 * --kerberos): logs in from a keytab, then does one thing. The cluster's hbase-site.xml (its
 * conf directory) comes first on the classpath; -Djava.security.krb5.conf names the KDC.
 *
 * <pre>
 *   KerberosProbe PRINCIPAL KEYTAB whoami                  the user HBase sees (short name)
 *   KerberosProbe PRINCIPAL KEYTAB create-namespace NS     unless it exists
 *   KerberosProbe PRINCIPAL KEYTAB grant USER @NS ACTIONS  ACTIONS: letters of RWXCA
 *   KerberosProbe PRINCIPAL KEYTAB grant USER TABLE ACTIONS    on one table
 *   KerberosProbe PRINCIPAL KEYTAB grants TABLE            "USER:ACTIONS,..." granted on the
 *                                                          table itself, sorted ("-": none)
 *   KerberosProbe PRINCIPAL KEYTAB namespace-exists NS     true or false
 *   KerberosProbe PRINCIPAL KEYTAB regions-count TABLE     the table's regions
 *   KerberosProbe PRINCIPAL KEYTAB rows TABLE              "ROWS SALTS": the rows as stored,
 *                                                          and their distinct first bytes
 *                                                          ("-": none)
 * </pre>
 *
 * The answer is printed as one line "RESULT value" on stdout; errors go to stderr, exit 1.
 */
public final class KerberosProbe {
  private KerberosProbe() {}

  public static void main(String[] args) {
    int rc = 0;
    try {
      System.out.println("RESULT " + run(args));
    } catch (Throwable t) {
      String message = String.valueOf(t.getMessage());
      System.err.println("KerberosProbe: " + t.getClass().getName() + ": "
          + message.substring(0, message.indexOf('\n') < 0 ? message.length()
              : message.indexOf('\n')));
      rc = 1;
    }
    System.exit(rc);
  }

  private static String run(String[] args) throws Throwable {
    if (args.length < 3) {
      throw new IllegalArgumentException("usage: KerberosProbe PRINCIPAL KEYTAB COMMAND ARGS...");
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hadoop.security.authentication", "kerberos");
    conf.setInt("hbase.client.retries.number", 3);
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(args[0], args[1]);
    String command = args[2];
    String[] rest = Arrays.copyOfRange(args, 3, args.length);
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      switch (command) {
        case "whoami":
          return User.getCurrent().getShortName();
        case "create-namespace":
          if (!Arrays.asList(admin.listNamespaces()).contains(rest[0])) {
            admin.createNamespace(NamespaceDescriptor.create(rest[0]).build());
          }
          return rest[0];
        case "grant": {
          Permission.Action[] actions = rest[2].chars()
              .mapToObj(ch -> Permission.Action.valueOf(
                  "R".equals(String.valueOf((char) ch)) ? "READ"
                      : "W".equals(String.valueOf((char) ch)) ? "WRITE"
                      : "X".equals(String.valueOf((char) ch)) ? "EXEC"
                      : "C".equals(String.valueOf((char) ch)) ? "CREATE" : "ADMIN"))
              .toArray(Permission.Action[]::new);
          if (rest[1].startsWith("@")) {
            AccessControlClient.grant(c, rest[1].substring(1), rest[0], actions);
          } else {
            AccessControlClient.grant(c, TableName.valueOf(rest[1]), rest[0], null, null,
                actions);
          }
          return rest[0] + " " + rest[1] + " " + rest[2];
        }
        case "grants": {
          List<String> grants = new ArrayList<>();
          List<UserPermission> permissions;
          try {
            permissions = AccessControlClient.getUserPermissions(c,
                java.util.regex.Pattern.quote(rest[0]));
          } catch (Throwable t) {
            throw new java.io.IOException("listing the grants on " + rest[0], t);
          }
          for (UserPermission p : permissions) {
            StringBuilder actions = new StringBuilder();
            for (Permission.Action a : p.getPermission().getActions()) {
              actions.append((char) a.code());
            }
            char[] sorted = actions.toString().toCharArray();
            Arrays.sort(sorted);
            grants.add(p.getUser() + ":" + new String(sorted));
          }
          Collections.sort(grants);
          return grants.isEmpty() ? "-" : String.join(",", grants);
        }
        case "namespace-exists":
          return String.valueOf(Arrays.asList(admin.listNamespaces()).contains(rest[0]));
        case "rows": {
          long rows = 0;
          TreeSet<String> salts = new TreeSet<>();
          try (Table t = c.getTable(TableName.valueOf(rest[0]));
               ResultScanner scanner = t.getScanner(new Scan().setFilter(
                   new FirstKeyOnlyFilter()))) {
            for (Result r : scanner) {
              rows++;
              salts.add(Bytes.toStringBinary(r.getRow(), 0, 1));
            }
          }
          return rows + " " + (salts.isEmpty() ? "-" : String.join(",", salts));
        }
        case "regions-count":
          try (RegionLocator locator = c.getRegionLocator(TableName.valueOf(rest[0]))) {
            return String.valueOf(locator.getAllRegionLocations().size());
          }
        default:
          throw new IllegalArgumentException("unknown command " + command);
      }
    }
  }
}
