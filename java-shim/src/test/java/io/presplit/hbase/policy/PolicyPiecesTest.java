package io.presplit.hbase.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.hbase.NativeSplitPolicy;
import io.presplit.hbase.coprocessor.RegionLoadSampler;
import io.presplit.hbase.nativelib.LayoutSpec;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class PolicyPiecesTest {
  private static TableDescriptorBuilder table() {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf("t"));
  }

  @Test
  void readsTableAttributesAndWarnsAboutFamilyConfiguration() {
    TableDescriptor d = table().setValue(PolicyConfig.GROUP_LENGTH, "32")
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
            .setConfiguration(PolicyConfig.SALT_BUCKETS, "10").build())
        .build();
    PolicyConfig c = PolicyConfig.read(d, null);
    assertEquals(32, c.layout().groupLength());
    assertEquals(10, c.layout().saltBuckets());
    assertEquals("stepping", c.sizePolicy());
    assertEquals(1, c.warnings().size());
    assertTrue(c.warnings().get(0).contains("family 'f'"), c.warnings().get(0));
    assertTrue(c.errors().isEmpty());
  }

  @Test
  void malformedValuesAreErrors() {
    TableDescriptor d = table().setValue(PolicyConfig.GROUP_LENGTH, "abc")
        .setValue(PolicyConfig.LOAD_MAX_IMBALANCE, "2").setValue(PolicyConfig.LOAD_ENABLED, "yes")
        .build();
    assertEquals(3, PolicyConfig.read(d, null).errors().size());
  }

  @Test
  void policyClassLoadsWithoutTheLibrary() {
    // What the HMaster does for table sanity checks: no native call before configureForRegion.
    assertNotNull(new NativeSplitPolicy());
  }

  @Test
  void samplerCountsLikeLibpresplit() {
    RegionLoadSampler s = new RegionLoadSampler(1, 8);
    s.recordPoint(Bytes.toBytes("m"));   // becomes a candidate
    s.recordPoint(Bytes.toBytes("a"));   // left of m
    s.recordPoint(Bytes.toBytes("z"));   // right of m
    s.recordRange(Bytes.toBytes("b"), Bytes.toBytes("n"));  // spans m
    s.recordRange(Bytes.toBytes("b"), Bytes.toBytes("m"));  // end <= m: left
    s.recordRange(Bytes.toBytes("c"), new byte[0]);          // to the end: spans m
    RegionLoadSampler.Snapshot snap = s.snapshot();
    int m = java.util.Arrays.asList(snap.keys()).stream().map(Bytes::toString).toList()
        .indexOf("m");
    assertEquals(2, snap.left()[m]);
    assertEquals(1, snap.right()[m]);
    assertEquals(2, snap.contained()[m]);
    assertEquals(6, snap.requests());
    // Constant memory: never more candidates than shards x capacity.
    for (int i = 0; i < 10_000; i++) {
      s.recordPoint(Bytes.toBytes("k" + i));
    }
    assertTrue(s.snapshot().size() <= 8);
  }

  @Test
  void samplingRecordsOneRequestInN() {
    RegionLoadSampler every4 = new RegionLoadSampler(1, 4, 4);
    RegionLoadSampler all = new RegionLoadSampler(1, 4);
    for (int i = 0; i < 40_000; i++) {
      every4.recordPoint(Bytes.toBytes("k" + (i % 7)));
      all.recordPoint(Bytes.toBytes("k" + (i % 7)));
    }
    assertEquals(40_000, every4.requests());
    // A quarter of the requests, give or take a few standard deviations (~87).
    assertTrue(every4.recorded() > 9_500 && every4.recorded() < 10_500,
        "recorded " + every4.recorded());
    assertEquals(40_000, all.recorded());
  }

  @Test
  void saltBucketsFindBoundariesAndPrefixSplits() {
    SaltBuckets b = SaltBuckets.of(new LayoutSpec(4, "decimal", 2, "murmur3", "group", 4, null));
    assertEquals("01", Bytes.toString(b.boundaryInside(new byte[0], Bytes.toBytes("01m"))));
    assertNull(b.boundaryInside(Bytes.toBytes("01"), Bytes.toBytes("02")));
    assertNull(b.boundaryInside(Bytes.toBytes("03"), new byte[0]));
    assertNotNull(b.splitProblem(Bytes.toBytes("0")));
    assertNotNull(b.splitProblem(Bytes.toBytes("07")));
    assertNull(b.splitProblem(Bytes.toBytes("02")));
    assertNull(b.splitProblem(Bytes.toBytes("02abcd")));
    SaltBuckets bytes = SaltBuckets.of(new LayoutSpec(3, "byte", 0, "murmur3", "group", 4, null));
    assertEquals(2, bytes.bucketOf(new byte[] {2, 'x'}));
  }
}
