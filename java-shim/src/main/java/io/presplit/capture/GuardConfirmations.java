package io.presplit.capture;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Asks every region of a table what its {@link MigrationGuard} holds, without writing anything:
 * one check-and-mutate per region, at a row of the region, carrying
 * {@link MigrationGuard#CONFIRM_ATTRIBUTE}. The guard refuses it with its state
 * ({@link GuardState}); where no guard is loaded, the request's check (a row filter no row
 * passes) fails and the put, a SKIP_WAL one, is never applied.
 *
 * <p>A region split or merged since the list was read answers through its successor, which opened
 * in the state of its RegionServer: a table's regions all answer, or a region named here says why
 * not.
 */
public final class GuardConfirmations {
  private static final byte[] QUALIFIER = Bytes.toBytes("presplit.guard.confirm");
  private static final long ROUND_PAUSE_MS = 250;

  private GuardConfirmations() {
  }

  /** One round: the state each region's guard answered, and why the others did not answer. */
  public record Round(Map<String, GuardState> states, Map<String, String> unanswered) {
    /** The regions (encoded names) whose guard is not settled, with what they said. */
    Map<String, String> notSettled() {
      Map<String, String> out = new LinkedHashMap<>(unanswered);
      states.forEach((region, state) -> {
        if (!state.settled()) {
          out.put(region, describe(state));
        }
      });
      return out;
    }
  }

  /** Each region's answer now (nothing waits). */
  public static Round ask(Connection connection, TableName table) throws IOException {
    byte[] family;
    try (var admin = connection.getAdmin()) {
      family = admin.getDescriptor(table).getColumnFamilies()[0].getName();
    }
    Map<String, GuardState> states = new LinkedHashMap<>();
    Map<String, String> unanswered = new LinkedHashMap<>();
    List<HRegionLocation> locations;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      locations = locator.getAllRegionLocations();
    }
    try (Table t = connection.getTableBuilder(table, null).setOperationTimeout(15_000)
        .setRpcTimeout(10_000).build()) {
      for (HRegionLocation location : locations) {
        RegionInfo region = location.getRegion();
        if (region.getReplicaId() != RegionInfo.DEFAULT_REPLICA_ID) {
          continue; // read replicas take no writes
        }
        // The region's first row: its start key, or the smallest row there is.
        byte[] row = region.getStartKey().length > 0 ? region.getStartKey() : new byte[] {0};
        byte[] end = region.getEndKey();
        if (end.length > 0 && Bytes.compareTo(row, end) >= 0) {
          continue; // the region ["", "\x00") holds no row a write could name
        }
        String name = region.getEncodedName();
        Put put = new Put(row).addColumn(family, QUALIFIER, HConstants.EMPTY_BYTE_ARRAY);
        put.setDurability(Durability.SKIP_WAL);
        put.setAttribute(MigrationGuard.CONFIRM_ATTRIBUTE, new byte[] {1});
        CheckAndMutate confirmation = CheckAndMutate.newBuilder(row)
            .ifMatches(new RowFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(row)))
            .build(put);
        try {
          t.checkAndMutate(confirmation);
          unanswered.put(name, "no MigrationGuard answered (not loaded in the region)");
        } catch (IOException e) {
          GuardState state = GuardState.parse(messages(e));
          if (state != null) {
            states.put(name, state);
          } else {
            unanswered.put(name, e.toString());
          }
        }
      }
    }
    return new Round(states, unanswered);
  }

  /**
   * Asks until every region's guard refuses, with nothing it let through before still under way.
   *
   * @return the last round
   * @throws StaleGuards past {@code deadline}, naming each region that is not so
   */
  public static Round awaitSettled(Connection connection, TableName table, Duration deadline)
      throws IOException {
    long until = System.nanoTime() + deadline.toNanos();
    while (true) {
      Round round = ask(connection, table);
      Map<String, String> stale = round.notSettled();
      if (stale.isEmpty()) {
        return round;
      }
      if (System.nanoTime() >= until) {
        throw new StaleGuards(table, stale);
      }
      try {
        Thread.sleep(ROUND_PAUSE_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("waiting for the MigrationGuard of " + table);
      }
    }
  }

  /** Regions whose guard did not come to the wanted state in time. */
  public static final class StaleGuards extends IOException {
    private final Map<String, String> regions;

    StaleGuards(TableName table, Map<String, String> regions) {
      super(regions.size() + " region(s) of " + table + " did not confirm that their "
          + "MigrationGuard refuses what the capture cannot carry: " + first(regions, 5));
      this.regions = Map.copyOf(regions);
    }

    /** Encoded region name -> what it answered, or why it did not. */
    public Map<String, String> regions() {
      return regions;
    }
  }

  private static String describe(GuardState s) {
    String state = s.plan() == null ? "dormant (no capture of the table runs on its RegionServer)"
        : "active";
    return state + (s.inFlight() > 0 ? ", " + s.inFlight() + " write(s) it let through still "
        + "under way" : "") + (s.note().isEmpty() ? "" : ", " + s.note());
  }

  private static String first(Map<String, String> regions, int n) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : regions.entrySet()) {
      if (out.size() == n) {
        out.add("...");
        break;
      }
      out.add(e.getKey() + ": " + e.getValue());
    }
    return String.join("; ", out);
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }
}
