"""Donation as asked for vs as kept, read from XLA's dumps (check DIR, hloscope run), and the
module before partitioning in `hloscope run`'s dumps.

A donated argument whose per-device shard cannot hold any output (here: sharded 8 ways, the
output replicated by a sharding constraint) reaches XLA as a `buffer_donor` that XLA cannot
alias; JAX says nothing. The optimized module keeps the unused donor, and the module before
optimization carries the request: `check` names the dropped donation with its reason and fix,
through every door, and never calls that argument "donated" without saying XLA dropped it.
The fix, as printed (an output sharded like the argument), keeps the donation. `hloscope run`
also asks XLA for the module before SPMD partitioning, so a re-shard there names the shardings
that differ. Real compiles on 8 CPU host devices, in subprocesses.
"""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("jax")

PROGRAM = r"""
import os, sys
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()), ("x",))
x = jax.device_put(jnp.ones((1024, 256)), NamedSharding(mesh, P("x", None)))
spec = P("x", None) if "fixed" in sys.argv else P()

def step(x):
    return jax.lax.with_sharding_constraint(x * 2, NamedSharding(mesh, spec))

print(jax.jit(step, donate_argnums=0)(x).shape)
"""


def _env():
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    return env


def _dump(tmp_path, *args):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / ("dump" + "".join(args))
    env = _env()
    env["XLA_FLAGS"] = f"--xla_dump_to={out}"
    r = subprocess.run([sys.executable, str(prog), *args], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def _params(hloscope_bin, path, *opts):
    r = subprocess.run([hloscope_bin, "check", str(path), "--format", "json", *opts], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["modules"][-1]["parameters"]


def test_a_donation_xla_dropped_is_named_from_the_dump_folder(hloscope_bin, tmp_path):
    folder = _dump(tmp_path)
    text = subprocess.run([hloscope_bin, "check", str(folder)], capture_output=True, text=True, timeout=120).stdout
    # The answer leads with the donation the program asked for and XLA refused.
    assert ("\njit_step: x (argument 0), 128.0 KiB per device, was donated, but XLA could not reuse "
            "it: it still needs its own buffer") in text, text
    assert "  0   x              f32[128,256]{1,0}    128.0 KiB  dropped " in text
    assert ("donation asked for (module before optimization: " in text
            and "but not kept by XLA for argument 0 (x): no output has its per-device shape and dtype "
                "f32[128,256] "
                "(outputs: f32[1024,256]); XLA reuses a donated buffer only for such an output. Fix: return "
                "an output with the argument's shape, dtype and sharding (out_shardings = its in_shardings), "
                "or do not donate it." in text), text
    p = _params(hloscope_bin, folder)[0]
    assert p["donation_requested"] is True and p["donation"] == "buffer-donor"
    assert p["donation_dropped"]["reason"] == "no-output-of-shape"
    # The optimized module alone still knows: XLA leaves the donor it could not use.
    [optimized] = [f for f in os.listdir(folder) if "jit_step" in f and f.endswith("cpu_after_optimizations.txt")]
    alone = tmp_path / "alone.hlo.txt"
    alone.write_text((folder / optimized).read_text())
    p = _params(hloscope_bin, alone)[0]
    assert p["donation_requested"] is True and p["donation_dropped"]["reason"] == "no-output-of-shape"


def test_the_fix_as_printed_keeps_the_donation(hloscope_bin, tmp_path):
    folder = _dump(tmp_path, "fixed")
    p = _params(hloscope_bin, folder)[0]
    assert (p["donation_requested"], p["donation"], p["donation_dropped"]) == (True, "input-output-alias", None)


def test_an_undonated_argument_is_asked_for_nothing(hloscope_bin, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM.replace("donate_argnums=0", "donate_argnums=()"))
    env = _env()
    env["XLA_FLAGS"] = f"--xla_dump_to={tmp_path / 'd'}"
    subprocess.run([sys.executable, str(prog)], check=True, capture_output=True, env=env, timeout=300)
    p = _params(hloscope_bin, tmp_path / "d")[0]
    assert (p["donation_requested"], p["donated"], p["donation_dropped"]) == (False, False, None)


def test_run_names_the_dropped_donation_and_the_sharding_behind_the_reshard(hloscope_bin, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    r = subprocess.run([hloscope_bin, "run", "--keep-dumps", str(tmp_path / "kept"), "--", sys.executable,
                        str(prog)], capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    report = r.stderr  # the program's own output is stdout
    assert "jit_step: x (argument 0), 128.0 KiB per device, was donated" in report, report
    # The partitioner's input was dumped beside the module, and the all-gather names the shardings
    # that differ there (the constraint's replication has reached the multiply).
    assert any(f.endswith(".before_spmd-partitioning.txt") for f in os.listdir(tmp_path / "kept"))
    assert ("is replicated and its operand x.0 (argument 0, sharded so by the caller) is split 8×1"
            in report), report


def test_run_keeps_a_users_own_pass_regex(hloscope_bin, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    env = _env()
    env["XLA_FLAGS"] = "--xla_dump_hlo_pass_re=^copy-insertion$"
    r = subprocess.run([hloscope_bin, "run", "--keep-dumps", str(tmp_path / "kept"), "--", sys.executable,
                        str(prog)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    files = os.listdir(tmp_path / "kept")
    assert not [f for f in files if f.endswith(".before_spmd-partitioning.txt")]
    assert [f for f in files if "copy-insertion" in f]
