"""End to end: ZooKeeper access control (digest credentials and ACLs) on a real ZooKeeper.

Three identities, each with a credentials file of its own: the portal (writes documents with
presplitctl), the daemon (presplitd, writes statuses) and a writer (the SDK; the only reader named,
so nobody else reads). Checked against the real server: the portal's put is created by the
daemon; every other session - unauthenticated presplitctl, the raw ZooKeeper client, the wrong
identity - is refused with a clear message and the znodes stay as they were; the SDK reads as the
writer and writes rows through SaltedTable.
"""
import json
import os
import tempfile
import unittest
import uuid

import harness as h
from test_sdk import SDK_PROGRAM, compiled

RUN = uuid.uuid4().hex[:8]
ROOT = f"/presplit-acl-{RUN}"
TABLE = f"acl{RUN}:events"
PASSWORDS = {"portal": f"portal-pw-{RUN}", "daemon": f"daemon-pw-{RUN}", "writer": f"writer-pw-{RUN}"}


def document(buckets=4):
    return {
        "version": 1,
        "table": TABLE,
        "layout": {"salt": {"buckets": buckets, "encoding": "decimal", "hash": "murmur3"},
                   "group": {"delimiter": "|"}},
        "split": {"algorithm": "salt-buckets"},
        "families": [{"name": "f"}],
    }


class ZkAclTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix="zk-acl-", dir=os.path.join(h.BUILD_DIR, "e2e"))
        # Each file names the others by their hashed identity only (presplitctl zk-digest, the
        # password from stdin), as an operator would write them.
        digest = {user: h.run([h.PRESPLITCTL, "zk-digest", "-"],
                              input=f"{user}:{pw}\n").stdout.strip()
                  for user, pw in PASSWORDS.items()}
        cls.auth = {}
        for me in PASSWORDS:
            def name(user):
                return user if user == me else digest[user]
            path = os.path.join(cls.dir, me + ".auth")
            with open(path, "w") as f:
                f.write(f"# presplit's ZooKeeper credentials of the {me}\nscheme = digest\n"
                        f"identity = {me}:{PASSWORDS[me]}\nportal = {name('portal')}\n"
                        f"daemon = {name('daemon')}\nreaders = {name('writer')}\n")
            os.chmod(path, 0o600)
            cls.auth[me] = path
        # The portal comes first: its put creates <root> and <root>/tables on a fresh ZooKeeper,
        # and the daemon started afterwards still creates <root>/status under that <root>.
        cls.doc_path = os.path.join(cls.dir, "events.json")
        with open(cls.doc_path, "w") as f:
            json.dump(document(), f)
        cls.first_put = h.ctl(ROOT, "--auth-file", cls.auth["portal"], "put", cls.doc_path,
                              check=False)
        # Small chunks: a migration's pause or abort is acted on between two of them.
        cls.daemon = h.Daemon(ROOT, http_port=19481, name="presplitd-acl",
                              settings={"zk_auth_file": cls.auth["daemon"],
                                        "migration_chunk_rows": 20,
                                        "migration_interval_s": 1}).start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()
        h.run([*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, "drop", TABLE, TABLE + "__g2"],
              check=False, timeout=300)

    def ctl_as(self, who, *args, check=True, timeout=120):
        auth = ["--auth-file", self.auth[who]] if who else []
        return h.ctl(ROOT, *auth, *args, check=check, timeout=timeout)

    def sdk(self, who, *args, check=True, input=""):
        auth = ["--auth-file", self.auth[who]] if who else []
        return h.run([*compiled(SDK_PROGRAM), "--zk", h.ZK_QUORUM, "--root", ROOT, *auth, *args],
                     check=check, timeout=300, input=input)

    def ready_status(self):
        proc = self.ctl_as("writer", "status", TABLE, "--wait", "ready,error,invalid,drift",
                           "--timeout", "120", check=False, timeout=150)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        status = json.loads(proc.stdout)
        self.assertEqual(status["phase"], "ready", status)
        return status

    def assert_refused(self, proc, *expected):
        self.assertNotEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        for text in expected:
            self.assertIn(text, proc.stderr)
        for password in PASSWORDS.values():
            self.assertNotIn(password, proc.stdout + proc.stderr)

    def test_1_the_portal_puts_and_the_daemon_creates_and_reports(self):
        log = self.daemon.log_text()
        self.assertIn("ZooKeeper access control on: authenticating as digest:daemon", log)
        self.assertNotIn("access control is off", log)

        put = self.first_put
        self.assertEqual(put.returncode, 0, put.stdout + put.stderr)
        status = self.ready_status()
        self.assertEqual(status["regions"], 4)
        regions = json.loads(h.probe("describe", TABLE).stdout)["regions"]
        self.assertEqual(len(regions), 4, "HBase's table is not the one the document asks for")
        for password in PASSWORDS.values():
            self.assertNotIn(password, self.daemon.log_text())

    def test_2_nobody_else_changes_a_document_or_a_status(self):
        self.ready_status()
        document_before = self.ctl_as("portal", "get", TABLE).stdout
        status_before = self.ready_status()
        document_path = f"{ROOT}/tables/{TABLE}"
        status_path = f"{ROOT}/status/{TABLE}"
        changed = os.path.join(self.dir, "changed.json")
        with open(changed, "w") as f:
            json.dump(document(buckets=8), f)

        # presplitctl without credentials, and with the writer's (a reader, not the portal).
        self.assert_refused(self.ctl_as(None, "put", changed, check=False),
                            f"presplitctl: not authorised to write {document_path}: ")
        self.assert_refused(self.ctl_as("writer", "put", changed, check=False),
                            f"not authorised to write {document_path}: ",
                            "ZooKeeper identity digest:writer")
        self.assert_refused(self.ctl_as(None, "rm", TABLE, check=False),
                            f"not authorised to write {document_path}")
        # The daemon's identity may not write documents either.
        self.assert_refused(self.ctl_as("daemon", "put", changed, check=False),
                            f"not authorised to write {document_path}")
        # A new document needs the portal too.
        other = os.path.join(self.dir, "other.json")
        with open(other, "w") as f:
            json.dump({**document(), "table": f"acl{RUN}:other"}, f)
        self.assert_refused(self.ctl_as(None, "put", other, check=False),
                            f"not authorised to write {ROOT}/tables/acl{RUN}:other")

        # The raw ZooKeeper client, unauthenticated and as the portal on a status.
        self.assert_refused(self.sdk(None, "zk-set", document_path, check=False,
                                     input='{"version": 1}'), "NoAuth")
        self.assert_refused(self.sdk(None, "zk-set", status_path, check=False), "NoAuth")
        self.assert_refused(self.sdk("portal", "zk-set", status_path, check=False), "NoAuth")

        # Only the named readers read: an unauthenticated status is refused as well.
        self.assert_refused(self.ctl_as(None, "status", TABLE, check=False),
                            f"not authorised to read {status_path}")

        # Nothing changed: the document, no second document, the status (after two more passes).
        self.daemon.wait_passes(2)
        self.assertEqual(self.ctl_as("portal", "get", TABLE).stdout, document_before)
        missing = self.ctl_as("portal", "get", f"acl{RUN}:other", check=False)
        self.assertEqual(missing.returncode, 1, missing.stdout)
        status_after = self.ready_status()
        self.assertEqual(status_after["updated_at"], status_before["updated_at"])
        self.assertEqual(status_after["config_version"], status_before["config_version"])
        self.assertEqual(len(json.loads(h.probe("describe", TABLE).stdout)["regions"]), 4)

    def test_3_the_sdk_reads_as_a_reader_and_writes_rows(self):
        self.ready_status()
        done = self.sdk("writer", "roundtrip", TABLE, "200")
        evidence = json.loads(done.stdout.strip().splitlines()[-1])
        self.assertEqual(evidence["rows"], 200)
        self.assertEqual(evidence["buckets_used"], 4)
        self.assertIn("events", evidence["physical_table"])

        refused = self.sdk(None, "roundtrip", TABLE, "10", check=False)
        self.assert_refused(refused, "not authorised to read", "no credentials given")

    def test_4_an_open_root_is_reported_not_changed(self):
        # A root made before access control was turned on: everything world-writable.
        root = f"/presplit-acl-open-{RUN}"
        document_path = f"{root}/tables/acl{RUN}:open"
        self.sdk(None, "zk-set", document_path, input="{}")
        daemon = h.Daemon(root, http_port=19482, name="presplitd-acl-open",
                          settings={"zk_auth_file": self.auth["daemon"]}).start()
        try:
            h.wait_for(lambda: "setAcl -R " + root + "/tables" in daemon.log_text(), 60,
                       "the warning about the open " + root + "/tables")
            log = daemon.log_text()
            self.assertIn(f"{root} already exists with an ACL that lets anyone change it "
                          "(world:anyone:cdrwa)", log)
            self.assertIn(f"setAcl -R {root}/tables digest:portal:", log)
            # <root>/status did not exist: the daemon created it protected, so no warning.
            self.assertNotIn(f"setAcl -R {root}/status", log)
        finally:
            self.assertEqual(daemon.stop(), 0)
        # Warned, not changed: anyone may still write the document.
        self.sdk(None, "zk-set", document_path, input='{"still": "open"}')

    def test_5_operators_steer_a_migration_with_the_portals_credentials(self):
        self.ready_status()
        self.sdk("writer", "writer", TABLE, "300", "0")
        rows_before = int(h.probe("count", TABLE).stdout)
        self.assertGreaterEqual(rows_before, 300)
        # 300 rows copied at 20 cells/s by one worker, 20 rows a chunk: the copy lasts ~15 s and
        # a request is acted on within a chunk.
        migrating = {**document(buckets=8),
                     "migration": {"allowed": True, "workers": 1, "max_cells_per_s": 20,
                                   "grace_period_s": 3600}}
        path = os.path.join(self.dir, "migrating.json")
        with open(path, "w") as f:
            json.dump(migrating, f)
        self.ctl_as("portal", "put", path)

        def migration():
            proc = self.ctl_as("portal", "migration", "status", TABLE, "--json", check=False)
            return json.loads(proc.stdout) if proc.returncode == 0 else {}
        h.wait_for(lambda: migration().get("phase") == "copying", 90, "the migration copying")
        plan_path = f"{ROOT}/migrations/{TABLE}"
        request_path = f"{ROOT}/requests/{TABLE}"

        # Without credentials (not even a reader here) and as a reader: refused, nothing written.
        self.assert_refused(self.ctl_as(None, "migration", "abort", TABLE, check=False),
                            f"not authorised to read {plan_path}")
        self.assert_refused(self.ctl_as("writer", "migration", "abort", TABLE, check=False),
                            f"not authorised to write {request_path}",
                            "need the portal's credentials")
        self.assertIsNone(migration().get("request"))

        # The portal (the operators' identity, which puts documents) pauses and aborts.
        paused = self.ctl_as("portal", "migration", "pause", TABLE)
        self.assertIn("pause requested", paused.stdout)
        h.wait_for(lambda: migration().get("paused") is True, 60, "the migration paused")
        self.assertEqual(migration().get("phase"), "copying")
        self.ctl_as("portal", "migration", "abort", TABLE)
        h.wait_for(lambda: migration().get("phase") == "aborted", 60, "the migration aborted")
        target = json.loads(h.probe("describe", TABLE + "__g2").stdout)
        self.assertFalse(target["exists"], target)
        status = json.loads(self.ctl_as("portal", "status", TABLE).stdout)
        self.assertEqual(status["physical_table"], TABLE)
        self.assertEqual(status.get("generation", 1), 1)
        self.assertEqual(status["buckets"], 4)
        self.assertEqual(int(h.probe("count", TABLE).stdout), rows_before, "source untouched")
        for password in PASSWORDS.values():
            self.assertNotIn(password, self.daemon.log_text())


if __name__ == "__main__":
    h.main()
