package io.presplit.migrate;

import io.presplit.hbase.admin.AdminBridge;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * The one HBase {@link Connection} of presplitd's JVM that the migration's bridge calls share
 * (see package-info for the bridge's conventions): opened on first use from {@link #configure}'s
 * settings when called, else from the configuration of the last {@link AdminBridge#connect},
 * else from {@code hbase-site.xml} on the classpath; cells travel with their tags both ways. The
 * "hfile" engine's bulk loads go through it as well.
 */
public final class BridgeConnection {

  /** The RPC codec that carries cell tags (HBase's replication sink uses it too). */
  static final String TAGS_CODEC = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

  private static final Object CONNECTION_LOCK = new Object();

  private static volatile Connection connection;

  private static volatile Configuration explicitConfiguration;

  private BridgeConnection() {
  }

  /**
   * Sets the HBase configuration of the shared connection (alternating key, value over
   * {@code HBaseConfiguration.create()}, as {@link AdminBridge#connect}); closes a connection
   * opened with other settings, so calls running meanwhile may fail (and be retried).
   */
  public static void configure(String[] confPairs) throws IOException {
    Configuration conf = AdminBridge.configuration(confPairs);
    synchronized (CONNECTION_LOCK) {
      explicitConfiguration = conf;
      closeConnection();
    }
  }

  /**
   * Closes the shared connection, which the "hfile" engine's bulk loads use too (the next call
   * opens a new one).
   */
  public static void closeConnection() throws IOException {
    synchronized (CONNECTION_LOCK) {
      Connection c = connection;
      connection = null;
      if (c != null) {
        c.close();
      }
    }
  }

  static Connection connection() throws IOException {
    Connection c = connection;
    if (c != null && !c.isClosed()) {
      return c;
    }
    synchronized (CONNECTION_LOCK) {
      c = connection;
      if (c == null || c.isClosed()) {
        Configuration conf = explicitConfiguration;
        if (conf == null) {
          conf = AdminBridge.lastConfiguration();
        }
        if (conf == null) {
          conf = HBaseConfiguration.create();
        }
        // Cells travel with their tags (a per-cell TTL, visibility labels, ACLs) both ways: the
        // copy reads them from the source and writes them into the target.
        conf = new Configuration(conf);
        conf.set(HConstants.RPC_CODEC_CONF_KEY, TAGS_CODEC);
        c = ConnectionFactory.createConnection(conf);
        connection = c;
      }
      return c;
    }
  }
}
