#!/usr/bin/env python3
"""Time the sharded loop programs at N and 4N on 8 XLA:CPU host devices: does the cost of a
call grow with the buffer (or cache, or sequence) it carries?

For every program of tools/sharded_programs/ that has a loop, this compiles it at its size N
and at 4N (the same jit, shardings and donation as tools/gen_sharded_fixtures.py), runs each
once to warm up and then `--repeats` times (fresh donated arguments before every call, not
timed), and reports the median wall time per call and t(4N)/t(N). `grows` is ratio >= 2.5: the
per-call cost scales with the buffer (a 4x larger buffer costs at least 2.5x). Alongside, the
collective bytes per call that tools/collective_oracle.py reads from the compiled HLO at both
sizes.

    python3 bench/sharded_growth_bench.py [--repeats 11] [--only NAME ...] [--out FILE]

Writes tests/fixtures/sharded-cpu/growth.json (default) with
    {"programs": {name: {t_n, t_4n, ratio, grows, ...}}, "machine": ...}
The host devices share this machine's cores (2 here), so absolute times are noisy and only the
ratio at one size pair is meant; medians of 11 runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS_DIR = os.path.join(REPO_ROOT, "tools")
DEVICES = 8
DEFAULT_OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "sharded-cpu", "growth.json")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--base-scale", type=int, default=1,
                    help="time at K*N and 4*K*N instead (a bigger signal over the call overhead)")
    opts = ap.parse_args(argv)

    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
    sys.path.insert(0, TOOLS_DIR)
    import jax
    import numpy as np
    from jax.sharding import Mesh

    import collective_oracle
    import gen_sharded_fixtures as gen
    import sharded_programs
    from sharded_programs._common import concrete

    registry = sharded_programs.load_all()
    names = [n for n, p in registry.items() if p.loop and not p.missing()]
    if opts.only:
        names = [n for n in names if n in set(opts.only)]
    devices = jax.devices()[:DEVICES]

    def build(prog, n):
        mesh = Mesh(np.array(devices).reshape(prog.mesh_shape(len(devices))), prog.axis_names())
        built = prog.factory(mesh, n)
        inner = built.fn

        def named(*a):
            return inner(*a)
        named.__name__ = named.__qualname__ = prog.name
        jitted, _ = gen._jit(jax, prog, built, named)
        compiled = jitted.lower(*built.args).compile()
        report = collective_oracle.analyze(compiled.as_text())
        sent = sum(t["bytes_sent_per_call"] for t in report["totals"].values())
        return compiled, built.args, sent

    def time_calls(compiled, abstract):
        out = compiled(*jax.tree.map(concrete, abstract))   # warm-up
        jax.block_until_ready(out)
        times = []
        for _ in range(opts.repeats):
            args = jax.tree.map(concrete, abstract)
            jax.block_until_ready(args)
            t0 = time.perf_counter()
            out = compiled(*args)
            jax.block_until_ready(out)
            times.append(time.perf_counter() - t0)
            del out, args
        return statistics.median(times), times

    results = {}
    t_all = time.time()
    print(f"{'program':32s} {'N':>6s} {'t(N) ms':>9s} {'t(4N) ms':>9s} {'ratio':>6s}  grows  "
          f"coll. bytes/call N -> 4N", file=sys.stderr)
    for name in names:
        prog = registry[name]
        n = prog.n * opts.base_scale
        c1, a1, s1 = build(prog, n)
        c4, a4, s4 = build(prog, 4 * n)
        t1, all1 = time_calls(c1, a1)
        t4, all4 = time_calls(c4, a4)
        ratio = t4 / t1
        results[name] = {
            "n": n, "size_meaning": prog.size_meaning,
            "t_n": round(t1, 6), "t_4n": round(t4, 6), "ratio": round(ratio, 3),
            "grows": ratio >= 2.5,
            "collective_bytes_sent_per_call_n": s1, "collective_bytes_sent_per_call_4n": s4,
            "times_n": [round(t, 6) for t in all1], "times_4n": [round(t, 6) for t in all4],
        }
        print(f"{name:32s} {n:6d} {t1 * 1e3:9.3f} {t4 * 1e3:9.3f} {ratio:6.2f}  "
              f"{'yes' if ratio >= 2.5 else 'no ':5s}  {s1} -> {s4}", file=sys.stderr)
        del c1, c4
    elapsed = time.time() - t_all
    doc = {
        "generated_by": "bench/sharded_growth_bench.py",
        "threshold": "grows: t(4N)/t(N) >= 2.5",
        "repeats": opts.repeats,
        "base_scale": opts.base_scale,
        "statistic": "median wall time per call (s), fresh donated arguments before each call",
        "machine": {
            "note": (f"{DEVICES} XLA:CPU host devices (--xla_force_host_platform_device_count) "
                     f"sharing {os.cpu_count()} cores of a shared VM: times are noisy, ratios are "
                     f"the point"),
            "cpu": _cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
            "jax_version": jax.__version__,
        },
        "elapsed_s": round(elapsed, 1),
        "programs": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(opts.out)), exist_ok=True)
    with open(opts.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"sharded_growth_bench: {len(results)} programs in {elapsed:.0f}s -> {opts.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
