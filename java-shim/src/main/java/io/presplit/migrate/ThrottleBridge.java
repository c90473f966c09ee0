package io.presplit.migrate;

import static io.presplit.migrate.BridgeConnection.connection;
import static io.presplit.migrate.BridgeSupport.tableNames;

import io.presplit.throttle.ThrottleGate;
import java.io.IOException;
import org.apache.hadoop.hbase.TableName;

/**
 * The adaptive throttle's side in the jar (daemon/migrate/throttler.h), as presplitd calls it
 * (see package-info): health samples of the RegionServers, and the rate of the shared gate.
 */
public final class ThrottleBridge {

  private ThrottleBridge() {
  }

  /**
   * One health sample of the RegionServers holding these tables ({@link ClusterHealth#sample}).
   *
   * @param tables comma-separated table names (the migration's source and target)
   * @param probes small gets per table (decimal)
   */
  public static String clusterHealth(String tables, String probes) throws IOException {
    return ClusterHealth.sample(connection(), tableNames(tables), Integer.parseInt(probes));
  }

  /**
   * Sets the rate of these tables' shared {@link ThrottleGate} (cells per second, decimal; 0 =
   * open; negative: removed, and the topology {@link #clusterHealth} cached forgotten).
   *
   * @return {@code {"taken":N}}: the cells read or written through the gate since the last call
   */
  public static String setThrottle(String tables, String cellsPerSecond) {
    TableName[] names = tableNames(tables);
    long rate = Long.parseLong(cellsPerSecond);
    long taken = ThrottleGate.set(names, rate);
    if (rate < 0) {
      ClusterHealth.forget(names);
    }
    return "{\"taken\":" + taken + "}";
  }
}
