"""Helpers shared by the sharded programs: abstract sharded arguments, shard_map, deterministic data."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: F401  (re-exported)

F32 = jnp.float32
BF16 = jnp.bfloat16
I32 = jnp.int32

# jax.shard_map is public from JAX 0.6; older JAX has it under jax.experimental.
shard_map = getattr(jax, "shard_map", None)
if shard_map is None:  # pragma: no cover - older JAX
    from jax.experimental.shard_map import shard_map  # type: ignore


def sds(mesh, shape, dtype, spec=P()):
    """A global-shape abstract argument laid out on `mesh` by `spec`."""
    if not isinstance(spec, P):
        spec = P(*spec)
    return jax.ShapeDtypeStruct(tuple(shape), dtype, sharding=NamedSharding(mesh, spec))


def ns(mesh, *spec):
    return NamedSharding(mesh, P(*spec))


def wsc(x, mesh, *spec):
    """jax.lax.with_sharding_constraint with a NamedSharding on `mesh`."""
    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(*spec)))


def abstract_like(tree, mesh, spec_tree):
    """ShapeDtypeStructs for the leaves of `tree` (arrays or ShapeDtypeStructs) with specs."""
    return jax.tree.map(lambda a, s: sds(mesh, a.shape, a.dtype, s), tree, spec_tree,
                        is_leaf=lambda x: isinstance(x, P))


def concrete(leaf):
    """A deterministic array for an abstract argument, placed with its sharding (CPU runs)."""
    shape, dtype = tuple(leaf.shape), np.dtype(leaf.dtype)
    n = int(np.prod(shape)) if shape else 1
    if np.issubdtype(dtype, np.integer):
        host = (np.arange(n, dtype=np.int64) % 7).astype(dtype).reshape(shape)
    else:
        host = ((np.arange(n, dtype=np.float64) % 97) / 97.0 - 0.5).astype(dtype).reshape(shape)
    return jax.device_put(host, leaf.sharding)
