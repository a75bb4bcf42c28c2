"""The seed's symptom on a sharded buffer, through every door.

`buf.at[i].set(row)` on a row-sharded buffer inside `fori_loop`, compiled for TPU (v5e 2x2, v4;
JAX 0.10.2 and 0.12), gathers the whole buffer every iteration. hloscope must not print a bare
"in place ✓": the update names the gather, the gather is a finding with its cause
(gather-for-dynamic-update) and its hint, the default gates fail on it (reshards-in-loops),
and the hint, applied as the user would type it (`lax.dynamic_update_slice(buf, row[None],
(i, 0))`: the committed replay_buffer_dus compile of the same program), removes the gather
and passes. `diff` between the two, and Python's report, say the same.
"""
import glob
import json
import os
import subprocess

import pytest

from conftest import ROOT

AT_SET = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-*", "replay_buffer_at_set")))


def _json(hloscope_bin, path):
    out = subprocess.run([hloscope_bin, "check", "--format", "json", path], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)["modules"][0]


def _gathered(module):
    return [c for c in module["collectives"] if c["cause_rule"] == "gather-for-dynamic-update"]


def _id(d):
    return os.path.basename(os.path.dirname(d))


@pytest.mark.parametrize("d", AT_SET, ids=_id)
def test_a_gathered_update_fails_the_default_gates_and_the_hint_removes_it(hloscope_bin, d):
    hlo = os.path.join(d, "module.hlo.txt")
    module = _json(hloscope_bin, hlo)
    gathers = _gathered(module)
    if not gathers:
        # CPU and GPU partition this program without a gather: nothing to flag, nothing flagged.
        r = subprocess.run([hloscope_bin, "check", "--fail", hlo], capture_output=True, text=True)
        assert "reshards-in-loops" not in r.stderr and "collective in a loop" not in r.stderr
        return
    g = gathers[0]
    assert g["enclosing_loops"] and g["grows_with_buffer"]
    assert g["hint"].startswith("write the row with lax.dynamic_update_slice(buf, row[None], (i, 0))")
    # The update it serves is not a bare "in place": it names the gather.
    served = [u for u in module["updates"] if u["gathered_by"]]
    assert served and served[0]["gathered_by"]["instruction"] == g["instruction"]
    text = subprocess.run([hloscope_bin, "check", "--fail", hlo], capture_output=True, text=True)
    assert text.returncode == 1
    assert f"{g['instruction']} gathers the whole" in text.stdout
    assert "on the local shard, after a gather of the whole buffer" in text.stdout
    assert g["instruction"] in text.stderr and "dynamic-index" in text.stderr
    # The hint applied: the same program written with lax.dynamic_update_slice.
    fixed = os.path.join(os.path.dirname(d), "replay_buffer_dus", "module.hlo.txt")
    fixed_module = _json(hloscope_bin, fixed)
    assert not _gathered(fixed_module)
    assert not [c for c in fixed_module["collectives"] if c["enclosing_loops"] and c["grows_with_buffer"]]
    r = subprocess.run([hloscope_bin, "check", "--fail-on", "reshards-in-loops", fixed], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    # diff: the gather is a regression of B against A.
    r = subprocess.run([hloscope_bin, "diff", "--fail", fixed, hlo], capture_output=True, text=True)
    assert r.returncode == 1
    assert "reshards-in-loops" in r.stderr and "dynamic-index" in r.stderr
    r = subprocess.run([hloscope_bin, "diff", "--fail", hlo, fixed], capture_output=True, text=True)
    assert "reshards-in-loops" not in r.stderr


def test_at_least_three_compiles_gather(hloscope_bin):
    # TPU v5e and v4, JAX 0.10.2 and 0.12: the case above is not vacuous.
    assert sum(bool(_gathered(_json(hloscope_bin, os.path.join(d, "module.hlo.txt")))) for d in AT_SET) >= 3


def test_python_report_carries_the_collectives(hloscope_bin):
    hloscope = pytest.importorskip("hloscope")
    d = os.path.join(ROOT, "tests", "fixtures", "sharded-tpu-v5e", "replay_buffer_at_set", "module.hlo.txt")
    report = hloscope.analyze(open(d).read())
    m = report.modules[0]
    assert m.spmd["devices"] == 4 and m.spmd["num_partitions"] == 4
    assert [c.cause for c in m.collectives] == ["dynamic-index"]
    c = m.collectives[0]
    assert isinstance(c, hloscope.Collective) and c.in_loop and c.grows_with_buffer
    assert m.collective_bytes == c.total_bytes == c.bytes * 32
    assert m.loops[0].collective_bytes_per_iteration == c.bytes
    with pytest.raises(AssertionError, match="dynamic-index"):
        hloscope.assert_inplace(report)
