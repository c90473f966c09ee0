"""Per-server balance on three RegionServers (issue 24's benchmark): a skewed read workload, the
busiest server's share of the table's reads after two minutes, with and without presplit.

Run by bench/run_server_balance_bench.sh, which starts a cluster of three RegionServers (its
balancer every 10 s, read requests weighed as in tests/e2e/split_policy_site.xml) and sets the
harness's environment. Every case gets a fresh table of 6 regions of 100 groups x 10 rows
(groups 0..599, split at g00100|, g00200|, ...), created pre-split by presplitd and spread over
the three servers by HBase, and the same load: --clients processes of gets for --seconds, of
which --hot-percent on the first --hot-groups groups (all inside the first region), the rest
spread evenly over the other groups.

The cases, one after another on the same cluster:

- hbase: no load_split. HBase's balancer alone: it may move whole regions but cannot divide the
  hot one.
- manual: what an operator does by hand without presplit: once the load has run --manual-after
  seconds, the hot region split by HBase (Admin.split without a point: the largest store's
  midpoint), then the balancer.
- presplit: the document's load_split on (dry_run false, the --min-requests-per-s floor), its
  split point placed by NativeSplitPolicy (load_balanced), then the balancer.
- moves: the same, and load_split.move_daughters (after 20 s): presplitd moves the hotter
  daughter to the least-loaded server when the balancer has not spread the pair.

Measured per case: the busiest server's share of the table's reads over the last --window
seconds of the load (each server's reads per second from the regions' read counters, a region
that moved counting from its reopening), and the mean share (1/3). Target: with presplit, the
busiest share at most 1.5x the mean (50%).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.environ["PRESPLIT_SOURCE_DIR"], "tests", "e2e"))
import harness as h  # noqa: E402

WORKLOAD = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "SplitWorkload.java")
GROUPS = 600
ROWS = 10
SPLIT_KEYS = [f"g{g:05d}|" for g in range(100, GROUPS, 100)]
# The moves case: presplitd moves the hotter daughter when the balancer has not spread the pair
# within this many seconds (two of its runs at the cluster's 10 s period).
MOVE_AFTER_S = 20


def workload(*args, timeout=300):
    return h.run([*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, *args], timeout=timeout).stdout


def region_loads(table):
    return json.loads(h.probe("region-loads", table).stdout)["regions"]


def document(table, case, min_requests_per_s):
    doc = {"version": 1, "table": table, "layout": {"group": {"delimiter": "|"}},
           "split": {"algorithm": "explicit", "keys": SPLIT_KEYS}, "families": [{"name": "f"}]}
    if case in ("presplit", "moves"):
        doc["split_policy"] = {"load_balanced": True}
        doc["load_split"] = {"dry_run": False, "min_requests_per_s": min_requests_per_s}
    if case == "moves":
        doc["load_split"]["move_daughters"] = {"after_s": MOVE_AFTER_S}
    return doc


def server_rates(first, second, elapsed):
    """Reads per second per server (RPC port) between two region-load snapshots."""
    before = {r["name"]: r for r in first}
    rates = collections.Counter()
    for r in second:
        b = before.get(r["name"])
        same = b is not None and b["server"] == r["server"] and r["reads"] >= b["reads"]
        rates[r["port"]] += (r["reads"] - b["reads"] if same else r["reads"]) / elapsed
    return rates


def share_line(rates):
    total = sum(rates.values())
    if not total:
        return None, "no reads"
    parts = ", ".join(f"{port} {v:.0f}/s ({v / total:.0%})" for port, v in sorted(rates.items()))
    return max(rates.values()) / total, parts


class Bench:
    def __init__(self, args):
        self.args = args
        self.root = f"/presplit-balance-bench-{uuid.uuid4().hex[:6]}"
        self.daemon = h.Daemon(self.root, args.http_port, name="presplitd-balance-bench",
                               settings={"load_split_max_per_window": 8})

    def run_case(self, case):
        a = self.args
        table = f"default:balance_{case}_{uuid.uuid4().hex[:6]}"
        h.ctl(self.root, "put", "-", input=json.dumps(document(table, case,
                                                               a.min_requests_per_s)))
        h.wait_status(self.root, table, ["ready"], timeout=180)
        workload("fill", table, str(GROUPS), str(ROWS), "100")
        # The servers' regions as the balancer left them before the load.
        h.wait_for(lambda: len({r["port"] for r in region_loads(table)}) == 3, 120,
                   "the table's regions on all three servers")
        procs = [subprocess.Popen(
            [*h.java_command(WORKLOAD), "--zk", h.ZK_QUORUM, "gets-for", table,
             str(a.seconds + a.window + 30), str(a.hot_groups), str(GROUPS), str(a.hot_percent),
             str(ROWS)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(a.clients)]
        try:
            started = time.time()
            split_done = False
            timeline = []
            snapshot, snapshot_at = region_loads(table), time.time()
            while time.time() - started < a.seconds:
                time.sleep(a.sample_s)  # the sampling interval of the timeline, not a wait
                now_loads, now = region_loads(table), time.time()
                share, _ = share_line(server_rates(snapshot, now_loads, now - snapshot_at))
                timeline.append((round(now - started), share, len(now_loads)))
                snapshot, snapshot_at = now_loads, now
                if case == "manual" and not split_done and now - started >= a.manual_after:
                    hot = min(now_loads, key=lambda r: r["start_key"])
                    print(f"  manual: {workload('split-region', table, 'g00000|').strip()} "
                          f"(the hot region {hot['name']})", flush=True)
                    split_done = True
            first, first_at = region_loads(table), time.time()
            time.sleep(a.window)  # the measurement window at the end of the load
            last, last_at = region_loads(table), time.time()
            rates = server_rates(first, last, last_at - first_at)
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(30)
        share, parts = share_line(rates)
        regions = len(last)
        servers = len({r["port"] for r in last})
        shares = " ".join(f"{t}s:{s:.0%}" if s is not None else f"{t}s:-"
                          for t, s, _ in timeline)
        print(f"case {case}: {regions} regions on {servers} servers; busiest server's share of "
              f"the reads in the last {a.window} s: {share:.1%} ({share * 3:.2f}x the mean "
              f"share) [{parts}]", flush=True)
        print(f"  timeline (busiest share per {a.sample_s} s): {shares}", flush=True)
        if case in ("presplit", "moves"):
            url = f"http://127.0.0.1:{self.daemon.http_port}/status"
            with urllib.request.urlopen(url, timeout=10) as r:
                tables = json.loads(r.read().decode())["load"]["tables"]
            decisions = [d for t in tables if t["table"] == table for d in t["decisions"]]
            actions = collections.Counter(d.get("action") for d in decisions)
            print(f"  presplitd's decisions: {dict(actions)}", flush=True)
        h.ctl(self.root, "rm", table, check=False)
        return case, share, regions

    def run(self):
        self.daemon.start()
        try:
            results = [self.run_case(c) for c in self.args.cases.split(",")]
        finally:
            self.daemon.stop()
        print("summary (busiest server's share, target with presplit <= 50%):")
        for case, share, regions in results:
            print(f"  {case:9s} {share:.1%}  ({share * 3:.2f}x mean, {regions} regions)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default="hbase,manual,presplit,moves")
    p.add_argument("--seconds", type=int, default=120, help="load before the window")
    p.add_argument("--window", type=int, default=30, help="measured at the end of the load")
    p.add_argument("--sample-s", type=int, default=10)
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--hot-groups", type=int, default=50)
    p.add_argument("--hot-percent", type=int, default=80)
    p.add_argument("--manual-after", type=int, default=30)
    p.add_argument("--min-requests-per-s", type=int, default=200)
    p.add_argument("--http-port", type=int, default=19730)
    Bench(p.parse_args()).run()


if __name__ == "__main__":
    main()
