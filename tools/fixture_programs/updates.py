"""Top-level (loop-free) updates: .at[] set/add/mul, dynamic_update_slice, scatter."""

import jax
from jax import lax

from . import program
from ._args import arange_i32, f32, i32


@program(args=lambda: (arange_i32(1024),),
         desc="seed example from user-question.md (x.at[0].set(1); x.sum()) on a non-donated s32[1024]: "
              "on this CPU the DUS is NOT fused with the reduce; a 4096 B copy of the parameter, then a "
              "top-level DUS in place on the copy")
def seed_at_set_sum(x):
    x = x.at[0].set(1)
    return x.sum()


@program(args=lambda: (arange_i32(1024),), donate=(0,),
         desc="seed example with x donated: the donation is unusable (scalar output, JAX warns) so "
              "there is no input_output_alias and the 4096 B copy stays")
def seed_at_set_sum_donated(x):
    x = x.at[0].set(1)
    return x.sum()


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="donated .at[5].set at top level -> DUS in place on the parameter buffer, no copy")
def at_set_donated(x):
    return x.at[5].set(1.0)


@program(args=lambda: (f32(1024),),
         desc="non-donated .at[5].set at top level -> copy of the parameter (4096 B), DUS in place on the copy")
def at_set_not_donated(x):
    return x.at[5].set(1.0)


@program(args=lambda: (f32(1024), 3, f32(1)[0] + 2.0), donate=(0,),
         desc=".at[i].add then .at[i+1].mul on a donated buffer -> updates in place, no copy")
def at_add_mul(x, i, v):
    x = x.at[i].add(v)
    x = x.at[i + 1].mul(2.0)
    return x


@program(args=lambda: (f32(256, 64), f32(8, 64), 17), donate=(0,),
         desc="lax.dynamic_update_slice of an [8,64] block into a donated f32[256,64] -> in place, no copy")
def dus_lax_donated(x, upd, i):
    return lax.dynamic_update_slice(x, upd, (i, 0))


@program(args=lambda: (f32(256, 64), f32(8, 64), 17),
         desc="lax.dynamic_update_slice into a non-donated f32[256,64] -> one 65536 B copy of the parameter")
def dus_lax_not_donated(x, upd, i):
    return lax.dynamic_update_slice(x, upd, (i, 0))


@program(args=lambda: (f32(1024), f32(3)), donate=(0,),
         desc="three .at[].set in sequence on a donated buffer (named_scope 'writes') -> all in place, no copy")
def multiple_updates_sequence(x, v):
    with jax.named_scope("writes"):
        x = x.at[0].set(v[0])
        x = x.at[10].set(v[1])
        x = x.at[100].set(v[2])
    return x


@program(args=lambda: (f32(1024), i32(64, high=1024, seed=1), f32(64)), donate=(0,),
         desc="scatter-add with random (unsorted, non-unique) indices on a donated buffer -> scatter in place, no copy")
def scatter_random_indices(x, idx, vals):
    return x.at[idx].add(vals)


@program(args=lambda: (f32(1024), i32(64, high=1024, seed=2), f32(64)),
         desc="scatter-set with random indices on a non-donated buffer -> copy of the parameter, scatter on the copy")
def scatter_set_not_donated(x, idx, vals):
    return x.at[idx].set(vals)


@program(args=lambda: (f32(1024), 7), donate=(0,),
         desc="donated x updated, then the OLD x is summed -> two 4096 B copies: x into a temp (copy.1, "
              "which the sum reads) and that temp back into x's donated buffer (copy), where the DUS "
              "runs in place")
def read_after_update(x, i):
    y = x.at[i].set(0.0)
    return y, x.sum()


@program(args=lambda: (f32(1024), 7), donate=(0,),
         desc="donated x: the old value is read BEFORE the update and feeds it -> no copy")
def read_before_update(x, i):
    old = x[i]
    return x.at[i].set(old * 2.0 + 1.0)
