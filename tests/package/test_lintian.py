"""The Debian package against Debian's conventions, checked without installing it.

scripts/package builds the .deb from the build tree, and Debian 12's lintian checks it: no error
may remain (its whole output is printed, warnings and notes included), and every override the
package ships (usr/share/lintian/overrides/presplit, each with its reason) must still silence
something. Then what lintian does not check: the man pages and the changelog are compressed with
gzip -9n, the changelog's latest entry is the packaged version, and the man pages render without
warnings and name every option, setting and command the binaries accept (their --help, and
daemon/runner/daemon_options.cc for the configuration keys).
"""
import gzip
import os
import re
import shutil
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.environ["PRESPLIT_SOURCE_DIR"]
BUILD_DIR = os.environ["PRESPLIT_BUILD_DIR"]
PRESPLITD = os.path.join(BUILD_DIR, "bin", "presplitd")
PRESPLITCTL = os.path.join(BUILD_DIR, "bin", "presplitctl")

DOC = "usr/share/doc/presplit"
MAN_PAGES = {"presplitd": "usr/share/man/man8/presplitd.8.gz",
             "presplitctl": "usr/share/man/man1/presplitctl.1.gz"}
GZIPPED = [*MAN_PAGES.values(), f"{DOC}/changelog.gz"]
DEBIAN_FILES = [*GZIPPED, f"{DOC}/copyright", "usr/share/lintian/overrides/presplit"]


def run(cmd, check=True, timeout=120, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def options_in_help(text):
    """Every --long option a help text mentions."""
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", text)))


def roff_text(source):
    """A roff source with its escaped hyphens as plain ones, for searching."""
    return source.replace("\\-", "-")


class LintianTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("lintian") is None:
            raise AssertionError("lintian is not installed: run scripts/setup")
        cls.out = tempfile.mkdtemp(prefix="presplit-lintian-", dir=BUILD_DIR)
        built = run([os.path.join(SOURCE_DIR, "scripts", "package"), "--no-build",
                     "--output", cls.out], timeout=300)
        cls.deb = built.stdout.strip().splitlines()[-1]
        cls.root = os.path.join(cls.out, "root")
        run(["dpkg-deb", "-x", cls.deb, cls.root])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def unpacked(self, path):
        return os.path.join(self.root, path)

    def man_source(self, name):
        with gzip.open(self.unpacked(MAN_PAGES[name]), "rt") as f:
            return f.read()

    def test_lintian_reports_no_error(self):
        # --fail-on error: exit status 2 when an error is reported (overridden ones are not).
        proc = run(["lintian", "--fail-on", "error", "--display-info", self.deb], check=False,
                   timeout=600)
        with open(self.unpacked("usr/share/lintian/overrides/presplit")) as f:
            overrides = [line for line in f if line.strip() and not line.startswith("#")]
        print(f"lintian {os.path.basename(self.deb)}: exit {proc.returncode}\n{proc.stdout}"
              f"{proc.stderr}overridden (usr/share/lintian/overrides/presplit says why):\n"
              + "".join(overrides), flush=True)
        self.assertEqual(proc.returncode, 0, "lintian reports errors (above)")
        self.assertNotRegex(proc.stdout, r"^E: ", "lintian reports errors (above)")
        # An override that silences nothing any more goes (or never matched what it meant to).
        self.assertNotRegex(proc.stdout, r"(unused|mismatched)-override",
                            "an override in packaging/debian/lintian-overrides is stale")

    def test_debian_files_are_in_place(self):
        listing = run(["dpkg-deb", "-c", self.deb]).stdout
        modes = {line.split()[-1].removeprefix("./"): line.split()[0]
                 for line in listing.splitlines()}
        for path in DEBIAN_FILES:
            self.assertEqual(modes.get(path), "-rw-r--r--", path)
        with open(self.unpacked(f"{DOC}/copyright")) as f:
            copyright_text = f.read()
        self.assertTrue(copyright_text.startswith(
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        # The whole docs/ directory, beside the README whose links point into it.
        self.assertTrue(os.path.isfile(self.unpacked(f"{DOC}/README.md")))
        docs = [name for _, _, names in os.walk(os.path.join(SOURCE_DIR, "docs"))
                for name in names if not name.startswith(".")]
        installed = [name for _, _, names in os.walk(self.unpacked(f"{DOC}/docs"))
                     for name in names]
        self.assertEqual(sorted(installed), sorted(docs))

    def test_compressed_with_gzip_9n(self):
        # RFC 1952 header: magic, method, flags (FNAME 0x08), mtime (4 bytes), extra flags
        # (2: maximum compression). -n leaves out the name and the time stamp.
        for path in GZIPPED:
            with open(self.unpacked(path), "rb") as f:
                header = f.read(10)
            self.assertEqual(header[:3], b"\x1f\x8b\x08", path)
            self.assertEqual(header[3] & 0x08, 0, f"{path}: carries a file name")
            self.assertEqual(header[4:8], b"\0\0\0\0", f"{path}: carries a time stamp")
            self.assertEqual(header[8], 2, f"{path}: not gzip -9")

    def test_changelog_is_the_packaged_version(self):
        version = run(["dpkg-deb", "-f", self.deb, "Version"]).stdout.strip()
        changelog = os.path.join(self.out, "changelog")
        with gzip.open(self.unpacked(f"{DOC}/changelog.gz"), "rb") as src, \
                open(changelog, "wb") as dst:
            shutil.copyfileobj(src, dst)
        parsed = run(["dpkg-parsechangelog", "-l", changelog, "-S", "Version"]).stdout.strip()
        self.assertEqual(parsed, version)
        for name in MAN_PAGES:
            self.assertRegex(self.man_source(name), rf'(?m)^\.TH .* "presplit {re.escape(version)}"')

    def test_man_pages_render_without_warnings(self):
        # As lintian runs man (its manpage-has-errors-from-man is only a warning).
        env = dict(os.environ, LC_ALL="C.UTF-8", MANROFFSEQ="", MANWIDTH="80")
        for name, path in MAN_PAGES.items():
            proc = run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z",
                        self.unpacked(path)], env=env)
            self.assertEqual(proc.stderr, "", f"{name}: man warns")
            self.assertIn("SYNOPSIS", run(["man", "-l", self.unpacked(path)], env=env).stdout)

    def test_presplitd_page_names_every_option_and_setting(self):
        page = roff_text(self.man_source("presplitd"))
        for option in options_in_help(run([PRESPLITD, "--help"]).stdout):
            self.assertRegex(page, rf"(?<![\w-]){re.escape(option)}(?![\w-])", option)
        # The settings table (daemon/runner/settings.def) names every config key.
        with open(os.path.join(SOURCE_DIR, "daemon", "runner", "settings.def")) as f:
            keys = set(re.findall(r'(?m)^PRESPLIT_SETTING\(([a-z0-9_]+),', f.read()))
        self.assertIn("zk_quorum", keys)
        for key in sorted(keys):
            self.assertRegex(page, rf'(?m)^\.BR {key} "', f"config key {key}")
        self.assertRegex(page, r"(?m)^\.BI hbase\. ")
        for section in ["SIGNALS", "EXIT STATUS", "FILES", "SEE ALSO"]:
            self.assertRegex(page, rf'(?m)^\.SH "?{section}"?$', section)

    def test_presplitctl_page_names_every_command_and_option(self):
        page = roff_text(self.man_source("presplitctl"))
        help_text = run([PRESPLITCTL, "--help"]).stdout
        commands = help_text.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
        names = sorted(set(re.findall(r"^  ([a-z][a-z-]*)", commands, re.M)))
        self.assertIn("put", names)
        for name in names:
            self.assertRegex(page, rf'(?m)^\.B[IR]? "?{re.escape(name)}\b', f"command {name}")
        import_help = run([PRESPLITCTL, "import", "--help"]).stdout
        for option in options_in_help(help_text) + options_in_help(import_help):
            self.assertRegex(page, rf"(?<![\w-]){re.escape(option)}(?![\w-])", option)
        for section in ["EXIT STATUS", "ENVIRONMENT", "SEE ALSO"]:
            self.assertRegex(page, rf'(?m)^\.SH "?{section}"?$', section)


if __name__ == "__main__":
    unittest.main(verbosity=2)
