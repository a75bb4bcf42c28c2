"""A user-style DQN replay ring buffer, slow and fixed, trained with flax.linen + optax.

Every step of a lax.scan (32 steps, fixed) writes one transition into an N-row
ring, samples a minibatch of 32 rows (jax.random.randint + gather) and takes a
TD-learning step on a small Q-network.  `replay_dqn_slow` samples from the ring
as it was *before* this step's write (the natural "sample, then insert" order
written as insert-then-read-old): XLA must keep the old ring alive, so it copies
the whole ring every step and the time per call grows with N.
`replay_dqn_fixed` samples from the *updated* ring: the write is in place and
the time per call does not depend on N.
"""
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import linen as nn

from . import _data
from . import workload

OBS, ACTIONS, BATCH, STEPS = 16, 4, 32, 32
OPT = optax.adam(1e-3)


class QNet(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(ACTIONS)(nn.relu(nn.Dense(32)(x)))


QNET = QNet()


def _args(rows):
    g = _data.rng(13)
    params = QNET.init(jax.random.PRNGKey(0), jnp.zeros((1, OBS)))["params"]
    ring = {"obs": np.zeros((rows, OBS), np.float32), "next_obs": np.zeros((rows, OBS), np.float32),
            "action": np.zeros((rows,), np.int32), "reward": np.zeros((rows,), np.float32)}
    stream = {"obs": g.standard_normal((STEPS, OBS)).astype(np.float32),
              "next_obs": g.standard_normal((STEPS, OBS)).astype(np.float32),
              "action": g.integers(0, ACTIONS, STEPS).astype(np.int32),
              "reward": g.standard_normal(STEPS).astype(np.float32)}
    return (params, OPT.init(params), ring, stream, _data.key(8))


def _td_step(params, opt_state, batch):
    def loss_fn(p):
        q = QNET.apply({"params": p}, batch["obs"])
        q_a = jnp.take_along_axis(q, batch["action"][:, None], axis=1)[:, 0]
        target = batch["reward"] + 0.99 * jax.lax.stop_gradient(QNET.apply({"params": p}, batch["next_obs"]).max(-1))
        return jnp.mean((q_a - target) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = OPT.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def _insert(ring, t, ptr):
    return jax.tree.map(lambda buf, x: buf.at[ptr].set(x), ring, t)


def _sample(ring, idx):
    return jax.tree.map(lambda buf: buf[idx], ring)


def _rollout(params, opt_state, ring, stream, key, from_updated):
    rows = ring["reward"].shape[0]

    def step(carry, inp):
        params, opt_state, ring, ptr = carry
        t, k = inp
        new_ring = _insert(ring, t, ptr)
        idx = jax.random.randint(k, (BATCH,), 0, rows)
        batch = _sample(new_ring if from_updated else ring, idx)
        params, opt_state, loss = _td_step(params, opt_state, batch)
        return (params, opt_state, new_ring, (ptr + 1) % rows), loss

    keys = jax.random.split(jax.random.wrap_key_data(key), STEPS)
    (params, opt_state, ring, _), losses = jax.lax.scan(step, (params, opt_state, ring, jnp.int32(0)),
                                                        (stream, keys))
    return params, opt_state, ring, losses


@workload(args=_args, base=4096, size="ring rows", units="call", donate=(0, 1, 2), library="flax",
          expect="grows",
          desc="DQN replay ring (flax.linen Q-net, optax.adam), 32 scan steps: insert, then sample 32 rows "
               "from the OLD ring -> XLA copies the ring every step")
def replay_dqn_slow(params, opt_state, ring, stream, key):
    return _rollout(params, opt_state, ring, stream, key, from_updated=False)


@workload(args=_args, base=4096, size="ring rows", units="call", donate=(0, 1, 2), library="flax",
          desc="the same DQN replay ring, sampling from the UPDATED ring -> insert in place, no ring copy")
def replay_dqn_fixed(params, opt_state, ring, stream, key):
    return _rollout(params, opt_state, ring, stream, key, from_updated=True)
