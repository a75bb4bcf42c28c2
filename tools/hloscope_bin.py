"""Where the hloscope CLI is, for the tests and tools that run it.

HLOSCOPE_BIN if set, else the dev build (build/dev/src/hloscope), else
`hloscope` on PATH (what `pip install .` puts there); None if none of these.
"""
from __future__ import annotations

import os
import shutil
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_hloscope_bin() -> Optional[str]:
    env = os.environ.get("HLOSCOPE_BIN")
    if env:
        return env
    dev = os.path.join(ROOT, "build", "dev", "src", "hloscope")
    if os.path.exists(dev):
        return dev
    return shutil.which("hloscope")
