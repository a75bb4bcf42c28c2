"""A training loop as users write it with optax: an MLP trained by AdamW over
minibatches inside one jitted `lax.scan`, with a loss history written row by row
and a replay buffer of the inputs it has seen (the replay write reads the old
buffer after the update, the mistake hloscope exists to find).

Compiled by tools/gen_report_fixtures.py into tests/fixtures/report/; the HTML
report tests (tests/python/test_report_browser.py) render its report.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

FEATURES, HIDDEN, BATCH, STEPS, REPLAY = 32, 64, 16, 20, 512

optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3, weight_decay=1e-4))


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (FEATURES, HIDDEN)) * 0.1,
        "b1": jnp.zeros((HIDDEN,)),
        "w2": jax.random.normal(k2, (HIDDEN, 1)) * 0.1,
        "b2": jnp.zeros((1,)),
    }


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    pred = (h @ params["w2"] + params["b2"])[:, 0]
    return jnp.mean((pred - y) ** 2)


def train(params, opt_state, xs, ys, history, replay):
    def step(carry, i):
        params, opt_state, history, replay = carry
        x = jax.lax.dynamic_slice_in_dim(xs, i * BATCH, BATCH)
        y = jax.lax.dynamic_slice_in_dim(ys, i * BATCH, BATCH)
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        history = history.at[i].set(loss)
        slot = (i * BATCH) % REPLAY
        new_replay = jax.lax.dynamic_update_slice_in_dim(replay, x, slot, 0)
        # Reads the rows the write just replaced, from the old buffer.
        evicted = jax.lax.dynamic_slice_in_dim(replay, slot, BATCH)
        loss = loss + 0.0 * jnp.sum(evicted)
        return (params, opt_state, history, new_replay), loss

    (params, opt_state, history, replay), losses = jax.lax.scan(
        step, (params, opt_state, history, replay), jnp.arange(STEPS))
    return params, opt_state, history, replay, losses


def example_args():
    params = init_params(jax.random.PRNGKey(0))
    opt_state = optimizer.init(params)
    xs = jnp.ones((STEPS * BATCH, FEATURES), jnp.float32)
    ys = jnp.zeros((STEPS * BATCH,), jnp.float32)
    history = jnp.zeros((STEPS,), jnp.float32)
    replay = jnp.zeros((REPLAY, FEATURES), jnp.float32)
    return params, opt_state, xs, ys, history, replay
