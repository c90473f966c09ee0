package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

/** The migration's shared throttle gate, and the JMX answers ClusterHealth reads. */
class ThrottleGateTest {

  private static TableName[] tables(String suffix) {
    return new TableName[] {TableName.valueOf("gate_src_" + suffix),
        TableName.valueOf("gate_dst_" + suffix)};
  }

  @Test
  void countsWhatBothTablesTookAndPacesThem() throws Exception {
    TableName[] t = tables("pace");
    assertEquals(0, ThrottleGate.set(t, 1000));
    long start = System.nanoTime();
    ThrottleGate.acquire(t[0], 300);
    ThrottleGate.acquire(t[1], 300); // one gate for both: 600 cells at 1000/s from an empty bucket
    double seconds = (System.nanoTime() - start) / 1e9;
    assertTrue(seconds >= 0.5, "waited " + seconds + " s");
    assertEquals(600, ThrottleGate.set(t, 1000));
    assertEquals(0, ThrottleGate.set(t, -1));
  }

  @Test
  void anOpenOrMissingGateDoesNotWait() throws Exception {
    TableName[] t = tables("open");
    ThrottleGate.set(t, 0);
    long start = System.nanoTime();
    ThrottleGate.acquire(t[0], 1_000_000_000L);
    ThrottleGate.acquire(TableName.valueOf("gate_none"), 1_000_000_000L);
    assertTrue(System.nanoTime() - start < 1_000_000_000L);
    assertEquals(1_000_000_000L, ThrottleGate.set(t, -1));
  }

  @Test
  void aRaisedRateReleasesAWaitingReader() throws Exception {
    TableName[] t = tables("raise");
    ThrottleGate.set(t, 1); // a debt of 100 s
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try {
        ThrottleGate.acquire(t[0], 100);
      } catch (Throwable e) {
        failed.set(e);
      }
    });
    reader.start();
    Thread.sleep(100);
    ThrottleGate.set(t, -1); // removed: opened first
    reader.join(10_000);
    assertTrue(!reader.isAlive(), "the reader still waits");
    assertNull(failed.get());
    ThrottleGate.set(t, -1);
  }

  @Test
  void anInterruptEndsTheWait() throws Exception {
    TableName[] t = tables("interrupt");
    ThrottleGate.set(t, 1);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try {
        ThrottleGate.acquire(t[0], 1000);
      } catch (Throwable e) {
        failed.set(e);
      }
    });
    reader.start();
    reader.interrupt();
    reader.join(10_000);
    assertTrue(failed.get() instanceof InterruptedIOException, String.valueOf(failed.get()));
    ThrottleGate.set(t, -1);
  }

  @Test
  void readsTheFirstBeanOfAJmxAnswer() {
    String body = "{\"beans\":[{\"name\":\"" + ClusterHealth.IPC_BEAN + "\","
        + "\"numCallsInGeneralQueue\":37,\"QueueCallTime_99th_percentile\":85.0}]}";
    assertEquals(37, ClusterHealth.firstBean(body).get("numCallsInGeneralQueue").getAsInt());
    assertNull(ClusterHealth.firstBean("{\"beans\":[]}"));
    assertThrows(IllegalArgumentException.class, () -> ClusterHealth.firstBean("[1]"));
  }

  /** GC pauses come from the JVM's collectors: young and old summed, a concurrent one left out. */
  @Test
  void sumsTheCollectorsPausesButNotAConcurrentCollectorsTime() {
    String body = "{\"beans\":["
        + "{\"name\":\"java.lang:type=GarbageCollector,name=G1 Young Generation\","
        + "\"Name\":\"G1 Young Generation\",\"CollectionTime\":1200},"
        + "{\"name\":\"java.lang:type=GarbageCollector,name=G1 Old Generation\","
        + "\"Name\":\"G1 Old Generation\",\"CollectionTime\":300},"
        + "{\"name\":\"java.lang:type=GarbageCollector,name=G1 Concurrent GC\","
        + "\"Name\":\"G1 Concurrent GC\",\"CollectionTime\":9000}]}";
    assertEquals(1500.0, ClusterHealth.pauseTimeMs(ClusterHealth.allBeans(body)));
    assertNull(ClusterHealth.pauseTimeMs(ClusterHealth.allBeans("{\"beans\":[]}")));
    assertNull(ClusterHealth.pauseTimeMs(ClusterHealth.allBeans(
        "{\"beans\":[{\"Name\":\"G1 Young Generation\"}]}")));
  }

  /** A sample reports the probes of the last window only, the older ones dropped. */
  @Test
  void aSampleTakesTheProbesOfItsWindow() {
    ClusterHealth.ProbeStream stream = new ClusterHealth.ProbeStream("t", null, null);
    long w = ClusterHealth.PROBE_WINDOW_MS;
    stream.record(10_000, new double[] {1.5, 0});
    stream.record(10_000 + w / 2, new double[] {40.0, 1});
    stream.record(10_000 + w, new double[] {2.5, 0});
    List<double[]> taken = stream.takeWindow(10_000 + w + w / 4);
    assertEquals(2, taken.size(), "the first probe is older than the window");
    assertEquals(40.0, taken.get(0)[0]);
    assertEquals(1.0, taken.get(0)[1], "a failed probe says so");
    assertEquals(2.5, taken.get(1)[0]);
    assertTrue(stream.takeWindow(10_000 + 3 * w).isEmpty());
  }
}
