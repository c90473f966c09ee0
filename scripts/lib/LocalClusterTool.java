// Helper for scripts/local-cluster: talks to the local HBase with the official client.
//
//   java -cp CONF_DIR:CLASSPATH LocalClusterTool wait SECONDS
//       Exits 0 once the master is initialised, at least one RegionServer has checked
//       in and hbase:meta answers a scan; exits 1 when SECONDS pass first.
//
// Configuration comes from the hbase-site.xml in CONF_DIR (first on the classpath).
// Progress and errors go to stderr, one line each; stdout stays empty.

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

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
    if (args.length != 2 || !args[0].equals("wait")) {
      System.err.println("usage: LocalClusterTool wait SECONDS");
      return 2;
    }
    long seconds = Long.parseLong(args[1]);
    return waitReady(System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds));
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

  private static int waitReady(long deadline) throws InterruptedException {
    String last = "";
    Connection conn = null;
    try {
      while (true) {
        String state;
        try {
          if (conn == null || conn.isClosed()) {
            conn = ConnectionFactory.createConnection(clientConf(4000));
          }
          state = probe(conn);
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
  private static String probe(Connection conn) throws IOException {
    try (Admin admin = conn.getAdmin()) {
      ClusterMetrics metrics = admin.getClusterMetrics();
      if (metrics.getMasterName() == null) {
        return "no active master";
      }
      if (metrics.getLiveServerMetrics().isEmpty()) {
        return "no RegionServer has checked in";
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
