"""hloscope.watch() inside a test: every compilation checked as it happens, whether or
not JAX was initialized before (it is here: other tests ran first, and this module
computes with JAX at import); raise_on raises in the call that compiled the copying
function; the fixed function passes; stopping restores JAX."""
from __future__ import annotations

import os
import sys

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import hloscope  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from fixture_programs import run_demo  # noqa: E402

jnp.zeros(3).block_until_ready()  # JAX's backend is up before any watch()


def args(rows=256):
    return jnp.zeros((rows, run_demo.FEATURES), jnp.float32), jnp.ones((run_demo.STEPS, run_demo.FEATURES))


def test_raise_on_copies_in_loops_raises_at_the_first_call():
    slow = jax.jit(run_demo.replay_rollout, donate_argnums=0)
    with pytest.raises(hloscope.BudgetError) as e:
        with hloscope.watch(raise_on="copies_in_loops", min_bytes=1 << 20):
            slow(*args(2048))
    message = str(e.value)
    assert message.startswith("hloscope.watch: jit_replay_rollout broke the gates copies-in-loops")
    assert "fixture_programs/run_demo.py:30" in message
    assert "25.0 MiB per call" in message
    assert "cause: read-after-update" in message  # the full report follows


def test_the_fixed_function_passes_and_is_checked():
    fixed = jax.jit(run_demo.replay_rollout_fixed, donate_argnums=0)
    with hloscope.watch(raise_on="any", min_bytes=1 << 20) as w:
        fixed(*args(2048))
    names = [r.modules[0].name for _, r in w.reports]
    assert "jit_replay_rollout_fixed" in names
    report = dict((r.modules[0].name, r) for _, r in w.reports)["jit_replay_rollout_fixed"]
    assert report.modules[0].buffer_assignment  # verdicts confirmed by XLA's dump
    # Its 256 B carried row is a copy in a loop, far below the budget.
    assert all(name != "jit_replay_rollout_fixed" for name, _ in w.problems())
    assert report.modules[0].copies_in_loops


def test_a_plain_call_warns_and_summarizes(capsys):
    slow = jax.jit(run_demo.replay_rollout, donate_argnums=0)
    w = hloscope.watch(warn=True, min_bytes=1)
    try:
        slow(*args(512))
        slow(*args(512))  # served from JAX's in-memory cache: not compiled, not checked again
    finally:
        w.stop()
    err = capsys.readouterr().err
    # The default gates' first violation: the update that runs on the copy.
    assert "hloscope: warning: jit_replay_rollout: in-place-on-copy update: dynamic-update-slice" in err
    assert [r.modules[0].name for _, r in w.reports].count("jit_replay_rollout") == 1
    assert w.summary().startswith("hloscope.watch: ")
    assert not os.path.exists(w._dir)  # the private dumps are gone


def test_stop_restores_jax_and_arguments_are_checked(tmp_path):
    from jax._src import compiler
    original = compiler.get_compile_options
    with hloscope.watch(keep_dumps=str(tmp_path / "dumps")):
        assert compiler.get_compile_options is not original
        with pytest.raises(RuntimeError, match="already watching"):
            hloscope.watch()
        jax.jit(lambda x: x * 3)(jnp.ones(7)).block_until_ready()
    assert compiler.get_compile_options is original
    assert any(f.endswith("after_optimizations.txt") for f in os.listdir(tmp_path / "dumps"))
    with pytest.raises(ValueError, match="raise_on='copies'"):
        hloscope.watch(raise_on="copies")


def test_without_dumps_the_hlo_comes_from_the_executable():
    slow = jax.jit(run_demo.replay_rollout, donate_argnums=0)
    with pytest.raises(hloscope.BudgetError, match="fixture_programs/run_demo.py:30"):
        with hloscope.watch(raise_on="copies_in_loops", min_bytes=1 << 20, buffer_assignment=False) as w:
            slow(*args(2048))
    report = dict((r.modules[0].name, r) for _, r in w.reports)["jit_replay_rollout"]
    assert report.modules[0].buffer_assignment is None  # verdicts unconfirmed: nothing was dumped
    assert report.copies[0].cause == "read-after-update"
    with pytest.raises(ValueError, match="keep_dumps needs dumps"):
        hloscope.watch(buffer_assignment=False, keep_dumps="x")
