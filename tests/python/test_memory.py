"""Memory (`hloscope memory`, check's `memory`, Report.memory) against XLA's own figures.

The truth is `compiled.memory_analysis()`: its argument, output, alias and temp sizes are sums
over the buffer assignment's allocations (CompiledMemoryStats::PopulateBufferStatsFromAllocations).
Checked two ways: on every committed fixture that recorded memory_analysis() when it was
compiled (CPU, GPU H100 and TPU v4/v5e targets, sharded and not), and on programs compiled here
(train steps with and without donation, remat, scan with stacked outputs, a KV cache, a replay
buffer, a concatenate temporary, a donation XLA cannot honour, and library code: a stax MLP trained by
jax.example_libraries.optimizers' Adam, its state donated or not). On TPU, libtpu reports a temp
size of its own (0 for most compile-only programs although the dump lists temporaries):
hloscope reports the dump's, and the test holds it to the dump (docs/memory.md).
"""
import glob
import json
import os
import re
import subprocess
import warnings

import pytest

from conftest import ROOT

PARTS = ("argument", "output", "alias", "temp")


def _fixtures():
    out = []
    for meta in sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/**/meta.json"), recursive=True)):
        with open(meta) as f:
            m = json.load(f)
        d = os.path.dirname(meta)
        ma = m.get("memory_analysis")
        if isinstance(ma, dict) and "argument_size_in_bytes" in ma and \
                os.path.exists(os.path.join(d, "buffer-assignment.txt")):
            out.append((os.path.relpath(d, ROOT), m["backend"], ma))
    return out


FIXTURES = _fixtures()


def _memory(hloscope_bin, hlo):
    r = subprocess.run([hloscope_bin, "memory", "--format", "json", hlo], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["modules"][0]["memory"]


def _dump_temp_bytes(ba_path):
    """The dump's own preallocated temps of the default space, read line by line here."""
    total = 0
    with open(ba_path) as f:
        for line in f:
            if line.startswith("allocation ") and "preallocated-temp" in line and ", color " not in line:
                total += int(re.search(r"size (\d+)", line).group(1))
    return total


def test_the_fixtures_cover_every_backend():
    backends = {b for _, b, _ in FIXTURES}
    assert {"cpu", "gpu", "tpu"} <= backends, backends
    assert len(FIXTURES) >= 200


@pytest.mark.parametrize("fixture, backend, truth", FIXTURES, ids=[f for f, _, _ in FIXTURES])
def test_parts_equal_memory_analysis(hloscope_bin, fixture, backend, truth):
    d = os.path.join(ROOT, fixture)
    mem = _memory(hloscope_bin, os.path.join(d, "module.hlo.txt"))
    spaces = {s["color"]: s for s in mem["spaces"]}
    device, host = spaces[0], spaces.get(5, {})
    parts = PARTS if backend != "tpu" else ("argument", "output", "alias")
    for part in parts:
        assert device[f"{part}_bytes"] == truth[f"{part}_size_in_bytes"], part
        assert host.get(f"{part}_bytes", 0) == truth.get(f"host_{part}_size_in_bytes", 0), part
    if backend == "tpu":
        assert device["temp_bytes"] == _dump_temp_bytes(os.path.join(d, "buffer-assignment.txt"))
    s = device
    assert mem["peak_bytes"] == s["argument_bytes"] + s["output_bytes"] - s["alias_bytes"] + s["temp_bytes"]
    if mem["temp_peak"]:
        # United byte ranges of values live at one moment fit in the heap they were packed in.
        assert 0 < mem["temp_peak"]["live_bytes"] <= mem["temp_peak"]["heap_bytes"] == s["temp_bytes"]


def test_check_json_carries_the_same_memory(hloscope_bin):
    hlo = os.path.join(ROOT, "tests/fixtures/jax/scan_stacked_output/module.hlo.txt")
    if not os.path.exists(hlo):
        hlo = os.path.join(ROOT, FIXTURES[0][0], "module.hlo.txt")
    r = subprocess.run([hloscope_bin, "check", "--format", "json", hlo], capture_output=True, text=True,
                       timeout=120)
    assert json.loads(r.stdout)["modules"][0]["memory"] == _memory(hloscope_bin, hlo)


def test_without_a_buffer_assignment_memory_says_how_to_get_one(hloscope_bin, tmp_path):
    hlo = tmp_path / "m.hlo.txt"
    with open(os.path.join(ROOT, "tests/fixtures/jax/at_set_donated/module.hlo.txt")) as f:
        hlo.write_text(f.read())
    r = subprocess.run([hloscope_bin, "memory", str(hlo)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "no buffer assignment: compile with --xla_dump_to" in r.stdout
    assert _memory(hloscope_bin, str(hlo)) is None


def test_the_report_page_draws_the_temporaries_across_the_schedule(hloscope_bin, tmp_path):
    fixture = os.path.join(ROOT, "tests/fixtures/jax/loop_read_after_write")
    page = tmp_path / "page.html"
    r = subprocess.run([hloscope_bin, "report", os.path.join(fixture, "module.hlo.txt"), "-o", str(page)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    start = html.index('<svg xmlns="http://www.w3.org/2000/svg" class="memory-timeline"')
    svg = html[start:html.index("</svg>", start)]
    peak = _memory(hloscope_bin, os.path.join(fixture, "module.hlo.txt"))["temp_peak"]
    # The fullest moment is marked with what is live then; one band per value live there (at most 6).
    assert f"fullest at {peak['at']['instruction']}: 4.0 KiB live" in svg
    assert svg.count("<rect ") == min(6, len(peak["live"]))
    # The copy live at the peak links to its line on the page; nothing outside the page is referenced.
    links = re.findall(r'<a href="#([^"]+)">', svg)
    assert links and all(f'id="{a}"' in html for a in links), links
    assert "copy.5 4.0 KiB (copy) at fixture_programs/loops.py:50" in svg
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")


# -- programs compiled here ----------------------------------------------------------------

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
LINE = {}  # program name -> the line of its largest temporary


def _mark(name):
    import inspect
    LINE[name] = inspect.currentframe().f_back.f_lineno + 1


def _mlp_loss(p, x, y):
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)


def train_step(p, x, y):
    g = jax.grad(_mlp_loss)(p, x, y)
    return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)


def train_step_remat(p, x, y):
    g = jax.grad(jax.checkpoint(_mlp_loss))(p, x, y)
    return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)


def rnn_scan(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h
    return lax.scan(cell, jnp.zeros(xs.shape[1:]), xs)


def kv_decode(cache, q, k):
    def step(i, c):
        c = lax.dynamic_update_slice(c, k[i][None], (i, 0))
        return c * jax.nn.softmax(c @ q)[:, None]
    return lax.fori_loop(0, 16, step, cache)


def replay_add(buf, obs, start):
    def add(i, b):
        return b.at[(start + i) % b.shape[0]].set(obs[i])
    return lax.fori_loop(0, obs.shape[0], add, buf)


def concat_temp(x, w):
    _mark("concat_temp")
    wide = jnp.concatenate([x, x * 2.0, x * 3.0], axis=1)
    return jnp.sum(jnp.tanh(wide @ w), axis=1)


def dropped_donation(x, idx):
    return jnp.take(x, idx, axis=0).sum(axis=0)  # no output has x's shape: the donation cannot be used


# Library code from JAX's public API, not written for these rules: a stax MLP trained by
# example_libraries.optimizers' Adam (its state a pytree of (x, m, v) per leaf).
from jax.example_libraries import optimizers, stax  # noqa: E402

_stax_init, _stax_apply = stax.serial(stax.Dense(512), stax.Relu, stax.Dense(16))
_adam_init, _adam_update, _adam_params = optimizers.adam(1e-3)


def stax_adam_step(i, opt_state, x, y):
    params = _adam_params(opt_state)
    g = jax.grad(lambda p: jnp.mean((_stax_apply(p, x) - y) ** 2))(params)
    return _adam_update(i, g, opt_state)


def _adam_state(batch=64):
    _, params = _stax_init(jax.random.PRNGKey(0), (batch, 256))
    return _adam_init(params)


def _params(n=256):
    k = jax.random.split(jax.random.PRNGKey(0), 2)
    return {"w1": jax.random.normal(k[0], (n, 512)) * 0.01, "b1": jnp.zeros(512),
            "w2": jax.random.normal(k[1], (512, 16)) * 0.01}


PROGRAMS = {
    "train_step": (train_step, (), lambda: (_params(), jnp.ones((64, 256)), jnp.ones((64, 16)))),
    "train_step_donated": (train_step, (0,), lambda: (_params(), jnp.ones((64, 256)), jnp.ones((64, 16)))),
    "train_step_remat": (train_step_remat, (0,), lambda: (_params(), jnp.ones((64, 256)), jnp.ones((64, 16)))),
    "rnn_scan": (rnn_scan, (), lambda: (jnp.ones((128, 128)) * 0.01, jnp.ones((64, 32, 128)))),
    "kv_decode": (kv_decode, (0,), lambda: (jnp.zeros((256, 64)), jnp.ones(64), jnp.ones((16, 64)))),
    "replay_add": (replay_add, (0,), lambda: (jnp.zeros((4096, 32)), jnp.ones((64, 32)), jnp.int32(7))),
    "concat_temp": (concat_temp, (), lambda: (jnp.ones((512, 256)), jnp.ones((768, 64)))),
    "dropped_donation": (dropped_donation, (0,), lambda: (jnp.ones((1024, 64)), jnp.arange(8))),
    "stax_adam_step": (stax_adam_step, (), lambda: (0, _adam_state(), jnp.ones((64, 256)), jnp.ones((64, 16)))),
    "stax_adam_step_donated": (stax_adam_step, (1,),
                               lambda: (0, _adam_state(), jnp.ones((64, 256)), jnp.ones((64, 16)))),
}


def _compiled_and_report(name):
    fn, donate, make = PROGRAMS[name]
    args = make()
    jitted = jax.jit(fn, donate_argnums=donate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's "Some donated buffers were not usable"
        truth = jitted.lower(*args).compile().memory_analysis()
        report = hloscope.inspect(jitted, *args)
    return truth, report


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_compiled_here_match_memory_analysis(name):
    truth, report = _compiled_and_report(name)
    mem = report.memory
    assert mem is not None, report.notes
    device = [s for s in mem["spaces"] if s["color"] == 0][0]
    for part in PARTS:
        assert device[f"{part}_bytes"] == getattr(truth, f"{part}_size_in_bytes"), part
    assert mem["peak_bytes"] == (truth.argument_size_in_bytes + truth.output_size_in_bytes
                                 - truth.alias_size_in_bytes + truth.temp_size_in_bytes)


def _arguments(mem):
    return {a["argument"]["number"]: a for a in mem["allocations"] if a["argument"]}


def test_donation_kept_is_reused_and_counted_once():
    _, kept = _compiled_and_report("train_step")
    _, donated = _compiled_and_report("train_step_donated")
    assert {a["argument"]["memory"] for a in _arguments(kept.memory).values()} == {"kept"}
    leaves = [a for a in _arguments(donated.memory).values() if a["argument"]["memory"] == "donated-reused"]
    assert len(leaves) == 3  # w1, b1, w2
    assert donated.memory["spaces"][0]["alias_bytes"] == sum(a["bytes"] for a in leaves)
    assert kept.memory["spaces"][0]["alias_bytes"] == 0


def test_a_library_optimizers_donated_state_is_reused_leaf_by_leaf():
    truth, donated = _compiled_and_report("stax_adam_step_donated")
    _, kept = _compiled_and_report("stax_adam_step")
    params = donated.modules[0].parameters
    # Adam's state: (x, m, v) for each of 4 leaves (2 Dense layers' W and b), each donated and
    # written over by its output, named by JAX's path; what XLA counts as aliased, to the byte.
    state = [p for p in params if p.argument and p.argument.startswith("opt_state")]
    assert len(state) == 12, [p.argument for p in params]
    assert all(p.donated and p.aliased_outputs for p in state)
    assert sum(p.bytes for p in state) == truth.alias_size_in_bytes
    assert {a["argument"]["memory"] for a in _arguments(donated.memory).values()
            if a["argument"]["number"] in {p.number for p in state}} == {"donated-reused"}
    # Not donated: each state leaf is an argument the caller keeps alive beside the new state.
    numbers = {p.number for p in state}
    assert {a["argument"]["memory"] for a in _arguments(kept.memory).values()
            if a["argument"]["number"] in numbers} == {"kept"}
    assert not any(p.donated or p.aliased_outputs for p in kept.modules[0].parameters)


def test_a_donation_xla_cannot_honour_is_named_with_its_reason():
    _, report = _compiled_and_report("dropped_donation")
    arg = _arguments(report.memory)[0]["argument"]
    assert arg["memory"] == "donated-not-reused"
    assert "no output has its per-device shape" in arg["dropped_reason"], arg


def test_the_concatenate_temporary_is_live_at_the_peak_at_its_line():
    _, report = _compiled_and_report("concat_temp")
    peak = report.memory["temp_peak"]
    assert peak is not None
    biggest = peak["live"][0]
    assert biggest["bytes"] >= 512 * 768 * 4, biggest  # the (512, 768) concatenation (or what it fused into)
    assert biggest["source"]["line"] == LINE["concat_temp"], biggest
    assert biggest["source"]["file"].endswith("test_memory.py")


def test_the_scan_stacks_its_outputs_in_an_output_allocation():
    _, report = _compiled_and_report("rnn_scan")
    stacked = 64 * 32 * 128 * 4
    outputs = [a for a in report.memory["allocations"] if a["role"] == "output"]
    assert any(a["bytes"] == stacked for a in outputs), outputs


def test_loop_buffers_updated_in_place_are_not_copied_into_temporaries():
    for name in ("kv_decode", "replay_add"):
        _, report = _compiled_and_report(name)
        mem = report.memory
        buf = _arguments(mem)[0]
        assert buf["argument"]["memory"] == "donated-reused", (name, buf)
        # In place: no temporary as large as the buffer.
        assert mem["spaces"][0]["temp_bytes"] < buf["bytes"], (name, mem["spaces"][0])


def test_the_peak_budget_fails_above_the_peak_and_without_a_buffer_assignment(hloscope_bin, tmp_path):
    hlo = os.path.join(ROOT, "tests/fixtures/jax/loop_read_after_write/module.hlo.txt")
    peak = _memory(hloscope_bin, hlo)["peak_bytes"]

    def check(path, limit):
        return subprocess.run([hloscope_bin, "check", path, "--max-peak-bytes", str(limit)],
                              capture_output=True, text=True, timeout=60)
    assert check(hlo, peak).returncode == 0
    over = check(hlo, peak - 1)
    assert over.returncode == 1
    assert f"one call needs {peak / 1024:.1f} KiB per device" in over.stderr, over.stderr
    alone = tmp_path / "m.hlo.txt"
    with open(hlo) as f:
        alone.write_text(f.read())
    unknown = check(str(alone), 10**12)
    assert unknown.returncode == 1
    assert "the memory peak is unknown without the module's buffer assignment" in unknown.stderr


def test_assert_memory_holds_a_program_to_its_peak():
    truth, report = _compiled_and_report("concat_temp")
    peak = report.memory["peak_bytes"]
    fn, _, make = PROGRAMS["concat_temp"]
    hloscope.assert_memory(report, max_bytes=peak)
    with pytest.raises(AssertionError, match="one call needs"):
        hloscope.assert_memory(jax.jit(fn), *make(), max_bytes=peak - 1)
