"""End to end: two presplitd on one ZooKeeper root, one leader, fail-over without double creates.

Runs against the local cluster started by scripts/local-cluster (ctest fixture). Both daemons
use a short ZooKeeper session timeout so the SIGKILLed leader's election node goes quickly.
"""
import json
import os
import tempfile
import time
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
SESSION_TIMEOUT_S = 4
RESYNC_INTERVAL_S = 5  # harness.Daemon's default: the longest one pass can wait for its turn


def write_doc(table, regions):
    doc = {"version": 1, "table": table, "split": {"algorithm": "hex-string", "regions": regions},
           "families": [{"name": "f"}]}
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return path


def leader_flags(daemons):
    return [d.metrics()["presplit_leader"] for d in daemons]


class LeaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-e2e-leader-{RUN}"
        settings = {"zk_session_timeout_ms": SESSION_TIMEOUT_S * 1000,
                    "resync_interval_s": RESYNC_INTERVAL_S}
        # Both must be healthy: a standby answers /healthz with 200 too.
        cls.daemons = [
            h.Daemon(cls.root, http_port=19480, name="presplitd-leader-a", settings=settings).start(),
            h.Daemon(cls.root, http_port=19481, name="presplitd-leader-b", settings=settings).start(),
        ]

    @classmethod
    def tearDownClass(cls):
        for d in cls.daemons:
            if d.alive():
                d.stop()

    def creating_lines(self, table):
        return sum(d.log_text().count(f"table default:{table}: creating with") for d in self.daemons)

    def assert_table_as_planned(self, table, doc):
        planned = h.ctl(self.root, "plan", doc).stdout.split()
        self.assertEqual(h.probe("split-keys", table).stdout.split(), planned)

    def test_one_leader_acts_and_a_standby_takes_over_after_sigkill(self):
        h.wait_for(lambda: sorted(leader_flags(self.daemons)) == [0, 1], 30,
                   "exactly one presplitd reporting presplit_leader 1")
        leader, standby = sorted(self.daemons, key=lambda d: -d.metrics()["presplit_leader"])
        self.assertIn("leading as n_", leader.log_text())
        self.assertIn("standing by behind n_", standby.log_text())

        first = f"e2e_leader_first_{RUN}"
        first_doc = write_doc(first, 6)
        h.ctl(self.root, "put", first_doc)
        status = h.wait_status(self.root, first, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["daemon"].rsplit(":", 1)[1], str(leader.proc.pid))
        self.assertEqual(self.creating_lines(first), 1)
        self.assert_table_as_planned(first, first_doc)
        # The standby has not run a single pass: nothing it could have touched.
        self.assertEqual(standby.metrics()["presplit_reconcile_passes_total"], 0)
        self.assertEqual(standby.metrics()["presplit_leader"], 0)

        leader.proc.kill()  # SIGKILL: no resignation, the node goes when the session times out
        killed_at = time.time()
        leader.proc.wait()
        takeover_budget = SESSION_TIMEOUT_S + RESYNC_INTERVAL_S
        # The deadline allows for a loaded test machine; the measured time is checked below.
        h.wait_for(lambda: standby.metrics()["presplit_leader"] == 1, 3 * takeover_budget,
                   "the standby to report presplit_leader 1")
        took = time.time() - killed_at
        print(f"standby leads {took:.1f} s after the SIGKILL")
        self.assertLessEqual(took, takeover_budget + 3, standby.log_text())

        second = f"e2e_leader_second_{RUN}"
        second_doc = write_doc(second, 3)
        h.ctl(self.root, "put", second_doc)
        status = h.wait_status(self.root, second, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["daemon"].rsplit(":", 1)[1], str(standby.proc.pid))
        self.assert_table_as_planned(second, second_doc)

        # The new leader looked at every document again on taking over, and created nothing
        # twice: one "creating with" line per table across both daemons' logs.
        h.wait_for(lambda: f"table default:{first}: ready" in standby.log_text(), 30,
                   "the new leader to check the first table")
        self.assertEqual(self.creating_lines(first), 1)
        self.assertEqual(self.creating_lines(second), 1)
        self.assertEqual(h.status(self.root, first)["phase"], "ready")


if __name__ == "__main__":
    unittest.main(verbosity=2)
