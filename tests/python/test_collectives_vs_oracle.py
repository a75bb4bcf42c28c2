"""Every collective `hloscope check` lists, against the independent oracle, on every sharded fixture.

The oracle (tools/collective_oracle.py, standard-library Python sharing no code with the C++
parser) lists each collective of a module with its bytes sent and received per device per
execution (from the shapes and the replica groups) and its executions per call (from the trip
counts); its expectations are committed next to each fixture as collectives.oracle.json. Here
hloscope's JSON must list the same collectives with the same figures: none missing, none extra,
none counted twice (async pairs, async wrappers, TPU's async collective fusion chains).

Bytes are physical: the shapes' layouts (TPU tiles) pad them, as they do the buffers XLA sends.
"""
import glob
import json
import os
import subprocess
from collections import Counter

import pytest

from conftest import ROOT

FIXTURES = sorted(os.path.dirname(p) for p in glob.glob(
    os.path.join(ROOT, "tests", "fixtures", "sharded-*", "*", "collectives.oracle.json")))


def _id(d):
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


def _hloscope(hloscope_bin, d):
    out = subprocess.run([hloscope_bin, "check", "--format", "json", "--no-buffer-assignment",
                          os.path.join(d, "module.hlo.txt")], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["modules"][0]


def _key(name, sent, received, executions):
    return (name, sent, received, executions)


@pytest.mark.parametrize("d", FIXTURES, ids=_id)
def test_every_collective_has_the_oracles_bytes_and_executions(hloscope_bin, d):
    with open(os.path.join(d, "collectives.oracle.json")) as f:
        oracle = json.load(f)
    module = _hloscope(hloscope_bin, d)
    expected = Counter()
    for c in oracle["collectives"]:
        if c["role"] in ("done", "update", "chain"):
            continue
        expected[_key(c["name"], c["bytes_sent_per_device"], c["bytes_received_per_device"],
                      c["executions_per_call"])] += 1
    got = Counter()
    for c in module["collectives"]:
        # The oracle names a wrapped or fused collective by the instruction inside the wrapper,
        # except a generic async-start, which it names itself.
        names = {k[0] for k in expected}
        name = c["collective"]["instruction"] if c["collective"] else c["instruction"]
        if name not in names and c["instruction"] in names:
            name = c["instruction"]
        got[_key(name, c["bytes_sent"], c["bytes_received"], c["executions"])] += 1
    assert got == expected
    assert module["spmd"]["num_partitions"] == oracle["num_partitions"]
    assert module["spmd"]["replica_count"] == oracle["replica_count"]


def test_per_call_totals_agree_and_every_backend_is_covered(hloscope_bin):
    backends = Counter(os.path.basename(os.path.dirname(d)).split(".")[0] for d in FIXTURES)
    assert {"sharded-cpu", "sharded-tpu-v5e", "sharded-tpu-v4", "sharded-gpu-h100"} <= set(backends)
    assert len(FIXTURES) >= 100
