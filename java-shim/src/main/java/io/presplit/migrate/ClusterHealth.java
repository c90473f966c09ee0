package io.presplit.migrate;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One health sample of the RegionServers that hold a migration's tables, for the daemon's
 * adaptive throttle (daemon/migrate/throttler.h): per server the general call queue (length and
 * its p99 wait), blocked updates, the compaction queue, GC pause time (the JVM's collectors, read
 * live) and memstore size against its
 * global limit, read from the server's JMX servlet on its info port; plus the latency of a few
 * small gets against the tables (the probes, taken ten a second between samples by a
 * {@link ProbeStream}).
 *
 * <p>Which servers hold the tables, and their info ports and heaps, come from the region
 * locations and the HMaster's ClusterMetrics, refreshed every {@value #TOPOLOGY_TTL_MS} ms (not on
 * every sample: a meta scan and a master call each second would be load of their own). A server
 * whose JMX cannot be read (down, an info port behind SPNEGO or TLS the daemon has no
 * credentials for) is reported with its error and no values: no signal, not "healthy".
 *
 * <p>Counters (blocked requests, blocked time, GC time) are reported as the servers' running
 * totals: the daemon turns them into per-interval values.
 */
final class ClusterHealth {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterHealth.class);
  static final long TOPOLOGY_TTL_MS = 30_000;
  static final int HTTP_TIMEOUT_MS = 1_000;
  static final int PROBE_TIMEOUT_MS = 2_000;
  /** A server whose JMX failed is not asked again for this long (each try may cost a timeout). */
  static final long JMX_RETRY_MS = 60_000;
  static final long PROBE_PERIOD_MS = 100;
  /** At most the throttle's decrease interval (2 s): a stall seen in two samples halves once. */
  static final long PROBE_WINDOW_MS = 2_000;
  static final long PROBE_IDLE_MS = 30_000;

  static final String IPC_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=IPC";
  static final String SERVER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Server";
  /**
   * The JVM's own collectors, read live: Hadoop's JvmMetrics bean (GcTimeMillis) is a snapshot the
   * metrics system refreshes every period (10 s), so a pause showed up to 10 s late, after the
   * copy that caused it had often ended.
   */
  static final String GC_BEANS = "java.lang:type=GarbageCollector,*";

  private record Topology(long readAtMs, Map<ServerName, ServerInfo> servers,
      List<byte[]> probeRows) {}

  private record ServerInfo(int infoPort, long maxHeapBytes) {}

  private static final Map<String, Topology> TOPOLOGIES = new ConcurrentHashMap<>();

  /**
   * The probes' tables' pool (a table built without one makes a pool of its own per probe); a
   * get uses none, so one daemon thread at most.
   */
  private static final ExecutorService PROBE_POOL = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "presplit-throttle-probe");
    t.setDaemon(true);
    return t;
  });

  private record JmxFailure(long atMs, String message) {}

  private static final Map<String, JmxFailure> JMX_FAILURES = new ConcurrentHashMap<>();

  /** The probe streams, by the same key as the topologies. */
  private static final Map<String, ProbeStream> STREAMS = new ConcurrentHashMap<>();

  private ClusterHealth() {
  }

  /**
   * @param tables the migration's tables (source and target)
   * @param probes small gets per table, on the start rows of its first regions (0: none)
   * @return {@code {"servers":[{"server":"host:port", "call_queue_length":N,
   *     "queue_call_time_p99_ms":N, "blocked_requests":N, "updates_blocked_ms":N,
   *     "compaction_queue_length":N, "gc_time_ms":N, "memstore_bytes":N,
   *     "memstore_limit_bytes":N, "error":"..."}...], "probes_ms":[N...], "probe_errors":N}};
   *     a value that could not be read is missing
   */
  static String sample(Connection c, TableName[] tables, int probes) throws IOException {
    String key = String.join(",", Arrays.stream(tables).map(TableName::toString)
        .toArray(String[]::new)) + "/" + probes;
    Topology topology = TOPOLOGIES.get(key);
    long now = System.currentTimeMillis();
    if (topology == null || now - topology.readAtMs() > TOPOLOGY_TTL_MS) {
      topology = readTopology(c, tables, probes);
      TOPOLOGIES.put(key, topology);
    }
    boolean tls = c.getConfiguration().getBoolean("hbase.ssl.enabled", false);
    double memstoreFraction =
        c.getConfiguration().getDouble("hbase.regionserver.global.memstore.size", 0.4);
    JsonArray servers = new JsonArray();
    for (Map.Entry<ServerName, ServerInfo> e : topology.servers().entrySet()) {
      servers.add(serverHealth(e.getKey(), e.getValue(), tls, memstoreFraction));
    }
    JsonArray probesMs = new JsonArray();
    int probeErrors = 0;
    if (!topology.probeRows().isEmpty()) {
      ProbeStream stream = STREAMS.computeIfAbsent(key, k -> ProbeStream.start(k, c, tables));
      stream.topology = topology;
      List<double[]> taken = stream.takeWindow(now);
      if (taken.isEmpty()) { // the stream's first sample: one round now, as the stream will
        for (int i = 0; i < topology.probeRows().size(); i++) {
          taken.add(probe(c, tables[i % tables.length], topology.probeRows().get(i)));
        }
      }
      for (double[] p : taken) {
        probesMs.add(p[0]);
        probeErrors += p[1] > 0 ? 1 : 0;
      }
    }
    JsonObject out = new JsonObject();
    out.add("servers", servers);
    out.add("probes_ms", probesMs);
    out.addProperty("probe_errors", probeErrors);
    return out.toString();
  }

  /** Forgets what was read of these tables' servers (the migration's phase ended). */
  static void forget(TableName[] tables) {
    String prefix = String.join(",", Arrays.stream(tables).map(TableName::toString)
        .toArray(String[]::new)) + "/";
    TOPOLOGIES.keySet().removeIf(k -> k.startsWith(prefix));
    STREAMS.entrySet().removeIf(e -> {
      if (e.getKey().startsWith(prefix)) {
        e.getValue().stop();
        return true;
      }
      return false;
    });
  }

  /** One timed small get: {milliseconds, 1 when it failed}. */
  static double[] probe(Connection c, TableName table, byte[] row) {
    long start = System.nanoTime();
    boolean failed = false;
    try (Table t = c.getTableBuilder(table, PROBE_POOL).setOperationTimeout(PROBE_TIMEOUT_MS)
        .setRpcTimeout(PROBE_TIMEOUT_MS).build()) {
      t.get(new Get(row).setCacheBlocks(true));
    } catch (IOException ex) {
      failed = true;
    }
    return new double[] {(System.nanoTime() - start) / 1e6, failed ? 1 : 0};
  }

  /**
   * Probes taken all the time between two samples, one every {@value #PROBE_PERIOD_MS} ms over
   * the probe rows in turn: a sample reports those of its last {@value #PROBE_WINDOW_MS} ms, so
   * that its p99 rests on enough reads to see the stalls of tens of milliseconds an application
   * feels (two gets a sample rarely hit one). A stream nobody sampled for
   * {@value #PROBE_IDLE_MS} ms stops by itself, as does one forgotten.
   */
  static final class ProbeStream implements Runnable {
    private final String key;
    private final Connection connection;
    private final TableName[] tables;
    volatile Topology topology;
    private volatile long sampledAtMs = System.currentTimeMillis();
    private volatile boolean stopped;
    private final ArrayDeque<double[]> results = new ArrayDeque<>(); // {at ms, ms, failed}

    ProbeStream(String key, Connection connection, TableName[] tables) {
      this.key = key;
      this.connection = connection;
      this.tables = tables;
    }

    static ProbeStream start(String key, Connection c, TableName[] tables) {
      ProbeStream stream = new ProbeStream(key, c, tables);
      PROBE_POOL.execute(stream);
      return stream;
    }

    void stop() {
      stopped = true;
    }

    /** The probes of the last window, and the older ones dropped. */
    synchronized List<double[]> takeWindow(long nowMs) {
      sampledAtMs = nowMs;
      while (!results.isEmpty() && results.peekFirst()[0] < nowMs - PROBE_WINDOW_MS) {
        results.pollFirst();
      }
      List<double[]> out = new ArrayList<>();
      for (double[] r : results) {
        out.add(new double[] {r[1], r[2]});
      }
      return out;
    }

    synchronized void record(long atMs, double[] probe) {
      results.addLast(new double[] {atMs, probe[0], probe[1]});
      while (results.size() > 4 * PROBE_WINDOW_MS / PROBE_PERIOD_MS) {
        results.pollFirst();
      }
    }

    @Override
    public void run() {
      int next = 0;
      try {
        while (!stopped && System.currentTimeMillis() - sampledAtMs < PROBE_IDLE_MS) {
          long start = System.currentTimeMillis();
          Topology t = topology;
          if (t != null && !t.probeRows().isEmpty()) {
            int i = next++ % t.probeRows().size();
            record(start, probe(connection, tables[i % tables.length], t.probeRows().get(i)));
          }
          Thread.sleep(Math.max(1, PROBE_PERIOD_MS - (System.currentTimeMillis() - start)));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        LOG.warn("throttle probes of {} stopped: {}", key, e.toString());
      } finally {
        STREAMS.remove(key, this);
      }
    }
  }

  private static Topology readTopology(Connection c, TableName[] tables, int probes)
      throws IOException {
    Map<ServerName, ServerInfo> servers = new LinkedHashMap<>();
    List<byte[]> probeRows = new ArrayList<>();
    ClusterMetrics metrics;
    try (Admin admin = c.getAdmin()) {
      metrics = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    }
    List<List<byte[]>> startsByTable = new ArrayList<>();
    for (TableName table : tables) {
      List<byte[]> starts = new ArrayList<>();
      try (RegionLocator locator = c.getRegionLocator(table)) {
        for (HRegionLocation location : locator.getAllRegionLocations()) {
          ServerName server = location.getServerName();
          if (server != null && !servers.containsKey(server)) {
            ServerMetrics sm = metrics.getLiveServerMetrics().get(server);
            servers.put(server, new ServerInfo(sm == null ? -1 : sm.getInfoServerPort(),
                sm == null ? -1 : (long) sm.getMaxHeapSize().get(Size.Unit.BYTE)));
          }
          byte[] start = location.getRegion().getStartKey();
          starts.add(start.length == 0 ? new byte[] {0} : start);
        }
      }
      startsByTable.add(starts);
    }
    // Probes alternate between the tables (sample() reads table i % tables.length), spread over
    // their regions.
    for (int i = 0; i < probes * tables.length; i++) {
      List<byte[]> starts = startsByTable.get(i % tables.length);
      if (!starts.isEmpty()) {
        probeRows.add(starts.get((i / tables.length) * Math.max(1, starts.size() / probes)
            % starts.size()));
      } else {
        probeRows.add(new byte[] {0});
      }
    }
    return new Topology(System.currentTimeMillis(), servers, probeRows);
  }

  private static JsonObject serverHealth(ServerName server, ServerInfo info, boolean tls,
      double memstoreFraction) {
    JsonObject out = new JsonObject();
    out.addProperty("server", server.getAddress().toString());
    if (info.infoPort() <= 0) {
      out.addProperty("error", "no info port known (not a live server, or its UI is off)");
      return out;
    }
    String base = (tls ? "https://" : "http://") + server.getHostname() + ":" + info.infoPort()
        + "/jmx?qry=";
    JmxFailure failed = JMX_FAILURES.get(base);
    if (failed != null && System.currentTimeMillis() - failed.atMs() < JMX_RETRY_MS) {
      out.addProperty("error", failed.message());
      return out;
    }
    try {
      JsonObject ipc = bean(base, IPC_BEAN);
      copy(ipc, "numCallsInGeneralQueue", out, "call_queue_length");
      // Hadoop's metrics capitalize a histogram's name in JMX (HBase names it queueCallTime).
      copy(ipc, "QueueCallTime_99th_percentile", out, "queue_call_time_p99_ms");
      JsonObject rs = bean(base, SERVER_BEAN);
      copy(rs, "blockedRequestCount", out, "blocked_requests");
      copy(rs, "updatesBlockedTime", out, "updates_blocked_ms");
      copy(rs, "compactionQueueLength", out, "compaction_queue_length");
      copy(rs, "memStoreSize", out, "memstore_bytes");
      if (info.maxHeapBytes() > 0) {
        out.addProperty("memstore_limit_bytes", (long) (info.maxHeapBytes() * memstoreFraction));
      }
      Double gcMs = pauseTimeMs(beans(base, GC_BEANS));
      if (gcMs != null) {
        out.addProperty("gc_time_ms", gcMs);
      }
      JMX_FAILURES.remove(base);
    } catch (IOException | RuntimeException e) {
      String message = "JMX of " + server.getHostname() + ":" + info.infoPort() + ": "
          + e.getMessage();
      JMX_FAILURES.put(base, new JmxFailure(System.currentTimeMillis(), message));
      out.addProperty("error", message);
    }
    return out;
  }

  private static void copy(JsonObject bean, String attribute, JsonObject out, String key) {
    if (bean != null && bean.has(attribute) && bean.get(attribute).isJsonPrimitive()) {
      out.addProperty(key, bean.get(attribute).getAsDouble());
    }
  }

  /**
   * The time the collectors have paused the server so far: the CollectionTime of every collector
   * but a concurrent one (JDK 20+'s "G1 Concurrent GC" counts time the application ran beside
   * it); null when no collector was published.
   */
  static Double pauseTimeMs(JsonArray collectors) {
    double total = 0;
    boolean any = false;
    for (JsonElement e : collectors) {
      if (!e.isJsonObject()) {
        continue;
      }
      JsonObject gc = e.getAsJsonObject();
      String name = gc.has("Name") && gc.get("Name").isJsonPrimitive()
          ? gc.get("Name").getAsString() : "";
      if (name.contains("Concurrent") || !gc.has("CollectionTime")
          || !gc.get("CollectionTime").isJsonPrimitive()) {
        continue;
      }
      total += gc.get("CollectionTime").getAsDouble();
      any = true;
    }
    return any ? total : null;
  }

  /** The bean of that name from a JMX servlet, or null when the server does not publish it. */
  static JsonObject bean(String base, String name) throws IOException {
    JsonArray beans = beans(base, name);
    return beans.size() == 0 ? null : beans.get(0).getAsJsonObject();
  }

  /** Every bean a JMX servlet answers a query (a name or a pattern) with. */
  static JsonArray beans(String base, String query) throws IOException {
    HttpURLConnection http = (HttpURLConnection) new URL(base + query).openConnection();
    http.setConnectTimeout(HTTP_TIMEOUT_MS);
    http.setReadTimeout(HTTP_TIMEOUT_MS);
    try {
      int code = http.getResponseCode();
      if (code != 200) {
        throw new IOException("HTTP " + code + " for " + query);
      }
      String body;
      try (InputStream in = http.getInputStream()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      return allBeans(body);
    } finally {
      http.disconnect();
    }
  }

  /** The first bean of a JMX servlet's answer ({"beans":[{...}]}), null when there is none. */
  static JsonObject firstBean(String body) {
    JsonArray beans = allBeans(body);
    return beans.size() == 0 ? null : beans.get(0).getAsJsonObject();
  }

  /** The beans of a JMX servlet's answer ({"beans":[{...}, ...]}). */
  static JsonArray allBeans(String body) {
    JsonElement root = JsonParser.parseString(body);
    if (!root.isJsonObject() || !root.getAsJsonObject().has("beans")) {
      throw new IllegalArgumentException("not a JMX servlet answer");
    }
    return root.getAsJsonObject().getAsJsonArray("beans");
  }
}
