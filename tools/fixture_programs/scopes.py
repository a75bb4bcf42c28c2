"""Finding your code in the HLO: named scopes, nested functions, grad, vmap, scan,
cond, remat — and one large loop-free module (>= 10,000 instructions).

These programs exist for `hloscope where / annotate / fusions / explain` and
`--scope`: their op_names carry the wrappers JAX adds around a
jax.named_scope (jit(..), jvp(..), transpose(..), vmap(..), while/body,
cond/branch_N_fun, closed_call, checkpoint/remat) and their stack frames go
through nested Python functions.
"""

import jax
import jax.numpy as jnp
from jax import lax

from . import program
from ._args import f32

N_LARGE = 520


@program(args=lambda: (f32(16, 16), f32(8, 4, 16), f32(8)), donate=(2,),
         desc="scan of a grad step (named scopes encoder/head/grad_step/log_write) writing "
              "log.at[i] on a donated buffer, then a vmapped scoring pass (per_example) -> "
              "jvp/transpose/vmap wrappers in op_name, DUS in place, no buffer copy")
def scoped_train_step(w, xs, log):
    def loss(w, x):
        with jax.named_scope("encoder"):
            h = jnp.tanh(x @ w)
        with jax.named_scope("head"):
            return jnp.mean(h * h)

    def step(carry, x):
        w, log, i = carry
        with jax.named_scope("grad_step"):
            g = jax.grad(loss)(w, x)
            w = w - 0.1 * g
        with jax.named_scope("log_write"):
            log = log.at[i].set(jnp.sum(g))
        return (w, log, i + 1), jnp.sum(w)

    (w, log, _), hist = lax.scan(step, (w, log, 0), xs)
    with jax.named_scope("per_example"):
        scores = jax.vmap(lambda x: jnp.sum(jnp.tanh(x @ w)))(xs[0])
    return w, log, hist, scores


@program(args=lambda: (f32(64), f32(32)), donate=(0,),
         desc="fori_loop with named scope 'update': a cond picks a rematerialized gradient sum or "
              "-1, writes buf.at[i], then reads the OLD buffer (acc += buf[(i+1)%n]) -> a 256 B "
              "copy of the buffer every iteration caused by the read after the write")
def scoped_cond_remat(buf, x):
    n = buf.shape[0]

    @jax.checkpoint
    def block(x):
        with jax.named_scope("block"):
            return jnp.sin(x) * 2.0

    def grad_sum(x):
        return jnp.sum(jax.grad(lambda x: jnp.sum(block(x)))(x))

    def body(i, c):
        buf, acc = c
        with jax.named_scope("update"):
            v = lax.cond(i % 2 == 0, grad_sum, lambda x: -1.0, x)
            new = buf.at[i].set(v)
            acc = acc + buf[(i + 1) % n]
        return new, acc

    return lax.fori_loop(0, 10, body, (buf, jnp.float32(0)))


@program(args=lambda: (f32(N_LARGE), f32(4, 8, 8), f32(8, 8)), donate=(0,),
         desc=f"{N_LARGE} unrolled layers h = tanh(h @ ws[k % 4]); buf = buf.at[k].set(sum(h)) "
              "-> a loop-free module of more than 10,000 instructions with one DUS per layer")
def large_unrolled(buf, ws, x):
    h = x
    for k in range(N_LARGE):
        h = jnp.tanh(h @ ws[k % 4] + k)
        buf = buf.at[k].set(jnp.sum(h))
    return buf, h
