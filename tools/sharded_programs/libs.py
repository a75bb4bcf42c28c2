"""Sharded train steps written with flax (linen, nnx), equinox and optax sharding APIs.

They need the libraries (the library venv, see tools/gen_sharded_fixtures.py); the imports
happen inside the factories, so without them these programs are listed and skipped.

equinox: eqx.filter_jit treats a jax.ShapeDtypeStruct as a static leaf (it is no array), so
a compile-only target (no concrete arrays on a TPU/GPU here) cannot lower it; the step is
written the way equinox's docs spell filter_jit out — eqx.partition into arrays and the rest,
jax.jit over the arrays, eqx.combine inside — with eqx.filter_shard for the constraints.
"""

import jax
import jax.numpy as jnp

from . import Built, sharded_program
from ._common import F32, P, sds

D, H = 128, 256


def _abstract(tree, mesh, specs):
    """ShapeDtypeStructs with NamedShardings for the array leaves of `tree` (specs: same tree)."""
    from jax.sharding import NamedSharding
    return jax.tree.map(lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, s)),
                        tree, specs)


@sharded_program(mesh=(("data", 2), ("model", -1)), n=256, size="global batch rows", donate=(0, 1),
                 requires=("flax", "optax"),
                 desc="flax.linen MLP with nn.with_partitioning kernels (Megatron: (None,'model') "
                      "then ('model',None)), nn.get_partition_spec for the shardings, optax.adam; "
                      "params and opt state donated; batch P('data')",
                 expect="all-reduce over 'model' of the row-parallel output (and its transpose in "
                        "the backward pass), all-reduce over 'data' of the gradients")
def flax_linen_tp_train(mesh, n):
    import flax.linen as nn
    import optax

    init = nn.initializers.lecun_normal()

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Dense(4 * D, kernel_init=nn.with_partitioning(init, (None, "model")),
                         bias_init=nn.with_partitioning(nn.initializers.zeros, ("model",)))(x)
            x = nn.gelu(x)
            return nn.Dense(D, kernel_init=nn.with_partitioning(init, ("model", None)))(x)

    model, tx = MLP(), optax.adam(1e-3)
    boxed = jax.eval_shape(model.init, jax.random.PRNGKey(0), jnp.zeros((8, D), F32))
    specs = nn.get_partition_spec(boxed)
    params = nn.meta.unbox(boxed)
    opt_state = jax.eval_shape(tx.init, params)
    opt_specs = optax.tree_map_params(tx, lambda _, s: s, opt_state, specs,
                                      transform_non_params=lambda _: P(),
                                      is_leaf=lambda x: isinstance(x, P))

    def fn(params, opt_state, x, y):
        def loss(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)
        l, g = jax.value_and_grad(loss)(params)
        updates, opt_state = tx.update(g, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, l

    args = (_abstract(params, mesh, specs), _abstract(opt_state, mesh, opt_specs),
            sds(mesh, (n, D), F32, P("data", None)), sds(mesh, (n, D), F32, P("data", None)))
    return Built(fn, args, out_specs=(specs, opt_specs, P()))


@sharded_program(mesh=(("fsdp", -1),), n=512, size="global batch rows", donate=(0,),
                 requires=("flax", "optax"),
                 desc="flax.nnx model with nnx.with_partitioning kernels ('fsdp', None), "
                      "nnx.Optimizer(optax.adam), the step as nnx.split/merge under jax.jit with "
                      "nnx.get_partition_spec shardings; state donated; batch P('fsdp')",
                 expect="all-gathers of the fsdp-sharded kernels, reduce-scatter or all-reduce "
                        "of their gradients")
def flax_nnx_fsdp_train(mesh, n):
    from flax import nnx
    import optax

    init = nnx.initializers.lecun_normal()

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.l1 = nnx.Linear(D, H, kernel_init=nnx.with_partitioning(init, ("fsdp", None)), rngs=rngs)
            self.l2 = nnx.Linear(H, D, kernel_init=nnx.with_partitioning(init, ("fsdp", None)), rngs=rngs)

        def __call__(self, x):
            return self.l2(nnx.gelu(self.l1(x)))

    def create():
        model = MLP(nnx.Rngs(0))
        return model, nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    # flax 0.12 creates sharded variables eagerly: the mesh must be the context mesh.
    set_mesh = getattr(jax, "set_mesh", None) or jax.sharding.use_mesh
    with set_mesh(mesh):
        graphdef, abs_state = nnx.split(nnx.eval_shape(create))
    specs = nnx.get_partition_spec(abs_state)
    state_arg = _abstract(abs_state, mesh, specs)

    def fn(state, x):
        model, opt = nnx.merge(graphdef, state)

        def loss(m):
            return jnp.mean((m(x) - x) ** 2)
        l, g = nnx.value_and_grad(loss)(model)
        opt.update(model, g)
        return nnx.state((model, opt)), l

    args = (state_arg, sds(mesh, (n, D), F32, P("fsdp", None)))
    return Built(fn, args, out_specs=(specs, P()))


@sharded_program(mesh=(("data", -1),), n=512, size="global batch rows", donate=(0, 1),
                 requires=("equinox", "optax"),
                 desc="equinox eqx.nn.MLP data parallel: eqx.partition/combine under jax.jit "
                      "(eqx.filter_jit cannot lower abstract arguments), eqx.filter_shard on the "
                      "batch and the replicated model, optax.adamw; params and opt state donated",
                 expect="all-reduce of the gradients (combined) over all devices")
def equinox_dp_train(mesh, n):
    import equinox as eqx
    import optax
    from jax.sharding import NamedSharding

    abs_model = eqx.filter_eval_shape(eqx.nn.MLP, D, D, H, 2, key=jax.random.PRNGKey(0))
    abs_params = eqx.filter(abs_model, lambda x: isinstance(x, jax.ShapeDtypeStruct))
    static = eqx.filter(abs_model, lambda x: isinstance(x, jax.ShapeDtypeStruct), inverse=True)
    tx = optax.adamw(1e-3)
    abs_opt = jax.eval_shape(tx.init, abs_params)
    rep = NamedSharding(mesh, P())
    batch = NamedSharding(mesh, P("data", None))

    def fn(params, opt_state, x, y):
        x, y = eqx.filter_shard((x, y), batch)
        model = eqx.filter_shard(eqx.combine(params, static), rep)

        @eqx.filter_value_and_grad
        def loss(m):
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)
        l, g = loss(model)
        updates, opt_state = tx.update(g, opt_state, eqx.filter(model, eqx.is_array))
        model = eqx.apply_updates(model, updates)
        return eqx.filter(model, eqx.is_array), opt_state, l

    rep_tree = lambda t: jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=rep), t)
    args = (rep_tree(abs_params), rep_tree(abs_opt),
            sds(mesh, (n, D), F32, P("data", None)), sds(mesh, (n, D), F32, P("data", None)))
    return Built(fn, args)


@sharded_program(mesh=(("fsdp", -1),), n=512, size="global batch rows", donate=(0, 1),
                 requires=("optax",),
                 desc="plain-JAX MLP params dict sharded P('fsdp',None), optax.chain("
                      "clip_by_global_norm, adamw) under jax.jit with in/out shardings; params "
                      "and opt state donated",
                 expect="all-gathers of the weights, gradient reduction, and scalar all-reduces "
                        "of the global norm")
def optax_fsdp_adamw(mesh, n):
    import optax

    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3))
    params = {"w1": jax.ShapeDtypeStruct((D, H), F32), "b1": jax.ShapeDtypeStruct((H,), F32),
              "w2": jax.ShapeDtypeStruct((H, D), F32)}
    specs = {"w1": P("fsdp", None), "b1": P(), "w2": P("fsdp", None)}
    opt_state = jax.eval_shape(tx.init, params)
    opt_specs = optax.tree_map_params(tx, lambda _, s: s, opt_state, specs,
                                      transform_non_params=lambda _: P(),
                                      is_leaf=lambda x: isinstance(x, P))

    def fn(params, opt_state, x):
        def loss(p):
            h = jax.nn.gelu(x @ p["w1"] + p["b1"])
            return jnp.mean((h @ p["w2"] - x) ** 2)
        l, g = jax.value_and_grad(loss)(params)
        updates, opt_state = tx.update(g, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, l

    args = (_abstract(params, mesh, specs), _abstract(opt_state, mesh, opt_specs),
            sds(mesh, (n, D), F32, P("fsdp", None)))
    return Built(fn, args, out_specs=(specs, opt_specs, P()))
