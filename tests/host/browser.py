"""tests/host/browser.py - headless Chromium driven over the DevTools
protocol on a pipe (--remote-debugging-pipe: the browser reads commands
on fd 3 and writes replies and events on fd 4, each a JSON text ended by
NUL), with the standard library only.

Page(path) loads a local file and gives what a report test needs: the DOM
after load, every console error and uncaught exception, every request for
something that is not the file itself (a report must need no network),
and screenshots of the whole page or of one element.  Every wait is
bounded by time."""

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--remote-debugging-pipe",
         "--window-size=1280,1000", "--hide-scrollbars")
TIMEOUT_S = 60


class BrowserError(Exception):
    """Chromium did not answer, or answered with an error."""


def available():
    return os.access(CHROMIUM, os.X_OK)


class Page:
    """One page of a fresh headless Chromium (its own profile directory)."""

    def __init__(self, path):
        self.profile = tempfile.mkdtemp(prefix="tm-chromium-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def onto_3_and_4():
            # via fresh descriptors: one of the pipes may itself be 3 or 4
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--user-data-dir=" + self.profile],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(3, 4),
            preexec_fn=onto_3_and_4)
        os.close(to_browser)
        os.close(from_browser)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None
        try:
            self._open(os.path.abspath(path))
        except Exception:
            self.close()
            raise

    # -- protocol

    def _send(self, method, params=None, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        return self._id

    def _next(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in %d s"
                                   % TIMEOUT_S)
            ready, _w, _x = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise BrowserError("chromium closed its pipe")
                self._buf += chunk
        text, self._buf = self._buf.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, params=None, session=True):
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            msg = self._next(deadline)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method):
        deadline = time.monotonic() + TIMEOUT_S
        for msg in self.events:
            if msg.get("method") == method:
                return msg
        while True:
            msg = self._next(deadline)
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    return msg

    def _open(self, path):
        target = self.call("Target.createTarget", {"url": "about:blank"},
                           session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {
            "targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        self.url = "file://" + path
        self.call("Page.navigate", {"url": self.url})
        self.wait_event("Page.loadEventFired")

    # -- what the tests read

    def evaluate(self, expression):
        got = self.call("Runtime.evaluate", {"expression": expression,
                                             "returnByValue": True})
        if "exceptionDetails" in got:
            raise BrowserError("evaluate %r: %s" % (expression,
                                                    got["exceptionDetails"]))
        return got["result"].get("value")

    def dom(self):
        return self.evaluate("document.documentElement.outerHTML")

    def errors(self):
        """Console errors, uncaught exceptions and error log entries."""
        out = []
        for msg in self.events:
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Runtime.consoleAPICalled" and \
                    params.get("type") in ("error", "assert"):
                out.append("console: %s" % params.get("args"))
            elif method == "Runtime.exceptionThrown":
                out.append("exception: %s" % params.get("exceptionDetails"))
            elif method == "Log.entryAdded" and \
                    params.get("entry", {}).get("level") == "error":
                out.append("log: %s" % params["entry"].get("text"))
        return out

    def requests(self):
        """URLs the page asked for besides itself."""
        urls = [m["params"]["request"]["url"] for m in self.events
                if m.get("method") == "Network.requestWillBeSent"]
        return [u for u in urls if u.split("#")[0] != self.url]

    def screenshot(self, path, selector=None):
        """The whole page, or the element `selector`, as a PNG."""
        if selector:
            box = self.evaluate(
                "(() => { const r = document.querySelector(%s)"
                ".getBoundingClientRect(); return [r.left + window.scrollX, "
                "r.top + window.scrollY, r.width, r.height]; })()"
                % json.dumps(selector))
        else:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            box = [0, 0, size["width"], size["height"]]
        shot = self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": box[0], "y": box[1], "width": max(1, box[2]),
                     "height": max(1, box[3]), "scale": 1}})
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(shot["data"]))
        return path

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self._send("Browser.close", session=False)
                    self.proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait(timeout=10)
        finally:
            for fd in (self._read, self._write):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
