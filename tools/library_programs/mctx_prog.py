"""mctx: muzero_policy search with a small deterministic model; the tree grows with num_simulations."""
import jax
import jax.numpy as jnp
import mctx
import numpy as np

from . import _data
from . import workload

BATCH, ACTIONS, EMB = 4, 4, 8


def _weights():
    g = _data.rng(7)
    return {"w": (g.standard_normal((EMB + ACTIONS, EMB)) * 0.3).astype(np.float32),
            "p": (g.standard_normal((EMB, ACTIONS)) * 0.3).astype(np.float32),
            "v": (g.standard_normal((EMB,)) * 0.3).astype(np.float32)}


def _recurrent_fn(params, rng_key, action, embedding):
    a = jax.nn.one_hot(action, ACTIONS)
    nxt = jnp.tanh(jnp.concatenate([embedding, a], axis=-1) @ params["w"])
    out = mctx.RecurrentFnOutput(reward=nxt.sum(-1) * 0.1, discount=jnp.full((BATCH,), 0.99),
                                 prior_logits=nxt @ params["p"], value=nxt @ params["v"])
    return out, nxt


def _args(sims):
    g = _data.rng(8)
    return (_weights(), g.standard_normal((BATCH, EMB)).astype(np.float32), _data.key(3), sims)


@workload(args=_args, base=64, size="num_simulations (tree nodes)", units="size", static=(3,),
          library="mctx",
          desc="mctx.muzero_policy, batch 4, 4 actions, N simulations (fori_loop) over a tree of N+1 nodes")
def mctx_muzero_search(params, embedding, key, sims):
    root = mctx.RootFnOutput(prior_logits=embedding @ params["p"], value=embedding @ params["v"],
                             embedding=embedding)
    out = mctx.muzero_policy(params, jax.random.wrap_key_data(key), root, _recurrent_fn,
                             num_simulations=sims, max_depth=8)
    return out.action, out.action_weights, out.search_tree.node_values
