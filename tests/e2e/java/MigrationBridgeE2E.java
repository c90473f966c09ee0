/*
 * MigrationBridgeE2E: io.presplit.migrate.MigrationBridge on a real cluster, driven by
 * tests/e2e/test_migration_bridge.py.
 *
 *   java -Djava.library.path=JNI_DIR -cp presplit-hbase.jar:$(hbase classpath) MigrationBridgeE2E
 *       --zk QUORUM NAMESPACE ROWS
 *
 * One run, every step checked here (exit 1 with the reason on stderr when one is wrong), one JSON
 * line of evidence on stdout. A source table salted into 10 decimal buckets (java-hashcode,
 * 4-byte groups, family keeping 3 versions) gets ROWS rows with 1..3 versions per cell and some
 * deletes; it is copied to a 16-bucket target by source region in chunks, then:
 *  - the chunks resume: each next_row starts the next chunk and the region ends with null;
 *  - per region, copyChunk's digest == digestPartitions(source) == digestTargetPartitions (the
 *    partition digests too);
 *  - every source cell is read back from the target at its new key (computed by the SDK's
 *    KeyLayout, independently of libpresplit) with the same timestamp and value, and the target
 *    holds nothing else (cell counts equal);
 *  - the "hfile" engine (chunks written as HFiles under a staging spec, bulk-loaded) copies the
 *    same cells, leaves no file behind and opens no cluster connection per chunk (its loads go
 *    through the shared connection: counted as ZooKeeper sessions, one per HBase connection);
 *  - copying a region again changes no digest (idempotence);
 *  - a throttled chunk takes at least its cells / rate;
 *  - a capture peer (the re-keying replication endpoint in the RegionServer) ships what is
 *    written to the source after it exists, whatever the timestamps (a day ahead, explicit and
 *    old), deletes of every kind and a per-cell TTL with its tag; a probe in every source region
 *    is acknowledged, after which source and target digests agree and checkPresent finds
 *    nothing missing; the peer is removed;
 *  - a cell deleted in the target: its partition's digest differs, diffPartitions names its row,
 *    rowHashes differ, describeRow names the column; checkPresent excuses it while its delete
 *    marker is there, and finds it missing (with its key) once a major compaction removed it.
 */

import io.presplit.client.KeyLayout;
import io.presplit.migrate.BridgeConnection;
import io.presplit.migrate.CaptureBridge;
import io.presplit.migrate.CopyBridge;
import io.presplit.migrate.VerificationBridge;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

public final class MigrationBridgeE2E {
  static final String OLD_LAYOUT = "{\"salt\":{\"buckets\":10,\"encoding\":\"decimal\","
      + "\"hash\":\"java-hashcode\"},\"group\":{\"length\":4}}";
  static final String NEW_LAYOUT = "{\"salt\":{\"buckets\":16,\"encoding\":\"decimal\","
      + "\"hash\":\"java-hashcode\"},\"group\":{\"length\":4}}";
  static final byte[] F = Bytes.toBytes("f");

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("FAILED: " + what);
      System.exit(1);
    }
  }

  static JsonObject obj(String json) {
    return JsonParser.parseString(json).getAsJsonObject();
  }

  /**
   * The id of a fresh ZooKeeper session. ZooKeeper numbers the sessions it creates one after
   * another, so two ids tell how many sessions were opened in between; every HBase connection
   * (with the default ZooKeeper connection registry) opens one.
   */
  static long zkSessionId(String quorum) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(quorum, 30_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      check(connected.await(30, TimeUnit.SECONDS), "no ZooKeeper session within 30 s");
      return zk.getSessionId();
    } finally {
      zk.close();
    }
  }

  public static void main(String[] args) throws Exception {
    String zk = args[1];
    String ns = args[2];
    int rowCount = Integer.parseInt(args[3]);
    String[] hostPort = zk.split(":");
    String[] conf = {"hbase.zookeeper.quorum", hostPort[0],
        "hbase.zookeeper.property.clientPort", hostPort[1]};
    Configuration c = HBaseConfiguration.create();
    c.set(conf[0], conf[1]);
    c.set(conf[2], conf[3]);
    // Reads the cells' tags too (a per-cell TTL shipped by the capture).
    c.set("hbase.client.rpc.codec", "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags");
    BridgeConnection.configure(conf);
    KeyLayout oldLayout = KeyLayout.fromDocument(obj(OLD_LAYOUT));
    KeyLayout newLayout = KeyLayout.fromDocument(obj(NEW_LAYOUT));
    TableName source = TableName.valueOf(ns, "src");
    TableName target = TableName.valueOf(ns, "dst");
    JsonObject evidence = new JsonObject();
    try (Connection conn = ConnectionFactory.createConnection(c); Admin admin = conn.getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
      create(admin, source, oldLayout);
      create(admin, target, newLayout);

      // Rows with 1..3 versions per cell, then some deletes (a version, a column, a whole row).
      Random random = new Random(42);
      long baseTs = System.currentTimeMillis() - 3_600_000L;
      List<byte[]> logicalKeys = new ArrayList<>();
      try (Table t = conn.getTable(source)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < rowCount; i++) {
          byte[] logical = Bytes.toBytes(String.format("g%03d|row-%06d", i % 500, i));
          logicalKeys.add(logical);
          Put p = new Put(oldLayout.encode(logical));
          for (int q = 0; q < 2; q++) {
            int versions = 1 + random.nextInt(3);
            for (int v = 0; v < versions; v++) {
              byte[] value = new byte[8 + random.nextInt(40)];
              random.nextBytes(value);
              p.addColumn(F, Bytes.toBytes("q" + q), baseTs + i * 10L + v, value);
            }
          }
          puts.add(p);
        }
        t.put(puts);
        List<Delete> deletes = new ArrayList<>();
        for (int i = 0; i < rowCount; i += 97) {
          deletes.add(new Delete(oldLayout.encode(logicalKeys.get(i))).addColumn(F,
              Bytes.toBytes("q0"), baseTs + i * 10L));
          deletes.add(new Delete(oldLayout.encode(logicalKeys.get(i + 1)))
              .addColumns(F, Bytes.toBytes("q1")));
          deletes.add(new Delete(oldLayout.encode(logicalKeys.get(i + 2))));
        }
        t.delete(deletes);
      }

      List<byte[]> starts = new ArrayList<>();
      List<byte[]> ends = new ArrayList<>();
      for (var loc : conn.getRegionLocator(source).getAllRegionLocations()) {
        starts.add(loc.getRegion().getStartKey());
        ends.add(loc.getRegion().getEndKey());
      }
      check(starts.size() == 10, "source has " + starts.size() + " regions, expected 10");

      // Copy by region in chunks of 150 rows; every chunk resumes at the previous next_row.
      long startTs = System.currentTimeMillis();
      long copiedRows = 0;
      long copiedCells = 0;
      int chunks = 0;
      long[] regionDigest = new long[starts.size()];
      long[] regionCells = new long[starts.size()];
      long[] regionRows = new long[starts.size()];
      for (int r = 0; r < starts.size(); r++) {
        byte[] from = starts.get(r);
        while (true) {
          JsonObject chunk = obj(CopyBridge.copyChunk(source.getNameAsString(),
              target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, from, ends.get(r),
              150, 0, null));
          chunks++;
          regionRows[r] += chunk.get("rows").getAsLong();
          regionCells[r] += chunk.get("cells").getAsLong();
          regionDigest[r] += Long.parseUnsignedLong(chunk.get("digest").getAsString(), 16);
          if (chunk.get("next_row").isJsonNull()) {
            break;
          }
          check(chunk.get("rows").getAsLong() == 150, "a chunk that has a next_row copied "
              + chunk.get("rows") + " rows, not 150");
          byte[] next = Base64.getDecoder().decode(chunk.get("next_row").getAsString());
          check(Bytes.compareTo(next, from) > 0, "next_row does not advance");
          from = next;
        }
        copiedRows += regionRows[r];
        copiedCells += regionCells[r];
      }
      int deletedRows = (rowCount + 96) / 97;
      check(copiedRows == rowCount - deletedRows, "copied " + copiedRows + " rows, expected "
          + (rowCount - deletedRows));
      check(chunks > starts.size(), "only " + chunks + " chunks: the test must resume chunks");

      // Per region: the copy's digest == the source's == the target's attributed one.
      JsonArray byRegion = targetDigests(target, starts);
      check(byRegion.size() == starts.size(), "digestTargetPartitions is not aligned");
      for (int r = 0; r < starts.size(); r++) {
        JsonObject src = digest(source, OLD_LAYOUT, starts.get(r), ends.get(r));
        JsonObject dst = byRegion.get(r).getAsJsonObject();
        String copyHex = String.format("%016x", regionDigest[r]);
        check(src.get("digest").getAsString().equals(copyHex)
            && src.get("cells").getAsLong() == regionCells[r]
            && src.get("rows").getAsLong() == regionRows[r],
            "region " + r + ": source " + src + " vs copy " + regionRows[r] + "/"
                + regionCells[r] + "/" + copyHex);
        check(src.equals(dst), "region " + r + ": source " + src + " vs target " + dst);
      }

      // Independently of MigrationBridge: every source cell at its new key (KeyLayout), and the
      // target holds no other cell.
      long sourceCells = 0;
      try (Table s = conn.getTable(source); Table t = conn.getTable(target);
          ResultScanner scanner = s.getScanner(new Scan().readAllVersions())) {
        for (Result row : scanner) {
          byte[] logical = oldLayout.logicalKey(row.getRow());
          Result moved = t.get(new Get(newLayout.encode(logical)).readAllVersions());
          check(moved.rawCells().length == row.rawCells().length, "row "
              + Bytes.toStringBinary(logical) + ": " + row.rawCells().length + " cells, target "
              + moved.rawCells().length);
          for (int i = 0; i < row.rawCells().length; i++) {
            Cell a = row.rawCells()[i];
            Cell b = moved.rawCells()[i];
            check(CellUtil.matchingColumn(a, b) && a.getTimestamp() == b.getTimestamp()
                && CellUtil.matchingValue(a, b), "row " + Bytes.toStringBinary(logical)
                    + ": cell " + a + " copied as " + b);
          }
          sourceCells += row.rawCells().length;
        }
        long targetCells = 0;
        try (ResultScanner all = t.getScanner(new Scan().readAllVersions())) {
          for (Result row : all) {
            targetCells += row.rawCells().length;
          }
        }
        check(sourceCells == copiedCells && targetCells == copiedCells, "cells: source "
            + sourceCells + ", copied " + copiedCells + ", target " + targetCells);
      }

      // The "hfile" engine: the same copy written as HFiles and bulk-loaded into a second
      // target. Regions 0-4 in chunks of 150 rows; regions 5-9 in one chunk that crosses four
      // old-bucket boundaries (so the writer must start new sorted files as the old salt moves
      // on). Every source region's cells must be in the target; the staging dir is left empty.
      TableName hfileTarget = TableName.valueOf(ns, "dst_hfiles");
      create(admin, hfileTarget, newLayout);
      java.nio.file.Path staging = java.nio.file.Files.createTempDirectory("presplit-hfiles");
      // The staging spec as presplitd passes it (a bulk job's spec; the copy reads staging_dir,
      // hbase_conf_dir, hadoop_conf_dir and hbase_conf): a bare local path.
      JsonObject stagingSpec = new JsonObject();
      stagingSpec.addProperty("staging_dir", staging.toString());
      JsonObject hbaseConf = new JsonObject();
      hbaseConf.addProperty(conf[0], conf[1]);
      hbaseConf.addProperty(conf[2], conf[3]);
      stagingSpec.add("hbase_conf", hbaseConf);
      String spec = stagingSpec.toString();
      long hfileRows = 0;
      int hfileChunks = 0;
      long sessionBefore = zkSessionId(zk);
      long hfileStartNs = System.nanoTime();
      for (int r = 0; r < 5; r++) {
        byte[] from = starts.get(r);
        while (true) {
          JsonObject chunk = obj(CopyBridge.copyChunk(source.getNameAsString(),
              hfileTarget.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, from, ends.get(r),
               150, 0, spec));
          hfileChunks++;
          hfileRows += chunk.get("rows").getAsLong();
          if (chunk.get("next_row").isJsonNull()) {
            break;
          }
          from = Base64.getDecoder().decode(chunk.get("next_row").getAsString());
        }
      }
      JsonObject crossing = obj(CopyBridge.copyChunk(source.getNameAsString(),
          hfileTarget.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, starts.get(5), null,
          1_000_000, 0, spec));
      hfileChunks++;
      long hfileMsPerChunk = (System.nanoTime() - hfileStartNs) / 1_000_000 / hfileChunks;
      // Sessions opened by anyone between the two probes (nothing else runs on this cluster
      // meanwhile): a connection per bulk load would be one per chunk.
      long hfileZkSessions = zkSessionId(zk) - sessionBefore - 1;
      check(hfileZkSessions < hfileChunks / 2, "the hfile engine's " + hfileChunks
          + " chunks opened " + hfileZkSessions + " ZooKeeper sessions (a connection per load?)");
      check(crossing.get("next_row").isJsonNull(), "the crossing chunk did not finish");
      hfileRows += crossing.get("rows").getAsLong();
      check(hfileRows == copiedRows, "hfile engine copied " + hfileRows + " rows, the put path "
          + copiedRows);
      JsonArray hfileByRegion = targetDigests(hfileTarget, starts);
      for (int r = 0; r < starts.size(); r++) {
        JsonObject src = digest(source, OLD_LAYOUT, starts.get(r), ends.get(r));
        check(src.equals(hfileByRegion.get(r).getAsJsonObject()), "hfile engine, region " + r
            + ": source " + src + " vs target " + hfileByRegion.get(r));
      }
      try (var left = java.nio.file.Files.list(staging)) {
        check(left.findAny().isEmpty(), "the hfile engine left files in " + staging);
      }
      long hfileStoreFiles = 0;
      for (var region : admin.getRegions(hfileTarget)) {
        for (var metrics : admin.getRegionMetrics(
            conn.getRegionLocator(hfileTarget).getRegionLocation(region.getStartKey())
                .getServerName(), hfileTarget)) {
          if (Bytes.equals(metrics.getRegionName(), region.getRegionName())) {
            hfileStoreFiles += metrics.getStoreFileCount();
          }
        }
      }
      check(hfileStoreFiles > 0, "the hfile engine's target has no store file");
      evidence.addProperty("hfile_rows", hfileRows);
      evidence.addProperty("hfile_store_files", hfileStoreFiles);
      evidence.addProperty("hfile_chunks", hfileChunks);
      evidence.addProperty("hfile_zk_sessions", hfileZkSessions);
      evidence.addProperty("hfile_ms_per_chunk", hfileMsPerChunk);

      // The "hfile" engine reading the source from a snapshot's files ("input": "snapshot",
      // as presplitd passes it when it knows hbase.rootdir). The first chunk takes the
      // snapshot; a cell written to the source after it, with a timestamp inside the copied
      // range, must not reach the target (the chunks read the snapshot, not the live table),
      // while every source region's cells as they were when it was taken must, delete markers
      // applied. The bulk job's cleanup with the same spec removes snapshot and restore.
      String clusterDir = System.getenv("PRESPLIT_CLUSTER_DIR");
      check(clusterDir != null, "PRESPLIT_CLUSTER_DIR is not set");
      TableName snapTarget = TableName.valueOf(ns, "dst_snapshot");
      create(admin, snapTarget, newLayout);
      java.nio.file.Path snapStaging = java.nio.file.Files.createTempDirectory("presplit-snap");
      String snapshotName = "presplit_e2e_" + ns + "_src";
      JsonObject snapSpecJson = JsonParser.parseString(spec).getAsJsonObject();
      snapSpecJson.addProperty("staging_dir", snapStaging.toString());
      snapSpecJson.addProperty("hbase_conf_dir", clusterDir + "/conf");
      snapSpecJson.addProperty("input", "snapshot");
      snapSpecJson.addProperty("snapshot", snapshotName);
      snapSpecJson.addProperty("source", source.getNameAsString());
      snapSpecJson.addProperty("target", snapTarget.getNameAsString());
      snapSpecJson.add("old_layout", obj(OLD_LAYOUT));
      snapSpecJson.add("new_layout", obj(NEW_LAYOUT));
      snapSpecJson.addProperty("max_ts", startTs);
      String snapSpec = snapSpecJson.toString();
      List<JsonObject> sourceBefore = new ArrayList<>();
      for (int r = 0; r < starts.size(); r++) {
        sourceBefore.add(digest(source, OLD_LAYOUT, starts.get(r), ends.get(r)));
      }
      JsonObject firstSnapChunk = obj(CopyBridge.copyChunk(source.getNameAsString(),
          snapTarget.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, starts.get(0), ends.get(0),
           150, 0, snapSpec));
      check(!admin.listSnapshots(java.util.regex.Pattern.compile(snapshotName)).isEmpty(),
          "the first chunk took no snapshot " + snapshotName);
      byte[] lateLogical = null;
      for (int i = 0; lateLogical == null; i++) {
        byte[] candidate = Bytes.toBytes(String.format("g%03d|after-snapshot-%d", i % 500, i));
        if (Bytes.compareTo(oldLayout.encode(candidate), ends.get(0)) < 0) {
          lateLogical = candidate; // in source region 0, whose copy goes on below
        }
      }
      long lateTs = startTs - 1;
      try (Table t = conn.getTable(source)) {
        t.put(new Put(oldLayout.encode(lateLogical)).addColumn(F, Bytes.toBytes("q0"), lateTs,
            Bytes.toBytes("written after the snapshot")));
      }
      long snapRows = firstSnapChunk.get("rows").getAsLong();
      byte[] resume = Base64.getDecoder().decode(firstSnapChunk.get("next_row").getAsString());
      snapRows += obj(CopyBridge.copyChunk(source.getNameAsString(),
          snapTarget.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, resume, ends.get(0),
          1_000_000, 0, snapSpec)).get("rows").getAsLong();
      JsonObject restOfSource = obj(CopyBridge.copyChunk(source.getNameAsString(),
          snapTarget.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, starts.get(1), null,
          1_000_000, 0, snapSpec));
      check(restOfSource.get("next_row").isJsonNull(), "the snapshot copy did not finish");
      snapRows += restOfSource.get("rows").getAsLong();
      check(snapRows == copiedRows, "the snapshot copy read " + snapRows + " rows, the live "
          + "copy " + copiedRows);
      JsonArray snapByRegion = targetDigests(snapTarget, starts);
      for (int r = 0; r < starts.size(); r++) {
        check(sourceBefore.get(r).equals(snapByRegion.get(r).getAsJsonObject()),
            "snapshot copy, region " + r + ": source when the snapshot was taken "
                + sourceBefore.get(r) + " vs target " + snapByRegion.get(r));
      }
      try (Table t = conn.getTable(snapTarget)) {
        check(t.get(new Get(newLayout.encode(lateLogical))).isEmpty(),
            "a cell written to the source after the snapshot reached the target: the chunks "
                + "read the live table");
      }
      JsonObject liveRegion0 = digest(source, OLD_LAYOUT, starts.get(0), ends.get(0));
      check(liveRegion0.get("cells").getAsLong()
          == sourceBefore.get(0).get("cells").getAsLong() + 1,
          "the live source's region 0 should hold the late cell: " + liveRegion0);
      try (Table t = conn.getTable(source)) {
        t.delete(new Delete(oldLayout.encode(lateLogical)).addColumn(F, Bytes.toBytes("q0"),
            lateTs));
      }
      io.presplit.mapreduce.ResaltBulkJob.cleanup(snapSpec);
      check(admin.listSnapshots(java.util.regex.Pattern.compile(snapshotName)).isEmpty(),
          "cleanup left the snapshot " + snapshotName);
      check(!java.nio.file.Files.exists(snapStaging), "cleanup left " + snapStaging);
      evidence.addProperty("snapshot_rows", snapRows);

      // Idempotence: region 0 copied again in one chunk, the target's digest is unchanged.
      String before = digest(target, NEW_LAYOUT, null, null).toString();
      JsonObject again = obj(CopyBridge.copyChunk(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, starts.get(0), ends.get(0),
           1_000_000, 0, null));
      check(again.get("next_row").isJsonNull() && again.get("rows").getAsLong() == regionRows[0],
          "copying region 0 again: " + again);
      String after = digest(target, NEW_LAYOUT, null, null).toString();
      check(before.equals(after), "a second copy changed the target: " + before + " -> " + after);

      // Throttling: 600 cells at 2000 cells/s take at least 0.3 s (well, 0.25 s of margin).
      long t0 = System.nanoTime();
      JsonObject throttled = obj(CopyBridge.copyChunk(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, starts.get(1), ends.get(1),
           150, 2000, null));
      double seconds = (System.nanoTime() - t0) / 1e9;
      long cells = throttled.get("cells").getAsLong();
      check(seconds >= cells / 2000.0 * 0.8, "throttled chunk of " + cells + " cells took "
          + seconds + " s");

      // Change capture: the re-keying replication endpoint (in the RegionServer) ships what is
      // written to the source once its peer exists, whatever the timestamps: new rows, a cell a
      // day ahead, a put with an explicit old timestamp, a per-cell TTL (a tag), a delete of
      // the newest version only, a whole-row delete and a column delete.
      String peer = "presplit_e2e_" + ns;
      // Written before the peer, into the RegionServer's current WAL: the peer starts at the
      // beginning of that file, but the edit was flushed before the peer was added, so the peer
      // skips it (in a migration the copy, which starts after the peer, reads it).
      byte[] beforePeer = Bytes.toBytes("g007|before-the-peer");
      long beforePeerTs = System.currentTimeMillis() - 5_000;
      try (Table t = conn.getTable(source)) {
        t.put(new Put(oldLayout.encode(beforePeer)).addColumn(F, Bytes.toBytes("q0"),
            beforePeerTs, Bytes.toBytes("written before the peer")));
      }
      JsonObject ensured = obj(CaptureBridge.ensureCapture(peer, source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, target.getNameAsString()));
      check(ensured.get("added").getAsBoolean()
          && ensured.get("flushed_regions").getAsInt() == starts.size(),
          "the capture peer was not added knowing every region's flushed edits: " + ensured);
      check(!obj(CaptureBridge.ensureCapture(peer, source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, target.getNameAsString()))
          .get("added").getAsBoolean(), "a second ensure added the peer again");
      JsonObject described = obj(CaptureBridge.describeCapture(peer));
      check(described.get("exists").getAsBoolean()
          && described.get("target").getAsString().equals(target.getNameAsString())
          && described.getAsJsonArray("recovered_queues").size() == 0,
          "describeCapture: " + described);
      long day = 86_400_000L;
      try (Table t = conn.getTable(source)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          byte[] logical = Bytes.toBytes(String.format("g%03d|late-%04d", i, i));
          puts.add(new Put(oldLayout.encode(logical)).addColumn(F, Bytes.toBytes("q0"),
              Bytes.toBytes("late " + i)));
        }
        puts.add(new Put(oldLayout.encode(logicalKeys.get(3))).addColumn(F, Bytes.toBytes("q0"),
            System.currentTimeMillis() + day, Bytes.toBytes("a day ahead")));
        puts.add(new Put(oldLayout.encode(logicalKeys.get(6))).addColumn(F, Bytes.toBytes("q9"),
            1000L, Bytes.toBytes("explicit old timestamp")));
        Put ttl = new Put(oldLayout.encode(logicalKeys.get(7))).addColumn(F, Bytes.toBytes("qt"),
            Bytes.toBytes("with a TTL"));
        ttl.setTTL(3_600_000L);
        puts.add(ttl);
        t.put(puts);
        // (Table.delete(List) removes what it applied from the list: a mutable one.)
        t.delete(new ArrayList<>(List.of(new Delete(oldLayout.encode(logicalKeys.get(4))),
            new Delete(oldLayout.encode(logicalKeys.get(5))).addColumns(F, Bytes.toBytes("q1")),
            new Delete(oldLayout.encode(logicalKeys.get(8))).addColumn(F, Bytes.toBytes("q0")))));
      }
      long probeId = System.currentTimeMillis();
      JsonObject probe = obj(CaptureBridge.probe(source.getNameAsString(),
          Long.toString(probeId)));
      int probed = probe.getAsJsonArray("rows").size();
      check(probed == starts.size(), "probed " + probed + " regions of " + starts.size());
      long captureDeadline = System.currentTimeMillis() + 120_000;
      while (obj(CaptureBridge.captureAcks(target.getNameAsString(), Long.toString(probeId)))
          .getAsJsonArray("probe_acks").size() < probed) {
        check(System.currentTimeMillis() < captureDeadline, "the peer acknowledged no probe");
        Thread.sleep(100);
      }
      try (Table t = conn.getTable(target)) {
        check(t.get(new Get(newLayout.encode(beforePeer))).isEmpty(),
            "an edit flushed before the peer was added was shipped again");
        // What the copy would have written: the same cell.
        t.put(new Put(newLayout.encode(beforePeer)).addColumn(F, Bytes.toBytes("q0"),
            beforePeerTs, Bytes.toBytes("written before the peer")));
      }
      String sourceAll = digest(source, OLD_LAYOUT, null, null).toString();
      String targetAll = digest(target, NEW_LAYOUT, null, null).toString();
      check(sourceAll.equals(targetAll), "after the capture: source " + sourceAll + " target "
          + targetAll);
      try (Table t = conn.getTable(target)) {
        Cell shipped = t.get(new Get(newLayout.encode(logicalKeys.get(7)))).getColumnLatestCell(
            F, Bytes.toBytes("qt"));
        check(shipped != null && shipped.getTagsLength() > 0,
            "the TTL cell arrived without its tag: " + shipped);
        check(t.get(new Get(newLayout.encode(logicalKeys.get(4)))).isEmpty(),
            "the whole-row delete did not arrive");
      }
      JsonObject present = obj(VerificationBridge.checkPresent(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT));
      check(present.get("missing").getAsLong() == 0
          && present.get("checked").getAsLong() == obj(sourceAll).get("cells").getAsLong(),
          "checkPresent after the capture: " + present + " source " + sourceAll);
      check(obj(CaptureBridge.removeCapture(peer)).get("removed").getAsBoolean(),
          "the peer was not removed");
      check(!obj(CaptureBridge.describeCapture(peer)).get("exists").getAsBoolean(),
          "the peer is still there");

      // A cell removed from the target: excused while its delete marker is there (a writer
      // deleted it after the switch), missing once a major compaction has dropped the marker.
      byte[] victim = logicalKeys.get(10);
      try (Table t = conn.getTable(target)) {
        t.delete(new Delete(newLayout.encode(victim)).addColumns(F, Bytes.toBytes("q1")));
      }
      JsonObject excused = obj(VerificationBridge.checkPresent(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT));
      check(excused.get("missing").getAsLong() == 0, "a deleted cell is not excused: " + excused);
      String corrupted = digest(target, NEW_LAYOUT, null, null).toString();
      check(!corrupted.equals(sourceAll), "the digest did not see the deleted cell");
      // The verification's row-by-row step finds it: the differing partition, then the row.
      JsonArray damaged = targetDigests(target, starts);
      JsonArray regionsToDiff = new JsonArray();
      for (int r = 0; r < starts.size(); r++) {
        JsonArray want = digest(source, OLD_LAYOUT, starts.get(r), ends.get(r))
            .getAsJsonArray("partitions");
        JsonArray got = damaged.get(r).getAsJsonObject().getAsJsonArray("partitions");
        JsonArray differing = new JsonArray();
        for (int p = 0; p < want.size(); p++) {
          if (!want.get(p).equals(got.get(p))) {
            differing.add(p);
          }
        }
        if (differing.size() > 0) {
          JsonObject region = new JsonObject();
          region.addProperty("start", b64(starts.get(r)));
          region.addProperty("end", b64(ends.get(r)));
          region.add("partitions", differing);
          regionsToDiff.add(region);
        }
      }
      check(regionsToDiff.size() == 1, "one region differs, not " + regionsToDiff);
      JsonObject diff = obj(VerificationBridge.diffPartitions(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, startsJson(starts),
          regionsToDiff.toString(), "16", "100"));
      check(diff.get("differing").getAsLong() == 1 && Bytes.equals(Base64.getDecoder().decode(
          diff.getAsJsonArray("keys").get(0).getAsString()), victim), "diffPartitions: " + diff);
      JsonArray keys = new JsonArray();
      keys.add(b64(victim));
      String sourceHash = obj(VerificationBridge.rowHashes(source.getNameAsString(), OLD_LAYOUT,
          keys.toString())).getAsJsonArray("hashes").get(0).getAsString();
      String targetHash = obj(VerificationBridge.rowHashes(target.getNameAsString(), NEW_LAYOUT,
          keys.toString())).getAsJsonArray("hashes").get(0).getAsString();
      check(!sourceHash.equals(targetHash) && !targetHash.equals("0000000000000000"),
          "rowHashes: " + sourceHash + " vs " + targetHash);
      String text = obj(VerificationBridge.describeRow(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT, b64(victim))).get("text")
          .getAsString();
      check(text.contains(Bytes.toStringBinary(victim)) && text.contains("q1"),
          "describeRow: " + text);
      admin.flush(target);
      admin.majorCompact(target);
      long deadline = System.currentTimeMillis() + 120_000;
      while (hasDeleteMarker(conn, target, newLayout.encode(victim))) {
        check(System.currentTimeMillis() < deadline, "the major compaction kept the marker");
        Thread.sleep(200);
      }
      JsonObject missing = obj(VerificationBridge.checkPresent(source.getNameAsString(),
          target.getNameAsString(), OLD_LAYOUT, NEW_LAYOUT));
      check(missing.get("missing").getAsLong() >= 1
          && missing.get("first_missing").getAsString().contains(Bytes.toStringBinary(victim)),
          "checkPresent did not find the removed cell: " + missing);

      evidence.addProperty("regions", starts.size());
      evidence.addProperty("chunks", chunks);
      evidence.addProperty("rows", copiedRows);
      evidence.addProperty("cells", copiedCells);
      evidence.addProperty("throttled_seconds", seconds);
      evidence.addProperty("capture_probes", probed);
      evidence.add("missing", missing);
      for (TableName tn : List.of(source, target, hfileTarget, snapTarget)) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      admin.deleteNamespace(ns);
    } finally {
      BridgeConnection.closeConnection();
    }
    System.out.println(evidence);
  }

  static String b64(byte[] key) {
    return key == null ? "" : Base64.getEncoder().encodeToString(key);
  }

  static String startsJson(List<byte[]> starts) {
    JsonArray out = new JsonArray();
    for (byte[] s : starts) {
      out.add(b64(s));
    }
    return out.toString();
  }

  /** Rows, cells, digest and 16 partition digests of a table's rows [from, end). */
  static JsonObject digest(TableName table, String layout, byte[] from, byte[] end)
      throws Exception {
    return obj(VerificationBridge.digestPartitions(table.getNameAsString(), layout, b64(from),
        b64(end), "16"));
  }

  /** The target's rows attributed to the source regions (as digest() per region). */
  static JsonArray targetDigests(TableName target, List<byte[]> starts) throws Exception {
    return JsonParser.parseString(VerificationBridge.digestTargetPartitions(
        target.getNameAsString(), NEW_LAYOUT, OLD_LAYOUT, startsJson(starts), "16"))
        .getAsJsonArray();
  }

  static void create(Admin admin, TableName name, KeyLayout layout) throws Exception {
    byte[][] splits = new byte[layout.buckets() - 1][];
    for (int b = 1; b < layout.buckets(); b++) {
      splits[b - 1] = layout.saltPrefix(b);
    }
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(3).build())
        .build(), splits);
  }

  static boolean hasDeleteMarker(Connection conn, TableName table, byte[] row) throws Exception {
    try (Table t = conn.getTable(table); ResultScanner s = t.getScanner(new Scan()
        .withStartRow(row, true).withStopRow(row, true).setRaw(true).readAllVersions())) {
      for (Result r : s) {
        for (Cell cell : r.rawCells()) {
          if (CellUtil.isDelete(cell)) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
