"""`hloscope check` against the independent oracle on every JAX fixture.

The oracle (tools/ba_oracle.py) reads XLA's own output — the copy
instructions and the buffer assignment — without any hloscope code. For each
fixture: the copies hloscope lists are exactly the oracle's (same bytes),
every update XLA keeps in its operand's buffer is reported in place (and no
in-place claim where XLA did not share), every verdict is confirmed, and
trip counts agree.
"""
import glob
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import compare_with_oracle  # noqa: E402

# CPU (tests/fixtures/jax) and the compile-only GPU/TPU sets (jax-gpu-h100, jax-tpu-v5e, ...).
FIXTURES = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "jax", "*", "buffer-assignment.txt")) +
                  glob.glob(os.path.join(ROOT, "tests", "fixtures", "jax-*", "*", "buffer-assignment.txt")))


def _id(p):
    d = os.path.dirname(p)
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


@pytest.mark.parametrize("ba", FIXTURES, ids=_id)
def test_fixture_agrees_with_oracle(hloscope_bin, ba):
    result = compare_with_oracle.compare(hloscope_bin, os.path.dirname(ba))
    assert result["false_in_place"] == 0
    assert result["problems"] == []


def test_there_are_at_least_30_fixtures():
    assert len(FIXTURES) >= 30
    backends = {os.path.basename(os.path.dirname(os.path.dirname(p))) for p in FIXTURES}
    assert {"jax", "jax-gpu-h100", "jax-tpu-v5e"} <= backends
