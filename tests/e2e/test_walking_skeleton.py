"""End to end: a portal document in ZooKeeper becomes a pre-split table on a real HBase.

Runs against the local cluster started by scripts/local-cluster (ctest fixture). Each test class
uses its own ZooKeeper root so runs do not see each other's documents; HBase tables are named per
run for the same reason.
"""
import json
import os
import tempfile
import time
import unittest
import urllib.request
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
REFERENCE_DOC = os.path.join(h.SOURCE_DIR, "conf", "tables", "tinawang-check.json")


def write_doc(doc):
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def doc_for(table, **overrides):
    doc = {
        "version": 1,
        "table": table,
        "split": {"algorithm": "hex-string", "regions": 4},
        "families": [{"name": "f"}],
    }
    doc.update(overrides)
    return doc


class WalkingSkeletonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-e2e-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19464).start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def test_1_reference_document_becomes_presplit_table(self):
        # No zk_auth_file: the znodes stay open, as before access control, and the daemon says so
        # once at start.
        self.assertEqual(self.daemon.log_text().count("ZooKeeper access control is off"), 1)
        put = h.ctl(self.root, "put", REFERENCE_DOC)
        self.assertIn("10 regions planned", put.stdout)
        status = h.wait_status(self.root, "tinawang:check", ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["regions"], 10)
        self.assertIsNone(status["error"])

        # The region boundaries as the HBase client sees them equal the offline plan.
        planned = h.ctl(self.root, "plan", REFERENCE_DOC).stdout.split()
        self.assertEqual(planned, [str(i) for i in range(1, 10)])
        actual = h.probe("split-keys", "tinawang:check").stdout.split()
        self.assertEqual(actual, planned)

        described = json.loads(h.probe("describe", "tinawang:check").stdout)
        self.assertTrue(described["exists"])
        [family] = described["families"]
        self.assertEqual(family["name"], "f")
        self.assertEqual(family["compression"], "SNAPPY")
        self.assertEqual(family["data_block_encoding"], "FAST_DIFF")
        self.assertEqual(family["bloom_filter"], "ROW")

        # SNAPPY really works on this cluster: write a row into a bucket and read the table back.
        h.probe("put", "tinawang:check", "3" + "a" * 32 + "id1", "f:q", "v")
        self.assertEqual(h.probe("count", "tinawang:check").stdout.strip(), "1")

        # This cluster runs without HBase's AccessController: the start-time permission check
        # says so and checks nothing (docs/deploying.md, the start-time check).
        def permissions():
            url = f"http://127.0.0.1:{self.daemon.http_port}/status"
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.load(r)["permissions"]
        checked = h.wait_for(lambda: (lambda p: p if p["checked_at_ms"] else None)(permissions()),
                             60, "the permission check")
        self.assertEqual(checked["summary"], "authorization off, not checked", checked)
        self.assertIs(checked["authorization"], False)
        self.assertEqual(checked["missing"], [])
        self.assertEqual(self.daemon.metrics()["presplit_permissions_missing"], 0)
        self.assertIn("HBase permissions: authorization off, not checked",
                      self.daemon.log_text())

    def test_2_same_document_twice_and_restart_change_nothing(self):
        table = f"e2e_idem_{RUN}"
        path = write_doc(doc_for(table, split={"algorithm": "decimal-string", "regions": 5}))
        h.ctl(self.root, "put", path)
        first = h.wait_status(self.root, table, ["ready"])
        regions_before = json.loads(h.probe("describe", table).stdout)["regions"]
        self.assertEqual(len(regions_before), 5)

        again = h.ctl(self.root, "put", path)  # the same document again
        self.assertIn("nothing written", again.stdout)
        self.daemon.wait_passes(2)
        self.assertEqual(h.status(self.root, table)["updated_at"], first["updated_at"])
        self.assertEqual(h.status(self.root, table)["config_version"], first["config_version"])

        self.assertEqual(self.daemon.stop(), 0, "presplitd must exit 0 on SIGTERM")
        self.daemon.start()
        self.daemon.wait_passes(2)
        after = h.status(self.root, table)
        self.assertEqual(after["phase"], "ready")
        self.assertEqual(after["updated_at"], first["updated_at"], "status rewritten on restart")
        regions_after = json.loads(h.probe("describe", table).stdout)["regions"]
        self.assertEqual([r["name"] for r in regions_after], [r["name"] for r in regions_before],
                         "regions changed: the table was touched")
        self.assertIn("table default:" + table + ": ready", self.daemon.log_text())

    def test_3_bad_documents_are_refused_and_the_daemon_keeps_serving(self):
        # presplitctl refuses a malformed document and writes nothing.
        malformed = write_doc('{"version": 1, "table": "e2e_bad_' + RUN + '", ')
        refused = h.ctl(self.root, "put", malformed, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("nothing written", refused.stderr)
        self.assertEqual(h.ctl(self.root, "get", f"e2e_bad_{RUN}", check=False).returncode, 1)

        # An unknown compression: refused by presplitctl, naming the field and the value.
        unknown = doc_for(f"e2e_codec_{RUN}", families=[{"name": "f", "compression": "SNAPPYX"}])
        refused = h.ctl(self.root, "put", write_doc(unknown), check=False)
        self.assertEqual(refused.returncode, 1)
        # The field by its JSON Pointer, as PresplitAdmin.validate names it to a portal.
        self.assertIn("nothing written: /families/0/compression: unknown compression 'SNAPPYX'",
                      refused.stderr)

        # The same documents written by a buggy portal reach the daemon, which refuses them too.
        h.ctl(self.root, "put", "--force", write_doc(unknown))
        status = h.wait_status(self.root, f"e2e_codec_{RUN}", ["invalid", "ready", "error"])
        self.assertEqual(status["phase"], "invalid")
        self.assertIn("/families/0/compression: unknown compression 'SNAPPYX'", status["error"])
        self.assertIn("SNAPPYX", status["error"])
        self.assertEqual(h.probe("exists", f"e2e_codec_{RUN}").stdout.strip(), "false")

        malformed_table = f"e2e_broken_{RUN}"
        h.ctl(self.root, "put", "--force", "--table", malformed_table, malformed)
        status = h.wait_status(self.root, malformed_table, ["invalid", "ready", "error"])
        self.assertEqual(status["phase"], "invalid")
        self.assertIn("JSON", status["error"])
        self.assertEqual(h.probe("exists", malformed_table).stdout.strip(), "false")

        # A codec the cluster does not have (LZO needs native hadoop-lzo): HBase refuses the
        # create; the status names the codec and the table does not exist.
        lzo = doc_for(f"e2e_lzo_{RUN}", families=[{"name": "f", "compression": "LZO"}])
        h.ctl(self.root, "put", write_doc(lzo))
        status = h.wait_status(self.root, f"e2e_lzo_{RUN}", ["error", "ready", "invalid"])
        self.assertEqual(status["phase"], "error", status)
        self.assertIn("lzo", status["error"].lower())
        self.assertEqual(h.probe("exists", f"e2e_lzo_{RUN}").stdout.strip(), "false")

        # presplitctl status shows the error to the portal.
        shown = h.ctl(self.root, "status", f"e2e_lzo_{RUN}")
        self.assertIn("lzo", shown.stdout.lower())

        # The daemon is still running and serves the next valid document.
        self.assertTrue(self.daemon.alive())
        good = f"e2e_after_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(good, split={"algorithm": "uniform", "regions": 3})))
        self.assertEqual(h.wait_status(self.root, good, ["ready", "error"])["phase"], "ready")
        self.assertEqual(h.probe("split-keys", good).stdout.split(),
                         h.ctl(self.root, "plan", "--algorithm", "uniform", "--regions", "3").stdout.split())


if __name__ == "__main__":
    h.main()
