"""Donated arguments whose per-device shard cannot alias the output (JAX/XLA drop the donation)."""

import jax.numpy as jnp

from . import Built, sharded_program
from ._common import F32, P, sds


@sharded_program(mesh=(("x", -1),), n=1024, size="rows", donate=(0,),
                 desc="x f32[n,256] sharded P('x',None) and donated; output replicated "
                      "(out_shardings P()): the shard f32[n/d,256] cannot hold the f32[n,256] "
                      "result",
                 expect="an all-gather of x; no input_output_alias (donation dropped: JAX "
                        "warns or XLA gets a buffer_donor it cannot use)")
def donation_dropped_replicated_out(mesh, n):
    def fn(x):
        return x * 2.0 + 1.0
    return Built(fn, (sds(mesh, (n, 256), F32, P("x", None)),), out_specs=P())


@sharded_program(mesh=(("x", -1),), n=1024, size="rows", donate=(0,),
                 desc="x f32[n,256] P('x',None) donated, output the same global shape but "
                      "P(None,'x'): shard f32[n/d,256] vs f32[n,256/d] (equal bytes, other shape)",
                 expect="an all-to-all; JAX keeps the donation (same global aval) and XLA may "
                        "alias the two shards, which differ in shape but not in bytes")
def donation_resharded_out_same_bytes(mesh, n):
    def fn(x):
        return jnp.tanh(x)
    return Built(fn, (sds(mesh, (n, 256), F32, P("x", None)),), out_specs=P(None, "x"))


@sharded_program(mesh=(("a", 2), ("b", -1)), n=1024, size="rows", donate=(0,),
                 desc="x f32[n,256] P(('a','b'),None) donated (shard n/d rows), output "
                      "P('a',None) (shard n/2 rows, replicated over 'b'): the donated shard is "
                      "smaller than the output shard",
                 expect="an all-gather over 'b'; the donation cannot alias (the output shard is "
                        "bigger): dropped by JAX or left to XLA as an unusable donor")
def donation_dropped_partial_reshard(mesh, n):
    def fn(x):
        return x * 0.5
    return Built(fn, (sds(mesh, (n, 256), F32, P(("a", "b"), None)),), out_specs=P("a", None))


@sharded_program(mesh=(("x", -1),), n=1024, size="rows", donate=(0,),
                 desc="control: x f32[n,256] P('x',None) donated, output P('x',None): the "
                      "donation holds",
                 expect="no collective; input_output_alias {0}: (0, {}, may-alias)")
def donation_kept_same_sharding(mesh, n):
    def fn(x):
        return jnp.tanh(x) * 3.0
    return Built(fn, (sds(mesh, (n, 256), F32, P("x", None)),), out_specs=P("x", None))
