"""End-to-end: io.presplit.migrate.MigrationBridge (what presplitd's migration engine calls) and
the SDK's reading of both generations during a migration, on the real cluster.

tests/e2e/java/MigrationBridgeE2E.java does the work and checks every step (chunked copy that
resumes, per-region and per-partition digests of source, copy and target equal, every cell at its
new key read back with the plain HBase client, idempotence, throttling, a capture peer shipping
writes of every kind and a TTL tag until a probe in every region is acknowledged, a damaged row
found partition by partition and row by row, checkPresent excusing a delete and finding a removed
cell; the "hfile" engine's chunks through a staging spec, bulk-loaded over the bridge's one
connection, and again reading the source from a snapshot's files: a cell written after the
snapshot must stay out of the target). It loads libpresplit_jni from the
build directory through -Djava.library.path, as presplitd's JVM does with jvm_options.
tests/e2e/java/SdkGenerationsE2E.java checks the SDK option readBothGenerationsDuringMigration on
two real tables and a status written as presplitd writes it during the catch-up.
"""
import json
import os
import unittest
import uuid

import harness as h

PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "MigrationBridgeE2E.java")
SDK_PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SdkGenerationsE2E.java")
ROWS = 3000


def compiled(source):
    """The command running a test program with the SDK and libpresplit_jni (compiled once)."""
    return h.java_command(source, ["-Djava.library.path=" + os.path.join(h.BUILD_DIR, "jni"),
                                   *h.HBASE_CLIENT_JVM], sdk=True, short_lived=True)


class MigrationBridgeTest(unittest.TestCase):
    def test_copy_capture_verify_check(self):
        ns = "mig" + uuid.uuid4().hex[:8]
        proc = h.run([*compiled(PROGRAM), "--zk", h.ZK_QUORUM, ns, str(ROWS)], timeout=600)
        evidence = json.loads(proc.stdout.strip().splitlines()[-1])
        print("evidence:", json.dumps(evidence, sort_keys=True), flush=True)
        # The Java side checked each step; the evidence must show the steps really ran.
        self.assertEqual(evidence["regions"], 10)
        self.assertGreater(evidence["chunks"], 10)
        self.assertEqual(evidence["rows"], ROWS - (ROWS + 96) // 97)
        self.assertGreater(evidence["cells"], 2 * evidence["rows"])
        # The hfile engine copied the same rows as HFiles (checked region by region in Java).
        self.assertEqual(evidence["hfile_rows"], evidence["rows"])
        self.assertGreater(evidence["hfile_store_files"], 0)
        # Its bulk loads reuse the bridge's connection: no ZooKeeper session per chunk.
        self.assertGreaterEqual(evidence["hfile_chunks"], 8)
        self.assertLess(evidence["hfile_zk_sessions"], evidence["hfile_chunks"] // 2)
        # ... and again reading the source from a snapshot's files (checked region by region,
        # and that a cell written after the snapshot stayed out).
        self.assertEqual(evidence["snapshot_rows"], evidence["rows"])
        self.assertEqual(evidence["capture_probes"], 10, "a probe acknowledged in every region")
        self.assertGreaterEqual(evidence["missing"]["missing"], 1)
        self.assertIn("g010|row-000010", evidence["missing"]["first_missing"])

    def test_sdk_reads_both_generations_until_catch_up_is_done(self):
        ns = "gen" + uuid.uuid4().hex[:8]
        proc = h.run([*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, ns], timeout=300)
        evidence = json.loads(proc.stdout.strip().splitlines()[-1])
        # 60 rows only in the old generation, 60 copied, 60 only in the new one, one split row.
        self.assertEqual(evidence, {"rows_both": 181, "rows_active": 121})


if __name__ == "__main__":
    h.main()
