"""Donation as requested (donate_argnums) vs as kept (XLA's aliasing), through hloscope.inspect.

A donated argument XLA cannot reuse (no output of its per-device shape and dtype) used to be
reported as if it had never been donated. inspect() knows the request: the parameter says
`donation_requested`, `donation_dropped` gives the reason and a fix, and the report's notes
name it. The fix is proven by compiling it: with the output sharded like the donated
argument, XLA keeps the donation and the re-sharding all-gather (reshard-for-output, whose
hint is the same fix) is gone (8 CPU host devices, in a subprocess).
"""
import json
import os
import subprocess
import sys
import warnings

import pytest

hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def _inspect(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's own "Some donated buffers were not usable"
        return hloscope.inspect(fn, *args)


def test_a_dropped_donation_is_named_with_its_reason():
    report = _inspect(jax.jit(lambda x: jnp.concatenate([x, x]), donate_argnums=0), jnp.ones(128))
    p = report.modules[0].parameters[0]
    assert p.donation_requested is True and p.donated is False
    assert p.donation_dropped.startswith("no output has its per-device shape and dtype f32[128] "
                                         "(outputs: f32[256])")
    assert any("argument 0" in n and "was donated but XLA did not keep the donation" in n for n in report.notes)


def test_a_kept_donation_and_an_undonated_argument_say_nothing():
    report = _inspect(jax.jit(lambda x, y: (x * 2, y + 1), donate_argnums=0), jnp.ones(128), jnp.ones(4))
    a, b = report.modules[0].parameters
    assert (a.donation_requested, a.donated, a.donation_dropped) == (True, True, None)
    assert (b.donation_requested, b.donated, b.donation_dropped) == (False, False, None)
    assert not [n for n in report.notes if "donat" in n]


SHARDED = r"""
import json, os, sys, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
import hloscope
warnings.simplefilter("ignore")
mesh = jax.make_mesh((2, 4), ("a", "b"))
x = jax.device_put(jnp.ones((1024, 256)), NamedSharding(mesh, P(("a", "b"), None)))
out = {}
for name, spec in (("dropped", P("a", None)), ("fixed", P(("a", "b"), None))):
    f = jax.jit(lambda x: x * 2, donate_argnums=0, out_shardings=NamedSharding(mesh, spec))
    r = hloscope.inspect(f, x)
    p = r.modules[0].parameters[0]
    out[name] = {"requested": p.donation_requested, "donated": p.donated, "dropped": p.donation_dropped,
                 "notes": r.notes, "collectives": [c.family for c in r.modules[0].collectives],
                 "rules": [c.cause_rule for c in r.modules[0].collectives],
                 "hints": [c.hint for c in r.modules[0].collectives]}
# The same on a pytree (a train state): the hint applied as printed, per leaf.
state = {"w": x, "m": jax.device_put(jnp.ones((1024, 256)), NamedSharding(mesh, P(("a", "b"), None)))}
for name, spec in (("tree_dropped", P("a", None)), ("tree_fixed", P(("a", "b"), None))):
    outs = {"w": NamedSharding(mesh, spec), "m": NamedSharding(mesh, spec)}
    f = jax.jit(lambda s: {"w": s["w"] * 2, "m": s["m"] + 1}, donate_argnums=0, out_shardings=outs)
    r = hloscope.inspect(f, state)
    out[name] = {"donated": [p.donated for p in r.modules[0].parameters],
                 "dropped": [p.donation_dropped is not None for p in r.modules[0].parameters],
                 "rules": [c.cause_rule for c in r.modules[0].collectives]}
print(json.dumps(out))
"""


def test_a_sharded_donation_the_output_cannot_reuse_and_its_fix(tmp_path):
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    r = subprocess.run([sys.executable, "-c", SHARDED], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    dropped, fixed = out["dropped"], out["fixed"]
    # 1024 rows over 8 devices in, 1024 rows over 'a' (2) out: 128 rows per device in, 512 out.
    assert dropped["requested"] is True and dropped["donated"] is False
    assert "f32[128,256]" in dropped["dropped"] and "f32[512,256]" in dropped["dropped"]
    assert "out_shardings" in dropped["dropped"]
    assert dropped["collectives"] == ["all-gather"]
    # The gather re-shards the result into the output's sharding; its hint is the same fix.
    assert dropped["rules"] == ["reshard-for-output"]
    assert dropped["hints"][0].startswith("if the caller does not need that sharding, let the output keep")
    # The fix, as both say: the output sharded like the argument keeps the donation, and
    # the gather is gone.
    assert fixed["requested"] is True and fixed["donated"] is True and fixed["dropped"] is None
    assert fixed["collectives"] == []
    # A train-state dict: every leaf's gather and dropped donation, and the fix per leaf.
    tree, tree_fixed = out["tree_dropped"], out["tree_fixed"]
    assert tree["rules"] == ["reshard-for-output", "reshard-for-output"]
    assert tree["dropped"] == [True, True] and tree["donated"] == [False, False]
    assert tree_fixed["rules"] == [] and tree_fixed["donated"] == [True, True]
    assert tree_fixed["dropped"] == [False, False]
