package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableSpecTest {

  private static String spec(String familyBody) {
    return "{\"table\":\"tinawang:check\",\"families\":[{\"name\":\"f\"" + familyBody + "}]}";
  }

  private static ColumnFamilyDescriptor family(String familyBody) {
    TableDescriptor td = TableSpec.parse(spec(familyBody)).descriptor();
    return td.getColumnFamily(Bytes.toBytes("f"));
  }

  private static IllegalArgumentException bad(String json) {
    return assertThrows(IllegalArgumentException.class, () -> TableSpec.parse(json));
  }

  @Test
  void referenceCase() {
    TableSpec s = TableSpec.parse("{\"table\":\"tinawang:check\",\"families\":[{\"name\":\"f\","
        + "\"compression\":\"SNAPPY\",\"data_block_encoding\":\"FAST_DIFF\","
        + "\"bloom_filter\":\"ROW\"}]}");
    assertEquals(TableName.valueOf("tinawang", "check"), s.tableName());
    TableDescriptor td = s.descriptor();
    assertEquals(TableName.valueOf("tinawang:check"), td.getTableName());
    assertEquals(1, td.getColumnFamilyCount());
    ColumnFamilyDescriptor f = td.getColumnFamily(Bytes.toBytes("f"));
    assertEquals(Compression.Algorithm.SNAPPY, f.getCompressionType());
    assertEquals(DataBlockEncoding.FAST_DIFF, f.getDataBlockEncoding());
    assertEquals(BloomType.ROW, f.getBloomFilterType());
  }

  @Test
  void defaultsAreHBaseDefaults() {
    ColumnFamilyDescriptor f = family("");
    ColumnFamilyDescriptor d = ColumnFamilyDescriptorBuilder.of("f");
    assertEquals(d.getCompressionType(), f.getCompressionType());
    assertEquals(d.getDataBlockEncoding(), f.getDataBlockEncoding());
    assertEquals(d.getBloomFilterType(), f.getBloomFilterType());
    assertEquals(d.getMaxVersions(), f.getMaxVersions());
    assertEquals(HConstants.FOREVER, f.getTimeToLive());
    assertEquals(d.getBlocksize(), f.getBlocksize());
    assertEquals(d.isInMemory(), f.isInMemory());
    assertEquals(0, ColumnFamilyDescriptor.COMPARATOR.compare(d, f));
  }

  @ParameterizedTest
  @ValueSource(strings = {"NONE", "GZ", "LZO", "SNAPPY", "LZ4", "BZIP2", "ZSTD", "LZMA"})
  void everyCompression(String name) {
    assertEquals(Compression.Algorithm.valueOf(name),
        family(",\"compression\":\"" + name + "\"").getCompressionType());
  }

  @ParameterizedTest
  @ValueSource(strings = {"NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1"})
  void everyEncoding(String name) {
    assertEquals(DataBlockEncoding.valueOf(name),
        family(",\"data_block_encoding\":\"" + name + "\"").getDataBlockEncoding());
  }

  @ParameterizedTest
  @ValueSource(strings = {"NONE", "ROW", "ROWCOL", "ROWPREFIX_FIXED_LENGTH"})
  void everyBloom(String name) {
    assertEquals(BloomType.valueOf(name),
        family(",\"bloom_filter\":\"" + name + "\"").getBloomFilterType());
  }

  @Test
  void numericAndBooleanKeys() {
    ColumnFamilyDescriptor f = family(",\"max_versions\":3,\"ttl_seconds\":86400,"
        + "\"block_size\":131072,\"in_memory\":true");
    assertEquals(3, f.getMaxVersions());
    assertEquals(86400, f.getTimeToLive());
    assertEquals(131072, f.getBlocksize());
    assertTrue(f.isInMemory());
    assertFalse(family(",\"in_memory\":false").isInMemory());
    assertEquals(Integer.MAX_VALUE, family(",\"ttl_seconds\":2147483647").getTimeToLive());
    assertEquals(2, family(",\"max_versions\":2.0").getMaxVersions());
  }

  @Test
  void describeFamilyRoundTrip() {
    ColumnFamilyDescriptor f = family(",\"compression\":\"GZ\",\"data_block_encoding\":\"DIFF\","
        + "\"bloom_filter\":\"ROWCOL\",\"max_versions\":5,\"ttl_seconds\":60,"
        + "\"block_size\":4096,\"in_memory\":true");
    Map<String, Object> m = TableSpec.describeFamily(f);
    assertEquals("[name, compression, data_block_encoding, bloom_filter, max_versions, "
        + "ttl_seconds, block_size, in_memory]", m.keySet().toString());
    assertEquals("f", m.get("name"));
    assertEquals("GZ", m.get("compression"));
    assertEquals("DIFF", m.get("data_block_encoding"));
    assertEquals("ROWCOL", m.get("bloom_filter"));
    assertEquals(5, m.get("max_versions"));
    assertEquals(60, m.get("ttl_seconds"));
    assertEquals(4096, m.get("block_size"));
    assertEquals(true, m.get("in_memory"));
  }

  @Test
  void severalFamiliesAndDefaultNamespace() {
    TableSpec s = TableSpec.parse("{\"table\":\"t1\",\"families\":[{\"name\":\"a\"},"
        + "{\"name\":\"b\",\"compression\":\"GZ\"}]}");
    assertEquals(TableName.valueOf("default", "t1"), s.tableName());
    assertEquals("default:t1", TableSpec.qualified(s.tableName()));
    assertEquals(2, s.descriptor().getColumnFamilyCount());
    assertEquals(Compression.Algorithm.GZ,
        s.descriptor().getColumnFamily(Bytes.toBytes("b")).getCompressionType());
  }

  @Test
  void attributesAreSetOnTheDescriptor() {
    TableDescriptor td = TableSpec.parse("{\"table\":\"ns:t\",\"families\":[{\"name\":\"f\"}],"
        + "\"attributes\":{\"SPLIT_POLICY\":\"io.presplit.hbase.NativeSplitPolicy\","
        + "\"presplit.layout\":\"{\\\"k\\\":1}\"}}").descriptor();
    assertEquals("io.presplit.hbase.NativeSplitPolicy", td.getValue("SPLIT_POLICY"));
    assertEquals("io.presplit.hbase.NativeSplitPolicy",
        td.getRegionSplitPolicyClassName());
    assertEquals("{\"k\":1}", td.getValue("presplit.layout"));
    Map<String, String> attrs = TableDescription.attributes(td);
    assertEquals("io.presplit.hbase.NativeSplitPolicy", attrs.get("SPLIT_POLICY"));
    assertEquals("{\"k\":1}", attrs.get("presplit.layout"));
    assertEquals(2, attrs.size());
  }

  @Test
  void hbaseManagedValuesAreNotAttributes() {
    TableDescriptor td = TableSpec.parse("{\"table\":\"ns:t\",\"families\":[{\"name\":\"f\"}],"
        + "\"attributes\":{\"hbase.store.file-tracker.impl\":\"DEFAULT\",\"A\":\"b\"}}")
        .descriptor();
    assertEquals(Map.of("A", "b"), TableDescription.attributes(td));
  }

  @Test
  void unknownCompressionNamesFamilyAndValue() {
    IllegalArgumentException e = bad(spec(",\"compression\":\"SNAPY\""));
    assertTrue(e.getMessage().contains("family 'f'"), e.getMessage());
    assertTrue(e.getMessage().contains("'SNAPY'"), e.getMessage());
    assertTrue(e.getMessage().contains("compression"), e.getMessage());
    assertTrue(e.getMessage().contains("tinawang:check"), e.getMessage());
  }

  @Test
  void enumNamesAreUpperCaseOnly() {
    IllegalArgumentException e = bad(spec(",\"compression\":\"snappy\""));
    assertTrue(e.getMessage().contains("'snappy'"), e.getMessage());
  }

  @Test
  void unknownEncodingAndBloom() {
    IllegalArgumentException e = bad(spec(",\"data_block_encoding\":\"PREFIX_TREE\""));
    assertTrue(e.getMessage().contains("family 'f'") && e.getMessage().contains("'PREFIX_TREE'")
        && e.getMessage().contains("data_block_encoding"), e.getMessage());
    e = bad(spec(",\"bloom_filter\":\"ROWPREFIX_DELIMITED\""));
    assertTrue(e.getMessage().contains("family 'f'")
        && e.getMessage().contains("'ROWPREFIX_DELIMITED'")
        && e.getMessage().contains("bloom_filter"), e.getMessage());
  }

  @Test
  void badNumbers() {
    assertTrue(bad(spec(",\"max_versions\":0")).getMessage().contains("max_versions"));
    assertTrue(bad(spec(",\"max_versions\":\"3\"")).getMessage().contains("integer"));
    assertTrue(bad(spec(",\"ttl_seconds\":2147483648")).getMessage().contains("ttl_seconds"));
    assertTrue(bad(spec(",\"ttl_seconds\":-1")).getMessage().contains("ttl_seconds"));
    assertTrue(bad(spec(",\"block_size\":1.5")).getMessage().contains("block_size"));
    assertTrue(bad(spec(",\"in_memory\":\"yes\"")).getMessage().contains("in_memory"));
    assertTrue(bad(spec(",\"in_memory\":1")).getMessage().contains("in_memory"));
  }

  @Test
  void structuralErrors() {
    assertTrue(bad("not json {").getMessage().contains("JSON"));
    assertTrue(bad("[]").getMessage().contains("object"));
    assertTrue(bad("{\"families\":[{\"name\":\"f\"}]}").getMessage().contains("'table'"));
    assertTrue(bad("{\"table\":\"t\"}").getMessage().contains("'families'"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[]}").getMessage().contains("at least one"));
    assertTrue(bad("{\"table\":\"t\",\"families\":{}}").getMessage().contains("array"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[{}]}").getMessage().contains("'name'"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[{\"name\":\"\"}]}").getMessage()
        .contains("non-empty"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[{\"name\":\"f\"},{\"name\":\"f\"}]}")
        .getMessage().contains("twice"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[{\"name\":\"f:g\"}]}").getMessage()
        .contains("family 'f:g'"));
    assertTrue(bad("{\"table\":\"t\",\"families\":[{\"name\":\"f\"}],\"extra\":1}").getMessage()
        .contains("unknown key 'extra'"));
    assertTrue(bad(spec(",\"compresion\":\"GZ\"")).getMessage()
        .contains("unknown key 'compresion'"));
  }

  @Test
  void badTableNames() {
    IllegalArgumentException e = bad("{\"table\":\"bad name\",\"families\":[{\"name\":\"f\"}]}");
    assertTrue(e.getMessage().contains("'bad name'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TableSpec.parseTableName("a:b:c"));
    assertThrows(IllegalArgumentException.class, () -> TableSpec.parseTableName(""));
    assertThrows(IllegalArgumentException.class, () -> TableSpec.parseTableName(null));
  }

  @Test
  void badAttributes() {
    assertTrue(bad("{\"table\":\"t\",\"families\":[{\"name\":\"f\"}],\"attributes\":[]}")
        .getMessage().contains("attributes"));
    IllegalArgumentException e =
        bad("{\"table\":\"t\",\"families\":[{\"name\":\"f\"}],\"attributes\":{\"K\":1}}");
    assertTrue(e.getMessage().contains("'K'") && e.getMessage().contains("string"),
        e.getMessage());
  }

  @Test
  void splitKeysSortedAndChecked() {
    TableName tn = TableName.valueOf("ns:t");
    byte[][] out = TableSpec.checkSplitKeys(tn,
        new byte[][] {Bytes.toBytes("2"), Bytes.toBytes("1"), new byte[] {0, (byte) 0xff}});
    assertArrayEquals(new byte[] {0, (byte) 0xff}, out[0]);
    assertArrayEquals(Bytes.toBytes("1"), out[1]);
    assertArrayEquals(Bytes.toBytes("2"), out[2]);
    assertEquals(0, TableSpec.checkSplitKeys(tn, null).length);
    assertEquals(0, TableSpec.checkSplitKeys(tn, new byte[0][]).length);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TableSpec.checkSplitKeys(tn,
            new byte[][] {new byte[] {1}, Bytes.toBytes("a"), new byte[] {1}}));
    assertTrue(e.getMessage().contains("'\\x01'") && e.getMessage().contains("ns:t"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> TableSpec.checkSplitKeys(tn, new byte[][] {new byte[0]}));
    assertThrows(IllegalArgumentException.class,
        () -> TableSpec.checkSplitKeys(tn, new byte[][] {null}));
  }

  @Test
  void missingJson() {
    assertEquals("{\"exists\":false,\"table\":\"tinawang:check\"}",
        TableDescription.missing(TableName.valueOf("tinawang:check")));
  }
}
