"""equinox: eqx.filter_jit(donate="all") train step on an eqx.nn.MLP with optax adam."""
import equinox as eqx
import jax
import jax.numpy as jnp
import optax

from . import _data
from . import workload

FEATURES, OUT = 16, 4
OPT = optax.adam(1e-3)


def _args(rows):
    model = eqx.nn.MLP(FEATURES, OUT, width_size=32, depth=2, key=jax.random.PRNGKey(0))
    opt_state = OPT.init(eqx.filter(model, eqx.is_inexact_array))
    x, y = _data.regression(rows, FEATURES, OUT)
    return (model, opt_state, jnp.asarray(x), jnp.asarray(y))


def _filter_jit_all(fn):
    return eqx.filter_jit(fn, donate="all")


@workload(args=_args, base=256, size="batch rows", units="size", donate=(0, 1, 2, 3), library="equinox",
          jit=_filter_jit_all,
          desc="eqx.nn.MLP + optax.adam: filter_value_and_grad step under eqx.filter_jit(donate='all')")
def equinox_train_step(model, opt_state, x, y):
    @eqx.filter_value_and_grad
    def loss_fn(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    loss, grads = loss_fn(model)
    updates, opt_state = OPT.update(grads, opt_state, eqx.filter(model, eqx.is_inexact_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss
