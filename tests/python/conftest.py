"""Shared pytest fixtures: where the hloscope CLI is.

The CLI comes from HLOSCOPE_BIN, else the dev build (build/dev/src/hloscope),
else `hloscope` on PATH (what `pip install .` puts there).
"""
import json
import os
import signal
import subprocess
import sys

import pytest

# The TPU compiles here are compile-only (libtpu without a TPU). libtpu takes a machine-wide
# lockfile in the first process that loads it, so a test that compiles for a TPU in this process
# made every later test that compiles for one in a subprocess skip ("libtpu multi-process
# lockfile"). JAX's own multi-process tests set this to let several processes load it.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
# The compile-only CUDA plugin describes a GPU topology only with the CPU as JAX's platform; the
# first test module to import jax decided it, so a selection of tests could fail where the whole
# suite passed (this machine has no GPU or TPU to run on).
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# A shell without job control starts a background job (`pytest … &`, a CI step run in the
# background) with SIGINT ignored; Python then keeps it ignored, and every process it starts
# inherits that: `hloscope run` keeps an ignored SIGINT (nohup's contract) and so does the program,
# so the tests that interrupt a run would wait for nothing. A handled signal is reset to the
# default in a child, an ignored one is not: handle it here.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from hloscope_bin import find_hloscope_bin  # noqa: E402


@pytest.fixture(scope="session")
def hloscope_bin():
    path = find_hloscope_bin()
    if not path:
        pytest.skip("hloscope CLI not built (set HLOSCOPE_BIN)")
    return path


def run_program_json(program: str, timeout: int = 600) -> dict:
    """Runs `program` in a fresh Python on the CPU platform (it sets its own XLA_FLAGS, e.g. the
    host device count, which only a new process can) and returns the JSON of its last line; skips
    the test when the program printed {"unavailable": reason} (a compile-only package missing)."""
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if "unavailable" in out:
        pytest.skip(out["unavailable"])
    return out
