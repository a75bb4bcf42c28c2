"""Flat programs: collectives outside any loop (their bytes do not grow with a loop-carried buffer)."""

import jax.numpy as jnp
from jax import lax

from . import Built, sharded_program
from ._common import F32, P, sds, shard_map

COLS = 128


@sharded_program(mesh=(("x", -1),), n=512, size="rows",
                 desc="shard_map over a 1-D mesh: psum, pmax, all_gather(tiled), psum_scatter"
                      "(tiled), all_to_all(tiled), ppermute(shift by 1) of one f32[n/d,128] shard",
                 expect="all-reduce (add), all-reduce (max), all-gather, reduce-scatter, "
                        "all-to-all, collective-permute; each over all devices")
def flat_collectives_1d(mesh, n):
    k = mesh.shape["x"]

    def local(x):
        s = lax.psum(x, "x")
        m = lax.pmax(x, "x")
        g = lax.all_gather(x, "x", tiled=True)
        rs = lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True)
        a2a = lax.all_to_all(x, "x", 0, 0, tiled=True)
        pp = lax.ppermute(x, "x", [(i, (i + 1) % k) for i in range(k)])
        return s + m, g, rs, a2a + pp
    fn = shard_map(local, mesh=mesh, in_specs=P("x"),
                   out_specs=(P("x"), P("x"), P("x"), P("x")))
    return Built(fn, (sds(mesh, (n, COLS), F32, P("x", None)),))


@sharded_program(mesh=(("a", 2), ("b", -1)), n=512, size="rows",
                 desc="shard_map over a 2-D mesh (a=2, b=rest): psum over 'a', all_gather over "
                      "'b', psum over ('a','b'), psum_scatter over 'b', all_to_all over 'a', "
                      "ppermute over 'b'",
                 expect="collectives whose replica groups are the rows or the columns of the "
                        "2-D device mesh (iota and transposed-iota forms)")
def flat_collectives_2d(mesh, n):
    kb = mesh.shape["b"]

    def local(x):
        pa = lax.psum(x, "a")
        gb = lax.all_gather(x, "b", tiled=True)
        pab = lax.psum(x, ("a", "b"))
        rsb = lax.psum_scatter(x, "b", scatter_dimension=0, tiled=True)
        a2a = lax.all_to_all(x, "a", 0, 0, tiled=True)
        ppb = lax.ppermute(x, "b", [(i, (i + 1) % kb) for i in range(kb)])
        return pa + pab + a2a + ppb, gb, rsb
    spec = P(("a", "b"))
    fn = shard_map(local, mesh=mesh, in_specs=spec, out_specs=(spec, spec, spec))
    return Built(fn, (sds(mesh, (n, COLS), F32, P(("a", "b"), None)),))


@sharded_program(mesh=(("a", 2), ("b", -1)), n=512, size="rows",
                 desc="jit (GSPMD) matmul x P('a','b') @ w P('b',None) -> out P('a',None) on "
                      "a 2-D mesh: contraction over the sharded 'b' dimension",
                 expect="an all-reduce (or reduce-scatter) of the partial products over 'b'")
def flat_matmul_2d(mesh, n):
    def fn(x, w):
        return jnp.tanh(x @ w)
    return Built(fn, (sds(mesh, (n, 256), F32, P("a", "b")), sds(mesh, (256, COLS), F32, P("b", None))),
                 out_specs=P("a", None))


@sharded_program(mesh=(("x", -1),), n=512, size="rows",
                 desc="jit (GSPMD) mixed-dtype reduction: bf16 and f32 sums over a sharded axis "
                      "returned replicated (candidates for a combined tuple all-reduce)",
                 expect="all-reduces of the partial sums, possibly combined into one tuple-shaped "
                        "all-reduce")
def flat_combined_reductions(mesh, n):
    def fn(x, y):
        return x.sum(0), (y * 2).sum(0), (x * x).sum(0)
    return Built(fn, (sds(mesh, (n, 256), F32, P("x", None)), sds(mesh, (n, 128), jnp.bfloat16, P("x", None))),
                 out_specs=(P(), P(), P()))
