"""jax.random-heavy loops: a random-fill ring and a reservoir sample, fixed trips, buffer grows."""
import jax
import jax.numpy as jnp
import numpy as np

from . import _data
from . import workload

ROW, STEPS = 16, 128


def _ring_args(rows):
    return (np.zeros((rows, ROW), np.float32), _data.key(6))


@workload(args=_ring_args, base=4096, size="ring rows", units="call", donate=(0,), library="jax",
          desc="fori_loop(128): split the key, draw a normal row and a uniform index, write the row at "
               "i % N, read a random row of the updated ring; ring donated")
def random_ring_fill(ring, key):
    def body(i, carry):
        ring, key, acc = carry
        key, k1, k2 = jax.random.split(key, 3)
        ring = ring.at[i % ring.shape[0]].set(jax.random.normal(k1, (ROW,)))
        j = jax.random.randint(k2, (), 0, ring.shape[0])
        return ring, key, acc + ring[j].sum()

    ring, _, acc = jax.lax.fori_loop(0, STEPS, body, (ring, jax.random.wrap_key_data(key), jnp.float32(0)))
    return ring, acc


def _reservoir_args(rows):
    g = _data.rng(12)
    return (np.zeros((rows, ROW), np.float32), g.standard_normal((STEPS, ROW)).astype(np.float32),
            _data.key(7))


@workload(args=_reservoir_args, base=4096, size="reservoir rows", units="call", donate=(0,), library="jax",
          desc="reservoir sampling in lax.scan(128): jax.random.randint slot, lax.cond(slot < N, write "
               "row, keep); reservoir donated")
def random_reservoir_scan(res, stream, key):
    n = res.shape[0]

    def step(carry, inp):
        res, seen = carry
        x, k = inp
        slot = jax.random.randint(k, (), 0, jnp.maximum(seen + 1, n))
        res = jax.lax.cond(slot < n, lambda r: jax.lax.dynamic_update_slice(r, x[None], (slot, 0)),
                           lambda r: r, res)
        return (res, seen + 1), slot

    keys = jax.random.split(jax.random.wrap_key_data(key), STEPS)
    (res, _), slots = jax.lax.scan(step, (res, jnp.int32(n // 2)), (stream, keys))
    return res, slots
