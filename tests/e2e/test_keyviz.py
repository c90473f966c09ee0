"""End to end: the key visualizer on a real HBase, a salted table and a hot range that moves.

presplitd creates a table salted into 4 buckets with 4 regions per bucket (the logical key space
cut in quarters in every bucket). tests/e2e/java/SdkE2E.java's `moving-hot` writes through the
SDK to one logical quarter at a time; the test moves it to the next quarter once the daemon's
history (GET /keyviz.json) shows the current one hot, so nothing waits for a fixed time. Then:
- logically the hot row follows the quarters, 0, 1, 2, 3: the moving diagonal;
- physically the same load is a stripe in every bucket: in each phase's columns the rows above
  half the column's maximum are that quarter's region in each of the 4 buckets;
- headless Chromium loads GET /keyviz, reads the hottest rows it drew in both views, switches
  between them, and keeps screenshots in <build>/e2e.
"""
import json
import os
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid

import harness as h
from webdriver import WebDriver

RUN = uuid.uuid4().hex[:6]
ROOT = f"/presplit-e2e-keyviz-{RUN}"
TABLE = f"default:keyviz_{RUN}"
SDK = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SdkE2E.java")
E2E_DIR = os.path.join(h.BUILD_DIR, "e2e")
BUCKETS = 4
QUARTERS = 4  # regions per bucket, and the phases of the moving hot range
GROUPS = 10000  # logical keys "0000|..." .. "9999|...": quarter q holds [q*2500, (q+1)*2500)
# Columns in which a phase must have been the hottest before the range moves on.
COLUMNS_PER_PHASE = 3
# A column of margin after each phase's change: a rate spans two RegionServer reports.
MARGIN_MS = 2000


def document():
    return {
        "version": 1,
        "table": TABLE,
        "layout": {"salt": {"buckets": BUCKETS, "encoding": "decimal"},
                   "group": {"delimiter": "|"}},
        # In each bucket, split at "25000000", "50000000", "75000000": the logical key
        # "2499|..." sorts before the first, "2500|..." after it, so the regions are quarters.
        "split": {"algorithm": "salt-buckets", "regions_per_bucket": QUARTERS,
                  "within_bucket": "decimal-string"},
        "families": [{"name": "f"}],
    }


def quarter_of_key(key):
    """The quarter a logical key (toStringBinary of digits) starts in."""
    digits = "".join(c for c in key[:4] if c.isdigit())
    return min(int(digits.ljust(4, "0")) * QUARTERS // GROUPS, QUARTERS - 1) if digits else 0


class KeyvizTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(E2E_DIR, exist_ok=True)
        cls.daemon = h.Daemon(ROOT, 19540, name="presplitd-keyviz", settings={
            "load_watch_interval_s": 1,
            # one history column per poll, so a phase shows within seconds
            "keyviz_fine_resolution_s": 1,
        }).start()
        cls.base = f"http://127.0.0.1:{cls.daemon.http_port}"
        try:
            path = os.path.join(cls.daemon.dir, "table.json")
            with open(path, "w") as f:
                json.dump(document(), f)
            h.ctl(ROOT, "put", path)
            h.wait_status(ROOT, TABLE, ["ready"], timeout=120)
        except BaseException:
            cls.daemon.stop()  # tearDownClass does not run when setUpClass fails
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def keyviz(self, **params):
        """(HTTP status, JSON answer) of GET /keyviz.json."""
        query = urllib.parse.urlencode({"table": TABLE, **params})
        try:
            with urllib.request.urlopen(f"{self.base}/keyviz.json?{query}", timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def hottest_quarters(self, answer):
        """Per column, the quarter of the logical row with the most writes (None when idle)."""
        writes = answer["metrics"]["writes"]
        out = []
        for column in writes:
            top = max(range(len(column)), key=lambda r: column[r]) if column else 0
            out.append(quarter_of_key(answer["rows"][top]["start"]) if column and column[top] > 0
                       else None)
        return out

    def wait_phase_seen(self, phase, since_ms):
        """Until the history's last COLUMNS_PER_PHASE columns that begin MARGIN_MS or more after
        since_ms all have `phase`'s quarter as their hottest logical row: the columns the test's
        end then counts as inside the phase (phase_of). Columns beginning sooner straddle the
        change; on a busy machine a phase could otherwise end before it had any of its own."""
        def seen():
            status, answer = self.keyviz(view="logical", rows=QUARTERS, **{"from": since_ms})
            if status != 200:
                return False
            hottest = self.hottest_quarters(answer)
            inside = [q for column, q in zip(answer["columns"], hottest)
                      if column["start_ms"] >= since_ms + MARGIN_MS]
            tail = inside[-COLUMNS_PER_PHASE:]
            return len(tail) == COLUMNS_PER_PHASE and all(q == phase for q in tail)
        h.wait_for(seen, 120, lambda: f"phase {phase} to be the hottest quarter in "
                   f"{COLUMNS_PER_PHASE} columns; last answer: {self.keyviz(view='logical', rows=QUARTERS)}"
                   f"\n{self.daemon.log_story('keyviz', 'load')}")

    def test_moving_hot_range_is_a_diagonal_logically_and_stripes_physically(self):
        status, answer = self.keyviz(table="no:such_table")
        self.assertEqual(status, 404, answer)
        status, answer = self.keyviz(rows="0")
        self.assertEqual(status, 400, answer)

        control = tempfile.mkdtemp(prefix="keyviz-control-", dir=self.daemon.dir)
        writer = subprocess.Popen(
            [*h.java_command(SDK, h.HBASE_CLIENT_JVM, sdk=True), "--zk", h.ZK_QUORUM,
             "--root", ROOT, "moving-hot", TABLE, str(GROUPS), str(QUARTERS), control],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        phase_started = {}
        try:
            for phase in range(QUARTERS):
                if phase > 0:
                    open(os.path.join(control, f"phase-{phase}"), "w").close()
                line = writer.stdout.readline()
                while line and not line.startswith("phase "):
                    line = writer.stdout.readline()
                self.assertTrue(line, "the writer ended before phase %d" % phase)
                _, number, at_ms = line.split()
                self.assertEqual(int(number), phase)
                phase_started[phase] = int(at_ms)
                self.wait_phase_seen(phase, phase_started[phase])
            end_ms = int(self.keyviz(view="logical", rows=QUARTERS)[1]["columns"][-1]["end_ms"])
        finally:
            open(os.path.join(control, "stop"), "w").close()
            rest, _ = writer.communicate(timeout=120)
        self.assertEqual(writer.returncode, 0, rest)
        print(rest.strip().splitlines()[-1])

        window = {"from": phase_started[0], "to": end_ms}
        status, logical = self.keyviz(view="logical", rows=QUARTERS, **window)
        self.assertEqual(status, 200, logical)
        self.assertTrue(logical["salted"])
        self.assertEqual(logical["view"], "logical")
        self.assertEqual(logical["row_count"], QUARTERS, logical["rows"])
        status, physical = self.keyviz(view="physical", rows=BUCKETS * QUARTERS, **window)
        self.assertEqual(status, 200, physical)
        self.assertEqual(physical["row_count"], BUCKETS * QUARTERS, physical["rows"])

        # Which phase each column belongs to: the columns wholly inside one phase, a column of
        # margin after each change (a rate spans two RegionServer reports).
        bounds = [phase_started[p] for p in range(QUARTERS)] + [end_ms + 1]

        def phase_of(column, margin_ms=MARGIN_MS):
            for p in range(QUARTERS):
                if (column["start_ms"] >= bounds[p] + margin_ms
                        and column["end_ms"] <= bounds[p + 1]):
                    return p
            return None

        # Logical: the diagonal. In every column inside a phase the hottest row is its quarter.
        hottest = self.hottest_quarters(logical)
        per_phase = {}
        for c, column in enumerate(logical["columns"]):
            p = phase_of(column)
            if p is not None:
                per_phase.setdefault(p, []).append(hottest[c])
        print("logical hottest quarter per column, by phase:", per_phase)
        self.assertEqual(sorted(per_phase), list(range(QUARTERS)), per_phase)
        for p, quarters in per_phase.items():
            self.assertEqual(set(quarters), {p}, f"phase {p}: {quarters}")

        # Physical: stripes. The rows above half a column's maximum are the phase's quarter in
        # each of the buckets (rows are the 16 regions, bucket after bucket).
        writes = physical["metrics"]["writes"]
        checked = 0
        for c, column in enumerate(physical["columns"]):
            p = phase_of(column)
            if p is None or not writes[c] or max(writes[c]) <= 0:
                continue
            top = max(writes[c])
            hot = sorted(r for r, v in enumerate(writes[c]) if v > top / 2)
            self.assertEqual(hot, [b * QUARTERS + p for b in range(BUCKETS)],
                             f"column {c} (phase {p}): {writes[c]}")
            checked += 1
        self.assertGreaterEqual(checked, QUARTERS, "too few physical columns inside phases")

        self.check_page(window)

    def check_page(self, window):
        driver = WebDriver(os.path.join(self.daemon.dir, "chromedriver.log"))
        try:
            driver.start(os.path.join(self.daemon.dir, "chromium-profile"))
            query = urllib.parse.urlencode({"table": TABLE, "rows": QUARTERS * BUCKETS, **window})
            driver.go(f"{self.base}/keyviz?{query}")

            def drawn(view):
                loads = driver.attribute("#heatmap", "data-loads")
                if not loads or int(loads) < 1 or driver.attribute("#heatmap", "data-view") != view:
                    return None
                return [int(r) for r in driver.attribute("#heatmap", "data-hot-rows").split(",")]

            logical_rows = h.wait_for(lambda: drawn("logical"), 60, "the page's logical map")
            driver.screenshot(os.path.join(E2E_DIR, f"keyviz-logical-{RUN}.png"))
            driver.click("#view-physical")
            physical_rows = h.wait_for(lambda: drawn("physical"), 60, "the page's physical map")
            driver.screenshot(os.path.join(E2E_DIR, f"keyviz-physical-{RUN}.png"))
            driver.click("#view-logical")
            h.wait_for(lambda: drawn("logical"), 60, "the page's logical map again")
        finally:
            driver.quit()
        print("page: hottest logical rows", logical_rows, "physical", physical_rows)
        # Logically the hottest row only moves forward (the diagonal) and visits several rows;
        # physically it is in the phase's quarter of some bucket, so it jumps between buckets.
        logical_hot = [r for r in logical_rows if r >= 0]
        self.assertGreaterEqual(len(set(logical_hot)), 3, logical_rows)
        self.assertEqual(logical_hot, sorted(logical_hot), logical_rows)
        physical_hot = [r for r in physical_rows if r >= 0]
        self.assertGreaterEqual(len({r // QUARTERS for r in physical_hot}), 2, physical_rows)


if __name__ == "__main__":
    h.main()
