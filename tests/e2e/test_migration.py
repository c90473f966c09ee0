"""End-to-end: presplitd re-salts a live table (10 -> 16 buckets) on the real cluster, its change
capture riding on HBase replication (presplit's re-keying endpoint in the RegionServer).

Every test compares the migrated table with a reference table that took the same mutations
without any migration (tests/e2e/java/CaptureE2E.java), cell by cell, every version, tags
included: nothing missing, resurrected or doubled. The mutations are the ones a timestamp-based
capture gets wrong: whole-row deletes, deletes of the newest version only, cells stamped a day
ahead, puts and deletes with explicit old timestamps, per-cell TTL puts (which must expire in the
new generation too), and a plain client that keeps writing into the old generation after the
switch.

- test_1 (engine "put", ROWS rows): the daemon is SIGKILLed mid-copy and again during the
  switch's write pause, whose drain a disabled replication peer holds (the switch waits for the
  peer, not for quiet rounds); the next daemon ends the pause and switches; a late writer writes
  into the old generation during the grace period.
- test_2 (engine "hfile", live source): the same workload, SIGKILL mid-copy.
- test_3 (engine "hfile", source read from a snapshot): a target cell deleted behind presplit's
  back while the migration is paused fails verification, names the row, and nothing switches;
  abort drops only the target, its capture peer, staging directory and snapshot.
- test_4: rollback during the grace period: writes made to the new generation since the switch
  are in the old one afterwards; the SDK writes to the old one again; the two peers do not loop
  (their shipped-edit counts stay still while nobody writes).
- test_5: a plan written by hand naming another table as its target, another snapshot and a
  staging path changes nothing and the table's status says why; so does a plan with the
  expected names replayed at phase fencing onto a table presplit did not create (no marker).
- test_7: SDK read-modify-writes on hot rows (get, put + 1 on 30 counters; increment and a
  compare-and-set loop of checkAndMutate on 4 rows each) run through the verification (the rows
  differ at every re-read: compared at the switch's write pause), the switch and a rollback in the
  grace period: each row equals its acknowledged updates in the new generation after the switch
  and in the old one after the rollback, none failed, and both pauses are logged.
- test_6: the new generation keeps what an operator set outside the document (MIN_VERSIONS,
  REPLICATION_SCOPE, a table value, a quota) and its DR peer: refused until the document says
  migration.replication "follow", then joined to the peer. While that migration is paused before
  its switch, a bulk load and a SKIP_WAL put into the table are refused with the guard's message and
  reach neither generation; once it is done, both work on the new generation.
"""
import json
import re
import os
import signal
import subprocess
import tempfile
import time
import unittest
import uuid

import harness as h

PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "MigrationE2E.java")
CAPTURE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "CaptureE2E.java")
WORKLOAD = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SplitWorkload.java")
ROWS = int(os.environ.get("PRESPLIT_E2E_MIGRATION_ROWS", "200000"))
HFILE_ROWS = int(os.environ.get("PRESPLIT_E2E_MIGRATION_HFILE_ROWS", "30000"))
VERSIONS = 3
TTL_MS = 45000
CLUSTER_DIR = os.environ["PRESPLIT_CLUSTER_DIR"]


def java_program():
    """The command running MigrationE2E with the SDK on the classpath (compiled once)."""
    return h.java_command(PROGRAM, sdk=True)


def helper(root, *args, timeout=600):
    proc = h.run([*java_program(), "--zk", h.ZK_QUORUM, "--root", root, *args], timeout=timeout)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def capture(root, *args, timeout=600, check=True):
    """Runs CaptureE2E; its last stdout line as JSON."""
    proc = h.run([*h.java_command(CAPTURE, sdk=True), "--zk", h.ZK_QUORUM, "--root", root,
                  *args], timeout=timeout, check=check)
    if proc.returncode != 0:
        raise AssertionError(f"CaptureE2E {args} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def document(table, buckets, migration=None):
    doc = {"version": 1, "table": table,
           "layout": {"salt": {"buckets": buckets, "encoding": "decimal", "from": "key"}},
           "split": {"algorithm": "salt-buckets"},
           "families": [{"name": "f", "max_versions": VERSIONS}]}
    if migration is not None:
        doc["migration"] = migration
    return json.dumps(doc)


def workload(*args, timeout=300):
    """Runs SplitWorkload (regions moved, split, listed with the plain HBase client)."""
    return h.run([*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, *args], timeout=timeout).stdout


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


def old_layout_json():
    return json.dumps({"salt": {"buckets": 10, "encoding": "decimal", "from": "key"}})


def kill(daemon):
    daemon.proc.send_signal(signal.SIGKILL)
    daemon.proc.wait()
    daemon.log.close()
    daemon.proc = None


class MigrationTest(unittest.TestCase):
    def daemon(self, root, port, **settings):
        d = h.Daemon(root, port, settings={
            "migration_chunk_rows": 2000, "migration_interval_s": 1,
            "jvm_options": "-Djava.library.path=" + os.path.join(h.BUILD_DIR, "jni"),
            "jvm_max_heap": "512m", **settings})
        self.addCleanup(lambda: d.alive() and d.stop())
        return d

    def loaded_table(self, prefix, port, rows):
        """A daemon of its own and a 4-bucket table of `rows` loaded rows: (root, table, daemon)."""
        root, table, _ = self.names(prefix)
        d = self.daemon(root, port).start()
        put_doc(root, document(table, 4))
        h.wait_status(root, table, ["ready"])
        helper(root, "load", table, str(rows), str(VERSIONS))
        return root, table, d

    def names(self, prefix):
        root = "/presplit-mig-" + uuid.uuid4().hex[:8]
        ns = prefix + uuid.uuid4().hex[:6]
        return root, ns + ":events", ns + ":reference"

    def start_mutator(self, root, table, reference, rows):
        stop_file = os.path.join(tempfile.mkdtemp(dir=os.path.join(h.BUILD_DIR, "e2e")), "stop")
        mutator = subprocess.Popen(
            [*h.java_command(CAPTURE, sdk=True), "--zk", h.ZK_QUORUM, "--root", root, "mutator",
             table, reference, str(rows), str(TTL_MS), stop_file],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: mutator.poll() is None and mutator.kill())
        return mutator, stop_file

    def stop_mutator(self, mutator, stop_file):
        with open(stop_file, "w"):
            pass
        out, err = mutator.communicate(timeout=120)
        self.assertEqual(mutator.returncode, 0, err[-3000:])
        return json.loads(out.strip().splitlines()[-1])

    def compare_after_ttl(self, root, table, reference, mutations):
        """Waits until the reference's TTL cells expired (so both sides are read past every
        expiry), then compares the active generation with the reference."""
        for kind in ["row_deletes", "newest_version_deletes", "future", "old_puts", "ttl",
                     "old_deletes", "new_old", "new"]:
            self.assertGreater(mutations.get(kind, 0), 0, f"the workload wrote no {kind}")
        h.wait_for(lambda: capture(root, "ttl-cells", "ref:" + reference)["ttl_cells"] == 0,
                   TTL_MS / 1000 + 120, "the reference's TTL cells to expire")
        evidence = capture(root, "compare", table, reference)
        self.assertEqual(evidence["generation"], 2)
        self.assertEqual(evidence["buckets"], 16)
        self.assertEqual(capture(root, "ttl-cells", table)["ttl_cells"], 0,
                         "the TTL cells expired in the new generation too")
        return evidence

    def test_1_put_engine_under_mutations_survives_sigkill_mid_copy_and_during_catch_up(self):
        root, table, reference = self.names("mig")
        first = self.daemon(root, 19501).start()
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        started = time.time()
        capture(root, "load", table, reference, str(ROWS))
        print(f"loaded {ROWS} rows in {time.time() - started:.0f} s", flush=True)
        mutator, stop_file = self.start_mutator(root, table, reference, ROWS)

        # A write pause long enough to SIGKILL the daemon inside it, and for the next one to end
        # it before the SDK's writers give up waiting.
        put_doc(root, document(table, 16, {"allowed": True, "workers": 2, "engine": "put",
                                           "grace_period_s": 40, "max_write_pause_ms": 120000}))
        h.wait_for(lambda: checkpoints_written(root, table), 180, "the first checkpoints")
        killed_at = migration_status(root, table)
        kill(first)
        self.assertEqual(h.status(root, table)["generation"], 1, "killed before the switch")
        peer = killed_at["capture"]["peer"]
        self.assertTrue(capture(root, "peer", "stats", peer)["found"],
                        "the capture peer runs in the RegionServer while no daemon runs")

        # A restarted daemon resumes from the checkpoints; held before its switch, its switch is
        # then held by a disabled peer (writers paused, the old generation read-only, the drain
        # waiting), and it is killed there.
        second = self.daemon(root, 19501).start()
        # The pause lands at the end of the step under way: asked for once the verification's
        # step has begun (its first comparison logged), not in the moment between the copy's end
        # and that step, where it would hold the migration in `verifying`.
        h.wait_for(lambda: f"migration {table}: verification:" in second.log_text(), 600,
                   "the verification")
        h.ctl(root, "migration", "pause", table)
        h.wait_for(lambda: (migration_status(root, table) or {}).get("paused"), 300, "the pause")
        self.assertEqual(migration_phase(root, table), "switching",
                         "paused after the verification, before the switch")
        log = second.log_text()
        self.assertRegex(log, r"copying \d+ of \d+ source regions with \d+ workers \(\d+ regions, "
                              r"[1-9]\d* rows already copied\)")
        self.assertIn("verified:", log)
        capture(root, "peer", "disable", peer)
        h.ctl(root, "migration", "resume", table)
        h.wait_for(lambda: (h.status(root, table).get("migration") or {})
                   .get("writes_paused_until_ms"), 120,
                   "the switch's write pause, its drain held by the disabled peer")
        self.assertEqual(h.status(root, table)["generation"], 1, "no switch before the drain")
        # The operator sees the pause (or, once it ran out, the next try).
        self.assertRegex(h.ctl(root, "migration", "status", table).stdout,
                         r"switch: +attempt [1-9]\d*(, writes paused until \S+Z \(at most \d+ ms\)"
                         r"| abandoned, tried again at \S+Z)\n")
        kill(second)
        capture(root, "peer", "enable", peer)

        third = self.daemon(root, 19501).start()
        h.wait_for(lambda: migration_phase(root, table) == "grace", 300,
                   "the switch and the catch-up")
        self.assertEqual(h.status(root, table)["generation"], 2)
        self.assertIn("switched:", third.log_text())
        self.assertIn("caught up:", third.log_text())
        # A plain client that never heard of the switch writes into the old generation.
        late = capture(root, "late-writer", table, old_layout_json(), reference, "500")
        self.assertEqual(late["late_written"], 500)
        self.assertEqual(migration_phase(root, table), "grace", "written before the fence")
        h.wait_for(lambda: migration_phase(root, table) == "done", 300, "the fence and the end")
        log = third.log_text()
        self.assertIn(f"{table} is read-only and drained", log)
        self.assertIn("old generation " + table + " disabled", log)
        self.assertFalse(capture(root, "peer", "stats", peer)["found"], "the peer is removed")

        mutations = self.stop_mutator(mutator, stop_file)
        self.assertEqual(mutations["generations"], 2, "the SDK writer followed the switch")
        evidence = self.compare_after_ttl(root, table, reference, mutations)
        print(f"test_1: killed at {killed_at['phase']} ({killed_at['rows']} rows), "
              f"mutations {mutations}, compared {evidence}", flush=True)

    def test_2_hfile_engine_under_mutations_survives_sigkill_mid_copy(self):
        root, table, reference = self.names("mih")
        staging = tempfile.mkdtemp(prefix="hfile-staging-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        settings = {"migration_hfile_chunk_rows": 2000, "migration_staging_dir": staging}
        first = self.daemon(root, 19503, **settings).start()
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        capture(root, "load", table, reference, str(HFILE_ROWS))
        mutator, stop_file = self.start_mutator(root, table, reference, HFILE_ROWS)
        put_doc(root, document(table, 16, {"allowed": True, "workers": 1, "engine": "hfile",
                                           "grace_period_s": 5}))
        h.wait_for(lambda: checkpoints_written(root, table), 180, "the first checkpoints")
        self.assertEqual(migration_status(root, table)["engine"], "hfile")
        kill(first)
        restarted = self.daemon(root, 19503, **settings).start()
        h.wait_for(lambda: migration_phase(root, table) == "done", 600, "the migration's end")
        self.assertIn("verified:", restarted.log_text())
        self.assertEqual(os.listdir(staging), [], "the chunks' staging directory is removed")
        mutations = self.stop_mutator(mutator, stop_file)
        evidence = self.compare_after_ttl(root, table, reference, mutations)
        print(f"test_2: mutations {mutations}, compared {evidence}", flush=True)

    def test_3_a_target_cell_deleted_behind_its_back_fails_verification_then_abort(self):
        root, table, _ = self.names("miv")
        staging = tempfile.mkdtemp(prefix="hfile-staging-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        # The chunks read one snapshot of the source (hbase-site.xml names hbase.rootdir).
        d = self.daemon(root, 19505, migration_hfile_chunk_rows=200,
                        migration_staging_dir=staging, migration_hfile_source="snapshot",
                        hbase_conf_dir=os.path.join(CLUSTER_DIR, "conf"),
                        # The adaptive throttle, with a probe threshold for a machine the suite
                        # keeps busy (its 5 ms default would hold this copy near its floor).
                        migration_throttle="adaptive",
                        migration_throttle_max_probe_ms=50).start()
        snapshot = "presplit_resalt_" + table.replace(":", "_") + "__g2"
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        helper(root, "load", table, "4000", str(VERSIONS))
        # Slow enough to be paused in the middle of the copy.
        put_doc(root, document(table, 16, {"allowed": True, "workers": 1, "engine": "hfile",
                                           "max_cells_per_s": 2000}))
        h.wait_for(lambda: checkpoints_written(root, table), 120, "the first checkpoints")
        # The copy runs under the adaptive throttle, the document's max_cells_per_s its ceiling.
        h.wait_for(lambda: (migration_status(root, table) or {}).get("throttle"), 60,
                   "the throttle in the status")
        throttle = migration_status(root, table)["throttle"]
        self.assertLessEqual(throttle["cells_per_s"], 2000, throttle)
        self.assertIn("throttle:", h.ctl(root, "migration", "status", table).stdout)
        self.assertNotIn("the bridge's gate cannot be set", d.log_text())
        h.ctl(root, "migration", "pause", table)
        h.wait_for(lambda: (migration_status(root, table) or {}).get("paused"), 60, "the pause")
        self.assertTrue(capture(root, "snapshot-exists", snapshot)["exists"],
                        "the hfile engine reads a snapshot of the source")
        peer = migration_status(root, table)["capture"]["peer"]
        deleted = capture(root, "delete-cell", table + "__g2")
        h.ctl(root, "migration", "resume", table)
        h.wait_for(lambda: migration_phase(root, table) == "failed_verification", 180,
                   "the verification to fail")
        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        self.assertEqual(status["physical_table"], table)
        error = migration_status(root, table)["error"]
        self.assertIn("1 rows differ", error)
        # The target's row key is a 2-digit salt (16 buckets) and the logical key.
        logical = deleted["deleted"].split(" ")[0][2:]
        self.assertIn(logical, error, "the report names the row")
        self.assertIn("verification:", d.log_text())
        # The throttle's health samples were taken (the probes at least: this cluster's
        # RegionServers run without an info server, so without JMX).
        self.assertNotIn("no health sample", d.log_text())

        h.ctl(root, "migration", "abort", table)
        h.wait_for(lambda: migration_phase(root, table) == "aborted", 120, "the abort")
        gone = h.probe("exists", table + "__g2", check=False)
        self.assertIn("false", gone.stdout.lower())
        self.assertFalse(capture(root, "peer", "stats", peer)["found"], "the peer is removed")
        self.assertEqual(os.listdir(staging), [])
        self.assertFalse(capture(root, "snapshot-exists", snapshot)["exists"])
        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        self.assertEqual(status["layout"]["salt"]["buckets"], 10)
        refused = h.ctl(root, "migration", "abort", table, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("no migration of", refused.stderr)
        # The capture's end put the source's guard to sleep on every RegionServer, without a
        # reopen: the table takes a SKIP_WAL write and a bulk load again.
        probe_dir = tempfile.mkdtemp(prefix="bulk-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        self.assertEqual(helper(root, "guard-probe", table, "after", probe_dir, table),
                         {"physical": table, "generation": 1, "skip_wal": "ok",
                          "bulk_load": "ok", "rows": {table: 2}})

    def test_4_rollback_during_grace_keeps_the_new_generations_writes(self):
        root, table, _ = self.names("mir")
        d = self.daemon(root, 19507)
        d.start()
        put_doc(root, document(table, 10))
        h.wait_status(root, table, ["ready"])
        helper(root, "load", table, "3000", str(VERSIONS))
        put_doc(root, document(table, 16, {"allowed": True, "workers": 2, "grace_period_s": 600}))
        h.wait_for(lambda: migration_phase(root, table) == "grace", 300, "the grace period")
        # Born with the guard: the migration turned it on without reopening a region for it.
        log = d.log_text()
        self.assertNotIn(f"MigrationGuard attached to {table}", log)
        self.assertRegex(log, re.escape(f"migration {table}: MigrationGuard on in {table} (")
                         + r"\d+ regions confirmed, no reopen\)")
        status = migration_status(root, table)
        forward, reverse = status["capture"]["peer"], status["capture"]["reverse_peer"]
        # Writers on the new generation since the switch (one JVM for the 20 rows).
        after_switch = [f"after-switch-{i}" for i in range(20)]
        written = capture(root, "sdk-put", table, *after_switch)
        self.assertEqual(written["generation"], 2)
        self.assertEqual(written["written"], 20)
        # Idle, the two peers do not ship each other's writes back and forth: their counts stay
        # still over two RegionServer reports once the writes above are shipped.
        new_layout = json.dumps(h.status(root, table)["layout"])
        h.wait_for(lambda: capture(root, "has-row", table, old_layout_json(),
                                   *after_switch)["present"], 60,
                   "the reverse peer to ship the new generation's writes")

        def stats():
            return capture(root, "peer", "stats", forward), capture(root, "peer", "stats", reverse)
        before = stats()
        h.wait_for(lambda: stats()[0]["report_ms"] > before[0]["report_ms"] + 3000, 60,
                   "two more RegionServer reports")
        after = stats()
        self.assertTrue(before[0]["found"] and before[1]["found"])
        self.assertEqual(after[0]["shipped"], before[0]["shipped"], "the forward peer is idle")
        self.assertEqual(after[1]["shipped"], before[1]["shipped"], "the reverse peer is idle")

        h.ctl(root, "migration", "rollback", table)
        h.wait_for(lambda: migration_phase(root, table) == "rolled_back", 180, "the rollback")
        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        self.assertEqual(status["physical_table"], table)
        self.assertEqual(status["layout"]["salt"]["buckets"], 10)
        kept = capture(root, "has-row", table, old_layout_json(), *after_switch)
        self.assertTrue(kept["present"], f"missing in the old generation: {kept['missing']}")
        written = capture(root, "sdk-put", table, "after-rollback")
        self.assertEqual(written["generation"], 1, "the SDK writes to the old generation again")
        self.assertTrue(capture(root, "has-row", table, old_layout_json(),
                                "after-rollback")["present"])
        gone = h.probe("exists", table + "__g2", check=False)
        self.assertIn("false", gone.stdout.lower(), "the abandoned generation is dropped")
        self.assertFalse(capture(root, "peer", "stats", forward)["found"])
        self.assertFalse(capture(root, "peer", "stats", reverse)["found"])
        self.assertNotEqual(new_layout, json.dumps(status["layout"]))

    def test_5_a_hand_written_plan_changes_nothing(self):
        root, table, _ = self.names("mif")
        victim = table.split(":")[0] + ":victim"
        staging_base = tempfile.mkdtemp(prefix="staging-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        precious = os.path.join(staging_base, "precious")
        os.makedirs(precious)
        with open(os.path.join(precious, "keep"), "w") as f:
            f.write("keep")
        d = self.daemon(root, 19509, migration_staging_dir=staging_base).start()
        put_doc(root, document(table, 10))
        put_doc(root, document(victim, 4))
        h.wait_status(root, table, ["ready"])
        h.wait_status(root, victim, ["ready"])
        capture(root, "snapshot", "precious_snapshot", victim)
        plan = {"table": table, "source": table, "target": victim, "source_generation": 1,
                "target_generation": 2,
                "old_layout": {"salt": {"buckets": 10, "encoding": "decimal", "from": "key"}},
                "new_layout": {"salt": {"buckets": 4, "encoding": "decimal", "from": "key"}},
                "source_regions": [{"start": "", "end": ""}], "engine": "mapreduce",
                "workers": 1, "document": document(table, 16), "phase": "copying",
                "bulk": {"staging_dir": precious, "snapshot": "precious_snapshot",
                         "job_id": ""}}
        zk_raw = h.java_command(os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "ZkRaw.java"),
                                short_lived=True)
        subprocess.run([*zk_raw, h.ZK_QUORUM, "set", f"{root}/migrations/{table}"],
                       input=json.dumps(plan).encode(), check=True, timeout=120)
        h.ctl(root, "migration", "abort", table)
        h.wait_for(lambda: "plan refused" in (h.status(root, table).get("migration") or {})
                   .get("refused", ""), 60, "the status to say the plan was refused")
        refused = h.status(root, table)["migration"]["refused"]
        self.assertIn(f"its target '{victim}' is not generation 2", refused)
        self.assertIn("true", h.probe("exists", victim).stdout.lower())
        self.assertTrue(capture(root, "snapshot-exists", "precious_snapshot")["exists"])
        self.assertTrue(os.path.exists(os.path.join(precious, "keep")))
        self.assertTrue(d.alive())
        self.assertIn("plan refused, nothing done with it", d.log_text())

        # A plan with the names the daemon expects, replayed in the grace period (whose end makes
        # the source read-only; at fencing itself the status, naming the source, refuses it
        # first), onto a table whose next generation's name is taken by a table presplit did not
        # create for it: refused by the target's marker, the source stays writable.
        generation = table + "__g2"
        helper(root, "create-plain", generation)
        # The layouts as the daemon writes them (defaults filled in), so that only the target
        # tells this plan from one the daemon wrote.
        old_layout = h.status(root, table)["layout"]
        new_layout = {"salt": dict(old_layout["salt"], buckets=16, width=2)}
        replayed = dict(plan, target=generation, engine="put", phase="grace",
                        plan_id="0123456789abcdef0123456789abcdef", old_layout=old_layout,
                        new_layout=new_layout)
        del replayed["bulk"]
        subprocess.run([*zk_raw, h.ZK_QUORUM, "set", f"{root}/migrations/{table}"],
                       input=json.dumps(replayed).encode(), check=True, timeout=120)
        h.wait_for(lambda: "carries no presplit migration marker" in (
            h.status(root, table).get("migration") or {}).get("refused", ""), 60,
            "the status to say the replayed plan was refused")
        self.assertFalse(helper(root, "settings", table)["read_only"], "the source is writable")
        self.assertFalse(helper(root, "settings", generation)["read_only"])
        self.assertEqual(h.status(root, table)["generation"], 1)

        # Capture peers that no plan names (a migration that ended without removing its peer)
        # hold their source's WALs: the leader removes the ones of its own root within a minute,
        # and leaves another deployment's and an unmarked one (an older version's) alone.
        ours, theirs, unmarked = ("presplit_orphan_" + uuid.uuid4().hex[:8] for _ in range(3))
        for peer in (theirs, unmarked):
            self.addCleanup(lambda p=peer: h.run(
                [*h.java_command(CAPTURE, sdk=True), "--zk", h.ZK_QUORUM, "--root", root, "peer",
                 "remove", p], timeout=300, check=False))
        capture(root, "orphan-peer", ours, table, victim, root)
        capture(root, "orphan-peer", theirs, table, victim, "/presplit-elsewhere")
        capture(root, "orphan-peer", unmarked, table, victim, "-")
        h.wait_for(lambda: f"capture peer {ours} removed: no migration plan under {root}"
                   in d.log_text(), 150, "the leader to remove the orphan capture peer")
        self.assertFalse(capture(root, "peer", "exists", ours)["exists"])
        self.assertTrue(capture(root, "peer", "exists", theirs)["exists"])
        self.assertTrue(capture(root, "peer", "exists", unmarked)["exists"])
        self.assertIn(f"hbase shell: remove_peer '{unmarked}'", d.log_text())
        self.assertNotIn(f"capture peer {theirs} removed", d.log_text())

    def test_6_the_new_generation_keeps_the_tables_settings_and_its_dr_replication(self):
        root, table, d = self.loaded_table("mis", 19511, 300)
        dr_peer = "dr_" + uuid.uuid4().hex[:8]
        born = helper(root, "settings", table)
        self.assertTrue(born["guarded"], f"presplitd creates tables with the guard: {born}")
        self.assertIsNone(born["guard_plan"], "dormant")
        # The operator's settings, and the guard removed: the first re-salt attaches it.
        helper(root, "operator-settings", table, dr_peer)
        self.assertFalse(helper(root, "settings", table)["guarded"])
        self.addCleanup(lambda: helper(root, "remove-peer", dr_peer))
        # A region whose start key is 1 KiB long (inside bucket 1): the capture's probes and
        # closes of it must be acknowledged like any other's, or nothing would ever switch.
        long_key = "1" + "k" * 1023
        self.assertEqual(workload("split-at", table, long_key).strip(), "ok")
        self.assertIn(long_key, workload("regions", table).split())

        # The table is shipped to a DR cluster: without a word in the document, not migrated.
        put_doc(root, document(table, 8, {"allowed": True, "grace_period_s": 0}))
        h.wait_for(lambda: migration_phase(root, table) == "aborted", 120,
                   "the migration to be refused")
        error = migration_status(root, table)["error"]
        self.assertIn(f"replication peer(s) {dr_peer}", error)
        self.assertIn("migration.replication", error)
        self.assertIn("false", h.probe("exists", table + "__g2").stdout.lower(),
                      "nothing was created")

        # "follow": the new generation keeps the scope and joins the DR peer. The pause below
        # lands before the switch: a copy of one worker, then a verification, come first.
        put_doc(root, document(table, 8, {"allowed": True, "grace_period_s": 0,
                                          "replication": "follow", "workers": 1}))
        target = table + "__g2"
        # While it runs, the table refuses what the capture cannot carry, saying why.
        h.wait_for(lambda: migration_phase(root, table) == "copying", 120, "the copy")
        h.ctl(root, "migration", "pause", table)
        h.wait_for(lambda: (migration_status(root, table) or {}).get("paused"), 60, "the pause")
        staging = tempfile.mkdtemp(prefix="bulk-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        during = helper(root, "guard-probe", table, "during", staging, table, target)
        self.assertEqual(during["generation"], 1,
                         f"paused before the switch: {migration_status(root, table)}")
        for write, refused, what_to_do in (
                ("skip_wal", "a write with Durability.SKIP_WAL to", "Write with the WAL"),
                ("bulk_load", "a bulk load into", "Load the files once the migration has ended")):
            self.assertIn("DoNotRetryIOException", during[write])
            self.assertIn(f"presplit: {refused} {table} is refused: presplit is re-salting "
                          f"{table} (into {target})", during[write])
            self.assertIn(what_to_do, during[write])
            self.assertIn(f"presplitctl migration status {table}", during[write])
        self.assertEqual(during["rows"], {table: 0, target: 0},
                         "nothing of the refused writes in either generation")
        # The table's first migration attached the guard, dormant (its one reopen); the capture
        # turned it on, region by region, and every region confirmed it before the copy began.
        log = d.log_text()
        self.assertEqual(log.count(f"MigrationGuard attached to {table}, dormant"), 1, log[-3000:])
        self.assertRegex(log, re.escape(f"migration {table}: MigrationGuard on in {table} (")
                         + r"\d+ regions confirmed, no reopen\)")
        h.ctl(root, "migration", "resume", table)
        h.wait_for(lambda: h.status(root, table).get("generation") == 2
                   and migration_phase(root, table) == "done", 300, "the migration's end")
        settings = helper(root, "settings", target)
        self.assertEqual(settings["min_versions"], 2, settings)
        self.assertEqual(settings["scope"], 1)
        self.assertEqual(settings["max_versions"], VERSIONS)
        self.assertEqual(settings["keep_deleted_cells"], "FALSE",
                         "the source's own setting after the copy")
        self.assertEqual(settings["app_team"], "payments")
        self.assertEqual(settings["quotas"], 1, "the table's throttle")
        self.assertEqual(settings["peers_naming_it"], [dr_peer])
        self.assertEqual(settings["marker_source"], table)
        self.assertRegex(settings["marker_plan"] or "", r"^[0-9a-f]{32}$")
        self.assertTrue(settings["guarded"], "the new generation keeps its guard, dormant")
        self.assertIsNone(settings["guard_plan"], settings)
        # Only the loaded rows: nothing of the refused writes reached the new generation.
        evidence = helper(root, "verify", table, "300", str(VERSIONS), "0")
        self.assertEqual(evidence["rows"], 300)
        self.assertEqual(evidence["generation"], 2)
        # The migration has ended: the new generation takes both again.
        self.assertEqual(helper(root, "guard-probe", table, "after", staging, target),
                         {"physical": target, "generation": 2, "skip_wal": "ok",
                          "bulk_load": "ok", "rows": {target: 2}})
        self.assertIn("grants copied: 0, quotas copied: 1, REPLICATION_SCOPE kept; "
                      f"replication peers now shipping it too: {dr_peer}", d.log_text())

    def test_7_read_modify_writes_on_hot_rows_lose_nothing_through_the_switch_and_a_rollback(
            self):
        root, table, d = self.loaded_table("mic", 19513, 2000)
        control = tempfile.mkdtemp(dir=os.path.join(h.BUILD_DIR, "e2e"))
        # Its stderr in a file: read while it runs, a pipe would block the reader (or, full,
        # the workload).
        errors_path = os.path.join(control, "stderr")
        with open(errors_path, "w") as errors:
            counters = subprocess.Popen(
                [*java_program(), "--zk", h.ZK_QUORUM, "--root", root, "counters", table, "30",
                 "4", control], stdout=subprocess.PIPE, stderr=errors, text=True)
        self.addCleanup(lambda: counters.poll() is None and counters.kill())

        def errors_tail():
            with open(errors_path) as f:
                return f.read()[-3000:]

        def check(name):
            """The workload's check of every row against its tally, on request (see
            MigrationE2E.counters), while it goes on."""
            with open(os.path.join(control, "check-" + name), "w"):
                pass
            answer = os.path.join(control, name + ".json")
            h.wait_for(lambda: os.path.exists(answer) or counters.poll() is not None, 60,
                       f"the workload's check '{name}'")
            if not os.path.exists(answer):
                self.fail(f"the workload ended with {counters.returncode}: {errors_tail()}")
            with open(answer) as f:
                return json.load(f)

        def assert_nothing_lost(result, generation, when):
            print(f"test_7: {when}: {result}", flush=True)
            self.assertEqual(result["generation"], generation, when)
            self.assertEqual(result["failures"], 0, f"{when}: {errors_tail()}")
            for kind in ["get_put", "increment", "check_and_mutate"]:
                counted = result["kinds"][kind]
                self.assertGreater(counted["updates"], 0, f"{when}: no {kind} acknowledged")
                self.assertEqual(counted["differing"], 0, f"{when}: {kind}: {counted['first']}")

        # The workload updates the old generation before the migration starts: its JVM can take
        # longer to start than a 2,000-row migration takes to switch on a busy machine.
        looks = iter(range(1000))

        def updating():
            result = check(f"started-{next(looks)}")
            return result["generations"] == [1] and all(
                result["kinds"][kind]["updates"] > 0
                for kind in ["get_put", "increment", "check_and_mutate"])
        h.wait_for(updating, 120, "the workload's first updates of every kind")
        # A grace period long enough to roll back in.
        put_doc(root, document(table, 8, {"allowed": True, "grace_period_s": 600, "workers": 2,
                                          "max_write_pause_ms": 10000}))
        h.wait_for(lambda: migration_phase(root, table) == "grace", 600, "the switch")
        switched = check("switched")
        assert_nothing_lost(switched, 2, "in the new generation after the switch")
        self.assertEqual(switched["generations"], [1, 2], "the workload followed the switch")

        h.ctl(root, "migration", "rollback", table)
        h.wait_for(lambda: migration_phase(root, table) == "rolled_back", 180,
                   lambda: f"the rollback: {migration_status(root, table)}")
        with open(os.path.join(control, "stop"), "w"):
            pass
        out, _ = counters.communicate(timeout=120)
        self.assertEqual(counters.returncode, 0, errors_tail())
        rolled_back = json.loads(out.strip().splitlines()[-1])
        assert_nothing_lost(rolled_back, 1, "in the old generation after the rollback")
        self.assertEqual(rolled_back["generations"], [1, 2, 1],
                         "the workload followed the switch and the rollback")
        for kind in ["get_put", "increment", "check_and_mutate"]:
            self.assertGreater(rolled_back["kinds"][kind]["updates"],
                               switched["kinds"][kind]["updates"],
                               f"{kind}s acknowledged between the two checks")
        # Every kind of update went through both pauses (held by the SDK, or refused by the
        # read-only generation and sent again): the switch's from generation 1, the rollback's
        # from 2.
        across = rolled_back["across_switch"]
        for kind in ["get_put", "increment", "check_and_mutate"]:
            for generation in (1, 2):
                self.assertIn(f"{kind}@{generation}", across,
                              f"no {kind} went through generation {generation}'s pause")
        self.assertGreater(rolled_back["conflicts"], 0,
                           "the two compare-and-set threads never contended")

        status = h.status(root, table)
        self.assertEqual(status["generation"], 1)
        log = d.log_text()
        self.assertRegex(log, r"switched: the status names \S+ \(generation 2\); writes were "
                              r"paused for \d+ ms")
        paused = int(re.search(r"writes were paused for (\d+) ms", log).group(1))
        self.assertLessEqual(paused, 10000)
        paused_back = int(re.search(r"rolled back with writes paused for (\d+) ms", log).group(1))
        self.assertLessEqual(paused_back, 10000)
        print(f"test_7: writes paused for {paused} ms at the switch, {paused_back} ms at the "
              f"rollback", flush=True)

    def test_8_a_document_removed_during_the_copy_ends_the_migration_leaving_no_peer(self):
        root, table, d = self.loaded_table("mir", 19515, 2000)
        # Slow enough that the copy is under way when the document goes.
        put_doc(root, document(table, 8, {"allowed": True, "workers": 1,
                                          "max_cells_per_s": 1000}))
        h.wait_for(lambda: checkpoints_written(root, table), 120, "the first checkpoints")
        peer = migration_status(root, table)["capture"]["peer"]
        target = table + "__g2"

        refused = h.ctl(root, "rm", table, check=False)
        self.assertEqual(refused.returncode, 1, refused)
        self.assertIn(f"rm refused, nothing removed: a re-salt migration of {table} is under way "
                      f"(phase copying)", refused.stderr)
        self.assertIsNotNone(h.status(root, table), "the document and the status stay")

        # A portal writing ZooKeeper directly is not refused: the leader ends the migration.
        zk_raw = h.java_command(os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "ZkRaw.java"),
                                short_lived=True)
        subprocess.run([*zk_raw, h.ZK_QUORUM, "delete", f"{root}/tables/{table}"], check=True,
                       timeout=120)

        def ended():
            return (not capture(root, "peer", "stats", peer)["found"]
                    and "false" in h.probe("exists", target).stdout.lower()
                    and migration_status(root, table) is None)
        h.wait_for(ended, 240, lambda: "the migration's end without its document\n"
                   + d.log_text()[-3000:])
        # A copy under way runs to its end first: the abort comes at its end or in the
        # verification after it.
        self.assertRegex(d.log_text(), re.escape(
            f"migration {table}: its document <root>/tables/{table} was removed before the "
            f"switch (phase ") + r"(copying|verifying)\): aborted by the daemon")
        # The source is as it was: every loaded row, its guard attached and dormant (it takes
        # bulk loads again: no capture runs).
        self.assertEqual(h.probe("count", table).stdout.strip().splitlines()[-1], "2000")
        settings = helper(root, "settings", table)
        self.assertTrue(settings["guarded"], settings)
        self.assertIsNone(settings["guard_plan"], settings)
        self.assertTrue(d.alive())

if __name__ == "__main__":
    h.main()
