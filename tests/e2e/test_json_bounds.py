"""End to end: JSON nested 200,000 deep in ZooKeeper crashes nothing.

A valid JSON nested that deep parses, but copying, comparing or dumping it recurses once per level
and overflows the stack. presplitd and presplitctl check every document, status and plan against
the bounds of native/include/presplit/json_bounds.h (64 levels, 1 MiB) before parsing it. The
znodes are written with the plain ZooKeeper client (java/ZkRaw.java), bypassing presplitctl's
validation, on the shared local cluster (a ctest fixture).
"""
import json
import os
import subprocess
import tempfile
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
ZK_RAW = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "ZkRaw.java")
LEVELS = 200000
TOO_DEEP = "JSON nested deeper than 64 levels (at byte offset "


def zk_raw(*args, data=b""):
    proc = subprocess.run([*h.java_command(ZK_RAW, short_lived=True), h.ZK_QUORUM, *args],
                          input=data, capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"ZkRaw {args} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def deep_arrays():
    return b"[" * LEVELS + b"]" * LEVELS


def deep_objects():
    """{"":{"":...1}}: 4 bytes a level, 1,000,001 bytes, below ZooKeeper's 1 MiB."""
    return b'{"":' * LEVELS + b"1" + b"}" * LEVELS


def nesting_depth(value):
    if isinstance(value, dict):
        return 1 + max((nesting_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((nesting_depth(v) for v in value), default=0)
    return 0


def doc_for(table, regions=4):
    return {"version": 1, "table": table, "split": {"algorithm": "hex-string", "regions": regions},
            "families": [{"name": "f"}]}


def write_doc(doc):
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return path


class JsonBoundsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-bounds-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19476, name="bounds").start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def assert_serving(self):
        self.assertTrue(self.daemon.alive(), self.daemon.log_text()[-3000:])
        self.assertEqual(self.daemon.healthz()[0], 200)
        self.assertEqual(self.daemon.metrics().get("presplit_exceptions_caught_total", 0), 0)

    def test_1_a_document_nested_too_deep_is_invalid_and_says_why(self):
        # Every field valid, and a description nested 200,000 deep.
        member = json.dumps(doc_for(f"deep_member_{RUN}"))[:-1].encode()
        member += b', "description": ' + deep_objects() + b"}"
        documents = {
            f"default:deep_arrays_{RUN}": deep_arrays(),
            f"default:deep_member_{RUN}": member,
        }
        for name, data in documents.items():
            zk_raw("set", f"{self.root}/tables/{name}", data=data)
        for name in documents:
            status = h.wait_status(self.root, name, ["invalid", "error", "ready"])
            self.assertEqual(status["phase"], "invalid", status)
            self.assertTrue(status["error"].startswith(TOO_DEEP), status["error"])
        self.assert_serving()

    def test_2_a_status_nested_too_deep_is_replaced_by_the_next_full_pass(self):
        table = f"deep_status_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        self.assertEqual(h.wait_status(self.root, table, ["ready", "error"])["phase"], "ready")
        zk_raw("set", f"{self.root}/status/default:{table}",
               data=b'{"phase": "ready", "load": ' + deep_objects() + b"}")

        def replaced():
            shown = h.ctl(self.root, "status", table, check=False)
            return shown.returncode == 0 and json.loads(shown.stdout)["phase"] == "ready"

        # resync_interval_s is 5: the next full pass rewrites it.
        h.wait_for(replaced, 60, "the daemon to replace the status nested too deep")
        # The load watcher may have written its own load section since (it does for every table):
        # what must be gone is the injected one, 200,000 levels of {"": ...}.
        status = h.status(self.root, table)
        self.assertLess(nesting_depth(status), 10, status)
        if "load" in status:
            self.assertIn("updated_at_ms", status["load"], status)
            self.assertNotIn("", status["load"], status)
        self.assertIn(f"table default:{table}: replacing its status, which cannot be read: "
                      + TOO_DEEP, self.daemon.log_text())
        self.assert_serving()

    def test_3_a_migration_plan_nested_too_deep_is_logged_and_left_alone(self):
        name = f"default:deep_plan_{RUN}"
        zk_raw("set", f"{self.root}/migrations/{name}", data=deep_arrays())
        expected = (f"migration {name}: cannot read the plan: INVALID_ARGUMENT: the migration "
                    "plan: " + TOO_DEEP)
        h.wait_for(lambda: expected in self.daemon.log_text(), 60,
                   "the leader's migrate worker to refuse the plan")
        self.assert_serving()
        zk_raw("delete", f"{self.root}/migrations/{name}")

    def test_4_a_valid_document_written_afterwards_is_created(self):
        table = f"after_deep_{RUN}"
        h.ctl(self.root, "put", write_doc(doc_for(table)))
        status = h.wait_status(self.root, table, ["ready", "error"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(h.probe("regions-count", table).stdout.strip(), "4")
        self.assert_serving()

    def test_5_presplitctl_says_why_it_cannot_read_a_znode(self):
        # A root no daemon serves: the znodes stay as written while presplitctl reads them.
        root = f"/presplit-bounds-ctl-{RUN}"
        zk_raw("set", f"{root}/tables/default:t", data=json.dumps(doc_for("t")).encode())
        zk_raw("set", f"{root}/status/default:t", data=deep_objects())
        zk_raw("set", f"{root}/migrations/default:t", data=deep_arrays())

        one = h.ctl(root, "status", "t", check=False)
        self.assertEqual(one.returncode, 1, one)
        self.assertIn("status of default:t cannot be read: " + TOO_DEEP, one.stderr)

        every = h.ctl(root, "status", "--format", "json", check=False)
        self.assertEqual(every.returncode, 0, every)
        self.assertEqual(every.stdout, "")
        self.assertIn("warning: status of default:t cannot be read: " + TOO_DEEP, every.stderr)

        waited = h.ctl(root, "status", "t", "--wait", "ready", "--timeout", "1", check=False)
        self.assertEqual(waited.returncode, 1, waited)
        self.assertIn("timed out after 1 s", waited.stderr)
        self.assertIn("(status of default:t cannot be read: " + TOO_DEEP, waited.stderr)

        migration = h.ctl(root, "migration", "status", "t", check=False)
        self.assertEqual(migration.returncode, 1, migration)
        self.assertIn("the migration plan of default:t cannot be read: " + TOO_DEEP,
                      migration.stderr)

        # A document nested too deep, given to put: refused, nothing written.
        fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
        with os.fdopen(fd, "wb") as f:
            f.write(deep_arrays())
        put = h.ctl(root, "put", path, check=False)
        self.assertEqual(put.returncode, 1, put)
        self.assertIn("document refused, nothing written: " + TOO_DEEP, put.stderr)


if __name__ == "__main__":
    h.main()
