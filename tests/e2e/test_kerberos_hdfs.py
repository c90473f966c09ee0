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
  in the default migration_staging_dir on this HDFS: HBase's secure bulk load moves the staged
  HFiles into the regions, the new generation holds every row in its new buckets, the
  migration's staging directory is gone (the cluster's servers load presplit-hbase.jar, whose
  replication endpoint is the migration's change capture).
"""
import glob
import json
import os
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
    """A test program's java command as a client of the cluster: its conf directory first on the
    classpath, its KDC's krb5.conf (Java does not read KRB5_CONFIG)."""
    cp = cmd.index("-cp")
    cmd[cp + 1] = CONF_DIR + ":" + cmd[cp + 1]
    cmd[cp:cp] = ["-Djava.security.krb5.conf=" + KRB5, *h.HBASE_CLIENT_JVM]
    return cmd


def probe(identity, *args, source=PROBE_SOURCE):
    """KerberosHdfsProbe (or `source`) as `identity` (principal, keytab): (exit code, RESULT
    value, stderr)."""
    cmd = kerberized(h.java_command(source, short_lived=True))
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
        # The superuser grants what a re-salting migration takes (docs/deploying.md): RWCA on
        # the namespace, global ADMIN for the capture's replication peers.
        result(HBASE, "create-namespace", NS, source=KPROBE_SOURCE)
        result(HBASE, "grant", "presplit", "@" + NS, "RWCA", source=KPROBE_SOURCE)
        result(HBASE, "grant-global", "presplit", "A")
        table = f"{NS}:events"
        d = h.Daemon(ROOT, 19536, name="presplitd-krb-hdfs", settings={
            "hbase_conf_dir": CONF_DIR, "kerberos_principal": DAEMON[0],
            "kerberos_keytab": DAEMON[1], "migration_interval_s": 1,
            "migration_hfile_chunk_rows": 100})
        d.start()
        try:
            put(d.root, salted(table, 4))
            status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "ready", status)
            rows = 200
            cmd = kerberized(h.java_command(SDK_SOURCE, sdk=True, short_lived=True))
            h.run([*cmd, *DAEMON, h.ZK_QUORUM, d.root, table, str(rows)], timeout=180)
            self.assertEqual(result(HBASE, "rows", table, source=KPROBE_SOURCE),
                             f"{rows} 0,1,2,3")

            put(d.root, salted(table, 8, {"allowed": True, "workers": 1, "engine": "hfile",
                                          "grace_period_s": 5}))

            def phase():
                proc = h.ctl(d.root, "migration", "status", table, "--json", check=False)
                return json.loads(proc.stdout).get("phase") if proc.returncode == 0 else None

            h.wait_for(lambda: phase() in ("done", "aborted", "failed_verification"), 240,
                       lambda: "the migration's end\n" + d.log_story("migration", table))
            self.assertEqual(phase(), "done", d.log_story("migration", table))
            self.assertEqual(h.status(d.root, table)["generation"], 2)
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
    unittest.main(verbosity=2)
