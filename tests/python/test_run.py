"""`hloscope run -- python prog.py` on a program of ~50 jitted functions, one of which
copies a replay buffer every step (tools/fixture_programs/run_demo.py): the summary
names it, its line and its bytes per call first; --fail exits 1 on it and 0 on the
fixed program; --warn warns while the program still runs; the program's output, exit
code and signals pass through; the dumps are removed or kept; the JSON validates."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import jsonschema
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "tools", "fixture_programs", "run_demo.py")


def run(hloscope_bin, tmp_path, *args, demo=("--small", "6"), opts=()):
    env = dict(os.environ, TMPDIR=str(tmp_path), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    return subprocess.run([hloscope_bin, "run", *opts, "--", sys.executable, DEMO, *demo, *args],
                          capture_output=True, text=True, env=env, timeout=600)


def summary_rows(stderr: str) -> list:
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("hloscope run: "))
    return lines[start:start + 8]


def test_the_summary_names_the_copying_function_first(hloscope_bin, tmp_path):
    r = run(hloscope_bin, tmp_path, demo=())  # all 48 small functions
    assert r.returncode == 0, r.stderr
    assert r.stdout == "trained\n"  # the program's own output passes through
    head = summary_rows(r.stderr)
    assert head[0].startswith("hloscope run: ") and " of 5" in head[0]  # ~50 functions
    first = head[3].split()
    assert first[0] == "replay_rollout"
    assert first[-1] == "fixture_programs/run_demo.py:30"
    assert "50.0 MiB" in head[3]  # 2 copies × 512 KiB × 50 steps per call
    # Then its full report.
    assert "── replay_rollout ((f32[2048,64], f32[50,64]) -> (f32[2048,64], f32[50]))" in r.stderr
    assert "cause: read-after-update" in r.stderr
    # The private dump folder is gone.
    assert not [p for p in os.listdir(tmp_path) if p.startswith("hloscope-run-")]


def test_fail_exits_1_on_the_copy_and_0_on_the_fixed_program(hloscope_bin, tmp_path):
    slow = run(hloscope_bin, tmp_path, opts=("--fail", "--min-bytes", "1048576"))
    assert slow.returncode == 1, slow.stderr
    assert ("hloscope run: failed: 1 compilation broke the gates copies-in-loops, not-in-place, full-rewrites, "
            "reshards-in-loops, counting findings of at least 1.0 MiB per call (--fail)") in slow.stderr
    fixed = run(hloscope_bin, tmp_path, "--fixed", opts=("--fail", "--min-bytes", "1048576"))
    assert fixed.returncode == 0, fixed.stderr
    assert "replay_rollout_fixed" in fixed.stderr


def test_warn_warns_while_the_program_runs(hloscope_bin, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("XLA_FLAGS", None)
    # One stream: the order of the warning and the program's own lines is kept.
    p = subprocess.run([hloscope_bin, "run", "--warn", "--min-bytes", "1048576", "--", sys.executable, DEMO,
                        "--small", "2", "--sleep", "1.5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=600)
    lines = p.stdout.splitlines()
    warning = next(i for i, line in enumerate(lines) if line.startswith("hloscope: warning: replay_rollout"))
    assert "fixture_programs/run_demo.py:30" in lines[warning]
    assert "25.0 MiB per call" in lines[warning]
    # The warning is promised whatever the load (a dump read half-written is read again, not
    # dropped), and before the summary; how soon it follows the compile depends on the scan
    # interval (100 ms) and the machine, so its place among the program's own lines is not
    # asserted (it failed once under load in CI).
    summary = next(i for i, line in enumerate(lines) if line.startswith("hloscope run: "))
    assert warning < summary, lines


def test_the_programs_exit_code_and_signal_pass_through(hloscope_bin, tmp_path):
    r = run(hloscope_bin, tmp_path, "--exit", "3", opts=("--fail",))
    assert r.returncode == 3
    assert "hloscope run: the program exited with 3; the summary covers what it compiled" in r.stderr
    assert "replay_rollout" in r.stderr
    k = run(hloscope_bin, tmp_path, "--kill")
    assert k.returncode == 128 + signal.SIGTERM
    assert f"killed by signal {int(signal.SIGTERM)}" in k.stderr
    assert "── replay_rollout" in k.stderr


def test_json_and_kept_dumps(hloscope_bin, tmp_path):
    out = tmp_path / "run.json"
    keep = tmp_path / "dumps"
    r = run(hloscope_bin, tmp_path, opts=("--json", str(out), "--keep-dumps", str(keep)))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    with open(os.path.join(ROOT, "docs", "schema", "run.schema.json")) as f:
        jsonschema.validate(doc, json.load(f))
    top = doc["functions"][0]
    assert top["function"] == "replay_rollout" and top["bytes_per_call"] == 50 * 2 * 2048 * 64 * 4
    assert top["growing_loops"] == 1 and top["problems"]
    assert doc["exit_code"] == 0 and doc["program"][-2:] == ["--small", "6"]
    dumps = os.listdir(keep)
    assert any(d.endswith("jit_replay_rollout.cpu_after_optimizations.txt") for d in dumps)
    assert all(c["buffer_assignment"] for c in doc["compilations"])
    # Each compilation's work per call is `check`'s cost of its dump, and the summary ranks it.
    rollout = next(c for c in doc["compilations"] if c["module"] == "jit_replay_rollout")
    dump = next(d for d in dumps if d.endswith("jit_replay_rollout.cpu_after_optimizations.txt"))
    checked = subprocess.run([hloscope_bin, "check", os.path.join(keep, dump), "--format", "json"],
                             capture_output=True, text=True)
    cost = json.loads(checked.stdout)["modules"][0]["cost"]
    for key in ("flops", "transcendentals", "bytes_accessed"):
        assert rollout["cost"][key] == cost["per_call"][key], key
    assert rollout["cost"]["estimated_seconds"] == pytest.approx(cost["per_call"]["estimated_seconds"])
    assert rollout["cost"]["bytes_accessed"] >= 2 * top["bytes_per_call"]  # its copies read and write
    assert "work per call, most estimated time first (a roofline estimate on" in r.stderr
    # A folder with dumps in it is refused: they would be counted.
    again = run(hloscope_bin, tmp_path, opts=("--keep-dumps", str(keep)))
    assert again.returncode == 2
    assert "is not empty: dumps of earlier runs would be counted" in again.stderr


def test_errors(hloscope_bin, tmp_path):
    r = subprocess.run([hloscope_bin, "run"], capture_output=True, text=True)
    assert r.returncode == 2 and "no program to run" in r.stderr
    r = subprocess.run([hloscope_bin, "run", "--", "no-such-program-hloscope"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.startswith("hloscope run: cannot run no-such-program-hloscope: No such file or directory")


def test_worker_processes_are_kept_apart_and_html_is_written(hloscope_bin, tmp_path):
    page = tmp_path / "worst.html"
    keep = tmp_path / "dumps"
    r = run(hloscope_bin, tmp_path, "--workers", "2", demo=("--small", "1"),
            opts=("--html", str(page), "--keep-dumps", str(keep)))
    assert r.returncode == 0, r.stderr
    # The main process and each worker compile the rollout as module N of
    # their own (the same module number in each process): every dump XLA
    # wrote is counted, none taken for another process's. XLA's truth is the
    # dump folder; on a loaded machine a worker's compile has been seen
    # missing from it (CI, once), so the count is checked against it.
    dumped = [f for f in os.listdir(keep) if "jit_replay_rollout" in f and f.endswith("after_optimizations.txt")]
    assert len(dumped) >= 2, sorted(os.listdir(keep))
    head = summary_rows(r.stderr)
    rollout = next(line for line in head if line.split() and line.split()[0] == "replay_rollout")
    assert rollout.split()[1] == str(len(dumped)), (head, dumped)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "jit_replay_rollout" in text and "<svg" in text


def test_python_dash_m_hloscope_is_the_cli():
    r = subprocess.run([sys.executable, "-m", "hloscope", "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().startswith("hloscope ")
    r = subprocess.run([sys.executable, "-m", "hloscope", "run"], capture_output=True, text=True)
    assert r.returncode == 2 and "no program to run" in r.stderr


def test_without_dumps_the_programs_python_writes_the_modules(hloscope_bin, tmp_path):
    # A sitecustomize of the user's own still runs; XLA is asked for no dumps.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys; sys.stderr.write('user sitecustomize ran\\n')\n")
    out = tmp_path / "run.json"
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(site))
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([hloscope_bin, "run", "--no-buffer-assignment", "--fail", "--min-bytes", "1048576",
                        "--json", str(out), "--", sys.executable, DEMO, "--small", "2", "--workers", "1"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("user sitecustomize ran") >= 2  # the program and its worker
    doc = json.loads(out.read_text())
    top = doc["functions"][0]
    assert top["function"] == "replay_rollout" and top["where"] == "fixture_programs/run_demo.py:30"
    assert top["bytes_per_call"] == 50 * 2 * 2048 * 64 * 4
    assert top["compilations"] == 2  # the main process and the worker
    assert not any(c["buffer_assignment"] for c in doc["compilations"])
    assert "verdicts unconfirmed" in r.stderr


@pytest.mark.parametrize("dumps", [True, False], ids=["dumps", "no_buffer_assignment"])
def test_raise_raises_in_the_compiling_call(hloscope_bin, tmp_path, dumps):
    opts = ("--raise", "--min-bytes", "1048576") + (() if dumps else ("--no-buffer-assignment",))
    slow = run(hloscope_bin, tmp_path, demo=("--small", "2"), opts=opts)
    assert slow.returncode == 1, slow.stderr
    # The program's own traceback: raised in the call that compiled the rollout.
    assert "sitecustomize.BudgetError: hloscope run --raise: replay_rollout (fixture_programs/run_demo.py:30): " \
           "copy in a loop: copy.7 f32[2048,64]{1,0} 512.0 KiB × 50 = 25.0 MiB per call" in slow.stderr
    assert "in timed" in slow.stderr and "rollout compiled" not in slow.stderr
    fixed = run(hloscope_bin, tmp_path, "--fixed", demo=("--small", "2"), opts=opts)
    assert fixed.returncode == 0, fixed.stderr
    assert "trained" in fixed.stdout


def test_the_users_own_eager_copy_gets_no_donation_hint(hloscope_bin, tmp_path):
    """`jnp.copy(x)` / `x.copy()` called eagerly compile to JAX's jit_copy: the copy is the result
    asked for. Telling the user to donate its argument (the hint before) would defeat it."""
    prog = tmp_path / "eager.py"
    prog.write_text("import jax.numpy as jnp\nx = jnp.ones((512, 512))\ny = jnp.copy(x)\nz = x.copy()\n"
                    "print(float(y[0, 0] + z[1, 1]))\n")
    env = dict(os.environ, TMPDIR=str(tmp_path), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([hloscope_bin, "run", "--fail", "--", sys.executable, str(prog)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "In all: 1 copy" in r.stderr
    assert "cause: output-passthrough — the program is JAX's eager copy" in r.stderr
    assert "hint:" not in r.stderr and "donate_arg" not in r.stderr


PROFILED = """
import jax, jax.numpy as jnp

@jax.jit
def step(w, x):
    return jnp.tanh(x @ w) @ w.T

w, x = jnp.ones((256, 256)), jnp.ones((64, 256))
for _ in range(4):
    x = step(w, x).block_until_ready()
print("done")
"""


def run_profiled(hloscope_bin, tmp_path, source):
    """`hloscope run --profile --json` on a program: the finished run and its JSON."""
    prog = tmp_path / "prog.py"
    prog.write_text(source)
    out = tmp_path / "run.json"
    env = dict(os.environ, TMPDIR=str(tmp_path), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([hloscope_bin, "run", "--profile", "--json", str(out), "--", sys.executable, str(prog)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    return r, json.loads(out.read_text())


def test_profile_measures_each_function_beside_the_estimate(hloscope_bin, tmp_path):
    """--profile: jax.profiler traces the program; each compilation's kernels are timed by name and the
    calls are counted from the trace (4 here); the summary puts the measured time beside the estimate."""
    r, doc = run_profiled(hloscope_bin, tmp_path, PROFILED)
    with open(os.path.join(ROOT, "docs", "schema", "run.schema.json")) as f:
        jsonschema.validate(doc, json.load(f))
    step = next(c for c in doc["compilations"] if c["module"] == "jit_step")
    assert step["cost"]["measured_calls"] == 4
    assert step["cost"]["measured_seconds"] > 0
    assert step["cost"]["flops"] >= 2 * (2 * 64 * 256 * 256)  # its two matmuls
    assert "measured (calls)" in r.stderr
    row = next(line for line in r.stderr.splitlines() if line.strip().startswith("step ") and "(4)" in line)
    assert "f32[256,256]" in row
    # Without --profile nothing is measured, and no profiler runs.
    out = tmp_path / "plain.json"
    plain = run(hloscope_bin, tmp_path, opts=("--json", str(out)))
    assert plain.returncode == 0, plain.stderr
    assert all(c["cost"]["measured_seconds"] is None for c in json.loads(out.read_text())["compilations"])
    assert "measured (calls)" not in plain.stderr


def test_profile_gives_way_to_the_programs_own_trace(hloscope_bin, tmp_path):
    """A program that traces itself keeps working: its trace() ends hloscope's (one trace at a time);
    the calls before it are measured, and its own trace is written where it asked."""
    own = tmp_path / "own"
    r, doc = run_profiled(hloscope_bin, tmp_path, PROFILED.replace('print("done")', f"""
with jax.profiler.trace({str(own)!r}):
    x = step(w, x).block_until_ready()
print("done")
"""))
    assert "Traceback" not in r.stderr
    assert any(name.endswith(".trace.json.gz") for _, _, files in os.walk(own) for name in files)
    step = next(c for c in doc["compilations"] if c["module"] == "jit_step")
    assert step["cost"]["measured_calls"] == 4  # the loop's 4 calls, before the program's own trace
