#!/usr/bin/env python3
"""Measure this machine's CPU roofline for `hloscope cost --target cpu`.

Two figures, each the median of several timed runs of a jitted JAX function
on the CPU backend (what XLA's CPU code reaches, not a vendor peak):
  * matmul FLOP/s: a 2048×2048 f32 matmul (2·n³ FLOPs);
  * vector FLOP/s: 32 rounds of x·a + b over 1 Mi floats (4 MiB, near the
    cores' caches), fused by XLA into one loop: 64 FLOPs an element;
  * bytes/s: x + 1 over 64 Mi floats (256 MiB), donated so that XLA writes
    in place (a new 256 MiB output would time the kernel's page faults).
Prints the figures and the C++ row to paste into src/analysis/roofline.cc.
Run it on an idle machine: `python3 tools/measure_cpu_roofline.py`.
"""
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def median_seconds(f, *args, repeats=7):
    jax.block_until_ready(f(*args))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    n = 2048
    a = jnp.ones((n, n), jnp.float32)
    mm = median_seconds(jax.jit(lambda x, y: x @ y), a, a)
    matmul = 2 * n**3 / mm
    small = jnp.ones((1024 * 1024,), jnp.float32)

    def rounds(v):
        for _ in range(32):
            v = v * 1.0001 + 0.5
        return v

    vec = median_seconds(jax.jit(rounds), small)
    vector = 64 * small.size / vec
    m = 64 * 1024 * 1024
    step = jax.jit(lambda v: v + 1.0, donate_argnums=0)
    x = step(jnp.ones((m,), jnp.float32))
    times = []
    for _ in range(7):
        t = time.perf_counter()
        x = jax.block_until_ready(step(x))
        times.append(time.perf_counter() - t)
    ax = statistics.median(times)
    bandwidth = 2 * 4 * m / ax
    print(f"matmul: {matmul / 1e9:.1f} GFLOP/s ({mm * 1e3:.1f} ms for {n}x{n} f32)")
    print(f"vector: {vector / 1e9:.2f} GFLOP/s ({vec * 1e3:.2f} ms for 64 Mi FLOPs)")
    print(f"memory: {bandwidth / 1e9:.2f} GB/s ({ax * 1e3:.1f} ms, 512 MiB moved in place)")
    print(f"row: {{\"cpu\", ..., {matmul:.3g}, {vector:.3g}, {bandwidth:.3g}, ...}}  "
          f"(jax {jax.__version__}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
