"""`hloscope cost` against XLA's own count: `compiled.cost_analysis()`.

Real JAX programs (written from the public APIs: jax.nn, jax.lax, jnp.fft,
jax.scipy) compiled here. Loop-free, our per-call FLOPs, transcendentals and
bytes are XLA's exactly; with loops, XLA counts each body once (jax#13956)
and we count it as often as it runs: the `xla_cost_analysis` figure is XLA's,
and the per-call figure is XLA's body × the trip count.
"""
import json
import re
import subprocess
import textwrap

import pytest

from conftest import run_program_json

PROGRAMS = textwrap.dedent(r'''
    import json, os, sys
    import jax, jax.numpy as jnp
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    k = jax.random.PRNGKey(0)

    def attention(q, kc, vc):
        s = jnp.einsum("hqd,hkd->hqk", q, kc) / 8.0
        return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, axis=-1), vc)

    def layer_norm_mlp(x, w1, w2, g):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        h = (x - m) * jax.lax.rsqrt(v + 1e-5) * g
        return jax.nn.gelu(h @ w1) @ w2

    def cnn(x, w1, w2):
        y = jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y)
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return jax.lax.conv_general_dilated(y, w2, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def topk_scatter(x, idx, upd):
        s = jnp.sort(x, axis=-1)
        return s.at[idx].add(upd).cumsum(axis=0), jnp.argmax(x, axis=-1)

    def spectral(x):
        return jnp.abs(jnp.fft.rfft(x, axis=-1)).sum(-1) + jax.scipy.special.logsumexp(x, axis=-1)

    def decode_loop(cache, x, w):
        def step(i, carry):
            cache, x = carry
            x = jnp.tanh(x @ w)
            cache = jax.lax.dynamic_update_slice(cache, x[None], (i, 0, 0))
            return cache, x
        return jax.lax.fori_loop(0, 12, step, (cache, x))

    f32 = jnp.float32
    cases = {
        "attention": (attention, (jnp.ones((4, 16, 64)), jnp.ones((4, 256, 64)), jnp.ones((4, 256, 64)))),
        "layer_norm_mlp": (layer_norm_mlp, (jnp.ones((32, 128)), jnp.ones((128, 512)), jnp.ones((512, 128)),
                                            jnp.ones((128,)))),
        "cnn": (cnn, (jnp.ones((2, 16, 16, 3)), jnp.ones((3, 3, 3, 8)), jnp.ones((2, 2, 8, 4)))),
        "topk_scatter": (topk_scatter, (jnp.ones((64, 128)), jnp.arange(8), jnp.ones((8, 128)))),
        "spectral": (spectral, (jnp.ones((16, 256)),)),
        "decode_loop": (decode_loop, (jnp.zeros((12, 8, 64)), jnp.ones((8, 64)), jnp.ones((64, 64)))),
    }
    result = {"jax": jax.__version__}
    for name, (f, args) in cases.items():
        c = jax.jit(f).lower(*args).compile()
        path = os.path.join(out, name + ".hlo.txt")
        with open(path, "w") as fh:
            fh.write(c.as_text())
        ca = c.cost_analysis()
        result[name] = {"path": path, "flops": ca.get("flops", 0.0), "transcendentals": ca.get("transcendentals", 0.0),
                        "bytes_accessed": ca.get("bytes accessed", 0.0)}
    print(json.dumps(result))
''')


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("cost")
    return run_program_json(f"OUT = {str(out)!r}\n" + PROGRAMS)


def cost_json(hloscope_bin, path, *extra):
    r = subprocess.run([hloscope_bin, "cost", path, "--format", "json", *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["command"] == "cost"
    return doc["modules"][0]


def tuple_elements(path, entry_only=True):
    """Elements of the tuple instructions XLA prices (the entry's, or every non-fused computation's):
    XLA counts their index tables — 8 bytes an element with JAX 0.10, 4 with 0.12 — we leave tuples
    out of kernels, and count 8 in xla_cost_analysis."""
    text = open(path).read()
    fused = set(re.findall(r"calls=%([\w.\-]+)", text))
    total, name = 0, None
    for line in text.splitlines():
        m = re.match(r"(ENTRY )?%([\w.\-]+) \(", line)
        if m:
            name = "ENTRY" if m.group(1) else m.group(2)
        elif " tuple(" in line and name not in fused and (name == "ENTRY" or not entry_only):
            total += line.split(" tuple(", 1)[1].split(")", 1)[0].count(",") + 1
    return total


def close_bytes(ours, xla, tuple_elements, ours_has_tables):
    """Bytes equal up to the tuple index tables' width (8 or 4 bytes an element)."""
    for width in (8, 4):
        tables = width * tuple_elements
        expected = xla - tables if not ours_has_tables else xla + (8 - width) * tuple_elements
        if close(ours, expected):
            return True
    return False


def close(ours, xla):
    # XLA sums in float32: exact below 2^24, within float32's precision above.
    return abs(ours - xla) <= max(1.0, abs(xla) * 1e-6)


LOOP_FREE = ("attention", "layer_norm_mlp", "cnn", "topk_scatter", "spectral")


@pytest.mark.parametrize("name", LOOP_FREE)
def test_loop_free_totals_are_xlas(hloscope_bin, compiled, name):
    """Without loops, what one call does is what cost_analysis() counts: FLOPs, transcendentals, bytes."""
    xla = compiled[name]
    m = cost_json(hloscope_bin, xla["path"])
    for key in ("flops", "transcendentals"):
        assert close(m["xla_cost_analysis"][key], xla[key]), (name, key, m["xla_cost_analysis"][key], xla[key])
        assert close(m["per_call"][key], xla[key]), (name, key, m["per_call"][key], xla[key])
    e = tuple_elements(xla["path"])
    assert close_bytes(m["xla_cost_analysis"]["bytes_accessed"], xla["bytes_accessed"], e, True), (name, m, xla)
    assert close_bytes(m["per_call"]["bytes_accessed"], xla["bytes_accessed"], e, False), (name, m, xla)
    assert m["loops"] == []
    # Every kernel runs once; their sum is the total.
    assert all(k["executions"] == 1 for k in m["kernels"])
    assert sum(k["per_call"]["flops"] for k in m["kernels"]) == m["per_call"]["flops"]


def test_attention_flops_are_its_two_matmuls(hloscope_bin, compiled):
    """Both einsums of attention are there (2·h·q·k·d each), on the einsums' own line, inside or outside fusions."""
    m = cost_json(hloscope_bin, compiled["attention"]["path"])
    matmul = 2 * (2 * 4 * 16 * 256 * 64)
    assert m["per_call"]["matmul_flops"] == matmul
    lines = {l["line"]: l for l in m["lines"]}
    assert sum(l["matmul_flops"] for l in lines.values()) == matmul
    # The two einsum lines of the program text (s = ..., return ...) hold them.
    src = PROGRAMS.splitlines()
    einsum_lines = [i + 1 for i, t in enumerate(src) if "jnp.einsum" in t]
    assert len(einsum_lines) == 2
    # The program ran as `python -c` with one line prepended (OUT = ...).
    by_line = {l["line"] - 1: l["matmul_flops"] for l in m["lines"] if l["matmul_flops"]}
    assert sorted(by_line) == einsum_lines, by_line
    assert all(v == matmul // 2 for v in by_line.values())


def test_loop_bodies_count_per_iteration(hloscope_bin, compiled):
    """XLA's cost_analysis() counts the fori_loop body once; per call it runs 12 times."""
    xla = compiled["decode_loop"]
    m = cost_json(hloscope_bin, xla["path"])
    for key in ("flops", "transcendentals"):
        assert close(m["xla_cost_analysis"][key], xla[key]), (key, m["xla_cost_analysis"][key], xla[key])
    assert close_bytes(m["xla_cost_analysis"]["bytes_accessed"], xla["bytes_accessed"],
                       tuple_elements(xla["path"], entry_only=False), True)
    assert len(m["loops"]) == 1
    loop = m["loops"][0]
    assert loop["trip_count"] == 12
    dot = 2 * 8 * 64 * 64
    assert m["per_call"]["matmul_flops"] == 12 * dot
    assert loop["per_iteration"]["flops"] >= dot
    assert loop["per_call"]["flops"] == 12 * loop["per_iteration"]["flops"]
    # XLA counts every kernel once, wherever it is; we count each as often as it runs: the body's 12
    # times, the condition's 13 (it runs once more, to stop).
    execs = sorted({k["executions"] for k in m["kernels"]})
    assert execs == [1, 12, 13], execs
    for key in ("flops", "transcendentals"):
        assert m["xla_cost_analysis"][key] == sum(k["per_run"][key] for k in m["kernels"]), key
        assert m["per_call"][key] == sum(k["per_run"][key] * k["executions"] for k in m["kernels"]), key
    assert m["per_call"]["transcendentals"] == 12 * 8 * 64  # one tanh per element per step


def test_text_answer_ranks_and_labels_the_estimate(hloscope_bin, compiled):
    r = subprocess.run([hloscope_bin, "cost", compiled["attention"]["path"]], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert "per call, per device" in head and "a roofline estimate, not a measurement" in head
    assert "Lines, by estimated time per call:" in r.stdout
    assert "Kernels, by estimated time per call:" in r.stdout
    r = subprocess.run([hloscope_bin, "cost", compiled["attention"]["path"], "--target", "h100", "--format", "json"],
                       capture_output=True, text=True)
    assert json.loads(r.stdout)["modules"][0]["target"]["name"] == "h100"
    r = subprocess.run([hloscope_bin, "cost", compiled["attention"]["path"], "--target", "v100"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--target" in r.stderr


def test_check_shows_the_same_work_as_cost(hloscope_bin, compiled):
    """`check`'s COST section and JSON `cost` are the cost command's totals and top kernels."""
    path = compiled["decode_loop"]["path"]
    full = cost_json(hloscope_bin, path)
    r = subprocess.run([hloscope_bin, "check", path, "--format", "json"], capture_output=True, text=True)
    summary = json.loads(r.stdout)["modules"][0]["cost"]
    for key in ("flops", "transcendentals", "bytes_accessed"):
        assert summary["per_call"][key] == full["per_call"][key], key
    top = summary["top_kernels"][0]
    assert top["instruction"] == full["kernels"][0]["instruction"]
    if full["kernels"][0].get("loops"):
        assert top["loop"] == full["kernels"][0]["loops"][0]
    else:
        assert top["loop"] is None, top  # a kernel outside every loop names none
    looped = [k for k in summary["top_kernels"] if k["executions"] == 12]
    assert looped and all(k["loop"] for k in looped)  # the body's kernels name their loop
    assert all(k["loop"] is None for k in summary["top_kernels"] if k["executions"] == 1)
    text = subprocess.run([hloscope_bin, "check", path], capture_output=True, text=True).stdout
    section = text.split("\nCOST per call (times are a roofline estimate on ", 1)[1].split("\n\n", 1)[0]
    rows = section.splitlines()
    assert rows[0].endswith("not a measurement; `hloscope cost` ranks lines and loops)")
    assert f"in {summary['kernels']} kernels: about " in rows[1]
    assert rows[2].split() == ["share", "est.", "time", "FLOPs/call", "bytes/call", "runs", "kernel"]
    assert top["instruction"] in rows[3]


def test_measured_time_from_a_profiler_trace():
    """measure=True runs the program under jax.profiler: every kernel of the loop is seen 12 times a
    call, the calls traced are counted from the trace, and measured time stands beside the estimate."""
    hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
    import jax
    import jax.numpy as jnp

    def decode(cache, x, w):
        def step(i, carry):
            cache, x = carry
            x = jnp.tanh(x @ w)
            return jax.lax.dynamic_update_slice(cache, x[None], (i, 0, 0)), x
        return jax.lax.fori_loop(0, 12, step, (cache, x))

    args = (jnp.zeros((12, 64, 128)), jnp.ones((64, 128)), jnp.ones((128, 128)))
    r = hloscope.cost(jax.jit(decode, donate_argnums=0), *args, measure=True, repeats=3)
    m = r.measured
    assert m["module_in_trace"] and m["calls"] == 3, m
    assert m["seconds_per_call"] > 0
    body = [k for k in r.kernels if k["executions"] == 12]
    assert body and all(k["measured_runs"] == 12 for k in body if k["measured_seconds"] is not None)
    matmul = max(r.kernels, key=lambda k: k["matmul_flops"])
    assert matmul["matmul_flops"] == 2 * 64 * 128 * 128 and matmul["measured_seconds"] > 0
    assert r.loops[0]["measured_seconds"] > 0
    assert "measured:" in r.text and "3 calls traced" in r.text


def test_trace_errors_and_other_programs(hloscope_bin, compiled, tmp_path):
    path = compiled["attention"]["path"]
    other = tmp_path / "other.trace.json"
    other.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "name": "fusion", "dur": 12.5, "args": {"hlo_op": "fusion", "hlo_module": "jit_other"}}]}))
    r = subprocess.run([hloscope_bin, "cost", path, "--trace", str(other)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "has no event of jit_attention" in r.stdout and "nothing measured" in r.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = subprocess.run([hloscope_bin, "cost", path, "--trace", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == f"{bad}: error: not a trace: the file is not JSON\n", r.stderr
    cut = tmp_path / "cut.json.gz"
    import gzip
    cut.write_bytes(gzip.compress(other.read_bytes())[:20])
    r = subprocess.run([hloscope_bin, "cost", path, "--trace", str(cut)], capture_output=True, text=True)
    assert r.returncode == 2 and "not a readable gzip file" in r.stderr, r.stderr
    # A small file that inflates past the input limit is refused, not read into memory.
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * 5_000_000))
    r = subprocess.run([hloscope_bin, "cost", path, "--trace", str(bomb), "--max-input-bytes", "1000000"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "larger than the input limit" in r.stderr, r.stderr
