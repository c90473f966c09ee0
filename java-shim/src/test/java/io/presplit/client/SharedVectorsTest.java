package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java salting against the shared vectors of {@code tests/vectors/} (the files
 * libpresplit's hash_test and layout_test read): every hash evaluation of hashes.tsv and every
 * case of every layout of layouts.json, byte for byte.
 */
class SharedVectorsTest {

  /** tests/vectors, from the project root (java-shim's parent, Maven's basedir). */
  static Path vectorsDir() {
    String explicit = System.getProperty("presplit.vectors.dir");
    if (explicit != null) {
      return Paths.get(explicit);
    }
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    Path dir = Paths.get(basedir).toAbsolutePath().getParent().resolve("tests").resolve("vectors");
    assertTrue(Files.isDirectory(dir), "shared vectors not found at " + dir);
    return dir;
  }

  @Test
  void hashesMatchEveryVector() throws IOException {
    List<String> lines = Files.readAllLines(vectorsDir().resolve("hashes.tsv"),
        StandardCharsets.UTF_8);
    int checked = 0;
    for (String line : lines) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\t", -1);
      assertEquals(4, f.length, line);
      byte[] key = Bytes.toBytesBinary(f[1]);
      String where = line;
      switch (f[0]) {
        case "murmur3_32": {
          int seed = (int) Long.parseLong(f[2]);
          long expected = Long.parseLong(f[3]);
          assertEquals(expected,
              Integer.toUnsignedLong(SaltHashes.murmur3_32(key, 0, key.length, seed)), where);
          break;
        }
        case "java_string_hashcode": {
          long h = SaltHashes.javaStringHashCode(key, 0, key.length);
          if (f[3].equals("error")) {
            assertEquals(Long.MIN_VALUE, h, where);
          } else {
            assertEquals(Long.parseLong(f[3]), h, where);
          }
          break;
        }
        case "md5":
          // Not a salt hash; the adoption helper's MD5 is the JDK's (checked in KeyLayoutTest).
          assertEquals(f[3], Md5Keys.md5Hex(key), where);
          break;
        case "phoenix":
        case "murmur3":
        case "java-hashcode": {
          SaltHash hash = SaltHash.parse(f[0]);
          int buckets = Integer.parseInt(f[2]);
          int bucket = SaltHashes.bucket(hash, key, 0, key.length, buckets);
          if (f[3].equals("error")) {
            assertEquals(SaltHashes.NO_BUCKET, bucket, where);
          } else {
            assertEquals(Integer.parseInt(f[3]), bucket, where);
          }
          break;
        }
        default:
          throw new AssertionError("unknown function in hashes.tsv: " + line);
      }
      checked++;
    }
    assertTrue(checked > 3000, "only " + checked + " hash vectors");
  }

  @Test
  void layoutsMatchEveryVector() throws IOException {
    String text = Files.readString(vectorsDir().resolve("layouts.json"), StandardCharsets.UTF_8);
    JsonObject root = JsonParser.parseString(text).getAsJsonObject();
    assertEquals(0, root.get("murmur3_seed").getAsInt());
    int layouts = 0;
    int cases = 0;
    for (JsonElement le : root.getAsJsonArray("layouts")) {
      JsonObject l = le.getAsJsonObject();
      String name = l.get("name").getAsString();
      KeyLayout layout = KeyLayout.fromDocument(l.getAsJsonObject("layout"));
      JsonObject salt = l.getAsJsonObject("layout").getAsJsonObject("salt");
      assertEquals(salt.get("width").getAsInt(), layout.saltWidth(), name);
      for (JsonElement ce : l.getAsJsonArray("cases")) {
        JsonObject c = ce.getAsJsonObject();
        byte[] key = Bytes.toBytesBinary(c.get("key").getAsString());
        String where = name + " key '" + c.get("key").getAsString() + "'";
        if (c.has("error") && c.get("error").getAsBoolean()) {
          assertThrows(KeyLayoutException.class, () -> layout.bucketOf(key), where);
          assertThrows(KeyLayoutException.class, () -> layout.encode(key), where);
        } else {
          int bucket = c.get("bucket").getAsInt();
          byte[] row = Bytes.toBytesBinary(c.get("row_key").getAsString());
          assertEquals(bucket, layout.bucketOf(key), where);
          assertArrayEquals(row, layout.encode(key), where);
          assertArrayEquals(layout.saltPrefix(bucket), java.util.Arrays.copyOf(row,
              layout.saltWidth()), where);
          KeyLayout.Decoded d = layout.decode(row);
          assertEquals(bucket, d.bucket, where);
          byte[] back = new byte[d.group.length
              + (layout.groupDelimiter() == null ? 0 : layout.groupDelimiter().length)
              + d.rest.length];
          System.arraycopy(d.group, 0, back, 0, d.group.length);
          if (layout.groupDelimiter() != null) {
            System.arraycopy(layout.groupDelimiter(), 0, back, d.group.length,
                layout.groupDelimiter().length);
          }
          System.arraycopy(d.rest, 0, back, back.length - d.rest.length, d.rest.length);
          assertArrayEquals(key, back, where);
          assertArrayEquals(key, layout.logicalKey(row), where);
          if (!layout.saltFromKey()) {
            byte[] prefix = layout.groupScanPrefix(d.group);
            assertTrue(Bytes.startsWith(row, prefix), where);
          }
        }
        cases++;
      }
      layouts++;
    }
    assertTrue(layouts >= 20, "only " + layouts + " layouts");
    assertTrue(cases >= 1000, "only " + cases + " cases");
  }
}
