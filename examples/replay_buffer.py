"""A replay buffer written one row per step inside ``lax.scan``: the copy, then the fix.

Without donation XLA must keep the caller's buffer intact, so it copies the
whole buffer before the loop and the row writes run in place on that copy.
Donating the buffer (``donate_argnums=0``) lets XLA write into it directly.

    python examples/replay_buffer.py
"""

import jax
import jax.numpy as jnp
from jax import lax

import hloscope

CAPACITY = 4096  # rows
DIM = 128        # floats per row: 2 MiB buffer
STEPS = 1000


def rollout(buf, observations):
    """Writes one observation per step into the ring buffer `buf`."""
    capacity = buf.shape[0]

    def step(carry, obs):
        buf, ptr = carry
        buf = buf.at[ptr].set(obs)  # the row write
        return (buf, (ptr + 1) % capacity), obs.sum()

    (buf, _), sums = lax.scan(step, (buf, jnp.int32(0)), observations)
    return buf, sums


def main():
    buf = jnp.zeros((CAPACITY, DIM), jnp.float32)
    observations = jnp.ones((STEPS, DIM), jnp.float32)

    print("== 1. buffer not donated ==")
    report = hloscope.inspect(rollout, buf, observations)
    print(report)
    # The once-per-call copy of a buffer the caller did not donate is advice
    # under the default gates (the loop itself updates the copy in place);
    # gates="strict" also fails on it.
    hloscope.assert_inplace(rollout, buf, observations)
    try:
        hloscope.assert_inplace(rollout, buf, observations, gates="strict")
    except AssertionError as e:
        print("assert_inplace(gates='strict') fails:")
        print(e)
    print()

    print("== 2. fixed: jax.jit(rollout, donate_argnums=0) ==")
    fixed = jax.jit(rollout, donate_argnums=0)
    print(hloscope.inspect(fixed, buf, observations))
    hloscope.assert_inplace(fixed, buf, observations)
    print("assert_inplace passes.")


if __name__ == "__main__":
    main()
