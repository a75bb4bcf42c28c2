"""optimistix / lineax: Levenberg-Marquardt least squares fitting a 3-parameter curve to N points."""
import jax.numpy as jnp
import numpy as np
import optimistix as optx

from . import _data
from . import workload


def _residuals(theta, data):
    t, y = data
    a, b, c = theta[0], theta[1], theta[2]
    return a * jnp.exp(-b * t) + c - y


def _args(points):
    g = _data.rng(11)
    t = np.linspace(0.0, 4.0, points, dtype=np.float32)
    y = (2.0 * np.exp(-1.3 * t) + 0.5 + 0.01 * g.standard_normal(points)).astype(np.float32)
    return (np.array([1.0, 1.0, 0.0], np.float32), t, y)


@workload(args=_args, base=1024, size="data points", units="size", library="optimistix",
          desc="optx.least_squares(LevenbergMarquardt, max_steps=32) on N points (lineax QR inside)")
def optimistix_lm_fit(theta0, t, y):
    solver = optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6)
    sol = optx.least_squares(_residuals, solver, theta0, args=(t, y), max_steps=32, throw=False)
    return sol.value, sol.stats["num_steps"]
