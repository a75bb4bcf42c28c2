""""Grows with buffer size" on a loop's collective is a claim about a compile at another size.

For every sharded fixture compiled at two sizes (NAME and NAME@4x: the buffer 4× larger, the
program otherwise the same; CPU with 8 host devices, TPU v5e/v4 and 8×H100 compile-only), every
collective inside a loop that hloscope says moves a loop-carried buffer whole every iteration
("grows with buffer size") must move about 4× the bytes per iteration in the 4× compile, and
every one it does not flag must not grow. The collectives are matched by family, cause and
enclosing loop depth (instruction names differ between compiles).

The measured times of the CPU programs (tests/fixtures/sharded-cpu/growth.json, from
bench/sharded_growth_bench.py) are the other half: the loops whose time grows ≥ 2.5× because of
a collective are flagged (checked below); a flagged loop whose time grew less moved 4× the bytes
nonetheless (the claim is about bytes, the time also depends on the compute around it).
"""
import glob
import json
import os
import subprocess
from collections import defaultdict

import pytest

from conftest import ROOT

PAIRS = sorted(d[:-3] for d in glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-*", "*@4x")))


def _check(hloscope_bin, d):
    out = subprocess.run([hloscope_bin, "check", "--format", "json", "--no-buffer-assignment",
                          os.path.join(d, "module.hlo.txt")], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["modules"][0]


def _in_loop_collectives(module):
    """(family, cause, loop depth) -> [(bytes per execution, grows)] of the collectives inside loops."""
    grows = {(s["collective"]["computation"], s["collective"]["instruction"]): s["grows_with_buffer"]
             for l in module["loops"] for s in l["scaling"] if s["kind"] == "collective"}
    out = defaultdict(list)
    for c in module["collectives"]:
        if not c["enclosing_loops"]:
            continue
        key = (c["family"], c["cause"], len(c["enclosing_loops"]))
        out[key].append((c["bytes"], grows.get((c["computation"], c["instruction"]), False)))
    return out


def _id(d):
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


@pytest.mark.parametrize("d", PAIRS, ids=_id)
def test_grows_with_buffer_size_holds_at_4x(hloscope_bin, d):
    small = _in_loop_collectives(_check(hloscope_bin, d))
    large = _in_loop_collectives(_check(hloscope_bin, d + "@4x"))
    assert small.keys() == large.keys()
    for key in small:
        a = sorted(small[key])
        b = sorted(large[key])
        assert len(a) == len(b), key
        for (bytes_n, grows), (bytes_4n, grows_4n) in zip(a, b):
            assert grows == grows_4n, key
            ratio = bytes_4n / bytes_n if bytes_n else 1.0
            if grows:
                assert ratio >= 3.0, (key, bytes_n, bytes_4n)
            else:
                assert ratio <= 1.5, (key, bytes_n, bytes_4n)


def test_loops_that_slow_down_because_of_a_collective_are_flagged(hloscope_bin):
    with open(os.path.join(ROOT, "tests", "fixtures", "sharded-cpu", "growth.json")) as f:
        growth = json.load(f)
    checked = 0
    for name, p in growth["programs"].items():
        module = _check(hloscope_bin, os.path.join(ROOT, "tests", "fixtures", "sharded-cpu", name))
        flagged = any(s["kind"] == "collective" and s["grows_with_buffer"]
                      for l in module["loops"] for s in l["scaling"])
        in_loops = any(c["enclosing_loops"] for c in module["collectives"])
        collective_bytes_grow = p["collective_bytes_sent_per_call_4n"] >= 3 * max(p["collective_bytes_sent_per_call_n"], 1)
        if p["grows"] and collective_bytes_grow and in_loops:
            assert flagged, name
            checked += 1
        if not collective_bytes_grow:
            assert not flagged, name
    assert checked >= 3
