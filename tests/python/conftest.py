"""Shared pytest fixtures: where the hloscope CLI is.

The CLI comes from HLOSCOPE_BIN, else the dev build (build/dev/src/hloscope),
else `hloscope` on PATH (what `pip install .` puts there).
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from hloscope_bin import find_hloscope_bin  # noqa: E402


@pytest.fixture(scope="session")
def hloscope_bin():
    path = find_hloscope_bin()
    if not path:
        pytest.skip("hloscope CLI not built (set HLOSCOPE_BIN)")
    return path
