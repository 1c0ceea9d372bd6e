"""A headless Chromium driven over the DevTools protocol, standard library only.

Chromium is started with --remote-debugging-pipe: it reads commands on fd 3
and writes answers and events on fd 4, each message JSON ended by a NUL byte.
Used by tests/test_page.py and bench/page.py; find_chromium() is None when no
browser is installed (the tests then skip).
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

__all__ = ["find_chromium", "Browser"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser and one page: open(url), evaluate(js), screenshot().
    Collects console errors, uncaught exceptions and every network request."""

    def __init__(self, executable=None, width=1400, height=900, timeout=60.0):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise RuntimeError("no chromium installed")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="memory-page-browser-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire():  # runs in the child before exec: its fds 3 and 4
            a, b = os.dup(to_child_r), os.dup(from_child_w)  # out of the way of 3 and 4
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
        args = [self.executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--disable-default-apps",
                "--disable-extensions", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=wire, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.call(method)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # --- protocol ---
    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw.decode("utf-8"))

    def call(self, method, params=None, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode("utf-8") + b"\0")
        deadline = time.time() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_for(self, method, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        for e in self.events:
            if e["method"] == method:
                return e
        while True:
            answer = self._read_message(deadline)
            if "method" in answer:
                self.events.append(answer)
                if answer["method"] == method:
                    return answer

    # --- page ---
    def open(self, url):
        """Navigate and wait for the load event: seconds it took."""
        self.events = []
        start = time.time()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        return time.time() - start

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("script failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def screenshot(self, path, clip=None):
        params = {"format": "png"}
        if clip:
            params["clip"] = dict(clip, scale=1)
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def errors(self):
        """Console errors and uncaught exceptions since the last open()."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append("exception: %s" % p.get("exceptionDetails", {}).get("exception", {}).get(
                    "description", p.get("exceptionDetails", {}).get("text")))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: %s" % p["entry"].get("text"))
        return out

    def requests(self):
        """URLs of every network request since the last open() (the page's own file included)."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.call("Browser.close", session=False)
                except Exception:
                    pass
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
