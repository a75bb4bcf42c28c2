"""numpyro: NUTS sample collection with numpyro.infer.hmc + numpyro.util.fori_collect."""
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer.hmc import hmc
from numpyro.infer.util import initialize_model
from numpyro.util import fori_collect

from . import _data
from . import workload

ROWS = 64


def _model(x, y=None):
    beta = numpyro.sample("beta", dist.Normal(jnp.zeros(x.shape[1]), 1.0).to_event(1))
    numpyro.sample("obs", dist.Normal(x @ beta, 0.5), obs=y)


def _data_xy():
    g = _data.rng(3)
    x = g.standard_normal((ROWS, 3)).astype(np.float32)
    y = (0.5 + x @ np.array([1.0, -2.0, 0.3], np.float32) + 0.1 * g.standard_normal(ROWS)).astype(np.float32)
    return x, y


def _args(samples):
    x, y = _data_xy()
    return (_data.key(0), x, y, samples)


def _collect(key, x, y, samples, algo, **kw):
    key = jax.random.wrap_key_data(key)
    init_key, run_key = jax.random.split(key)
    info = initialize_model(init_key, _model, model_args=(x, y))
    init_kernel, sample_kernel = hmc(info.potential_fn, algo=algo)
    state = init_kernel(info.param_info, num_warmup=0, step_size=0.05, rng_key=run_key, **kw)
    return fori_collect(0, samples, sample_kernel, state, transform=lambda s: s.z, progbar=False)


@workload(args=_args, base=256, size="samples collected", units="size", static=(3,), library="numpyro",
          desc="NUTS (max_tree_depth=4) on a 3-coefficient linear regression; fori_collect(progbar=False) writes "
               "each sample into an N-row collection (lax.cond + .at[idx].set)")
def numpyro_nuts_collect(key, x, y, samples):
    return _collect(key, x, y, samples, "NUTS", max_tree_depth=4)

