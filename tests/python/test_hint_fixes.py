"""Every hint is a claim: the fix it names removes the copy.

For each copy rule whose hint names a fix, a program that makes the copy and the
same program with that fix applied are compiled here (CPU, the JAX under test);
the slow one must have a copy of the rule with its hint, the fixed one no copy of
an array of that shape. Where the hint names several fixes, one of them is the program's.
Rules without a fix here: layout-change (names the cause, not a fix),
memory-space-move and branch-result (no hint), carry-permuted
(tests/python/test_collectives.py), and carry-passed-on-live, output-aliasing,
output-passthrough, constant-returned, read-after-loop-init, output-duplicated (no
program of ours makes them on CPU with this JAX: the loop-input program below gets
read-after-update, `return y, y, y` gets output-also-returned, whose hint is the same).
"""
import collections
import json
import os
import sys

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import hloscope  # noqa: E402
from conftest import xla_copy_shapes  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
from fixture_programs import ring_buffer  # noqa: E402

N = 4096
BUF = jnp.zeros((N,), jnp.float32)
MAT = jnp.zeros((256, 64), jnp.float32)
XS = jnp.ones((16, 64), jnp.float32)
SIN = np.sin(np.arange(N)).astype(np.float32)
PS = {"w1": jnp.ones((64, 128)) * 0.01, "b1": jnp.zeros(128), "w2": jnp.ones((128, 10)) * 0.01,
      "b2": jnp.zeros(10)}
X, Y = jnp.ones((32, 64)), jnp.ones((32, 10))


def _loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


def sgd_step(p, x, y):
    g = jax.grad(_loss)(p, x, y)
    return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)


def sgd_step_global(p, x, y):
    # Every update depends on every gradient (a global norm, as optax.clip_by_global_norm computes).
    g = jax.grad(_loss)(p, x, y)
    norm = jnp.sqrt(sum(jnp.sum(v * v) for v in jax.tree.leaves(g)))
    scale = jnp.minimum(1.0, 1.0 / (norm + 1e-6))
    return jax.tree.map(lambda a, b: a - 0.1 * scale * b, p, g)


def _three_rows(c, x):
    a, b, d = c
    return (a.at[0].add(x), b.at[1].add(x), d.at[2].add(x)), None


def shared_init(xs):
    z = jnp.zeros((256, 64))
    return lax.scan(_three_rows, (z, z, z), xs)[0]


def shared_init_args(a, b, d, xs):
    return lax.scan(_three_rows, (a, b, d), xs)[0]


def set_row(b):
    return b.at[7].set(1.0)


def read_old(b, i):
    new = b.at[i].set(1.0)
    return new, b[(i + 1) % N]


def read_new(b, i):
    new = b.at[i].set(1.0)
    return new, new[(i + 1) % N]


def loop_input_read(b):
    b2 = b * 2
    out = lax.fori_loop(0, 10, lambda i, c: c.at[i].set(1.0), b2)
    return out, b2.sum()


def loop_result_read(b):
    b2 = b * 2
    out = lax.fori_loop(0, 10, lambda i, c: c.at[i].set(1.0), b2)
    return out, out.sum()


def rebuilt(b, xs):
    return lax.scan(lambda c, x: (jnp.concatenate([c[1:], x[:1]]), None), b, xs)[0]


def updated(b, xs):
    def body(c, x):
        c, i = c
        return (c.at[i].set(x[0]), (i + 1) % N), None
    return lax.scan(body, (b, jnp.int32(0)), xs)[0][0]


def twice(x):
    y = x * 2
    return y, y


def once(x):
    return x * 2


def passthrough(x, y):
    return x, y * 2


def switch_update(b):
    def body(i, b):
        return lax.switch(i % 3, [lambda b: b.at[i].set(1.0), lambda b: b.at[i].add(2.0), lambda b: b], b)
    return lax.fori_loop(0, 16, body, b)


def switch_value(b):
    def body(i, b):
        v = lax.switch(i % 3, [lambda: jnp.float32(1.0), lambda: b[i] + 2.0, lambda: b[i]])
        return b.at[i].set(v)
    return lax.fori_loop(0, 16, body, b)


def swapped(a, b):
    return lax.fori_loop(0, 16, lambda i, c: (c[1], c[0].at[i].set(1.0)), (a, b))


def unswapped(a, b):
    # The same values, each buffer in its own slot: which one is written alternates.
    def body(i, c):
        a, b = c
        even = i % 2 == 0
        return a.at[i].set(jnp.where(even, 1.0, a[i])), b.at[i].set(jnp.where(even, b[i], 1.0))
    return lax.fori_loop(0, 16, body, (a, b))


def sin_constant(i):
    return jnp.asarray(SIN).at[i].set(1.0)


def sin_argument(t, i):
    return t.at[i].set(1.0)


def old_value_read(b, s):
    def body(i, c):
        b, s = c
        s = s + b[::2]  # reads the old b; the new b below does not use that read
        return jnp.sin(b) * 2.0, s
    return lax.fori_loop(0, 16, body, (b, s))


def old_value_read_first(b, s):
    # The hint applied: the new value depends on the read, so XLA runs the read first.
    def body(i, c):
        b, s = c
        s = s + b[::2]
        return jnp.sin(b) * 2.0 + 0.0 * s[0], s
    return lax.fori_loop(0, 16, body, (b, s))


def layer_slice_then_write(ck, w, x):
    # Each layer's cache is sliced, written at row 5, attended over and
    # written back: XLA fuses the write with the squeeze the dot needs.
    def layer(l, c):
        ck, x = c
        k = ck[l].at[5].set(x)
        p = jax.nn.softmax(k @ x)
        return ck.at[l].set(k), jnp.tanh(p @ w[l])
    return lax.fori_loop(0, ck.shape[0], layer, (ck, x))


def layer_write_then_slice(ck, w, x):
    # The hint applied: write the row into the stacked cache, then slice.
    def layer(l, c):
        ck, x = c
        ck = ck.at[l, 5].set(x)
        p = jax.nn.softmax(ck[l] @ x)
        return ck, jnp.tanh(p @ w[l])
    return lax.fori_loop(0, ck.shape[0], layer, (ck, x))


def _decode_layer(h, xs):
    k, v, wl = xs
    x, t = h
    k = lax.dynamic_update_slice(k, x[None, :], (t, 0))
    v = lax.dynamic_update_slice(v, (x * 2)[None, :], (t, 0))
    x = jnp.tanh((jax.nn.softmax(k @ x) @ v) @ wl)
    return (x, t), (k, v)


def scan_over_cache(ck, cv, w, x):
    # A decoder's layers as lax.scan over the stacked caches (xs in, ys out).
    def step(t, c):
        ck, cv, x = c
        (x, _), (ck, cv) = lax.scan(_decode_layer, (x, t), (ck, cv, w))
        return ck, cv, x
    return lax.fori_loop(0, 8, step, (ck, cv, x))


def scan_carrying_cache(ck, cv, w, x):
    # The hint applied: the stacked caches are carried and indexed by the layer.
    def layer(h, l):
        x, t, ck, cv = h
        ck, cv = ck.at[l, t].set(x), cv.at[l, t].set(x * 2)
        x = jnp.tanh((jax.nn.softmax(ck[l] @ x) @ cv[l]) @ w[l])
        return (x, t, ck, cv), None

    def step(t, c):
        ck, cv, x = c
        (x, _, ck, cv), _ = lax.scan(layer, (x, t, ck, cv), jnp.arange(ck.shape[0]))
        return ck, cv, x
    return lax.fori_loop(0, 8, step, (ck, cv, x))


CACHE = jnp.zeros((4, 256, 128), jnp.float32)
WL = jnp.ones((4, 128, 128), jnp.float32) * 0.01
WO = jnp.ones((4, 256, 128), jnp.float32) * 0.01  # attention weights (256 rows) -> the next x
Q = jnp.ones((128,), jnp.float32)

HALF = jnp.zeros((N // 2,), jnp.float32)
OBS = jnp.ones((100, 128), jnp.float32)
RING = jnp.zeros((1024, 128), jnp.float32)

# rule: (words of its hint, (slow, args, donate), (fixed, args, donate), other rules the slow one shows)
CASES = {
    "non-donated-parameter": ('donate b: jax.jit(f, donate_argnames="b")', (set_row, (BUF,), ()),
                              (set_row, (BUF,), (0,)), ()),
    "donated-parameter-rewritten": ("make the new value depend on every read of the old one",
                                    (sgd_step, (PS, X, Y), (0,)), (sgd_step_global, (PS, X, Y), (0,)), ()),
    "shared-by-carries": ("pass the initial arrays in as donated arguments", (shared_init, (XS,), ()),
                          (shared_init_args, (MAT, MAT, MAT, XS), (0, 1, 2)), ()),
    "donated-parameter-read": ("read from the updated array", (read_old, (BUF, 3), (0,)),
                               (read_new, (BUF, 3), (0,)), ()),
    "read-after-update": ("read from the updated array", (loop_input_read, (BUF,), ()),
                          (loop_result_read, (BUF,), ()), ()),
    # In a loop: carrying the row read from the updated ring (the README's example).
    "read-after-update/loop": ("carry the value you need", (ring_buffer.rollout_slow, (RING, OBS), (0,)),
                               (ring_buffer.rollout_fixed, (RING, OBS), (0,)), ()),
    "carry-rebuilt": (".at[].set / dynamic_update_slice instead of rebuilding it", (rebuilt, (BUF, XS), (0,)),
                      (updated, (BUF, XS), (0,)), ()),
    "output-also-returned": ("return the value once", (twice, (BUF,), ()), (once, (BUF,), ()), ()),
    "non-donated-parameter/returned": ('donate x: jax.jit(f, donate_argnames="x")', (passthrough, (BUF, BUF), ()),
                                       (passthrough, (BUF, BUF), (0,)), ()),
    "branch-updates-operand": ("update the array outside the cond", (switch_update, (BUF,), (0,)),
                               (switch_value, (BUF,), (0,)), ("branch-passthrough",)),
    "carries-swapped": ("keep each buffer in its own carry slot", (swapped, (BUF, BUF), (0, 1)),
                        (unswapped, (BUF, BUF), (0, 1)), ("carry-old-value-read",)),
    "carry-old-value-read": ("make the new value depend on every read of the old one",
                             (old_value_read, (BUF, HALF), (0, 1)), (old_value_read_first, (BUF, HALF), (0, 1)), ()),
    "constant-updated": ("pass the array in as a donated argument", (sin_constant, (3,), ()),
                         (sin_argument, (jnp.asarray(SIN), 3), (0,)), ()),
    "update-reshaped": ("`a = a.at[l, t].set(row); k = a[l]`", (layer_slice_then_write, (CACHE, WO, Q), (0,)),
                        (layer_write_then_slice, (CACHE, WO, Q), (0,)), ()),
    "carry-rebuilt/scan": ("carry the array through", (scan_over_cache, (CACHE, CACHE, WL, Q), (0, 1)),
                           (scan_carrying_cache, (CACHE, CACHE, WL, Q), (0, 1)), ()),
    "update-reshaped/scan": ("carry it instead and index it by the layer",
                             (scan_over_cache, (CACHE, CACHE, WL, Q), (0, 1)),
                             (scan_carrying_cache, (CACHE, CACHE, WL, Q), (0, 1)), ()),
}


def _report(case):
    fn, args, donate = case
    return hloscope.inspect(jax.jit(fn, donate_argnums=donate), *args)


def _array_copies(report):
    return [c for c in report.copies if not c.scalar]


def _xla_array_copy_shapes(case):
    """The shapes of the non-scalar copies in XLA's own compiled text of `case`: the truth the
    tool's copies are checked against, found without the tool."""
    fn, args, donate = case
    return xla_copy_shapes(jax.jit(fn, donate_argnums=donate).lower(*args).compile().as_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_hint_names_a_fix_that_removes_the_copy(name):
    words, slow, fixed, others = CASES[name]
    rule = name.split("/")[0]
    slow_report = _report(slow)
    made = [c for c in _array_copies(slow_report) if c.cause_rule == rule]
    xla_copies = _xla_array_copy_shapes(slow)
    if not xla_copies:
        # Decided from XLA's compiled text, not from the tool: a newer XLA may not copy here
        # at all (JAX 0.12 keeps lax.switch's updating branches in place), nothing to fix.
        pytest.skip(f"XLA of JAX {jax.__version__} makes no array copy in this program")
    # XLA copies: the tool must report every one of them (a copy it misses is a bug, not a skip).
    reported = collections.Counter(c.shape for c in _array_copies(slow_report))
    assert not xla_copies - reported, (f"{name}: XLA's compiled text copies {dict(xla_copies)}, the tool "
                                       f"reports {dict(reported)}")
    assert made, f"{name}: the slow program has no {rule} copy: " + str(
        [(c.instruction, c.cause_rule) for c in _array_copies(slow_report)])
    for c in made:
        assert c.hint and words in c.hint, (c.instruction, c.hint)
    for other in others:
        shown = [c for c in _array_copies(slow_report) if c.cause_rule == other]
        assert shown and all(c.hint for c in shown), other
    # The fixed one copies no array of the shapes the slow one copied (the
    # fixed ring buffer still copies its 512 B carried row, by design).
    shapes = {c.shape for c in made}
    left = [(c.instruction, c.cause_rule, c.shape) for c in _array_copies(_report(fixed)) if c.shape in shapes]
    assert left == [], left


def test_every_rule_with_a_hint_has_a_case_or_a_reason():
    covered = {n.split("/")[0] for n in CASES} | {r for case in CASES.values() for r in case[3]}
    # carry-permuted: tests/python/test_collectives.py; reshard-transpose:
    # tests/python/test_reshard_transpose.py (a sharded TPU compile).
    # shared-by-updates: tests/python/test_shared_by_updates.py (its one fix, donated arguments).
    elsewhere = {"carry-permuted", "reshard-transpose", "shared-by-updates"}
    without_program = {"carry-passed-on-live", "output-aliasing", "output-passthrough", "constant-returned",
                       "layout-change", "read-after-loop-init", "output-duplicated"}
    # carry-staged: TPU's memory-space assignment staging a carry; the
    # program without the read (replay_row_write_only, the read-after-update
    # fix) still stages it (tests/fixtures/jax-tpu-v5e*), so no hint is given.
    # copy-requested: the user's own eager jnp.copy (tests/python/test_run.py).
    no_hint = {"memory-space-move", "branch-result", "carry-staged", "none", "copy-requested"}
    with open(os.path.join(REPO, "docs", "schema", "common.schema.json")) as f:
        rules = set(json.load(f)["$defs"]["copy"]["properties"]["cause_rule"]["enum"])
    assert rules - covered - elsewhere - without_program - no_hint == set()


@pytest.mark.parametrize("target", ["tpu-v5e", "gpu-h100"])
def test_the_scan_hint_removes_the_copies_on_tpu_and_gpu(target):
    """The carry-rebuilt hint for a scan over a stacked cache, per backend: XLA:GPU copies the
    stacked result back as XLA:CPU does; XLA:TPU builds it in memory space 1 and moves it into the
    carry, a move that has the same cause. Carrying the cache removes both."""
    from importlib import metadata
    dist = {"tpu-v5e": "libtpu", "gpu-h100": "jax-cuda12-plugin"}[target]
    try:
        metadata.version(dist)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{dist} not installed (bash tools/install-deps.sh --backends)")
    slow = hloscope.inspect(jax.jit(scan_over_cache, donate_argnums=(0, 1)), CACHE, CACHE, WL, Q, target=target)
    made = [c for c in _array_copies(slow) if c.cause_rule == "carry-rebuilt"]
    assert len(made) == 2, [(c.instruction, c.shape, c.cause_rule) for c in _array_copies(slow)]
    assert all(c.hint and "carry the array through" in c.hint for c in made)
    dims = {c.shape.split("{")[0] for c in made}
    fixed = hloscope.inspect(jax.jit(scan_carrying_cache, donate_argnums=(0, 1)), CACHE, CACHE, WL, Q,
                             target=target)
    left = [(c.instruction, c.shape) for c in _array_copies(fixed) if c.shape.split("{")[0] in dims]
    assert left == [], left
