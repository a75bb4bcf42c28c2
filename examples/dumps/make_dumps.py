#!/usr/bin/env python3
"""Regenerates the bundled example dumps that the README runs `hloscope check` on.

    python3 examples/dumps/make_dumps.py

The program is the situation of docs/product-sketch.md: a replay buffer
written one row per step inside `lax.scan`, where the step also reads the
row it just replaced. XLA then copies the whole buffer every iteration.
The compiled module and XLA's buffer assignment are written next to this
file under XLA's own dump names, so `hloscope check` finds the buffer
assignment by itself. JAX version: recorded in replay_rollout.meta.json.
"""
import glob
import json
import os
import shutil
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CAPACITY, FEATURES, STEPS = 16384, 128, 1000


def rollout(buf, obs):
    def step(carry, x):
        buf, ptr = carry
        new_buf = buf.at[ptr].set(x)    # write this step's row
        old = buf[ptr]                  # ...then read the row it replaced
        return (new_buf, (ptr + 1) % CAPACITY), old.sum()
    (buf, _), sums = lax.scan(step, (buf, jnp.int32(0)), obs)
    return buf, sums


def main():
    buf = jnp.zeros((CAPACITY, FEATURES), jnp.float32)
    obs = jnp.ones((STEPS, FEATURES), jnp.float32)
    with tempfile.TemporaryDirectory() as d:
        jax.jit(rollout, donate_argnums=0).lower(buf, obs).compile(
            compiler_options={"xla_dump_to": d})
        [hlo] = glob.glob(os.path.join(d, "*jit_rollout*cpu_after_optimizations.txt"))
        for src in (hlo, hlo[:-4] + "-buffer-assignment.txt"):
            name = os.path.basename(src).split(".", 1)[1]  # drop "module_NNNN."
            shutil.copy(src, os.path.join(HERE, "replay_rollout." + name.split(".", 1)[1]))
    with open(os.path.join(HERE, "replay_rollout.meta.json"), "w") as f:
        json.dump({"program": "examples/dumps/make_dumps.py", "function": "rollout",
                   "jax_version": jax.__version__, "backend": "cpu"}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
