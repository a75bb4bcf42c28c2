"""A "donate" hint applied exactly as printed, on pytree arguments.

The entry parameters XLA sees are the flattened leaves of the arguments, so "donate argument 3"
(the HLO parameter number) named positions the jitted function does not have (`ValueError: …
only accepts 3 positional arguments`) or silently donated the wrong argument. The hint now names
the Python argument JAX's path gives the leaf (`state['buf']` -> `state`), as `donate_argnames`:
here each printed hint is pasted into `jax.jit(step, donate_argnames=...)` and compiled, on this
machine's CPU and for a TPU v5e without one, and the copies it was given for are gone.
"""
import os
import re
import warnings
from importlib import metadata

import pytest

# As in test_donate_hints_per_backend.py: the CUDA plugin compiles for a GPU without one only
# with the CPU as JAX's platform, and whichever test module imports jax first decides it.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def step(i, state, kv):
    state = {"buf": state["buf"].at[i].set(1.0), "count": state["count"] + 1}
    k, v = kv
    return state, (k.at[i].set(2.0), v.at[i].set(3.0))


STATE = {"buf": jnp.zeros((256, 64)), "count": jnp.zeros((), jnp.int32)}
KV = (jnp.zeros((128, 32)), jnp.zeros((128, 32)))


def _inspect(jitted, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's "Some donated buffers were not usable" (count)
        return hloscope.inspect(jitted, 3, STATE, KV, target=target)


@pytest.mark.parametrize("target", [None, "tpu-v5e"])
def test_each_donate_hint_as_printed_removes_its_copy(target):
    if target:
        try:
            metadata.version("libtpu")
        except metadata.PackageNotFoundError:
            pytest.skip("libtpu not installed (bash tools/install-deps.sh --backends)")
    slow = _inspect(jax.jit(step), target)
    hinted = [c for c in slow.copies if c.hint and "donate" in c.hint and not c.scalar]
    if not hinted:
        # XLA:TPU makes these protective copies as moves into memory space 1, which get no
        # donate hint (tests/python/test_donate_hints_per_backend.py says why).
        assert target, [(c.instruction, c.cause_rule, c.hint) for c in slow.copies]
        return
    names = set()
    for c in hinted:
        m = re.search(r'^donate (\w+): jax\.jit\(f, donate_argnames="(\w+)"\)', c.hint)
        assert m and m.group(1) == m.group(2), c.hint
        names.add(m.group(2))
        # The leaf it is about is named too.
        assert re.search(r"\(the argument holding (state\['buf'\]|kv\[[01]\])\)", c.hint), c.hint
    assert names <= {"state", "kv"} and "i" not in names, names
    fixed = _inspect(jax.jit(step, donate_argnames=tuple(sorted(names))), target)
    # No copy of the hinted kind and shape is left (a TPU may still prefetch the donated
    # buffers into memory space 1: memory-space moves, not the copies the hint was for), and
    # fewer bytes are copied per call.
    kinds = {(c.cause_rule, c.shape) for c in hinted}
    left = [(c.instruction, c.cause_rule, c.shape) for c in fixed.copies if (c.cause_rule, c.shape) in kinds]
    assert left == [], left

    def copied(report):
        return sum(c.total_bytes or 0 for c in report.copies if not c.scalar)

    assert copied(fixed) < copied(slow), (copied(slow), copied(fixed))
