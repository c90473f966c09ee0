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
  grant is refused by the NameNode.
"""
import os
import shlex
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
PROBE_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosHdfsProbe.java")


def cluster_env():
    """What `scripts/local-cluster env` says about the cluster (principals, keytabs, the HDFS)."""
    out = h.run([os.path.join(h.SOURCE_DIR, "scripts", "local-cluster"), "env"]).stdout
    env = {}
    for line in out.splitlines():
        name, _, value = line.partition("=")
        env[name] = shlex.split(value)[0] if value else ""
    return env


ENV = cluster_env()
CONF_DIR = ENV["PRESPLIT_HBASE_CONF_DIR"]
KRB5 = ENV["KRB5_CONFIG"]
HBASE = (ENV["PRESPLIT_HBASE_PRINCIPAL"], ENV["PRESPLIT_HBASE_KEYTAB"])
DAEMON = (ENV["PRESPLIT_DAEMON_PRINCIPAL"], ENV["PRESPLIT_DAEMON_KEYTAB"])
TESTER = (ENV["PRESPLIT_TESTER_PRINCIPAL"], ENV["PRESPLIT_TESTER_KEYTAB"])
HDFS_URI = ENV["PRESPLIT_HDFS_URI"]
STAGING = ENV["PRESPLIT_HDFS_STAGING_DIR"]


def probe(identity, *args):
    """KerberosHdfsProbe as `identity` (principal, keytab): (exit code, RESULT value, stderr)."""
    cmd = h.java_command(PROBE_SOURCE, short_lived=True)
    cp = cmd.index("-cp")
    cmd[cp + 1] = CONF_DIR + ":" + cmd[cp + 1]
    cmd[cp:cp] = ["-Djava.security.krb5.conf=" + KRB5, *h.HBASE_CLIENT_JVM]
    proc = h.run([*cmd, *identity, *args], check=False, timeout=180)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return proc.returncode, line[len("RESULT "):], proc.stderr
    return proc.returncode, None, proc.stderr


def result(identity, *args):
    rc, value, err = probe(identity, *args)
    if rc != 0 or value is None:
        raise AssertionError(f"KerberosHdfsProbe {args} as {identity[0]}: exit {rc}\n{err}")
    return value


class KerberosHdfsTest(unittest.TestCase):

    def test_1_the_superuser_creates_a_table_on_hdfs_and_puts_and_gets(self):
        table = f"krbhdfs{RUN}"
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
