#!/usr/bin/env python3
"""What `hloscope run` adds to a program's compile time (issue: < 10 %).

    python3 bench/run_overhead.py [--repeats 3] [--hloscope build/dev/src/hloscope]

Runs tools/fixture_programs/run_demo.py (~50 jitted functions, 107 compilations)
three ways, alternated, `--repeats` times each:

    plain   python run_demo.py
    dumps   the same with XLA_FLAGS=--xla_dump_to=DIR (what XLA's own dumping costs)
    run     hloscope run -- python run_demo.py (dumping + checking every module)
    fast    hloscope run --no-buffer-assignment: no dumps; the program's Python writes each
            module's HLO from its executable, hloscope checks it (verdicts unconfirmed)
    watch   the program under hloscope.watch(buffer_assignment=False), in its own process

and prints the median wall time of each and the overhead as a share of the program's
compile time (the demo prints its own: its first calls beyond its second calls):

    run overhead   = (run - plain) / compile_seconds
    of which XLA's = (dumps - plain) / compile_seconds
    hloscope's own = (run - dumps) / compile_seconds
    fast overhead  = (fast - plain) / compile_seconds
    watch overhead = (watch - plain) / compile_seconds

Steps that do not compile cost nothing extra: hloscope only reads the dump folder,
every 100 ms, in its own process (the demo's second calls, timed by it, show that).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from hloscope_bin import find_hloscope_bin  # noqa: E402

DEMO = os.path.join(ROOT, "tools", "fixture_programs", "run_demo.py")


def once(kind: str, hloscope: str) -> "tuple[float, float]":
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, DEMO]
        if kind == "dumps":
            env["XLA_FLAGS"] = f"--xla_dump_to={d}"
        if kind == "run":
            cmd = [hloscope, "run", "--reports", "0", "--", *cmd]
        if kind == "fast":
            cmd = [hloscope, "run", "--no-buffer-assignment", "--reports", "0", "--", *cmd]
        if kind == "watch":
            cmd = [sys.executable, "-c",
                   "import runpy, sys, hloscope; w = hloscope.watch(buffer_assignment=False); "
                   f"sys.argv = [{DEMO!r}]; runpy.run_path({DEMO!r}, run_name='__main__')"]
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if r.returncode != 0:
            raise SystemExit(f"{kind} failed ({r.returncode}): {r.stderr[-2000:]}")
        wall = time.perf_counter() - t
    compile_seconds = float(re.search(r"compile_seconds=([0-9.]+)", r.stderr).group(1))
    return wall, compile_seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hloscope", default=find_hloscope_bin())
    args = ap.parse_args()
    walls = {"plain": [], "dumps": [], "run": [], "fast": [], "watch": []}
    compiles = []
    for i in range(args.repeats):
        for kind in walls:
            wall, comp = once(kind, args.hloscope)
            walls[kind].append(wall)
            if kind == "plain":
                compiles.append(comp)
            print(f"  repeat {i + 1} {kind:<5} {wall:6.2f} s (compile {comp:.2f} s)", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in walls.items()}
    comp = statistics.median(compiles)
    print(f"median wall: plain {med['plain']:.2f} s, dumps {med['dumps']:.2f} s, run {med['run']:.2f} s, "
          f"fast {med['fast']:.2f} s, watch {med['watch']:.2f} s; the program's compile time {comp:.2f} s")
    print(f"run overhead   {100 * (med['run'] - med['plain']) / comp:+.1f} % of compile time")
    print(f"of which XLA's {100 * (med['dumps'] - med['plain']) / comp:+.1f} % (writing the dumps)")
    print(f"hloscope's own {100 * (med['run'] - med['dumps']) / comp:+.1f} % (checking 107 modules)")
    print(f"fast overhead  {100 * (med['fast'] - med['plain']) / comp:+.1f} % "
          "(run --no-buffer-assignment: no dumps, verdicts unconfirmed)")
    print(f"watch overhead {100 * (med['watch'] - med['plain']) / comp:+.1f} % "
          "(watch(buffer_assignment=False): no dumps, verdicts unconfirmed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
