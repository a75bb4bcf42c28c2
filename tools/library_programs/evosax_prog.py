"""evosax: CMA-ES ask/tell loop over N generations in lax.scan."""
import jax
import jax.numpy as jnp
import numpy as np
from evosax.algorithms import CMA_ES

from . import _data
from . import workload

DIM, POP = 8, 16
ES = CMA_ES(population_size=POP, solution=jnp.zeros(DIM))


def _fitness(x):
    return jnp.sum((x - 1.0) ** 2, axis=-1) + 0.1 * jnp.sum(jnp.cos(3 * x), axis=-1)


def _args(gens):
    return (np.full(DIM, 3.0, np.float32), _data.key(5), gens)


@workload(args=_args, base=128, size="generations", units="size", static=(2,), library="evosax",
          desc="evosax CMA_ES (pop 16, dim 8): init, then N generations of ask / evaluate / tell in lax.scan")
def evosax_cma_es_loop(mean, key, gens):
    key = jax.random.wrap_key_data(key)
    params = ES.default_params
    key, k0 = jax.random.split(key)
    state = ES.init(k0, mean, params)

    def gen(state, k):
        ka, kt = jax.random.split(k)
        pop, state = ES.ask(ka, state, params)
        fit = _fitness(pop)
        state, metrics = ES.tell(kt, pop, fit, state, params)
        return state, fit.min()

    state, best = jax.lax.scan(gen, state, jax.random.split(key, gens))
    return state.mean, best
