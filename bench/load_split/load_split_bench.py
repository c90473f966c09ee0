"""Load splits on a real cluster (issue 9): detection time and balance after the split.

Run by bench/run_load_split_bench.sh, which starts the cluster (RegionServer with
NativeSplitPolicy and the load sampler) and sets the harness's environment. Per run:

- a table of 4 regions of 100 groups x 10 rows (tests/e2e's workload program fills it), managed by
  presplitd with the document's DEFAULT load_split rule (1000 requests/s, 3 x the table's mean,
  sustained 10 s) and NativeSplitPolicy (load_balanced, its defaults);
- a skewed read load: every get on groups 0..HOT_GROUPS-1, all inside the first region (which
  holds groups 0..99), so a split at the region's key midpoint would leave the whole load on one
  half;
- detection = the daemon's split decision time (its `time_ms` in GET /status, taken right
  before it asks HBase) minus the load's first batch of gets (the workload's own clock, same
  machine): from the first overloaded second to the split request;
- balance = over SAMPLES polls of /status after both halves report rates, the busier half's share
  of the two halves' requests.

Then the same workload on a table with HBase's own policy (no split_policy, no load_split),
its first region flushed and split by HBase without a point (the largest store's midpoint): the
same balance measure, for comparison.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.environ["PRESPLIT_SOURCE_DIR"], "tests", "e2e"))
import harness as h  # noqa: E402

WORKLOAD = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SplitWorkload.java")
GROUPS = 400
SPLIT_KEYS = ["g00100|", "g00200|", "g00300|"]


def workload(*args, timeout=300):
    return h.run([*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, *args], timeout=timeout).stdout


def document(table, managed, min_requests_per_s=None):
    doc = {"version": 1, "table": f"default:{table}", "layout": {"group": {"delimiter": "|"}},
           "split": {"algorithm": "explicit", "keys": SPLIT_KEYS}, "families": [{"name": "f"}]}
    if managed:
        doc["split_policy"] = {"load_balanced": True}
        doc["load_split"] = {"dry_run": False}  # every other setting at its default ...
        if min_requests_per_s is not None:  # ... unless the machine cannot reach 1000/s
            doc["load_split"]["min_requests_per_s"] = min_requests_per_s
    return doc


class Bench:
    def __init__(self, args):
        self.args = args
        self.root = f"/presplit-load-split-bench-{uuid.uuid4().hex[:6]}"
        self.daemon = h.Daemon(self.root, args.http_port, name="presplitd-load-split-bench")

    def status(self):
        url = f"http://127.0.0.1:{self.daemon.http_port}/status"
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read().decode())

    def table_load(self, table):
        for t in self.status()["load"]["tables"]:
            if t["table"] == f"default:{table}":
                return t
        return None

    def start_load(self, table):
        """Starts --clients workload processes; returns them and the first one's first gets."""
        procs = [subprocess.Popen(
            [*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, "gets-for", f"default:{table}",
             str(self.args.load_s), str(self.args.hot_groups), str(GROUPS), "100", "10"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(self.args.clients)]
        firsts = []
        for proc in procs:
            line = proc.stdout.readline()
            while line and not line.startswith("first-gets-ms "):
                line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"the workload ended before its first gets: {proc.wait()}")
            firsts.append(int(line.split()[1]))
        return procs, min(firsts)

    @staticmethod
    def stop_load(procs):
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)

    def balance(self, table, regions):
        """The busier half's share of the first two regions' reads, SAMPLES polls apart."""
        shares, rates = [], []
        seen_poll = 0
        deadline = time.time() + 180
        while len(shares) < self.args.samples and time.time() < deadline:
            t = self.table_load(table)
            if (t and t["region_count"] == regions and t["regions"][0]["read_per_s"] is not None
                    and t["regions"][1]["read_per_s"] is not None):
                polled = self.status()["load"]["polled_at_ms"]
                a, b = t["regions"][0]["read_per_s"], t["regions"][1]["read_per_s"]
                if polled != seen_poll and a + b > 0:
                    seen_poll = polled
                    shares.append(max(a, b) / (a + b))
                    rates.append(a + b)
            time.sleep(self.args.sample_interval_s)
        if len(shares) < self.args.samples:
            raise AssertionError(f"only {len(shares)} balance samples of {table}")
        return statistics.mean(shares), statistics.mean(rates)

    def create(self, table, managed):
        h.ctl(self.root, "put", "-",
              input=json.dumps(document(table, managed, self.args.min_requests_per_s)))
        h.wait_status(self.root, f"default:{table}", ["ready"], timeout=180)
        workload("fill", f"default:{table}", str(GROUPS), "10", "100")

    def presplit_run(self, i):
        table = f"lsb_{i}_{uuid.uuid4().hex[:4]}"
        self.create(table, managed=True)
        proc, first_gets_ms = self.start_load(table)
        try:
            decision = None
            deadline = time.time() + self.args.split_wait_s
            # Where detection time goes: per poll of the daemon, the hot region's rate and how
            # long it has been above the rule, on the workload's clock.
            timeline, seen_poll = [], 0
            while decision is None and time.time() < deadline:
                status = self.status()["load"]
                t = next((x for x in status["tables"] if x["table"] == f"default:{table}"), None)
                if t and status["polled_at_ms"] != seen_poll and t["regions"]:
                    seen_poll = status["polled_at_ms"]
                    hot = t["regions"][0]
                    rate = (hot["read_per_s"] or 0) + (hot["write_per_s"] or 0)
                    timeline.append(f"+{(seen_poll - first_gets_ms) / 1000:.1f}s "
                                    f"{rate:.0f}/s above {hot.get('above_rule_ms', 0) / 1000:.1f}s")
                for d in (t or {}).get("decisions", []):
                    if d["action"] == "split":
                        decision = d
                time.sleep(0.5)
            print(f"run {i} timeline (poll time: hot region's rate, time above the rule): "
                  + ", ".join(timeline), flush=True)
            if decision is None:
                raise AssertionError(f"no split of {table} within {self.args.split_wait_s} s:\n"
                                     f"{self.daemon.log_text()[-3000:]}")
            detection_s = (decision["time_ms"] - first_gets_ms) / 1000
            h.wait_for(lambda: (self.table_load(table) or {}).get("region_count") == 5, 120,
                       "the halves in /status")
            split_key = h.probe("split-keys", f"default:{table}").stdout.split()[0]
            share, rate = self.balance(table, 5)
        finally:
            self.stop_load(proc)
        print(f"run {i}: detection {detection_s:.1f} s (decision at "
              f"{decision['requests_per_s']:.0f} req/s, table mean "
              f"{decision['table_mean_per_s']:.0f}); split at {split_key}; busier half "
              f"{100 * share:.1f}% of {rate:.0f} reads/s", flush=True)
        return detection_s, share

    def midpoint_run(self):
        table = f"lsb_mid_{uuid.uuid4().hex[:4]}"
        self.create(table, managed=False)
        h.probe("flush", f"default:{table}")
        proc, _ = self.start_load(table)
        try:
            workload("split-region", f"default:{table}", "g00000|")
            split_key = h.probe("split-keys", f"default:{table}").stdout.split()[0]
            h.wait_for(lambda: (self.table_load(table) or {}).get("region_count") == 5, 120,
                       "the halves in /status")
            share, rate = self.balance(table, 5)
        finally:
            self.stop_load(proc)
        print(f"HBase size midpoint: split at {split_key}; busier half {100 * share:.1f}% of "
              f"{rate:.0f} reads/s", flush=True)
        return share

    def run(self):
        self.daemon.start()
        try:
            results = [self.presplit_run(i + 1) for i in range(self.args.runs)]
            midpoint = self.midpoint_run() if self.args.midpoint else None
        finally:
            self.daemon.stop()
        detections = [d for d, _ in results]
        shares = [s for _, s in results]
        print(f"detection: median {statistics.median(detections):.1f} s, max "
              f"{max(detections):.1f} s over {len(detections)} runs (target <= 20 s)")
        print(f"balance: busier half median {100 * statistics.median(shares):.1f}%, worst "
              f"{100 * max(shares):.1f}% (target <= 55%)"
              + (f"; HBase's size midpoint {100 * midpoint:.1f}%" if midpoint else ""))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--hot-groups", type=int, default=20)
    p.add_argument("--load-s", type=int, default=240)
    p.add_argument("--samples", type=int, default=5)
    p.add_argument("--sample-interval-s", type=float, default=3)
    p.add_argument("--http-port", type=int, default=19690)
    p.add_argument("--no-midpoint", dest="midpoint", action="store_false")
    p.add_argument("--clients", type=int, default=2, help="workload processes")
    p.add_argument("--split-wait-s", type=int, default=180)
    p.add_argument("--min-requests-per-s", type=float, default=None,
                   help="the rule's absolute rate (default: the document's default, 1000)")
    Bench(p.parse_args()).run()


if __name__ == "__main__":
    main()
