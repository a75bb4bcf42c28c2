"""Loops whose carry moves between devices: a ppermute ring and a carry re-sharded every step."""

import jax.numpy as jnp
from jax import lax

from . import Built, sharded_program
from ._common import F32, P, sds, shard_map, wsc

COLS = 128
RING_STEPS = 8
RESHARD_STEPS = 8


def _ring(unroll):
    def build(mesh, n):
        k = mesh.shape["x"]
        perm = [(i, (i + 1) % k) for i in range(k)]

        def local(a):
            def body(i, carry):
                a, acc = carry
                a = lax.ppermute(a, "x", perm)
                return a, acc + a
            return lax.fori_loop(0, RING_STEPS, body, (a, jnp.zeros_like(a)), unroll=unroll)
        fn = shard_map(local, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")))
        return Built(fn, (sds(mesh, (n, COLS), F32, P("x", None)),))
    return build


@sharded_program(mesh=(("x", -1),), n=2048, size="rows", grows=True,
                 desc="ring: fori_loop(0,8) passing the carry f32[n/d,128] to the next device "
                      "with lax.ppermute and accumulating it (shard_map)",
                 expect="one collective-permute of the shard per iteration (8 per call), a "
                        "cycle 0->1->...->d-1->0; XLA copies the permuted carry back each "
                        "iteration (docs/backends.md)")
def ring_ppermute(mesh, n):
    return _ring(1)(mesh, n)


@sharded_program(mesh=(("x", -1),), n=2048, size="rows", grows=True,
                 desc="the ring with fori_loop(..., unroll=2): two permutes per iteration",
                 expect="two collective-permutes per iteration, 4 iterations (8 per call); no "
                        "copy of the carry")
def ring_ppermute_unroll2(mesh, n):
    return _ring(2)(mesh, n)


@sharded_program(mesh=(("x", -1),), n=1024, size="rows", grows=True, donate=(0,),
                 desc="a loop whose carry f32[n,512] is re-sharded each step: "
                      "with_sharding_constraint P(None,'x'), elementwise, then P('x',None) "
                      "again (jit, GSPMD); carry donated",
                 expect="two all-to-alls per iteration (rows->columns and back), each moving "
                        "(d-1)/d of the shard")
def reshard_carry_loop(mesh, n):
    def fn(x):
        def body(i, x):
            x = wsc(x, mesh, None, "x")
            x = x * 1.0001 + 1.0
            x = wsc(x, mesh, "x", None)
            return jnp.sin(x)
        return lax.fori_loop(0, RESHARD_STEPS, body, x)
    return Built(fn, (sds(mesh, (n, 512), F32, P("x", None)),), out_specs=P("x", None))
