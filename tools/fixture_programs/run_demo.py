"""A program of ~50 jitted functions, one of which copies a buffer every step: what
`hloscope run` is tested and benchmarked on (tests/python/test_run.py,
bench/run_overhead.py).

    python3 tools/fixture_programs/run_demo.py [--fixed] [--exit N] [--kill] [--sleep S]

`replay_rollout` writes one row of a replay buffer per step and reads the replaced
row from the *old* buffer (XLA copies the buffer every step); `--fixed` carries the
row instead. The 48 small functions are the rest of a program: feature transforms,
losses, metrics, each compiled for two shapes. Prints "compile_seconds=X" (the time
its first calls took beyond their second calls: what compiling cost) on stderr.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

import jax
import jax.numpy as jnp

ROWS, FEATURES, STEPS = 2048, 64, 50


def replay_rollout(buf, obs):
    def step(carry, x):
        buf, ptr = carry
        new_buf = buf.at[ptr].set(x)           # write this step's row
        old = buf[ptr]                          # ...then read the row it replaced
        return (new_buf, (ptr + 1) % ROWS), old.sum()
    (buf, _), sums = jax.lax.scan(step, (buf, 0), obs)
    return buf, sums


def replay_rollout_fixed(buf, obs):
    def step(carry, x):
        buf, ptr, old = carry
        new_buf = buf.at[ptr].set(x)
        nxt = (ptr + 1) % ROWS
        return (new_buf, nxt, new_buf[nxt]), old.sum()
    (buf, _, _), sums = jax.lax.scan(step, (buf, 0, buf[0]), obs)
    return buf, sums


def make_small(k: int):
    kinds = [
        lambda x: jnp.tanh(x * (k + 1)) + k,
        lambda x: jnp.mean((x - k) ** 2),
        lambda x: jnp.cumsum(x, axis=-1) / (k + 1),
        lambda x: jax.nn.softmax(x * 0.1 * (k + 1), axis=-1),
        lambda x: jnp.sort(x, axis=-1)[..., ::-1] + k,
        lambda x: x @ x.T if x.ndim == 2 else jnp.outer(x, x),
    ]
    fn = kinds[k % len(kinds)]
    fn.__name__ = f"feature_{k:02d}"
    fn.__qualname__ = fn.__name__
    return jax.jit(fn)


def worker(rows: int) -> int:
    # Its own compilation of the rollout, in its own process.
    buf = jnp.zeros((rows, FEATURES), jnp.float32)
    obs = jnp.ones((STEPS, FEATURES), jnp.float32)
    jax.block_until_ready(jax.jit(replay_rollout, donate_argnums=0)(buf, obs))
    return os.getpid()


def timed(f, *args):
    t = time.perf_counter()
    jax.block_until_ready(f(*args))
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixed", action="store_true")
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--kill", action="store_true", help="end by SIGTERM to itself")
    ap.add_argument("--sleep", type=float, default=0.0, help="seconds to wait after the rollout compiles")
    ap.add_argument("--small", type=int, default=48, help="how many small functions (each compiled twice)")
    ap.add_argument("--workers", type=int, default=0, help="also run the rollout in N worker processes")
    args = ap.parse_args()
    compile_seconds = 0.0
    smalls = [make_small(k) for k in range(args.small)]
    for shape in ((32,), (16, 16)):
        x = jnp.linspace(0.0, 1.0, int(jnp.prod(jnp.array(shape)))).reshape(shape)
        for f in smalls:
            first, second = timed(f, x), timed(f, x)
            compile_seconds += max(0.0, first - second)
    rollout = jax.jit(replay_rollout_fixed if args.fixed else replay_rollout, donate_argnums=0)
    buf = jnp.zeros((ROWS, FEATURES), jnp.float32)
    obs = jnp.ones((STEPS, FEATURES), jnp.float32)
    first = timed(rollout, buf, obs)
    buf = jnp.zeros((ROWS, FEATURES), jnp.float32)
    compile_seconds += max(0.0, first - timed(rollout, buf, obs))
    print("rollout compiled", file=sys.stderr, flush=True)
    if args.workers:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            print("workers:", pool.map(worker, [1024 * (i + 1) for i in range(args.workers)]), file=sys.stderr)
    if args.sleep:
        time.sleep(args.sleep)
    print("after rollout", file=sys.stderr, flush=True)
    print(f"compile_seconds={compile_seconds:.3f}", file=sys.stderr, flush=True)
    print("trained")
    if args.kill:
        os.kill(os.getpid(), signal.SIGTERM)
    return args.exit


if __name__ == "__main__":
    sys.exit(main())
