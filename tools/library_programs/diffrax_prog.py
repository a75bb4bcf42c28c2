"""diffrax: diffeqsolve with SaveAt(ts=...) — the number of saved points grows, the steps do not."""
import diffrax
import jax.numpy as jnp
import numpy as np

from . import workload

DIM = 8


def _vf(t, y, args):
    return -args * y + jnp.sin(t + jnp.arange(DIM, dtype=y.dtype))


def _args(points):
    y0 = np.linspace(0.5, 1.5, DIM, dtype=np.float32)
    ts = np.linspace(0.0, 2.0, points, dtype=np.float32)
    return (y0, ts)


@workload(args=_args, base=256, size="saved points (SaveAt ts)", units="call", library="diffrax",
          desc="Tsit5, ConstantStepSize dt0=0.01 on [0, 2] (200 steps, max_steps=256), SaveAt(ts) with "
               "N points; steps fixed, the saved-output buffer grows")
def diffrax_saveat_ts(y0, ts):
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(_vf), diffrax.Tsit5(), t0=0.0, t1=2.0, dt0=0.01, y0=y0, args=jnp.float32(0.7),
        saveat=diffrax.SaveAt(ts=ts), stepsize_controller=diffrax.ConstantStepSize(), max_steps=256)
    return sol.ys
