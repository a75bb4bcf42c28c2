#!/usr/bin/env python3
"""How much hloscope.inspect() adds to JAX's own compile time.

Builds an unrolled MLP (one layer = matmul + bias + tanh; with --updates each
activation is also written into a donated buffer with .at[i].set) whose
optimized HLO has about --instructions instructions, then measures, with
JAX's caches cleared before every run and the two interleaved:

  jax      jax.jit(f).lower(*args).compile()                  JAX's own time
  inspect  hloscope.inspect(jax.jit(f), *args)                lower + compile with
           xla_dump_to + read the dump + parse + check + Report

and prints the medians and the ratio. It also splits inspect's extra time into
XLA writing the dump and hloscope's own work (reading, parsing, checking,
building the Report).

    python3 python/bench_inspect_overhead.py [--instructions 5000] [--repeats 5] [--updates]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Use the installed package, not the source folder next to this script (it has no extension).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import hloscope  # noqa: E402
from hloscope import _api  # noqa: E402


def make_program(layers: int, width: int = 32, batch: int = 8, updates: bool = False):
    def mlp(params, x, acts):
        for i, (w, b) in enumerate(params):
            x = jnp.tanh(x @ w + b)
            if updates:
                acts = acts.at[i].set(x)
        return x, acts

    params = [(jnp.full((width, width), 0.01, jnp.float32), jnp.zeros((width,), jnp.float32))
              for _ in range(layers)]
    x = jnp.ones((batch, width), jnp.float32)
    acts = jnp.zeros((layers, batch, width), jnp.float32)
    return jax.jit(mlp, donate_argnums=2), (params, x, acts)


def count_instructions(hlo_text: str) -> int:
    return len(re.findall(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s", hlo_text, re.M))


def layers_for(instructions: int, updates: bool) -> "tuple[int, int]":
    """Layers giving about `instructions` instructions (instructions per layer measured)."""
    probe = 20
    fn, args = make_program(probe, updates=updates)
    n = count_instructions(fn.lower(*args).compile().as_text())
    per_layer = n / probe
    layers = max(1, round(instructions / per_layer))
    fn, args = make_program(layers, updates=updates)
    return layers, count_instructions(fn.lower(*args).compile().as_text())


def timed(f):
    """(wall seconds, CPU seconds of this process, result), JAX's caches cleared first."""
    jax.clear_caches()
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return time.perf_counter() - w, time.process_time() - c, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instructions", type=int, default=5000,
                    help="approximate size of the optimized module (default 5000)")
    ap.add_argument("--repeats", type=int, default=5, help="runs of each measurement (median)")
    ap.add_argument("--updates", action="store_true",
                    help="write every layer's activation into a buffer (.at[i].set)")
    opts = ap.parse_args(argv)

    layers, n_instr = layers_for(opts.instructions, opts.updates)
    fn, args = make_program(layers, updates=opts.updates)
    print(f"program: unrolled MLP{' with updates' if opts.updates else ''}, {layers} layers, {n_instr} instructions in the optimized "
          f"HLO (jax {jax.__version__}, {jax.default_backend()})")

    # Warm up both paths once (imports, first-use costs in XLA and hloscope).
    timed(lambda: fn.lower(*args).compile())
    timed(lambda: hloscope.inspect(fn, *args))

    runs = {k: ([], []) for k in ("jax", "inspect", "dump", "own")}

    def add(key, wall, cpu):
        runs[key][0].append(wall)
        runs[key][1].append(cpu)

    def run_jax():
        w, c, _ = timed(lambda: fn.lower(*args).compile())
        add("jax", w, c)

    def run_inspect():
        nonlocal report
        w, c, report = timed(lambda: hloscope.inspect(fn, *args))
        add("inspect", w, c)

    def run_split():
        # lower + compile with the dump (as inspect does), then hloscope's own work
        with tempfile.TemporaryDirectory(prefix="hloscope-bench-") as tmp:
            w, c, _ = timed(lambda: _api._compile_with_dump(fn.lower(*args), tmp))
            add("dump", w, c)
            w0, c0 = time.perf_counter(), time.process_time()
            hlo_path, ba_path = _api._find_dump(tmp)
            hlo, ba = _api._read_text(hlo_path), _api._read_text(ba_path)
            _api._text_report(hlo, os.path.basename(hlo_path), ba, os.path.basename(ba_path))
            add("own", time.perf_counter() - w0, time.process_time() - c0)

    report = None
    order = [run_jax, run_inspect, run_split]
    for i in range(opts.repeats):
        for f in order[i % 3:] + order[:i % 3]:  # rotate, so no measurement always goes first
            f()

    med = statistics.median
    print(f"runs: {opts.repeats} of each, interleaved (rotating order), JAX's caches cleared before every run; "
          f"medians in ms, wall-clock and CPU time of this process")
    print(f"  {'':40} {'wall':>9} {'cpu':>9}")
    labels = {"jax": "jax lower+compile", "inspect": "hloscope.inspect total",
              "dump": "  lower+compile with the dump", "own": "  read+parse+check+Report"}
    for key, label in labels.items():
        wall, cpu = runs[key]
        print(f"  {label:40} {med(wall) * 1e3:9.1f} {med(cpu) * 1e3:9.1f}   "
              f"(wall runs: {', '.join(f'{x * 1e3:.0f}' for x in wall)})")
    t0 = time.perf_counter()
    n_fusions = len(report.fusions)  # listed on first access, not part of inspect()
    print(f"  {'first access of report.fusions':40} {(time.perf_counter() - t0) * 1e3:9.1f}"
          f"             ({n_fusions} fusions; not part of inspect())")
    print(f"  report: {len(report.updates)} updates, {len(report.copies)} copies; "
          f"{report.modules[0].headline}")
    for i, kind in ((0, "wall"), (1, "cpu ")):
        j, ins, d, own = (med(runs[k][i]) for k in ("jax", "inspect", "dump", "own"))
        print(f"ratio inspect / jax ({kind}) = {ins / j:.3f}  (overhead {100 * (ins / j - 1):+.1f} %; "
              f"XLA's dump {100 * (d - j) / j:+.1f} %, hloscope's own work {100 * own / j:.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
