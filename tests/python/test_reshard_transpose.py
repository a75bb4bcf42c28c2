"""A transpose that is part of a re-shard is named so, and its hint holds when compiled.

XLA's partitioner re-shards with an all-to-all over reshaped data, and layout assignment makes
the transposes around it physical copies. On a TPU those copies used to read "layout-change: a
transpose in your code forces it", which sends the user looking for a transpose they never
wrote. They are now rule `reshard-transpose`: part of the re-shard by the all-to-all beside it,
fixed by removing the re-shard. Proven by compiling for a TPU v5e 2x2 without the hardware: a
loop whose carry is re-sharded every step (two `with_sharding_constraint`s) has such copies; the
same loop without the constraints, as the hint says, has neither the all-to-alls nor the copies.
"""
import pytest

from conftest import run_program_json

pytest.importorskip("hloscope")
pytest.importorskip("jax")

PROGRAM = r"""
import json, os, sys, warnings
import jax, jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np
import hloscope
warnings.simplefilter("ignore")
try:
    # The constraints name the mesh: it is built on the slice's devices.
    mesh = Mesh(np.array(hloscope.target_devices("tpu-v5e:2x2")), ("x",))
except hloscope.TargetUnavailable as e:
    print(json.dumps({"unavailable": str(e)}))
    sys.exit(0)
x = jax.ShapeDtypeStruct((1024, 512), jnp.float32, sharding=NamedSharding(mesh, P("x", None)))

def resharded(x):
    def body(i, x):
        x = lax.with_sharding_constraint(x, NamedSharding(mesh, P(None, "x")))
        x = x * 1.0001 + 1.0
        x = lax.with_sharding_constraint(x, NamedSharding(mesh, P("x", None)))
        return jnp.sin(x)
    return lax.fori_loop(0, 8, body, x)

def fixed(x):
    return lax.fori_loop(0, 8, lambda i, x: jnp.sin(x * 1.0001 + 1.0), x)

out = {}
for name, fn in (("resharded", resharded), ("fixed", fixed)):
    r = hloscope.inspect(jax.jit(fn, donate_argnums=0, out_shardings=NamedSharding(mesh, P("x", None))), x,
                         target="tpu-v5e:2x2")
    m = r.modules[0]
    out[name] = {"copies": [(c.cause, c.cause_rule, bool(c.enclosing_loops), c.cause_detail, c.hint,
                             (c.cause_facts or {}).get("collective"))
                            for c in m.copies if not c.scalar],
                 "collectives": [(c.family, c.in_loop) for c in m.collectives]}
print(json.dumps(out))
"""


def test_reshard_transposes_are_named_and_removing_the_reshard_removes_them():
    out = run_program_json(PROGRAM)
    slow, fixed = out["resharded"], out["fixed"]
    assert ["all-to-all", True] in slow["collectives"], slow
    transposes = [c for c in slow["copies"] if c[1] == "reshard-transpose"]
    assert transposes, slow["copies"]
    for cause, _, in_loop, detail, hint, collective in transposes:
        assert cause == "layout-change" and in_loop
        assert collective and collective["instruction"].startswith("all-to-all")
        assert f"part of the re-shard by {collective['instruction']}" in detail
        assert hint == (f"remove the re-shard and this transpose goes with it: see {collective['instruction']} "
                        "under COLLECTIVES for the sharding that forces it")
    # No layout change is left unexplained beside an all-to-all.
    assert not [c for c in slow["copies"] if c[1] == "layout-change" and c[2]], slow["copies"]
    # The hint applied: no all-to-all, and no layout-changing copy in the loop.
    assert not [c for c in fixed["collectives"] if c[0] == "all-to-all"], fixed
    assert not [c for c in fixed["copies"] if c[0] == "layout-change" and c[2]], fixed
