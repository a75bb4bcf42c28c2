"""Control flow around updates: cond, switch, vmapped while loops."""

import jax
import numpy as np
from jax import lax

from . import program
from ._args import f32

N_STEPS = 100


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="fori_loop with lax.cond(i even, buf.at[i].set, passthrough) -> conditional inside the "
              "while, DUS in place in the true branch, no buffer copy")
def cond_passthrough_in_loop(buf):
    def body(i, buf):
        return lax.cond(i % 2 == 0, lambda b: b.at[i].set(1.0), lambda b: b, buf)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(1024), np.int32(3)), donate=(0,),
         desc="top-level lax.cond, both branches update the donated buffer -> each branch has a 4096 B "
              "copy whose source and destination are the same allocation+offset (self copy); before the "
              "DUS in one branch, after it in the other")
def cond_both_branches_update(buf, k):
    return lax.cond(k > 2, lambda b: b.at[0].set(1.0), lambda b: b.at[1].set(2.0), buf)


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="lax.switch(i % 3) in a fori_loop with branches set/add/passthrough -> four 4096 B copies "
              "inside the loop (one per branch and one in the body); the DUSes run in place on the "
              "branch copies")
def switch_in_loop(buf):
    def body(i, buf):
        branches = [
            lambda b: b.at[i].set(1.0),
            lambda b: b.at[i].add(2.0),
            lambda b: b,
        ]
        return lax.switch(i % 3, branches, buf)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(8, 256), np.arange(8, dtype=np.int32) * 10 + 5), donate=(0,),
         desc="vmap of a while_loop with per-example bounds -> batched predicate, no known_trip_count; "
              "every iteration copies the 8192 B carry, scatters into the copy, then a select fusion "
              "rewrites the whole carry")
def vmap_while(bufs, ns):
    def one(buf, n):
        def cond(c):
            return c[1] < n

        def body(c):
            buf, i = c
            with jax.named_scope("per_example_write"):
                return buf.at[i].set(1.0), i + 1
        buf, _ = lax.while_loop(cond, body, (buf, 0))
        return buf
    return jax.vmap(one)(bufs, ns)
