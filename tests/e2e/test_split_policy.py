"""End to end: NativeSplitPolicy, LoadSamplingObserver and BucketGuardObserver on a real HBase.

Runs against the production-shaped cluster (ctest fixture split_cluster: three RegionServers on
HDFS; they and the HMaster load presplit-hbase.jar and libpresplit_jni.so, and the HMaster the
bucket guard). A table's regions may be on any of the servers: the tests read every
RegionServer's log. Tables are driven with tests/e2e/java/SplitWorkload.java and checked with the
plain HBase client (HBaseProbe), never through presplit's own code.

HBase's balancer is off while they run (and put back as it was after): HBase asks a region
whether it should split only after a flush or a compaction on it, and a region the balancer
moves while a round's flush and major compaction are under way reopens on another server
without either, so nothing asks it again until the next write; the tests' writes are over by
then and the split never comes. Moves are tested on purpose instead
(test_a_moved_region_is_split_by_the_policy_of_its_new_server).
"""
import glob
import json
import os
import re
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:6]
WORKLOAD = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SplitWorkload.java")
# Every RegionServer's log (regionserver.log, regionserver2.log, ...): a region may be on any.
RS_LOGS = os.path.join(os.environ["PRESPLIT_CLUSTER_DIR"], "logs", "regionserver*.log")
POLICY = "io.presplit.hbase.NativeSplitPolicy"
SAMPLER = "io.presplit.hbase.coprocessor.LoadSamplingObserver"
GROUP_BOUNDARY = re.compile(r"^g\d{5}\|$")


def cuts_a_group(key):
    """Whether a region boundary at `key` has rows of one group on both sides. Every row of these
    tables starts with its group ('g00042|'), so that is a key holding a whole group and more. A
    key that stops before a delimiter cuts no group: HBase's mid key between two groups, the
    shortened block-index key 'g00188' between 'g00187|...' and 'g00188|...', is one, and the
    policy keeps it (a candidate with no complete group is a group boundary itself)."""
    return "|" in key and key.index("|") < len(key) - 1


def workload(*args, props=(), timeout=300):
    cmd = [*h.java_command(WORKLOAD, [f"-D{p}" for p in props]), "--zk", h.ZK_QUORUM, *args]
    return h.run(cmd, timeout=timeout).stdout


def split_keys(table):
    return h.probe("split-keys", table).stdout.split()


def rs_log():
    text = []
    for path in sorted(glob.glob(RS_LOGS)):
        with open(path, errors="replace") as f:
            text.append(f.read())
    return "".join(text)


def rs_log_lines(table, *words):
    return [l for l in rs_log().splitlines() if f"region {table}," in l
            and all(w in l for w in words)]


class SplitPolicyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.balancer_was_on = workload("balancer", "off").strip() == "true"

    @classmethod
    def tearDownClass(cls):
        workload("balancer", "on" if cls.balancer_was_on else "off")

    def assert_group_safe(self, keys):
        for key in keys:
            self.assertFalse(cuts_a_group(key), f"region boundary {key!r} inside a group: {keys}")
            self.assertTrue(key.startswith("g"), keys)

    def fill_until_split(self, table, groups, rows_per_round, rounds, min_regions, first_row=0):
        """Writes `rounds` rounds of rows_per_round rows into every group (500-byte values,
        a flush after each round) and waits until the table has min_regions regions."""
        for r in range(rounds):
            workload("fill", table, str(groups), str(rows_per_round), "500",
                     props=[f"rowOffset={first_row + r * rows_per_round}"])
            # fill returns once the table compacts nothing: the daughters can split again
        return h.wait_for(lambda: len(split_keys(table)) + 1 >= min_regions and split_keys(table),
                        120, f"{table} to have {min_regions} regions")

    def test_delimited_groups_split_on_group_boundaries(self):
        table = f"sp_groups_{RUN}"
        workload("create", table, "--attr", f"SPLIT_POLICY={POLICY}",
                 "--attr", "presplit.layout.group.delimiter=|",
                 "--attr", "MAX_FILESIZE=2621440", "--attr", "MEMSTORE_FLUSHSIZE=1048576")
        keys = self.fill_until_split(table, groups=400, rows_per_round=25, rounds=3,
                                     min_regions=4)
        self.assertGreaterEqual(len(keys), 3, keys)
        self.assert_group_safe(keys)
        # Every group's rows come back with one prefix scan.
        self.assertEqual(workload("check-groups", table, "400", "75").strip(), "ok")
        self.assertTrue(rs_log_lines(table, "split by presplit"))
        self.assertEqual(rs_log_lines(table, "falls back"), [])

    def test_a_moved_region_is_split_by_the_policy_of_its_new_server(self):
        """The policy is set up again wherever a region opens: a region moved with its data to
        another RegionServer is split there by presplit (no fallback), on group boundaries."""
        table = f"sp_moved_{RUN}"
        workload("create", table, "--attr", f"SPLIT_POLICY={POLICY}",
                 "--attr", "presplit.layout.group.delimiter=|",
                 "--attr", "MAX_FILESIZE=2621440", "--attr", "MEMSTORE_FLUSHSIZE=1048576")
        workload("fill", table, "400", "5", "500")  # about 1 MB: below any split size
        self.assertEqual(split_keys(table), [])
        port = workload("move", table, "").strip()
        self.assertRegex(port, r"^\d+$")
        on_new_server = re.compile(rf"\[RS_OPEN_REGION-[^\]]*:{port}-\d+\]")
        self.assertTrue([l for l in rs_log_lines(table, "split by presplit")
                         if on_new_server.search(l)], f"no policy set up on the server at {port}")
        keys = self.fill_until_split(table, groups=400, rows_per_round=25, rounds=2,
                                     min_regions=2, first_row=5)
        self.assert_group_safe(keys)
        # Its daughters opened where it was split: on the new server, with presplit's policy.
        self.assertTrue([l for l in rs_log_lines(table, "split by presplit")
                         if f"region {table},{keys[0]}," in l and on_new_server.search(l)],
                        f"no daughter of {table} at {keys[0]!r} opened on the server at {port}")
        self.assertEqual(workload("check-groups", table, "400", "55").strip(), "ok")
        self.assertEqual(rs_log_lines(table, "falls back"), [])

    def test_broken_parameter_falls_back_to_stepping_and_says_why(self):
        table = f"sp_broken_{RUN}"
        workload("create", table, "--attr", f"SPLIT_POLICY={POLICY}",
                 "--attr", "presplit.split.size-policy=fastest",
                 "--attr", "presplit.layout.group.delimiter=|",
                 "--attr", "MAX_FILESIZE=2621440", "--attr", "MEMSTORE_FLUSHSIZE=1048576")
        keys = self.fill_until_split(table, groups=200, rows_per_round=25, rounds=1,
                                     min_regions=2)
        self.assertTrue(keys)
        log = rs_log_lines(table, "falls back to HBase's SteppingSplitPolicy")
        self.assertTrue(log, "no fallback line in the RegionServer log")
        self.assertIn("WARN", log[0])
        self.assertIn("unknown size split policy 'fastest'", log[0])

    def test_skewed_requests_give_a_load_balanced_split_point(self):
        table = f"sp_skew_{RUN}"
        groups, hot_groups, hot_percent = 200, 40, 80
        # The sampler keeps the most requested keys, `capacity` per shard (20 by default). The
        # reads here spread over 2,000 keys of nearly equal weight, the sketch's worst case: with
        # 160 kept its estimate of the split point varied by ten groups between runs. 1,600 keep
        # every hot key, so what is tested is the policy's use of the counts, not the sketch's
        # noise on a flat distribution.
        workload("create", table, "--attr", f"SPLIT_POLICY={POLICY}",
                 "--attr", "presplit.layout.group.delimiter=|",
                 "--attr", "presplit.load.sampler.capacity=200",
                 "--attr", "MAX_FILESIZE=1073741824")
        # Uniform data: a size-based split would cut near group 100.
        workload("fill", table, str(groups), "20", "200")
        # The sampler is added after the load, so it sees only the skewed reads.
        workload("add-coprocessor", table, SAMPLER)
        workload("gets", table, "6000", str(hot_groups), str(groups), str(hot_percent))
        workload("split", table)
        [key] = split_keys(table)
        self.assertRegex(key, GROUP_BOUNDARY)
        split_group = int(key[1:6])

        def left_share(g):  # share of the workload's reads on groups < g
            hot = hot_percent / 100.0
            return hot * min(g, hot_groups) / hot_groups + \
                (1 - hot) * max(0, g - hot_groups) / (groups - hot_groups)

        self.assertTrue(0.4 <= left_share(split_group) <= 0.6,
                        f"split at group {split_group}: {left_share(split_group):.2f} of reads left")
        self.assertFalse(0.4 <= left_share(groups // 2) <= 0.6)
        self.assertIn("load-balanced split point", rs_log())

    def test_merge_across_salt_buckets_is_refused(self):
        table = f"sp_salted_{RUN}"
        workload("create", table, "--attr", f"SPLIT_POLICY={POLICY}",
                 "--attr", "presplit.managed=true", "--attr", "presplit.layout.salt.buckets=4",
                 "--attr", "presplit.layout.salt.encoding=decimal",
                 "--attr", "presplit.layout.salt.width=2",
                 "--attr", "presplit.layout.group.length=4", "--splits", "01,01mmmm,02,03")
        refused = workload("merge", table, "0", "1").strip()
        self.assertTrue(refused.startswith("refused:"), refused)
        self.assertIn("would join two buckets across the bucket boundary '01'", refused)
        self.assertEqual(split_keys(table), ["01", "01mmmm", "02", "03"])
        # Inside one bucket a merge is fine.
        self.assertEqual(workload("merge", table, "1", "2").strip(), "ok")
        h.wait_for(lambda: split_keys(table) == ["01", "02", "03"], 60, "the merge")
        # A split point inside the 2-character salt prefix is refused too.
        refused = workload("split-at", table, "0").strip()
        self.assertIn("lies inside a 2-byte salt prefix", refused)

    def test_daemon_creates_a_table_with_the_documents_split_policy(self):
        """The document's split_policy becomes the table's policy, coprocessor and parameters,
        on a cluster that has presplit-hbase.jar (HBase refuses a policy it cannot load)."""
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        root = f"/presplit-e2e-policy-{RUN}"
        daemon = h.Daemon(root, http_port=19465, name="presplitd-policy").start()
        try:
            table = f"sp_doc_{RUN}"
            doc = {
                "version": 1, "table": table,
                "layout": {"salt": {"buckets": 4, "encoding": "decimal", "width": 2},
                           "group": {"delimiter": "|"}},
                "split": {"algorithm": "salt-buckets"},
                "families": [{"name": "f"}],
                "split_policy": {"size_policy": "increasing-to-upper-bound",
                                 "max_file_size": 2621440, "max_imbalance": 0.2},
            }
            path = os.path.join(daemon.dir, "doc.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            h.ctl(root, "put", path)
            status = h.wait_status(root, table, ["ready", "error", "drift", "invalid"])
            self.assertEqual(status["phase"], "ready", status)

            described = json.loads(h.probe("describe", table).stdout)
            attributes = described["attributes"]
            self.assertEqual(attributes.get("SPLIT_POLICY"), POLICY)
            self.assertEqual(attributes.get("presplit.split.size-policy"),
                             "increasing-to-upper-bound")
            self.assertEqual(attributes.get("MAX_FILESIZE"), "2621440")
            self.assertEqual(attributes.get("presplit.load.max-imbalance"), "0.2")
            self.assertEqual(attributes.get("presplit.managed"), "true")
            self.assertEqual(attributes.get("presplit.layout.salt.width"), "2")
            self.assertEqual(attributes.get("presplit.layout.group.delimiter"), "|")
            self.assertTrue(any(SAMPLER in v for k, v in attributes.items()
                                if k.startswith("coprocessor")), attributes)
            self.assertEqual(split_keys(table), ["01", "02", "03"])

            # The master's guard protects the daemon-created table's buckets.
            refused = workload("merge", table, "0", "1").strip()
            self.assertTrue(refused.startswith("refused:"), refused)

            # A restarted daemon finds the table as the document describes it: no drift.
            self.assertEqual(daemon.stop(), 0)
            daemon.start()
            daemon.wait_passes(2)
            self.assertEqual(h.status(root, table)["phase"], "ready")
        finally:
            if daemon.alive():
                daemon.stop()


if __name__ == "__main__":
    h.main()
