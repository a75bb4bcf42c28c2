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
    jax.clear_caches()
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


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

    t_jax, t_inspect, t_dump, t_analysis = [], [], [], []
    report = None
    for _ in range(opts.repeats):
        t, _ = timed(lambda: fn.lower(*args).compile())
        t_jax.append(t)
        t, report = timed(lambda: hloscope.inspect(fn, *args))
        t_inspect.append(t)
        # Split: lower + compile with the dump (no analysis), then hloscope's own work.
        with tempfile.TemporaryDirectory(prefix="hloscope-bench-") as tmp:
            t, _ = timed(lambda: fn.lower(*args).compile(compiler_options={"xla_dump_to": tmp}))
            t_dump.append(t)
            hlo_path, ba_path = _api._find_dump(tmp)
            t0 = time.perf_counter()
            hlo, ba = _api._read_text(hlo_path), _api._read_text(ba_path)
            r = _api._text_report(hlo, os.path.basename(hlo_path), ba,
                                  os.path.basename(ba_path))
            t_analysis.append(time.perf_counter() - t0)
            assert len(r.updates) == len(report.updates)

    med = statistics.median
    j, i, d, a = med(t_jax), med(t_inspect), med(t_dump), med(t_analysis)
    print(f"runs: {opts.repeats} each, medians; JAX caches cleared before every run")
    print(f"  jax lower+compile                      {j * 1e3:9.1f} ms   "
          f"(runs: {', '.join(f'{x * 1e3:.0f}' for x in t_jax)})")
    print(f"  hloscope.inspect total                 {i * 1e3:9.1f} ms   "
          f"(runs: {', '.join(f'{x * 1e3:.0f}' for x in t_inspect)})")
    print(f"    of which lower+compile with dump     {d * 1e3:9.1f} ms   (dump: {(d - j) * 1e3:+.1f} ms)")
    print(f"    of which read+parse+check+Report     {a * 1e3:9.1f} ms")
    t0 = time.perf_counter()
    n_fusions = len(report.fusions)  # listed on first access, not part of inspect()
    t_fusions = time.perf_counter() - t0
    print(f"  first access of report.fusions          {t_fusions * 1e3:9.1f} ms   "
          f"({n_fusions} fusions; not part of inspect())")
    print(f"  report: {len(report.updates)} updates, {len(report.copies)} copies; "
          f"{report.modules[0].headline}")
    print(f"ratio inspect / jax = {i / j:.3f}  (overhead {100 * (i / j - 1):+.1f} %; "
          f"hloscope's own work {100 * a / j:.1f} %, XLA's dump {100 * (d - j) / j:+.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
