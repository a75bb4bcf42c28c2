"""Layouts/transposes, outputs aliasing parameters, constants and dtypes."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import program
from ._args import f32

N_STEPS = 100


@program(args=lambda: (f32(256, 64),), donate=(0,),
         desc="x.T.at[0].set(1) on a donated f32[256,64] -> transpose+DUS fusion is NOT in place (DUS "
              "on copy(transpose(param)) inside the fusion) and writes a 65536 B temp, then a same- "
              "layout 65536 B copy into the donated output buffer")
def transpose_update(x):
    return x.T.at[0].set(1.0)


@program(args=lambda: (f32(256, 64),), donate=(0,),
         desc="x.T updated in a loop and transposed back -> a CPU wrapped_copy fusion (layout "
              "{0,1}->{1,0}, 65536 B) before the loop, DUS in place in the loop, a transpose fusion "
              "after it")
def transpose_in_loop(x):
    def body(i, y):
        return y.at[i].set(1.0)
    y = lax.fori_loop(0, 32, body, x.T)
    return y.T


@program(args=lambda: (f32(1024),),
         desc="computed value returned twice (y = x*2; return y, y) -> one 4096 B copy so the two "
              "outputs are distinct buffers")
def output_twice_computed(x):
    y = x * 2.0
    return y, y


@program(args=lambda: (f32(1024),),
         desc="non-donated parameter returned twice (return x, x) -> two 4096 B copies of the read-only "
              "parameter at the root")
def output_twice_param(x):
    return x, x


@program(args=lambda: (f32(1024),),
         desc="non-donated parameter returned unchanged -> one 4096 B copy at the root")
def return_param_unchanged(x):
    return x


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="donated parameter returned unchanged -> input_output_alias, no copy")
def return_param_donated(x):
    return x


@program(args=lambda: (np.arange(1024, dtype=np.int8), np.int8(5)), donate=(0,),
         desc="int8 buffer s8[1024] updated in a fori_loop (donated) -> in place; bytes = 1 per element")
def loop_dus_int8(buf, v):
    def body(i, buf):
        return buf.at[i].set(v)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (np.ones((256, 64), dtype=jnp.bfloat16),),
         desc="bf16[256,64] non-donated, row updated in a fori_loop -> CPU upcasts the whole buffer to "
              "f32 inside the fusion, so the DUS is NOT in place: 32768 B written plus a 32768 B copy "
              "per iteration, and a 32768 B copy before the loop")
def loop_dus_bf16(buf):
    def body(i, buf):
        return buf.at[i].set(jnp.full((64,), i, jnp.bfloat16))
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (np.zeros(1024, dtype=bool), 9),
         desc="pred[1024] (bool) non-donated .at[i].set(True) -> 1024 B copy (pred is 1 byte)")
def at_set_bool(mask, i):
    return mask.at[i].set(True)


@program(args=lambda: (np.zeros(1024, dtype=jnp.int4), 9),
         desc="sub-byte s4[1024]{0:E(4)} .at[i].set(3) -> the fusion converts to s8, so the DUS is NOT "
              "in place: a fresh 512 B output is written (no copy instruction)")
def at_set_int4(buf, i):
    return buf.at[i].set(jnp.int4(3))


@program(args=lambda: (f32(1024), 12), static=(1,),
         desc="static_argnums: index k is static -> constant-index DUS; non-donated -> copy")
def static_index_update(x, k):
    return x.at[k].set(1.0)


@program(args=lambda: (f32(64, 64), f32(64, 64)), donate=(0,),
         desc="acc + acc @ w in a 10-step loop on a donated f32[64,64] (named_scope 'accumulate') -> no "
              "buffer copy, no DUS; known_trip_count=10")
def loop_matmul_accumulate(acc, w):
    def body(i, acc):
        with jax.named_scope("accumulate"):
            return acc + acc @ w * 0.001
    return lax.fori_loop(0, 10, body, acc)


@program(args=lambda: (np.ones((256, 64), dtype=jnp.bfloat16),), donate=(0,),
         desc="donated bf16[256,64] row update in a fori_loop -> still NOT in place (f32 upcast inside "
              "the fusion): 32768 B written plus a 32768 B copy per iteration")
def loop_dus_bf16_donated(buf):
    def body(i, buf):
        return buf.at[i].set(jnp.full((64,), i, jnp.bfloat16))
    return lax.fori_loop(0, N_STEPS, body, buf)
