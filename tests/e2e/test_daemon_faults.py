"""End to end: presplitd survives whatever ZooKeeper, HBase and the portal throw at it.

Real ZooKeeper and HBase (the shared local cluster, a ctest fixture). Documents with bytes no
portal should write are stored with the plain ZooKeeper client (java/ZkRaw.java), tables are
dropped with the plain HBase client (java/HBaseProbe.java). The tests that stop ZooKeeper and the
HMaster run last (test_8_, test_9_) and leave the cluster running.
"""
import json
import os
import random
import signal
import subprocess
import tempfile
import time
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
ZK_RAW = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "ZkRaw.java")
LOCAL_CLUSTER = os.path.join(h.SOURCE_DIR, "scripts", "local-cluster")
# ZooKeeper refuses a request above jute.maxbuffer (1 MiB, framing included).
ALMOST_ONE_MIB = 1024 * 1024 - 4096


def zk_raw(*args, data=b""):
    proc = subprocess.run([*h.java_command(ZK_RAW, short_lived=True), h.ZK_QUORUM, *args], input=data,
                          capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"ZkRaw {args} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def write_doc(doc):
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return path


def doc_for(table, regions=4, **overrides):
    doc = {"version": 1, "table": table, "split": {"algorithm": "hex-string", "regions": regions},
           "families": [{"name": "f"}]}
    doc.update(overrides)
    return doc


def printable(text):
    return all(0x20 <= ord(c) < 0x7F for c in text)


def cluster(verb):
    proc = subprocess.run([LOCAL_CLUSTER, verb], capture_output=True, text=True, timeout=400)
    if proc.returncode != 0:
        raise AssertionError(f"local-cluster {verb} failed:\n{proc.stdout}{proc.stderr}")


class DaemonFaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-faults-{RUN}"
        # A short session, so that a ZooKeeper outage expires it within the test.
        cls.daemon = h.Daemon(cls.root, http_port=19474, name="faults",
                              settings={"zk_session_timeout_ms": 6000}).start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def metric(self, name):
        return self.daemon.metrics().get(name, 0)

    def test_1_any_bytes_end_invalid_and_the_next_document_is_served(self):
        rng = random.Random(RUN)
        documents = {
            f"default:notutf8_{RUN}": b'{"version": 1, "table": "x\xff\xfe\xc3("}',
            f"default:random_{RUN}": bytes(rng.getrandbits(8) for _ in range(ALMOST_ONE_MIB)),
            f"default:nested_{RUN}": b"[" * 100000,
        }
        for name, data in documents.items():
            zk_raw("set", f"{self.root}/tables/{name}", data=data)
        for name in documents:
            status = h.wait_status(self.root, name, ["invalid", "error", "ready"])
            self.assertEqual(status["phase"], "invalid", status)
            self.assertTrue(printable(status["error"]), status["error"])
        self.assertIn("\\xFF", h.status(self.root, f"default:notutf8_{RUN}")["error"])
        self.assertTrue(self.daemon.alive())
        table = f"after_garbage_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        status = h.wait_status(self.root, table, ["ready", "error"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(h.probe("regions-count", table).stdout.strip(), "4")
        self.assertEqual(self.metric("presplit_exceptions_caught_total"), 0)
        # The operator's view: an aligned table, and a name presplitctl would not have chosen.
        shown = h.ctl(self.root, "status").stdout.splitlines()
        self.assertEqual(shown[0].split(), ["TABLE", "PHASE", "REGIONS", "BUCKETS", "GENERATION",
                                            "UPDATED", "ERROR"])
        row = next(l for l in shown if l.startswith(f"default:{table} "))
        self.assertEqual(row.split()[1:3], ["ready", "4"])
        self.assertEqual(shown[0].index("PHASE"), row.index("ready"))
        as_json = [json.loads(l) for l in h.ctl(self.root, "status", "--format", "json").stdout.splitlines()]
        self.assertIn(f"default:{table}", [s["table"] for s in as_json])
        zk_raw("set", f"{self.root}/tables/garbage", data=b"not json")
        self.assertEqual(h.wait_status(self.root, "garbage", ["invalid"])["phase"], "invalid")

    def test_2_wait_waits_for_the_version_just_written(self):
        table = f"wait_version_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        first = h.wait_status(self.root, table, ["ready"])
        # A changed document: --wait must not return the previous version's "ready".
        h.ctl(self.root, "put", write_doc(doc_for(table, regions=6)))
        second = h.wait_status(self.root, table, ["ready", "drift", "error"])
        self.assertEqual(second["config_version"], first["config_version"] + 1, second)
        self.assertEqual(second["phase"], "drift", second)  # 4 regions exist, 6 asked: reported

    def test_3_table_dropped_behind_the_daemons_back_is_reported_missing(self):
        table = f"dropped_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        self.assertEqual(h.wait_status(self.root, table, ["ready", "error"])["phase"], "ready")
        h.probe("drop", table)
        h.wait_for(lambda: h.status(self.root, table)["phase"] == "missing", 60,
                   "the next full pass to report the dropped table")
        self.assertIn("dropped outside presplit", h.status(self.root, table)["error"])
        self.assertEqual(h.probe("exists", table).stdout.strip(), "false")  # not re-created

    def test_4_sighup_runs_a_full_pass_and_reloads_the_config(self):
        with open(self.daemon.conf_path, "a") as f:
            f.write("resync_interval_s = 600\nlog_level = debug\nzk_root = /elsewhere\n")
        before = self.metric("presplit_reconcile_full_passes_total")
        self.daemon.proc.send_signal(signal.SIGHUP)
        h.wait_for(lambda: self.metric("presplit_reconcile_full_passes_total") > before, 30,
                   "a full pass after SIGHUP")
        log = self.daemon.log_text()
        self.assertIn("SIGHUP: resync_interval_s is now 600", log)
        self.assertIn("SIGHUP: setting zk_root changed; it takes effect after a restart", log)
        # With a 600 s interval only SIGHUP can run the next full pass: it is the signal's doing.
        before = self.metric("presplit_reconcile_full_passes_total")
        self.daemon.proc.send_signal(signal.SIGHUP)
        h.wait_for(lambda: self.metric("presplit_reconcile_full_passes_total") > before, 30,
                   "a second full pass after SIGHUP")
        with open(self.daemon.conf_path) as f:
            text = f.read()
        with open(self.daemon.conf_path, "w") as f:
            f.write(text.replace("resync_interval_s = 600\nlog_level = debug\nzk_root = /elsewhere\n",
                                 ""))
        self.daemon.proc.send_signal(signal.SIGHUP)
        h.wait_for(lambda: "SIGHUP: resync_interval_s is now 5" in self.daemon.log_text(), 30,
                   "the interval back to 5 s")

    def test_5_document_removed_while_down_loses_its_status(self):
        table = f"removed_while_down_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        self.assertEqual(h.wait_status(self.root, table, ["ready", "error"])["phase"], "ready")
        started = time.monotonic()
        self.assertEqual(self.daemon.stop(), 0)
        # Within the systemd unit's TimeoutStopSec (30 s), so it is never killed.
        self.assertLess(time.monotonic() - started, 30)
        h.ctl(self.root, "rm", table)
        self.daemon.start()
        h.wait_for(lambda: h.ctl(self.root, "status", table, check=False).returncode != 0, 60,
                   "the status of the removed document to go")
        self.assertEqual(h.probe("exists", table).stdout.strip(), "true")  # data left alone

    def test_8_zookeeper_outage_past_the_session_timeout(self):
        # ZooKeeper restores its sessions when it restarts and times them out from then on, so
        # a client that reconnects at once keeps its session however long the outage was. For
        # the daemon's session to expire for real, it stays away (stopped with SIGSTOP) past its
        # 6 s session timeout after ZooKeeper is back.
        frozen = False
        try:
            cluster("zk-stop")
            h.wait_for(lambda: self.daemon.healthz()[0] == 503, 30, "/healthz 503 without ZooKeeper")
            self.assertIn("not connected to ZooKeeper", self.daemon.healthz()[1])
            self.daemon.proc.send_signal(signal.SIGSTOP)
            frozen = True
            cluster("zk-start")
            # ZooKeeper expires the stopped daemon's session: its ephemeral election node goes.
            h.wait_for(lambda: not zk_raw("children", f"{self.root}/leader").split(), 60,
                       "ZooKeeper to expire the frozen daemon's session")
        finally:
            if frozen:
                self.daemon.proc.send_signal(signal.SIGCONT)
            cluster("zk-start")
        h.wait_for(lambda: "ZooKeeper session expired" in self.daemon.log_text(), 60,
                   "the daemon to find its session expired")
        self.daemon.wait_healthy(timeout=120)
        table = f"after_zk_outage_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        status = h.wait_status(self.root, table, ["ready", "error"], timeout=180)
        self.assertEqual(status["phase"], "ready", status)
        self.assertTrue(self.daemon.alive())

    def test_9_hmaster_outage(self):
        table = f"after_master_outage_{RUN}"
        try:
            cluster("master-stop")
            h.ctl(self.root, "put", write_doc(doc_for(table)))
            h.wait_for(lambda: self.daemon.healthz()[0] == 503, 120,
                       "/healthz 503 while the HMaster is down")
            self.assertIn("HBase", self.daemon.healthz()[1])
        finally:
            cluster("master-start")
        status = h.wait_status(self.root, table, ["ready"], timeout=240)
        self.assertEqual(status["regions"], 4)
        # The failed connection was dropped and a new one opened, in the same process.
        self.assertIn("reconnecting on the next call", self.daemon.log_text())
        self.assertTrue(self.daemon.alive())
        self.daemon.wait_healthy(timeout=120)
        self.assertEqual(h.probe("regions-count", table).stdout.strip(), "4")


if __name__ == "__main__":
    h.main()
