package io.presplit.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

/** The migration's shared throttle gate. */
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
}
