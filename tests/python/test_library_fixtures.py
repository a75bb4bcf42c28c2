"""The library workloads (tests/fixtures/jax-libs, from tools/library_programs/):
what a user reads first holds on programs written from the public APIs of
flax, optax, equinox, diffrax, numpyro, blackjax, haiku, flashbax, optimistix,
mctx, gymnax, evosax and jax.random.

* the headline's "Largest" is the copy that moves the most bytes per call
  (per iteration of its loop where the trip count is unknown);
* at most 1 % of the array copies have cause `unknown` (docs/accuracy.md);
* copies made inside jax.random's helpers are grouped below the user's and
  skipped by the gates, which pass the library-only findings.
The loop flags are checked against the measured time in
tests/analysis/loop_growth_test.cc; every verdict and rewrite claim against
XLA's buffer assignment in tests/analysis/check_fixtures_test.cc.
"""
import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import library_stats  # noqa: E402

FIXTURES = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(REPO, "tests/fixtures/jax-libs/*/module.hlo.txt")))


def test_there_are_library_workloads():
    assert len(FIXTURES) >= 20


@pytest.fixture(scope="module")
def checks(hloscope_bin):
    return {os.path.basename(d): library_stats.run_check(hloscope_bin, d) for d in FIXTURES}


def test_the_headline_names_the_copy_that_moves_the_most(checks):
    for name, m in checks.items():
        counted = [c for c in m["copies"] if not c["minor"]]
        if not counted:
            continue
        named = library_stats.headline_largest(m["_text"].split("\n\n")[0])
        top = max(counted, key=library_stats.weight)
        assert named is not None, name
        assert library_stats.weight(next(c for c in counted if c["instruction"] == named)) == \
            library_stats.weight(top), (name, named, top["instruction"])


def test_array_copies_of_unknown_cause_are_at_most_one_percent(checks):
    arrays = [c for m in checks.values() for c in m["copies"] if not c["scalar"]]
    unknown = [c["instruction"] for c in arrays if c["cause"] == "unknown"]
    assert len(arrays) > 500
    assert len(unknown) <= 0.01 * len(arrays), unknown


def test_jax_random_internals_are_grouped_and_skipped_by_the_gates(checks, hloscope_bin):
    d = os.path.join(REPO, "tests/fixtures/jax-libs/random_ring_fill")
    text = checks["random_ring_fill"]["_text"]
    assert "made inside library code (gates skip these unless --include-library):" in text
    assert "    jit(_threefry_split)" in text
    hlo = os.path.join(d, "module.hlo.txt")
    # The ring is updated in place; only jax.random's helpers copy inside the loop (8-byte keys:
    # small loop state, so the gate that fails on them is small-copies-in-loops).
    user = subprocess.run([hloscope_bin, "check", hlo, "--fail-on", "small-copies-in-loops"],
                          capture_output=True, text=True)
    assert user.returncode == 0, user.stderr
    lib = subprocess.run([hloscope_bin, "check", hlo, "--fail-on", "small-copies-in-loops", "--include-library"],
                         capture_output=True, text=True)
    assert lib.returncode == 1, lib.stderr
    assert "u32[2]" in lib.stderr, lib.stderr
    assert "jit(_normal)" in text


def test_python_gates_skip_library_findings_as_the_cli_does():
    import hloscope
    hlo = os.path.join(REPO, "tests/fixtures/jax-libs/random_ring_fill/module.hlo.txt")
    report = hloscope.analyze(hlo)
    hloscope.assert_inplace(report, gates="small-copies-in-loops")  # jax.random's copies in the loop are library code
    with pytest.raises(AssertionError):
        hloscope.assert_inplace(report, gates="small-copies-in-loops", include_library=True)
    with pytest.raises(AssertionError):
        hloscope.assert_budget(report, max_copy_bytes=0)  # the user's key copy (8 B)
    hloscope.assert_budget(report, max_copy_bytes=0, min_bytes=9)


def test_carries_have_the_users_names():
    import hloscope
    report = hloscope.analyze(os.path.join(REPO, "tests/fixtures/jax-libs/flax_linen_scan_epoch/module.hlo.txt"))
    named = [c for loop in report.loops for c in loop.carries if c.name]
    assert named, [str(c) for loop in report.loops for c in loop.carries]
    assert all(isinstance(c, hloscope.Carry) and c.text.startswith("from argument") for c in named)
