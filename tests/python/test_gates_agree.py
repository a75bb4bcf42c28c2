"""One verdict through every door: the gate policy (analysis/policy.h) judges a module the
same whichever way it is asked.

For every fixture module, the default gates (`--fail`) are asked through

* `hloscope check FILE --fail` (exit 1 or 0),
* `hloscope run --fail -- python3 dump_fixture.py FILE` (the program "compiles" the fixture:
  it writes it, with its buffer assignment, where XLA would dump; run checks it as it appears),
* `hloscope diff EMPTY FILE --fail`, EMPTY a check document with no module (every finding of
  FILE is new), and Python's hloscope.diff(EMPTY, report, fail_on="default"),
* hloscope.watch(raise_on="default") — the very method a watched compile runs — and
* hloscope.assert_inplace(report),

and all six must agree. The finer gates (budgets, selections, the minor-copy filter) are
compared between the CLI and the Python assertions, message for message.
"""

import glob
import json
import os
import subprocess
import sys

import pytest

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A program that "compiles" one fixture: it writes the module and its buffer assignment
# where hloscope run told XLA to dump (XLA_FLAGS=--xla_dump_to=DIR), with XLA's names.
DUMP_FIXTURE = r'''
import os, re, shutil, sys
hlo = sys.argv[1]
m = re.search(r'--xla_dump_to=(?:"([^"]*)"|(\S+))', os.environ["XLA_FLAGS"])  # XLA's quoting
folder = m.group(1) if m.group(1) is not None else m.group(2)
os.makedirs(folder, exist_ok=True)
base = os.path.join(folder, "module_0001.jit_fixture.cpu_after_optimizations")
ba = os.path.join(os.path.dirname(hlo), "buffer-assignment.txt")
if os.path.exists(ba):
    shutil.copy(ba, base + "-buffer-assignment.txt")
shutil.copy(hlo, base + ".txt")
'''

EMPTY = {"schema_version": hloscope.JSON_SCHEMA_VERSION, "tool": "hloscope", "command": "check", "modules": []}


def fixture_inputs():
    files = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax/*/module.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax-cpu.jax0.12.0.1/*/module.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/difftest/*/module.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax-libs/*/module.hlo.txt")))
    files += [os.path.join(REPO, "examples/dumps/replay_rollout.cpu_after_optimizations.txt")]
    # Sharded compiles: the collective gate (reshards-in-loops) through every door too.
    for name in ("sharded-tpu-v5e/replay_buffer_at_set", "sharded-tpu-v5e/replay_buffer_dus",
                 "sharded-tpu-v4/replay_buffer_sample", "sharded-tpu-v5e/kv_decode_seq_at_set",
                 "sharded-cpu/reshard_carry_loop", "sharded-cpu/ring_ppermute", "sharded-cpu/replay_buffer_sample",
                 "sharded-cpu/moe_all_to_all", "sharded-gpu-h100/fsdp_train_step_gspmd"):
        files.append(os.path.join(REPO, "tests/fixtures", name, "module.hlo.txt"))
    return files


@pytest.fixture(scope="module")
def doors(tmp_path_factory):
    d = tmp_path_factory.mktemp("doors")
    (d / "dump_fixture.py").write_text(DUMP_FIXTURE)
    (d / "empty.json").write_text(json.dumps(EMPTY))
    return d


def exit_code(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode in (0, 1), f"{' '.join(cmd)}\n{r.stderr}"
    return r.returncode


def watch_verdict(report):
    # The method a watched compile calls with the module XLA just compiled.
    w = hloscope._watch.Watcher("default", False, hloscope._options.finding_filter(), None,
                                buffer_assignment=False)
    try:
        w._checked("fixture", report)
    except hloscope.BudgetError:
        return 1
    return 0


def assertion_verdict(report):
    try:
        hloscope.assert_inplace(report)
    except AssertionError:
        return 1
    return 0


@pytest.mark.parametrize("hlo", fixture_inputs(), ids=lambda p: os.path.relpath(p, REPO))
def test_every_door_gives_the_same_verdict(hloscope_bin, doors, hlo):
    report = hloscope.analyze(hlo)
    verdicts = {
        "check --fail": exit_code([hloscope_bin, "check", hlo, "--fail"]),
        "run --fail": exit_code([hloscope_bin, "run", "--fail", "--", sys.executable,
                                 str(doors / "dump_fixture.py"), hlo]),
        "diff EMPTY --fail": exit_code([hloscope_bin, "diff", str(doors / "empty.json"), hlo, "--fail"]),
        "hloscope.diff": int(bool(hloscope.diff(json.dumps(EMPTY), report, fail_on="default").regressions)),
        "watch(raise_on=default)": watch_verdict(report),
        "assert_inplace": assertion_verdict(report),
    }
    assert len(set(verdicts.values())) == 1, verdicts


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
        (["--fail"], hloscope.assert_inplace, {}),
        (["--fail-on", "strict"], hloscope.assert_inplace, {"gates": "strict"}),
        (["--fail", "--include-minor"], hloscope.assert_inplace, {"include_minor": True}),
        (["--fail", "--min-bytes", "4096"], hloscope.assert_inplace, {"min_bytes": 4096}),
        (["--max-copies", "0"], hloscope.assert_budget, {"max_copies": 0}),
        (["--max-copies", "0", "--include-minor"], hloscope.assert_budget,
         {"max_copies": 0, "include_minor": True}),
        (["--max-copy-bytes", "4096"], hloscope.assert_budget, {"max_copy_bytes": 4096}),
        (["--max-copies-in-loops", "0"], hloscope.assert_budget, {"max_copies_in_loops": 0}),
        (["--max-copy-bytes-in-loops", "0"], hloscope.assert_budget, {"max_copy_bytes_in_loops": 0}),
        (["--fail", "--update", "no-such-update"], hloscope.assert_inplace, {"updates": ["no-such-update"]}),
    ]
    for u in report.updates[:2]:
        out.append((["--fail-on", "strict", "--update", u.instruction], hloscope.assert_inplace,
                    {"updates": [u.instruction], "gates": "strict"}))
        if u.source is not None and u.source.line:
            spec = f"{os.path.basename(u.source.file)}:{u.source.line}"
            out.append((["--fail", "--line", spec], hloscope.assert_inplace, {"lines": [spec]}))
    return out


@pytest.mark.parametrize("hlo", fixture_inputs()[:40] + fixture_inputs()[-30:],
                         ids=lambda p: os.path.relpath(p, REPO))
def test_cli_gate_and_python_assertion_agree(hloscope_bin, hlo):
    report = hloscope.analyze(hlo)
    for flags, assertion, kwargs in gates(report):
        code, err = cli(hloscope_bin, hlo, flags)
        py_code, msg = python(report, assertion, **kwargs)
        assert code == py_code, f"{' '.join(flags)}: CLI exit {code}, {assertion.__name__}({kwargs}) " \
                                f"{'raised' if py_code else 'passed'}\n{err}\n{msg}"
        assert body(err) == body(msg), flags
