"""Every "donate X" hint, per backend: compiling the program with that donation, applied as
printed (`donate_argnames`), removes the copy it was given for.

tests/python/test_hint_fixes.py proves each rule's hint on CPU. On a TPU, memory-space
assignment makes many protective copies as moves into memory space 1 (copy-start), and
whether a donation removes such a move is its choice: compiled both ways, donating removed
it for some programs and not for others (a KV cache, an MoE layer and a train step on a TPU
v5e kept the prefetch; a bf16 loop made it 100× worse). So hloscope gives the hint only for
copies that are not such moves, and only when an output has the argument's shape and dtype
(XLA reuses a donated buffer for nothing else). Here every fixture program
(tools/fixture_programs/) is compiled for a TPU v5e and an H100 without the hardware, and
three sharded programs for a TPU v5e 2x2: each hint given must be proven by the compile.
"""
import importlib
import inspect
import os
import re
import sys
import warnings
from importlib import metadata

import pytest

# The CUDA plugin compiles for an H100 without one only with the CPU as JAX's platform.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")

from conftest import ROOT  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))

TARGETS = {"tpu-v5e": "libtpu", "gpu-h100": "jax-cuda12-plugin"}


def _need(dist):
    try:
        metadata.version(dist)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{dist} not installed (bash tools/install-deps.sh --backends)")


def _dims(shape):
    return re.sub(r"\{.*", "", shape or "")


def _inspect(jitted, args, target=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's "Some donated buffers were not usable"
        return hloscope.inspect(jitted, *args, target=target) if target else hloscope.inspect(jitted, *args)


def _donate_hints(report):
    return [c for c in report.copies if not c.scalar and c.hint and "donate_argnames=" in c.hint]


def _names(hinted):
    """The argument names the hints say to donate, as a user would copy them."""
    return {re.search(r'donate_argnames="(\w+)"', c.hint).group(1) for c in hinted}


def _assert_the_donation_removes_it(name, slow, fixed, hinted):
    for c in hinted:
        same = [(k.instruction, k.cause_rule) for k in fixed.copies
                if k.cause_rule == c.cause_rule and k.shape == c.shape]
        assert same == [], (name, c.instruction, c.hint, same)
    dims = {_dims(c.shape) for c in hinted}
    before = sum(k.total_bytes or 0 for k in slow.copies if _dims(k.shape) in dims)
    after = sum(k.total_bytes or 0 for k in fixed.copies if _dims(k.shape) in dims)
    assert after < before, (name, before, after)


def _fixture_programs():
    import fixture_programs
    for info in ("control", "loops", "misc", "ring_buffer", "scopes", "updates", "optax_train"):
        try:
            importlib.import_module(f"fixture_programs.{info}")
        except ImportError:  # a library the program needs (optax) is not installed
            pass
    return dict(sorted(fixture_programs.REGISTRY.items()))


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_donate_hint_removes_its_copy_on_the_backend(target):
    _need(TARGETS[target])
    proven = []
    for name, p in _fixture_programs().items():
        def compiled(names=()):
            # The program's own donation, plus the hint's as the user would add it: by name,
            # or, where the jit already has donate_argnums, by position (as the hint says).
            if p.donate_argnums:
                params = list(inspect.signature(p.fn).parameters)
                nums = tuple(sorted(set(p.donate_argnums) | {params.index(n) for n in names}))
                jitted = jax.jit(p.fn, donate_argnums=nums, static_argnums=p.static_argnums)
            else:
                jitted = jax.jit(p.fn, donate_argnames=tuple(sorted(names)), static_argnums=p.static_argnums)
            return _inspect(jitted, p.make_args(), target)

        slow = compiled()
        hinted = _donate_hints(slow)
        if not hinted:
            continue
        fixed = compiled(_names(hinted))
        _assert_the_donation_removes_it(name, slow, fixed, hinted)
        proven.append(name)
    # The hint is not withheld everywhere: the plain protective copies of undonated
    # arguments (.at[].set, dynamic_update_slice, a returned argument) keep it.
    print(f"{target}: {len(proven)} programs with a donate hint, each proven: {proven}")
    assert len(proven) >= 5, proven


def test_donate_hints_on_a_sharded_tpu_slice():
    _need("libtpu")
    import numpy as np
    from jax.sharding import Mesh

    import gen_sharded_fixtures as gen
    import sharded_programs

    progs = sharded_programs.load_all()
    devices = hloscope.target_devices("tpu-v5e:2x2")
    given = {}
    for name in ("kv_decode_seq_dus", "moe_all_to_all", "ring_ppermute"):
        prog = progs[name]
        mesh = Mesh(np.array(devices, dtype=object).reshape(prog.mesh_shape(len(devices))), prog.axis_names())
        built = prog.factory(mesh, prog.n)
        slow = _inspect(gen._jit(jax, prog, built, built.fn)[0], built.args)
        hinted = _donate_hints(slow)
        given[name] = [c.instruction for c in hinted]
        if hinted:
            # gen._jit takes positions: the named arguments' positions in the signature,
            # as JAX resolves donate_argnames itself.
            params = list(inspect.signature(built.fn).parameters)
            nums = {params.index(n) for n in _names(hinted)}
            donated = prog.__class__(**{**prog.__dict__,
                                        "donate_argnums": tuple(sorted(set(prog.donate_argnums) | nums))})
            fixed = _inspect(gen._jit(jax, donated, built, built.fn)[0], built.args)
            _assert_the_donation_removes_it(name, slow, fixed, hinted)
    # The KV cache and the MoE layer keep their prefetch when donated: no hint there.
    assert given["kv_decode_seq_dus"] == [] and given["moe_all_to_all"] == [], given
