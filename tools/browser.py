"""Headless Chromium for the HTML report: the DOM after the page ran, and screenshots.

Used by tests/python/test_report_browser.py and tools/screenshots.py. Chromium is
Debian's `chromium` package (tools/install-deps.sh installs it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Optional, Sequence

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium() -> Optional[str]:
    env = os.environ.get("HLOSCOPE_CHROMIUM")
    if env:
        return env
    for name in _CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args: Sequence[str], timeout: float = 120) -> subprocess.CompletedProcess:
    chromium = find_chromium()
    if not chromium:
        raise RuntimeError("headless Chromium not found (apt-get install chromium, or set HLOSCOPE_CHROMIUM)")
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    # A private profile keeps runs apart and leaves nothing in $HOME.
    import tempfile
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
               f"--user-data-dir={profile}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def dump_dom(path: str) -> str:
    """The page's DOM as serialized after load, its scripts run. (Chromium's
    --blink-settings=scriptEnabled=false also disables --dump-dom itself: to see
    a page without JavaScript, block its scripts with its Content-Security-Policy.)"""
    r = _run(["--virtual-time-budget=5000", "--dump-dom", "file://" + os.path.abspath(path)])
    if r.returncode != 0 or "<html" not in r.stdout:
        raise RuntimeError(f"chromium --dump-dom failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def screenshot(path: str, png: str, *, width: int = 1300, height: int = 1400) -> None:
    """A PNG of the page's first `height` pixels at `width`."""
    r = _run([f"--window-size={width},{height}", f"--screenshot={os.path.abspath(png)}",
              "file://" + os.path.abspath(path)])
    if r.returncode != 0 or not os.path.exists(png):
        raise RuntimeError(f"chromium --screenshot failed ({r.returncode}): {r.stderr[-2000:]}")
