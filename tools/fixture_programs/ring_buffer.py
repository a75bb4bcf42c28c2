"""A user-style ring buffer, slow and fixed: the programs `hloscope diff` is tested on.

`rollout_slow` writes this step's row into the ring and then reads the row it
replaced from the *old* ring: XLA copies the whole ring every step, so the
time per call grows with the ring. `rollout_reordered` reads the row first
and then writes — and XLA still copies the ring (it schedules the read after
the update). `rollout_fixed` carries the row: it reads the next step's row
from the *updated* ring, so no old value is read after an update; the update
is in place and the time per call does not depend on the ring's size. `rollout_extra_copy` is the fixed version plus one more use
of the old ring after the update (a regression the diff gate must catch).
"""
import jax.numpy as jnp
from jax import lax


def rollout_slow(ring, obs):
    def step(carry, x):
        ring, ptr = carry
        new_ring = ring.at[ptr].set(x)          # write this step's row
        old = ring[ptr]                          # ...then read the replaced row of the old ring
        return (new_ring, (ptr + 1) % ring.shape[0]), old.sum()
    (ring, _), sums = lax.scan(step, (ring, jnp.int32(0)), obs)
    return ring, sums


def rollout_reordered(ring, obs):
    def step(carry, x):
        ring, ptr = carry
        old = ring[ptr]                          # read the row first...
        ring = ring.at[ptr].set(x)               # ...then write it: XLA still copies the ring
        return (ring, (ptr + 1) % ring.shape[0]), old.sum()
    (ring, _), sums = lax.scan(step, (ring, jnp.int32(0)), obs)
    return ring, sums


def rollout_fixed(ring, obs):
    def step(carry, x):
        ring, ptr, old = carry                   # old: the row this step replaces, read last step
        ring = ring.at[ptr].set(x)               # in place
        nxt = (ptr + 1) % ring.shape[0]
        return (ring, nxt, ring[nxt]), old.sum()  # read the next row from the *updated* ring
    (ring, _, _), sums = lax.scan(step, (ring, jnp.int32(0), ring[0]), obs)
    return ring, sums


def rollout_extra_copy(ring, obs):
    def step(carry, x):
        ring, ptr, old = carry
        new_ring = ring.at[ptr].set(x)
        nxt = (ptr + 1) % ring.shape[0]
        total = ring.sum()                       # reads the whole *old* ring after the update
        return (new_ring, nxt, new_ring[nxt]), old.sum() + total
    (ring, _, _), sums = lax.scan(step, (ring, jnp.int32(0), ring[0]), obs)
    return ring, sums
