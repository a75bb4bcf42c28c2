"""Which sharding asked for a re-shard, read from the module before SPMD partitioning.

tests/fixtures/reshard-origin/<target>/<program>/ holds a program compiled as written and,
beside it in <program>.fixed/, compiled with the two shardings hloscope names made to agree
(tools/gen_reshard_origin_fixtures.py; 8 CPU host devices and a TPU v5e 2x2, compile only).
Each folder has XLA's `--xla_dump_hlo_pass_re=spmd-partitioning` dump of the module just
before partitioning (before-partitioning.hlo.txt), which `hloscope check` finds beside
module.hlo.txt. The sentence is checked against that module's own shardings and against the
program's (meta.json), and the fix it points to is proven by the compile: the collective is
gone from <program>.fixed/.
"""
import glob
import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

BASE = os.path.join(ROOT, "tests", "fixtures", "reshard-origin")
CASES = sorted(d for d in glob.glob(os.path.join(BASE, "*", "*")) if not d.endswith(".fixed"))


def _check(hloscope_bin, d, *extra):
    out = subprocess.run([hloscope_bin, "check", "--format", "json", os.path.join(d, "module.hlo.txt"), *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["modules"][0]


def _meta(d):
    with open(os.path.join(d, "meta.json")) as f:
        return json.load(f)


def _shards(spec, rank, devices):
    """Tiles per dimension of a PartitionSpec over the 1-D mesh axis "x"."""
    return [devices if i < len(spec) and spec[i] == "x" else 1 for i in range(rank)]


def _id(d):
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


@pytest.mark.parametrize("d", CASES, ids=_id)
def test_the_reshard_names_the_shardings_that_differ_and_the_fix_removes_it(hloscope_bin, d):
    meta, fixed = _meta(d), _meta(d + ".fixed")
    devices = meta["mesh"]["x"]
    m = _check(hloscope_bin, d)
    assert m["pre_partition"].endswith("before-partitioning.hlo.txt")
    [c] = m["collectives"]
    origin = c["cause_facts"]["before_partitioning"]
    assert origin is not None, c["cause_detail"]
    # The shardings are the ones the module before partitioning carries.
    with open(os.path.join(d, "before-partitioning.hlo.txt")) as f:
        pre = f.read()
    for who in ("consumer", "operand"):
        name = origin[who]["instruction"]
        line = next(l for l in pre.splitlines() if l.lstrip().lstrip("ROOT ").startswith(f"%{name} = "))
        assert f"sharding={origin[who + '_sharding']}" in line
    assert origin["consumer_shards"] != origin["operand_shards"]
    assert "before partitioning" in c["cause_detail"]

    program = meta["program"]
    if program in ("elementwise_operand", "dynamic_update_buffer", "output_sharding", "sharding_constraint"):
        # The operand is the argument whose sharding the caller gave.
        k = origin["operand_parameter"]
        assert k is not None and origin["parameter_sharding_given"] is True
        assert origin["operand_shards"] == _shards(meta["arg_specs"][k], 2, devices)
    if program == "elementwise_operand":
        # The fix gives that argument the consumer's split.
        assert _shards(fixed["arg_specs"][k], 2, devices) == origin["consumer_shards"]
    if program == "dynamic_update_buffer":
        assert origin["consumer_is_constraint"] is True
        assert "with_sharding_constraint" in c["cause_detail"] and "asks for split" in c["cause_detail"]
        assert _shards(fixed["arg_specs"][k], 2, devices) == origin["consumer_shards"]
    if program == "output_sharding":
        assert origin["consumer_is_output"] is True and origin["output_sharding_given"] is True
        assert "as out_shardings ask" in c["cause_detail"]
        assert origin["consumer_shards"] == _shards(meta["out_spec"], 2, devices)
        # The fix asks for the operand's split.
        assert _shards(fixed["out_spec"], 2, devices) == origin["operand_shards"]

    # Compiled with the shardings made to agree: no collective left.
    assert _check(hloscope_bin, d + ".fixed")["collectives"] == []


def test_without_the_module_before_partitioning_the_cause_stands_alone(hloscope_bin, tmp_path):
    d = os.path.join(BASE, "cpu", "elementwise_operand")
    shutil.copy(os.path.join(d, "module.hlo.txt"), tmp_path / "module.hlo.txt")
    m = _check(hloscope_bin, str(tmp_path))
    assert m["pre_partition"] is None
    [c] = m["collectives"]
    assert c["cause"] == "reshard" and c["cause_facts"]["before_partitioning"] is None
    assert "before partitioning" not in c["cause_detail"]
    # --no-pre-partition turns it off where the dump is there.
    m = _check(hloscope_bin, d, "--no-pre-partition")
    assert m["pre_partition"] is None and m["collectives"][0]["cause_facts"]["before_partitioning"] is None


def test_another_modules_dump_is_not_used_and_said_so(hloscope_bin, tmp_path):
    d = os.path.join(BASE, "cpu", "elementwise_operand")
    other = os.path.join(ROOT, "tests", "fixtures", "sharded-cpu", "ring_ppermute", "module.hlo.txt")
    shutil.copy(other, tmp_path / "module.hlo.txt")
    shutil.copy(os.path.join(d, "before-partitioning.hlo.txt"), tmp_path / "before-partitioning.hlo.txt")
    out = subprocess.run([hloscope_bin, "check", "--format", "json", str(tmp_path / "module.hlo.txt")],
                         capture_output=True, text=True, check=True)
    m = json.loads(out.stdout)["modules"][0]
    assert m["pre_partition"] is None
    assert all(c["cause_facts"]["before_partitioning"] is None for c in m["collectives"])
    assert "was not used to explain re-shards: it describes another module" in out.stderr


def test_every_target_and_program_is_covered():
    targets = {os.path.basename(os.path.dirname(d)) for d in CASES}
    assert {"cpu", "tpu-v5e-2x2"} <= targets
    for d in CASES:
        assert os.path.isdir(d + ".fixed"), d


def test_inspect_asks_xla_for_the_module_before_partitioning():
    """hloscope.inspect dumps it too: a sharded function compiled for a TPU slice says which
    shardings its re-shard reconciles."""
    hloscope = pytest.importorskip("hloscope")
    jax = pytest.importorskip("jax")
    from importlib import metadata
    try:
        metadata.version("libtpu")
    except metadata.PackageNotFoundError:
        pytest.skip("libtpu not installed (bash tools/install-deps.sh --backends)")
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(hloscope.target_devices("tpu-v5e:2x2"), dtype=object), ("x",))
    rows = NamedSharding(mesh, P("x"))
    a = jax.ShapeDtypeStruct((64, 64), jax.numpy.float32, sharding=rows)
    report = hloscope.inspect(jax.jit(lambda a, b: a.T + b), a, a)
    m = report.modules[0]
    assert m.pre_partition and m.pre_partition.endswith("spmd-partitioning.txt")
    [c] = m.collectives
    origin = c.cause_facts["before_partitioning"]
    assert origin["operand_parameter"] == 1 and origin["operand_shards"] == [4, 1]
    assert origin["consumer_shards"] == [1, 4]
    assert "before partitioning" in c.cause_detail
