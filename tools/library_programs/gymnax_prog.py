"""gymnax: CartPole rollout in lax.scan with a linear policy (N steps, transitions stacked)."""
import functools

import gymnax
import jax
import jax.numpy as jnp
import numpy as np

from . import _data
from . import workload


@functools.lru_cache(maxsize=None)
def _env():
    return gymnax.make("CartPole-v1")


def _args(steps):
    g = _data.rng(9)
    return ((g.standard_normal((4, 2)) * 0.5).astype(np.float32), _data.key(4), steps)


@workload(args=_args, base=512, size="rollout steps", units="size", static=(2,), library="gymnax",
          desc="gymnax CartPole-v1 reset + N env.step in lax.scan with a linear softmax policy; "
               "(obs, action, reward, done) stacked as ys")
def gymnax_cartpole_rollout(policy, key, steps):
    env, params = _env()
    key = jax.random.wrap_key_data(key)
    key, k0 = jax.random.split(key)
    obs, state = env.reset(k0, params)

    def step(carry, k):
        obs, state = carry
        ka, ks = jax.random.split(k)
        action = jax.random.categorical(ka, obs @ policy)
        obs2, state, reward, done, *_ = env.step(ks, state, action, params)
        return (obs2, state), (obs, action, reward, done)

    _, traj = jax.lax.scan(step, (obs, state), jax.random.split(key, steps))
    return traj
