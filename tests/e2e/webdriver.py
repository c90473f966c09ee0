"""A headless Chromium for the end-to-end tests of pages: Debian's chromium driven through
chromedriver with the W3C WebDriver protocol, spoken over plain HTTP (urllib, no client library).
Used by the example portal's test and the key visualizer's."""
import base64
import json
import shutil
import socket
import subprocess
import urllib.error
import urllib.request

import harness as h

# W3C WebDriver's key of an element reference in its answers.
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=30):
    """(status, parsed JSON answer) of one request; HTTP errors are answers too."""
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class WebDriver:
    """The few W3C WebDriver commands the test needs, over chromedriver's HTTP endpoint."""

    def __init__(self, log_path):
        driver = shutil.which("chromedriver")
        if driver is None:
            raise AssertionError("chromedriver is missing: scripts/setup installs chromium-driver")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([driver, f"--port={self.port}"], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        h.wait_for(self.ready, 30, "chromedriver to answer")
        self.session = None

    def ready(self):
        try:
            return http("GET", self.base + "/status", timeout=2)[1]["value"]["ready"]
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def command(self, method, path, body=None):
        url = self.base + (f"/session/{self.session}" if self.session else "/session") + path
        status, answer = http(method, url, json.dumps(body) if body is not None else None,
                              timeout=120)
        if status != 200:
            raise AssertionError(f"WebDriver {method} {path}: {status} {answer}")
        return answer["value"]

    def start(self, profile):
        chromium = shutil.which("chromium")
        options = {"args": ["--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-dev-shm-usage", "--window-size=1280,1000",
                            f"--user-data-dir={profile}"]}
        if chromium:
            options["binary"] = chromium
        value = self.command("POST", "", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options}}})
        self.session = value["sessionId"]

    def quit(self):
        try:
            if self.session:
                self.command("DELETE", "")
        finally:
            self.session = None
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()

    def go(self, url):
        self.command("POST", "/url", {"url": url})

    def element(self, css):
        return self.command("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def text(self, css):
        """The element's visible text, or None while it cannot be found."""
        try:
            return self.command("GET", f"/element/{self.element(css)}/text")
        except AssertionError:
            return None

    def attribute(self, css, name):
        """The element's attribute, or None while the element cannot be found or lacks it."""
        try:
            return self.command("GET", f"/element/{self.element(css)}/attribute/{name}")
        except AssertionError:
            return None

    def type(self, css, text):
        self.command("POST", f"/element/{self.element(css)}/value", {"text": text})

    def clear(self, css):
        self.command("POST", f"/element/{self.element(css)}/clear", {})

    def click(self, css):
        self.command("POST", f"/element/{self.element(css)}/click", {})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.command("GET", "/screenshot")))
        print(f"screenshot: {path}")
        return path
