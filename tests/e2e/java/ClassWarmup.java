/*
 * ClassWarmup: loads the classes the tests' Java programs share, so that harness.py can archive
 * them once for class data sharing (-XX:ArchiveClassesAtExit) and every later program maps them
 * instead of loading, verifying and linking them again: the HBase client with its Netty and
 * protobuf, Hadoop's configuration, ZooKeeper's client.
 *
 *   java -XX:ArchiveClassesAtExit=A.jsa -cp CLASSPATH ClassWarmup HOST:PORT
 *
 * It talks to the cluster as a plain client would: lists tables, reads hbase:meta's descriptor,
 * locations and first row, the cluster's servers, and ZooKeeper's root. A cluster that refuses it
 * (Kerberos) or does not answer in time still leaves most of those classes loaded: it exits 0
 * after at most 20 s either way, which is when the JVM writes the archive.
 */
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

public class ClassWarmup {
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: ClassWarmup HOST:PORT");
      System.exit(2);
    }
    Thread work = new Thread(() -> {
      try {
        exercise(args[0]);
      } catch (Throwable t) {
        // What was loaded before the failure is archived all the same.
        System.err.println("ClassWarmup: " + t);
      }
    });
    work.setDaemon(true);
    work.start();
    work.join(20_000);
    System.exit(0);
  }

  private static void exercise(String quorum) throws Exception {
    String[] hostPort = quorum.split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", hostPort[0]);
    conf.set("hbase.zookeeper.property.clientPort", hostPort[1]);
    conf.setInt("hbase.client.retries.number", 1);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      admin.listTableNames();
      admin.getDescriptor(TableName.META_TABLE_NAME);
      admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
      try (RegionLocator locator = connection.getRegionLocator(TableName.META_TABLE_NAME)) {
        locator.getAllRegionLocations();
      }
      try (Table meta = connection.getTable(TableName.META_TABLE_NAME);
          ResultScanner scanner = meta.getScanner(new Scan().setLimit(1))) {
        scanner.next();
      }
    }
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(quorum, 10000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
    });
    try {
      if (connected.await(10, TimeUnit.SECONDS)) zk.exists("/", false);
    } finally {
      zk.close();
    }
  }
}
