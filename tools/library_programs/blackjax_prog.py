"""blackjax: a NUTS step loop in lax.scan, and HMC writing into a preallocated sample buffer."""
import blackjax
import jax
import jax.numpy as jnp
import numpy as np

from . import _data
from . import workload

DIM = 8
SCALES = np.linspace(0.5, 2.0, DIM).astype(np.float32)


def _logdensity(x):
    return -0.5 * jnp.sum((x / SCALES) ** 2)


def _scan_args(samples):
    return (_data.key(0), np.ones(DIM, np.float32), samples)


@workload(args=_scan_args, base=256, size="samples (scan length)", units="size", static=(2,),
          library="blackjax",
          desc="blackjax.nuts on an 8-d Gaussian: lax.scan over N keys, positions stacked as ys")
def blackjax_nuts_scan(key, x0, samples):
    nuts = blackjax.nuts(_logdensity, step_size=0.5, inverse_mass_matrix=jnp.ones(DIM))
    keys = jax.random.split(jax.random.wrap_key_data(key), samples)

    def step(state, k):
        state, info = nuts.step(k, state)
        return state, (state.position, info.acceptance_rate)

    _, (positions, acc) = jax.lax.scan(step, nuts.init(x0), keys)
    return positions, acc.mean()


def _buffer_args(samples):
    return (np.zeros((samples, DIM), np.float32), _data.key(0), np.ones(DIM, np.float32))


@workload(args=_buffer_args, base=512, size="samples (buffer rows = loop trips)", units="size", donate=(0,),
          library="blackjax",
          desc="blackjax.hmc (5 leapfrog steps) in fori_loop writing samples.at[i].set(position) into a "
               "donated N-row buffer")
def blackjax_hmc_buffer(samples, key, x0):
    hmc = blackjax.hmc(_logdensity, step_size=0.3, inverse_mass_matrix=jnp.ones(DIM), num_integration_steps=5)

    def body(i, carry):
        samples, state, key = carry
        key, sub = jax.random.split(key)
        state, _ = hmc.step(sub, state)
        return samples.at[i].set(state.position), state, key

    samples, _, _ = jax.lax.fori_loop(0, samples.shape[0], body,
                                      (samples, hmc.init(x0), jax.random.wrap_key_data(key)))
    return samples
