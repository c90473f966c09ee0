package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.capture.MigrationGuard;
import io.presplit.hbase.admin.TableSpec;
import java.util.List;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class NextGenerationTest {

  private static final String SAMPLER = "io.presplit.hbase.coprocessor.LoadSamplingObserver";
  private static final String OPERATORS = "com.example.AuditObserver";

  /** The old generation as an operator left it: settings made in the shell beside presplit's. */
  private static TableDescriptor oldGeneration() throws Exception {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf("ns:events"))
        .setValue("presplit.layout.salt.buckets", "4")
        .setValue("presplit.managed", "true")
        .setRegionSplitPolicyClassName("io.presplit.hbase.NativeSplitPolicy")
        .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(OPERATORS).setPriority(100)
            .build())
        .setCoprocessor(SAMPLER)
        .setMaxFileSize(10L << 30)
        .setDurability(Durability.FSYNC_WAL)
        .setValue("app.owner-team", "payments")
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
            .setMinVersions(2).setMaxVersions(5).setTimeToLive(86400)
            .setKeepDeletedCells(KeepDeletedCells.TTL)
            .setNewVersionBehavior(true)
            .setScope(HConstants.REPLICATION_SCOPE_GLOBAL)
            .setCompressionType(Compression.Algorithm.GZ).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("audit"))
            .setScope(HConstants.REPLICATION_SCOPE_LOCAL).build())
        .build();
  }

  /** What the document alone gives the new generation: its layout and presplit's attributes. */
  private static TableDescriptor document() {
    return TableSpec.parse("{\"table\":\"ns:events__g2\",\"families\":["
        + "{\"name\":\"f\",\"compression\":\"NONE\",\"max_versions\":1},{\"name\":\"g\"}],"
        + "\"attributes\":{\"presplit.layout.salt.buckets\":\"8\",\"presplit.managed\":\"true\","
        + "\"SPLIT_POLICY\":\"io.presplit.hbase.NativeSplitPolicy\","
        + "\"coprocessor$1\":\"|" + SAMPLER + "|1073741823|\"}}").descriptor();
  }

  @Test
  void keepsTheOldGenerationsSettingsAndTakesTheLayoutFromTheDocument() throws Exception {
    TableDescriptor next = NextGeneration.of(oldGeneration(), document(), true, "plan-1");
    assertEquals(TableName.valueOf("ns:events__g2"), next.getTableName());
    assertEquals("8", next.getValue("presplit.layout.salt.buckets"), "the document's layout");
    assertEquals(10L << 30, next.getMaxFileSize());
    assertEquals(Durability.FSYNC_WAL, next.getDurability());
    assertEquals("payments", next.getValue("app.owner-team"));
    assertTrue(next.hasCoprocessor(OPERATORS), "the operator's coprocessor stays");
    assertTrue(next.hasCoprocessor(SAMPLER));
    assertEquals(3, next.getCoprocessorDescriptors().size(),
        "presplit's coprocessor once, whatever key the document gave it, and the guard");
    assertTrue(MigrationGuard.isGuarded(next, "plan-1", true),
        "born guarded, taking the copy's bulk loads");
    assertEquals("io.presplit.hbase.NativeSplitPolicy", next.getRegionSplitPolicyClassName());

    ColumnFamilyDescriptor f = next.getColumnFamily(Bytes.toBytes("f"));
    assertEquals(2, f.getMinVersions());
    assertEquals(5, f.getMaxVersions(), "the table's, not the document's default");
    assertEquals(86400, f.getTimeToLive());
    assertEquals(KeepDeletedCells.TTL, f.getKeepDeletedCells());
    assertTrue(f.isNewVersionBehavior());
    assertEquals(HConstants.REPLICATION_SCOPE_GLOBAL, f.getScope());
    assertEquals(Compression.Algorithm.GZ, f.getCompressionType());
    assertTrue(next.hasColumnFamily(Bytes.toBytes("audit")), "a family the document lacks stays");
    assertTrue(next.hasColumnFamily(Bytes.toBytes("g")), "a family only the document has is added");
    assertEquals("", NextGeneration.whyNotMarked(next, "ns:events", "plan-1"));
  }

  @Test
  void dropsPresplitsOwnValuesTheDocumentNoLongerSets() throws Exception {
    TableDescriptor bare = TableSpec.parse(
        "{\"table\":\"ns:events__g2\",\"families\":[{\"name\":\"f\"}]}").descriptor();
    TableDescriptor next = NextGeneration.of(oldGeneration(), bare, true, "plan-1");
    assertNull(next.getValue("presplit.layout.salt.buckets"));
    assertNull(next.getValue("presplit.managed"));
    assertNull(next.getRegionSplitPolicyClassName());
    assertFalse(next.hasCoprocessor(SAMPLER));
    assertTrue(next.hasCoprocessor(OPERATORS));
  }

  @Test
  void stopClearsEveryReplicationScope() throws Exception {
    TableDescriptor next = NextGeneration.of(oldGeneration(), document(), false, "plan-1");
    assertEquals(List.of(), NextGeneration.replicatedFamilies(next));
    assertEquals(List.of("f"), NextGeneration.replicatedFamilies(oldGeneration()));
  }

  @Test
  void aGenerationOfAGenerationCarriesOnlyItsOwnMarker() throws Exception {
    TableDescriptor g2 = NextGeneration.of(oldGeneration(), document(), true, "plan-1");
    TableDescriptor g3doc = TableSpec.parse(
        "{\"table\":\"ns:events__g3\",\"families\":[{\"name\":\"f\"}]}").descriptor();
    TableDescriptor g3 = NextGeneration.of(MigrationGuard.guarded(g2, "plan-2", false), g3doc,
        true, "plan-2");
    assertEquals("", NextGeneration.whyNotMarked(g3, "ns:events__g2", "plan-2"));
    assertTrue(MigrationGuard.isGuarded(g3, "plan-2", true),
        "its own guard, not the guarded old generation's");
    assertTrue(NextGeneration.whyNotMarked(g3, "ns:events", "plan-1")
        .contains("created by presplit for the migration of ns:events__g2 (plan plan-2)"));
  }

  @Test
  void aTablePresplitDidNotCreateIsNotMarked() throws Exception {
    String why = NextGeneration.whyNotMarked(oldGeneration(), "ns:events", "plan-1");
    assertTrue(why.contains("carries no presplit migration marker"), why);
    TableDescriptor next = NextGeneration.of(oldGeneration(), document(), true, "plan-1");
    assertTrue(NextGeneration.whyNotMarked(next, "ns:other", "plan-1").contains("not of "
        + "ns:other"));
    assertTrue(NextGeneration.whyNotMarked(next, "ns:events", "plan-9").contains("plan-9"));
  }
}
