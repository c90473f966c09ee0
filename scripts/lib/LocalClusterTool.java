// Helper for scripts/local-cluster: talks to the local HBase with the official client.
//
//   java -cp CONF_DIR:CLASSPATH LocalClusterTool wait SECONDS [SERVERS]
//       Exits 0 once the master is initialised, at least SERVERS RegionServers (default 1)
//       have checked in and hbase:meta answers a scan; exits 1 when SECONDS pass first.
//   java -cp CONF_DIR:CLASSPATH LocalClusterTool wait-server SECONDS PORT SINCE_MS
//       Exits 0 once the master lists a live RegionServer on PORT started at SINCE_MS or
//       later (a restarted one, not the one it replaces); exits 1 when SECONDS pass first.
//   java -cp CONF_DIR:TOOL:CLASSPATH LocalClusterTool namenode [--format]
//       Runs an HDFS NameNode in this JVM (hdfs-site.xml from CONF_DIR), formatting its name
//       directory first with --format: one JVM start instead of two on a fresh cluster.
//   java -cp CONF_DIR:TOOL:CLASSPATH LocalClusterTool hdfs-dirs 'PATH;OWNER;GROUP;MODE;ACL'...
//       Creates each HDFS directory unless it exists, then sets its owner, group, octal mode
//       (e.g. 1777) and, unless ACL is empty, adds the ACL entries (e.g.
//       user:hbase:rwx,default:user:hbase:rwx). Run as the HDFS superuser (--kerberos --hdfs).
//
// Configuration comes from the hbase-site.xml in CONF_DIR (first on the classpath). With the
// system properties presplit.kerberos.principal and presplit.kerberos.keytab (local-cluster
// --kerberos) the tool logs in as that principal from that keytab first.
// Progress and errors go to stderr, one line each; stdout stays empty.

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.UserGroupInformation;

public final class LocalClusterTool {
  private LocalClusterTool() {}

  public static void main(String[] args) {
    int rc;
    try {
      rc = run(args);
    } catch (Throwable t) {
      System.err.println("local-cluster-tool: " + oneLine(t));
      rc = 1;
    }
    // The client keeps non-daemon threads around; leave promptly either way.
    System.exit(rc);
  }

  private static int run(String[] args) throws Exception {
    kerberosLogin();
    if (args.length >= 1 && args[0].equals("namenode")) {
      if (args.length > 1 && args[1].equals("--format")) {
        NameNode.format(new HdfsConfiguration());
        // The format registered metrics sources (not yet published): forget their names, or the
        // NameNode's own registration of the same names fails.
        DefaultMetricsSystem.shutdown();
      }
      NameNode.main(new String[0]); // returns when the NameNode stops
      return 0;
    }
    if (args.length >= 2 && args[0].equals("hdfs-dirs")) {
      return hdfsDirs(java.util.Arrays.copyOfRange(args, 1, args.length));
    }
    if (args.length >= 2 && args.length <= 3 && args[0].equals("wait")) {
      long seconds = Long.parseLong(args[1]);
      int servers = args.length == 3 ? Integer.parseInt(args[2]) : 1;
      return waitReady(System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds),
          conn -> probe(conn, servers));
    }
    if (args.length == 4 && args[0].equals("wait-server")) {
      long seconds = Long.parseLong(args[1]);
      int port = Integer.parseInt(args[2]);
      long since = Long.parseLong(args[3]);
      return waitReady(System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds),
          conn -> probeServer(conn, port, since));
    }
    System.err.println("usage: LocalClusterTool wait SECONDS [SERVERS] | wait-server SECONDS PORT"
        + " SINCE_MS | namenode [--format] | hdfs-dirs 'PATH;OWNER;GROUP;MODE;ACL'...");
    return 2;
  }

  /** local-cluster --kerberos: the HBase client runs as the given principal. */
  private static void kerberosLogin() throws IOException {
    String principal = System.getProperty("presplit.kerberos.principal", "");
    if (principal.isEmpty()) {
      return;
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hadoop.security.authentication", "kerberos");
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(principal,
        System.getProperty("presplit.kerberos.keytab", ""));
  }

  /** The HDFS directories a Kerberized cluster's users need, made by the HDFS superuser. */
  private static int hdfsDirs(String[] specs) throws IOException {
    Configuration conf = new HdfsConfiguration();
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      for (String spec : specs) {
        String[] f = spec.split(";", -1);
        if (f.length != 5) {
          throw new IllegalArgumentException("expected PATH;OWNER;GROUP;MODE;ACL, got " + spec);
        }
        Path path = new Path(f[0]);
        fs.mkdirs(path);
        fs.setOwner(path, f[1], f[2]);
        fs.setPermission(path, new FsPermission(Short.parseShort(f[3], 8)));
        if (!f[4].isEmpty()) {
          fs.modifyAclEntries(path, AclEntry.parseAclSpec(f[4], true));
        }
        FileStatus st = fs.getFileStatus(path);
        System.err.println("local-cluster-tool: " + path + " " + st.getOwner() + ":" + st.getGroup()
            + " " + st.getPermission() + (f[4].isEmpty() ? "" : " " + fs.getAclStatus(path)
            .getEntries()));
      }
    }
    return 0;
  }

  /** What a wait polls: null when ready, else what is still missing. */
  private interface Probe {
    String check(Connection conn) throws IOException;
  }

  private static Configuration clientConf(long opTimeoutMs) {
    Configuration conf = HBaseConfiguration.create();
    // Fail fast inside each attempt; the loop below does the waiting.
    conf.setInt("hbase.client.retries.number", 2);
    conf.setLong("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", (int) Math.min(opTimeoutMs, 5000));
    conf.setInt("hbase.client.operation.timeout", (int) opTimeoutMs);
    conf.setInt("hbase.client.meta.operation.timeout", (int) opTimeoutMs);
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("zookeeper.recovery.retry.intervalmill", 200);
    return conf;
  }

  private static int waitReady(long deadline, Probe probe) throws InterruptedException {
    String last = "";
    Connection conn = null;
    try {
      while (true) {
        String state;
        try {
          if (conn == null || conn.isClosed()) {
            conn = ConnectionFactory.createConnection(clientConf(4000));
          }
          state = probe.check(conn);
          if (state == null) {
            return 0;
          }
        } catch (IOException | RuntimeException e) {
          state = oneLine(e);
          closeQuietly(conn);
          conn = null;
        }
        if (!state.equals(last)) {
          System.err.println("local-cluster-tool: waiting: " + state);
          last = state;
        }
        if (System.nanoTime() > deadline) {
          System.err.println("local-cluster-tool: timed out; last state: " + state);
          return 1;
        }
        Thread.sleep(250);
      }
    } finally {
      closeQuietly(conn);
    }
  }

  /** Returns null when ready, else what is still missing. */
  private static String probe(Connection conn, int servers) throws IOException {
    try (Admin admin = conn.getAdmin()) {
      ClusterMetrics metrics = admin.getClusterMetrics();
      if (metrics.getMasterName() == null) {
        return "no active master";
      }
      int live = metrics.getLiveServerMetrics().size();
      if (live == 0) {
        return "no RegionServer has checked in";
      }
      if (live < servers) {
        return live + " of " + servers + " RegionServers have checked in";
      }
      // Throws (PleaseHoldException) until the master has finished initialising.
      admin.listNamespaceDescriptors();
    }
    try (Table meta = conn.getTable(TableName.META_TABLE_NAME);
        ResultScanner scanner = meta.getScanner(new Scan().setLimit(1).setCaching(1))) {
      Result ignored = scanner.next();
    }
    return null;
  }

  /** Null once a RegionServer on PORT, started at SINCE_MS or later, is live. */
  private static String probeServer(Connection conn, int port, long since) throws IOException {
    try (Admin admin = conn.getAdmin()) {
      for (ServerName sn : admin.getClusterMetrics().getLiveServerMetrics().keySet()) {
        if (sn.getPort() == port && sn.getStartCode() >= since) {
          return null;
        }
      }
    }
    return "no RegionServer on port " + port + " started since " + since + " has checked in";
  }

  private static void closeQuietly(Connection conn) {
    if (conn != null) {
      try {
        conn.close();
      } catch (IOException | RuntimeException ignored) {
        // nothing to do
      }
    }
  }

  private static String oneLine(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String msg = t.getClass().getSimpleName() + ": " + t.getMessage();
    if (root != t) {
      msg += " (cause " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    int nl = msg.indexOf('\n');
    return nl < 0 ? msg : msg.substring(0, nl);
  }
}
