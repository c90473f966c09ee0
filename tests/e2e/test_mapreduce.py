"""End to end: the bulk engine (io.presplit.mapreduce) on a real HBase + ZooKeeper.

Both jobs run on Hadoop's local job runner inside the helper's JVM, with HBase's own MapReduce
classes: the re-salting copy (ResaltBulkJob: snapshot input, re-keyed cells, HFiles per target
region, bulk load) and the import of row files into a salted table that the real presplitd
created from a document (SaltedImport, run the operator's way: `presplitctl import` with a
presplitd config file naming the jar and the classpath). What they did is checked with the plain
HBase client (tests/e2e/java/MapReduceE2E.java), the table's directory under the HBase root, and
the SDK.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
NS = f"mr{RUN}"
HELPER = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "MapReduceE2E.java")
CLUSTER_DIR = os.environ["PRESPLIT_CLUSTER_DIR"]
HBASE_CONF_DIR = os.path.join(CLUSTER_DIR, "conf")
HBASE_ROOT_DIR = os.path.join(CLUSTER_DIR, "hbase")
JVM_FLAGS = ["-Xmx768m", "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
             "--add-opens", "java.base/java.nio=ALL-UNNAMED",
             "--add-opens", "java.base/java.lang=ALL-UNNAMED",
             "--add-opens", "java.base/java.util=ALL-UNNAMED",
             "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"]


def layout(buckets):
    return {"salt": {"buckets": buckets, "encoding": "decimal", "hash": "murmur3"},
            "group": {"delimiter": "|"}}


def helper_command():
    """MapReduceE2E with the SDK jar on the classpath (compiled once; runs the jobs too)."""
    return [*h.java_command(HELPER, JVM_FLAGS, sdk=True), "--zk", h.ZK_QUORUM]


def helper(*args, check=True, timeout=900):
    proc = h.run([*helper_command(), *args], check=check, timeout=timeout)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    return proc, (json.loads(lines[-1]) if lines else None)


def presplit_java(main, *args, check=True, timeout=900):
    """Runs a main class of presplit-hbase.jar the documented way (java -cp jar:HBase runtime)."""
    cmd = ["java", *JVM_FLAGS, "-cp", h.PRESPLIT_JAR + ":" + h.hbase_classpath(), main, *args]
    proc = h.run(cmd, check=check, timeout=timeout)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    return proc, (json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None)


class ResaltBulkJobTest(unittest.TestCase):
    """10 -> 16 buckets by ResaltBulkJob: every cell, its timestamp, none twice. 50,000 rows: the
    200,000-row run of the same job is the daemon's (test_migration_mapreduce.py)."""

    ROWS = 50_000
    VERSIONS = 3

    @classmethod
    def setUpClass(cls):
        cls.work = os.path.join(h.BUILD_DIR, "e2e", f"mr-{RUN}")
        os.makedirs(cls.work, exist_ok=True)
        cls.source = f"{NS}:events"
        _, cls.filled = helper("fill", cls.source, json.dumps(layout(10)), str(cls.ROWS),
                               str(cls.VERSIONS))

    @classmethod
    def tearDownClass(cls):
        helper("drop", cls.source, f"{NS}:events__g2", f"{NS}:events__g3", check=False)
        shutil.rmtree(cls.work, ignore_errors=True)

    def spec(self, target, staging, **extra):
        spec = {"source": self.source, "target": target, "old_layout": layout(10),
                "new_layout": layout(16), "staging_dir": staging,
                "hbase_conf_dir": HBASE_CONF_DIR, **extra}
        path = os.path.join(self.work, os.path.basename(staging) + ".json")
        with open(path, "w") as f:
            json.dump(spec, f)
        return path

    def test_snapshot_resalt_copies_every_cell_once(self):
        # Every row has 3 versions of f:a and f:b; deletes removed 1 in 100 f:b and the newest
        # f:a of 1 in 1000 rows: the copy carries the live cells only.
        expected_cells = self.ROWS * (self.VERSIONS + 1) - self.ROWS // 100 - self.ROWS // 1000
        self.assertEqual(self.filled["cells"], expected_cells)
        target = f"{NS}:events__g2"
        helper("create", target, json.dumps(layout(16)), str(self.VERSIONS))
        staging = os.path.join(self.work, "resalt")
        spec = self.spec(target, staging, min_ts=0, max_ts=10_000)

        # A run killed half-way (its JVM, and with it the local runner's job, gone): nothing is
        # loaded, the job id is unknown to a new JVM, and the next run starts over from the same
        # snapshot and replaces the partial output.
        killed = subprocess.Popen(
            ["java", *JVM_FLAGS, "-cp", h.PRESPLIT_JAR + ":" + h.hbase_classpath(),
             "io.presplit.mapreduce.ResaltBulkJob", "run", spec],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        job_id = None
        for line in killed.stderr:
            match = re.search(r'"job_id":"(job_[^"]+)".*"cells":([1-9][0-9]*)', line)
            if match:  # the mappers have emitted cells
                job_id = match.group(1)
                break
        killed.kill()
        killed.wait()
        killed.stderr.close()
        self.assertIsNotNone(job_id, "the first run never reported progress")
        _, progress = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "progress", spec,
                                    job_id)
        self.assertEqual(progress["state"], "UNKNOWN")
        _, files = helper("store-files", target, HBASE_ROOT_DIR)
        self.assertEqual(files["files_per_region"], [0] * 16)

        proc, result = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "run", spec)
        sys.stderr.write(f"ResaltBulkJob run: {result}\n")
        self.assertEqual(result["state"], "SUCCEEDED")
        self.assertEqual(result["rows"], self.ROWS)
        self.assertEqual(result["cells"], expected_cells)
        # one HFile per target region (16 regions, one family)
        self.assertEqual(result["files"], 16)
        self.assertIn("submitted job_local", proc.stderr)

        _, compared = helper("compare", self.source, json.dumps(layout(10)), target,
                             json.dumps(layout(16)))
        sys.stderr.write(f"compare: {compared}\n")
        self.assertEqual(compared["source_cells"], expected_cells)
        self.assertEqual(compared["target_cells"], expected_cells)
        self.assertEqual(compared["target_rows"], self.ROWS)
        _, files = helper("store-files", target, HBASE_ROOT_DIR)
        self.assertEqual(files["regions"], 16)
        self.assertEqual(files["files_per_region"], [1] * 16)

        # load again (a daemon restarted after the load): nothing left to load, nothing doubled
        _, again = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "load", spec)
        self.assertEqual(again["files"], 0)
        _, compared = helper("compare", self.source, json.dumps(layout(10)), target,
                             json.dumps(layout(16)))
        self.assertEqual(compared["target_cells"], expected_cells)

        presplit_java("io.presplit.mapreduce.ResaltBulkJob", "cleanup", spec)
        self.assertFalse(os.path.exists(staging))
        snapshots = os.path.join(HBASE_ROOT_DIR, ".hbase-snapshot")
        self.assertFalse(os.path.exists(os.path.join(snapshots, f"presplit_resalt_{NS}_events__g2")))

    def test_table_input_and_time_range(self):
        # TableInputFormat over the live source, only timestamps [1001, 5000): the two older
        # versions of f:a but the newest (1000 + 2 = 1002 is inside, 1000 is not), no f:b.
        target = f"{NS}:events__g3"
        helper("create", target, json.dumps(layout(16)), str(self.VERSIONS))
        spec = self.spec(target, os.path.join(self.work, "resalt-table"), input="table",
                         min_ts=1001, max_ts=5000)
        _, result = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "run", spec)
        sys.stderr.write(f"ResaltBulkJob run (table input): {result}\n")
        self.assertEqual(result["state"], "SUCCEEDED")
        # versions 1001 and 1002 of f:a, minus the deleted newest (1002) of 1 in 1000 rows
        self.assertEqual(result["cells"], self.ROWS * 2 - self.ROWS // 1000)
        _, compared = helper("compare", self.source, json.dumps(layout(10)), target,
                             json.dumps(layout(16)), "1001", "5000")
        self.assertEqual(compared["target_cells"], result["cells"])
        presplit_java("io.presplit.mapreduce.ResaltBulkJob", "cleanup", spec)

    def test_bad_spec_and_unfinished_output_are_refused(self):
        bad = self.spec(f"{NS}:nope", os.path.join(self.work, "bad"))
        with open(bad) as f:
            spec = json.load(f)
        spec["new_layout"] = {"salt": {"buckets": 0}}
        with open(bad, "w") as f:
            json.dump(spec, f)
        proc, _ = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "submit", bad, check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("layout.salt.buckets", proc.stderr)

        # load without a finished job: refused, nothing touched
        spec["new_layout"] = layout(16)
        with open(bad, "w") as f:
            json.dump(spec, f)
        proc, _ = presplit_java("io.presplit.mapreduce.ResaltBulkJob", "load", bad, check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no finished job output", proc.stderr)


def presplitctl_import(root, config, *args, check=True, timeout=900):
    """`presplitctl import` as an operator runs it: presplitctl finds java and the classpath in
    presplitd's config file and execs SaltedImport; its JSON line comes back on stdout."""
    proc = h.run([h.PRESPLITCTL, "--zk", h.ZK_QUORUM, "--root", root, "import", "--config", config,
                  *args], check=check, timeout=timeout)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    return proc, (json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None)


class SaltedImportTest(unittest.TestCase):
    """A generated row file into a salted table that presplitd pre-split from its document,
    imported through `presplitctl import`."""

    ROWS = 100_000
    BUCKETS = 8

    @classmethod
    def setUpClass(cls):
        cls.work = os.path.join(h.BUILD_DIR, "e2e", f"mr-import-{RUN}")
        os.makedirs(cls.work, exist_ok=True)
        cls.root = f"/presplit-mr-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19481, name="presplitd-mr").start()
        cls.table = f"{NS}:history"
        doc = {"version": 1, "table": cls.table,
               "layout": {"salt": {"buckets": cls.BUCKETS, "encoding": "hex", "hash": "murmur3"},
                          "group": {"delimiter": "|"}},
               "split": {"algorithm": "salt-buckets"}, "families": [{"name": "f"}]}
        path = os.path.join(cls.work, "history.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        h.ctl(cls.root, "put", path)
        h.wait_status(cls.root, cls.table, ["ready"])
        # presplitd's config file as a package installs it: the jar, the HBase runtime, the
        # cluster's hbase-site.xml (on the classpath, as for the daemon's JVM) and the heap.
        cls.config = os.path.join(cls.work, "presplitd.conf")
        with open(cls.config, "w") as f:
            f.write(f"presplit_jar = {h.PRESPLIT_JAR}\n"
                    f"jvm_classpath_file = {h.CLASSPATH_FILE}\n"
                    f"hbase_conf_dir = {HBASE_CONF_DIR}\n"
                    "jvm_max_heap = 768m\n")
        cls.rows_file = os.path.join(cls.work, "history.tsv")
        helper("write-file", cls.rows_file, str(cls.ROWS), "tab")

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        helper("drop", cls.table, check=False)
        shutil.rmtree(cls.work, ignore_errors=True)

    def run_import(self, *extra, check=True):
        return presplitctl_import(self.root, self.config, self.table,
                                  "--columns", "HBASE_ROW_KEY,f:a,f:b",
                                  "--staging", os.path.join(self.work, "staging"), *extra,
                                  check=check)

    def test_0_missing_pieces_are_named_and_nothing_runs(self):
        proc, _ = presplitctl_import(self.root, os.path.join(self.work, "none.conf"), self.table,
                                     "--columns", "HBASE_ROW_KEY,f:a,f:b", self.rows_file,
                                     check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read presplitd's config file", proc.stderr)
        no_jar = os.path.join(self.work, "no-jar.conf")
        with open(no_jar, "w") as f:
            f.write(f"presplit_jar = {os.path.join(self.work, 'none.jar')}\n"
                    f"jvm_classpath_file = {h.CLASSPATH_FILE}\n")
        proc, _ = presplitctl_import(self.root, no_jar, self.table,
                                     "--columns", "HBASE_ROW_KEY,f:a,f:b", self.rows_file,
                                     check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read presplit_jar", proc.stderr)
        # Nothing ran: test_1 finds the table's regions still without a store file.

    def test_1_bad_lines_are_counted_and_nothing_is_loaded(self):
        bad_file = os.path.join(self.work, "bad.tsv")
        with open(bad_file, "w") as f:
            f.write("k0000001|x\tv1\t7\n")          # good
            f.write("k0000002|x\tv2\n")              # a field short
            f.write("nogroup\tv3\t21\n")             # no group delimiter: does not fit the layout
            f.write("\tv4\t28\n")                    # empty row key
        proc, dry = self.run_import("--dry-run", bad_file, check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(dry["rows"], 1)
        self.assertEqual(dry["bad_lines"], 3)
        self.assertIn("line 2: 2 fields, the mapping has 3", dry["errors"][0])
        self.assertIn("no group delimiter", dry["errors"][1])
        self.assertIn("empty row key", dry["errors"][2])

        proc, _ = self.run_import("--max-bad-lines", "2", bad_file, check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("nothing was loaded", proc.stderr)
        _, files = helper("store-files", self.table, HBASE_ROOT_DIR)
        self.assertEqual(files["files_per_region"], [0] * self.BUCKETS)

    def test_2_import_lands_one_hfile_per_region(self):
        proc, dry = self.run_import("--dry-run", self.rows_file)
        self.assertEqual(dry["rows"], self.ROWS)
        self.assertEqual(dry["bad_lines"], 0)
        self.assertEqual(sum(dry["rows_per_bucket"]), self.ROWS)
        self.assertTrue(all(n > 0 for n in dry["rows_per_bucket"]))

        _, result = self.run_import(self.rows_file)
        sys.stderr.write(f"SaltedImport: {result}\n")
        self.assertEqual(result["rows"], self.ROWS)
        self.assertEqual(result["cells"], 2 * self.ROWS)
        self.assertEqual(result["bad_lines"], 0)
        self.assertEqual(result["files"], self.BUCKETS)
        self.assertFalse(os.path.exists(os.path.join(self.work, "staging")))

        _, files = helper("store-files", self.table, HBASE_ROOT_DIR)
        self.assertEqual(files["regions"], self.BUCKETS)      # no split during the load
        self.assertEqual(files["region_dirs"], self.BUCKETS)
        self.assertEqual(files["files_per_region"], [1] * self.BUCKETS)
        _, read = helper("sdk-read", self.root, self.table, str(self.ROWS))
        self.assertEqual(read["found"], self.ROWS)


if __name__ == "__main__":
    h.main()
