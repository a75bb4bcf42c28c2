"""Training-style parallelism: data parallel, tensor parallel (Megatron), FSDP, pipeline, MoE."""

import jax
import jax.numpy as jnp
from jax import lax

from . import Built, sharded_program
from ._common import F32, P, sds, shard_map, wsc

D, H = 128, 256          # model width, hidden width
LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def _mlp(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2


def _adam(p, g, m, v):
    m = B1 * m + (1 - B1) * g
    v = B2 * v + (1 - B2) * g * g
    return p - LR * m / (jnp.sqrt(v) + EPS), m, v


@sharded_program(mesh=(("data", -1),), n=512, size="global batch rows", donate=(0, 1),
                 desc="data parallel SGD step: params replicated, batch P('data'); jit in/out "
                      "shardings; params donated",
                 expect="all-reduce of the gradients over all devices (one combined or one per "
                        "parameter), operand = full gradient shape")
def dp_train_step(mesh, n):
    def fn(w1, w2, x, y):
        def loss(w1, w2):
            return jnp.mean((_mlp(x, w1, w2) - y) ** 2)
        l, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
        return w1 - LR * g1, w2 - LR * g2, l
    args = (sds(mesh, (D, H), F32, P()), sds(mesh, (H, D), F32, P()),
            sds(mesh, (n, D), F32, P("data", None)), sds(mesh, (n, D), F32, P("data", None)))
    return Built(fn, args, out_specs=(P(), P(), P()))


@sharded_program(mesh=(("model", -1),), n=256, size="batch rows",
                 desc="Megatron MLP under jit: x replicated, W1 column-split P(None,'model'), W2 "
                      "row-split P('model',None), output replicated",
                 expect="one all-reduce of the f32[n,128] partial sums over 'model'")
def tp_mlp_gspmd(mesh, n):
    def fn(x, w1, w2):
        return _mlp(x, w1, w2)
    args = (sds(mesh, (n, D), F32, P()), sds(mesh, (D, 4 * D), F32, P(None, "model")),
            sds(mesh, (4 * D, D), F32, P("model", None)))
    return Built(fn, args, out_specs=P())


@sharded_program(mesh=(("model", -1),), n=256, size="batch rows",
                 desc="Megatron MLP in shard_map: local column block, local row block, lax.psum "
                      "over 'model'",
                 expect="one all-reduce (the psum) of f32[n,128] over all devices")
def tp_mlp_shard_map(mesh, n):
    def local(x, w1, w2):
        return lax.psum(jax.nn.gelu(x @ w1) @ w2, "model")
    fn = shard_map(local, mesh=mesh, in_specs=(P(), P(None, "model"), P("model", None)),
                   out_specs=P())
    args = (sds(mesh, (n, D), F32, P()), sds(mesh, (D, 4 * D), F32, P(None, "model")),
            sds(mesh, (4 * D, D), F32, P("model", None)))
    return Built(fn, args)


@sharded_program(mesh=(("data", 2), ("model", -1)), n=256, size="global batch rows", donate=(0, 1),
                 desc="2-D mesh (data=2, model=rest) train step: batch P('data'), W1 "
                      "P(None,'model'), W2 P('model',None); SGD, params donated",
                 expect="all-reduce over 'model' of activations/input grads (groups of the "
                        "model axis) and all-reduce over 'data' of weight grads (groups across "
                        "the data axis: a transposed iota)")
def dp_tp_train_step(mesh, n):
    def fn(w1, w2, x, y):
        def loss(w1, w2):
            return jnp.mean((_mlp(x, w1, w2) - y) ** 2)
        l, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
        return w1 - LR * g1, w2 - LR * g2, l
    args = (sds(mesh, (D, 4 * D), F32, P(None, "model")), sds(mesh, (4 * D, D), F32, P("model", None)),
            sds(mesh, (n, D), F32, P("data", None)), sds(mesh, (n, D), F32, P("data", None)))
    return Built(fn, args, out_specs=(P(None, "model"), P("model", None), P()))


@sharded_program(mesh=(("fsdp", -1),), n=512, size="global batch rows", donate=(0, 1, 2, 3, 4, 5),
                 desc="FSDP in shard_map: weights and Adam moments sharded on dim 0, all_gather "
                      "(tiled) before use, grad -> psum_scatter (the transpose), Adam on the "
                      "shards; params and moments donated",
                 expect="two all-gathers (W1, W2: shard -> full) in the forward pass (maybe "
                        "again for the backward), two reduce-scatters of the full-shape grads, "
                        "one scalar all-reduce (pmean of the loss)")
def fsdp_train_step(mesh, n):
    def local(w1, w2, m1, m2, v1, v2, x):
        def loss(w1s, w2s):
            w1f = lax.all_gather(w1s, "fsdp", tiled=True)
            w2f = lax.all_gather(w2s, "fsdp", tiled=True)
            return jnp.mean((_mlp(x, w1f, w2f) - x) ** 2)
        l, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
        w1, m1, v1 = _adam(w1, g1, m1, v1)
        w2, m2, v2 = _adam(w2, g2, m2, v2)
        return w1, w2, m1, m2, v1, v2, lax.pmean(l, "fsdp")
    s = P("fsdp")
    fn = shard_map(local, mesh=mesh, in_specs=(s,) * 7, out_specs=(s,) * 6 + (P(),))
    args = tuple(sds(mesh, shp, F32, s) for shp in ((D, H), (H, D)) * 3) + (
        sds(mesh, (n, D), F32, s),)
    return Built(fn, args)


@sharded_program(mesh=(("fsdp", -1),), n=512, size="global batch rows", donate=(0, 1, 2, 3, 4, 5),
                 desc="FSDP under jit (GSPMD): weights and Adam moments P('fsdp',None), "
                      "with_sharding_constraint(W, P()) inside the loss, grads constrained back "
                      "to P('fsdp',None); params and moments donated",
                 expect="all-gathers of W1/W2 to replicated, reduce-scatter (or all-reduce + "
                        "dynamic-slice) of the gradients back to the shards")
def fsdp_train_step_gspmd(mesh, n):
    def fn(w1, w2, m1, m2, v1, v2, x):
        def loss(w1, w2):
            w1f = wsc(w1, mesh)
            w2f = wsc(w2, mesh)
            return jnp.mean((_mlp(x, w1f, w2f) - x) ** 2)
        l, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
        g1, g2 = wsc(g1, mesh, "fsdp", None), wsc(g2, mesh, "fsdp", None)
        w1, m1, v1 = _adam(w1, g1, m1, v1)
        w2, m2, v2 = _adam(w2, g2, m2, v2)
        return w1, w2, m1, m2, v1, v2, l
    s = P("fsdp", None)
    args = tuple(sds(mesh, shp, F32, s) for shp in ((D, H), (H, D)) * 3) + (
        sds(mesh, (n, D), F32, s),)
    return Built(fn, args, out_specs=(s,) * 6 + (P(),))


MICRO = 8  # microbatches


def _pipeline_local(use_scan):
    def local(w, xs):
        # w: this stage's f32[1,D,D]; xs: every microbatch f32[MICRO, b, D] (replicated).
        stages = lax.axis_size("stage")
        idx = lax.axis_index("stage")
        perm = [(i, (i + 1) % stages) for i in range(stages)]
        steps = MICRO + stages - 1

        def step(t, carry):
            state, out = carry
            state = lax.ppermute(state, "stage", perm)          # activations to the next stage
            inject = xs[jnp.minimum(t, MICRO - 1)]
            state = jnp.where(idx == 0, inject, state)
            state = jnp.tanh(state @ w[0])
            done = t - (stages - 1)
            write = (idx == stages - 1) & (done >= 0)
            out = jnp.where(write, lax.dynamic_update_slice(out, state[None], (jnp.maximum(done, 0), 0, 0)), out)
            return state, out

        carry = (jnp.zeros(xs.shape[1:], xs.dtype), jnp.zeros_like(xs))
        if use_scan:
            (_, out), _ = lax.scan(lambda c, t: (step(t, c), None), carry, jnp.arange(steps))
        else:
            _, out = lax.fori_loop(0, steps, step, carry)
        return lax.psum(out, "stage")                          # the last stage's outputs to all
    return local


@sharded_program(mesh=(("stage", -1),), n=64, size="microbatch rows", grows=True,
                 desc="GPipe-style pipeline in shard_map: one D x D stage per device, "
                      "fori_loop over MICRO+stages-1 ticks, activations passed with lax.ppermute "
                      "(ring), outputs written with dynamic_update_slice",
                 expect="a collective-permute of the f32[n,128] activation inside the while "
                        "(executed MICRO+stages-1 times), one all-reduce of the outputs after it")
def pipeline_ppermute_fori(mesh, n):
    fn = shard_map(_pipeline_local(False), mesh=mesh, in_specs=(P("stage"), P()), out_specs=P(),
                   check_vma=False)   # the zero-initialised carry becomes device-varying
    stages = mesh.shape["stage"]
    args = (sds(mesh, (stages, D, D), F32, P("stage")), sds(mesh, (MICRO, n, D), F32, P()))
    return Built(fn, args)


@sharded_program(mesh=(("stage", -1),), n=64, size="microbatch rows", grows=True,
                 desc="the same pipeline with lax.scan over the ticks",
                 expect="as pipeline_ppermute_fori: collective-permute in the scan's while")
def pipeline_ppermute_scan(mesh, n):
    fn = shard_map(_pipeline_local(True), mesh=mesh, in_specs=(P("stage"), P()), out_specs=P(),
                   check_vma=False)
    stages = mesh.shape["stage"]
    args = (sds(mesh, (stages, D, D), F32, P("stage")), sds(mesh, (MICRO, n, D), F32, P()))
    return Built(fn, args)


LAYERS, FF = 2, 128


@sharded_program(mesh=(("expert", -1),), n=1024, size="global tokens", grows=True,
                 desc="top-1 MoE in shard_map, scan over 2 layers of stacked expert weights "
                      "P(None,'expert'): dispatch with one-hot einsum into [E,C,D], "
                      "lax.all_to_all to the experts, expert FFN, all_to_all back, combine",
                 expect="two all-to-alls per layer inside the scan's while (trip count 2), "
                        "operand f32[E,C,128] with C = tokens per device")
def moe_all_to_all(mesh, n):
    e = mesh.shape["expert"]

    def local(x, router, w_in, w_out):
        # x: f32[t, D] this device's tokens; router: f32[D, E]; w_in: f32[L,1,D,FF]; w_out: f32[L,1,FF,D]
        t = x.shape[0]

        def layer(x, ws):
            wi, wo = ws
            logits = x @ router
            expert = jnp.argmax(logits, axis=-1)
            gate = jax.nn.softmax(logits, axis=-1).max(axis=-1)
            onehot = jax.nn.one_hot(expert, e, dtype=x.dtype)                # [t, E]
            pos = (jnp.cumsum(onehot, axis=0) - 1.0) * onehot                 # slot in its expert
            slot = jax.nn.one_hot(pos.sum(-1).astype(jnp.int32), t, dtype=x.dtype)  # [t, C=t]
            dispatch = onehot[:, :, None] * slot[:, None, :]                  # [t, E, C]
            buf = jnp.einsum("tec,td->ecd", dispatch, x)                      # [E, C, D]
            buf = lax.all_to_all(buf, "expert", 0, 0, tiled=True)             # [E(src), C, D]
            y = jax.nn.gelu(buf @ wi[0]) @ wo[0]
            y = lax.all_to_all(y, "expert", 0, 0, tiled=True)
            out = jnp.einsum("tec,ecd->td", dispatch, y)
            return x + gate[:, None] * out, None

        x, _ = lax.scan(layer, x, (w_in, w_out))
        return x

    fn = shard_map(local, mesh=mesh,
                   in_specs=(P("expert"), P(), P(None, "expert"), P(None, "expert")),
                   out_specs=P("expert"))
    args = (sds(mesh, (n, D), F32, P("expert", None)), sds(mesh, (D, e), F32, P()),
            sds(mesh, (LAYERS, e, D, FF), F32, P(None, "expert")),
            sds(mesh, (LAYERS, e, FF, D), F32, P(None, "expert")))
    return Built(fn, args)
