#!/usr/bin/env python3
"""hloscope.scaling(measure=True) on the ring buffer, slow and fixed (issue: compare two compilations).

    python3 bench/scaling_bench.py [--rows 4096] [--repeats 7]

Compiles tools/fixture_programs/ring_buffer.py's rollout_slow and rollout_fixed
at rows, 2*rows and 4*rows, times each (median of --repeats calls after
warm-up), and prints the fitted exponents of the time per call and of each
growing finding's bytes. Expected: time exponent near 1 for the slow version
(it copies the ring every step), near 0 for the fixed one; the slow version's
growth explained by the ring's copies, the fixed one with nothing growing.
"""
import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import hloscope  # noqa: E402
from fixture_programs import ring_buffer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--features", type=int, default=128)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    sizes = (args.rows, 2 * args.rows, 4 * args.rows)
    obs = jnp.ones((args.steps, args.features), jnp.float32)

    def make(n):
        return jnp.zeros((n, args.features), jnp.float32), obs

    print(f"jax {jax.__version__}, sizes {sizes} rows × {args.features} f32, {args.steps} steps, "
          f"median of {args.repeats}")
    for name in ("rollout_slow", "rollout_fixed"):
        fn = jax.jit(getattr(ring_buffer, name), donate_argnums=0)
        r = hloscope.scaling(fn, make, sizes, measure=True, repeats=args.repeats, progress=False)
        times = ", ".join(f"{t * 1e3:.3g} ms" for t in r.times)
        print(f"{name}: time per call {times}; time exponent {r.time_exponent:.2f}; "
              f"{len(r.growing)} growing findings")
        print(f"  {r.verdict}")


if __name__ == "__main__":
    main()
