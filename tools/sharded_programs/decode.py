"""A sharded KV-cache decode loop: one position written per step, attention over the cache.

The cache is sharded on heads (each device owns whole heads: the write and the attention
are local, only the output projection reduces) or on the sequence (the written position
lives on one device: XLA's SPMD partitioner handles a size-1 update on a sharded dimension
locally with a select over the whole shard; attention reduces over the sequence shards).
"""

import jax
import jax.numpy as jnp
from jax import lax

from . import Built, sharded_program
from ._common import F32, I32, P, sds, wsc

BATCH, HEADS, HDIM = 2, 8, 32
DM = HEADS * HDIM          # model width 256
STEPS = 16                 # decode steps per call


def _decode(mesh, layout, write, wspec_qkv, wspec_o):
    cache_spec = (None, "x", None, None)   # heads [B,H,S,Dh] or sequence [B,S,H,Dh]: dim 1
    heads = layout == "heads"

    def fn(kc, vc, x, wq, wk, wv, wo, pos0):
        s = kc.shape[2] if heads else kc.shape[1]

        def step(t, carry):
            kc, vc, x = carry
            pos = pos0 + t
            q = (x @ wq).reshape(BATCH, HEADS, HDIM)
            k = (x @ wk).reshape(BATCH, HEADS, HDIM)
            v = (x @ wv).reshape(BATCH, HEADS, HDIM)
            kc, vc = write(kc, vc, k, v, pos)
            kc, vc = wsc(kc, mesh, *cache_spec), wsc(vc, mesh, *cache_spec)
            if heads:       # [B, H, S, Dh]
                scores = jnp.einsum("bhd,bhsd->bhs", q, kc) / jnp.sqrt(HDIM)
            else:                          # [B, S, H, Dh]
                scores = jnp.einsum("bhd,bshd->bhs", q, kc) / jnp.sqrt(HDIM)
            scores = jnp.where(jnp.arange(s) <= pos, scores, -1e30)
            p = jax.nn.softmax(scores, axis=-1)
            if heads:
                o = jnp.einsum("bhs,bhsd->bhd", p, vc)
            else:
                o = jnp.einsum("bhs,bshd->bhd", p, vc)
            x = x + o.reshape(BATCH, DM) @ wo
            return kc, vc, x

        return lax.fori_loop(0, STEPS, step, (kc, vc, x))

    def build(n):
        cshape = (BATCH, HEADS, n, HDIM) if heads else (BATCH, n, HEADS, HDIM)
        args = (sds(mesh, cshape, F32, P(*cache_spec)), sds(mesh, cshape, F32, P(*cache_spec)),
                sds(mesh, (BATCH, DM), F32, P()),
                sds(mesh, (DM, DM), F32, wspec_qkv), sds(mesh, (DM, DM), F32, wspec_qkv),
                sds(mesh, (DM, DM), F32, wspec_qkv), sds(mesh, (DM, DM), F32, wspec_o),
                sds(mesh, (), I32, P()))
        return Built(fn, args, out_specs=(P(*cache_spec), P(*cache_spec), P()))
    return build


def _at_set_heads(kc, vc, k, v, pos):
    return kc.at[:, :, pos].set(k), vc.at[:, :, pos].set(v)


def _at_set_seq(kc, vc, k, v, pos):
    return kc.at[:, pos].set(k), vc.at[:, pos].set(v)


def _dus_seq(kc, vc, k, v, pos):
    z = jnp.int32(0)
    return (lax.dynamic_update_slice(kc, k[:, None], (z, pos, z, z)),
            lax.dynamic_update_slice(vc, v[:, None], (z, pos, z, z)))




@sharded_program(mesh=(("x", -1),), n=512, size="cache length (positions)", grows=True,
                 donate=(0, 1),
                 desc="decode loop, KV cache f32[2,8,S,32] sharded on heads, one position per step "
                      "with cache.at[:, :, pos].set(k); Wq/Wk/Wv column-split, Wo row-split; "
                      "caches donated",
                 expect="no collective on the cache (write and attention are local per head); one "
                        "all-reduce of the f32[2,256] output projection per step (16 per call)")
def kv_decode_heads_at_set(mesh, n):
    return _decode(mesh, "heads", _at_set_heads, P(None, "x"), P("x", None))(n)


@sharded_program(mesh=(("x", -1),), n=512, size="cache length (positions)", grows=True,
                 donate=(0, 1),
                 desc="decode loop, KV cache f32[2,S,8,32] sharded on the sequence, one position "
                      "per step with cache.at[:, pos].set(k); weights replicated; caches donated",
                 expect="the size-1 update stays local (select over the shard, no all-gather of "
                        "the cache); all-reduces (max and sum) of softmax partials over the "
                        "sequence shards each step")
def kv_decode_seq_at_set(mesh, n):
    return _decode(mesh, "seq", _at_set_seq, P(), P())(n)


@sharded_program(mesh=(("x", -1),), n=512, size="cache length (positions)", grows=True,
                 donate=(0, 1),
                 desc="the sequence-sharded decode loop writing with lax.dynamic_update_slice",
                 expect="as kv_decode_seq_at_set")
def kv_decode_seq_dus(mesh, n):
    return _decode(mesh, "seq", _dus_seq, P(), P())(n)
