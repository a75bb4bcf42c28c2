"""optax: adamw in a jitted step (params and opt_state donated) and sgd+clip over steps in lax.scan."""
import jax
import jax.numpy as jnp
import numpy as np
import optax

from . import _data
from . import workload

FEATURES, HIDDEN, OUT = 16, 32, 4


def _params(seed=0):
    g = _data.rng(seed)
    return {"w1": (g.standard_normal((FEATURES, HIDDEN)) * 0.1).astype(np.float32),
            "b1": np.zeros((HIDDEN,), np.float32),
            "w2": (g.standard_normal((HIDDEN, OUT)) * 0.1).astype(np.float32),
            "b2": np.zeros((OUT,), np.float32)}


def _loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


ADAMW = optax.adamw(1e-3, weight_decay=1e-4)


def _adamw_args(rows):
    p = _params()
    x, y = _data.regression(rows, FEATURES, OUT)
    return (p, ADAMW.init(jax.tree.map(jnp.asarray, p)), x, y)


@workload(args=_adamw_args, base=256, size="batch rows", units="size", donate=(0, 1), library="optax",
          desc="optax.adamw update + apply_updates in one jitted step, params and opt_state donated")
def optax_adamw_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    updates, opt_state = ADAMW.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


SGD = optax.chain(optax.clip_by_global_norm(1.0), optax.sgd(1e-2, momentum=0.9))
STEPS = 64


def _scan_args(rows):
    p = _params()
    x, y = _data.regression(rows, FEATURES, OUT)
    return (p, SGD.init(jax.tree.map(jnp.asarray, p)), x, y)


@workload(args=_scan_args, base=4096, size="dataset rows (minibatch windows)", units="call",
          donate=(0, 1), library="optax",
          desc="optax chain(clip, sgd momentum): 64 steps in lax.scan, each on a dynamic_slice window "
               "of 32 rows of a dataset that grows; work per call is fixed")
def optax_sgd_scan(params, opt_state, x, y):
    def step(carry, i):
        params, opt_state = carry
        start = (i * 32) % (x.shape[0] - 32)
        xb = jax.lax.dynamic_slice_in_dim(x, start, 32)
        yb = jax.lax.dynamic_slice_in_dim(y, start, 32)
        loss, grads = jax.value_and_grad(_loss)(params, xb, yb)
        updates, opt_state = SGD.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), jnp.arange(STEPS))
    return params, opt_state, losses
