#!/usr/bin/env python3
"""Regenerate the report screenshots in docs/images/ (shown in README.md and docs/report.md).

    python3 tools/screenshots.py              # needs the hloscope CLI and headless Chromium

Each is the first screen of `hloscope report` on a bundled program, rendered by
headless Chromium (tools/browser.py) at 1300 px wide; the source lines are read from
this checkout (--source-root .).
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import browser  # noqa: E402
from hloscope_bin import find_hloscope_bin  # noqa: E402

SHOTS = {
    "report-example.png": (os.path.join("examples", "dumps", "replay_rollout.cpu_after_optimizations.txt"), 1250),
    "report-optax.png": (glob.glob(os.path.join("tests", "fixtures", "report", "optax_train",
                                                "*after_optimizations.txt"))[0], 1500),
}


def main() -> int:
    hloscope = find_hloscope_bin()
    if not hloscope:
        print("hloscope CLI not found (build it, or set HLOSCOPE_BIN)", file=sys.stderr)
        return 2
    out_dir = os.path.join(ROOT, "docs", "images")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for png, (hlo, height) in SHOTS.items():
            page = os.path.join(tmp, png + ".html")
            subprocess.run([hloscope, "report", hlo, "-o", page, "--source-root", "."], cwd=ROOT, check=True)
            browser.screenshot(page, os.path.join(out_dir, png), width=1300, height=height)
            print(f"wrote docs/images/{png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
