"""The CLI's gates and the Python assertions give the same verdict on every fixture.

For each fixture and each gate — assert_inplace() vs `check --fail-on-out-of-place
--fail-on-copies-in-loops` (plain, counting scalar copies, restricted to one update
or one line), assert_budget() vs `check --max-*` — the hloscope binary exits 1 exactly
when the assertion raises, and both report the same problems in the same words.
"""

import glob
import json
import os
import subprocess

import pytest

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fixture_inputs():
    files = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax/*/module.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/difftest/*/module.hlo.txt")))
    files += [os.path.join(REPO, "examples/dumps/replay_rollout.cpu_after_optimizations.txt")]
    return files


def cli(binary, hlo, flags):
    r = subprocess.run([binary, "check", hlo, *flags], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, r.stderr


def python(report, assertion, **kwargs):
    try:
        assertion(report, **kwargs)
    except AssertionError as e:
        return 1, str(e)
    return 0, ""


def body(message):
    """The problems of a failure message, without its title line."""
    return message.strip().split("\n", 1)[1] if message else ""


def gates(report):
    """(CLI flags, Python assertion, its keyword arguments) for every gate."""
    out = [
        (["--fail-on-out-of-place", "--fail-on-copies-in-loops"], hloscope.assert_inplace, {}),
        (["--fail-on-out-of-place", "--fail-on-copies-in-loops", "--count-scalar-copies"],
         hloscope.assert_inplace, {"count_scalar_copies": True}),
        (["--max-copies", "0"], hloscope.assert_budget, {"max_copies": 0}),
        (["--max-copies", "0", "--count-scalar-copies"], hloscope.assert_budget,
         {"max_copies": 0, "count_scalar_copies": True}),
        (["--max-copy-bytes", "4096"], hloscope.assert_budget, {"max_copy_bytes": 4096}),
        (["--max-copies-in-loops", "0"], hloscope.assert_budget, {"max_copies_in_loops": 0}),
        (["--max-copy-bytes-in-loops", "0"], hloscope.assert_budget, {"max_copy_bytes_in_loops": 0}),
        (["--fail-on-out-of-place", "--fail-on-copies-in-loops", "--update", "no-such-update"],
         hloscope.assert_inplace, {"updates": ["no-such-update"]}),
    ]
    for u in report.updates[:2]:
        out.append((["--fail-on-out-of-place", "--fail-on-copies-in-loops", "--update", u.instruction],
                    hloscope.assert_inplace, {"updates": [u.instruction]}))
        if u.source is not None and u.source.line:
            spec = f"{os.path.basename(u.source.file)}:{u.source.line}"
            out.append((["--fail-on-out-of-place", "--fail-on-copies-in-loops", "--line", spec],
                        hloscope.assert_inplace, {"lines": [spec]}))
    return out


@pytest.mark.parametrize("hlo", fixture_inputs(), ids=lambda p: os.path.relpath(p, REPO))
def test_cli_gate_and_python_assertion_agree(hloscope_bin, hlo):
    report = hloscope.analyze(hlo)
    for flags, assertion, kwargs in gates(report):
        code, err = cli(hloscope_bin, hlo, flags)
        py_code, msg = python(report, assertion, **kwargs)
        assert code == py_code, f"{' '.join(flags)}: CLI exit {code}, {assertion.__name__}({kwargs}) " \
                                f"{'raised' if py_code else 'passed'}\n{err}\n{msg}"
        assert body(err) == body(msg), flags


def test_donated_fori_loop_passes_every_gate(hloscope_bin):
    """The scalar loop-counter copies of a correctly donated fori_loop break no gate."""
    hlo = os.path.join(REPO, "tests/fixtures/jax/loop_dus_donated/module.hlo.txt")
    report = hloscope.analyze(hlo)
    assert report.copies and all(c.is_scalar for c in report.copies)
    hloscope.assert_inplace(report)
    hloscope.assert_budget(report, max_copies=0, max_copy_bytes=0, max_copies_in_loops=0,
                           max_copy_bytes_in_loops=0)
    code, _ = cli(hloscope_bin, hlo, ["--fail-on-out-of-place", "--fail-on-copies-in-loops",
                                      "--fail-on-contradiction", "--max-copies", "0",
                                      "--max-copy-bytes", "0"])
    assert code == 0


def test_gate_json_carries_the_violations(hloscope_bin):
    hlo = os.path.join(REPO, "examples/dumps/replay_rollout.cpu_after_optimizations.txt")
    r = subprocess.run([hloscope_bin, "check", hlo, "--format", "json", "--fail-on-copies-in-loops"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    gate = json.loads(r.stdout)["gate"]
    assert gate["passed"] is False
    assert [v["kind"] for v in gate["violations"]] == ["copy-in-loop", "copy-in-loop"]
    assert [v["copy"]["instruction"] for v in gate["violations"]] == ["copy.7", "copy"]
