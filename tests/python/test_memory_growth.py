"""What grows in memory between two sizes: `diff`'s memory part, the more-peak-bytes gate, scaling().

The truth at each size is `compiled.memory_analysis()` (argument + output - alias + temp: every
allocation is reserved for the whole call on CPU); what grew is held to the programs' own shapes:
a scan's stacked output, a concatenation's temporary, a donated KV cache, a train step's batch,
and a loop whose trip count grows over a fixed state (nothing grows). docs/memory.md "What grows".
"""
import inspect as pyinspect
import json
import os
import warnings

import pytest

from conftest import ROOT

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
from hloscope import _hloscope  # noqa: E402

LINE = {}


def _mark(name):
    LINE[name] = pyinspect.currentframe().f_back.f_lineno + 1


def rnn(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h
    _mark("rnn")
    return lax.scan(cell, jnp.zeros(xs.shape[1:]), xs)


def concat(x, w):
    _mark("concat")
    wide = jnp.concatenate([x, x * 2.0, x * 3.0], axis=1)
    return jnp.sum(jnp.tanh(wide @ w), axis=1)


def kv_decode(cache, q, k):
    def step(i, c):
        c = lax.dynamic_update_slice(c, k[i][None], (i, 0))
        return c * jax.nn.softmax(c @ q)[:, None]
    return lax.fori_loop(0, 16, step, cache)


def train_step(p, x, y):
    def loss(p):
        h = jax.nn.relu(x @ p["w1"])
        return jnp.mean((h @ p["w2"] - y) ** 2)
    g = jax.grad(loss)(p)
    return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)


def fixed_state(x, n):
    return lax.fori_loop(0, n.shape[0], lambda i, c: c * 1.01 + n[i], x)


PROGRAMS = {
    # name: (fn, donate_argnums, make_args(n))
    "rnn": (rnn, (), lambda n: (jnp.ones((64, 64)) * 0.01, jnp.ones((n, 16, 64)))),
    "concat": (concat, (), lambda n: (jnp.ones((n, 256)), jnp.ones((768, 64)))),
    "kv_decode": (kv_decode, (0,), lambda n: (jnp.zeros((n, 64)), jnp.ones(64), jnp.ones((16, 64)))),
    "train_step": (train_step, (0,), lambda n: ({"w1": jnp.ones((128, 256)) * 0.01, "w2": jnp.ones((256, 8)) * 0.01},
                                                 jnp.ones((n, 128)), jnp.ones((n, 8)))),
    "fixed_state": (fixed_state, (), lambda n: (jnp.ones((64, 64)), jnp.ones((n, 64)))),
}


def _peak(compiled):
    m = compiled.memory_analysis()
    return m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes + m.temp_size_in_bytes


def _reports(name, sizes=(256, 512)):
    fn, donate, make = PROGRAMS[name]
    jitted = jax.jit(fn, donate_argnums=donate)
    out = []
    for n in sizes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth = _peak(jitted.lower(*make(n)).compile())
            out.append((truth, hloscope.inspect(jitted, *make(n))))
    return out


def _memory_diff(name):
    (ta, a), (tb, b) = _reports(name)
    d = hloscope.diff(a, b)
    mem = d.memory[0]
    assert mem is not None, d.text
    # Each side's peak is XLA's, exactly (CPU: every allocation lives for the whole call).
    assert mem["a"]["peak_bytes"] == ta and mem["b"]["peak_bytes"] == tb, (mem["a"], mem["b"], ta, tb)
    return d, mem


def _at_line(mem, name):
    return [b for b in mem["buffers"] if b["source"] and b["source"].endswith(f"test_memory_growth.py:{LINE[name]}")]


def test_a_scans_stacked_output_is_named_as_what_doubles_the_peak():
    d, mem = _memory_diff("rnn")
    assert abs(mem["exponent"] - 1) < 0.05
    stacked = [b for b in mem["buffers"] if b["role"] == "output" and b["value_kind"] == "loop-update"]
    assert len(stacked) == 1, mem["buffers"]
    s = stacked[0]
    assert (s["a_bytes"], s["b_bytes"]) == (256 * 16 * 64 * 4, 512 * 16 * 64 * 4)
    assert s["grows"] and abs(s["exponent"] - 1) < 1e-6
    assert s["source"].endswith(f"test_memory_growth.py:{LINE['rnn']}"), s
    # The headline names it first (before the argument, the experiment's own input).
    line = mem["summary"]
    assert line == next(t for t in d.json["modules"][0]["summary"]["text"] if t.startswith("Memory:"))
    assert "grown: output stacked by a loop f32[512,16,64] at" in line, line
    assert line.index("output stacked by a loop") < line.index("argument 1")


def test_a_concatenation_temporary_is_what_grows_in_the_temporaries():
    _, mem = _memory_diff("concat")
    grown = _at_line(mem, "concat")
    assert grown, mem["buffers"]
    biggest = max(grown, key=lambda b: b["added_bytes"])
    assert biggest["where"] == "live-at-temp-peak" and biggest["role"] == "temporary", biggest
    assert biggest["b_shape"] == "f32[512,768]" and biggest["a_shape"] == "f32[256,768]"
    # Temporaries and the argument account for the whole growth of the peak.
    assert sum(b["added_bytes"] for b in mem["buffers"]) == mem["b"]["peak_bytes"] - mem["a"]["peak_bytes"]


def test_a_donated_kv_cache_grows_once_not_twice():
    _, mem = _memory_diff("kv_decode")
    cache = [b for b in mem["buffers"] if b["parameter_number"] == 0]
    assert len(cache) == 1 and cache[0]["role"] == "donated-argument", mem["buffers"]
    assert cache[0]["added_bytes"] == 256 * 64 * 4
    # Donated: the output is written into the argument's buffer, so the cache counts once.
    assert mem["b"]["alias_bytes"] == 512 * 64 * 4
    assert "donated argument 0 f32[256,64] → f32[512,64]" in mem["summary"]


def test_a_train_steps_batch_grows_its_activations_not_its_weights():
    _, mem = _memory_diff("train_step")
    assert mem["b"]["peak_bytes"] > mem["a"]["peak_bytes"]
    grown_args = {b["parameter_number"] for b in mem["buffers"] if b["parameter_number"] is not None}
    assert grown_args == {2, 3}, mem["buffers"]  # x and y; the donated weights (0, 1) keep their size
    assert any(b["where"] == "live-at-temp-peak" and b["grows"] for b in mem["buffers"]), mem["buffers"]


def test_a_growing_trip_count_over_a_fixed_state_changes_only_its_input():
    _, mem = _memory_diff("fixed_state")
    changed = [b for b in mem["buffers"] if b["added_bytes"]]
    assert [b["parameter_number"] for b in changed] == [1], changed  # n's array only
    assert mem["buffers"][0]["added_bytes"] == mem["b"]["peak_bytes"] - mem["a"]["peak_bytes"]


def test_the_diff_json_with_memory_validates_against_its_schema():
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(ROOT, "docs", "schema", "diff.schema.json")) as f:
        schema = json.load(f)
    d, _ = _memory_diff("concat")
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(d.json))
    assert not errors, f"{errors[0].message} at {list(errors[0].absolute_path)}"


def _dump(tmp_path, name, n):
    fn, donate, make = PROGRAMS[name]
    folder = tmp_path / f"{name}_{n}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.jit(fn, donate_argnums=donate).lower(*make(n)).compile(compiler_options={"xla_dump_to": str(folder)})
    return str(folder)


def test_the_more_peak_bytes_gate_on_dump_folders(tmp_path):
    a, b = _dump(tmp_path, "rnn", 256), _dump(tmp_path, "rnn", 512)
    a_again = str(tmp_path / "rnn_256_again")
    fn, _, make = PROGRAMS["rnn"]
    jax.jit(fn).lower(*make(256)).compile(compiler_options={"xla_dump_to": a_again})
    code, out, err = _hloscope.run_cli(["diff", a, b, "--fail-on", "more-peak-bytes"])
    assert code == 1, (out, err)
    assert "more-peak-bytes: jit_rnn: one call of B needs 4.0 MiB per device, A 2.0 MiB" in err, err
    assert "grown: output stacked by a loop f32[512,16,64] at" in err
    assert "\nMEMORY (per device, by XLA's buffer assignment)\n" in out
    # The same program at the same size: no regression.
    code, out, err = _hloscope.run_cli(["diff", a, a_again, "--fail-on", "more-peak-bytes"])
    assert code == 0, (out, err)
    assert "Memory: the same peak, 2.0 MiB per device." in out
    # Not in the regressions preset: growing the input is not a regression of the program.
    code, _, err = _hloscope.run_cli(["diff", a, b, "--fail-on", "regressions"])
    assert "more-peak-bytes" not in err


def test_memory_reads_a_dump_folder(tmp_path):
    folder = _dump(tmp_path, "concat", 256)
    code, out, err = _hloscope.run_cli(["memory", folder, "--format", "json"])
    assert code == 0, err
    (module,) = [m for m in json.loads(out)["modules"] if m["memory"] and m["name"] == "jit_concat"]
    assert module["memory"]["peak_bytes"] > 0


def test_scaling_follows_the_peak_and_names_what_pushes_it_over_a_budget():
    fn, _, make = PROGRAMS["rnn"]
    sizes = (128, 256, 512)
    truth = [_peak(jax.jit(fn).lower(*make(n)).compile()) for n in sizes]
    budget = (truth[1] + truth[2]) // 2
    r = hloscope.scaling(fn, make, sizes=sizes, max_bytes=budget, progress=False)
    assert r.peaks == truth
    assert abs(r.peak_exponent - 1) < 0.05
    stacked = [b for b in r.buffers if b.label.startswith("output stacked by a loop")]
    assert len(stacked) == 1 and stacked[0].bytes == [n * 16 * 64 * 4 for n in sizes], r.buffers
    assert stacked[0].grows and abs(stacked[0].exponent - 1) < 1e-6
    v = r.memory_verdict
    assert "over " in v and "from size 512" in v and "pushed over by: output stacked by a loop" in v, v
    assert "memory: peak per device" in str(r)
    r = hloscope.scaling(fn, make, sizes=sizes[:2], max_bytes=truth[2] * 2, progress=False)
    assert "under " in r.memory_verdict and "at every size" in r.memory_verdict


# -- a GPU and a TPU target, compiled here without the hardware ------------------------------

TARGETS = {"gpu-h100": "jax-cuda12-plugin", "tpu-v5e": "libtpu"}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_targets_stacked_output_is_what_doubles_its_peak(target):
    from importlib import metadata

    from hloscope import _targets
    try:
        metadata.version(TARGETS[target])
    except metadata.PackageNotFoundError:
        pytest.skip(f"{TARGETS[target]} not installed (bash tools/install-deps.sh --backends)")
    if target.startswith("gpu") and os.environ.get("JAX_PLATFORMS", "cpu") != "cpu":
        pytest.skip("the CUDA plugin compiles for an H100 without one only with JAX_PLATFORMS=cpu")
    fn, _, make = PROGRAMS["rnn"]
    device = _targets.devices_for(_targets.resolve(target))[0]
    reports, truths = [], []
    for n in (256, 512):
        args = _targets.place(make(n), device)
        truths.append(jax.jit(fn).lower(*args).compile().memory_analysis())
        reports.append(hloscope.inspect(jax.jit(fn), *make(n), target=target))
    for report, truth in zip(reports, truths):
        device_space = [s for s in report.memory["spaces"] if s["color"] == 0][0]
        for part in ("argument", "output", "alias"):
            assert device_space[f"{part}_bytes"] == getattr(truth, f"{part}_size_in_bytes"), (target, part)
        if target.startswith("gpu"):  # libtpu's temp is its own figure (docs/memory.md)
            assert device_space["temp_bytes"] == truth.temp_size_in_bytes
    mem = hloscope.diff(reports[0], reports[1]).memory[0]
    stacked = max((b for b in mem["buffers"] if b["role"] == "output"), key=lambda b: b["added_bytes"])
    assert stacked["added_bytes"] == 256 * 16 * 64 * 4 and stacked["b_shape"] == "f32[512,16,64]", mem["buffers"]
    assert stacked["source"].endswith(f"test_memory_growth.py:{LINE['rnn']}"), (target, stacked)
    assert abs(mem["exponent"] - 1) < 0.05, mem
