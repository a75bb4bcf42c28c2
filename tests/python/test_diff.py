"""`hloscope diff`, hloscope.diff(), scaling() and assert_no_regression() on real programs.

The programs are tools/fixture_programs/ring_buffer.py's: a ring buffer whose
slow version copies the ring every step (the read of the replaced row comes
after the write), whose fixed version carries the row and updates the ring in
place, and a regression of the fixed version (one more read of the old ring).
They are compiled here with JAX (and, for the committed dumps of
tests/fixtures/diff/, by tools/gen_diff_fixtures.py). No test asserts on time.
"""
import glob
import json
import os
import sys

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
from hloscope import _hloscope  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIFF = os.path.join(REPO, "tests", "fixtures", "diff")
sys.path.insert(0, os.path.join(REPO, "tools"))
from fixture_programs import ring_buffer  # noqa: E402

FEATURES, STEPS = 64, 20


def make(n):
    return jnp.zeros((n, FEATURES), jnp.float32), jnp.ones((STEPS, FEATURES), jnp.float32)


def jitted(name):
    return jax.jit(getattr(ring_buffer, name), donate_argnums=0)


def test_diff_of_two_sizes_names_the_growing_copies_only():
    slow = hloscope.diff(hloscope.inspect(jitted("rollout_slow"), *make(512)),
                         hloscope.inspect(jitted("rollout_slow"), *make(1024)))
    growing = slow.items(grows=True)
    assert sorted(i["kind"] for i in growing) == ["copy", "loop"]
    copy = next(i for i in growing if i["kind"] == "copy")
    assert copy["a"]["state"] == "read-after-update"
    assert copy["b"]["bytes"] == 2 * copy["a"]["bytes"] == 2 * 2 * 512 * FEATURES * 4
    assert copy["exponent"] == 1.0
    assert "What scales (as ring.1 grows ×2): copy f32[_,_] (read-after-update) ×2 at " in str(slow)

    fixed = hloscope.diff(hloscope.inspect(jitted("rollout_fixed"), *make(512)),
                          hloscope.inspect(jitted("rollout_fixed"), *make(1024)))
    assert fixed.items(grows=True) == []
    assert "What scales: nothing" in str(fixed)


def test_diff_of_the_fix_removes_the_ring_copies():
    d = hloscope.diff(os.path.join(DIFF, "slow_1024"), os.path.join(DIFF, "fixed_1024"))
    gone = d.items(kind="copy", status="only-in-a")
    assert [(i["a"]["shape"], i["a"]["count"]) for i in gone] == [("f32[1024,64]", 2)]
    assert all(i["b"]["bytes"] <= 256 for i in d.items(kind="copy", status="only-in-b"))


def test_cli_diff_json_validates_against_its_schema():
    jsonschema = pytest.importorskip("jsonschema")
    referencing = pytest.importorskip("referencing")  # noqa: F841
    with open(os.path.join(REPO, "docs", "schema", "diff.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    pairs = [("slow_1024", "slow_2048"), ("fixed_1024", "extra_copy_1024"), ("slow_1024", "fixed_1024")]
    for a, b in pairs:
        code, out, err = _hloscope.run_cli(["diff", os.path.join(DIFF, a), os.path.join(DIFF, b), "--format",
                                            "json", "--fail-on-new-copies"])
        assert code in (0, 1), err
        doc = json.loads(out)
        errors = list(v.iter_errors(doc))
        assert not errors, f"{a} vs {b}: {errors[0].message} at {list(errors[0].absolute_path)}"


def test_check_json_with_kernels_validates():
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("referencing")
    from test_json_schema import VALIDATORS  # the check schema with its shared shapes
    [hlo] = glob.glob(os.path.join(DIFF, "slow_1024", "*after_optimizations.txt"))
    code, out, err = _hloscope.run_cli(["check", hlo, "--format", "json", "--kernels"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["modules"][0]["entry_signature"] == "(f32[1024,64], f32[50,64]) -> (f32[1024,64], f32[50])"
    assert len(doc["modules"][0]["kernels"]) > 0
    errors = list(VALIDATORS["check"].iter_errors(doc))
    assert not errors, errors[0].message
    del jsonschema


def test_assert_no_regression_writes_then_gates(tmp_path):
    baseline = tmp_path / "ring.json"
    args = make(512)
    first = hloscope.assert_no_regression(jitted("rollout_fixed"), *args, baseline=baseline)
    assert baseline.exists() and "baseline written" in first.text
    again = hloscope.assert_no_regression(jitted("rollout_fixed"), *make(512), baseline=baseline)
    assert again.passed
    # The same baseline against the program with one more read of the old ring.
    with pytest.raises(AssertionError) as e:
        hloscope.assert_no_regression(jitted("rollout_extra_copy"), *make(512), baseline=baseline,
                                      min_bytes=1024)
    msg = str(e.value)
    assert "new-copies: jit_rollout_extra_copy: copy f32[_,_] (read-after-update) at " in msg
    assert "new-not-in-place:" in msg and "more-bytes-per-iteration:" in msg
    # Only the gates asked for.
    hloscope.assert_no_regression(jitted("rollout_extra_copy"), *make(512), baseline=baseline, fail_on=())


def test_scaling_fits_bytes_exponents_and_times_when_asked():
    slow = hloscope.scaling(jitted("rollout_slow"), make, sizes=(256, 512, 1024), progress=False)
    assert slow.times is None and slow.time_exponent is None
    copy = next(f for f in slow.growing if f.kind == "copy")
    assert copy.exponent == pytest.approx(1.0)
    assert copy.bytes == [2 * n * FEATURES * 4 for n in (256, 512, 1024)]
    assert slow.verdict.startswith("grows with size: ")
    fixed = hloscope.scaling(jitted("rollout_fixed"), make, sizes=(256, 512, 1024), progress=False)
    assert fixed.growing == []
    assert fixed.verdict.startswith("nothing grows")
    # measure=True runs each size; the figures are the benchmark's
    # (bench/scaling_bench.py), not asserted here.
    timed = hloscope.scaling(jitted("rollout_fixed"), make, sizes=(256, 512), measure=True, warmup=1, repeats=2,
                             progress=False)
    assert len(timed.times) == 2 and all(t > 0 for t in timed.times)
    assert isinstance(timed.time_exponent, float)
    assert timed.verdict.startswith("time per call ∝ size^")


def test_scaling_says_when_time_grows_but_no_finding_does():
    r = hloscope.ScalingResult(sizes=[1, 2], findings=[], diffs=[], times=[1.0, 2.0], time_exponent=1.0)
    assert r.verdict == ("time per call ∝ size^1.00, but no finding grows: the HLO does not change with size: "
                         "the cost is in the backend's code for these kernels")


def test_load_errors_are_parse_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"tool": "hloscope", "command": "where", "schema_version": 2, "modules": []}')
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.diff(str(bad), os.path.join(DIFF, "slow_1024"))
    assert "a hloscope `where` document; diff compares `check --format json` documents" in str(e.value)
