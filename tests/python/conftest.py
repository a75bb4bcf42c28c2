"""Shared pytest fixtures: where the hloscope CLI is.

The CLI comes from HLOSCOPE_BIN, else the dev build (build/dev/src/hloscope),
else `hloscope` on PATH (what `pip install .` puts there).
"""
import os
import shutil

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_hloscope_bin():
    env = os.environ.get("HLOSCOPE_BIN")
    if env:
        return env
    dev = os.path.join(ROOT, "build", "dev", "src", "hloscope")
    if os.path.exists(dev):
        return dev
    return shutil.which("hloscope")


@pytest.fixture(scope="session")
def hloscope_bin():
    path = find_hloscope_bin()
    if not path:
        pytest.skip("hloscope CLI not built (set HLOSCOPE_BIN)")
    return path
