/*
 * CaptureCost: what a re-salting migration's change capture adds to a RegionServer per write,
 * for bench/migrate/capture_bench.py. The same writes (N puts of one 100-byte cell, through a
 * BufferedMutator) into a salted table twice: without a capture peer, then with one (presplit's
 * re-keying replication endpoint shipping every write into a second table, re-salted), each run
 * measured until the writes are durable and, with the peer, shipped (a probe in every region
 * acknowledged). The RegionServer's CPU time comes from /proc/PID/stat (utime + stime).
 *
 *   java -Djava.library.path=<build>/jni -cp classes:presplit-hbase.jar:$(hbase classpath) \
 *       CaptureCost --zk HOST:PORT --rs-pid PID [--writes N] [--rounds R]
 *
 * Prints one JSON line: per round and mode, writes, seconds and RegionServer CPU seconds, and the
 * medians' difference per write in microseconds.
 */
import io.presplit.client.KeyLayout;
import io.presplit.migrate.BridgeConnection;
import io.presplit.migrate.CaptureBridge;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

public final class CaptureCost {
  static final byte[] F = Bytes.toBytes("f");
  static final String OLD = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\",\"from\":\"key\"}}";
  static final String NEW = "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\",\"from\":\"key\"}}";

  public static void main(String[] args) throws Exception {
    String zk = null;
    long pid = 0;
    int writes = 200_000;
    int rounds = 3;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--zk" -> zk = args[i + 1];
        case "--rs-pid" -> pid = Long.parseLong(args[i + 1]);
        case "--writes" -> writes = Integer.parseInt(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    String[] hp = zk.split(":");
    String[] pairs = {"hbase.zookeeper.quorum", hp[0], "hbase.zookeeper.property.clientPort",
        hp[1]};
    BridgeConnection.configure(pairs);
    Configuration conf = HBaseConfiguration.create();
    conf.set(pairs[0], pairs[1]);
    conf.set(pairs[2], pairs[3]);
    KeyLayout oldLayout = KeyLayout.fromDocument(JsonParser.parseString(OLD).getAsJsonObject());
    KeyLayout newLayout = KeyLayout.fromDocument(JsonParser.parseString(NEW).getAsJsonObject());
    String ns = "capcost";
    TableName source = TableName.valueOf(ns, "src");
    TableName target = TableName.valueOf(ns, "dst");
    JsonObject out = new JsonObject();
    List<Double> plainPerWrite = new ArrayList<>();
    List<Double> capturedPerWrite = new ArrayList<>();
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
      create(admin, source, oldLayout);
      create(admin, target, newLayout);
      String peer = "presplit_capture_cost";
      int offset = 0;
      // Alternating rounds: plain, captured, plain, captured, ...
      for (int round = 0; round < rounds; round++) {
        for (boolean captured : new boolean[] {false, true}) {
          if (captured) {
            CaptureBridge.ensureCapture(peer, source.getNameAsString(),
                target.getNameAsString(), OLD, NEW, target.getNameAsString());
            // The peer starts by shipping what the WAL holds already: wait until it caught up
            // before the measured writes begin.
            shipped(source, target);
          }
          double cpu0 = cpuSeconds(pid);
          long t0 = System.nanoTime();
          try (BufferedMutator m = c.getBufferedMutator(
              new BufferedMutatorParams(source).writeBufferSize(2L << 20))) {
            byte[] value = new byte[100];
            for (int i = 0; i < writes; i++) {
              Arrays.fill(value, (byte) i);
              m.mutate(new Put(oldLayout.encode(Bytes.toBytes(String.format("row-%010d",
                  offset + i)))).addColumn(F, Bytes.toBytes("q"), value));
            }
          }
          if (captured) {
            shipped(source, target);
          }
          double seconds = (System.nanoTime() - t0) / 1e9;
          double cpu = cpuSeconds(pid) - cpu0;
          offset += writes;
          if (captured) {
            CaptureBridge.removeCapture(peer);
            capturedPerWrite.add(cpu / writes * 1e6);
          } else {
            plainPerWrite.add(cpu / writes * 1e6);
          }
          System.err.printf("round %d %s: %d writes in %.1f s, RegionServer %.2f CPU-s "
              + "(%.1f us a write)%n", round, captured ? "captured" : "plain", writes, seconds,
              cpu, cpu / writes * 1e6);
        }
      }
      for (TableName t : List.of(source, target)) {
        admin.disableTable(t);
        admin.deleteTable(t);
      }
      admin.deleteNamespace(ns);
    } finally {
      BridgeConnection.closeConnection();
    }
    double plain = median(plainPerWrite);
    double captured = median(capturedPerWrite);
    out.addProperty("writes_per_round", writes);
    out.addProperty("rounds", rounds);
    out.addProperty("plain_rs_us_per_write", Math.round(plain * 10) / 10.0);
    out.addProperty("captured_rs_us_per_write", Math.round(captured * 10) / 10.0);
    out.addProperty("capture_adds_rs_us_per_write", Math.round((captured - plain) * 10) / 10.0);
    System.out.println(out);
  }

  /** Waits until a probe in every source region is acknowledged in the target. */
  static void shipped(TableName source, TableName target) throws Exception {
    long id = System.currentTimeMillis();
    int probed = JsonParser.parseString(CaptureBridge.probe(source.getNameAsString(),
        Long.toString(id))).getAsJsonObject().getAsJsonArray("rows").size();
    long deadline = System.currentTimeMillis() + 600_000;
    while (JsonParser.parseString(CaptureBridge.captureAcks(target.getNameAsString(),
        Long.toString(id))).getAsJsonObject().getAsJsonArray("probe_rows").size() < probed) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("the capture peer shipped nothing in 10 minutes");
      }
      Thread.sleep(20);
    }
  }

  static double cpuSeconds(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime (ticks)
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  static void create(Admin admin, TableName name, KeyLayout layout) throws Exception {
    byte[][] splits = new byte[layout.buckets() - 1][];
    for (int b = 1; b < layout.buckets(); b++) {
      splits[b - 1] = layout.saltPrefix(b);
    }
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).build()).build(), splits);
  }
}
