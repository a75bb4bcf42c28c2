"""dm-haiku: hk.transform MLP trained with optax.sgd in a jitted step, params and opt_state donated."""
import haiku as hk
import jax
import jax.numpy as jnp
import optax

from . import _data
from . import workload

FEATURES, OUT = 16, 4
OPT = optax.sgd(1e-2, momentum=0.9)


def _forward(x):
    return hk.nets.MLP([32, 32, OUT])(x)


NET = hk.without_apply_rng(hk.transform(_forward))


def _args(rows):
    params = NET.init(jax.random.PRNGKey(0), jnp.zeros((1, FEATURES)))
    x, y = _data.regression(rows, FEATURES, OUT)
    return (params, OPT.init(params), x, y)


@workload(args=_args, base=256, size="batch rows", units="size", donate=(0, 1), library="dm-haiku",
          desc="hk.nets.MLP + optax.sgd(momentum): one jitted step, params and opt_state donated")
def haiku_train_step(params, opt_state, x, y):
    def loss_fn(p):
        return jnp.mean((NET.apply(p, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = OPT.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss
