"""End to end: two presplitd on one ZooKeeper root, one leader, fail-over without double creates.

Runs against the local cluster started by scripts/local-cluster (ctest fixture). The daemons use
a short ZooKeeper session timeout so a SIGKILLed or paused leader's election node goes quickly.
Each test has a root and a pair of daemons of its own.
"""
import json
import os
import signal
import tempfile
import time
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
SESSION_TIMEOUT_S = 4
RESYNC_INTERVAL_S = 5  # the longest a pass waits for its turn when no event comes
# A standby leads within the session timeout plus one pass; the deadlines of the waits below
# allow three times that for a loaded test machine, the measured time is checked separately.
TAKEOVER_BUDGET_S = SESSION_TIMEOUT_S + RESYNC_INTERVAL_S
FINAL_PHASES = ["ready", "error", "invalid", "drift"]


def write_doc(table, regions):
    doc = {"version": 1, "table": table, "split": {"algorithm": "hex-string", "regions": regions},
           "families": [{"name": "f"}]}
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return path


def without_load(status):
    return {key: value for key, value in status.items() if key != "load"}


class LeaderTest(unittest.TestCase):
    def setUp(self):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        self.root = f"/presplit-e2e-leader-{uuid.uuid4().hex[:8]}"
        settings = {"zk_session_timeout_ms": SESSION_TIMEOUT_S * 1000,
                    "resync_interval_s": RESYNC_INTERVAL_S}
        base = 19480 if self._testMethodName.endswith("sigkill") else 19482
        self.daemons = []
        for i, name in enumerate(["a", "b"]):
            d = h.Daemon(self.root, http_port=base + i, name=f"presplitd-leader-{name}",
                         settings=settings)
            self.daemons.append(d)
            d.start()  # waits for /healthz 200: a standby is healthy too

    def tearDown(self):
        for d in self.daemons:
            if d.alive():
                d.proc.send_signal(signal.SIGCONT)  # a paused one must hear the SIGTERM
                d.stop()
            elif d.log is not None:
                d.log.close()

    # --- helpers ---------------------------------------------------------------------------

    def leader_and_standby(self):
        h.wait_for(lambda: sorted(d.metrics()["presplit_leader"] for d in self.daemons) == [0, 1],
                   30, "exactly one presplitd reporting presplit_leader 1")
        leader, standby = sorted(self.daemons, key=lambda d: -d.metrics()["presplit_leader"])
        self.assertIn("leading as n_", leader.log_text())
        self.assertIn("standing by behind n_", standby.log_text())
        return leader, standby

    def creating_lines(self, table):
        """How many times any of the daemons set out to create `table`."""
        return sum(d.log_text().count(f"table default:{table}: creating with")
                   for d in self.daemons)

    def put_and_wait_ready(self, table, regions, creator):
        doc = write_doc(table, regions)
        h.ctl(self.root, "put", doc)
        status = h.wait_status(self.root, table, FINAL_PHASES)
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["daemon"].rsplit(":", 1)[1], str(creator.proc.pid), status)
        # HBase itself has the planned regions.
        planned = h.ctl(self.root, "plan", doc).stdout.split()
        self.assertEqual(h.probe("split-keys", table).stdout.split(), planned)
        self.assertEqual(self.creating_lines(table), 1)

    def wait_takeover(self, standby, since):
        h.wait_for(lambda: standby.metrics()["presplit_leader"] == 1, 3 * TAKEOVER_BUDGET_S,
                   "the standby to report presplit_leader 1")
        took = time.time() - since
        print(f"standby leads {took:.1f} s after the leader went")
        self.assertLessEqual(took, TAKEOVER_BUDGET_S + 3, standby.log_text())

    # --- tests -----------------------------------------------------------------------------

    def test_one_leader_acts_and_a_standby_takes_over_after_sigkill(self):
        leader, standby = self.leader_and_standby()
        first = f"e2e_leader_first_{RUN}"
        self.put_and_wait_ready(first, 6, creator=leader)
        # The standby has not run a single pass: nothing it could have touched.
        self.assertEqual(standby.metrics()["presplit_reconcile_passes_total"], 0)
        self.assertEqual(standby.metrics()["presplit_leader"], 0)

        leader.proc.kill()  # SIGKILL: no resignation, the node goes when the session times out
        killed_at = time.time()
        leader.proc.wait()
        self.wait_takeover(standby, killed_at)

        second = f"e2e_leader_second_{RUN}"
        self.put_and_wait_ready(second, 3, creator=standby)
        # The new leader looked at every document again on taking over and found the first
        # table in place: one "creating with" line per table across both daemons' logs.
        h.wait_for(lambda: f"table default:{first}: ready" in standby.log_text(), 30,
                   "the new leader to check the first table")
        self.assertEqual(self.creating_lines(first), 1)
        self.assertEqual(h.status(self.root, first)["phase"], "ready")

    def test_paused_leader_is_deposed_and_stands_by_sigstop(self):
        leader, standby = self.leader_and_standby()
        # A leader frozen (SIGSTOP: a long GC pause, a stalled VM) past its session timeout.
        leader.proc.send_signal(signal.SIGSTOP)
        paused_at = time.time()
        self.wait_takeover(standby, paused_at)
        table = f"e2e_leader_paused_{RUN}"
        self.put_and_wait_ready(table, 4, creator=standby)
        status_before = h.status(self.root, table)

        # It wakes up: its session has expired, so it must not act, and it queues again.
        leader.proc.send_signal(signal.SIGCONT)
        h.wait_for(lambda: "lost leadership" in leader.log_text(), 30,
                   "the woken leader to notice it lost leadership")
        h.wait_for(lambda: "standing by behind n_" in leader.log_text()
                   and leader.metrics()["presplit_leader"] == 0, 30,
                   "the woken leader to stand by")
        standby_node = standby.log_text().split("leading as ")[1].split()[0]
        self.assertIn(f"standing by behind {standby_node}", leader.log_text())
        self.assertEqual(standby.metrics()["presplit_leader"], 1)
        # Nothing done twice, the new leader's status untouched by the old one. The new
        # leader's load watcher adds and refreshes the status's `load` section on its own
        # schedule (it may land after status_before was read); everything else is the
        # reconciler's, stamped with the writing daemon's id, and must be exactly as it was.
        self.assertEqual(self.creating_lines(table), 1)
        self.assertEqual(without_load(h.status(self.root, table)), without_load(status_before))

        # The deposed daemon keeps standing by while the leader serves the next document.
        after = f"e2e_leader_after_{RUN}"
        self.put_and_wait_ready(after, 2, creator=standby)
        self.assertEqual(leader.metrics()["presplit_leader"], 0)


if __name__ == "__main__":
    h.main()
