"""Deterministic example-argument builders shared by the fixture programs."""

import numpy as np


def f32(*shape):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float32) % 97).reshape(shape) / 97.0


def i32(*shape, high=1000, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, high, size=shape, dtype=np.int32)


def arange_i32(n):
    return np.arange(n, dtype=np.int32)
