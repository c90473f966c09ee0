package io.presplit.hbase.coprocessor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class RegionLoadSamplerDecayTest {

  /** The counts every candidate holds, summed: left + right + contained. */
  private static long total(RegionLoadSampler.Snapshot s) {
    long sum = 0;
    for (int i = 0; i < s.size(); i++) {
      sum += s.left()[i] + s.right()[i] + s.contained()[i];
    }
    return sum;
  }

  // Requests on the empty row count left of every candidate and never become candidates
  // themselves, so the reservoir keeps its one candidate and the counts are exact.
  private static final byte[] EMPTY = new byte[0];

  @Test
  void countsHalveEveryHalfLife() {
    AtomicLong now = new AtomicLong(1_000_000L);
    RegionLoadSampler sampler = new RegionLoadSampler(1, 1, 1, 60_000L, now::get);
    sampler.recordPoint(Bytes.toBytes("m"));  // the one candidate
    for (int i = 0; i < 1000; i++) {
      sampler.recordPoint(EMPTY);
    }
    long before = total(sampler.snapshot());
    assertEquals(1000, before, "1000 requests after the candidate, none decayed yet");
    now.addAndGet(60_000L);
    assertEquals(500, total(sampler.snapshot()), "one half-life later");
    now.addAndGet(120_000L);
    assertEquals(125, total(sampler.snapshot()), "two more");
  }

  @Test
  void oldLoadIsForgottenAndNewKeysComeIn() {
    AtomicLong now = new AtomicLong(0L);
    RegionLoadSampler sampler = new RegionLoadSampler(1, 1, 1, 60_000L, now::get);
    sampler.recordPoint(Bytes.toBytes("m"));
    // An hour ago everything went left of "m"...
    for (int i = 0; i < 10_000; i++) {
      sampler.recordPoint(EMPTY);
    }
    now.addAndGet(3_600_000L);
    // ...now requests go to "z": the old counts are gone, and with the reservoir's draw count
    // decayed too, "z" takes the candidate's place at once instead of one chance in 10,000.
    for (int i = 0; i < 1_000; i++) {
      sampler.recordPoint(Bytes.toBytes("z"));
    }
    RegionLoadSampler.Snapshot s = sampler.snapshot();
    assertEquals(1, s.size());
    assertEquals("z", Bytes.toString(s.keys()[0]));
    assertEquals(0, s.left()[0]);
    assertTrue(s.right()[0] > 500, "right of z: " + s.right()[0]);
  }

  @Test
  void aZeroHalfLifeKeepsEverything() {
    AtomicLong now = new AtomicLong(0L);
    RegionLoadSampler sampler = new RegionLoadSampler(1, 1, 1, 0L, now::get);
    sampler.recordPoint(Bytes.toBytes("m"));
    for (int i = 0; i < 100; i++) {
      sampler.recordPoint(EMPTY);
    }
    now.addAndGet(365L * 24 * 3_600_000L);
    assertEquals(100, total(sampler.snapshot()));
  }
}
