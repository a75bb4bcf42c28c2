"""Merged initial values copied apart for several in-place updates (`shared-by-updates`).

`a = jnp.zeros(n).at[i].set(x); b = jnp.zeros(n).at[j].add(y)`: XLA's CSE merges the two
identical `jnp.zeros` into one broadcast, and copy insertion then copies it for each scatter so
that every update writes into a buffer of its own. This was `unknown` with no hint (the headline
copy of one workload), and where one update read the broadcast directly, `read-after-update`
with a "carry the value" hint that had nothing to apply to. Each claim is checked on real
compiles: the cause on this machine's CPU (an H100 makes no such copy, a TPU v5e moves the
zeros between memory spaces instead), and the one change that removes the
copies (the arrays passed in as donated arguments, as the hint says) compiled as typed.
"""
import collections
import os
import warnings

import pytest

from conftest import xla_copy_shapes

os.environ.setdefault("JAX_PLATFORMS", "cpu")
hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def fill_tables(idx, v):
    a = jnp.zeros((1024, 64)).at[idx].set(v)
    b = jnp.zeros((1024, 64)).at[idx + 1].add(v)
    seen = jnp.zeros((1024,), bool).at[idx].set(True)
    done = jnp.zeros((1024,), bool).at[idx + 3].set(True)
    return a, b, seen, done


def fill_donated(a, b, seen, done, idx, v):
    """The hint applied: the arrays come in as donated arguments and are updated in place."""
    return a.at[idx].set(v), b.at[idx + 1].add(v), seen.at[idx].set(True), done.at[idx + 3].set(True)


IDX = jnp.arange(16)
V = jnp.ones((16, 64))


def _inspect(jitted, *args, target=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hloscope.inspect(jitted, *args, target=target)


def test_merged_zeros_copied_for_each_update_are_shared_value():
    report = _inspect(jax.jit(fill_tables), IDX, V)
    arrays = [c for c in report.copies if not c.scalar and c.copy_class != "memory-space-move"]
    assert arrays, [str(c) for c in report.copies]
    for c in arrays:
        assert c.cause == "shared-value", str(c)
        assert c.cause_rule == "shared-by-updates", str(c)
        facts = c.cause_facts
        assert facts["family"] == "shared" and facts["loop"] is None
        assert len(facts["updates"]) >= 2, facts
        assert facts["merged_initial_value"] is True
        assert "XLA merges identical initial values" in c.cause_detail
        assert c.hint.startswith("nothing to do: this is one buffer per update")
    # Each update the copies feed is in place on its copy: one buffer per update.
    fed = [u for u in report.updates if u.verdict == "in-place-on-copy"]
    assert len(fed) >= len(arrays)


def test_the_arrays_passed_in_donated_as_the_hint_says_have_no_copies():
    tables = (jnp.zeros((1024, 64)), jnp.zeros((1024, 64)), jnp.zeros((1024,), bool), jnp.zeros((1024,), bool))
    jitted = jax.jit(fill_donated, donate_argnames=("a", "b", "seen", "done"))
    report = _inspect(jitted, *tables, IDX, V)
    arrays = [c for c in report.copies if not c.scalar and c.copy_class != "memory-space-move"]
    assert not arrays, [str(c) for c in arrays]
    assert all(u.verdict == "in-place" for u in report.updates), [str(u) for u in report.updates]


def _xla_copies(fn, args, target):
    """The copies in XLA's own compile of `fn` for `target` (its optimized HLO text), found
    without the tool: what the tool's report is checked against."""
    device = hloscope.target_devices(target)[0]
    sharding = jax.sharding.SingleDeviceSharding(device)
    placed = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding) for a in args]
    return xla_copy_shapes(jax.jit(fn).lower(*placed).compile().as_text(), arrays_only=False)


@pytest.mark.parametrize("target", ["gpu-h100", "tpu-v5e"])
def test_other_backends_leave_no_copy_of_the_merged_zeros_unexplained(target):
    """An H100 compile makes no such copy; a TPU v5e moves the zeros between memory spaces."""
    report = _inspect(jax.jit(fill_tables), IDX, V, target=target)
    # The tool reports exactly the copies XLA's compile has: a missed copy cannot pass as "none
    # unexplained" (the H100's two `copy`s inside a broadcast fusion's body are no copies).
    xla = _xla_copies(fill_tables, (IDX, V), target)
    assert collections.Counter(c.shape for c in report.copies) == xla, ([str(c) for c in report.copies], xla)
    if target == "tpu-v5e":
        assert sum(xla.values()) >= 2, xla  # the two f32[1024,64] zeros, moved
        assert all(c.copy_class == "memory-space-move" for c in report.copies), [str(c) for c in report.copies]
    else:
        assert not xla, xla  # the docstring's claim, from XLA itself
    assert all(c.cause != "unknown" for c in report.copies), [str(c) for c in report.copies]


def test_a_plain_reader_of_the_shared_zeros_is_still_read_after_update():
    """Not every copy of a broadcast is this rule: a read of the old zeros is a read."""
    def f(idx, v):
        z = jnp.zeros((1024, 64))
        a = z.at[idx].set(v)
        # A matmul reads the old zeros: XLA folds an elementwise read (`z * 2 + 1`) into a
        # broadcast of its own, which leaves no copy at all and nothing to check.
        return a, z @ v.T

    report = _inspect(jax.jit(f), IDX, V)
    arrays = [c for c in report.copies if not c.scalar]
    xla = xla_copy_shapes(jax.jit(f).lower(IDX, V).compile().as_text())
    assert sum(xla.values()) >= 1, "XLA no longer copies the zeros here: the program checks nothing"
    assert collections.Counter(c.shape for c in arrays) == xla, ([str(c) for c in arrays], xla)
    for c in arrays:
        assert c.cause_rule != "shared-by-updates", str(c)
        assert c.cause_rule == "read-after-update", str(c)


def test_two_writes_into_one_cache_say_they_share_one_copy():
    """`cache.at[0, pos].set(k)` then `.at[1, pos].set(v)` without donation: the first runs on the
    copy of the argument, the second in place on its result; both are served by one copy a call."""
    def step(cache, k, v, pos):
        return cache.at[0, pos].set(k).at[1, pos].set(v)

    report = _inspect(jax.jit(step), jnp.zeros((2, 128, 64)), jnp.ones(64), jnp.ones(64), 3)
    on_copy = [u for u in report.updates if u.verdict == "in-place-on-copy"]
    after = [u for u in report.updates if u.verdict == "in-place" and u.shares_copy]
    assert len(on_copy) == 1 and len(after) == 1, [str(u) for u in report.updates]
    assert after[0].shares_copy == on_copy[0].runs_on
    assert len([c for c in report.copies if not c.scalar]) == 1
