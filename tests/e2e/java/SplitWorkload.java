/*
 * SplitWorkload: drives the split-policy end-to-end tests through the official HBase client
 * only (presplit-hbase.jar is not on its classpath). Single-file program:
 *
 *   java -cp "$(hbase classpath)" SplitWorkload.java --zk HOST:PORT <command> [args]
 *
 * Commands (results on stdout, one item a line):
 *   create TABLE [--attr K=V]... [--coprocessor CLASS] [--splits K1,K2,...]
 *                                        family 'f'; keys and values in toStringBinary form
 *   add-coprocessor TABLE CLASS          modifies the table (its regions reopen)
 *   fill TABLE GROUPS ROWS VALUE_BYTES [PREFIX]
 *                                        rows PREFIX + "g%05d|" + "%06d", flushes until
 *                                        nothing is left in memory and requests a major
 *                                        compaction after; returns once
 *                                        the table compacts nothing (daughters included)
 *   check-groups TABLE GROUPS ROWS [PREFIX]
 *                                        one prefix scan per group must return ROWS rows;
 *                                        prints "ok" or exits 1 naming the first bad group
 *   gets TABLE COUNT HOT_GROUPS GROUPS HOT_PERCENT
 *                                        COUNT gets on existing rows; HOT_PERCENT of them on
 *                                        groups [0, HOT_GROUPS), the rest on [HOT_GROUPS, GROUPS)
 *   gets-for TABLE SECONDS HOT_GROUPS GROUPS HOT_PERCENT [ROWS]
 *                                        gets for SECONDS (or until killed) as gets does, on
 *                                        rows 0..ROWS-1 of each group (default 10; with
 *                                        HOT_GROUPS 1, HOT_PERCENT 100 and ROWS 1: one hot key)
 *   split TABLE                          asks HBase to split every region (the policy chooses
 *                                        the point); waits for the region count to grow
 *   split-at TABLE KEY                   split at KEY; prints "ok" or "refused: <message>"
 *   split-region TABLE KEY               asks HBase to split the region holding KEY without a
 *                                        point (the table's policy chooses it); waits for it
 *   merge TABLE I J                      merge regions I and J (0-based, by start key); prints
 *                                        "ok" or "refused: <message>"
 *   move TABLE KEY                       moves the region holding KEY to another RegionServer
 *                                        and waits until it is open there; prints that
 *                                        server's RPC port
 *   regions TABLE                        start key of every region but the first
 *   wait-regions TABLE N SECONDS         waits until the table has at least N regions
 *   balancer on|off                      switches HBase's balancer; prints its previous state
 *                                        (true or false), for the caller to restore
 */

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class SplitWorkload {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");

  public static void main(String[] args) throws Exception {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(
        org.apache.logging.log4j.Level.ERROR);
    Configuration conf = HBaseConfiguration.create();
    int i = 0;
    if (args.length > 1 && args[0].equals("--zk")) {
      String[] hp = args[1].split(":");
      conf.set("hbase.zookeeper.quorum", hp[0]);
      conf.set("hbase.zookeeper.property.clientPort", hp[1]);
      i = 2;
    }
    String cmd = args[i];
    // The commands that write or read rows ride out the splits and moves they cause or race
    // with HBase's default retries (about two minutes of backing off): five give up after about
    // two seconds, less than a split takes on a loaded HDFS. The admin commands keep five, so a
    // refusal that HBase would retry comes back fast.
    boolean rowTraffic = java.util.Set.of("fill", "check-groups", "gets", "gets-for").contains(cmd);
    conf.setInt("hbase.client.retries.number", rowTraffic ? 15 : 5);
    if (cmd.equals("balancer")) {
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        // Synchronous: a balancer run under way finishes before the switch returns.
        System.out.println(admin.balancerSwitch(args[i + 1].equals("on"), true));
      }
      return;
    }
    TableName table = TableName.valueOf(args[i + 1]);
    String[] rest = java.util.Arrays.copyOfRange(args, i + 2, args.length);
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      switch (cmd) {
        case "create": create(admin, table, rest); break;
        case "add-coprocessor": {
          TableDescriptor d = TableDescriptorBuilder.newBuilder(admin.getDescriptor(table))
              .setCoprocessor(CoprocessorDescriptorBuilder.of(rest[0])).build();
          admin.modifyTable(d);
          break;
        }
        case "fill": fill(c, admin, table, Integer.parseInt(rest[0]), Integer.parseInt(rest[1]),
            Integer.parseInt(rest[2]), rest.length > 3 ? rest[3] : ""); break;
        case "check-groups": checkGroups(c, table, Integer.parseInt(rest[0]),
            Integer.parseInt(rest[1]), rest.length > 2 ? rest[2] : ""); break;
        case "gets": gets(c, table, Integer.parseInt(rest[0]), Integer.parseInt(rest[1]),
            Integer.parseInt(rest[2]), Integer.parseInt(rest[3])); break;
        case "gets-for": getsFor(c, table, Integer.parseInt(rest[0]), Integer.parseInt(rest[1]),
            Integer.parseInt(rest[2]), Integer.parseInt(rest[3]),
            rest.length > 4 ? Integer.parseInt(rest[4]) : 10); break;
        case "split": {
          int before = admin.getRegions(table).size();
          admin.split(table);
          waitRegions(admin, table, before + 1, 120);
          break;
        }
        case "split-at": outcome(() -> admin.splitRegionAsync(
            region(admin, table, Bytes.toBytesBinary(rest[0])).getRegionName(),
            Bytes.toBytesBinary(rest[0])).get(60, TimeUnit.SECONDS)); break;
        case "split-region": {
          int before = admin.getRegions(table).size();
          admin.splitRegionAsync(region(admin, table, Bytes.toBytesBinary(rest[0])).getRegionName())
              .get(60, TimeUnit.SECONDS);
          waitRegions(admin, table, before + 1, 120);
          break;
        }
        case "merge": {
          List<RegionInfo> rs = sorted(admin, table);
          RegionInfo a = rs.get(Integer.parseInt(rest[0]));
          RegionInfo b = rs.get(Integer.parseInt(rest[1]));
          outcome(() -> admin.mergeRegionsAsync(new byte[][] {a.getRegionName(),
              b.getRegionName()}, false).get(60, TimeUnit.SECONDS));
          break;
        }
        case "move":
          System.out.println(move(c, admin, table, Bytes.toBytesBinary(rest[0]), true).getPort());
          break;
        case "churn": churn(c, admin, table, Integer.parseInt(rest[0]), Integer.parseInt(rest[1]));
          break;

        case "regions":
          for (RegionInfo r : sorted(admin, table)) {
            if (r.getStartKey().length > 0) System.out.println(Bytes.toStringBinary(r.getStartKey()));
          }
          break;
        case "wait-regions":
          waitRegions(admin, table, Integer.parseInt(rest[0]), Integer.parseInt(rest[1]));
          break;
        default: throw new IllegalArgumentException("unknown command " + cmd);
      }
    }
  }

  interface Action { void run() throws Exception; }

  static void outcome(Action a) {
    try {
      a.run();
      System.out.println("ok");
    } catch (Exception e) {
      Throwable t = e;
      StringBuilder msg = new StringBuilder();
      while (t != null) { msg.append(t.getMessage()).append(" | "); t = t.getCause(); }
      String text = msg.toString();
      int at = text.indexOf("\tat ");
      System.out.println("refused: " + (at > 0 ? text.substring(0, at) : text).replace('\n', ' '));
    }
  }

  static List<RegionInfo> sorted(Admin admin, TableName table) throws Exception {
    List<RegionInfo> rs = new ArrayList<>();
    for (RegionInfo r : admin.getRegions(table)) {
      if (r.getReplicaId() == 0 && !r.isSplitParent() && !r.isOffline()) rs.add(r);
    }
    rs.sort((x, y) -> Bytes.compareTo(x.getStartKey(), y.getStartKey()));
    return rs;
  }

  static RegionInfo region(Admin admin, TableName table, byte[] key) throws Exception {
    RegionInfo found = null;
    for (RegionInfo r : sorted(admin, table)) {
      if (Bytes.compareTo(r.getStartKey(), key) <= 0) found = r;
    }
    return found;
  }

  /**
   * Moves the region holding `key` to another live server and waits until it is open away from
   * the server it was on: on that server when `exact` (the caller asserts where it went), else on
   * any other one, since the balancer may take it on from there (a RegionServer just restarted
   * holds nothing, and the balancer fills it). Returns the server it is open on.
   */
  static ServerName move(Connection c, Admin admin, TableName table, byte[] key, boolean exact)
      throws Exception {
    RegionInfo r = region(admin, table, key);
    ServerName from;
    try (RegionLocator locator = c.getRegionLocator(table)) {
      from = locator.getRegionLocation(r.getStartKey(), true).getServerName();
    }
    ServerName to = null;
    for (ServerName s : admin.getRegionServers()) {
      if (!s.equals(from)) to = s;
    }
    if (to == null) throw new IllegalStateException("no RegionServer but " + from);
    admin.move(r.getEncodedNameAsBytes(), to);
    final ServerName target = to;
    final ServerName[] openOn = new ServerName[1];
    pollUntil(r.getEncodedName() + " open on " + (exact ? target : "a server but " + from), 60,
        () -> {
          try (RegionLocator locator = c.getRegionLocator(table)) {
            ServerName at = locator.getRegionLocation(r.getStartKey(), true).getServerName();
            if (exact ? !target.equals(at) : from.equals(at)) return "it is on " + at;
            openOn[0] = at;
            return admin.isTableAvailable(table) ? null : table + " is not available";
          } catch (java.io.IOException | RuntimeException e) {
            return "in transition: " + e;
          }
        });
    return openOn[0];
  }

  /**
   * Regions moving and splitting under a live table, as the balancer, a daughter mover and a
   * split policy would: `moves` regions (spread over the table) each moved to another server,
   * then `splits` regions (not the first) split inside their range, each waited for. Prints
   * {"moved":N,"split":N}.
   */
  static void churn(Connection c, Admin admin, TableName table, int moves, int splits)
      throws Exception {
    // Called right after a RegionServer restart: hbase:meta may still be reopening on it, and
    // the admin's five retries give up on that within two seconds.
    pollUntil("hbase:meta readable", 120, () -> {
      try {
        sorted(admin, table);
        return null;
      } catch (java.io.IOException e) {
        return e.toString();
      }
    });
    List<RegionInfo> rs = sorted(admin, table);
    int moved = 0;
    long movesDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (int i = 0; moved < moves && !rs.isEmpty(); i++) {
      RegionInfo r = rs.get((i * rs.size() / Math.max(1, moves) + i) % rs.size());
      try {
        move(c, admin, table, r.getStartKey(), false);
      } catch (java.io.IOException | IllegalStateException e) {
        // Refused (the region in transition) or not open elsewhere within the move's own wait
        // (a RegionServer restarted meanwhile, its server crash procedure still reassigning).
        if (System.nanoTime() > movesDeadline) throw e;
        System.err.println("churn: " + r.getEncodedName() + " not moved now (" + e + ")");
        settled(admin, table);
        rs = sorted(admin, table);
        continue;
      }
      moved++;
    }
    int split = 0;
    rs = sorted(admin, table);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (int i = 0; split < splits && rs.size() > 1; i++) {
      RegionInfo r = rs.get(1 + (i * 7) % (rs.size() - 1));
      // Inside the region whatever its end (a salted region ends at the next bucket's prefix),
      // between the mutator's "new-" rows and its "old-" and "ttl-" ones.
      byte[] point = Bytes.add(r.getStartKey(), Bytes.toBytes("o"));
      int before = sorted(admin, table).size();
      try {
        admin.splitRegionAsync(r.getRegionName(), point).get(60, TimeUnit.SECONDS);
      } catch (java.io.IOException | java.util.concurrent.ExecutionException
          | java.util.concurrent.TimeoutException e) {
        // The balancer (or a migration's reopen) has the region in transition: another one.
        if (System.nanoTime() > deadline) throw e;
        System.err.println("churn: " + r.getEncodedName() + " not split now (" + e + ")");
        settled(admin, table);
        rs = sorted(admin, table);
        continue;
      }
      waitRegions(admin, table, before + 1, 120);
      split++;
      rs = sorted(admin, table);
    }
    System.out.println("{\"moved\":" + moved + ",\"split\":" + split + "}");
  }

  /** Until no region of the table is in transition (the balancer's move, a reopen) is over. */
  static void settled(Admin admin, TableName table) throws Exception {
    pollUntil(table + " without a region in transition", 60, () -> {
      java.util.Set<String> moving = new java.util.HashSet<>();
      admin.getClusterMetrics(java.util.EnumSet.of(
          org.apache.hadoop.hbase.ClusterMetrics.Option.REGIONS_IN_TRANSITION))
          .getRegionStatesInTransition().forEach(t -> moving.add(t.getRegion().getEncodedName()));
      for (RegionInfo r : admin.getRegions(table)) {
        if (moving.contains(r.getEncodedName())) {
          return r.getEncodedName() + " in transition";
        }
      }
      return null;
    });
  }

  static void waitRegions(Admin admin, TableName table, int n, int seconds) throws Exception {
    pollUntil(table + " with at least " + n + " regions", seconds, () -> {
      int regions = sorted(admin, table).size();
      return regions >= n ? null : regions + " regions";
    });
  }

  /** One look of a bounded wait: null once the awaited event has happened, else what is left. */
  interface Look {
    String left() throws Exception;
  }

  // Looks until `look` finds the event, every 250 ms, and throws with what the last look found
  // when `seconds` have passed. HBase's client has no callback for the events waited for here (a
  // region open on a server, a region count, empty memstores): they can only be looked for.
  static void pollUntil(String what, int seconds, Look look) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      String left = look.left();
      if (left == null) return;
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException("waited " + seconds + " s for " + what + ": " + left);
      }
      Thread.sleep(250);
    }
  }

  static void create(Admin admin, TableName table, String[] args) throws Exception {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F));
    byte[][] splits = null;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--attr": {
          int eq = args[i + 1].indexOf('=');
          b.setValue(args[i + 1].substring(0, eq), args[i + 1].substring(eq + 1));
          break;
        }
        case "--coprocessor": b.setCoprocessor(CoprocessorDescriptorBuilder.of(args[i + 1])); break;
        case "--splits": {
          String[] ks = args[i + 1].split(",");
          splits = new byte[ks.length][];
          for (int k = 0; k < ks.length; k++) splits[k] = Bytes.toBytesBinary(ks[k]);
          break;
        }
        default: throw new IllegalArgumentException("unknown create option " + args[i]);
      }
    }
    if (splits == null) admin.createTable(b.build()); else admin.createTable(b.build(), splits);
  }

  static int rowOffset = Integer.getInteger("rowOffset", 0);

  static byte[] row(String prefix, int group, int r) {
    return Bytes.toBytes(String.format("%sg%05d|%06d", prefix, group, r));
  }

  static void fill(Connection c, Admin admin, TableName table, int groups, int rows, int valueBytes,
      String prefix) throws Exception {
    Random random = new Random(42);
    byte[] value = new byte[valueBytes];
    try (BufferedMutator m = c.getBufferedMutator(table)) {
      // Groups in a shuffled order, so the table grows everywhere at once.
      List<Integer> order = new ArrayList<>();
      for (int g = 0; g < groups; g++) order.add(g);
      java.util.Collections.shuffle(order, random);
      for (int g : order) {
        for (int r = 0; r < rows; r++) {
          random.nextBytes(value);
          m.mutate(new Put(row(prefix, g, rowOffset + r)).addColumn(F, Q, value.clone()));
        }
      }
    }
    flushAll(admin, table);
    // A flush that Admin asks for never checks whether the region should split (only the
    // RegionServer's own memstore flushes and finished compactions do), so a round whose last
    // rows reach the disk through admin.flush would leave the split decision to the next write.
    // A major compaction ends with that check, and asks the region's split policy.
    admin.majorCompact(table);
    awaitNoCompaction(admin, table);
  }

  // Until the table's memstores are empty. Admin.flush alone is not enough: a region whose own
  // memstore flush is under way (the writes above reached its flush size) skips the flush asked
  // for, and the rows written after that flush's snapshot stay in memory. On disk the region is
  // then below its split size, the major compaction below finds nothing to do, and no write is
  // left to flush them: the region never splits.
  static void flushAll(Admin admin, TableName table) throws Exception {
    pollUntil(table + "'s memstores to be flushed", 60, () -> {
      try {
        admin.flush(table);
        long bytes = 0;
        for (ServerName server : admin.getRegionServers()) {
          for (RegionMetrics m : admin.getRegionMetrics(server, table)) {
            bytes += (long) m.getMemStoreSize().get(Size.Unit.BYTE);
          }
        }
        return bytes == 0 ? null : bytes + " bytes in memory";
      } catch (java.io.IOException | RuntimeException e) {
        // A split or a move under way: look again. HBase 2.6's client can fail these calls with
        // a NullPointerException for a region going offline, as awaitNoCompaction notes.
        return "a region in transition: " + e;
      }
    });
  }

  // Until the table compacts nothing (the major compaction above, and the compactions of the
  // daughters of a split it led to: a daughter holding references to its parent's files cannot
  // split again), so the next round's writes can split the daughters. Bounded: a compaction
  // still running after 120 s is left to the caller's own deadline.
  static void awaitNoCompaction(Admin admin, TableName table) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    int quiet = 0;
    while (System.nanoTime() < deadline && quiet < 3) {
      // A split's daughters start compacting only once they are open: NONE must hold on a few
      // consecutive looks, not once.
      // A region in transition (a split parent going offline) makes HBase's client fail the
      // call (even with a NullPointerException in 2.6): that is a split under way, not quiet.
      boolean none;
      try {
        none = admin.getCompactionState(table) == CompactionState.NONE;
      } catch (java.io.IOException | RuntimeException e) {
        none = false;
      }
      quiet = none ? quiet + 1 : 0;
      Thread.sleep(250);
    }
  }

  static void checkGroups(Connection c, TableName table, int groups, int rows, String prefix)
      throws Exception {
    try (Table t = c.getTable(table)) {
      for (int g = 0; g < groups; g++) {
        byte[] p = Bytes.toBytes(String.format("%sg%05d|", prefix, g));
        int n = 0;
        try (ResultScanner s = t.getScanner(new Scan().setStartStopRowForPrefixScan(p))) {
          for (Result ignored : s) n++;
        }
        if (n != rows) {
          System.out.println("group " + Bytes.toStringBinary(p) + ": " + n + " rows, expected " + rows);
          System.exit(1);
        }
      }
    }
    System.out.println("ok");
  }

  static void gets(Connection c, TableName table, int count, int hotGroups, int groups,
      int hotPercent) throws Exception {
    Random random = new Random(7);
    try (Table t = c.getTable(table)) {
      List<Get> batch = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int g = random.nextInt(100) < hotPercent ? random.nextInt(hotGroups)
            : hotGroups + random.nextInt(groups - hotGroups);
        batch.add(new Get(row("", g, random.nextInt(10))));
        if (batch.size() == 50) { t.get(batch); batch.clear(); }
      }
      if (!batch.isEmpty()) t.get(batch);
    }
  }

  static void getsFor(Connection c, TableName table, int seconds, int hotGroups, int groups,
      int hotPercent, int rows) throws Exception {
    Random random = new Random(11);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    long done = 0;
    try (Table t = c.getTable(table)) {
      List<Get> batch = new ArrayList<>();
      while (System.nanoTime() < deadline) {
        int g = random.nextInt(100) < hotPercent || hotGroups == groups ? random.nextInt(hotGroups)
            : hotGroups + random.nextInt(groups - hotGroups);
        batch.add(new Get(row("", g, random.nextInt(rows))));
        if (batch.size() == 50) {
          t.get(batch);
          batch.clear();
          if (done == 0) {
            // When the load began, for timing the watcher against it (bench/).
            System.out.println("first-gets-ms " + System.currentTimeMillis());
            System.out.flush();
          }
          done += 50;
        }
      }
    }
    System.out.println("gets " + done);
  }
}
