"""`diff DIR DIR` and `check DIR` put the user's module first (docs/analysis.md "The answer"): a
program that draws its data with jax.random at the top level dumps JAX's own helper modules
(jit__normal, jit__threefry_seed, ...) before the user's jit in XLA's dump order; the reports lead
with the user's module and fold the modules where nothing changed into one line.
"""
import os
import re
import subprocess
import sys

_PROGRAM = r'''
import os, sys
n, d = int(sys.argv[1]), sys.argv[2]
os.environ["XLA_FLAGS"] = "--xla_dump_to=" + d
os.environ["JAX_PLATFORMS"] = "cpu"
import jax, jax.numpy as jnp

def ring(buf, xs):
    def body(i, b):
        old = b[i % 16]
        return b.at[i % 16].set(xs[i] + old[0])
    return jax.lax.fori_loop(0, xs.shape[0], body, buf)

xs = jax.random.normal(jax.random.PRNGKey(0), (50, n))   # JAX's own helper modules, dumped first
buf = jnp.zeros((16, n)) + 1.0
jax.jit(ring)(buf, xs).block_until_ready()
'''


def _dump(tmp_path, n):
    d = str(tmp_path / f"n{n}")
    subprocess.run([sys.executable, "-c", _PROGRAM, str(n), d], check=True, capture_output=True)
    return d


def test_the_users_module_comes_first_in_diff_and_check(hloscope_bin, tmp_path):
    a, b = _dump(tmp_path, 64), _dump(tmp_path, 128)
    dumped = sorted(f for f in os.listdir(b) if f.endswith("after_optimizations.txt"))
    names = [re.match(r"module_\d+\.(.+?)\.", f).group(1) for f in dumped]
    # XLA's truth: the helpers come before the user's jit in dump order.
    assert names.index("jit__normal") < names.index("jit_ring"), names
    diff = subprocess.run([hloscope_bin, "diff", a, b], capture_output=True, text=True).stdout
    heads = [line for line in diff.splitlines() if re.match(r"^jit_\w+$", line)]
    assert heads and heads[0] == "jit_ring", heads
    assert heads.index("jit_ring") < heads.index("jit__normal"), heads
    assert re.search(r"\n\d+ more modules? with nothing changed and nothing standing out: ", diff), diff
    check = subprocess.run([hloscope_bin, "check", b], capture_output=True, text=True).stdout
    leads = [line.split(":")[0] for line in check.splitlines() if re.match(r"^jit_\w+: ", line)]
    assert leads and leads[0] == "jit_ring", leads
