"""presplitd's own re-salting migration, end to end, against the plain copy (issue 10's benchmark).

Run by bench/run_migration_daemon_bench.sh, which starts a fresh cluster of its own and sets the
harness's environment. One run:

1. presplitd (its own root znode and HTTP port) creates the source from a document: 10 decimal
   buckets (java-hashcode), 32-byte groups, one family keeping 3 versions;
2. MigrationBench --load-into fills it (--rows rows x 2 columns x 3 versions, 40-byte values) and
   flushes it;
3. MigrationBench --plain-copy: what a user would write (one scanner, each row re-keyed, one
   BufferedMutator) into a new table pre-split for 16 buckets; checked against the source's
   digest, then dropped;
4. the document is edited to 16 buckets with "migration": {"allowed": true}: presplitd plans the
   migration, creates the target, adds its capture peer, copies it by source region with its
   ZooKeeper checkpoints, verifies every source region against the target. The figure is the rows the
   verification counted over the time from the daemon's "target created" log line (the copy
   starts right after it) to its "verified" line, both timestamped by the daemon.

Both steps read the same source on the same cluster one after the other; the ratio is the figure.
"""
import argparse
import datetime
import json
import os
import re
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.environ["PRESPLIT_SOURCE_DIR"], "tests", "e2e"))
import harness as h  # noqa: E402

BENCH = os.path.join(h.SOURCE_DIR, "bench", "migrate", "MigrationBench.java")
TABLE = "migbench:events"
LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) ")


def document(buckets, migration=None):
    doc = {"version": 1, "table": TABLE,
           "layout": {"salt": {"buckets": buckets, "encoding": "decimal",
                               "hash": "java-hashcode"},
                      "group": {"length": 32}},
           "split": {"algorithm": "salt-buckets"},
           "families": [{"name": "f", "max_versions": 3}]}
    if migration:
        doc["migration"] = migration
    return doc


def bench_java(*args, timeout=3600):
    """MigrationBench (compiled once a run) with presplit-hbase.jar and libpresplit_jni."""
    classes = os.path.join(h.BUILD_DIR, "bench-migration", "daemon-classes")
    classpath = h.PRESPLIT_JAR + ":" + h.hbase_classpath()
    if not os.path.exists(os.path.join(classes, "MigrationBench.class")):
        os.makedirs(classes, exist_ok=True)
        h.run(["javac", "-nowarn", "-cp", classpath, "-d", classes, BENCH], timeout=300)
    lib = os.path.join(h.BUILD_DIR, "jni")
    return h.run(["java", "-Xms512m", "-Xmx512m", f"-Djava.library.path={lib}", "-cp",
                  classes + ":" + classpath, "MigrationBench", "--zk", h.ZK_QUORUM, *args],
                 timeout=timeout).stdout


def log_time(line):
    match = LOG_TIME.match(line)
    return datetime.datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S.%f").timestamp()


def find_line(log, text):
    for line in log.splitlines():
        if text in line:
            return line
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--chunk", type=int, default=None,
                        help="rows per chunk (migration_chunk_rows, engine put, default 5000; "
                        "migration_hfile_chunk_rows, engine hfile, default 100000)")
    parser.add_argument("--engine", choices=["put", "hfile"], default="hfile",
                        help="the migration's copy engine (default hfile)")
    parser.add_argument("--source", choices=["live", "snapshot"], default="live",
                        help="engine hfile: scan the source through the RegionServer (the "
                        "default) or read a snapshot's files in presplitd "
                        "(migration_hfile_source = snapshot)")
    parser.add_argument("--jfr", metavar="FILE", default=None,
                        help="record a Java Flight Recording (profile settings) of presplitd's "
                        "embedded JVM into FILE")
    parser.add_argument("--http-port", type=int, default=19790)
    args = parser.parse_args()

    if args.chunk is None:
        args.chunk = 100000 if args.engine == "hfile" else 5000
    root = f"/presplit-migration-bench-{uuid.uuid4().hex[:6]}"
    settings = {"migration_interval_s": 1, "jvm_max_heap": "512m",
                "migration_staging_dir": os.path.join(h.BUILD_DIR, "bench-migration", "staging")}
    settings["migration_hfile_chunk_rows" if args.engine == "hfile" else "migration_chunk_rows"] = \
        args.chunk
    if args.jfr:
        settings["jvm_options"] = (f"-Djava.library.path={os.path.join(h.BUILD_DIR, 'jni')} "
                                   "-XX:+StartAttachListener "
                                   "-XX:StartFlightRecording=name=bench,settings=profile")
    if args.source == "snapshot":
        # hbase-site.xml of the cluster names hbase.rootdir: the copy reads a snapshot's files.
        settings["hbase_conf_dir"] = os.path.join(os.environ["PRESPLIT_CLUSTER_DIR"], "conf")
        settings["migration_hfile_source"] = "snapshot"
    daemon = h.Daemon(root, args.http_port, name="presplitd-migration-bench", settings=settings)
    work = daemon.dir
    daemon.start()
    try:
        def put(doc):
            path = os.path.join(work, "document.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            h.ctl(root, "put", path)

        put(document(10))
        h.wait_status(root, TABLE, ["ready"], timeout=300)
        print(bench_java("--load-into", TABLE, "--rows", str(args.rows)).strip(), flush=True)

        plain = bench_java("--plain-copy", TABLE, "--rows", str(args.rows))
        print(plain.strip(), flush=True)
        plain_rate = float(re.search(r"= (\d+) rows/s", plain).group(1))

        put(document(16, {"allowed": True, "workers": args.workers, "grace_period_s": 3600,
                           "engine": args.engine}))
        prefix = f"migration {TABLE}: "

        def finished():
            log = daemon.log_text()
            if prefix + "verification failed" in log or "failed_verification" in log:
                raise RuntimeError("the daemon's verification failed; see " + daemon.log_path)
            return prefix + "verified:" in log
        h.wait_for(finished, 3600, "the daemon's migration verified")
        log = daemon.log_text()
        created = find_line(log, prefix + "target ")
        copied = find_line(log, prefix + "copy finished:")
        verified = find_line(log, prefix + "verified:")
        digested = find_line(log, prefix + "verification: ")
        rows = int(re.search(r"verification: (\d+) rows", digested).group(1))
        if rows != args.rows:
            raise RuntimeError(f"the daemon verified {rows} rows, {args.rows} were loaded")
        start, copy_end, end = (log_time(line) for line in (created, copied, verified))
        total = end - start
        rate = rows / total
        print(f"presplitd migration (engine {args.engine}, source {args.source}, "
              f"{args.workers} workers, chunks of "
              f"{args.chunk} rows, "
              f"checkpoints in ZooKeeper): {rows} rows verified in {total:.1f} s = {rate:.0f} "
              f"rows/s (copy {copy_end - start:.1f} s, verification {end - copy_end:.1f} s)")
        print(f"ratio presplitd (copy + verification) / plain copy: {rate / plain_rate:.2f}x")
        if args.jfr:
            # The embedded JVM does not dump its recording on exit: ask it now.
            h.run(["jcmd", str(daemon.proc.pid), "JFR.dump", "name=bench",
                   f"filename={os.path.abspath(args.jfr)}"], timeout=120)
            print(f"flight recording of presplitd's JVM: {args.jfr}")
    finally:
        daemon.stop()


if __name__ == "__main__":
    main()
