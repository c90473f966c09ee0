"""The Debian package on the real system: build, install, run, purge.

scripts/package builds the .deb from the build tree (seconds: scripts/build already built
everything), apt-get installs it (this test runs as root), the installed binaries run from PATH,
and the installed presplitd, run as the package's user `presplit` with a NOTIFY_SOCKET this test
listens on, says READY=1 once ZooKeeper (the end-to-end cluster's) is connected and /healthz
listens, WATCHDOG=1 while its loop runs, and STOPPING=1 on SIGTERM. The package is purged at the
end, and a copy a previous run left installed is purged first.
"""
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.environ["PRESPLIT_SOURCE_DIR"], "tests", "e2e"))
import harness as h  # noqa: E402

PACKAGE = "presplit"
HTTP_PORT = int(os.environ["PRESPLIT_PACKAGE_HTTP_PORT"])
RUN = uuid.uuid4().hex[:8]
APT = ["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=300"]
APT_ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")

INSTALLED_FILES = [
    "/usr/bin/presplitd",
    "/usr/bin/presplitctl",
    "/usr/share/presplit/presplit-hbase.jar",
    "/usr/lib/presplit/libpresplit_jni.so",
    "/etc/presplit/presplitd.conf",
    "/usr/lib/systemd/system/presplitd.service",
    "/usr/share/doc/presplit/README.md",
    "/usr/share/doc/presplit/tables/README.md",
    "/usr/share/doc/presplit/copyright",
    "/usr/share/doc/presplit/changelog.gz",
    "/usr/share/man/man8/presplitd.8.gz",
    "/usr/share/man/man1/presplitctl.1.gz",
    "/usr/share/lintian/overrides/presplit",
]
# The links `systemctl enable presplitd` makes; removing the package removes them.
ENABLED_LINK = "/etc/systemd/system/multi-user.target.wants/presplitd.service"


def package_state():
    """dpkg's status abbreviation ('ii ', 'rc ', ...), or '' when dpkg never heard of it."""
    proc = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", PACKAGE],
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def purge():
    """Removes the package and its conffiles if any trace of it is installed."""
    if package_state() not in ("", "un"):
        h.run([*APT, "purge", PACKAGE], timeout=400)


class NotifySocket:
    """A service manager's end of sd_notify: an AF_UNIX datagram socket the daemon's user may use."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="presplit-notify-")
        os.chmod(self.dir, 0o711)
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o666)

    def receive(self, deadline):
        """The next message, or None when the deadline (time.time()) passes first."""
        remaining = deadline - time.time()
        if remaining <= 0:
            return None
        self.sock.settimeout(remaining)
        try:
            return self.sock.recv(4096).decode()
        except socket.timeout:
            return None

    def wait_for(self, prefix, timeout, seen):
        """Receives until a message starting with prefix; every message goes into seen."""
        deadline = time.time() + timeout
        while True:
            message = self.receive(deadline)
            if message is None:
                raise AssertionError(f"no {prefix!r} within {timeout}s; received {seen}")
            seen.append(message)
            if message.startswith(prefix):
                return message

    def close(self):
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class DebianPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="presplit-deb-", dir=h.BUILD_DIR)
        started = time.time()
        built = h.run([os.path.join(h.SOURCE_DIR, "scripts", "package"), "--no-build",
                       "--output", cls.out], timeout=300)
        cls.build_seconds = time.time() - started
        cls.deb = built.stdout.strip().splitlines()[-1]
        purge()  # a previous run that died before its clean-up
        h.run([*APT, "install", cls.deb], timeout=400)

    @classmethod
    def tearDownClass(cls):
        purge()
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_1_the_deb_declares_what_it_needs(self):
        self.assertRegex(os.path.basename(self.deb), r"^presplit_\d+\.\d+\.\d+_\w+\.deb$")
        self.assertLess(self.build_seconds, 60, "packaging must reuse the build, not redo it")
        depends = h.run(["dpkg-deb", "-f", self.deb, "Depends"]).stdout
        for needed in ["openjdk-17-jre-headless", "adduser", "libzookeeper-mt2", "libspdlog",
                       "libfmt", "libsystemd0", "libstdc++6", "libc6"]:
            self.assertIn(needed, depends)
        conffiles = h.run(["dpkg-deb", "-I", self.deb, "conffiles"]).stdout.split()
        self.assertEqual(conffiles, ["/etc/presplit/presplitd.conf"])

    def test_2_installed_files_user_and_config(self):
        self.assertEqual(package_state(), "ii")
        for path in INSTALLED_FILES:
            self.assertTrue(os.path.isfile(path), path)
        user = pwd.getpwnam("presplit")
        self.assertLess(user.pw_uid, 1000, "a system user")
        self.assertIn("nologin", user.pw_shell)

        # The config's jar is the path the daemon assumes by default, and the package put it there.
        with open("/etc/presplit/presplitd.conf") as f:
            conf = f.read()
        [jar] = re.findall(r"^presplit_jar\s*=\s*(\S+)", conf, re.M)
        self.assertEqual(jar, "/usr/share/presplit/presplit-hbase.jar")

        with open("/usr/lib/systemd/system/presplitd.service") as f:
            unit = f.read()
        for line in ["Type=notify", "User=presplit", "NoNewPrivileges=yes",
                     "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                     "CapabilityBoundingSet=\n",
                     "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
                     "ExecStart=/usr/bin/presplitd --config /etc/presplit/presplitd.conf"]:
            self.assertIn(line, unit)
        self.assertRegex(unit, r"\nWatchdogSec=\d+")
        verify = h.run(["systemd-analyze", "verify", "/usr/lib/systemd/system/presplitd.service"],
                       check=False)
        self.assertEqual(verify.returncode, 0, verify.stderr)

    def test_3_installed_binaries_run_from_path(self):
        self.assertEqual(shutil.which("presplitctl"), "/usr/bin/presplitctl")
        self.assertEqual(shutil.which("presplitd"), "/usr/bin/presplitd")
        ctl_help = h.run(["presplitctl", "--help"])
        self.assertIn("put", ctl_help.stdout)
        daemon_help = h.run(["presplitd", "--help"])
        self.assertIn("usage: presplitd", daemon_help.stdout)
        # The man pages, where man looks for them.
        for page, path in [("presplitd", "/usr/share/man/man8/presplitd.8.gz"),
                           ("presplitctl", "/usr/share/man/man1/presplitctl.1.gz")]:
            self.assertEqual(h.run(["man", "-w", page]).stdout.strip(), path)

        # libjvm comes from the JRE the package depends on, through presplitd's RPATH.
        ldd = h.run(["ldd", "/usr/bin/presplitd"]).stdout
        self.assertNotIn("not found", ldd)
        [libjvm] = re.findall(r"libjvm\.so => (\S+)", ldd)
        owner = h.run(["dpkg", "-S", os.path.realpath(libjvm)]).stdout
        self.assertTrue(owner.startswith("openjdk-17-jre-headless"), owner)

    def test_4_installed_daemon_notifies_ready_watchdog_and_stopping(self):
        notify = NotifySocket()
        self.addCleanup(notify.close)
        workdir = tempfile.mkdtemp(prefix="presplit-pkg-run-")
        self.addCleanup(shutil.rmtree, workdir, True)
        os.chmod(workdir, 0o755)
        conf = os.path.join(workdir, "presplitd.conf")
        root = f"/presplit-package-{RUN}"
        # presplit_jar keeps its default (the installed jar). READY needs no HBase, but the JVM
        # starts first and wants a classpath; entries it cannot read are ignored.
        with open(conf, "w") as f:
            f.write(f"zk_quorum = {h.ZK_QUORUM}\nzk_root = {root}\n"
                    f"jvm_classpath = {h.hbase_classpath()}\n"
                    f"http_listen = 127.0.0.1:{HTTP_PORT}\nresync_interval_s = 5\n")
        os.chmod(conf, 0o644)
        log_path = os.path.join(workdir, "presplitd.log")
        env = {"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"}
        with open(log_path, "w") as log:
            # setpriv execs presplitd itself as the package's user: the signal reaches it directly.
            proc = subprocess.Popen(
                ["setpriv", "--reuid=presplit", "--regid=presplit", "--clear-groups",
                 "presplitd", "--config", conf], env=env, cwd="/", stdout=log,
                stderr=subprocess.STDOUT)

        def log_text():
            with open(log_path) as f:
                return f.read()

        def stop():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.addCleanup(stop)

        seen = []
        try:
            ready = notify.wait_for("READY=1", 90, seen)
        except AssertionError as e:
            raise AssertionError(f"{e}\npresplitd log:\n{log_text()}")
        self.assertEqual(seen, [ready], "READY=1 comes first")
        self.assertIn(f"STATUS=watching {root} on {h.ZK_QUORUM}", ready)
        with open(f"/proc/{proc.pid}/status") as f:
            uid = re.search(r"^Uid:\s+(\d+)", f.read(), re.M).group(1)
        self.assertEqual(int(uid), pwd.getpwnam("presplit").pw_uid)

        # READY means /healthz listens: it answers now (503 is fine: no HBase behind this one).
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{HTTP_PORT}/healthz", timeout=5) as r:
                code = r.status
        except urllib.error.HTTPError as e:
            code = e.code
        self.assertIn(code, (200, 503))

        # WatchdogSec=2s: a ping a second from the loop.
        notify.wait_for("WATCHDOG=1", 10, seen)
        notify.wait_for("WATCHDOG=1", 10, seen)

        proc.send_signal(signal.SIGTERM)
        stopping = notify.wait_for("STOPPING=1", 30, seen)
        self.assertEqual(stopping, "STOPPING=1\nSTATUS=shutting down")
        self.assertEqual(proc.wait(timeout=60), 0, log_text())

    def test_5_purge_removes_the_package_and_its_config(self):
        # An operator enabled the unit: the package's removal disables it again.
        h.run(["systemctl", "enable", "presplitd.service"])
        self.assertTrue(os.path.islink(ENABLED_LINK))
        purge()
        self.assertIn(package_state(), ("", "un"))
        for path in INSTALLED_FILES:
            self.assertFalse(os.path.exists(path), path)
        self.assertFalse(os.path.lexists(ENABLED_LINK))
        self.assertFalse(os.path.exists("/etc/presplit"))
        # A second install on the same machine (the user is kept) works as the first.
        h.run([*APT, "install", self.deb], timeout=400)
        self.assertEqual(package_state(), "ii")
        self.assertTrue(os.path.isfile("/etc/presplit/presplitd.conf"))

        # The config is a conffile: an operator's edit survives a reinstall of the package.
        with open("/etc/presplit/presplitd.conf", "a") as f:
            f.write("zk_quorum = zk1.example:2181\n")
        h.run([*APT, "install", "--reinstall", self.deb], timeout=400)
        with open("/etc/presplit/presplitd.conf") as f:
            self.assertIn("zk_quorum = zk1.example:2181\n", f.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
