#!/usr/bin/env python3
"""Each growth kind `check` names, with the fix its answer points to, proven by the clock.

    python3 bench/growth_fixes_bench.py [--repeats 7]

For every kind of "grows with buffer size" — a copy of the buffer every iteration, a full rewrite,
a kernel reading the buffer whole (attention over a KV cache, a sort of a priority buffer) — one
program and its fix are compiled at n and 4n, timed (hloscope.scaling(measure=True): warm-up, then
the median of --repeats calls with fresh arguments), and checked: the program's `growth` line names
the dominant line and why; the fix must have no growth line, and its time ratio must fall. Prints
one row per program (time at n and 4n, ratio, hloscope's growth kind and line). docs/cost.md
"Growth kinds and their fixes" quotes a run. Collectives that move a buffer every iteration are
bench/sharded_growth_bench.py's (8 host devices).
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

STEPS = 64
D = 64


def copy_slow(n):
    """Copy: the replaced row is read from the old ring after the write (tools/fixture_programs)."""
    obs = jnp.ones((STEPS, D))
    return jax.jit(ring_buffer.rollout_slow, donate_argnums=0), lambda: (jnp.zeros((n, D)), obs)


def copy_fixed(n):
    """Fix: carry the row, read it from the updated ring one step ahead."""
    obs = jnp.ones((STEPS, D))
    return jax.jit(ring_buffer.rollout_fixed, donate_argnums=0), lambda: (jnp.zeros((n, D)), obs)


def _fill(write):
    def fill(cache, rows):
        return jax.lax.fori_loop(0, rows.shape[0], lambda t, c: write(c, t, rows[t]), cache)
    return fill


def rewrite_where(n):
    """Full rewrite: one row written as a masked `jnp.where` over the whole cache."""
    f = _fill(lambda c, t, row: jnp.where((jnp.arange(c.shape[0]) == t)[:, None], row, c))
    return jax.jit(f, donate_argnums=0), lambda: (jnp.zeros((n, D)), jnp.ones((STEPS, D)))


def rewrite_at_set(n):
    """Fix: `.at[t].set(row)`, in place."""
    f = _fill(lambda c, t, row: c.at[t].set(row))
    return jax.jit(f, donate_argnums=0), lambda: (jnp.zeros((n, D)), jnp.ones((STEPS, D)))


def _decode(window):
    def run(k, v, x):
        def step(c, xt):
            k, v, t = c
            q = xt.reshape(1, 1, 4, D // 4)
            k = jax.lax.dynamic_update_slice(k, q, (0, t, 0, 0))
            v = jax.lax.dynamic_update_slice(v, 2 * q, (0, t, 0, 0))
            if window is None:
                kw, vw, pos = k, v, jnp.arange(k.shape[1])
            else:
                start = jnp.maximum(t - window + 1, 0)
                kw = jax.lax.dynamic_slice(k, (0, start, 0, 0), (1, window, 4, D // 4))
                vw = jax.lax.dynamic_slice(v, (0, start, 0, 0), (1, window, 4, D // 4))
                pos = start + jnp.arange(window)
            o = jax.nn.dot_product_attention(q, kw, vw, mask=(pos <= t)[None, None, None, :])
            return (k, v, t + 1), o.reshape(D)
        (k, v, _), ys = jax.lax.scan(step, (k, v, 0), x)
        return k, v, ys
    return run


def attend_whole(n):
    """Whole read: decode steps attend over the whole KV cache (jax.nn.dot_product_attention)."""
    shape = (1, n, 4, D // 4)
    return (jax.jit(_decode(None), donate_argnums=(0, 1)),
            lambda: (jnp.zeros(shape), jnp.zeros(shape), jnp.ones((STEPS, D))))


def attend_window(n):
    """Fix: attend over the last 256 positions (a dynamic_slice of the cache)."""
    shape = (1, n, 4, D // 4)
    return (jax.jit(_decode(256), donate_argnums=(0, 1)),
            lambda: (jnp.zeros(shape), jnp.zeros(shape), jnp.ones((STEPS, D))))


def sort_priorities(n):
    """Whole read: a priority buffer sorted every step to take its top 8."""
    def run(prio, xs):
        def body(t, c):
            prio, acc = c
            prio = prio.at[t % prio.shape[0]].set(xs[t])
            return prio, acc + jnp.sort(prio)[-8:].sum()
        return jax.lax.fori_loop(0, STEPS, body, (prio, 0.0))
    return jax.jit(run, donate_argnums=0), lambda: (jnp.zeros((n,)), jnp.arange(STEPS, dtype=jnp.float32))


def keep_top8(n):
    """Fix: keep the top 8 beside the buffer and merge each new priority into them."""
    def run(prio, top, xs):
        def body(t, c):
            prio, top, acc = c
            prio = prio.at[t % prio.shape[0]].set(xs[t])
            top = jnp.sort(jnp.concatenate([top, xs[t][None]]))[1:]
            return prio, top, acc + top.sum()
        return jax.lax.fori_loop(0, STEPS, body, (prio, top, 0.0))
    return (jax.jit(run, donate_argnums=0),
            lambda: (jnp.zeros((n,)), jnp.full((8,), -jnp.inf), jnp.arange(STEPS, dtype=jnp.float32)))


KINDS = [("copy of the buffer", copy_slow, copy_fixed),
         ("full rewrite", rewrite_where, rewrite_at_set),
         ("whole read: attention", attend_whole, attend_window),
         ("whole read: sort", sort_priorities, keep_top8)]


def row(make, n, repeats):
    fn, args = make(n)
    r = hloscope.scaling(fn, lambda m: make(m)[1](), (n, 4 * n), measure=True, repeats=repeats, progress=False)
    report = hloscope.inspect(fn, *make(4 * n)[1]())
    growth = report.modules[0].growth
    return r, growth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=16384, help="the buffer's rows at the smaller size")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}; n = {args.n} and {4 * args.n}; "
          f"{STEPS} steps; median of {args.repeats} calls")
    failed = False
    for kind, slow, fixed in KINDS:
        for label, make in (("program", slow), ("fix", fixed)):
            r, growth = row(make, args.n, args.repeats)
            times = r.times
            ratio = times[1] / times[0]
            print(f"{kind:24} {label:8} {make.__name__:16} {times[0] * 1e3:9.3f} ms {times[1] * 1e3:9.3f} ms "
                  f"×{ratio:5.2f}  {'grows: ' + growth if growth else 'nothing grows'}")
            # Where the profiler saw the time go: the growing finding whose kernels took the most.
            top = r.measured_top
            if top is not None:
                share = top.measured[-1] / r.kernel_times[-1] if r.kernel_times[-1] else 0
                print(f"{'':24} {'':8} measured most: {top.what}{' at ' + top.source if top.source else ''}, "
                      f"{top.measured[0] * 1e3 if top.measured[0] else 0:.3f} → {top.measured[-1] * 1e3:.3f} ms "
                      f"({share:.0%} of the traced kernel time at 4n)")
            if label == "program":
                slow_ratio = ratio
                failed |= growth is None
            else:
                failed |= growth is not None or ratio >= slow_ratio
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
