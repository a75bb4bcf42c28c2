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
    for c in module["copies"]:
        if c["class"] != "memory-space-move":
            continue
        assert c["cause"] != "read-after-update", (c["instruction"], c["cause_detail"])


def test_there_are_train_steps_on_both_tpus():
    assert len(TRAIN_STEPS) >= 15
    assert {os.path.basename(os.path.dirname(d)).split(".")[0] for d in TRAIN_STEPS} == {
        "sharded-tpu-v5e", "sharded-tpu-v4"}
