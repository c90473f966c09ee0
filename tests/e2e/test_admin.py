"""End to end: the portal API (io.presplit.admin.PresplitAdmin) against the real presplitd.

The Java side is tests/e2e/java/AdminE2E.java: it validates, plans, puts with compare-and-set,
awaits the status and removes the document through PresplitAdmin, and prints one JSON line of
evidence. Here that evidence is checked against what HBase really holds (HBaseProbe) and what
presplitctl reads.
"""
import json
import os
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
PROGRAM = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "AdminE2E.java")
JNI_DIR = os.path.join(h.BUILD_DIR, "jni")


class PortalApiTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-admin-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19477,
                              name="presplitd-admin").start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def test_validate_put_await_conflict_remove(self):
        table = f"admin{RUN}:portal"
        command = h.java_command(PROGRAM, [*h.HBASE_CLIENT_JVM, f"-Djava.library.path={JNI_DIR}"],
                                 sdk=True, short_lived=True)
        proc = h.run([*command, "--zk", h.ZK_QUORUM, "--root", self.root, "--table", table],
                     timeout=600)
        self.addCleanup(lambda: h.probe("drop", table, check=False))
        lines = [l for l in proc.stdout.splitlines() if l.strip()]
        evidence = json.loads(lines[-1])
        print(f"evidence: {json.dumps(evidence)}")

        # The validator is libpresplit's, with the field's JSON Pointer.
        self.assertEqual(evidence["pointer"], "/layout/salt/buckets")
        self.assertIn("between 1 and", evidence["message"])
        self.assertEqual(evidence["canonical_table"], table)

        # presplitd applied the put: ready, with the planned regions, which HBase really has.
        self.assertEqual(evidence["phase"], "ready")
        self.assertEqual(evidence["version"], 0)
        self.assertEqual(evidence["plan_regions"], 6)
        self.assertEqual(evidence["regions"], len(evidence["plan_keys"]) + 1)
        self.assertEqual(evidence["physical_table"], table)
        hbase_keys = h.probe("split-keys", table).stdout.split()
        self.assertEqual(hbase_keys, evidence["plan_keys"])

        # Compare-and-set: the second operator's save won, the stale one named its version.
        self.assertEqual(evidence["second"], 1)
        self.assertEqual(evidence["conflict_current"], 1)
        self.assertEqual(evidence["second_phase"], "ready")

        # remove: the document is gone, presplitd drops the status, the table stays.
        self.assertTrue(evidence["removed"])
        self.assertTrue(evidence["gone"])
        h.wait_for(lambda: h.ctl(self.root, "status", table, check=False).returncode != 0, 60,
                   f"the status of {table} to be removed")
        self.assertEqual(h.probe("exists", table).stdout.strip(), "true")


if __name__ == "__main__":
    h.main()
