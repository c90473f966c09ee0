"""End to end: the example portal (examples/portal/PortalServer.java) in headless Chromium.

A real presplitd and the portal run against the local cluster; Debian's Chromium is driven
through chromedriver with the W3C WebDriver protocol, spoken here over plain HTTP (urllib, no
client library). The page is used as a person would: type a document with a bad bucket count,
see the error next to its JSON Pointer, fix it, see the region preview, save, see `ready` with
the region count; then a save over a stale version shows the conflict. HBase itself (HBaseProbe)
confirms the regions. Screenshots are kept in <build>/e2e.
"""
import os
import subprocess
import unittest
import urllib.request
import uuid

import harness as h
from webdriver import WebDriver, free_port, http

RUN = uuid.uuid4().hex[:8]
PORTAL = os.path.join(h.SOURCE_DIR, "examples", "portal", "PortalServer.java")
JNI_DIR = os.path.join(h.BUILD_DIR, "jni")
E2E_DIR = os.path.join(h.BUILD_DIR, "e2e")


def document(table, buckets, description):
    return (f'{{"version": 1, "table": "{table}", "description": "{description}", '
            f'"layout": {{"salt": {{"buckets": {buckets}, "encoding": "decimal"}}, '
            f'"group": {{"length": 4}}}}, "split": {{"algorithm": "salt-buckets"}}, '
            f'"families": [{{"name": "f"}}]}}')


class ExamplePortalTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(E2E_DIR, exist_ok=True)
        cls.root = f"/presplit-portal-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19483, name="presplitd-portal").start()
        cls.port = free_port()
        cls.url = f"http://127.0.0.1:{cls.port}"
        command = h.java_command(PORTAL, [*h.HBASE_CLIENT_JVM, f"-Djava.library.path={JNI_DIR}"],
                                 sdk=True)
        cls.portal_log_path = os.path.join(cls.daemon.dir, "portal.log")
        cls.portal_log = open(cls.portal_log_path, "w")
        cls.portal = subprocess.Popen(
            [*command, "--zk", h.ZK_QUORUM, "--root", cls.root, "--port", str(cls.port)],
            stdout=cls.portal_log, stderr=subprocess.STDOUT)
        h.wait_for(cls.portal_answers, 90, "the portal to answer")

    @classmethod
    def portal_answers(cls):
        if cls.portal.poll() is not None:
            with open(cls.portal_log_path) as f:
                raise AssertionError(f"the portal exited with {cls.portal.returncode}:\n{f.read()}")
        try:
            with urllib.request.urlopen(cls.url + "/", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    @classmethod
    def tearDownClass(cls):
        cls.portal.terminate()
        try:
            cls.portal.wait(timeout=30)
        except subprocess.TimeoutExpired:
            cls.portal.kill()
            cls.portal.wait()
        cls.portal_log.close()
        if cls.daemon.alive():
            cls.daemon.stop()

    def test_api_answers_bad_requests_with_400(self):
        status, answer = http("GET", self.url + "/api/status")
        self.assertEqual(status, 400)
        self.assertIn("table parameter is required", answer["error"])
        status, answer = http("POST", self.url + "/api/save", document("x:y", 4, "d"))
        self.assertEqual(status, 400)
        self.assertIn("expected_version is required", answer["error"])
        status, answer = http("POST", self.url + "/api/save?expected_version=-1",
                              document("x:y", 0, "d"))
        self.assertEqual(status, 400)
        self.assertEqual(answer["errors"][0]["pointer"], "/layout/salt/buckets")
        status, answer = http("POST", self.url + "/api/plan", "{not json")
        self.assertEqual(status, 400)
        self.assertEqual(answer["errors"][0]["pointer"], "")
        status, answer = http("GET", self.url + "/api/validate")
        self.assertEqual(status, 405)
        status, answer = http("POST", self.url + "/api/validate", "")
        self.assertEqual(status, 400)
        with open(self.portal_log_path) as f:
            self.assertNotIn("\tat ", f.read(), "a stack trace in the portal's log")

    def test_edit_validate_save_ready_conflict_in_chromium(self):
        table = f"portal{RUN}:orders"
        self.addCleanup(lambda: h.probe("drop", table, check=False))
        driver = WebDriver(os.path.join(self.daemon.dir, "chromedriver.log"))
        self.addCleanup(driver.quit)
        driver.start(os.path.join(self.daemon.dir, "chromium"))
        driver.go(self.url + "/")
        self.assertEqual(driver.text("#loaded"), "a new document")

        # A bucket count of 0: the validator's error, next to the field's JSON Pointer.
        driver.type("#document", document(table, 0, "orders by customer"))
        h.wait_for(lambda: "/layout/salt/buckets" in (driver.text("#errors") or ""), 60,
                   "the error at /layout/salt/buckets")
        self.assertIn("between 1 and", driver.text("#errors .message"))
        self.assertEqual(driver.text("#errors .pointer"), "/layout/salt/buckets")
        self.assertEqual(driver.text("#plan-regions"), "-")
        driver.screenshot(os.path.join(E2E_DIR, f"portal-invalid-{RUN}.png"))

        # Fixed: no error left, the preview has the regions and the first split keys.
        driver.clear("#document")
        driver.type("#document", document(table, 6, "orders by customer"))
        h.wait_for(lambda: driver.text("#plan-regions") == "6", 60, "the preview's region count")
        self.assertEqual(driver.text("#errors"), "")
        self.assertTrue(driver.text("#validity").startswith("valid"), driver.text("#validity"))
        keys = driver.text("#plan-keys").split("\n")
        self.assertEqual(len(keys), 5, keys)

        # Save (a new document), then the page polls presplitd's status of that version.
        driver.click("#save")
        h.wait_for(lambda: "version 0" in (driver.text("#save-result") or ""), 60,
                   "the save")
        h.wait_for(lambda: driver.text("#status-phase") == "ready", 240, "ready")
        self.assertEqual(driver.text("#status-regions"), "6")
        self.assertEqual(driver.text("#status-version"), "0")
        driver.screenshot(os.path.join(E2E_DIR, f"portal-ready-{RUN}.png"))

        # HBase, through its own client, has the table with those regions and keys.
        self.assertEqual(h.probe("exists", table).stdout.strip(), "true")
        self.assertEqual(int(h.probe("regions-count", table).stdout.strip()), 6)
        self.assertEqual(h.probe("split-keys", table).stdout.split(), keys)

        # Another operator saves on top of version 0; this page's save is now stale.
        status, answer = http("POST", self.url + "/api/save?expected_version=0",
                              document(table, 6, "orders, second operator"))
        self.assertEqual((status, answer["version"]), (200, 1), answer)
        driver.clear("#document")
        driver.type("#document", document(table, 6, "orders, stale edit"))
        h.wait_for(lambda: (driver.text("#validity") or "").startswith("valid"), 60,
                   "the edit to validate")
        driver.click("#save")
        conflict = h.wait_for(lambda: "conflict" in (driver.text("#save-result") or "")
                              and driver.text("#save-result"), 60, "the conflict")
        self.assertIn("stored version is 1", conflict)
        self.assertIn("loaded version 0", conflict)
        driver.screenshot(os.path.join(E2E_DIR, f"portal-conflict-{RUN}.png"))
        stored = h.ctl(self.root, "get", table).stdout
        self.assertIn("second operator", stored)
        self.assertNotIn("stale edit", stored)

        # Load: the stored document and its version, which the next save builds on.
        driver.type("#load-table", table)
        driver.click("#load")
        h.wait_for(lambda: driver.text("#loaded") == f"{table} at version 1", 60,
                   "the load")
        self.assertIn("second operator", driver.command(
            "POST", "/execute/sync", {"script": "return document.getElementById('document').value",
                                      "args": []}))


if __name__ == "__main__":
    h.main()
