"""A small W3C WebDriver client for Debian's chromedriver, to drive a real headless Chromium in tests.

WHY not selenium: the tests need six commands (open a session, go to a URL,
run a script, find and click an element, take a screenshot); WebDriver is
JSON over HTTP on localhost, so these are a few lines on urllib, where
selenium would bring a dozen packages into the test environment.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1000,1000")


def missing() -> str | None:
    """Why a browser test cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} is not installed (apt-get install chromium chromium-driver; .ci/run does)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One chromedriver process and one Chromium session with a fresh profile; close() ends both."""

    def __init__(self, timeout_s: float = 30.0) -> None:
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="tafl-chromium-")
        self.driver = subprocess.Popen([CHROMEDRIVER, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                self.driver.kill()
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": [*FLAGS, f"--user-data-dir={self.profile}"]}}}}
        try:
            self.session = self._call("POST", "/session", caps)["sessionId"]
        except Exception:
            self.close()
            raise

    def _call(self, method: str, path: str, body: dict | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"webdriver {method} {path}: {exc.read().decode(errors='replace')[:400]}") from None

    def _session(self, method: str, path: str, body: dict | None = None) -> Any:
        return self._call(method, f"/session/{self.session}{path}", body)

    def get(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Run ``script`` (a function body; `arguments` holds ``args``) in the page and return its value."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css: str) -> None:
        element = self._session("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]
        self._session("POST", f"/element/{element}/click", {})

    def screenshot_png(self) -> bytes:
        return base64.b64decode(self._session("GET", "/screenshot"))

    def wait_for(self, script: str, timeout_s: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.run(script)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never made this true: {script}")
            time.sleep(0.05)

    def close(self) -> None:
        try:
            if getattr(self, "session", None):
                self._session("DELETE", "")
        except (OSError, RuntimeError) as exc:     # the browser may be gone already: end the driver anyway
            print(f"webdriver: closing the session: {exc}")
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
