"""Updates inside loops: fori_loop / while_loop / scan over buffers."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import program
from ._args import f32, i32

N_STEPS = 100


def _write_step(i, buf):
    return buf.at[i].set(i.astype(buf.dtype))


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="fori_loop(0,100) writing buf.at[i] on a donated f32[1024] -> DUS fusion in the loop "
              "shares the loop buffer, no copy; known_trip_count=100")
def loop_dus_donated(buf):
    return lax.fori_loop(0, N_STEPS, _write_step, buf)


@program(args=lambda: (f32(1024),),
         desc="same loop on a non-donated parameter -> one 4096 B copy of the parameter before the "
              "while, the DUS in the loop is in place on that copy")
def loop_dus_not_donated(buf):
    return lax.fori_loop(0, N_STEPS, _write_step, buf)


@program(args=lambda: (f32(1024), i32(N_STEPS, 4, high=1024, seed=3)), donate=(0,),
         desc="scatter-add of 4 random indices per iteration in a fori_loop on a donated buffer "
              "-> scatter in place on the loop buffer, no copy of the buffer")
def loop_scatter_add(buf, idx):
    def body(i, buf):
        return buf.at[idx[i]].add(1.0)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="in the loop the OLD buffer is read after .at[i].set (acc += buf[(i+1)%n]) -> two 4096 B "
              "copies per iteration (copy of the loop parameter, then a copy of that copy feeding the "
              "DUS)")
def loop_read_after_write(buf):
    n = buf.shape[0]

    def body(i, c):
        buf, acc = c
        new = buf.at[i].set(0.0)
        acc = acc + buf[(i + 1) % n]
        return new, acc
    return lax.fori_loop(0, N_STEPS, body, (buf, jnp.float32(0)))


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="the old element is read BEFORE the write and feeds it (buf.at[i].set(buf[i]*2)) -> "
              "no copy, in place")
def loop_read_before_write(buf):
    def body(i, buf):
        return buf.at[i].set(buf[i] * 2.0 + 1.0)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(256, 64), f32(N_STEPS, 64)), donate=(0,),
         desc="replay buffer f32[256,64], one row written per step, no read of the buffer -> row "
              "DUS in place, no copy")
def replay_row_write_only(buf, obs):
    cap = buf.shape[0]

    def body(t, buf):
        with jax.named_scope("replay_write"):
            return buf.at[t % cap].set(obs[t])
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(256, 64), f32(N_STEPS, 64)), donate=(0,),
         desc="replay buffer f32[256,64]: the old row is read before the write and only feeds the "
              "write -> row DUS in place, no copy")
def replay_row_read_feeds_write(buf, obs):
    cap = buf.shape[0]

    def body(t, buf):
        ptr = t % cap
        with jax.named_scope("replay_write"):
            old = buf[ptr]
            return buf.at[ptr].set(obs[t] + 0.5 * old)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(256, 64), f32(N_STEPS, 64)), donate=(0,),
         desc="replay buffer f32[256,64]: old row read before the write, feeding it AND summed -> the "
              "DUS fusion recomputes the read, the separate read is unordered with the write, so two "
              "65536 B copies per iteration")
def replay_row_read_before_write(buf, obs):
    cap = buf.shape[0]

    def body(t, c):
        buf, acc = c
        ptr = t % cap
        with jax.named_scope("replay_write"):
            old = buf[ptr]
            buf = buf.at[ptr].set(obs[t] + 0.5 * old)
        return buf, acc + old.sum()
    return lax.fori_loop(0, N_STEPS, body, (buf, jnp.float32(0)))


@program(args=lambda: (f32(256, 64), f32(N_STEPS, 64)), donate=(0,),
         desc="replay buffer f32[256,64]: the old row is read AFTER the row write (obs_old = buf[ptr] "
              "of the pre-update buffer) -> two 65536 B copies per iteration, row DUS in place on the "
              "second copy")
def replay_row_read_after_write(buf, obs):
    cap = buf.shape[0]

    def body(t, c):
        buf, acc = c
        ptr = t % cap
        with jax.named_scope("replay_write"):
            new_buf = buf.at[ptr].set(obs[t])
            obs_old = buf[ptr]
        return new_buf, acc + obs_old.sum()
    return lax.fori_loop(0, N_STEPS, body, (buf, jnp.float32(0)))


@program(args=lambda: (f32(256, 64), f32(N_STEPS, 64)), donate=(0,),
         desc="replay buffer written one row per step inside lax.scan (product-sketch pattern) on a "
              "donated buffer -> in place, no copy")
def replay_scan_rollout(buf, obs):
    cap = buf.shape[0]

    def step(c, x):
        buf, ptr = c
        buf = buf.at[ptr].set(x)
        return (buf, (ptr + 1) % cap), x.sum()
    (buf, ptr), sums = lax.scan(step, (buf, jnp.int32(0)), obs)
    return buf, sums


@program(args=lambda: (f32(1024), f32(1024)), donate=(0, 1),
         desc="while_loop swapping two carries (a, b) -> (b, a) -> four 4096 B copies in the body per "
              "iteration")
def while_swapped_carries(a, b):
    def cond(c):
        return c[2] < N_STEPS

    def body(c):
        a, b, i = c
        return b, a, i + 1
    a, b, _ = lax.while_loop(cond, body, (a, b, 0))
    return a, b


@program(args=lambda: (f32(1024), f32(1024)), donate=(0, 1),
         desc="while_loop (a, b) -> (b, a.at[i].set(1)) -> four 4096 B copies in the body per "
              "iteration, the DUS runs in place on one of them")
def while_swap_and_update(a, b):
    def cond(c):
        return c[2] < N_STEPS

    def body(c):
        a, b, i = c
        return b, a.at[i].set(1.0), i + 1
    a, b, _ = lax.while_loop(cond, body, (a, b, 0))
    return a, b


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="jnp.where(arange==i, 1, buf) in a fori_loop -> no DUS and no copy, but a select fusion "
              "rewrites the whole 4096 B buffer every iteration")
def loop_where_update(buf):
    n = buf.shape[0]

    def body(i, buf):
        return jnp.where(jnp.arange(n) == i, jnp.float32(1.0), buf)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(512), f32(N_STEPS)), donate=(0,),
         desc="fixed-size append concatenate([buf[1:], x]) in a loop -> a fusion rewrites the 2048 B "
              "buffer into a temp and a 2048 B copy moves it back into the loop buffer every iteration")
def loop_concat_append(buf, xs):
    def body(i, buf):
        return jnp.concatenate([buf[1:], xs[i][None]])
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(512), f32(N_STEPS)), donate=(0,),
         desc="fixed-size append jnp.roll(buf,-1).at[-1].set(x) in a loop -> slice/concatenate fusion "
              "into a temp, DUS in place on that temp, then a 2048 B copy per iteration back into the "
              "loop buffer")
def loop_roll_append(buf, xs):
    def body(i, buf):
        return jnp.roll(buf, -1).at[-1].set(xs[i])
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(32, 64),), donate=(0,),
         desc="fori(0,32) containing fori(0,64) writing buf.at[i,j] -> nested whiles with "
              "known_trip_count 32 and 64, DUS in place, no copy")
def nested_fori(buf):
    def outer(i, buf):
        def inner(j, buf):
            return buf.at[i, j].set((i * 64 + j).astype(jnp.float32))
        return lax.fori_loop(0, 64, inner, buf)
    return lax.fori_loop(0, 32, outer, buf)


@program(args=lambda: (f32(1024), np.int32(100)), donate=(0,),
         desc="while_loop whose bound n is a runtime argument -> no known_trip_count; DUS in place")
def while_data_dependent_trip(buf, n):
    def cond(c):
        return c[1] < n

    def body(c):
        buf, i = c
        return buf.at[i].set(1.0), i + 1
    buf, _ = lax.while_loop(cond, body, (buf, 0))
    return buf


@program(args=lambda: (np.float32(0.5),),
         desc="jnp.zeros buffer created inside the jit and updated in a fori_loop -> a broadcast fusion "
              "initialises the loop buffer directly; DUS in place, no buffer copy")
def loop_update_zeros(v):
    buf = jnp.zeros((1024,), jnp.float32)

    def body(i, buf):
        return buf.at[i].set(v)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (np.float32(0.5),),
         desc="jnp.asarray(np.arange(1024)) updated in a fori_loop -> XLA turns the constant into "
              "an iota fusion that writes the loop buffer directly; no copy")
def loop_update_arange_constant(v):
    buf = jnp.asarray(np.arange(1024, dtype=np.float32))

    def body(i, buf):
        return buf.at[i].set(v)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (np.float32(0.5),),
         desc="a true constant array (np.sin(arange), not an iota) updated in a fori_loop -> the "
              "read-only constant is copied (4096 B) before the loop")
def loop_update_true_constant(v):
    buf = jnp.asarray(np.sin(np.arange(1024)).astype(np.float32))

    def body(i, buf):
        return buf.at[i].set(v)
    return lax.fori_loop(0, N_STEPS, body, buf)


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="donated buffer updated in a loop while its initial value is also summed after the loop "
              "-> two 4096 B copies before the loop (parameter into a temp read by the sum, temp back "
              "into the donated buffer that the loop updates)")
def loop_init_used_after(buf):
    out = lax.fori_loop(0, N_STEPS, _write_step, buf)
    return out, buf.sum()


@program(args=lambda: (f32(1024), f32(N_STEPS)), donate=(0,),
         desc="lax.scan with the buffer as carry, buf.at[t].set(x_t) -> in place in the scan's while")
def scan_buffer_carry(buf, xs):
    def step(c, x):
        buf, t = c
        return (buf.at[t].set(x), t + 1), None
    (buf, _), _ = lax.scan(step, (buf, 0), xs)
    return buf


@program(args=lambda: (f32(N_STEPS, 64),),
         desc="lax.scan producing ys f32[100,64] -> a bitcast+DUS fusion writes each row in place into "
              "the ys loop buffer (initialised by a broadcast fusion); no buffer copy")
def scan_ys_output(xs):
    def step(c, x):
        c = c + x
        return c, c * 2.0
    _, ys = lax.scan(step, jnp.zeros((64,), jnp.float32), xs)
    return ys


@program(args=lambda: (f32(1024),), donate=(0,),
         desc="read-only loop: sums buf[i] in a fori_loop, buffer passes through unchanged -> no copy")
def loop_readonly_passthrough(buf):
    def body(i, c):
        buf, acc = c
        return buf, acc + buf[i]
    return lax.fori_loop(0, N_STEPS, body, (buf, jnp.float32(0)))


@program(args=lambda: (f32(4, 256, 32), f32(4, 256, 32), f32(4, 32, 32), f32(32)), donate=(0, 1),
         desc="a four-layer decoder: KV caches stacked [4, 256, 32], a layer loop inside a 16-step "
              "decode loop writes row t of layer l in place and attends over cache[l] (a dynamic slice "
              "spanning every row the loop writes) -> no copy of the caches; two slice reads that grow "
              "with the rows")
def loop_stacked_cache_layers(ck, cv, w, x):
    def layer(l, c):
        ck, cv, x, t = c
        ck = ck.at[l, t].set(x)
        cv = cv.at[l, t].set(2.0 * x)
        p = jax.nn.softmax(ck[l] @ x)
        return ck, cv, jnp.tanh((p @ cv[l]) @ w[l]), t

    def step(t, c):
        ck, cv, x = c
        ck, cv, x, _ = lax.fori_loop(0, 4, layer, (ck, cv, x, t))
        return ck, cv, x
    return lax.fori_loop(0, 16, step, (ck, cv, x))
