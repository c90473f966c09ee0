"""End to end: the Kerberized cluster's HDFS (scripts/local-cluster --kerberos --hdfs, the
kerberos_cluster fixture of tests/e2e/CMakeLists.txt; e2e.kerberos runs presplitd on the same
cluster).

Checked against the real NameNode, DataNode and HBase, each client logged in from its keytab:

- HBase's superuser creates a table, puts a cell and gets it back; the table's files are on the
  Kerberized HDFS, owned by hbase;
- presplitd's staging directory (`migration_staging_dir`'s default, made by `start` as an operator
  would): owned by presplitd's principal, with an ACL and a default ACL giving hbase rwx;
- presplitd's principal writes a file in a migration's directory there and reads it back (SASL
  data transfer to the DataNode); hbase moves it, as a bulk load does; a principal without a
  grant is refused by the NameNode;
- a re-salting migration with the hfile engine, presplitd logged in as its principal and staging
  in the default migration_staging_dir on this HDFS, asked to read a snapshot's files
  (migration_hfile_source = snapshot), which hbase.rootdir refuses it: the chunks scan the live
  table instead and the log says why; HBase's secure bulk load moves the staged
  HFiles into the regions, the new generation holds every row in its new buckets, the
  migration's staging directory is gone (the cluster's servers load presplit-hbase.jar, whose
  replication endpoint is the migration's change capture);
- the same migration with the mapreduce engine (Hadoop's local job runner in the daemon's JVM):
  hbase.rootdir is HBase's alone (mode 700), so the job reads the live table through the
  RegionServers instead of a snapshot's files, and carries an HBase and an HDFS delegation
  token; every row lands in its new bucket with its cells and timestamps unchanged;
- `presplitctl import` as presplitd's principal (its config file naming the keytab) imports a
  row file into a salted table presplitd created, staging on this HDFS; a user granted READ
  reads the rows back through the SDK.
"""
import glob
import json
import os
import re
import tempfile
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
PROBE_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosHdfsProbe.java")
KPROBE_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosProbe.java")
SDK_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosSdk.java")
NS = f"krbhdfs{RUN}"
ROOT = f"/presplit-krb-hdfs-{RUN}"


ENV = h.cluster_env()
CONF_DIR = ENV["PRESPLIT_HBASE_CONF_DIR"]
KRB5 = ENV["KRB5_CONFIG"]
HBASE = (ENV["PRESPLIT_HBASE_PRINCIPAL"], ENV["PRESPLIT_HBASE_KEYTAB"])
DAEMON = (ENV["PRESPLIT_DAEMON_PRINCIPAL"], ENV["PRESPLIT_DAEMON_KEYTAB"])
TESTER = (ENV["PRESPLIT_TESTER_PRINCIPAL"], ENV["PRESPLIT_TESTER_KEYTAB"])
HDFS_URI = ENV["PRESPLIT_HDFS_URI"]
STAGING = ENV["PRESPLIT_HDFS_STAGING_DIR"]


# The daemon reads the KDC's krb5.conf through KRB5_CONFIG, as an operator's would.
os.environ["KRB5_CONFIG"] = KRB5


def kerberized(cmd):
    return h.kerberized(cmd, CONF_DIR, KRB5)


def probe(identity, *args, source=PROBE_SOURCE):
    """KerberosHdfsProbe (or `source`) as `identity` (principal, keytab): (exit code, RESULT
    value, stderr)."""
    cmd = kerberized(h.java_command(source, sdk=source == SDK_SOURCE, short_lived=True))
    proc = h.run([*cmd, *identity, *args], check=False, timeout=180)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return proc.returncode, line[len("RESULT "):], proc.stderr
    return proc.returncode, None, proc.stderr


def result(identity, *args, source=PROBE_SOURCE):
    rc, value, err = probe(identity, *args, source=source)
    if rc != 0 or value is None:
        raise AssertionError(f"KerberosHdfsProbe {args} as {identity[0]}: exit {rc}\n{err}")
    return value


class KerberosHdfsTest(unittest.TestCase):

    def test_1_the_superuser_creates_a_table_on_hdfs_and_puts_and_gets(self):
        table = f"krbput{RUN}"
        self.assertEqual(result(HBASE, "put-get", table, "row1", "value1"), "value1")
        owner = result(HBASE, "hdfs-stat", f"{HDFS_URI}/hbase/data/default/{table}")
        self.assertTrue(owner.startswith("hbase:"), owner)

    def test_2_the_staging_directory_is_presplits_and_hbase_may_move_its_files(self):
        self.assertEqual(STAGING, HDFS_URI + "/tmp/presplit-resalt")
        stat = result(DAEMON, "hdfs-stat", STAGING)
        self.assertTrue(stat.startswith("presplit:"), stat)
        self.assertIn("user:hbase:rwx", stat)
        self.assertIn("default:user:hbase:rwx", stat)

        # A migration's directory and a chunk's file, as presplitd's hfile engine writes them.
        chunk = f"{STAGING}/krb_{RUN}/f/chunk-0"
        self.assertTrue(result(DAEMON, "hdfs-write", chunk, "cells " + RUN)
                        .startswith("presplit "))
        self.assertEqual(result(DAEMON, "hdfs-read", chunk), "cells " + RUN)
        # The default ACL reached the new directory: hbase moves the file, as a bulk load does.
        moved = f"{STAGING}/krb_{RUN}/f/moved-0"
        self.assertEqual(result(HBASE, "hdfs-rename", chunk, moved), "renamed")
        self.assertEqual(result(DAEMON, "hdfs-read", moved), "cells " + RUN)

    def test_3_a_principal_without_a_grant_is_refused(self):
        rc, value, err = probe(TESTER, "hdfs-write", f"{STAGING}/tester-{RUN}", "x")
        self.assertEqual(rc, 1, err)
        self.assertIsNone(value)
        self.assertIn("AccessControlException: Permission denied: user=tester", err)

    # The migration's change capture runs in the RegionServers (a replication endpoint of
    # presplit-hbase.jar, which the suite's Kerberos cluster loads as production servers do).
    def test_4_an_hfile_migration_stages_on_the_kerberized_hdfs_and_bulk_loads(self):
        grant_migration_rights()
        table = f"{NS}:events"
        # Asked to read a snapshot's files, which hbase.rootdir (HBase's, mode 700) refuses to
        # presplitd's principal: the chunks scan the live table instead, and the log says why.
        d = migrating_daemon(19536, "presplitd-krb-hdfs", migration_hfile_chunk_rows=100,
                             migration_hfile_source="snapshot")
        d.start()
        try:
            rows = 200
            write_salted_table(self, d, table, rows)
            # An application's grant on the table (this cluster runs the AccessController): the
            # new generation carries it, or the application would lose its access at the switch.
            tester = TESTER[0].split("@")[0].split("/")[0]  # the short name HBase sees
            result(HBASE, "grant", tester, table, "RW", source=KPROBE_SOURCE)
            self.assertIn(f"{tester}:RW",
                          result(HBASE, "grants", table, source=KPROBE_SOURCE).split(","))
            migrate(self, d, table, "hfile")
            self.assertIn(f"{tester}:RW", result(HBASE, "grants", table + "__g2",
                                                  source=KPROBE_SOURCE).split(","))
            self.assertRegex(d.log_text(), rf"grants copied: [1-9]\d*")
            self.assertRegex(d.log_text(), re.escape(
                f"migration {table}: hfile copy: the chunks read the live table through the "
                "RegionServers, not a snapshot's files (migration_hfile_source = snapshot): this "
                "daemon's user may not read the source's files under hbase.rootdir (cannot read "
                f"{HDFS_URI}/hbase") + r".*Permission denied: user=presplit")
            # Every row in the new generation's table, seen by HBase's superuser, salted into its
            # eight buckets (ten groups of rows: not necessarily all eight).
            count, salts = result(HBASE, "rows", table + "__g2", source=KPROBE_SOURCE).split()
            self.assertEqual(count, str(rows))
            self.assertLessEqual(set(salts.split(",")), set("01234567"), salts)
            self.assertTrue(set(salts.split(",")) & set("4567"), salts)
            # The HFiles were staged in the default staging directory on this HDFS, moved into
            # the regions by HBase's secure bulk load (not copied), and are gone from it.
            moved = [line for line in rs_logs().splitlines()
                     if "Moving " + STAGING + "/" in line]
            self.assertTrue(moved, "no HFile moved from the staging directory")
            listing = result(DAEMON, "hdfs-list", STAGING)
            self.assertNotIn(table.replace(":", "_"), listing)
            print(f"hfile engine: {len(moved)} HFiles moved from {STAGING}", flush=True)
        finally:
            d.stop()

    def test_5_a_mapreduce_migration_reads_the_live_table_with_delegation_tokens(self):
        grant_migration_rights()
        table = f"{NS}:jobs"
        # The local job runner's map and reduce tasks run in the daemon's JVM.
        d = migrating_daemon(19537, "presplitd-krb-mr", jvm_max_heap="768m")
        d.start()
        try:
            write_salted_table(self, d, table, 200)
            before = sdk_dump(DAEMON, d.root, table)
            self.assertEqual((before["physical_table"], before["rows"], before["misplaced"]),
                             (table, 200, 0))
            migrate(self, d, table, "mapreduce")
            after = sdk_dump(DAEMON, d.root, table)
            self.assertEqual((after["physical_table"], after["buckets"], after["misplaced"]),
                             (table + "__g2", 8, 0), "every row at its new key")
            self.assertEqual(after["cells"], before["cells"], "the same cells and timestamps")
            log = d.log_text()
            # hbase.rootdir is HBase's (700): not a snapshot's files but a scan of the live table.
            self.assertRegex(log, re.escape(
                f"migration {table}: bulk copy: the job reads the live table through the "
                "RegionServers (input \"table\"), not a snapshot's files: this daemon's user may "
                f"not read the source's files under hbase.rootdir (cannot read {HDFS_URI}/hbase")
                + r".*Permission denied: user=presplit")
            # migration_staging_dir's default, a path on fs.defaultFS (this HDFS).
            self.assertRegex(log, rf"bulk copy: submitted job job_local\S+ \(attempt 1\): "
                             rf".* table input, staging {re.escape(STAGING[len(HDFS_URI):])}/")
            self.assertRegex(log, r"bulk copy: job job_local\S+ carries delegation tokens: "
                             r"HBASE_AUTH_TOKEN, HDFS_DELEGATION_TOKEN\n")
            self.assertRegex(log, r"bulk copy: loaded [1-9]\d* HFiles")
            # Its map tasks, in this JVM and reading the live table, took from the adaptive
            # throttle's gate while the job ran.
            self.assertIn(f"migration {table}: bulk copy: the job's map tasks read the live table "
                          "through the adaptive throttle's gate", log)
            self.assertIn(f"migration {table}: bulk copy: the job's throttle ended", log)
            self.assertNotIn(table.replace(":", "_"), result(DAEMON, "hdfs-list", STAGING))
            # The local runner's job and spill files (on the local disk, staging being on HDFS)
            # are gone with the staging directory.
            local = os.path.join(tempfile.gettempdir(), "presplit-mapred",
                                 table.replace(":", "_") + "__g2")
            self.assertFalse(os.path.exists(local), local)
        finally:
            d.stop()

    def test_6_presplitctl_import_as_presplits_principal_on_the_kerberized_hdfs(self):
        grant_migration_rights()
        table = f"{NS}:imported"
        d = migrating_daemon(19538, "presplitd-krb-import")
        d.start()
        try:
            put(d.root, salted(table, 4))
            status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "ready", status)
        finally:
            d.stop()
        rows = 60
        work = os.path.join(h.BUILD_DIR, "e2e", f"krb-import-{RUN}")
        os.makedirs(work, exist_ok=True)
        rows_file = os.path.join(work, "rows.tsv")
        with open(rows_file, "w") as f:
            for i in range(rows):
                f.write(f"u{i % 10}|{i:05d}\tv{i}\n")
        # presplitd's config file as installed: jar, classpath, the cluster's conf directory and
        # the principal's keytab; presplitctl passes them (and KRB5_CONFIG) to SaltedImport.
        config = os.path.join(work, "presplitd.conf")
        with open(config, "w") as f:
            f.write(f"presplit_jar = {h.PRESPLIT_JAR}\n"
                    f"jvm_classpath_file = {h.CLASSPATH_FILE}\n"
                    f"hbase_conf_dir = {CONF_DIR}\n"
                    f"kerberos_principal = {DAEMON[0]}\n"
                    f"kerberos_keytab = {DAEMON[1]}\n"
                    "jvm_max_heap = 512m\n")
        staging = f"{STAGING}/import-{RUN}"
        proc = h.run([h.PRESPLITCTL, "--zk", h.ZK_QUORUM, "--root", d.root, "import", "--config",
                      config, table, "--columns", "HBASE_ROW_KEY,f:q", "--timestamp", "1700000000000",
                      "--staging", staging, "file://" + rows_file], check=False, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertRegex(proc.stderr, r"SaltedImport: submitted job_local\S+ into "
                         rf"{re.escape(table)}; delegation tokens: HBASE_AUTH_TOKEN, "
                         r"HDFS_DELEGATION_TOKEN")
        imported = json.loads(proc.stdout.strip().splitlines()[-1])
        self.assertEqual((imported["rows"], imported["cells"], imported["bad_lines"]),
                         (rows, rows, 0))
        self.assertNotIn(f"import-{RUN}", result(DAEMON, "hdfs-list", STAGING))
        self.assertFalse(os.path.exists(os.path.join(tempfile.gettempdir(), "presplit-mapred",
                                                     f"import-{RUN}")))
        # A user granted READ on the table reads every row back through the SDK.
        result(HBASE, "grant", "tester", table, "R", source=KPROBE_SOURCE)
        seen = {}

        def read_back():
            rc, value, err = probe(TESTER, *sdk_args(d.root, table), source=SDK_SOURCE)
            seen.update(rc=rc, err=err, dump=json.loads(value) if rc == 0 and value else None)
            return rc != 3  # 3: refused (the grant reaches the RegionServers through ZooKeeper)

        h.wait_for(read_back, 60, "the test user's read after the grant")
        self.assertEqual(seen["rc"], 0, seen["err"])
        dump = seen["dump"]
        self.assertEqual((dump["user"], dump["rows"], dump["misplaced"]), ("tester", rows, 0))
        self.assertEqual(dump["cells"], {f"u{i % 10}|{i:05d}": [[1700000000000, f"v{i}"]]
                                         for i in range(rows)})


def grant_migration_rights():
    """What the superuser grants presplitd's principal for a re-salting migration
    (docs/deploying.md): RWCA on the namespace, global ADMIN for the capture's peers."""
    result(HBASE, "create-namespace", NS, source=KPROBE_SOURCE)
    result(HBASE, "grant", "presplit", "@" + NS, "RWCA", source=KPROBE_SOURCE)
    result(HBASE, "grant-global", "presplit", "A")


def migrating_daemon(port, name, **settings):
    """presplitd logged in from its keytab, staging in the default migration_staging_dir (on
    this HDFS)."""
    return h.Daemon(ROOT, port, name=name, settings={
        "hbase_conf_dir": CONF_DIR, "kerberos_principal": DAEMON[0],
        "kerberos_keytab": DAEMON[1], "migration_interval_s": 1, **settings})


def write_salted_table(test, d, table, rows):
    """A table salted into 4 buckets, `rows` rows written through the SDK as presplitd."""
    put(d.root, salted(table, 4))
    status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
    test.assertEqual(status["phase"], "ready", status)
    cmd = kerberized(h.java_command(SDK_SOURCE, sdk=True, short_lived=True))
    h.run([*cmd, *DAEMON, h.ZK_QUORUM, d.root, table, str(rows)], timeout=180)
    test.assertEqual(result(HBASE, "rows", table, source=KPROBE_SOURCE), f"{rows} 0,1,2,3")


def migrate(test, d, table, engine):
    """Re-salts `table` from 4 into 8 buckets with `engine` and waits for the migration's end."""
    # A write pause of 15 s, not the default 5: the read-only reopen over three servers, its
    # closes and the drain's WAL roll on each server overran 5 s beside the rest of the suite on
    # 2 cores on the split cluster (test_multi_server.py PAUSE_MS), abandoning every switch.
    put(d.root, salted(table, 8, {"allowed": True, "workers": 1, "engine": engine,
                                  "grace_period_s": 5, "max_write_pause_ms": 15000}))

    def migration():
        proc = h.ctl(d.root, "migration", "status", table, "--json", check=False)
        return json.loads(proc.stdout) if proc.returncode == 0 else {}

    # The end, or an error the daemon will not retry on its own (failed jobs, failed submits).
    h.wait_for(lambda: migration().get("phase") in ("done", "aborted", "failed_verification")
               or "not submitted again" in str(migration().get("error"))
               or "failure 3 of 3" in str(migration().get("error")), 240,
               lambda: "the migration's end\n" + d.log_story("migration", table))
    test.assertEqual(migration().get("phase"), "done", d.log_story("migration", table))
    test.assertEqual(h.status(d.root, table)["generation"], 2)


def sdk_args(root, table):
    return (h.ZK_QUORUM, root, table, "dump")


def sdk_dump(identity, root, table):
    """KerberosSdk's dump of the table's current generation, as `identity`."""
    rc, value, err = probe(identity, *sdk_args(root, table), source=SDK_SOURCE)
    if rc != 0 or value is None:
        raise AssertionError(f"KerberosSdk dump of {table} as {identity[0]}: exit {rc}\n{err}")
    return json.loads(value)


def rs_logs():
    """Every RegionServer's log of this cluster."""
    text = []
    for path in sorted(glob.glob(os.path.join(ENV["PRESPLIT_CLUSTER_DIR"], "logs",
                                              "regionserver*.log*"))):
        with open(path, errors="replace") as f:
            text.append(f.read())
    return "".join(text)


def salted(table, buckets, migration=None):
    doc = {"version": 1, "table": table,
           "layout": {"salt": {"buckets": buckets, "encoding": "decimal", "hash": "murmur3"},
                      "group": {"delimiter": "|"}},
           "split": {"algorithm": "salt-buckets"},
           "families": [{"name": "f"}]}
    if migration is not None:
        doc["migration"] = migration
    return doc


def put(root, doc):
    path = os.path.join(h.BUILD_DIR, "e2e", f"krb-hdfs-{RUN}-{doc['table'].replace(':', '-')}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f)
    h.ctl(root, "put", path)


if __name__ == "__main__":
    h.main()
