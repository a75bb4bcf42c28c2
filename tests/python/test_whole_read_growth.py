""""Grows with buffer size" on a loop's whole reads is a claim about a compile at another size.

For every sharded fixture compiled at two sizes (NAME and NAME@4x: the buffer 4× larger, the program
otherwise the same; CPU with 8 host devices, TPU v5e/v4 and 8×H100 compile-only), every kernel that
hloscope says reads a loop's buffer whole every iteration (a `whole-read` scaling entry: a KV-cache
decode step's attention) must read 4× the bytes where the 4× compile makes the same claim, its loop
must grow at 4× too, and the flagged kernels' own cost (bytes accessed by XLA's rules, from the `cost`
command — not the claim) must grow at least 3×. The decode fixtures are real sharded programs written
before the rule (tools/sharded_programs/decode.py).
"""
import glob
import json
import os
import subprocess

import pytest

from conftest import ROOT

PAIRS = sorted(d[:-3] for d in glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-*", "*@4x")))


def _run(hloscope_bin, command, d):
    flags = ["--no-buffer-assignment"] if command == "check" else []
    out = subprocess.run([hloscope_bin, command, "--format", "json", *flags, os.path.join(d, "module.hlo.txt")],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["modules"][0]


def _whole_reads(module):
    """(loop line, carry) -> [bytes, ...] of the whole-read entries; kernel names apart."""
    out, kernels = {}, {}
    for loop in module["loops"]:
        line = (loop["source"] or {}).get("text")
        for s in loop["scaling"]:
            if s["kind"] == "whole-read":
                out.setdefault((line, s["carry"]), []).append(s["bytes"])
                kernels.setdefault((line, s["carry"]), []).append(s["kernel"])
    return out, kernels


def test_the_fixtures_have_whole_reads(hloscope_bin):
    # The claim is not vacuous: KV-cache decode steps on CPU, GPU and TPU read their cache whole.
    flagged = [d for d in PAIRS if _whole_reads(_run(hloscope_bin, "check", d))[0]]
    assert len(flagged) >= 6, flagged


@pytest.mark.parametrize("small", PAIRS, ids=[os.path.relpath(d, os.path.join(ROOT, "tests", "fixtures"))
                                              for d in PAIRS])
def test_whole_reads_read_four_times_the_bytes_at_four_times_the_buffer(small, hloscope_bin):
    check_a, check_b = _run(hloscope_bin, "check", small), _run(hloscope_bin, "check", small + "@4x")
    a, kernels_a = _whole_reads(check_a)
    b, kernels_b = _whole_reads(check_b)
    # A loop flagged for its whole reads is flagged at 4× too (XLA may compile the larger program
    # otherwise: TPU v5e moves the 4× cache to another memory space and attends over its all-gather,
    # so the growth is its collectives' there).
    grows_b = {(l["source"] or {}).get("text") for l in check_b["loops"] if l["scales_with_buffer"]}
    assert {line for line, _ in a} <= grows_b, (a, grows_b)
    if os.path.basename(small).startswith("kv_decode"):
        # The fixture's program is a KV-cache decode step: its attention reads the cache whole
        # every iteration (tools/sharded_programs/decode.py), so the claim under test is there.
        assert a, "a KV-cache decode step with no whole read of its cache"
    compared = [key for key in a if key in b]
    if a and b:
        # Both sizes make the claim: it is about the same loops and carries, or nothing would be
        # compared below (a key lost at one size, e.g. a loop's line, would pass unchecked).
        assert compared, (sorted(a), sorted(b))
    for key in compared:
        sizes = a[key]
        assert len(sizes) == len(b[key]), (key, sizes, b[key])
        for x, y in zip(sorted(sizes), sorted(b[key])):
            assert y == pytest.approx(4 * x, rel=0.1), (key, x, y)
    if not compared:
        # No whole read at one size (most programs; TPU v5e's 4× cache: the loop's growth, asserted
        # above, is its collectives'): no kernel's bytes to compare.
        return
    # The flagged kernels' own bytes accessed per run (XLA's rules, the cost command, not the claim)
    # grow with the buffer: at least 3× for 4× (they also read and write small arrays).
    def flagged_bytes(d, ks):
        cost = {(k["computation"], k["instruction"]): k for k in _run(hloscope_bin, "cost", d)["kernels"]}
        return sum(cost[(k["computation"], k["instruction"])]["per_run"]["bytes_accessed"]
                   for v in ks.values() for k in v)
    assert flagged_bytes(small + "@4x", kernels_b) >= 3 * flagged_bytes(small, kernels_a)
