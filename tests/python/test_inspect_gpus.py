"""hloscope.inspect(f, *args, target="gpu-h100:4"): a sharded function compiled for several GPUs
this machine does not have, with the user's shardings (the CUDA plugin's compile-only topology).

The seed's question on 4 H100s: `buf.at[i].set(row)` on a row-sharded buffer inside `fori_loop`
gathers the whole buffer every iteration; written with `lax.dynamic_update_slice`, as the hint says,
it does not. The verdicts come from XLA:GPU's own buffer assignment of that compile.
"""
import pytest

from conftest import run_program_json
from test_inspect_slice import SEED_LOOP

pytest.importorskip("hloscope")
pytest.importorskip("jax")

PROGRAM = SEED_LOOP.replace("device_count=8", "device_count=4") + r"""
out = {}
for name, fn in (("at_set", at_set), ("dus", dus)):
    try:
        r = hloscope.inspect(jax.jit(fn, donate_argnums=0), buf, rows, target="gpu-h100:4")
    except hloscope.TargetUnavailable as e:
        print(json.dumps({"unavailable": str(e)}))
        sys.exit(0)
    m = r.modules[0]
    out[name] = {"spmd": m.spmd, "notes": r.notes,
                 "collectives": [(c.family, c.cause_rule, c.in_loop, c.hint) for c in m.collectives],
                 "updates": [(u.verdict, u.confirmed) for u in m.updates],
                 "text": str(r)}
print(json.dumps(out))
"""


def test_a_sharded_function_compiles_for_several_gpus_with_its_shardings():
    out = run_program_json(PROGRAM)
    at_set, dus = out["at_set"], out["dus"]
    assert at_set["spmd"]["devices"] == 4 and at_set["spmd"]["num_partitions"] == 4
    assert any("compiled for gpu-h100:4 (4 × NVIDIA H100" in n for n in at_set["notes"]), at_set["notes"]
    assert "every byte figure is per device" in at_set["text"]
    gathers = [c for c in at_set["collectives"] if c[1] == "gather-for-dynamic-update" and c[2]]
    assert len(gathers) == 1, at_set["collectives"]
    assert gathers[0][3].startswith("write the row with lax.dynamic_update_slice(buf, row[None], (i, 0))")
    # The hint applied as printed: no gather inside the loop, and the update is in place per
    # XLA:GPU's buffer assignment.
    assert not [c for c in dus["collectives"] if c[0] == "all-gather" and c[2]], dus["collectives"]
    assert ("in-place", True) in [tuple(u) for u in dus["updates"]], dus["updates"]


def test_gpu_counts_resolve_to_the_cuda_topology():
    from hloscope import _targets
    for name, topology, gpus in (("gpu-h100:8", "1x1x8", 8), ("gpu-h100:2x4", "1x2x4", 8),
                                 ("gpu-a100:1x2x2", "1x2x2", 4)):
        t = _targets.resolve(name)
        assert (t.platform, t.topology) == ("gpu", topology)
        assert f"{gpus} GPUs" in t.description
        assert t.config_path == _targets.TARGETS[name.split(":")[0]].config_path
    for bad in ("gpu-h100:0", "gpu-h100:x4", "gpu-h100:1x1x1x8"):
        with pytest.raises(ValueError, match="unknown GPU count"):
            _targets.resolve(bad)
