"""End-to-end: presplitd re-salts a live table (10 -> 16 buckets) on the real cluster.

Scenarios (combined to keep the running time small):
- test_1: a table loaded with ROWS rows of several versions per cell while an SDK writer keeps
  inserting; the daemon is SIGKILLed in the middle of the copy (after a number of checkpoints,
  not a time) and started again: it resumes from its checkpoints, verifies, switches; afterwards
  every row written before, during and after is read back at its new key with the same cells and
  timestamps, none twice (tests/e2e/java/MigrationE2E.java, plain HBase client). Then a second,
  standby daemon takes over when the leader is killed during the grace period and finishes.
- test_2 (the "hfile" engine: presplitd reads the source from a snapshot's files, writes each
  chunk as HFiles and bulk-loads them): a
  target damaged behind presplit's back while the migration is paused fails verification and
  nothing switches; an abort then drops only the target, removes the engine's staging directory
  and the snapshot,
  and the status stays at generation 1 (an abort after the switch is refused: unit-tested in
  tests/daemon/migrate).
"""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest
import uuid

import harness as h

PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "MigrationE2E.java")
ROWS = int(os.environ.get("PRESPLIT_E2E_MIGRATION_ROWS", "200000"))
VERSIONS = 3


def java_program():
    """The command running MigrationE2E with the SDK on the classpath (compiled once)."""
    return h.java_command(PROGRAM, sdk=True)


def helper(root, *args, timeout=600):
    proc = h.run([*java_program(), "--zk", h.ZK_QUORUM, "--root", root, *args], timeout=timeout)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def document(table, buckets, migration=None):
    doc = {"version": 1, "table": table,
           "layout": {"salt": {"buckets": buckets, "encoding": "decimal", "from": "key"}},
           "split": {"algorithm": "salt-buckets"},
           "families": [{"name": "f", "max_versions": VERSIONS}]}
    if migration is not None:
        doc["migration"] = migration
    return json.dumps(doc)


def put_doc(root, doc):
    h.ctl(root, "put", "-", input=doc)


def migration_status(root, table):
    proc = h.ctl(root, "migration", "status", table, "--json", check=False)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def migration_phase(root, table):
    return (migration_status(root, table) or {}).get("phase")


def stop_writer_and_verify(test, root, table, writer, stop_file, rows):
    """Stops the SDK writer; checks every loaded and every written row once in generation 2."""
    with open(stop_file, "w"):
        pass
    out, _ = writer.communicate(timeout=120)
    written = json.loads(out.strip().splitlines()[-1])
    test.assertGreater(written["written"], 0)
    evidence = helper(root, "verify", table, str(rows), str(VERSIONS), str(written["written"]))
    test.assertEqual(evidence["rows"], rows)
    test.assertEqual(evidence["live"], written["written"])
    test.assertEqual(evidence["generation"], 2)
    test.assertEqual(evidence["buckets"], 16)
    return written, evidence


def checkpoints_written(root, table):
    status = migration_status(root, table)
    return status is not None and status.get("phase") == "copying" and status.get("rows", 0) > 0


class MigrationTest(unittest.TestCase):
    def daemon(self, root, port, **settings):
        d = h.Daemon(root, port, settings={
            "migration_chunk_rows": 2000, "migration_interval_s": 1,
            "jvm_options": "-Djava.library.path=" + os.path.join(h.BUILD_DIR, "jni"),
            "jvm_max_heap": "512m", **settings})
        self.addCleanup(lambda: d.alive() and d.stop())
        return d

    def test_1_resalt_under_writes_survives_sigkill_and_a_new_leader(self):
        root = "/presplit-mig-" + uuid.uuid4().hex[:8]
        table = "mig" + uuid.uuid4().hex[:6] + ":events"
        first = self.daemon(root, 19501).start()
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        started = time.time()
        helper(root, "load", table, str(ROWS), str(VERSIONS))
        print(f"loaded {ROWS} rows in {time.time() - started:.0f} s", flush=True)

        stop_file = os.path.join(tempfile.mkdtemp(dir=os.path.join(h.BUILD_DIR, "e2e")), "stop")
        writer = subprocess.Popen(
            [*java_program(), "--zk", h.ZK_QUORUM, "--root", root, "writer", table,
             stop_file], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(lambda: writer.poll() is None and writer.kill())

        put_doc(root, document(table, 16, {"allowed": True, "workers": 2, "grace_period_s": 60}))
        h.wait_for(lambda: checkpoints_written(root, table), 180, "the first checkpoints")
        killed_at = migration_status(root, table)
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait()
        first.log.close()
        first.proc = None
        self.assertEqual(h.status(root, table)["generation"], 1, "killed before the switch")

        # A restarted daemon resumes from the checkpoints (it says how much was copied already).
        restarted = self.daemon(root, 19501).start()
        h.wait_for(lambda: h.status(root, table).get("generation") == 2, 600,
                   "the switch to generation 2")
        log = restarted.log_text()
        self.assertRegex(log, r"copying \d+ of \d+ source regions with \d+ workers \(\d+ regions, "
                              r"[1-9]\d* rows already copied\)")
        self.assertIn("verified:", log)
        status = h.status(root, table)
        self.assertEqual(status["physical_table"], table + "__g2")
        self.assertEqual(status["buckets"], 16)

        # During the grace period: a standby joins, the leader is killed, the standby finishes.
        standby = self.daemon(root, 19502).start()
        h.wait_for(lambda: migration_phase(root, table) == "grace", 120, "grace")
        restarted.proc.send_signal(signal.SIGKILL)
        restarted.proc.wait()
        restarted.log.close()
        restarted.proc = None
        h.wait_for(lambda: migration_phase(root, table) == "done", 180,
                   "the standby to finish the migration")
        self.assertIn("old generation " + table + " disabled", standby.log_text())

        written, evidence = stop_writer_and_verify(self, root, table, writer, stop_file, ROWS)
        print(f"test_1: killed at {killed_at}, writer {written}, verified {evidence}", flush=True)

    def test_2_corrupted_target_fails_verification_then_abort(self):
        # With the "hfile" engine: each 200-row chunk is written by presplitd as HFiles under
        # migration_staging_dir and bulk-loaded (test_1 covers the put engine).
        root = "/presplit-mig-" + uuid.uuid4().hex[:8]
        table = "mig" + uuid.uuid4().hex[:6] + ":small"
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        staging = tempfile.mkdtemp(prefix="hfile-staging-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        # The chunks read one snapshot of the source (hbase-site.xml names hbase.rootdir).
        cluster_dir = os.environ["PRESPLIT_CLUSTER_DIR"]
        d = self.daemon(root, 19503, migration_hfile_chunk_rows=200,
                        migration_staging_dir=staging, migration_hfile_source="snapshot",
                        hbase_conf_dir=os.path.join(cluster_dir, "conf")).start()
        snapshot = os.path.join(cluster_dir, "hbase", ".hbase-snapshot",
                                "presplit_resalt_" + table.replace(":", "_") + "__g2")
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        helper(root, "load", table, "4000", str(VERSIONS))
        # Slow enough to be paused in the middle of the copy.
        put_doc(root, document(table, 16, {"allowed": True, "workers": 1, "engine": "hfile",
                                           "max_cells_per_s": 2000}))
        h.wait_for(lambda: checkpoints_written(root, table), 120, "the first checkpoints")
        self.assertEqual(migration_status(root, table)["engine"], "hfile")
        h.ctl(root, "migration", "pause", table)
        h.wait_for(lambda: (migration_status(root, table) or {}).get("paused"), 60, "the pause")
        self.assertTrue(os.path.isdir(snapshot), "the hfile engine reads a snapshot of the source")
        migration_staging = os.path.join(staging, table.replace(":", "_") + "__g2")
        self.assertTrue(any(name.startswith("restore-")
                            for name in os.listdir(migration_staging)),
                        "the snapshot is restored under the migration's staging directory")
        deleted = helper(root, "delete-first-row", table + "__g2")
        self.assertTrue(deleted["deleted"])
        h.ctl(root, "migration", "resume", table)
        h.wait_for(lambda: migration_phase(root, table) == "failed_verification", 180,
                   "the verification to fail")
        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        self.assertEqual(status["physical_table"], table)
        self.assertIn("verification failed in 1 of 10", migration_status(root, table)["error"])
        self.assertIn("verification:", d.log_text())

        h.ctl(root, "migration", "abort", table)
        h.wait_for(lambda: migration_phase(root, table) == "aborted", 120, "the abort")
        gone = h.probe("exists", table + "__g2", check=False)
        self.assertIn("false", gone.stdout.lower())
        # the abort removed the engine's staging directory (every chunk's HFiles and the
        # snapshot's restore with it) and the snapshot
        self.assertEqual(os.listdir(staging), [])
        self.assertFalse(os.path.exists(snapshot))
        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        self.assertEqual(status["layout"]["salt"]["buckets"], 10)
        refused = h.ctl(root, "migration", "abort", table, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("no migration of", refused.stderr)


if __name__ == "__main__":
    unittest.main()
