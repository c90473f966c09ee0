"""End to end: presplitd's load watcher splits hot regions of a live table, on a real HBase.

Runs on the split-policy cluster (ctest fixture split_cluster), whose RegionServers load
presplit-hbase.jar and libpresplit_jni.so, so the split the watcher asks for (without a point) is
placed by NativeSplitPolicy from the LoadSamplingObserver's samples. The load comes from
tests/e2e/java/SplitWorkload.java through the plain HBase client; region counts are checked with
HBaseProbe, decisions and rates through the daemon's GET /status and the tables' status
znodes (presplitctl status), as an operator would. One table has HBase's own split policy: the
daemon computes its split point from a key sample. One document is served by a physical table of
another name (generation 2, as after a re-salting migration's switch): that table is split.
"""
import json
import os
import shutil
import subprocess
import time
import unittest
import urllib.request
import uuid

import harness as h

RUN = uuid.uuid4().hex[:6]
ROOT = f"/presplit-e2e-load-{RUN}"
WORKLOAD = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SplitWorkload.java")
ZK_RAW = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "ZkRaw.java")
GROUPS = 400
# Four regions of 100 groups each: rows g00000|000000 .. g00399|000009.
SPLIT_KEYS = ["g00100|", "g00200|", "g00300|"]


def workload(*args, timeout=300):
    return h.run([*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, *args], timeout=timeout).stdout


def background_gets(table, seconds, hot_groups, hot_percent=100, rows=10):
    """Gets on the table's rows for `seconds`, HOT_PERCENT of them on groups [0, hot_groups)."""
    return subprocess.Popen([*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, "gets-for",
                             f"default:{table}", str(seconds), str(hot_groups), str(GROUPS),
                             str(hot_percent), str(rows)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def document(table, load_split, native_policy=True):
    doc = {
        "version": 1,
        "table": f"default:{table}",
        "layout": {"group": {"delimiter": "|"}},
        "split": {"algorithm": "explicit", "keys": SPLIT_KEYS},
        "split_policy": {"size_policy": "constant-size", "load_balanced": True,
                         "min_requests": 20},
        "load_split": load_split,
        "families": [{"name": "f"}],
    }
    if not native_policy:
        del doc["split_policy"]  # HBase's own split policy: presplitd computes the point
    return doc


def regions(table):
    return int(h.probe("regions-count", f"default:{table}").stdout.strip())


def zk_set(path, data):
    """Writes a znode byte for byte with the plain ZooKeeper client (as a migration's switch or
    an operator would), parents created as needed."""
    h.run([*h.java_command(ZK_RAW, short_lived=True), h.ZK_QUORUM, "set", path],
          input=data, timeout=120)


class LoadSplitTest(unittest.TestCase):
    daemon = None

    @classmethod
    def setUpClass(cls):
        cls.daemon = h.Daemon(ROOT, 19470, name="presplitd-load",
                              settings={"load_watch_interval_s": 2,
                                        # the tests here split more than the default 4
                                        # splits a window allow over all tables
                                        "load_split_max_per_window": 20}).start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon is not None:
            cls.daemon.stop()

    def setUp(self):
        self.loads = []

    def tearDown(self):
        for proc in self.loads:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)

    def status(self):
        url = f"http://127.0.0.1:{self.daemon.http_port}/status"
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read().decode())

    def table_load(self, table):
        for t in self.status()["load"]["tables"]:
            if t["table"] == f"default:{table}":
                return t
        return None

    def decisions(self, table):
        t = self.table_load(table)
        return t["decisions"] if t else []

    def wait_decision(self, table, predicate, timeout, what):
        found = []

        def seen():
            found[:] = [d for d in self.decisions(table) if predicate(d)]
            return bool(found)
        try:
            h.wait_for(seen, timeout, what)
        except AssertionError:
            raise AssertionError(f"{what}; decisions {self.decisions(table)}\n"
                                 f"{self.daemon.log_text()[-4000:]}")
        return found[0]

    def recorded_decisions(self, table):
        """The decisions the leader appended to the table's status znode."""
        return h.status(ROOT, f"default:{table}").get("load", {}).get("decisions", [])

    def wait_recorded(self, table, predicate, what):
        found = []

        def seen():
            found[:] = [d for d in self.recorded_decisions(table) if predicate(d)]
            return bool(found)
        h.wait_for(seen, 30, f"{what} in the status znode")
        return found[0]

    def create_filled(self, table, load_split, native_policy=True, rows=10):
        h.ctl(ROOT, "put", "-", input=json.dumps(document(table, load_split, native_policy)))
        h.wait_status(ROOT, f"default:{table}", ["ready"], timeout=180)
        workload("fill", f"default:{table}", str(GROUPS), str(rows), "100")
        self.assertEqual(regions(table), 4)

    def test_a_hot_region_is_split_and_its_halves_share_the_load(self):
        table = f"hot_{RUN}"
        self.create_filled(table, {"dry_run": False, "min_requests_per_s": 20,
                                   "mean_multiple": 2, "sustain_s": 6, "max_regions": 8,
                                   "cooldown_s": 600, "unsplittable_s": 600})
        # Every get on the first region's 100 groups: far below any size threshold.
        self.loads.append(background_gets(table, 300, hot_groups=100))
        started = time.time()
        decision = self.wait_decision(table, lambda d: d["action"] == "split", 120,
                                      "a split decision for the hot region")
        self.assertEqual(decision["start_key"], "", "the first region is the hot one")
        self.assertGreater(decision["requests_per_s"], 2 * decision["table_mean_per_s"])
        self.assertIsNone(decision["split_key"], "NativeSplitPolicy picks the point")
        # The decision is in the table's status znode too, the reconciler's fields kept.
        recorded = self.wait_recorded(table, lambda d: d["action"] == "split", "the split")
        self.assertEqual(recorded["region"], decision["region"])
        self.assertEqual(recorded["requests_per_s"], decision["requests_per_s"])
        self.assertEqual(h.status(ROOT, f"default:{table}")["phase"], "ready")
        h.wait_for(lambda: regions(table) == 5, 120, "the hot region's split")
        print(f"split decided after {time.time() - started:.0f}s of load")

        # The two halves of the first region each carry a substantial share of its requests.
        def balanced():
            t = self.table_load(table)
            if not t or t["region_count"] != 5:
                return False
            first, second = t["regions"][0], t["regions"][1]
            if first["read_per_s"] is None or second["read_per_s"] is None:
                return False
            a, b = first["read_per_s"], second["read_per_s"]
            return a + b > 0 and min(a, b) / (a + b) >= 0.25
        h.wait_for(balanced, 90, "both halves carrying a share of the load")
        self.assertEqual(regions(table), 5, "split once, not again within the cool-down")

    def test_dry_run_reports_and_does_not_split(self):
        table = f"dry_{RUN}"
        self.create_filled(table, {"min_requests_per_s": 20, "mean_multiple": 2,
                                   "sustain_s": 6})  # dry_run by default
        self.loads.append(background_gets(table, 300, hot_groups=100))
        decision = self.wait_decision(table, lambda d: d["reason"] == "dry_run", 120,
                                      "a dry-run decision")
        self.assertEqual(decision["action"], "skip")
        self.assertEqual(regions(table), 4)
        self.assertNotIn(f"load split split: table default:{table}", self.daemon.log_text())

    def test_one_hot_key_is_not_split_and_not_retried(self):
        table = f"key_{RUN}"
        load_split = {"min_requests_per_s": 20, "mean_multiple": 2, "sustain_s": 6,
                      "cooldown_s": 60, "unsplittable_s": 600}
        # The fill's puts are load too: the RegionServer's sampler remembers them (half-life
        # 60 s), and while they weigh more than about a third of the first region's sampled
        # requests NativeSplitPolicy rightly finds a balanced point beside the hot key. So one
        # row per group, and splits stay off (dry run) until the key's gets outweigh the fill's
        # 100 puts there tenfold, whatever the machine's speed.
        self.create_filled(table, {**load_split, "dry_run": True}, rows=1)
        # Every get on one row: no split point can divide the load.
        self.loads.append(background_gets(table, 300, hot_groups=1, rows=1))
        self.wait_decision(table, lambda d: d["reason"] == "dry_run", 120,
                           "the hot key's region reported in dry run")

        def gets_on_the_key():
            # The first region's read rate times how long it has stayed above the hot rule.
            t = self.table_load(table)
            first = t["regions"][0] if t and t["regions"] else None
            if not first or first["start_key"] != "" or first["read_per_s"] is None:
                return 0
            return first["read_per_s"] * first["above_rule_ms"] / 1000
        h.wait_for(lambda: gets_on_the_key() >= 1000, 180,
                   lambda: f"1000 gets on the hot key (about {gets_on_the_key():.0f} so far)")
        h.ctl(ROOT, "put", "-",
              input=json.dumps(document(table, {**load_split, "dry_run": False})))
        decision = self.wait_decision(
            table, lambda d: d["reason"] in ("split_refused", "unsplittable"), 180,
            "the hot key's region reported as not splittable")
        self.assertEqual(decision["action"], "skip")
        self.assertEqual(regions(table), 4)
        # Not asked again: more polls pass (the watcher's counter moves on) without a second
        # attempt on the region.
        polls = self.daemon.metrics()["presplit_load_polls_total"]
        h.wait_for(lambda: self.daemon.metrics()["presplit_load_polls_total"] >= polls + 5, 60,
                   "five more load polls")
        log = self.daemon.log_text()
        attempts = log.count(f"load split split: table default:{table} ")
        self.assertLessEqual(attempts, 1, log[-4000:])
        self.assertEqual(regions(table), 4)

    def test_the_region_budget_stops_splits_and_says_why(self):
        table = f"budget_{RUN}"
        self.create_filled(table, {"dry_run": False, "min_requests_per_s": 20,
                                   "mean_multiple": 2, "sustain_s": 6, "max_regions": 4})
        self.loads.append(background_gets(table, 300, hot_groups=100))
        decision = self.wait_decision(table, lambda d: d["reason"] == "region_budget", 120,
                                      "a region_budget decision")
        self.assertEqual(decision["action"], "skip")
        self.assertEqual(regions(table), 4)
        metrics = self.daemon.metrics()
        self.assertGreaterEqual(
            metrics.get('presplit_load_split_skips_total{reason="region_budget"}', 0), 1)
        # The status says why, and advise reads it with the live load: more regions, by the
        # budget rule.
        self.wait_recorded(table, lambda d: d["reason"] == "region_budget", "the budget skip")
        def advise():
            return json.loads(h.ctl(ROOT, "advise", "--table", f"default:{table}", "--daemon",
                                    f"127.0.0.1:{self.daemon.http_port}", "--format",
                                    "json").stdout)

        def live_hot_region():
            # A region the balancer just moved has no rate until its new server reported twice
            # (HBase's counters start again on every open), so the live load may read 0 for a
            # moment on three RegionServers: advise again until it shows the hot region.
            advice = advise()
            facts = advice["facts"]
            return advice if any(f.startswith("requests: ") and "1 hot" in f
                                 for f in facts) else None

        advice = h.wait_for(live_hot_region, 60,
                            lambda: f"advise to see the hot region live: {advise()}")
        self.assertEqual(advice["unavailable"], [])
        budget = [a for a in advice["advice"] if a["rule"] == "budget"]
        self.assertEqual(len(budget), 1, advice)
        self.assertEqual(budget[0]["kind"], "more_regions")
        self.assertIn("max_regions above 4", budget[0]["text"])

    def test_hbases_own_policy_splits_at_a_group_boundary_of_the_keys(self):
        table = f"plain_{RUN}"
        self.create_filled(table, {"dry_run": False, "min_requests_per_s": 20,
                                   "mean_multiple": 2, "sustain_s": 6, "max_regions": 8,
                                   "cooldown_s": 600, "unsplittable_s": 600},
                           native_policy=False)
        self.assertNotIn("NativeSplitPolicy", h.probe("describe", f"default:{table}").stdout)
        self.loads.append(background_gets(table, 300, hot_groups=100))
        decision = self.wait_decision(table, lambda d: d["action"] == "split", 120,
                                      "a split decision for the hot region")
        # The first region holds groups 0..99 with 10 rows each: the key sample's middle group
        # boundary, never inside a group.
        self.assertEqual(decision["start_key"], "")
        self.assertEqual(decision["split_key"], "g00050|")
        h.wait_for(lambda: regions(table) == 5, 120, "the split at the key sample's point")
        keys = h.probe("split-keys", f"default:{table}").stdout.split()
        self.assertEqual(keys, ["g00050|", *SPLIT_KEYS])
        recorded = self.wait_recorded(table, lambda d: d["action"] == "split", "the split")
        self.assertEqual(recorded["split_key"], "g00050|")
        self.assertIn("keys balanced, not requests", self.daemon.log_text())

    def test_the_physical_table_the_status_names_is_watched_and_split(self):
        # A document served by another physical table, as after a re-salting migration's switch:
        # the status names default:gen_RUN__g2 (generation 2) while the document keeps its name.
        # The physical table is built by a document of its own, which is then removed (the table
        # stays); the status is written straight into ZooKeeper before the document arrives.
        table, physical = f"gen_{RUN}", f"gen_{RUN}__g2"
        load_split = {"dry_run": False, "min_requests_per_s": 20, "mean_multiple": 2,
                      "sustain_s": 6, "max_regions": 8, "cooldown_s": 600,
                      "unsplittable_s": 600}
        self.create_filled(physical, load_split)
        h.ctl(ROOT, "rm", f"default:{physical}")
        zk_set(f"{ROOT}/status/default:{table}", json.dumps({
            "table": f"default:{table}", "phase": "ready",
            "physical_table": f"default:{physical}", "generation": 2,
            "layout": {"group": {"delimiter": "|"}}, "buckets": 0}))
        h.ctl(ROOT, "put", "-", input=json.dumps(document(table, load_split)))
        status = h.wait_status(ROOT, f"default:{table}", ["ready", "drift"], timeout=180)
        self.assertEqual(status["physical_table"], f"default:{physical}", status)
        self.assertEqual(status["generation"], 2)

        self.loads.append(background_gets(physical, 300, hot_groups=100))
        decision = self.wait_decision(table, lambda d: d["action"] == "split", 120,
                                      "a split decision for the physical table's hot region")
        self.assertEqual(decision["physical_table"], f"default:{physical}")
        self.assertEqual(decision["start_key"], "")
        h.wait_for(lambda: regions(physical) == 5, 120, "the physical table's hot region split")
        watched = self.table_load(table)
        self.assertEqual(watched["physical_table"], f"default:{physical}", watched)
        self.assertIsNone(watched["split_hold"])
        # The document's own name was never created, nor polled.
        self.assertEqual(h.probe("exists", f"default:{table}").stdout.strip(), "false")
        recorded = h.status(ROOT, f"default:{table}")["load"]
        self.assertEqual(recorded["physical_table"], f"default:{physical}")

    def test_the_page_shows_the_table_and_its_regions(self):
        chromium = shutil.which("chromium")
        self.assertIsNotNone(chromium, "Debian's chromium is installed by scripts/setup")
        table = f"page_{RUN}"
        self.create_filled(table, {"min_requests_per_s": 20, "mean_multiple": 2})
        h.wait_for(lambda: (self.table_load(table) or {}).get("region_count") == 4, 60,
                   "the table in /status")
        url = f"http://127.0.0.1:{self.daemon.http_port}/"
        shot = os.path.join(h.BUILD_DIR, "e2e", f"status-page-{RUN}.png")
        profile = os.path.join(self.daemon.dir, "chromium")
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                f"--user-data-dir={profile}", "--virtual-time-budget=8000"]
        dom = h.run([*base, "--dump-dom", url], timeout=120).stdout
        self.assertIn(f"default:{table}", dom)
        # One rate cell and one size bar per region, each with its region's tooltip.
        rects = dom.count("<rect")
        self.assertGreaterEqual(rects, 8, dom[:2000])
        h.run([*base, f"--screenshot={shot}", "--window-size=1400,900", url], timeout=120)
        self.assertTrue(os.path.getsize(shot) > 1000, "a screenshot kept as an artefact")
        print(f"screenshot: {shot}")


if __name__ == "__main__":
    h.main()
