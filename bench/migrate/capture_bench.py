"""What a re-salting migration costs the RegionServers and the application (issue 22's
benchmark). Run by bench/run_capture_bench.sh, which starts a fresh cluster of its own whose
RegionServer loads presplit-hbase.jar (the capture's endpoint) and sets the harness's
environment.

1. Copy cost, per engine: the same source (--rows rows x 2 columns x 3 versions, 40-byte values,
   10 decimal buckets) copied into 16 buckets by the plain copy a user would write (one scanner,
   each row re-keyed, one BufferedMutator: MigrationBench --plain-copy) and by presplitd's
   migration with each engine (put, hfile, hfile with migration_hfile_source = snapshot,
   mapreduce), its capture peer running. The figure is
   the RegionServer's CPU seconds per million cells moved (from /proc/PID/stat, sampled; for
   presplitd between its "capture peer ... added" and "copy finished" log lines, and to
   "verified:" with the verification), and its ratio to the plain copy's.
2. The application's latency: a steady get/put workload through the SDK (ForegroundLoad, a fixed
   rate) on a table, alone, then while presplitd migrates that table (engine --latency-engine,
   its capture peer active); p99 with the migration over p99 without.
3. The capture's cost per write: CaptureCost, the same puts with and without a capture peer;
   the RegionServer's CPU per write, and the difference.
"""
import argparse
import contextlib
import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.environ["PRESPLIT_SOURCE_DIR"], "tests", "e2e"))
import harness as h  # noqa: E402

HERE = os.path.join(h.SOURCE_DIR, "bench", "migrate")
LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) ")
TICKS = os.sysconf("SC_CLK_TCK")


def java_command(program, *args):
    """A bench program (compiled once a run) with presplit-hbase.jar and libpresplit_jni."""
    classes = os.path.join(h.BUILD_DIR, "bench-capture", "classes")
    classpath = h.PRESPLIT_JAR + ":" + h.hbase_classpath()
    if not os.path.exists(os.path.join(classes, program + ".class")):
        os.makedirs(classes, exist_ok=True)
        h.run(["javac", "-nowarn", "-cp", classpath, "-d", classes,
               os.path.join(HERE, program + ".java")], timeout=300)
    lib = os.path.join(h.BUILD_DIR, "jni")
    return ["java", "-Xms512m", "-Xmx512m", f"-Djava.library.path={lib}", *h.HBASE_CLIENT_JVM,
            "-cp", classes + ":" + classpath, program, *args]


def java(program, *args, timeout=3600, check=True):
    return h.run(java_command(program, *args), timeout=timeout, check=check).stdout


class CpuSampler:
    """The RegionServer's CPU seconds (utime + stime), sampled every 100 ms with wall time."""

    def __init__(self, pid):
        self.pid = pid
        self.samples = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def read(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def run(self):
        while not self.stop.is_set():
            self.samples.append((time.time(), self.read()))
            self.stop.wait(0.1)

    def at(self, when):
        """CPU seconds at a moment (linear between the samples around it)."""
        before = [s for s in self.samples if s[0] <= when]
        after = [s for s in self.samples if s[0] >= when]
        if not before:
            return after[0][1]
        if not after:
            return before[-1][1]
        (t0, c0), (t1, c1) = before[-1], after[0]
        return c0 if t1 == t0 else c0 + (c1 - c0) * (when - t0) / (t1 - t0)

    def between(self, start, end):
        return self.at(end) - self.at(start)


def document(table, buckets, migration=None):
    doc = {"version": 1, "table": table,
           "layout": {"salt": {"buckets": buckets, "encoding": "decimal",
                               "hash": "java-hashcode"},
                      "group": {"length": 32}},
           "split": {"algorithm": "salt-buckets"},
           "families": [{"name": "f", "max_versions": 3}]}
    if migration:
        doc["migration"] = migration
    return doc


def log_time(line):
    match = LOG_TIME.match(line)
    return datetime.datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S.%f").timestamp()


def find_line(log, text):
    for line in log.splitlines():
        if text in line:
            return line
    return None


class Bench:
    def __init__(self, args):
        self.args = args
        self.root = f"/presplit-capture-bench-{uuid.uuid4().hex[:6]}"
        staging = os.path.join(h.BUILD_DIR, "bench-capture", "staging")
        self.settings = {"migration_interval_s": 1, "jvm_max_heap": "1g",
                         "migration_staging_dir": staging,
                         # the mapreduce engine (and hfile-snapshot) read a snapshot's files
                         # under hbase.rootdir
                         "hbase_conf_dir": os.path.join(os.environ["PRESPLIT_CLUSTER_DIR"],
                                                        "conf"),
                         # the adaptive throttle of the copy and verification, or the ceiling
                         # (--max-cells-per-s) alone
                         "migration_throttle": args.throttle}
        for setting in args.set:  # presplitd settings to try (a throttle threshold)
            key, _, value = setting.partition("=")
            self.settings[key] = value
        self.daemon = h.Daemon(self.root, args.http_port, name="presplitd-capture-bench",
                               settings=self.settings)
        with open(os.path.join(os.environ["PRESPLIT_CLUSTER_DIR"], "run",
                               "regionserver.pid")) as f:
            self.cpu = CpuSampler(int(f.read().strip()))

    def put(self, doc):
        path = os.path.join(self.daemon.dir, "document.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        h.ctl(self.root, "put", path)

    def migration_phase(self, table):
        proc = h.ctl(self.root, "migration", "status", table, "--json", check=False)
        return json.loads(proc.stdout).get("phase") if proc.returncode == 0 else None

    def loaded_table(self, name):
        table = "capbench:" + name
        self.put(document(table, 10))
        h.wait_status(self.root, table, ["ready"], timeout=300)
        print(java("MigrationBench", "--zk", h.ZK_QUORUM, "--load-into", table, "--rows",
                   str(self.args.rows)).strip(), flush=True)
        return table

    def plain_copy(self):
        table = self.loaded_table("plain")
        out = java("MigrationBench", "--zk", h.ZK_QUORUM, "--plain-copy", table, "--rows",
                   str(self.args.rows))
        print(out.strip(), flush=True)
        # The copy's own window (the digests MigrationBench checks it with come after it).
        start_ms, end_ms = re.search(r"plain copy window ms: (\d+) (\d+)", out).groups()
        start, end = int(start_ms) / 1000, int(end_ms) / 1000
        return {"seconds": end - start, "rs_cpu": self.cpu.between(start, end)}

    @contextlib.contextmanager
    def engine_daemon(self, engine):
        """The daemon that runs `engine`: "hfile-snapshot" is the hfile engine reading its
        source from a snapshot's files in presplitd instead of scanning it through the
        RegionServer, a daemon setting, so a second daemon on the same root runs it. Yields the
        engine name a document asks for."""
        if engine != "hfile-snapshot":
            yield engine
            return
        self.daemon.stop()
        snapshot_daemon = h.Daemon(self.root, self.args.http_port,
                                   name="presplitd-capture-bench-snapshot",
                                   settings={**self.settings,
                                             "migration_hfile_source": "snapshot"})
        main_daemon, self.daemon = self.daemon, snapshot_daemon.start()
        try:
            yield "hfile"
        finally:
            self.daemon.stop()
            self.daemon = main_daemon.start()

    def migrate(self, engine):
        with self.engine_daemon(engine) as document_engine:
            return self.migrate_with(document_engine, engine.replace("-", "_"))

    def migrate_with(self, engine, name):
        table = self.loaded_table(name)
        self.put(document(table, 16, {"allowed": True, "workers": self.args.workers,
                                      "grace_period_s": 0, "engine": engine}))
        prefix = f"migration {table}: "

        def done():
            log = self.daemon.log_text()
            if prefix + "verification failed" in log:
                raise RuntimeError("the daemon's verification failed; see " + self.daemon.log_path)
            return prefix + "done:" in log
        h.wait_for(done, 3600, f"the {engine} migration's end")
        log = self.daemon.log_text()
        started = log_time(find_line(log, prefix + "capture peer "))
        copied = log_time(find_line(log, prefix + "copy finished"))
        verified = log_time(find_line(log, prefix + "verified:"))
        return {"seconds": copied - started, "rs_cpu": self.cpu.between(started, copied),
                "verify_seconds": verified - copied,
                "rs_cpu_with_verification": self.cpu.between(started, verified)}

    def latency(self):
        table = "capbench:fg"
        self.put(document(table, 10))
        h.wait_status(self.root, table, ["ready"], timeout=300)
        java("MigrationBench", "--zk", h.ZK_QUORUM, "--load-into", table, "--rows",
             str(self.args.rows))
        common = ["--zk", h.ZK_QUORUM, "--root", self.root, "--table", table]
        java("ForegroundLoad", *common, "--seed", "--rows", "5000")
        load = [*common, "--rows", "5000", "--rate", str(self.args.rate), "--seconds",
                str(self.args.seconds)]
        alone = json.loads(java("ForegroundLoad", *load, "--tag", "base").strip()
                           .splitlines()[-1])
        print(f"foreground load alone: {alone}", flush=True)
        # The same load while presplitd migrates the table (grace long enough to outlast it):
        # the load starts first, the migration's document is written once the load runs, so
        # every step from the target's creation on is under load.
        with self.engine_daemon(self.args.latency_engine) as engine:
            return self.latency_during_migration(table, load, alone, engine)

    def latency_during_migration(self, table, load, alone, engine):
        migration = {"allowed": True, "workers": self.args.workers, "grace_period_s": 600,
                     "engine": engine}
        if self.args.max_cells_per_s:
            migration["max_cells_per_s"] = self.args.max_cells_per_s
        trace = os.path.join(self.daemon.dir, "foreground.trace")
        # On a cluster presplitd runs beside the HMaster, not on a RegionServer's host: the cores
        # each process takes per step say what this one-host run cannot separate.
        daemon_cpu = CpuSampler(self.daemon.proc.pid)
        proc = subprocess.Popen(java_command("ForegroundLoad", *load, "--tag", "mig", "--trace",
                                             trace), stdout=subprocess.PIPE, text=True)
        try:
            first = proc.stdout.readline()
            if "started" not in first:
                raise RuntimeError(f"ForegroundLoad did not start: {first!r}")
            requested = time.time()
            self.put(document(table, 16, migration))
            output, _ = proc.communicate(timeout=self.args.seconds + 600)
        finally:
            if proc.poll() is None:
                proc.kill()
        finished = time.time()
        daemon_cpu.stop.set()
        if proc.returncode != 0:
            raise RuntimeError(f"ForegroundLoad exited with {proc.returncode}")
        whole = json.loads(output.strip().splitlines()[-1])
        phase = self.migration_phase(table)
        print(f"foreground load over the migration's start (engine {self.args.latency_engine}, "
              f"throttle {self.args.throttle}, "
              f"max_cells_per_s {self.args.max_cells_per_s or 'unlimited'}; at its end the "
              f"migration was in {phase}): {whole}", flush=True)
        phases = self.latency_by_phase(table, trace, requested, finished,
                                       {"regionserver": self.cpu, "presplitd": daemon_cpu})
        for name, stats in phases.items():
            print(f"  {name}: {stats}", flush=True)
        for line in self.daemon.log_text().splitlines():
            if f"migration {table}: switch" in line:  # each attempt, and where the pause went
                print(f"  presplitd: {line}", flush=True)
        during = phases.get("migrating (all steps)", {"p99_us": 0})
        return {"alone": alone, "whole_run": whole, "during": during, "phase_at_end": phase,
                "by_phase": phases, "p99_ratio": during["p99_us"] / max(1, alone["p99_us"])}

    def latency_by_phase(self, table, trace, requested, finished, samplers):
        """The foreground operations split by the migration's steps (from the daemon's log), and
        all of them from the moment the migration was asked for; with each step the cores each
        sampled process used in it."""
        log = self.daemon.log_text()
        prefix = f"migration {table}: "
        marks = [(requested, "target created")]
        # The switch's write pause (the SDK holds writes) is its own step: from the first
        # attempt to the status write.
        for name, text in [("copy", "capture peer "), ("verification", "copy finished"),
                           ("switch pause", "switching (attempt"), ("catch-up", "switched:"),
                           ("grace (both peers)", "caught up:")]:
            line = find_line(log, prefix + text)
            if line:
                marks.append((log_time(line), name))
        ops = []
        with open(trace) as f:
            for line in f:
                due, latency, _, _ = line.split()
                ops.append((int(due) / 1000, int(latency)))

        def stats(window):
            window = sorted(window)
            return {"ops": len(window), "p50_us": window[len(window) // 2],
                    "p99_us": window[min(len(window) - 1, int(len(window) * 0.99))],
                    "max_us": window[-1]}

        out = {}
        before = [lat for t, lat in ops if t < requested]
        if before:
            out["before the migration"] = stats(before)
        for i, (start, name) in enumerate(marks):
            end = marks[i + 1][0] if i + 1 < len(marks) else finished
            window = [lat for t, lat in ops if start <= t < end]
            if window:
                out[name] = stats(window)
                out[name]["seconds"] = round(end - start, 1)
                for process, sampler in samplers.items():
                    out[name][process + "_cores"] = round(
                        sampler.between(start, end) / max(0.001, end - start), 2)
        after = [lat for t, lat in ops if t >= requested]
        if after:
            out["migrating (all steps)"] = stats(after)
        return out

    def capture_cost(self):
        out = java("CaptureCost", "--zk", h.ZK_QUORUM, "--rs-pid", str(self.cpu.pid),
                   "--writes", str(self.args.capture_writes), "--rounds", "3")
        return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engines", default="put,hfile,hfile-snapshot,mapreduce",
                        help="hfile-snapshot: the hfile engine with migration_hfile_source = "
                             "snapshot (the source read from a snapshot's files in presplitd)")
    parser.add_argument("--rate", type=int, default=200, help="foreground ops/s")
    parser.add_argument("--seconds", type=int, default=90, help="foreground run length")
    parser.add_argument("--latency-engine", default="hfile")
    parser.add_argument("--max-cells-per-s", type=int, default=0)
    parser.add_argument("--throttle", choices=["adaptive", "off"], default="adaptive",
                        help="presplitd's migration_throttle")
    parser.add_argument("--capture-writes", type=int, default=200000)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a presplitd setting for the run (repeatable), e.g. "
                             "migration_throttle_max_probe_ms=8")
    parser.add_argument("--skip", default="", help="comma list of copy,latency,capture")
    parser.add_argument("--http-port", type=int, default=19795)
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    bench = Bench(args)
    bench.daemon.start()
    results = {}
    try:
        cells = args.rows * 6
        if "copy" not in skip:
            plain = bench.plain_copy()
            results["plain"] = plain
            per_m = plain["rs_cpu"] / cells * 1e6
            print(f"plain copy: {cells} cells in {plain['seconds']:.1f} s, RegionServer "
                  f"{plain['rs_cpu']:.1f} CPU-s = {per_m:.2f} CPU-s per million cells",
                  flush=True)
            for engine in filter(None, args.engines.split(",")):
                r = bench.migrate(engine)
                results[engine] = r
                mine = r["rs_cpu"] / cells * 1e6
                print(f"presplitd engine {engine}: copy {r['seconds']:.1f} s, RegionServer "
                      f"{r['rs_cpu']:.1f} CPU-s = {mine:.2f} CPU-s per million cells "
                      f"({mine / per_m:.2f}x the plain copy); with the verification "
                      f"({r['verify_seconds']:.1f} s) {r['rs_cpu_with_verification']:.1f} CPU-s "
                      f"= {r['rs_cpu_with_verification'] / cells * 1e6:.2f} per million "
                      f"({r['rs_cpu_with_verification'] / plain['rs_cpu']:.2f}x)", flush=True)
        if "latency" not in skip:
            results["latency"] = bench.latency()
            print(f"p99 with the migration / without: {results['latency']['p99_ratio']:.2f}x",
                  flush=True)
        if "capture" not in skip:
            results["capture"] = bench.capture_cost()
            print(f"capture cost per write: {results['capture']}", flush=True)
        print("RESULT " + json.dumps(results, sort_keys=True), flush=True)
    finally:
        bench.cpu.stop.set()
        bench.daemon.stop()


if __name__ == "__main__":
    main()
