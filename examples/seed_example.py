"""The question that started hloscope: is ``x.at[0].set(1)`` done in place?

A JAX user asked how to tell whether XLA updates an array in place or copies
it; the answer was "print the optimized HLO and read it". hloscope reads it
for you, and checks its verdicts against XLA's own buffer assignment.

    python examples/seed_example.py
"""

import jax
import jax.numpy as jnp

import hloscope


def f(x):
    x = x.at[0].set(1)
    return x.sum()


def set_first(x):
    return x.at[0].set(1)


def main():
    x = jnp.arange(10)

    print("== f: the update feeds a sum (the question as asked) ==")
    print(hloscope.inspect(f, x))

    print("== set_first: the updated array is returned, argument not donated ==")
    print(hloscope.inspect(set_first, x))

    print("== set_first with donate_argnums=0 ==")
    print(hloscope.inspect(jax.jit(set_first, donate_argnums=0), x))


if __name__ == "__main__":
    main()
