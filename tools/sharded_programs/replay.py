"""A row-sharded replay buffer written one row per step inside a loop.

`buf.at[i].set(row)` with a traced `i` on the sharded row dimension: XLA's SPMD
partitioner keeps a size-1 update local (select over the shard) when it can, and
otherwise falls back to all-gathering the buffer (xla-reference-2 §8.5); which one a
backend does is what these fixtures record. `replay_buffer_local_shard_map` is the
hand-written fix: each device writes its own shard in shard_map, no collective.
"""

import jax.numpy as jnp
from jax import lax

from . import Built, sharded_program
from ._common import F32, I32, P, sds, shard_map

ROW = 64       # features per row
STEPS = 32     # rows written per call


def _args(mesh, n):
    return (sds(mesh, (n, ROW), F32, P("x", None)), sds(mesh, (STEPS, ROW), F32, P()),
            sds(mesh, (), I32, P()))


@sharded_program(mesh=(("x", -1),), n=4096, size="buffer rows", grows=True, donate=(0,),
                 desc="replay buffer f32[n,64] sharded P('x',None), fori_loop(0,32) writing "
                      "buf.at[(start+i) % n].set(obs[i]); buffer donated",
                 expect="ideally none (a local select/DUS on the owning shard); the SPMD "
                        "fallback would all-gather the whole buffer every iteration")
def replay_buffer_at_set(mesh, n):
    def fn(buf, obs, start):
        def body(i, buf):
            return buf.at[(start + i) % n].set(obs[i])
        return lax.fori_loop(0, STEPS, body, buf)
    return Built(fn, _args(mesh, n), out_specs=P("x", None))


@sharded_program(mesh=(("x", -1),), n=4096, size="buffer rows", grows=True, donate=(0,),
                 desc="the same replay buffer written with lax.dynamic_update_slice(buf, "
                      "obs[i][None], (idx, 0))",
                 expect="as replay_buffer_at_set")
def replay_buffer_dus(mesh, n):
    def fn(buf, obs, start):
        def body(i, buf):
            return lax.dynamic_update_slice(buf, obs[i][None], ((start + i) % n, jnp.int32(0)))
        return lax.fori_loop(0, STEPS, body, buf)
    return Built(fn, _args(mesh, n), out_specs=P("x", None))


@sharded_program(mesh=(("x", -1),), n=4096, size="buffer rows", grows=True, donate=(0,),
                 desc="replay buffer: each step writes a row and reads (samples) another row "
                      "buf[(7*i) % n] into an accumulator",
                 expect="the read of a traced row on the sharded dimension: a dynamic-slice "
                        "that the partitioner may serve with an all-gather of the buffer or a "
                        "masked all-reduce of the row, every iteration")
def replay_buffer_sample(mesh, n):
    def fn(buf, obs, start):
        def body(i, c):
            buf, acc = c
            buf = buf.at[(start + i) % n].set(obs[i])
            return buf, acc + buf[(7 * i) % n]
        return lax.fori_loop(0, STEPS, body, (buf, jnp.zeros((ROW,), F32)))
    return Built(fn, _args(mesh, n), out_specs=(P("x", None), P()))


@sharded_program(mesh=(("x", -1),), n=4096, size="buffer rows", grows=True, donate=(0,),
                 desc="the fix written by hand: shard_map, each device computes whether the "
                      "global row is its own and writes its local shard (dynamic_update_slice "
                      "at the local offset, masked)",
                 expect="no collective at all")
def replay_buffer_local_shard_map(mesh, n):
    def local(buf, obs, start):
        rows = buf.shape[0]
        me = lax.axis_index("x")

        def body(i, buf):
            g = (start + i) % n
            mine = (g // rows) == me
            local_row = jnp.where(mine, g % rows, 0)
            old = lax.dynamic_slice(buf, (local_row, jnp.int32(0)), (1, ROW))
            new = jnp.where(mine, obs[i][None], old)
            return lax.dynamic_update_slice(buf, new, (local_row, jnp.int32(0)))
        return lax.fori_loop(0, STEPS, body, buf)
    fn = shard_map(local, mesh=mesh, in_specs=(P("x", None), P(), P()), out_specs=P("x", None))
    return Built(fn, _args(mesh, n))
