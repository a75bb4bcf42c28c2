"""flax.linen: TrainState.create + apply_gradients, one jitted step (donated), and an epoch in lax.scan."""
import functools

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state

from . import _data
from . import workload

FEATURES, OUT, BATCH, STEPS = 16, 4, 32, 32


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.relu(nn.Dense(32)(x))
        return nn.Dense(OUT)(x)


@functools.lru_cache(maxsize=None)
def _model():
    return MLP()


def _state():
    model = _model()
    params = model.init(jax.random.PRNGKey(0), jnp.zeros((1, FEATURES)))["params"]
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))


def _loss(params, x, y):
    return jnp.mean((_model().apply({"params": params}, x) - y) ** 2)


def _step_args(rows):
    x, y = _data.regression(rows, FEATURES, OUT)
    return (_state(), x, y)


@workload(args=_step_args, base=256, size="batch rows", units="size", donate=(0,), library="flax",
          desc="linen MLP TrainState(adam): value_and_grad + apply_gradients, donated state")
def flax_linen_trainstate_step(state, x, y):
    loss, grads = jax.value_and_grad(_loss)(state.params, x, y)
    return state.apply_gradients(grads=grads), loss


def _epoch_args(rows):
    x, y = _data.regression(rows, FEATURES, OUT)
    return (_state(), x, y, _data.key(1))


@workload(args=_epoch_args, base=4096, size="dataset rows held on device", units="call", donate=(0,),
          library="flax",
          desc="linen TrainState: 32 steps in lax.scan, each a random minibatch (gather) of a dataset "
               "that grows; work per call is fixed")
def flax_linen_scan_epoch(state, x, y, key):
    key = jax.random.wrap_key_data(key)

    def step(state, k):
        idx = jax.random.randint(k, (BATCH,), 0, x.shape[0])
        loss, grads = jax.value_and_grad(_loss)(state.params, x[idx], y[idx])
        return state.apply_gradients(grads=grads), loss

    state, losses = jax.lax.scan(step, state, jax.random.split(key, STEPS))
    return state, losses
