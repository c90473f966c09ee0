"""Shared helpers for presplit's end-to-end tests against the real local cluster.

The cluster (real HBase + ZooKeeper) is started by scripts/local-cluster as a ctest fixture; the
tests run the real presplitd and presplitctl binaries and verify the result through the HBase
client (tests/e2e/java/HBaseProbe.java), never through presplit's own reports alone.
"""
import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import zipfile

SOURCE_DIR = os.environ["PRESPLIT_SOURCE_DIR"]
BUILD_DIR = os.environ["PRESPLIT_BUILD_DIR"]
ZK_QUORUM = os.environ["PRESPLIT_ZK_QUORUM"]
CLASSPATH_FILE = os.environ["PRESPLIT_HBASE_CLASSPATH_FILE"]
PRESPLITD = os.path.join(BUILD_DIR, "bin", "presplitd")
PRESPLITCTL = os.path.join(BUILD_DIR, "bin", "presplitctl")
PRESPLIT_JAR = os.path.join(SOURCE_DIR, "java-shim", "target", "presplit-hbase.jar")
PROBE = os.path.join(SOURCE_DIR, "tests", "e2e", "java", "HBaseProbe.java")
# Added to every port a test picks (tests/e2e/CMakeLists.txt), so two build trees can run the
# suite at once.
PORT_OFFSET = int(os.environ.get("PRESPLIT_E2E_PORT_OFFSET", "0"))


def hbase_classpath():
    with open(CLASSPATH_FILE) as f:
        return f.read().strip()


def run(cmd, check=True, timeout=120, input=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input)
    if check and proc.returncode != 0:
        # The error first and the command last, cut: a Java command carries the whole HBase
        # classpath, and a CI log that keeps only the head of a long message must show why.
        command = " ".join(cmd)
        if len(command) > 400:
            command = command[:200] + " ... " + command[-200:]
        raise AssertionError(
            f"exited {proc.returncode}\nstderr:\n{tail(proc.stderr)}\n"
            f"stdout:\n{tail(proc.stdout)}\ncommand: {command}")
    return proc


def tail(text, lines=60):
    """The last `lines` lines of a process's output, saying how many were left out."""
    kept = text.splitlines()
    if len(kept) <= lines:
        return text
    return f"[{len(kept) - lines} lines before]\n" + "\n".join(kept[-lines:])


def ctl(root, *args, check=True, input=None, timeout=120):
    return run([PRESPLITCTL, "--zk", ZK_QUORUM, "--root", root, *args], check=check, input=input,
               timeout=timeout)


# What an HBase 2.6 client needs from JDK 17's module system.
HBASE_CLIENT_JVM = ["-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
                    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                    "--add-opens", "java.base/java.lang=ALL-UNNAMED"]
# For the tests' short-lived client programs (a probe, one SDK call): C1 only and the serial
# collector start them faster (about 0.3 s of wall time and 0.5 s of CPU each on 2 cores), and
# they never run long enough for C2 to pay off. Not for load generators or MapReduce jobs.
SHORT_LIVED_JVM = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


def java_command(source, jvm_args=(), sdk=False, short_lived=False):
    """The command that runs a single-file Java program of the tests on the HBase classpath
    (sdk=True: presplit-hbase.jar too, and compiled again when the jar is newer).

    Each program is compiled once per build (not at every launch, as `java File.java` would):
    the tests start these programs dozens of times. They also share one class data archive per
    classpath and cluster (shared_class_archive), which nearly halves what a start costs.
    """
    name = os.path.splitext(os.path.basename(source))[0]
    classes = os.path.join(BUILD_DIR, "e2e", "classes", ("sdk-" if sdk else "") + name)
    stamp = os.path.join(classes, name + ".class")
    cp = (PRESPLIT_JAR + ":" if sdk else "") + hbase_classpath()
    newest = max(os.path.getmtime(source), os.path.getmtime(PRESPLIT_JAR) if sdk else 0)
    os.makedirs(classes, exist_ok=True)
    # Two tests of different clusters run at the same time (scripts/test's two lanes) and may
    # want the same program: one compiles while the other waits, then finds it compiled.
    with open(os.path.join(classes, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(stamp) or os.path.getmtime(stamp) < newest:
            run(["javac", "-nowarn", "-cp", cp, "-d", classes, source], timeout=300)
    archive_options, cp = shared_class_archive(cp, sdk)
    # The program's own classes last: the archive holds for a classpath that starts as it did.
    return ["java", *(SHORT_LIVED_JVM if short_lived else []), *jvm_args, *archive_options,
            "-cp", cp + ":" + classes, name]


WARMUP = os.path.join(SOURCE_DIR, "tests", "e2e", "java", "ClassWarmup.java")


def shared_class_archive(cp, sdk):
    """(JVM options, classpath) for a test program whose classpath begins with `cp`: the options
    map a dynamic class data archive (JDK 17's AppCDS) of the classes the programs share.

    A program of the tests spends most of its CPU before main: loading, verifying and linking
    some 3,000 classes of the HBase client (2.4 s of CPU for one HBaseProbe call, 1.7 s with the
    archive), and the suite starts hundreds of them on two cores. The archive is made once per
    classpath (with or without presplit-hbase.jar) and cluster, by ClassWarmup talking to the
    test's cluster, and made again when a jar on it is newer. The archive only holds for a
    classpath that starts with the one it was made with: the returned classpath is `cp` plus the
    warm-up program's jar, to which the caller appends the program's own classes. A JVM that
    cannot use the archive runs without it (-Xshare:auto, its warning silenced); a warm-up that
    fails leaves a marker and the programs run as before."""
    directory = os.path.join(BUILD_DIR, "e2e", "classes", "shared-archive")
    os.makedirs(directory, exist_ok=True)
    warmup_jar = os.path.join(directory, "class-warmup.jar")
    cluster = os.path.basename(os.environ.get("PRESPLIT_CLUSTER_DIR", "")) or ZK_QUORUM
    archive = os.path.join(directory, ("sdk-" if sdk else "") + cluster + ".jsa")
    failed = archive + ".failed"
    with open(os.path.join(directory, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (not os.path.exists(warmup_jar)
                or os.path.getmtime(warmup_jar) < os.path.getmtime(WARMUP)):
            compiled = os.path.join(directory, "classes")
            run(["javac", "-nowarn", "-cp", hbase_classpath(), "-d", compiled, WARMUP],
                timeout=300)
            # Class data sharing takes jars, not directories, on the archived classpath.
            with zipfile.ZipFile(warmup_jar + ".tmp", "w") as jar:
                for entry in sorted(os.listdir(compiled)):
                    jar.write(os.path.join(compiled, entry), entry)
            os.replace(warmup_jar + ".tmp", warmup_jar)
        cp = cp + ":" + warmup_jar
        # A newer JDK cannot map an archive of the old one's: made again then too.
        jvm = os.path.realpath(shutil.which("java") or "/")
        newest = max(os.path.getmtime(warmup_jar), os.path.getmtime(jvm),
                     os.path.getmtime(PRESPLIT_JAR) if sdk else 0)
        for path in (archive, failed):
            if os.path.exists(path) and os.path.getmtime(path) < newest:
                os.remove(path)
        if not os.path.exists(archive) and not os.path.exists(failed):
            partial = archive + ".tmp"
            try:
                proc = run(["java", *SHORT_LIVED_JVM, *HBASE_CLIENT_JVM,
                            "-XX:ArchiveClassesAtExit=" + partial, "-cp", cp, "ClassWarmup",
                            ZK_QUORUM], check=False, timeout=120)
                outcome = f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            except subprocess.TimeoutExpired:
                proc, outcome = None, "no exit within 120 s"
            if proc is not None and proc.returncode == 0 and os.path.exists(partial):
                os.replace(partial, archive)
            else:
                with open(failed, "w") as f:
                    f.write(outcome)
    if not os.path.exists(archive):
        return [], cp
    return ["-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off",
            "-Xlog:cds+dynamic=off"], cp


def kerberized(cmd, conf_dir, krb5_conf):
    """A test program's java command (java_command) as a client of a Kerberized cluster: the
    cluster's conf directory on the classpath (its hbase-site.xml, core-site.xml), the KDC's
    krb5.conf (Java does not read KRB5_CONFIG).

    The conf directory goes last: no jar of the HBase classpath holds a *-site.xml, so it is still
    the one Hadoop's Configuration finds, and the classpath still starts as the shared class
    archive's did (a directory first would make every start load its 3,000 classes again)."""
    cp = cmd.index("-cp")
    cmd[cp + 1] = cmd[cp + 1] + ":" + conf_dir
    cmd[cp:cp] = ["-Djava.security.krb5.conf=" + krb5_conf, *HBASE_CLIENT_JVM]
    return cmd


def probe(*args, check=True):
    """Runs HBaseProbe (plain HBase client) and returns the completed process."""
    return run([*java_command(PROBE, short_lived=True), "--zk", ZK_QUORUM, *args], check=check,
               timeout=180)


class Daemon:
    """A real presplitd process with its own config file and log."""

    def __init__(self, root, http_port, name="presplitd", settings=None):
        """settings: `key: value` pairs for the config file, replacing the defaults below."""
        self.root = root
        self.http_port = http_port + PORT_OFFSET
        os.makedirs(os.path.join(BUILD_DIR, "e2e"), exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix=name + "-", dir=os.path.join(BUILD_DIR, "e2e"))
        self.log_path = os.path.join(self.dir, "presplitd.log")
        self.conf_path = os.path.join(self.dir, "presplitd.conf")
        config = {
            "zk_quorum": ZK_QUORUM,
            "zk_root": root,
            "presplit_jar": PRESPLIT_JAR,
            "jvm_classpath_file": CLASSPATH_FILE,
            "jvm_max_heap": "256m",
            # libpresplit_jni (a migration's re-keying) from the build, as a package's config
            # points at its install directory. C1 only and the serial collector, as for the
            # short-lived programs: a test's daemon lives a few minutes, and C2 spent about 9% of
            # a core compiling in its first minute (1.6% with C1 only), on a machine whose two
            # cores the suite keeps busy.
            "jvm_options": " ".join(["-Djava.library.path=" + os.path.join(BUILD_DIR, "jni"),
                                     *SHORT_LIVED_JVM]),
            "resync_interval_s": 5,
            # The suite keeps both cores of its machine busy, so the adaptive throttle (the
            # default) would hold every migration's copy at its floor: multi_server's test_4 took
            # 570 s with it against 177 s. The tests that check the throttle turn it on.
            "migration_throttle": "off",
            "http_listen": f"127.0.0.1:{self.http_port}",
            "log_level": "info",
        }
        config.update(settings or {})
        with open(self.conf_path, "w") as f:
            for key, value in config.items():
                f.write(f"{key} = {value}\n")
        self.proc = None
        self.log = None

    def start(self, healthy=True):
        """Starts presplitd and waits until it is healthy, or (healthy=False: HBase is meant to be
        out of reach) only until its HTTP endpoint answers."""
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen([PRESPLITD, "--config", self.conf_path], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        if healthy:
            self.wait_healthy()
        else:
            self.wait_serving()
        return self

    def wait_serving(self, timeout=90):
        """Waits until /healthz answers at all (200 or 503): the daemon is up, healthy or not."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"presplitd exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                return self.healthz()
            except Exception as e:  # not listening yet
                last = e
            time.sleep(0.3)
        raise AssertionError(f"presplitd not serving after {timeout}s ({last}):\n{self.log_text()}")

    def healthz(self):
        """(HTTP status, body) of /healthz."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/healthz", timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_healthy(self, timeout=90):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"presplitd exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except Exception as e:  # not up yet, or not healthy yet
                last = e
            time.sleep(0.3)
        raise AssertionError(f"presplitd not healthy after {timeout}s ({last}):\n{self.log_text()}")

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/metrics", timeout=5) as r:
            values = {}
            for line in r.read().decode().splitlines():
                if line and not line.startswith("#"):
                    name, value = line.split()
                    values[name] = float(value)
            return values

    def wait_passes(self, count, timeout=60):
        """Waits until `count` more reconcile passes have completed."""
        target = self.metrics()["presplit_reconcile_passes_total"] + count
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.metrics()["presplit_reconcile_passes_total"] >= target:
                return
            time.sleep(0.3)
        raise AssertionError("no reconcile pass happened:\n" + self.log_text())

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
            raise AssertionError("presplitd did not stop within 60 s of SIGTERM:\n" + self.log_text())
        finally:
            self.log.close()
            self.proc = None
        return code

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def log_story(self, *words, lines=60):
        """The log's last `lines` lines that name one of `words` or are warnings or errors (Java
        stack frames left out): what a failed wait needs, without the reconciler's routine."""
        kept = [line for line in self.log_text().splitlines()
                if not line.lstrip().startswith("at ")
                and (" warning " in line or " error " in line or any(w in line for w in words))]
        return "\n".join(kept[-lines:])


def status(root, table):
    return json.loads(ctl(root, "status", table).stdout)


def wait_status(root, table, phases, timeout=120):
    proc = ctl(root, "status", table, "--wait", ",".join(phases), "--timeout", str(timeout),
               check=False, timeout=timeout + 30)
    if proc.returncode != 0:
        raise AssertionError(f"{table} did not reach {phases}: {proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout)


def cluster_env():
    """What `scripts/local-cluster env` says about the test's cluster (principals, keytabs,
    KRB5_CONFIG, the client conf directory, the HDFS): a dict of its assignments."""
    out = run([os.path.join(SOURCE_DIR, "scripts", "local-cluster"), "env"]).stdout
    env = {}
    for line in out.splitlines():
        name, _, value = line.partition("=")
        env[name] = shlex.split(value)[0] if value else ""
    return env


def wait_for(predicate, timeout, what):
    """Polls predicate until it returns something true, and returns that; AssertionError after
    timeout s.

    Between two calls it pauses half a second, or as long as the call took if that was longer:
    many predicates start a Java program (an HBase probe: 1.5-3 s of CPU), and calling one
    every half second would keep a core busy for the whole wait on a machine whose two cores
    the other lane of the suite needs too. Pacing by the call's own cost keeps a wait's share
    at about half a core and delays the answer by at most one call.

    `what` says what was awaited: a string, or a callable returning one, called at the timeout so
    the message shows the state then (a daemon's log tail, a migration's status), not the state
    when the wait began. The message is also printed at once: a test process stopped by ctest's
    timeout before unittest's report still leaves it in the output."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        called = time.monotonic()
        value = predicate()
        if value:
            return value  # what was awaited, for a caller that reads it
        time.sleep(max(0.5, min(time.monotonic() - called, deadline - time.time())))
    try:
        described = what() if callable(what) else what
    except Exception as e:  # the description must not hide the timeout
        described = f"(could not describe what was awaited: {e!r})"
    message = f"timed out after {timeout}s waiting for {described}"
    print(message, file=sys.stderr, flush=True)
    raise AssertionError(message)


class _TimedResult(unittest.TextTestResult):
    """A verbose result that also lists every test's wall time, slowest first, after the run:
    the suite's length is the sum of these, and a log then says where it goes."""

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.durations = getattr(self, "durations", [])
        self.durations.append((time.monotonic() - self._started, test.id()))

    def printErrors(self):
        self.stream.writeln("\nwall time of each test, slowest first:")
        for seconds, name in sorted(getattr(self, "durations", []), reverse=True):
            self.stream.writeln(f"{seconds:8.1f} s  {name}")
        super().printErrors()


def main():
    """unittest.main for an end-to-end test file: verbose, with each test's wall time."""
    unittest.main(testRunner=unittest.TextTestRunner(resultclass=_TimedResult, verbosity=2))
