"""A loop carry passed through lax.ppermute, compiled here for 4 devices: on the CPU (4 host
devices) and for a TPU v5e 2x2 without the hardware.

XLA's collective-permute never receives into the buffer it sends from, so the permuted carry
lands in a second buffer and XLA copies it back into the carry every iteration (the `copy` in
the while body is XLA's own). hloscope must give that copy its cause (`carry-permuted`, not
"rebuilt with concatenate/roll"), and its hint must work: with `unroll=2` the two permutes of
an iteration alternate between the carry's buffer and a second one and the copy is gone, which
the fixed program's compile shows.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT

PROGRAM = r"""
import os, sys
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
shard_map = getattr(jax, "shard_map", None)
if shard_map is None:
    from jax.experimental.shard_map import shard_map
target, unroll, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if target == "tpu":
    from jax.experimental import topologies
    devices = topologies.get_topology_desc("v5e:2x2", "tpu").devices
else:
    devices = jax.devices()
mesh = Mesh(devices[:4], ("x",))
perm = [(i, (i + 1) % 4) for i in range(4)]

def body(i, carry):
    a, acc = carry
    a = jax.lax.ppermute(a, "x", perm)
    return a, acc + a

def ring(a):
    return jax.lax.fori_loop(0, 8, body, (a, jnp.zeros_like(a)), unroll=unroll)

f = shard_map(ring, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")))
arg = jax.ShapeDtypeStruct((4 * 1024, 256), jnp.float32, sharding=NamedSharding(mesh, P("x")))
jax.jit(f).lower(arg).compile(compiler_options={"xla_dump_to": out})
"""

SHARD_BYTES = 1024 * 256 * 4  # one device's f32[1024,256]


def _have_libtpu():
    from importlib import metadata
    try:
        metadata.version("libtpu")
        return True
    except metadata.PackageNotFoundError:
        return False


def _compile(tmp, target, unroll):
    pytest.importorskip("jax")
    out = os.path.join(tmp, f"{target}-unroll{unroll}")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    if target == "cpu":
        env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    script = os.path.join(tmp, "ring.py")
    with open(script, "w") as f:
        f.write(PROGRAM)
    r = subprocess.run([sys.executable, script, target, str(unroll), out], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    hlo = [n for n in os.listdir(out) if re.search(r"jit_ring\..*after_optimizations\.txt$", n)]
    assert len(hlo) == 1, sorted(os.listdir(out))
    return os.path.join(out, hlo[0])


def _check(hloscope_bin, path):
    r = subprocess.run([hloscope_bin, "check", "--format", "json", path], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["modules"][0], open(path).read()


def _copies_in_loops_by_xla(text):
    """Non-scalar `copy` instructions in while bodies, read from XLA's text (not hloscope's)."""
    bodies = set(re.findall(r"while\([^)]*\),[^\n]*?body=%?([\w.\-]+)", text))
    found, comp = [], None
    for line in text.splitlines():
        m = re.match(r"^(?:ENTRY )?%?([\w.\-]+) .*\{$", line)
        if m:
            comp = m.group(1)
        m = re.match(r"^\s+(?:ROOT )?%?([\w.\-]+) = (\w+)\[([^\]]+)\][^ ]* copy\(", line)
        if m and comp in bodies:
            found.append(m.group(1))
    return found


TARGETS = ["cpu", pytest.param("tpu", marks=pytest.mark.skipif(
    not _have_libtpu(), reason="libtpu not installed (bash tools/install-deps.sh --backends)"))]


@pytest.mark.parametrize("target", TARGETS)
def test_permuted_carry_is_double_buffered_and_unroll_2_removes_the_copy(hloscope_bin, target):
    with tempfile.TemporaryDirectory(prefix="hloscope-ring-") as tmp:
        slow, slow_text = _check(hloscope_bin, _compile(tmp, target, 1))
        fixed, fixed_text = _check(hloscope_bin, _compile(tmp, target, 2))

    # XLA copies the permuted carry in the loop, and hloscope says why.
    xla_copies = _copies_in_loops_by_xla(slow_text)
    assert len(xla_copies) == 1, xla_copies
    permuted = [c for c in slow["copies"] if c["cause_rule"] == "carry-permuted"]
    assert [c["instruction"] for c in permuted] == xla_copies
    (copy,) = permuted
    assert copy["cause"] == "loop-carried-live"
    assert copy["bytes"] == SHARD_BYTES and copy["executions"] == 8
    assert "received by the collective-permute" in copy["cause_detail"]
    assert "unroll=2" in copy["hint"]
    assert slow["copies"][0]["instruction"] == copy["instruction"]  # ranked first: 8 MiB per call
    (loop,) = slow["loops"]
    assert loop["copy_bytes_per_iteration"] == SHARD_BYTES

    # The hint works: unrolled by 2, XLA copies nothing in the loop.
    assert _copies_in_loops_by_xla(fixed_text) == []
    assert not [c for c in fixed["copies"] if c["enclosing_loops"]]
    (loop,) = fixed["loops"]
    assert loop["copy_bytes_per_iteration"] == 0
    assert loop["trip_count"] == 4
