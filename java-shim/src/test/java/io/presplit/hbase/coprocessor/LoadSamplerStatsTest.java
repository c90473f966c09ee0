package io.presplit.hbase.coprocessor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class LoadSamplerStatsTest {
  private static long attribute(String name) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    return ((Number) server.getAttribute(new ObjectName(LoadSamplerStats.OBJECT_NAME), name))
        .longValue();
  }

  @Test
  void sumsTheRegisteredSamplersAndForgetsAClosedRegion() throws Exception {
    LoadSamplerStats.registerOnce();
    LoadSamplerStats.registerOnce(); // idempotent
    long regions = attribute("SampledRegions");
    long requests = attribute("Requests");
    long recorded = attribute("RecordedRequests");

    RegionLoadSampler sampler = new RegionLoadSampler(2, 4, 1); // records every request
    LoadSamplerRegistry.register("stats-test-region", sampler);
    for (int i = 0; i < 8; i++) {
      sampler.recordPoint(Bytes.toBytes("row" + i));
    }
    sampler.recordRange(Bytes.toBytes("a"), Bytes.toBytes("b"));
    assertEquals(regions + 1, attribute("SampledRegions"));
    assertEquals(requests + 9, attribute("Requests"));
    assertEquals(recorded + 9, attribute("RecordedRequests"));

    LoadSamplerRegistry.unregister("stats-test-region", sampler);
    assertEquals(regions, attribute("SampledRegions"));
    assertEquals(requests, attribute("Requests"));
  }
}
