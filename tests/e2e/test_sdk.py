"""End to end: the writer SDK (io.presplit.client) on a real HBase + ZooKeeper.

Tables are created by the real presplitd from documents (round trips, merged scans, adoption) or
by hand with the HBase client when the test plays the daemon's part (the generation switch). The
Java side is tests/e2e/java/SdkE2E.java, which checks what the SDK did through the plain HBase
client; each command prints one JSON line of evidence.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
SDK_PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SdkE2E.java")
EXAMPLE = os.path.join(h.SOURCE_DIR, "examples", "ReferenceCase.java")
NS = f"sdk{RUN}"


def compiled(source):
    """The command running a test program with the SDK on the classpath (compiled once)."""
    return h.java_command(source, h.HBASE_CLIENT_JVM, sdk=True, short_lived=True)


def sdk(root, *args, input=None, timeout=300):
    proc = h.run([*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, "--root", root, *args],
                 input=input, timeout=timeout)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    return json.loads(lines[-1]) if lines else None


def put_doc(root, doc):
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    h.ctl(root, "put", path)
    return path


def salted_doc(table, buckets, encoding, hash_="murmur3", group=None, **salt):
    return {
        "version": 1,
        "table": table,
        "layout": {"salt": {"buckets": buckets, "encoding": encoding, "hash": hash_, **salt},
                   "group": group or {"delimiter": "|"}},
        "split": {"algorithm": "salt-buckets"},
        "families": [{"name": "f"}],
    }


class SdkWithDaemonTest(unittest.TestCase):
    """Tables that presplitd created from documents."""

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-sdk-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19471, name="presplitd-sdk").start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def setUp(self):
        # The suite's one RegionServer has a small heap: each test's tables are dropped when it
        # is done, all in one SDK call (each call is a JVM start), their documents removed first.
        self.documents, self.tables = [], []
        self.addCleanup(self.drop_tables)

    def drop_tables(self):
        for table in self.documents:
            h.ctl(self.root, "rm", table, check=False)
        if self.tables:
            sdk(self.root, "drop", *self.tables)

    def ready(self, doc):
        put_doc(self.root, doc)
        self.documents.append(doc["table"])
        self.tables.append(doc["table"])
        status = h.wait_status(self.root, doc["table"], ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        return status

    def test_1_round_trips_byte_decimal_hex(self):
        cases = [
            ("byte", salted_doc(f"{NS}:rt_byte", 16, "byte", group={"delimiter": "|"})),
            ("decimal", salted_doc(f"{NS}:rt_dec", 10, "decimal", "java-hashcode",
                                   group={"length": 8})),
            ("hex", salted_doc(f"{NS}:rt_hex", 20, "hex", "phoenix",
                               group={"delimiter": "\\x00\\x00"})),
        ]
        for encoding, doc in cases:
            with self.subTest(encoding=encoding):
                status = self.ready(doc)
                self.assertEqual(status["buckets"], doc["layout"]["salt"]["buckets"])
                result = sdk(self.root, "roundtrip", doc["table"], "400")
                print(f"round trip {encoding}: {json.dumps(result)}")
                self.assertEqual(result["rows"], 400)
                self.assertGreater(result["buckets_used"], 1)
                self.assertIn("group", result["refused"])
                # The 50-row group came back in one RPC to one region (HBase's scan metrics).
                self.assertEqual(result["group_scan_rpcs"], 1)
                self.assertEqual(result["merged_scan_regions"],
                                 doc["layout"]["salt"]["buckets"])

    def test_2_merged_scan_equals_plain_table(self):
        for buckets, encoding in ((16, "hex"), (7, "byte")):
            with self.subTest(buckets=buckets):
                doc = salted_doc(f"{NS}:scan{buckets}", buckets, encoding)
                doc["layout"]["salt"]["from"] = "key" if buckets == 7 else "group"
                self.ready(doc)
                plain = f"{NS}:plain{buckets}"
                sdk(self.root, "create-plain", plain)
                self.tables.append(plain)
                result = sdk(self.root, "compare", doc["table"], plain, "3000", "42")
                print(f"merged scans, {buckets} buckets: {json.dumps(result)}")
                self.assertEqual(result["rows"], 3000)
                self.assertEqual(result["range_scans"], 40)

    def test_3_adoption_of_the_published_layout(self):
        table = f"{NS}:check_adopt"
        self.tables.append(table)
        written = sdk(self.root, "adopt-write", table, "500")
        self.assertEqual(written["written"], 500)
        # The document describes the existing table as it is; presplitd finds it matching.
        with open(os.path.join(h.SOURCE_DIR, "conf", "tables", "tinawang-check.json")) as f:
            doc = json.load(f)
        doc["table"] = table
        status = self.ready(doc)
        self.assertEqual(status["physical_table"], table)
        result = sdk(self.root, "adopt-read", table, "500")
        print(f"adoption: {json.dumps(result)}")
        self.assertEqual(result["rows_read"], 500)

    def test_4_examples_run(self):
        for name in ("check", "opinion"):
            with open(os.path.join(h.SOURCE_DIR, "examples", f"{name}.json")) as f:
                doc = json.load(f)
            doc["table"] = f"{NS}:{name}"
            if name == "opinion":
                # The example has no bucket count of its own: it follows the document. 10
                # buckets here instead of the example's 50 keep the test cluster small.
                doc["layout"]["salt"]["buckets"] = 10
                doc["layout"]["salt"]["width"] = 2
            self.ready(doc)
        cmd = [*compiled(EXAMPLE), "--zk", h.ZK_QUORUM, "--root", self.root, "--namespace", NS]
        load = h.run([*cmd, "load", "2000"], timeout=300)
        print(load.stdout)
        check = h.run([*cmd, "check", "CHK000042"], timeout=120)
        print(check.stdout)
        rows = [l for l in check.stdout.splitlines() if l.startswith("  ")]
        self.assertGreater(len(rows), 0)
        self.assertTrue(all("CHK000042" in l for l in rows), check.stdout)
        opinion = h.run([*cmd, "opinion", "BN00007", "B"], timeout=120)
        print(opinion.stdout)
        rows = [l for l in opinion.stdout.splitlines() if l.startswith("  ")]
        self.assertGreater(len(rows), 0)
        self.assertTrue(all("BN00007" in l and "type=B" in l for l in rows), opinion.stdout)

    def test_5_a_document_edited_for_a_resalt_changes_no_writer(self):
        doc = salted_doc(f"{NS}:resalt", 4, "decimal")
        self.ready(doc)
        doc["layout"]["salt"]["buckets"] = 12
        put_doc(self.root, doc)
        status = h.wait_status(self.root, doc["table"], ["drift"])
        print(f"edited document: {json.dumps(status)}")
        # The status keeps the layout the table was built with...
        self.assertEqual(status["buckets"], 4)
        self.assertEqual(status["layout"]["salt"]["buckets"], 4)
        self.assertTrue(any(d.startswith("layout:") for d in status["differences"]), status)
        # ...and the SDK writes and reads with it: every row in its bucket's region.
        result = sdk(self.root, "roundtrip", doc["table"], "200")
        self.assertEqual(result["layout"]["salt"]["buckets"], 4)
        self.assertEqual(result["rows"], 200)
        self.assertEqual(result["merged_scan_regions"], 4)


    def test_6_the_layout_lives_in_the_tables_descriptor(self):
        doc = salted_doc(f"{NS}:kept", 4, "decimal")
        self.ready(doc)
        # The plain HBase client sees the layout in the table's own descriptor (no split policy).
        described = json.loads(h.probe("describe", doc["table"]).stdout)
        layout = {k: v for k, v in described["attributes"].items()
                  if k.startswith("presplit.layout.")}
        self.assertEqual(layout, {"presplit.layout.recorded": "true",
                                  "presplit.layout.salt.buckets": "4",
                                  "presplit.layout.salt.encoding": "decimal",
                                  "presplit.layout.salt.width": "1",
                                  "presplit.layout.salt.hash": "murmur3",
                                  "presplit.layout.salt.from": "group",
                                  "presplit.layout.group.delimiter": "|"}, described)
        # rm takes the document and the status away; the table stays.
        h.ctl(self.root, "rm", doc["table"])
        h.wait_for(lambda: h.ctl(self.root, "status", doc["table"], check=False).returncode != 0,
                   60, "the status to be removed")
        # A document with another bucket count: the daemon reads the layout back from the
        # descriptor, so writers keep salting as the table was built.
        doc["layout"]["salt"]["buckets"] = 12
        put_doc(self.root, doc)
        status = h.wait_status(self.root, doc["table"], ["drift", "ready", "error", "invalid"])
        print(f"rm then put with 12 buckets: {json.dumps(status)}")
        self.assertEqual(status["phase"], "drift", status)
        self.assertEqual(status["buckets"], 4)
        self.assertEqual(status["layout"]["salt"]["buckets"], 4)
        self.assertTrue(any(d.startswith("layout:") for d in status["differences"]), status)
        result = sdk(self.root, "roundtrip", doc["table"], "200")
        self.assertEqual(result["layout"]["salt"]["buckets"], 4)
        self.assertEqual(result["rows"], 200)
        self.assertEqual(result["merged_scan_regions"], 4)
        self.assertEqual(h.probe("regions-count", doc["table"]).stdout.strip(), "4")


class ControlPlaneFailureTest(unittest.TestCase):
    """The control plane failing never stops the data plane: an SDK writer keeps writing while
    the status says 'invalid' (a typo in an edited document) and 'error' (presplitd restarted
    while it cannot reach HBase), and every row lands where the table's layout puts it."""

    def test_writer_keeps_writing_through_invalid_and_error(self):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        root = f"/presplit-sdk-failure-{RUN}"
        table = f"{NS}:through"
        doc = salted_doc(table, 4, "decimal")
        daemon = h.Daemon(root, http_port=19472, name="presplitd-failure").start()
        self.addCleanup(lambda: daemon.stop() if daemon.alive() else None)
        self.addCleanup(sdk, root, "drop", table)
        put_doc(root, doc)
        status = h.wait_status(root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        built = status["layout"]

        stop_file = os.path.join(h.BUILD_DIR, "e2e", f"through-writer-{RUN}.stop")
        err_path = os.path.join(h.BUILD_DIR, "e2e", f"through-writer-{RUN}.err")
        with open(err_path, "w") as err_file:
            writer = subprocess.Popen(
                [*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, "--root", root, "writer-through",
                 table, stop_file, "5", "4", "decimal"],
                stdout=subprocess.PIPE, stderr=err_file, text=True)

        def writer_log():
            with open(err_path) as f:
                return f.read()

        def writes_in(phase, at_least):
            h.wait_for(lambda: writer_log().count(f"written, phase {phase}") >= at_least
                       or writer.poll() is not None, 120, f"{at_least} progress lines in {phase}")
            self.assertIsNone(writer.poll(), f"the writer stopped in phase {phase}:\n"
                              + writer_log()[-3000:])

        try:
            writes_in("ready", 2)
            # A typo in an edited document (presplitctl would refuse it; a portal bug need not).
            bad = json.loads(json.dumps(doc))
            bad["families"][0]["compression"] = "SNAPPYX"
            sdk(root, "zk-set", f"{root}/tables/{table}", input=json.dumps(bad))
            status = h.wait_status(root, table, ["invalid"])
            print(f"invalid edit: {json.dumps(status)}")
            self.assertIn("SNAPPYX", status["error"])
            self.assertEqual(status["layout"], built)
            self.assertEqual(status["buckets"], 4)
            writes_in("invalid (carried over)", 2)

            # The document fixed, then presplitd restarted while HBase is unreachable for it.
            put_doc(root, doc)
            h.wait_status(root, table, ["ready"])
            daemon.stop()
            blind = h.Daemon(root, http_port=19473, name="presplitd-blind")
            with open(blind.conf_path, "a") as f:
                # Its HBase client looks for HBase's ZooKeeper where none listens.
                f.write(f"hbase.zookeeper.quorum = 127.0.0.1:{19479 + h.PORT_OFFSET}\n"
                        "hbase.client.retries.number = 1\n")
            # Up, but honestly unhealthy: /healthz answers 503 while HBase is out of reach.
            blind.start(healthy=False)
            self.addCleanup(lambda: blind.stop() if blind.alive() else None)
            status = h.wait_status(root, table, ["error"], timeout=180)
            code, reason = blind.healthz()
            self.assertEqual(code, 503, reason)
            print(f"presplitd without HBase: {json.dumps(status)}")
            self.assertEqual(status["layout"], built)
            self.assertEqual(status["buckets"], 4)
            writes_in("error (carried over)", 2)
            blind.stop()

            # HBase reachable again: ready, and the writer follows.
            daemon = h.Daemon(root, http_port=19472, name="presplitd-failure").start()
            h.wait_status(root, table, ["ready"])
            seen = writer_log().count("written, phase ready")
            writes_in("ready", seen + 2)
            open(stop_file, "w").close()
            out, _ = writer.communicate(timeout=300)
        finally:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
        self.assertEqual(writer.returncode, 0, writer_log()[-3000:])
        result = json.loads(out.strip().splitlines()[-1])
        print(f"writer through invalid and error: {json.dumps(result)}")
        phases = result["rows_per_phase"]
        self.assertGreater(phases.get("invalid", 0), 0, result)
        self.assertGreater(phases.get("error", 0), 0, result)
        self.assertEqual(sum(phases.values()), result["written"])


class HandMadeMigration:
    """Plays the daemon's part in a re-salt: two physical tables salted into OLD and NEW decimal
    buckets, the logical table's document, and its status naming generation 1 (the old table)
    until switch() rewrites it to generation 2 (the new one)."""

    def __init__(self, test, root, name, old_buckets, new_buckets):
        self.test, self.root = test, root
        self.logical = f"{NS}:{name}"
        self.old, self.new = f"{NS}:{name}_g1", f"{NS}:{name}_g2"
        self.old_buckets, self.new_buckets = old_buckets, new_buckets
        sdk(root, "create-salted", self.old, str(old_buckets), "decimal")
        test.addCleanup(sdk, root, "drop", self.old, self.new)
        sdk(root, "create-salted", self.new, str(new_buckets), "decimal")
        self.set_document(old_buckets)
        self.set_status(1, self.old, old_buckets)

    def set_document(self, buckets):
        doc = salted_doc(self.logical, buckets, "decimal")
        sdk(self.root, "zk-set", f"{self.root}/tables/{self.logical}", input=json.dumps(doc))

    def set_status(self, generation, table, buckets):
        status = {"table": self.logical, "phase": "ready", "physical_table": table,
                  "generation": generation, "buckets": buckets, "regions": buckets,
                  "error": None}
        sdk(self.root, "zk-set", f"{self.root}/status/{self.logical}", input=json.dumps(status))

    def switch(self):
        self.set_status(2, self.new, self.new_buckets)

    def start_writer(self, count, sleep_ms, *extra, stderr=subprocess.PIPE):
        return subprocess.Popen(
            [*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, "--root", self.root, "writer",
             self.logical, str(count), str(sleep_ms), *extra],
            stdout=subprocess.PIPE, stderr=stderr, text=True)

    def check_switched(self, out, log):
        """The writer ended in generation 2, and every row it wrote is in exactly one table: the
        first ones in the old, the rest in the new. Returns the writer's report."""
        t = self.test
        result = json.loads(out.strip().splitlines()[-1])
        count = result["written"]
        print(f"writer: {json.dumps(result)}")
        t.assertEqual(result["final_generation"], 2, log[-3000:])
        t.assertEqual(result["final_physical_table"], self.new)
        t.assertEqual(result["final_buckets"], self.new_buckets)
        t.assertGreater(result["first_seq_in_new_generation"], 0)
        verified = sdk(self.root, "verify-switch", self.logical, self.old, str(self.old_buckets),
                       self.new, str(self.new_buckets), str(count), "decimal")
        print(f"switch: {json.dumps(verified)}")
        t.assertEqual(verified["old_rows"] + verified["new_rows"], count)
        t.assertLess(verified["last_old_seq"], verified["first_new_seq"])
        return result


class GenerationSwitchTest(unittest.TestCase):
    """The daemon's switch of a table to a new generation, played by hand: a second physical
    table with another bucket count, the document, then the status znode rewritten."""

    def test_writer_follows_the_switch_and_loses_nothing(self):
        # The writer runs until it has written 300 rows in the new generation (at most 100,000
        # rows in all); the test moves on its progress lines, never on time.
        bound, after_switch = 100000, 300
        migration = HandMadeMigration(self, f"/presplit-sdk-switch-{RUN}", "events", 4, 12)
        err_path = os.path.join(h.BUILD_DIR, "e2e", f"switch-writer-{RUN}.err")

        def writer_log():
            with open(err_path) as f:
                return f.read()

        def written_in_generation_1():
            seqs = [int(m) for m in re.findall(r"writer: (\d+) written, generation 1", writer_log())]
            return max(seqs, default=-1)

        with open(err_path, "w") as err_file:
            writer = migration.start_writer(bound, 2, "0", str(after_switch), stderr=err_file)
        try:
            h.wait_for(lambda: written_in_generation_1() >= 200 or writer.poll() is not None,
                       120, "the writer to write 200 rows in generation 1")
            # The migration has begun: the document already names the next bucket count; the
            # writer must keep to the status (generation 1, 4 buckets) until the switch.
            migration.set_document(12)
            seen = written_in_generation_1()
            h.wait_for(lambda: written_in_generation_1() >= seen + 200 or writer.poll() is not None,
                       120, "200 more rows in generation 1 after the document changed")
            self.assertIsNone(writer.poll(), "the writer stopped before the switch")
            migration.switch()
            out, _ = writer.communicate(timeout=600)
        finally:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
        self.assertEqual(writer.returncode, 0, writer_log()[-3000:])
        written = migration.check_switched(out, writer_log())
        self.assertEqual(written["writes_per_generation"].count("="), 2, written)


class ZooKeeperOutageTest(unittest.TestCase):
    """A writer survives what ZooKeeper does to clients in production (named Z... so that it runs
    last: it stops the cluster's ZooKeeper for a while): its session expires during a long pause
    (the process stopped as a long GC pause stops it), then ZooKeeper itself is down. Writes go
    on all along from the last snapshot, and a generation switch made afterwards still reaches
    the writer through its watches (the periodic re-read is off)."""

    def local_cluster(self, command):
        h.run([os.path.join(h.SOURCE_DIR, "scripts", "local-cluster"), command], timeout=120)

    def test_writer_keeps_writing_and_follows_a_switch_after_expiry_and_outage(self):
        # The writer runs until it has written 300 rows in the new generation (at most 100,000).
        # The fault durations below are real time (a session expires only when time passes);
        # everything else waits for the writer's progress lines.
        bound, after_switch, session_ms = 100000, 300, 4000
        migration = HandMadeMigration(self, f"/presplit-sdk-outage-{RUN}", "outage", 4, 8)
        err_path = os.path.join(h.BUILD_DIR, "e2e", f"outage-writer-{RUN}.err")

        def writer_log():
            with open(err_path) as f:
                return f.read()

        with open(err_path, "w") as err_file:
            writer = migration.start_writer(bound, 20, str(session_ms), str(after_switch),
                                            stderr=err_file)

        def progress_lines():
            return writer_log().count("written, generation 1")

        def more_progress(what):
            seen = progress_lines()
            h.wait_for(lambda: progress_lines() > seen or writer.poll() is not None, 120, what)
            self.assertIsNone(writer.poll(), f"the writer stopped while waiting for {what}")

        zk_down = False
        try:
            h.wait_for(lambda: "written, generation 1" in writer_log(), 120,
                       "the writer to start writing")
            # A pause longer than the session timeout: ZooKeeper expires the session.
            os.kill(writer.pid, signal.SIGSTOP)
            time.sleep(3 * session_ms / 1000)
            os.kill(writer.pid, signal.SIGCONT)
            h.wait_for(lambda: "expired; reconnecting" in writer_log(), 60,
                       "the SDK to see its session expire")
            more_progress("writes after the session expired")
            # ZooKeeper down for twice the session timeout; HBase keeps its 90 s sessions.
            written_before = writer_log().count("written, generation 1")
            self.local_cluster("zk-stop")
            zk_down = True
            time.sleep(2 * session_ms / 1000)
            self.assertIsNone(writer.poll(), "the writer died while ZooKeeper was down")
            self.local_cluster("zk-start")
            zk_down = False
            self.assertGreater(writer_log().count("written, generation 1"), written_before,
                               "no writes while ZooKeeper was down")
            more_progress("writes after ZooKeeper came back")
            migration.set_document(8)
            migration.switch()
            out, _ = writer.communicate(timeout=600)
        finally:
            if zk_down:
                self.local_cluster("zk-start")
            if writer.poll() is None:
                writer.kill()
                writer.wait()
        self.assertEqual(writer.returncode, 0, writer_log()[-3000:])
        migration.check_switched(out, writer_log())


if __name__ == "__main__":
    h.main()
