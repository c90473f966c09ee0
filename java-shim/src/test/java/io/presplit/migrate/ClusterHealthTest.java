package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The JMX answers ClusterHealth reads, and its probes' window. */
class ClusterHealthTest {

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
