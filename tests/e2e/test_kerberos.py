"""End to end: presplitd on a Kerberized HBase (scripts/local-cluster --kerberos: a KDC of its own,
Kerberos authentication, the AccessController, the HBase principal the only superuser).

The KDC issues tickets of 90 s (PRESPLIT_KDC_TICKET_LIFETIME, tests/e2e/CMakeLists.txt), so a
renewal happens within the test. Checked against the real cluster:

- presplitd logs in from its keytab and creates a salted table in a namespace it holds CREATE on;
  the HBase superuser sees the table's regions;
- a principal without CREATE gets the status `error` naming the permission (HBase's
  AccessDeniedException on one line), not a stack trace;
- a keytab whose keys the KDC rotated: presplitd stays up, answers 503 on /healthz naming the
  principal and the KDC's reason, logs it and counts it; a KDC that does not answer is the same
  within seconds, not a hang;
- the ticket is renewed from the keytab before it ends, and after the first ticket's end the
  daemon still creates tables (over new RPC connections, the idle ones closed);
- a keytab path that names no file: presplitd stays up, answers 503 on /healthz with "the keytab
  does not exist", logs it and counts it, within seconds of its start;
- a document for a namespace that does not exist, presplitd's principal lacking the global ADMIN
  that creating one takes: that table's status is `error` naming the permission, the principal
  and the table on one line; the daemon's other table stays `ready` and the daemon healthy;
- the start-time permission check (docs/deploying.md): /status "permissions" names each missing
  permission with its scope and grant, and presplit_permissions_missing counts them; /healthz
  answers 503 only when CREATE is held on none of the namespaces;
- a re-salting migration whose replication peer takes the global ADMIN presplitd's principal
  lacks: the migration's error names the permission, the principal and the grant on one line,
  and the start-time check lists global ADMIN;
- the SDK as a Kerberos user (docs/sdk.md): the test user, granted RW on the table by the
  superuser, writes rows and reads them back in key order with a merged scan; refused
  (AccessDeniedException) before the grant;
- a load split on the cluster's three RegionServers: the test user reads and writes one salt
  bucket's key range through the SDK, and presplitd, holding CREATE on the namespace and what
  HBase gives a table's creator (ADMIN on it), decides a split of that bucket's region and HBase
  splits it (NativeSplitPolicy placing the point inside the bucket); the workload keeps working.
"""
import json
import os
import subprocess
import time
import unittest
import urllib.request
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]
PROBE_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosProbe.java")
SDK_SOURCE = os.path.join(h.SOURCE_DIR, "tests", "e2e", "java", "KerberosSdk.java")


ENV = h.cluster_env()
CONF_DIR = ENV["PRESPLIT_HBASE_CONF_DIR"]
KRB5 = ENV["KRB5_CONFIG"]
HBASE = (ENV["PRESPLIT_HBASE_PRINCIPAL"], ENV["PRESPLIT_HBASE_KEYTAB"])
DAEMON = (ENV["PRESPLIT_DAEMON_PRINCIPAL"], ENV["PRESPLIT_DAEMON_KEYTAB"])
TESTER = (ENV["PRESPLIT_TESTER_PRINCIPAL"], ENV["PRESPLIT_TESTER_KEYTAB"])
STALE = (ENV["PRESPLIT_STALE_PRINCIPAL"], ENV["PRESPLIT_STALE_KEYTAB"])
NS_OK = f"krb{RUN}"
NS_DENIED = f"krbdeny{RUN}"
# The daemons read the KDC's krb5.conf through KRB5_CONFIG, as an operator's would.
os.environ["KRB5_CONFIG"] = KRB5


def kerberized(cmd):
    return h.kerberized(cmd, CONF_DIR, KRB5)


def kprobe(identity, *args, check=True):
    """KerberosProbe as `identity` (principal, keytab); returns its RESULT value."""
    cmd = kerberized(h.java_command(PROBE_SOURCE, short_lived=True))
    proc = h.run([*cmd, *identity, *args], check=check, timeout=180)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return line[len("RESULT "):]
    if check:
        raise AssertionError(f"KerberosProbe {args}: no result\n{proc.stdout}\n{proc.stderr}")
    return None


def sdk_writer(identity, root, table, rows):
    """KerberosSdk as `identity`: writes `rows` rows through the SDK and reads them back with a
    merged scan. Returns (exit code, its RESULT as a dict or None, stderr)."""
    cmd = kerberized(h.java_command(SDK_SOURCE, sdk=True, short_lived=True))
    proc = h.run([*cmd, *identity, h.ZK_QUORUM, root, table, str(rows)], check=False,
                 timeout=180)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return proc.returncode, json.loads(line[len("RESULT "):]), proc.stderr
    return proc.returncode, None, proc.stderr


def salted(table, buckets):
    return {
        "version": 1,
        "table": table,
        "layout": {"salt": {"buckets": buckets, "encoding": "decimal", "hash": "murmur3"},
                   "group": {"delimiter": "|"}},
        "split": {"algorithm": "salt-buckets"},
        "families": [{"name": "f"}],
    }


def put(root, doc):
    path = os.path.join(h.BUILD_DIR, "e2e", f"krb-{RUN}-{doc['table'].replace(':', '-')}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    h.ctl(root, "put", path)


def permissions(d):
    """The "permissions" object of the daemon's /status."""
    with urllib.request.urlopen(f"http://127.0.0.1:{d.http_port}/status", timeout=10) as r:
        return json.load(r)["permissions"]


def missing(d, permission, scope):
    """The missing permission of that kind and scope in /status, or None."""
    for m in permissions(d)["missing"]:
        if m["permission"] == permission and m["scope"] == scope:
            return m
    return None


def load_table(d, table):
    """The table's entry under "load" in the daemon's /status (its regions and decisions)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{d.http_port}/status", timeout=10) as r:
        for t in json.load(r)["load"]["tables"]:
            if t["table"] == table:
                return t
    return None


def daemon(name, http_port, identity, **settings):
    principal, keytab = identity
    config = {"hbase_conf_dir": CONF_DIR, "kerberos_principal": principal,
              "kerberos_keytab": keytab}
    config.update(settings)
    return h.Daemon(f"/presplit-krb-{name}-{RUN}", http_port, name=f"presplitd-krb-{name}",
                    settings=config)


class KerberosTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        # The renewing daemon starts first: its first ticket ages while the other cases run.
        # Idle RPC connections close after 5 s, so that creates after a renewal open new ones.
        cls.renewing = daemon("renew", 19530, DAEMON, resync_interval_s=60,
                              load_watch_interval_s=0,
                              **{"hbase.ipc.client.connection.minIdleTimeBeforeClose": 5000})
        # The superuser sets up: presplitd's principal may create tables in NS_OK only (the
        # AccessController's hbase:acl table comes up just after the cluster reports ready).
        kprobe(HBASE, "create-namespace", NS_OK)
        kprobe(HBASE, "create-namespace", NS_DENIED)
        h.wait_for(lambda: kprobe(HBASE, "grant", "presplit", "@" + NS_OK, "C", check=False),
                   120, "the grant of CREATE on " + NS_OK)
        cls.renewing.start()
        # The first ticket's end, before the other cases give it time to be renewed.
        cls.first_end = cls.renewing.metrics()["presplit_kerberos_ticket_end_seconds"]

    @classmethod
    def tearDownClass(cls):
        cls.renewing.stop()

    def metric(self, d, name):
        return d.metrics()[name]

    def test_1_logs_in_from_its_keytab_and_creates_a_salted_table(self):
        d = self.renewing
        self.assertGreaterEqual(self.metric(d, "presplit_kerberos_logins_total"), 1)
        self.assertIn("Kerberos: logged in as presplit/localhost@", d.log_text())
        table = f"{NS_OK}:events"
        put(d.root, salted(table, 4))
        status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["regions"], 4, status)
        # Seen by HBase's superuser, not only by presplit's report.
        self.assertEqual(kprobe(HBASE, "regions-count", table), "4")
        self.assertEqual(kprobe(DAEMON, "whoami"), "presplit")

    def test_2_a_principal_without_create_gets_an_error_naming_the_permission(self):
        d = daemon("deny", 19531, TESTER).start()
        try:
            table = f"{NS_DENIED}:events"
            put(d.root, salted(table, 4))
            status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "error", status)
            error = status["error"]
            self.assertIn("Insufficient permissions", error)
            self.assertIn("action=CREATE", error)
            self.assertIn("tester", error)
            self.assertIn(f"needs CREATE on namespace {NS_DENIED}", error)
            self.assertNotIn("\n", error)
            self.assertNotIn("\tat ", error)
            self.assertNotIn("at org.apache", error)
            self.assertIn(kprobe(HBASE, "regions-count", table, check=False), (None, "0"),
                          "nothing was created")
            # The start-time check, run again once the document is there, says the same: CREATE
            # on the document's namespace, and as that is every namespace, /healthz is 503.
            m = h.wait_for(lambda: missing(d, "CREATE", "@" + NS_DENIED), 60,
                           "CREATE missing in /status")
            self.assertEqual(m["grant"], f"grant 'tester', 'C', '@{NS_DENIED}'")
            self.assertEqual(m["for"], f"creating tables in namespace {NS_DENIED}")
            self.assertEqual(permissions(d)["authorization"], True)
            self.assertGreaterEqual(d.metrics()["presplit_permissions_missing"], 1)
            self.assertIn(f"lacks CREATE on @{NS_DENIED}, needed for creating tables in "
                          f"namespace {NS_DENIED}", d.log_text())
            code, body = h.wait_for(lambda: (lambda r: r if r[0] == 503 else None)(d.healthz()),
                                    60, "/healthz 503")
            self.assertIn(f"holds CREATE on none of the namespaces of its documents", body)
            self.assertIn(f"grant 'tester', 'C', '@{NS_DENIED}'", body)
        finally:
            d.stop()

    def test_3_a_stale_keytab_is_a_login_failure_on_healthz(self):
        d = daemon("stale", 19532, STALE).start(healthy=False)
        try:
            principal, keytab = STALE
            want = f"Kerberos login as {principal} from keytab {keytab} failed: "
            h.wait_for(lambda: want in d.healthz()[1], 60, "the login failure on /healthz")
            code, body = d.healthz()
            self.assertEqual(code, 503, body)
            reason = body.split(want, 1)[1].strip()
            self.assertTrue(reason, body)
            self.assertNotIn("does not exist", reason)  # the KDC refused it, not the file
            self.assertTrue("PREAUTH_FAILED" in reason or "Pre-authentication" in reason, reason)
            self.assertNotIn(keytab, reason, "Hadoop's wrapper, which repeats it, is left out")
            self.assertIn("(no ticket)", body)
            self.assertTrue(d.alive(), "presplitd keeps running and retries")
            self.assertIn(want, d.log_text())
            self.assertGreaterEqual(d.metrics()["presplit_kerberos_login_failures_total"], 1)
            self.assertEqual(d.metrics()["presplit_kerberos_logins_total"], 0)
            self.assertEqual(d.metrics()["presplit_healthy"], 0)
        finally:
            self.assertEqual(d.stop(), 0)

    def test_3b_an_unreachable_kdc_is_a_quick_error_not_a_hang(self):
        # The cluster's krb5.conf with its KDC moved to a port nothing listens on: the login fails
        # within krb5.conf's kdc_timeout x max_retries, and presplitd stays up, answering 503.
        with open(KRB5) as f:
            conf = f.read()
        port = ENV["PRESPLIT_KDC_PORT"]
        self.assertIn(f"127.0.0.1:{port}", conf)
        nowhere = os.path.join(h.BUILD_DIR, "e2e", f"krb5-nowhere-{RUN}.conf")
        with open(nowhere, "w") as f:
            f.write(conf.replace(f"127.0.0.1:{port}", f"127.0.0.1:{19539 + h.PORT_OFFSET}"))
        d = daemon("nokdc", 19533, DAEMON, jvm_options="-Djava.security.krb5.conf=" + nowhere)
        started = time.time()
        d.start(healthy=False)
        try:
            want = f"Kerberos login as {DAEMON[0]} from keytab {DAEMON[1]} failed: "
            h.wait_for(lambda: want in d.healthz()[1], 30, "the login failure on /healthz")
            self.assertLess(time.time() - started, 30)
            code, body = d.healthz()
            self.assertEqual(code, 503, body)
            self.assertTrue(d.alive())
        finally:
            self.assertEqual(d.stop(), 0)

    def test_4_the_ticket_is_renewed_and_the_daemon_keeps_working_after_it_ends(self):
        d = self.renewing
        first_end = self.first_end
        lifetime = int(os.environ.get("PRESPLIT_KDC_TICKET_LIFETIME", "90"))
        self.assertGreater(first_end, 0)
        self.assertLessEqual(first_end, time.time() + lifetime + 5, "the KDC's short tickets")
        # Renewed at 80 % of the lifetime, before the first ticket ends.
        h.wait_for(lambda: self.metric(d, "presplit_kerberos_logins_total") >= 2,
                   max(10, first_end - time.time() + 15), "a renewal from the keytab")
        self.assertLess(time.time(), first_end + 5, "renewed before the first ticket ended")
        self.assertGreater(self.metric(d, "presplit_kerberos_ticket_end_seconds"), first_end)
        self.assertIn("Kerberos: new ticket for presplit/localhost@", d.log_text())
        h.wait_for(lambda: time.time() > first_end + 3, lifetime + 10, "the first ticket's end")
        table = f"{NS_OK}:after"
        put(d.root, salted(table, 3))
        status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(kprobe(HBASE, "regions-count", table), "3")
        d.wait_healthy(timeout=30)
        self.assertEqual(self.metric(d, "presplit_kerberos_login_failures_total"), 0)

    def test_5_a_keytab_that_does_not_exist_is_a_login_failure_on_healthz(self):
        missing = os.path.join(h.BUILD_DIR, "e2e", f"missing-{RUN}.keytab")
        self.assertFalse(os.path.exists(missing))
        d = daemon("nokeytab", 19534, (DAEMON[0], missing))
        started = time.time()
        d.start(healthy=False)
        try:
            want = (f"Kerberos login as {DAEMON[0]} from keytab {missing} failed: "
                    "the keytab does not exist")
            # Said before any KDC is asked: at the first login attempt, not after a timeout.
            h.wait_for(lambda: want in d.healthz()[1], 30, "the missing keytab on /healthz")
            self.assertLess(time.time() - started, 30)
            code, body = d.healthz()
            self.assertEqual(code, 503, body)
            self.assertIn(want + " (no ticket)", body)
            self.assertNotIn("\n", body.strip())
            self.assertTrue(d.alive(), "presplitd keeps running and retries")
            log = d.log_text()
            self.assertIn(want + "; presplitd answers 503 on /healthz and tries again in 30 s",
                          log)
            self.assertNotIn("\tat ", log)
            metrics = d.metrics()
            self.assertGreaterEqual(metrics["presplit_kerberos_login_failures_total"], 1)
            self.assertEqual(metrics["presplit_kerberos_logins_total"], 0)
            self.assertEqual(metrics["presplit_healthy"], 0)
        finally:
            self.assertEqual(d.stop(), 0, "a prompt, clean stop while the login fails")

    def test_6_a_namespace_it_may_not_create_is_an_error_and_nothing_else(self):
        # presplitd's principal holds CREATE on NS_OK only, not the global ADMIN that creating a
        # namespace takes.
        d = daemon("nsdeny", 19535, DAEMON).start()
        try:
            kept = f"{NS_OK}:kept"
            put(d.root, salted(kept, 3))
            status = h.wait_status(d.root, kept, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "ready", status)
            ns_new = f"krbnew{RUN}"
            table = f"{ns_new}:events"
            put(d.root, salted(table, 4))
            status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "error", status)
            error = status["error"]
            self.assertIn(f"HBase denied creating namespace {ns_new} for table {table}: ",
                          error)
            self.assertIn("Insufficient permissions", error)
            self.assertIn("action=ADMIN", error)
            self.assertIn(f"creating a namespace needs global ADMIN, which presplitd's "
                          f"principal {DAEMON[0]} lacks", error)
            self.assertIn(f"create_namespace '{ns_new}'; grant 'presplit', 'C', '@{ns_new}'",
                          error)
            self.assertNotIn("\n", error)
            self.assertNotIn("\tat ", error)
            self.assertNotIn("at org.apache", error)
            self.assertEqual(kprobe(HBASE, "namespace-exists", ns_new), "false")
            # Nothing else is affected: after more passes (each retrying the create) the other
            # table is still ready with its regions, and the daemon healthy.
            d.wait_passes(2)
            # Each pass retries the create, so the status passes through "creating" on its way
            # back to "error": what must hold is that it comes back to error and never ready.
            status = h.wait_status(d.root, table, ["error", "ready"], timeout=60)
            self.assertEqual(status["phase"], "error", status)
            status = h.status(d.root, kept)
            self.assertEqual(status["phase"], "ready", status)
            self.assertEqual(status["regions"], 3, status)
            self.assertEqual(kprobe(HBASE, "regions-count", kept), "3")
            code, body = d.healthz()
            self.assertEqual(code, 200, body)
            # The start-time check lists the global ADMIN a new namespace takes, and no CREATE.
            m = h.wait_for(lambda: missing(d, "ADMIN", "GLOBAL"), 60, "global ADMIN in /status")
            self.assertIn(f"creating namespace {ns_new}", m["for"])
            self.assertEqual(m["grant"], "grant 'presplit', 'A'")
            self.assertIsNone(missing(d, "CREATE", "@" + NS_OK))
            self.assertEqual(d.healthz()[0], 200, "degraded, not down")
        finally:
            d.stop()

    def test_6b_a_migration_without_global_admin_is_one_line_naming_it(self):
        d = daemon("migdeny", 19536, DAEMON).start()
        try:
            table = f"{NS_OK}:resalt"
            put(d.root, salted(table, 3))
            status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
            self.assertEqual(status["phase"], "ready", status)
            # presplitd created the table, so HBase made it its owner: ADMIN on it is held.
            h.wait_for(lambda: permissions(d)["summary"] == "all 2 held", 60,
                       "CREATE on the namespace and ADMIN on the table, held")
            doc = salted(table, 4)
            doc["migration"] = {"allowed": True, "engine": "put"}
            put(d.root, doc)

            def migration_error():
                m = h.status(d.root, table).get("migration") or {}
                return m.get("error") if "HBase denied" in (m.get("error") or "") else None
            error = h.wait_for(migration_error, 180, "the migration's permission error")
            self.assertIn("HBase denied adding the change capture's replication peer for table "
                          f"{table}: Insufficient permissions", error)
            self.assertIn("action=ADMIN", error)
            self.assertIn(f"presplitd's principal {DAEMON[0]} needs global ADMIN "
                          "(hbase shell: grant 'presplit', 'A')", error)
            self.assertNotIn("\n", error)
            self.assertNotIn("at org.apache", error)
            self.assertNotIn("root cause", error)
            # The check, run again for the migration, lists the global ADMIN its peers take.
            m = h.wait_for(lambda: missing(d, "ADMIN", "GLOBAL"), 60, "global ADMIN in /status")
            self.assertIn("replication peers", m["for"])
            self.assertGreaterEqual(d.metrics()["presplit_permissions_missing"], 1)
            self.assertEqual(d.healthz()[0], 200, "degraded, not down")
        finally:
            d.stop()

    def test_7_the_sdk_writes_and_reads_as_a_kerberos_user(self):
        d = self.renewing
        table = f"{NS_OK}:sdk"
        put(d.root, salted(table, 4))
        status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        rows = 200
        # Without a grant the test user's writes are refused by HBase, and nothing is written.
        rc, result, err = sdk_writer(TESTER, d.root, table, rows)
        self.assertEqual(rc, 3, err)
        self.assertIsNone(result)
        self.assertIn("DENIED org.apache.hadoop.hbase.security.AccessDeniedException: "
                      f"Insufficient permissions (user={TESTER[0]}, scope={table}, ", err)
        self.assertIn("action=WRITE)", err)
        self.assertEqual(kprobe(HBASE, "rows", table), "0 -")
        # Granted RW on the table by the superuser (the grant reaches the RegionServer through
        # ZooKeeper, so the first writes may still be refused): writes, then a merged scan.
        kprobe(HBASE, "grant", "tester", table, "RW")
        outcome = {}

        def written():
            rc, result, err = sdk_writer(TESTER, d.root, table, rows)
            if rc != 3:
                outcome.update(rc=rc, result=result, err=err)
            return rc != 3

        h.wait_for(written, 90, "the test user's SDK writes after the grant")
        self.assertEqual(outcome["rc"], 0, outcome["err"])
        result = outcome["result"]
        self.assertEqual(result["user"], "tester")
        self.assertEqual(result["written"], rows)
        self.assertEqual(result["scanned"], rows)
        self.assertEqual(result["first"], "u0|00000")
        self.assertEqual(result["last"], "u9|00199")
        self.assertEqual(result["buckets"], 4)
        self.assertEqual(result["buckets_written"], 4, "the merged scan read every bucket")
        # Seen by HBase's superuser in the physical table: every row, salted into 4 buckets.
        self.assertEqual(kprobe(HBASE, "rows", table), f"{rows} 0,1,2,3")

    def test_8_a_hot_region_is_split_by_load_while_a_kerberos_user_drives_it(self):
        started = time.time()
        # presplitd's principal holds CREATE on NS_OK and nothing else: a load split takes ADMIN
        # on the table, which HBase gives the table's creator (docs/deploying.md).
        d = daemon("load", 19537, DAEMON, load_watch_interval_s=2).start()
        self.addCleanup(d.stop)
        table = f"{NS_OK}:hot"
        doc = salted(table, 4)
        doc["split_policy"] = {"size_policy": "constant-size", "load_balanced": True,
                               "min_requests": 20}
        doc["load_split"] = {"dry_run": False, "min_requests_per_s": 20, "mean_multiple": 2,
                             "sustain_s": 6, "max_regions": 8, "cooldown_s": 600,
                             "unsplittable_s": 600}
        put(d.root, doc)
        status = h.wait_status(d.root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["regions"], 4, status)
        h.wait_for(lambda: permissions(d)["summary"] == "all 2 held", 60,
                   lambda: f"CREATE on the namespace and ADMIN on the table: {permissions(d)}")

        # The test user, granted RW on the table, reads and writes one bucket's groups through
        # the SDK. Started again while the grant has not reached the RegionServers (exit 3).
        kprobe(HBASE, "grant", "tester", table, "RW")
        out_path = os.path.join(h.BUILD_DIR, "e2e", f"krb-hot-{RUN}.out")
        cmd = kerberized(h.java_command(SDK_SOURCE, sdk=True))
        workload = []

        def launch():
            with open(out_path, "w") as out:
                workload[:] = [subprocess.Popen(
                    [*cmd, *TESTER, h.ZK_QUORUM, d.root, table, "hot", "300"],
                    stdout=out, stderr=subprocess.STDOUT)]

        def stop_workload():
            if workload and workload[0].poll() is None:
                workload[0].terminate()
                workload[0].wait(timeout=30)
        self.addCleanup(stop_workload)

        def output():
            with open(out_path, errors="replace") as f:
                return f.read()

        def hot_started():
            text = output()
            for line in text.splitlines():
                if line.startswith("HOT "):
                    return json.loads(line[len("HOT "):])
            code = workload[0].poll()
            if code == 3 and "DENIED " in text:
                launch()
            elif code is not None:
                raise AssertionError(f"the hot workload exited {code}:\n{text[-4000:]}")
            return None

        launch()
        hot = h.wait_for(hot_started, 90, lambda: "the test user's hot workload\n" + output())
        self.assertEqual(hot["user"], "tester")
        self.assertGreaterEqual(hot["groups"], 2, "a range of groups, not one hot key")
        bucket = hot["bucket"]
        hot_start = "" if bucket == 0 else str(bucket)  # salt-buckets: keys "1", "2", "3"
        load_began = time.time()

        def split_decision():
            t = load_table(d, table)
            return next((x for x in (t or {}).get("decisions", []) if x["action"] == "split"),
                        None)
        decision = h.wait_for(split_decision, 120, lambda: (
            f"a load split decision; load: {json.dumps(load_table(d, table))}\n"
            + d.log_story(table, "load split")))
        decided = time.time()
        self.assertEqual(decision["start_key"], hot_start, decision)
        self.assertGreater(decision["requests_per_s"], 2 * decision["table_mean_per_s"])
        self.assertIsNone(decision["split_key"], "NativeSplitPolicy picks the point")
        self.assertFalse(decision.get("error"), decision)
        # Seen by HBase's superuser: one region more.
        h.wait_for(lambda: kprobe(HBASE, "regions-count", table) == "5", 90,
                   lambda: "the hot region's split\n" + d.log_story(table, "load split"))
        split = time.time()

        # Both halves inside the hot bucket, split at a key of its groups.
        t = h.wait_for(lambda: (lambda t: t if t and t["region_count"] == 5 else None)(
            load_table(d, table)), 60, "the daemon to see five regions")
        starts = [r["start_key"] for r in t["regions"]]
        halves = [r for r in t["regions"]
                  if r["start_key"] == hot_start or r["start_key"].startswith(f"{bucket}h")]
        self.assertEqual(len(halves), 2, starts)
        point = max(r["start_key"] for r in halves)
        self.assertTrue(point.startswith(f"{bucket}h"), starts)
        self.assertIsNone(workload[0].poll(), "the test user's workload kept working:\n"
                          + output()[-4000:])
        self.assertEqual(d.metrics()["presplit_kerberos_login_failures_total"], 0)
        print(f"load split: bucket {bucket} ({hot['groups']} groups, {hot['keys']} rows) at "
              f"{decision['requests_per_s']:.0f} requests/s against a table mean of "
              f"{decision['table_mean_per_s']:.0f}; decided {decided - load_began:.0f} s after "
              f"the load began, split {split - decided:.0f} s later at {point}; halves on "
              f"{sorted({r['server'] for r in halves})}; {time.time() - started:.0f} s in all",
              flush=True)


if __name__ == "__main__":
    h.main()
