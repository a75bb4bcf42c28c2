"""Copy causes on sharded TPU train steps: no read-after-update where the reads come first.

In a data-, tensor- or FSDP-parallel train step compiled for TPU (plain JAX, flax linen and
nnx, equinox, optax), memory-space assignment prefetches each donated weight into another
memory space, and the optimizer updates it there. The forward pass reads the weight too, but
the update depends on that read through the gradient and its all-reduce, so copy insertion
orders the read before the write by itself: the prefetch protects nothing. hloscope used to
call these copies "read-after-update" (16 false causes in the issue; 20 in the committed
fixtures) and hint "read from the updated array"; they are memory-space moves.
"""
import glob
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT

TRAIN_STEPS = sorted(d for d in glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-tpu-*", "*"))
                     if any(k in os.path.basename(d) for k in ("train", "adamw")))


def _id(d):
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


@pytest.mark.parametrize("d", TRAIN_STEPS, ids=_id)
def test_a_prefetched_weight_the_update_reads_after_its_readers_is_a_memory_space_move(hloscope_bin, d):
    out = subprocess.run([hloscope_bin, "check", "--format", "json", os.path.join(d, "module.hlo.txt")],
                         capture_output=True, text=True, check=True)
    module = json.loads(out.stdout)["modules"][0]
    moves = [c for c in module["copies"] if c["class"] == "memory-space-move"]
    # Not vacuous: each asynchronous copy in the module's text (memory-space assignment's prefetches,
    # counted without the tool) is a memory-space move the tool must report.
    with open(os.path.join(d, "module.hlo.txt")) as f:
        prefetches = len(re.findall(r"\scopy-start\(", f.read()))
    assert prefetches >= 1 and len(moves) >= prefetches, (prefetches, [c["instruction"] for c in moves])
    for c in moves:
        assert c["cause"] != "read-after-update", (c["instruction"], c["cause_detail"])


def test_there_are_train_steps_on_both_tpus():
    assert len(TRAIN_STEPS) >= 15
    assert {os.path.basename(os.path.dirname(d)).split(".")[0] for d in TRAIN_STEPS} == {
        "sharded-tpu-v5e", "sharded-tpu-v4"}


HEADS_AT_SET = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-cpu*", "kv_decode_heads_at_set*")))


@pytest.mark.parametrize("d", HEADS_AT_SET, ids=_id)
def test_the_copies_xla_adds_back_for_a_reshaped_update_are_update_reshaped(hloscope_bin, d):
    """A head-sharded decode loop (`cache.at[:, :, pos].set(k)`, 8 CPU devices): XLA:CPU fuses the
    write of each cache with the reshape the attention's einsum needs, so the fusion returns
    f32[2,S,32] for an f32[2,1,S,32] operand. XLA's copy-insertion dump of this program
    (`--xla_dump_hlo_pass_re=copy-insertion`, JAX 0.10.2) has exactly two copies that appear only
    "after adding special-case copies", one feeding each such fusion: those two are update-reshaped;
    the interference copies beside them stay read-after-update."""
    out = subprocess.run([hloscope_bin, "check", "--format", "json", os.path.join(d, "module.hlo.txt")],
                         capture_output=True, text=True, check=True)
    copies = json.loads(out.stdout)["modules"][0]["copies"]
    reshaped = [c for c in copies if c["cause"] == "update-reshaped"]
    assert len(reshaped) == 2, [(c["instruction"], c["cause"]) for c in copies]
    for c in reshaped:
        facts = c["cause_facts"]
        assert facts["family"] == "reshaped" and facts["sliced_from"] is None
        dims = [f.split("[")[1].split("]")[0].split(",") for f in (facts["operand_shape"], facts["result_shape"])]
        assert dims[0][:2] == ["2", "1"] and dims[1] == [dims[0][0]] + dims[0][2:], dims  # the 1 squeezed out
    big = [c for c in copies if c["shape"].startswith("f32[2,1,") and c not in reshaped]
    assert big and all(c["cause"] == "read-after-update" for c in big), [(c["instruction"], c["cause"]) for c in big]
