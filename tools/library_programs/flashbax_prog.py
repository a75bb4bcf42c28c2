"""flashbax: a flat and a prioritised replay buffer, add + sample every step of a lax.scan.

The buffer's capacity grows with the size; the number of steps and the sample batch do not."""
import functools

import flashbax as fbx
import jax
import jax.numpy as jnp
import numpy as np

from . import _data
from . import workload

OBS, STEPS, BATCH = 8, 64, 32


def _transition(i):
    return {"obs": jnp.full((OBS,), i, jnp.float32), "reward": jnp.float32(i)}


@functools.lru_cache(maxsize=None)
def _flat(rows):
    return fbx.make_flat_buffer(max_length=rows, min_length=1, sample_batch_size=BATCH)


@functools.lru_cache(maxsize=None)
def _prio(rows):
    return fbx.make_prioritised_flat_buffer(max_length=rows, min_length=1, sample_batch_size=BATCH,
                                            priority_exponent=0.6, device="cpu")


def _xs():
    g = _data.rng(5)
    return {"obs": g.standard_normal((STEPS, OBS)).astype(np.float32),
            "reward": g.standard_normal((STEPS,)).astype(np.float32)}


def _flat_args(rows):
    state = _flat(rows).init(_transition(0))
    state = _flat(rows).add(state, _transition(1))
    return (state, _xs(), _data.key(2))


def _buffer_rows(state):
    return jax.tree.leaves(state.experience)[0].shape[1]


@workload(args=_flat_args, base=4096, size="buffer capacity (max_length)", units="call", donate=(0,),
          library="flashbax",
          desc="fbx.make_flat_buffer: 64 scan steps of buffer.add(one transition) + buffer.sample(32); "
               "buffer state donated")
def flashbax_flat_scan(state, xs, key):
    buffer = _flat(_buffer_rows(state))

    def step(state, inp):
        t, k = inp
        state = buffer.add(state, t)
        batch = buffer.sample(state, k)
        return state, batch.experience.first["reward"].sum()

    keys = jax.random.split(jax.random.wrap_key_data(key), STEPS)
    return jax.lax.scan(step, state, (xs, keys))


def _prio_args(rows):
    state = _prio(rows).init(_transition(0))
    state = _prio(rows).add(state, _transition(1))
    return (state, _xs(), _data.key(2))


@workload(args=_prio_args, base=4096, size="buffer capacity (max_length)", units="call", donate=(0,),
          library="flashbax",
          desc="fbx.make_prioritised_flat_buffer: 64 scan steps of add + sample(32) + set_priorities; "
               "buffer state (with its sum tree) donated")
def flashbax_prioritised_scan(state, xs, key):
    buffer = _prio(_buffer_rows(state))

    def step(state, inp):
        t, k = inp
        state = buffer.add(state, t)
        batch = buffer.sample(state, k)
        new_p = jnp.abs(batch.experience.first["reward"]) + 1e-3
        state = buffer.set_priorities(state, batch.indices, new_p)
        return state, new_p.sum()

    keys = jax.random.split(jax.random.wrap_key_data(key), STEPS)
    return jax.lax.scan(step, state, (xs, keys))
