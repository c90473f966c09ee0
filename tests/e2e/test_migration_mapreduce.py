"""End-to-end: presplitd re-salts a live table (10 -> 16 buckets) with the "mapreduce" engine.

The leader submits io.presplit.mapreduce.ResaltBulkJob (a snapshot of the source, re-keying
mappers, HFiles per target region, bulk load) on Hadoop's local job runner inside its own JVM,
while an SDK writer keeps inserting. The daemon is SIGKILLed while the job runs (the job dies
with its JVM); the restarted daemon finds the job id unknown, submits the job again, loads its
output once, verifies (the capture peer carried what arrived meanwhile), switches and retires the old
generation. Afterwards every row written before, during and after is read back once at its new
key with the same cells and timestamps (tests/e2e/java/MigrationE2E.java, plain HBase client).

ROWS (200,000 by default, as the put path's test_migration.py) rows with 3 versions each; the
job's own corner cases (a second load, the TableInputFormat path, bad specs) are in
test_mapreduce.py on a smaller table.
"""
import os
import signal
import subprocess
import tempfile
import time
import unittest
import uuid

import harness as h
from test_migration import (VERSIONS, document, helper, java_program, migration_phase,
                            migration_status, put_doc, stop_writer_and_verify)

ROWS = int(os.environ.get("PRESPLIT_E2E_MAPREDUCE_MIGRATION_ROWS", "200000"))
CLUSTER_DIR = os.environ["PRESPLIT_CLUSTER_DIR"]


def bulk_of(root, table):
    return (migration_status(root, table) or {}).get("bulk") or {}


class MapReduceEngineTest(unittest.TestCase):
    def daemon(self, root, port, staging):
        d = h.Daemon(root, port, settings={
            "migration_interval_s": 1,
            # hbase-site.xml names hbase.rootdir: the job reads a snapshot of the source.
            "hbase_conf_dir": os.path.join(CLUSTER_DIR, "conf"),
            "migration_staging_dir": staging,
            "jvm_options": "-Djava.library.path=" + os.path.join(h.BUILD_DIR, "jni"),
            # the local job runner's map and reduce tasks run in the daemon's JVM
            "jvm_max_heap": "768m"})
        self.addCleanup(lambda: d.alive() and d.stop())
        return d

    def test_bulk_resalt_under_writes_survives_sigkill_of_the_daemon(self):
        root = "/presplit-mr-" + uuid.uuid4().hex[:8]
        table = "mr" + uuid.uuid4().hex[:6] + ":events"
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        staging = tempfile.mkdtemp(prefix="mr-staging-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        first = self.daemon(root, 19511, staging).start()
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        started = time.time()
        helper(root, "load", table, str(ROWS), str(VERSIONS))
        print(f"loaded {ROWS} rows in {time.time() - started:.0f} s", flush=True)

        stop_file = os.path.join(tempfile.mkdtemp(dir=os.path.join(h.BUILD_DIR, "e2e")), "stop")
        writer = subprocess.Popen(
            [*java_program(), "--zk", h.ZK_QUORUM, "--root", root, "writer", table, stop_file],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(lambda: writer.poll() is None and writer.kill())

        started = time.time()
        put_doc(root, document(table, 16, {"allowed": True, "engine": "mapreduce",
                                           "workers": 2, "grace_period_s": 5}))
        h.wait_for(lambda: bulk_of(root, table).get("job_id", "").startswith("job_"), 180,
                   "the bulk job's submission")
        killed = bulk_of(root, table)
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait()
        first.log.close()
        first.proc = None
        self.assertIn(killed["state"], ["PREP", "RUNNING"])
        self.assertEqual(killed["attempts"], 1)
        self.assertFalse(killed["loaded"])
        self.assertEqual(h.status(root, table)["generation"], 1, "killed before the switch")

        # The restarted daemon's JVM does not know the job: it submits it again.
        restarted = self.daemon(root, 19511, staging).start()
        h.wait_for(lambda: h.status(root, table).get("generation") == 2, 300,
                   "the switch to generation 2")
        log = restarted.log_text()
        self.assertIn(f"job {killed['job_id']} is unknown to this daemon's JVM", log)
        self.assertRegex(log, r"bulk copy: submitted job job_local\S+ \(attempt 2\)")
        self.assertRegex(log, r"bulk copy: loaded [1-9]\d* HFiles")
        self.assertIn("verified:", log)
        status = h.status(root, table)
        self.assertEqual(status["physical_table"], table + "__g2")
        self.assertEqual(status["buckets"], 16)
        bulk = status["migration"]["bulk"]
        self.assertEqual(bulk["attempts"], 2)
        self.assertTrue(bulk["loaded"])
        # every row loaded before the start, and what the writer wrote before it
        self.assertGreaterEqual(bulk["rows"], ROWS)
        h.wait_for(lambda: migration_phase(root, table) == "done", 120, "the grace period's end")
        self.assertIn("old generation " + table + " disabled", restarted.log_text())
        # Snapshot and staging directory are gone once the output is loaded.
        self.assertEqual(os.listdir(staging), [])
        snapshots = os.path.join(CLUSTER_DIR, "hbase", ".hbase-snapshot")
        self.assertFalse(any(name.startswith("presplit_resalt_" + table.split(":")[0])
                             for name in (os.listdir(snapshots) if os.path.isdir(snapshots)
                                          else [])))
        print(f"migration with the mapreduce engine: {time.time() - started:.0f} s", flush=True)

        written, evidence = stop_writer_and_verify(self, root, table, writer, stop_file, ROWS)
        print(f"killed at {killed}, writer {written}, verified {evidence}", flush=True)


if __name__ == "__main__":
    h.main()
