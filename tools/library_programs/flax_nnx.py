"""flax.nnx: the functional train step (nnx.split / nnx.merge) under jax.jit with donation."""
import functools

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from . import _data
from . import workload

FEATURES, HIDDEN, OUT = 16, 32, 4


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.l1 = nnx.Linear(FEATURES, HIDDEN, rngs=rngs)
        self.l2 = nnx.Linear(HIDDEN, HIDDEN, rngs=rngs)
        self.l3 = nnx.Linear(HIDDEN, OUT, rngs=rngs)

    def __call__(self, x):
        return self.l3(nnx.relu(self.l2(nnx.relu(self.l1(x)))))


@functools.lru_cache(maxsize=None)
def _split():
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    return nnx.split((model, optimizer))


def _args(rows):
    _, state = _split()
    x, y = _data.regression(rows, FEATURES, OUT)
    return (jax.tree.map(jnp.array, state), x, y)


@workload(args=_args, base=256, size="batch rows", units="size", donate=(0,), library="flax",
          desc="nnx MLP + nnx.Optimizer(adam): split/merge train step, donated state")
def flax_nnx_train_step(state, x, y):
    graphdef, _ = _split()
    model, optimizer = nnx.merge(graphdef, state)

    def loss_fn(m):
        return jnp.mean((m(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    _, new_state = nnx.split((model, optimizer))
    return new_state, loss
