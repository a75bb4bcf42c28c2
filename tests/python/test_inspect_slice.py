"""hloscope.inspect(f, *args, target="tpu-v5e:2x2"): a sharded function compiled for a TPU slice
this machine does not have, with the user's shardings.

The arguments are sharded on this machine's devices (8 CPU host devices, in a subprocess); inspect
moves each mesh onto the slice's devices (same shape, axis names and partition specs) and compiles
for the TPU without the hardware. The seed's question on a slice: `buf.at[i].set(row)` on a
row-sharded buffer inside `fori_loop` gathers the whole buffer every iteration; the same program
written with `lax.dynamic_update_slice`, as the hint says, does not. A `shard_map` binds its mesh
itself: it is built on `hloscope.target_devices(target)`.
"""
import pytest

from conftest import run_program_json

pytest.importorskip("hloscope")
pytest.importorskip("jax")

# The seed's loop on a row-sharded buffer over 4 CPU host devices, and the same loop written the
# way the hint says (test_inspect_gpus.py compiles it for GPUs).
SEED_LOOP = r"""
import json, os, sys, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np
import hloscope
warnings.simplefilter("ignore")
mesh = Mesh(np.array(jax.devices()[:4]), ("x",))
buf = jax.device_put(jnp.zeros((4096, 64)), NamedSharding(mesh, P("x", None)))
rows = jnp.ones((32, 64))

def at_set(buf, rows):
    return lax.fori_loop(0, 32, lambda i, b: b.at[i * 7].set(rows[i]), buf)

def dus(buf, rows):
    return lax.fori_loop(0, 32, lambda i, b: lax.dynamic_update_slice(b, rows[i][None], (i * 7, 0)), buf)
"""

PROGRAM = SEED_LOOP + r"""
out = {}
for name, fn in (("at_set", at_set), ("dus", dus)):
    try:
        r = hloscope.inspect(jax.jit(fn, donate_argnums=0), buf, rows, target="tpu-v5e:2x2")
    except hloscope.TargetUnavailable as e:
        print(json.dumps({"unavailable": str(e)}))
        sys.exit(0)
    m = r.modules[0]
    out[name] = {"spmd": m.spmd, "notes": r.notes,
                 "collectives": [(c.family, c.cause_rule, c.in_loop, c.grows_with_buffer) for c in m.collectives],
                 "text": str(r)}
# The hint applied to pytree state, as printed: a train-state dict and a KV-cache tuple.
kv = (buf, jax.device_put(jnp.zeros((4096, 64)), NamedSharding(mesh, P("x", None))))
state = {"buf": buf, "count": jnp.zeros((), jnp.int32)}

def state_at_set(state, rows):
    def step(i, s):
        return {"buf": s["buf"].at[i * 7].set(rows[i]), "count": s["count"] + 1}
    return lax.fori_loop(0, 32, step, state)

def state_dus(state, rows):
    def step(i, s):
        return {"buf": lax.dynamic_update_slice(s["buf"], rows[i][None], (i * 7, 0)), "count": s["count"] + 1}
    return lax.fori_loop(0, 32, step, state)

def kv_at_set(kv, rows):
    return lax.fori_loop(0, 32, lambda i, c: (c[0].at[i * 7].set(rows[i]), c[1].at[i * 7].set(rows[i])), kv)

def kv_dus(kv, rows):
    return lax.fori_loop(0, 32, lambda i, c: (lax.dynamic_update_slice(c[0], rows[i][None], (i * 7, 0)),
                                              lax.dynamic_update_slice(c[1], rows[i][None], (i * 7, 0))), kv)

for name, fn, arg in (("state_at_set", state_at_set, state), ("state_dus", state_dus, state),
                      ("kv_at_set", kv_at_set, kv), ("kv_dus", kv_dus, kv)):
    r = hloscope.inspect(jax.jit(fn, donate_argnums=0), arg, rows, target="tpu-v5e:2x2")
    out[name] = [(c.family, c.cause_rule, c.in_loop, c.hint) for c in r.modules[0].collectives]

# A function that binds its own mesh is built on the slice's devices.
shard_map = getattr(jax, "shard_map", None)
if shard_map is None:
    from jax.experimental.shard_map import shard_map
tmesh = Mesh(np.array(hloscope.target_devices("tpu-v5e:2x2")), ("x",))
ring = shard_map(lambda a: lax.psum(a, "x"), mesh=tmesh, in_specs=P("x"), out_specs=P())
arg = jax.ShapeDtypeStruct((4096, 64), jnp.float32, sharding=NamedSharding(tmesh, P("x")))
r = hloscope.inspect(jax.jit(ring), arg, target="tpu-v5e:2x2")
out["shard_map"] = [(c.family, c.cause_rule) for c in r.modules[0].collectives]
print(json.dumps(out))
"""


def test_a_sharded_function_compiles_for_a_tpu_slice_with_its_shardings():
    out = run_program_json(PROGRAM)
    at_set, dus = out["at_set"], out["dus"]
    assert at_set["spmd"]["devices"] == 4 and at_set["spmd"]["num_partitions"] == 4
    assert any("compiled for tpu-v5e:2x2 (4 ×" in n for n in at_set["notes"])
    assert ["all-gather", "gather-for-dynamic-update", True, True] in at_set["collectives"]
    assert "every byte figure is per device" in at_set["text"]
    # The hint applied: no gather.
    assert not [c for c in dus["collectives"] if c[0] == "all-gather" and c[2]]
    # The same on pytree state (a train-state dict, a KV-cache tuple): each gathered update has
    # the hint, and the hint applied as printed removes every gather inside the loop.
    for slow, fixed, gathers in (("state_at_set", "state_dus", 1), ("kv_at_set", "kv_dus", 2)):
        found = [c for c in out[slow] if c[1] == "gather-for-dynamic-update" and c[2]]
        assert len(found) == gathers, out[slow]
        assert all(c[3].startswith("write the row with lax.dynamic_update_slice(buf, row[None], (i, 0))")
                   for c in found)
        assert not [c for c in out[fixed] if c[0] == "all-gather" and c[2]], out[fixed]
    # shard_map on hloscope.target_devices: the program's own psum.
    assert ["all-reduce", "explicit-collective"] in out["shard_map"]


def test_slice_names_resolve_and_a_mesh_of_another_size_is_refused():
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import numpy as np
    from hloscope import _targets
    t = _targets.resolve("tpu-v5e:2x2")
    assert (t.platform, t.topology) == ("tpu", "v5e:2x2")
    assert "4 chips" in t.description
    assert _targets.resolve("tpu-v4:2x2x1").topology == "v4:2x2x1"
    with pytest.raises(ValueError, match="unknown TPU topology"):
        _targets.resolve("tpu-v5e:2xz")
    one = Mesh(np.array(jax.devices()[:1]), ("x",))
    x = jax.ShapeDtypeStruct((8, 4), jax.numpy.float32, sharding=NamedSharding(one, P("x")))
    with pytest.raises(ValueError, match="sharded over a mesh of 1 devices .* the target has 4"):
        _targets.place_sharded([x], jax.devices()[:1] * 4)
