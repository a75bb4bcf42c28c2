"""Deterministic NumPy data for the workloads (no JAX needed to build it)."""
import numpy as np


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def regression(rows: int, features: int = 16, outputs: int = 4, seed: int = 0):
    g = rng(seed)
    x = g.standard_normal((rows, features), dtype=np.float32)
    w = g.standard_normal((features, outputs), dtype=np.float32) / np.sqrt(features)
    y = np.tanh(x @ w).astype(np.float32)
    return x, y


def key(seed: int = 0):
    import jax
    return jax.random.key_data(jax.random.PRNGKey(seed))  # u32[2]: a plain array argument
