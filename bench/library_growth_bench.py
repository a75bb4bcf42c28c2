#!/usr/bin/env python3
"""Does the time per step grow with the buffer where hloscope says a loop "grows with buffer size"?

Run with the library venv (tools/gen_library_fixtures.py has the pip recipe):

    HLOSCOPE_BIN=build/dev/src/hloscope /work/libvenv/bin/python bench/library_growth_bench.py \
        [--only NAME ...] [--scale 4] [--repeats 15] [--json out.json]

For every workload of tools/library_programs/: compile at its base size N and at
scale*N on CPU (dumping the optimized HLO and XLA's buffer assignment), run
`hloscope check --format json` on each dump, and time the compiled executable
(fresh arguments every call, so donation is honoured; median over --repeats
after 2 warm-up calls).  Workloads whose work per call is fixed while the
buffer grows are compared per call; those whose number of steps/samples grows
with N are compared per unit of work (time / N).

Verdict: flat time and no loop flagged -> OK; growing time and a flagged loop
-> OK; anything else -> MISMATCH (hloscope's flag and the clock disagree).
"growing" means the per-unit time ratio t(scale*N)/t(N) is above --grow
(default 1.8 for scale 4); between --flat (1.4) and --grow it is "unclear".
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.pop("XLA_FLAGS", None)


def hloscope_bin(explicit):
    b = explicit or os.environ.get("HLOSCOPE_BIN") or os.path.join(REPO, "build", "dev", "src", "hloscope")
    if not os.path.isfile(b):
        sys.exit(f"library_growth_bench: no hloscope binary at {b} (set HLOSCOPE_BIN)")
    # A private copy: a rebuild during the run changes nothing.
    priv = os.path.join(tempfile.mkdtemp(prefix="hloscope-bench-"), "hloscope")
    shutil.copy2(b, priv)
    return priv


def check(binary, hlo):
    out = subprocess.run([binary, "check", hlo, "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"hloscope check failed ({out.returncode}): {out.stderr.strip()[:400]}")
    return json.loads(out.stdout)["modules"][0]


def fresh(args, static):
    """New device arrays for every array leaf (donated buffers are consumed by a call)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def leaf(x):
        if hasattr(x, "dtype") and hasattr(x, "shape"):
            return jnp.array(np.asarray(x), copy=True)
        return x
    return tuple(a if i in static else jax.tree.map(leaf, a) for i, a in enumerate(args))


def block(out):
    import jax
    for x in jax.tree.leaves(out):
        if hasattr(x, "block_until_ready"):
            x.block_until_ready()


def measure(w, size, binary, repeats):
    import jax
    import numpy as np
    import gen_library_fixtures as gen
    args = w.make_args(size)
    host = jax.tree.map(lambda x: np.asarray(x) if hasattr(x, "dtype") else x, args)
    with tempfile.TemporaryDirectory(prefix=f"bench-{w.name}-") as tmp:
        t0 = time.perf_counter()
        compiled, _ = w.compile(args, {"xla_dump_to": tmp})
        t_compile = time.perf_counter() - t0
        hlo = gen.find_module_dump(tmp, w.name, ".txt")
        module = check(binary, hlo)
    static = set(w.static_argnums)
    times = []
    for r in range(repeats + 2):
        call_args = w.dynamic_args(fresh(host, static))
        block(call_args)
        t0 = time.perf_counter()
        block(compiled(*call_args))
        dt = time.perf_counter() - t0
        if r >= 2:
            times.append(dt)
    loops = module["loops"]
    flagged = [l["instruction"] for l in loops if l["scales_with_buffer"]]
    copy_iter = sum((l["copy_bytes_per_iteration"] or 0) for l in loops if not l["enclosing_loops"])
    copies = [c for c in module["copies"] if not c["scalar"]]
    return {"size": size, "median_s": statistics.median(times), "min_s": min(times), "compile_s": t_compile,
            "units": w.work_units(size), "flagged": flagged, "loops": len(loops),
            "copy_bytes_per_iteration": copy_iter, "nonscalar_copies": len(copies),
            "copy_bytes_per_call": sum((c["total_bytes"] or 0) for c in copies)}


def fmt_t(s):
    return f"{s * 1e3:8.2f}ms" if s >= 1e-3 else f"{s * 1e6:7.1f}µs"


def human(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.0f}{unit}" if unit == "B" else f"{b:.1f}{unit}"
        b /= 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hloscope")
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--grow", type=float, default=1.8)
    ap.add_argument("--flat", type=float, default=1.4)
    ap.add_argument("--json")
    opts = ap.parse_args(argv)
    binary = hloscope_bin(opts.hloscope)
    import jax  # noqa: F401
    import library_programs
    registry = library_programs.load_all()
    names = sorted(opts.only or registry)
    rows = []
    for name in names:
        w = registry[name]
        try:
            a = measure(w, w.base_size, binary, opts.repeats)
            b = measure(w, w.base_size * opts.scale, binary, opts.repeats)
        except Exception as e:
            print(f"{name}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
            rows.append({"name": name, "error": str(e)})
            continue
        ratio = (b["median_s"] / b["units"]) / (a["median_s"] / a["units"])
        growing = ratio > opts.grow
        flat = ratio < opts.flat
        flagged = bool(a["flagged"])
        if (flat and not flagged) or (growing and flagged):
            verdict = "OK"
        elif not flat and not growing:
            verdict = "unclear"
        else:
            verdict = "MISMATCH"
        if (w.expect == "grows") != growing and verdict == "OK":
            verdict += " (not as designed)"
        row = {"name": name, "library": w.library, "version": w.library_version, "per": "call"
               if w.work_units(2) == 1 else "unit", "N": a, "4N": b, "ratio": ratio, "verdict": verdict,
               "expect": w.expect}
        rows.append(row)
        print(f"{name:28s} {fmt_t(a['median_s'])} -> {fmt_t(b['median_s'])} ratio {ratio:5.2f} "
              f"flagged {a['flagged']} {verdict}", file=sys.stderr, flush=True)

    print()
    print(f"{'workload':28s} {'library':18s} {'N':>6s} {'t(N)':>10s} {'t(%dN)' % opts.scale:>10s} "
          f"{'per':4s} {'ratio':>6s} {'loops flagged at N':28s} {'copy B/iter N->%dN' % opts.scale:22s} verdict")
    for r in rows:
        if "error" in r:
            print(f"{r['name']:28s} ERROR {r['error'][:80]}")
            continue
        a, b = r["N"], r["4N"]
        fl = ",".join(a["flagged"]) or "-"
        if a["flagged"] != b["flagged"]:
            fl += f" (at {opts.scale}N: {','.join(b['flagged']) or '-'})"
        cb = f"{human(a['copy_bytes_per_iteration'])}->{human(b['copy_bytes_per_iteration'])}"
        print(f"{r['name']:28s} {r['library'] + '==' + r['version']:18s} {a['size']:6d} {fmt_t(a['median_s']):>10s} "
              f"{fmt_t(b['median_s']):>10s} {r['per']:4s} {r['ratio']:6.2f} {fl:28s} {cb:22s} {r['verdict']}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
