"""Tests of the hloscope Python package: real JAX programs compiled here (CPU), verdicts asserted.

Run after installing the package (pip install . or pip install --no-build-isolation .):
    python3 -m pytest tests/python
"""

import json
import os
import pickle
import subprocess
import sys

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# The installed package (pip install .); skipped where only the C++ is built.
hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed "
                               "(pip install --no-build-isolation .)")

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THIS_FILE = os.path.basename(__file__)


def line_of(marker):
    """1-based line of this file holding `marker` (in a comment)."""
    with open(__file__) as f:
        hits = [i for i, text in enumerate(f, 1) if text.rstrip().endswith("# " + marker)]
    assert len(hits) == 1, marker
    return hits[0]


def big(copies):
    """Copies of arrays (not of the scalar loop counters XLA copies in every loop)."""
    return [c for c in copies if not c.is_scalar]


# ----------------------------------------------------------------------------- programs

def write_step(i, buf):
    return buf.at[i].set(i.astype(buf.dtype))  # WRITE-STEP


def fill(buf):
    return lax.fori_loop(0, 100, write_step, buf)


def read_after_write(buf):
    n = buf.shape[0]

    def body(i, c):
        buf, acc = c
        new = buf.at[i].set(0.0)  # RAW-WRITE
        acc = acc + buf[(i + 1) % n]
        return new, acc
    return lax.fori_loop(0, 100, body, (buf, jnp.float32(0)))


def seed(x):
    x = x.at[0].set(1)  # SEED-SET
    return x.sum()


def set_first(x):
    return x.at[0].set(1)  # SET-FIRST


def two_writes(a, b):
    a = a.at[0].set(1.0)  # TWO-A
    b = b.at[0].set(2.0)  # TWO-B
    return a, b


@pytest.fixture(scope="module")
def buf():
    return jnp.zeros((1024,), jnp.float32)


@pytest.fixture(scope="module")
def fill_report(buf):
    return hloscope.inspect(fill, buf)


@pytest.fixture(scope="module")
def fill_donated_report(buf):
    return hloscope.inspect(jax.jit(fill, donate_argnums=0), buf)


# ----------------------------------------------------------------------------- inspect

def test_non_donated_loop_update_copies_the_argument(fill_report):
    (m,) = fill_report.modules
    assert m.name == "jit_fill"
    copies = big(m.copies)
    assert len(copies) == 1
    c = copies[0]
    assert c.cause == "non-donated-parameter"
    assert c.shape.startswith("f32[1024]")
    assert c.bytes == 4096 and c.executions == 1 and c.total_bytes == 4096
    assert c.enclosing_loops == []
    assert c.hint and "donate_argnums" in c.hint
    assert c.source.file == __file__ and c.source.line == line_of("WRITE-STEP")

    (u,) = m.updates
    assert u.verdict == "in-place-on-copy"
    assert u.copy == c.instruction
    assert u.confirmed is True  # XLA's buffer assignment agrees
    assert u.executions == 100
    assert u.source.line == line_of("WRITE-STEP")
    assert u.source.function == "write_step"
    assert not u.in_place

    (p,) = m.parameters
    assert not p.donated and p.copied and [x.instruction for x in p.copies] == [c.instruction]
    (loop,) = m.loops
    assert loop.trip_count == 100
    assert m.buffer_assignment.endswith("-buffer-assignment.txt")


def test_donated_loop_update_is_in_place(fill_donated_report):
    (m,) = fill_donated_report.modules
    assert big(m.copies) == []
    (u,) = m.updates
    assert u.verdict == "in-place" and u.confirmed is True and u.in_place
    assert m.parameters[0].donated and not m.parameters[0].copied


def test_seed_example_update_is_fused_away():
    r = hloscope.inspect(seed, jnp.arange(10))
    (u,) = r.updates
    assert u.verdict == "not-materialized"
    assert u.confirmed is True
    assert u.fusion is not None
    assert u.source.line == line_of("SEED-SET")
    assert r.copies == []


def test_inspect_jitted_with_static_args_pytrees_and_kwargs():
    def step(state, idx, *, scale, n):
        buf = state["buf"].at[idx].set(scale * n)
        return {"buf": buf, "count": state["count"] + 1}

    jitted = jax.jit(step, static_argnames=("n",), donate_argnums=0)
    state = {"buf": jnp.zeros((256, 8)), "count": jnp.int32(0)}
    r = hloscope.inspect(jitted, state, 3, scale=2.0, n=4)
    (m,) = r.modules
    assert len(m.parameters) == 4  # buf, count, idx, scale (n is static)
    assert sum(p.donated for p in m.parameters) == 2  # the whole state pytree
    assert big(m.copies) == []
    assert [u.verdict for u in m.updates] == ["in-place"]

    # the same without donation: the buffer is copied
    r2 = hloscope.inspect(jax.jit(step, static_argnames=("n",)), state, 3, scale=2.0, n=4)
    assert [c.cause for c in big(r2.copies)] == ["non-donated-parameter"]


def test_inspect_plain_function_with_keyword_arguments():
    def f(x, *, value):
        return x.at[1].set(value)
    r = hloscope.inspect(f, jnp.zeros(16), value=3.0)
    assert [u.verdict for u in r.updates] == ["in-place-on-copy"]


def test_inspect_accepts_shape_dtype_structs():
    spec = jax.ShapeDtypeStruct((1024,), jnp.float32)
    r = hloscope.inspect(jax.jit(fill, donate_argnums=0), spec)
    assert [u.verdict for u in r.updates] == ["in-place"]


def test_inspect_user_keyword_named_fn_goes_to_the_function():
    def f(x, fn=None):
        return x.at[0].set(fn)
    r = hloscope.inspect(f, jnp.zeros(4), fn=1.0)
    assert len(r.updates) == 1


def test_copy_inside_loop_read_after_write(buf):
    r = hloscope.inspect(jax.jit(read_after_write, donate_argnums=0), buf)
    in_loop = big(r.copies_in_loops)
    assert in_loop, str(r)
    assert all(c.enclosing_loops and c.executions == 100 for c in in_loop)
    assert all(c.bytes == 4096 for c in in_loop)


def test_inspect_cleans_up_the_dump_directory(buf, tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    hloscope.inspect(fill, buf)
    assert os.listdir(tmp_path) == []


def test_inspect_without_a_dump_falls_back_to_as_text(buf):
    """When XLA writes no dump (e.g. JAX's persistent cache served the executable)."""
    real = jax.jit(fill).lower(buf).compile()

    class NoDumpLowered:
        def compile(self, compiler_options=None):
            return real

    r = hloscope.inspect(jax.jit(fill).lower(buf))  # a real Lowered works
    assert r.updates[0].confirmed is True
    fake = hloscope._api._check_lowered(NoDumpLowered())
    assert fake.updates[0].confirmed is None
    assert fake.notes and "buffer assignment" in fake.notes[0]
    assert "note:" in str(fake)


# ----------------------------------------------------------------------------- assertions

def test_assert_inplace_names_the_source_line(buf):
    # The once-per-call copy of an argument that is not donated is advice under
    # the default gates (the loop updates it in place); `strict` fails on it.
    hloscope.assert_inplace(fill, buf)
    with pytest.raises(AssertionError) as e:
        hloscope.assert_inplace(fill, buf, gates="strict")
    msg = str(e.value)
    assert f"{THIS_FILE}:{line_of('WRITE-STEP')}" in msg
    assert "runs on this copy" in msg
    assert "non-donated-parameter" in msg
    assert "donate_argnums" in msg


def test_assert_inplace_passes_when_donated(buf):
    r = hloscope.assert_inplace(jax.jit(fill, donate_argnums=0), buf)
    assert isinstance(r, hloscope.Report)


def test_assert_inplace_fails_on_copies_inside_loops(buf):
    with pytest.raises(AssertionError) as e:
        hloscope.assert_inplace(jax.jit(read_after_write, donate_argnums=0), buf)
    msg = str(e.value)
    assert "inside while" in msg
    assert f"{THIS_FILE}:" in msg


def test_assert_inplace_ignores_scalar_loop_counter_copies(fill_donated_report):
    assert any(c.is_scalar and c.enclosing_loops for c in fill_donated_report.copies)
    hloscope.assert_inplace(fill_donated_report)
    # Counted, a 4-byte counter is still small fixed-size loop state: only the small-copies gate
    # (strict's) fails on it.
    hloscope.assert_inplace(fill_donated_report, count_scalar_copies=True)
    with pytest.raises(AssertionError, match="s32"):
        hloscope.assert_inplace(fill_donated_report, count_scalar_copies=True, gates="small-copies-in-loops")


def test_assert_inplace_selects_updates_by_line_and_name():
    a, b = jnp.zeros(8), jnp.zeros(8)
    jitted = jax.jit(two_writes, donate_argnums=0)  # a donated, b not
    r = hloscope.inspect(jitted, a, b)
    by_line = {u.source.line: u for u in r.updates}
    ua, ub = by_line[line_of("TWO-A")], by_line[line_of("TWO-B")]
    assert ua.verdict == "in-place" and ub.verdict == "in-place-on-copy"

    hloscope.assert_inplace(jitted, a, b, lines=[line_of("TWO-A")])
    hloscope.assert_inplace(jitted, a, b, lines=f"{THIS_FILE}:{line_of('TWO-A')}")
    hloscope.assert_inplace(r, updates=[ua.instruction])
    # b is not donated: its once-per-call copy is advice, failing under `strict`.
    hloscope.assert_inplace(r, updates=ub.instruction)
    with pytest.raises(AssertionError, match=f"{THIS_FILE}:{line_of('TWO-B')}"):
        hloscope.assert_inplace(r, lines=[f"python/{THIS_FILE}:{line_of('TWO-B')}"], gates="strict")
    with pytest.raises(AssertionError, match="runs on this copy"):
        hloscope.assert_inplace(r, updates=ub.instruction, gates="strict")
    with pytest.raises(AssertionError, match="no update matches"):
        hloscope.assert_inplace(r, lines=["other_file.py:1"])


def test_assert_budget(buf, fill_report, fill_donated_report):
    hloscope.assert_budget(fill_donated_report, max_copies=0, max_copy_bytes=0,
                           max_copies_in_loops=0, max_copy_bytes_in_loops=0)
    hloscope.assert_budget(fill, buf, max_copy_bytes=4096, max_copies_in_loops=0)
    with pytest.raises(AssertionError) as e:
        hloscope.assert_budget(fill, buf, max_copy_bytes=1000)
    msg = str(e.value)
    assert "4.0 KiB per call, budget 1000 B" in msg
    assert f"{THIS_FILE}:{line_of('WRITE-STEP')}" in msg
    with pytest.raises(AssertionError, match="1 copies, budget 0"):
        hloscope.assert_budget(fill_report, max_copies=0)
    with pytest.raises(AssertionError, match="copies inside loops"):
        hloscope.assert_budget(jax.jit(read_after_write, donate_argnums=0), buf,
                               max_copies_in_loops=0)
    with pytest.raises(AssertionError, match="copies inside loops move"):
        hloscope.assert_budget(jax.jit(read_after_write, donate_argnums=0), buf,
                               max_copy_bytes_in_loops=4096)
    with pytest.raises(TypeError):
        hloscope.assert_budget(fill_report)


def test_assertions_pass_user_kwargs_through():
    def f(x, *, updates, lines=2):  # user keywords that could collide
        return x.at[0].set(updates * lines)
    r = hloscope.assert_budget(jax.jit(f, donate_argnums=0), jnp.zeros(4), updates=1.0,
                               max_copies=0)
    assert len(r.updates) == 1


# ----------------------------------------------------------------------------- analyze (HLO text,
# dumps, parse errors and the CLI comparison: test_analyze.py)

def test_analyze_compiled_and_lowered(buf):
    lowered = jax.jit(fill).lower(buf)
    r_compiled = hloscope.analyze(lowered.compile())
    assert [u.verdict for u in r_compiled.updates] == ["in-place-on-copy"]
    assert r_compiled.updates[0].confirmed is None  # a Compiled has no buffer assignment
    r_lowered = hloscope.analyze(lowered)
    assert r_lowered.updates[0].confirmed is True


# ----------------------------------------------------------------------------- report

def test_to_json_round_trip(fill_report):
    j = fill_report.to_json()
    doc = json.loads(j)
    assert doc["schema_version"] == hloscope.JSON_SCHEMA_VERSION == 2
    assert doc["tool"] == "hloscope" and doc["command"] == "check"
    assert doc["tool_version"] == hloscope.__version__
    back = hloscope.Report.from_json(j)
    assert back.to_json() == j
    for a, b in zip(back.modules, fill_report.modules):
        assert a == b
    # every JSON key of a finding is a dataclass field (nothing lands in `extra`)
    for m in back.modules:
        for finding in m.copies + m.updates + m.loops + m.parameters:
            assert finding.extra == {}, finding
        assert m.extra == {}
    assert doc["modules"][0]["copies"][0]["class"] == back.modules[0].copies[0].copy_class


def test_str_repr_and_html(fill_report):
    text = str(fill_report)
    assert text.startswith("jit_fill: ")
    assert "COPIES (by bytes moved per call)" in text and "PARAMETERS" in text
    assert repr(fill_report).startswith("<hloscope.Report jit_fill")
    # In a notebook: the report page's compact form (the body alone, the
    # picture folded), with every section.
    page = fill_report._repr_html_()
    assert "<html" not in page and 'class="hloscope-report"' in page
    for section in ("copies", "updates", "loops-table", "parameters"):
        assert f'<section class="{section}">' in page
    assert '<details class="picture">' in page and "<svg" in page
    assert "in-place-on-copy" in page and "non-donated-parameter" in page
    assert f"{THIS_FILE}:{line_of('WRITE-STEP')}" in page
    # A Report rebuilt from JSON has no parsed module: the engine's text,
    # preformatted (with the rendered text given, the whole report).
    rebuilt = hloscope.Report.from_json(fill_report.to_json(), rendered_text=str(fill_report))._repr_html_()
    assert rebuilt.startswith("<pre>") and f"{THIS_FILE}:{line_of('WRITE-STEP')}" in rebuilt
    # Pickled, it keeps the engine's compact page.
    import pickle
    kept = pickle.loads(pickle.dumps(fill_report))._repr_html_()
    assert 'class="hloscope-report"' in kept and "<svg" in kept
    with pytest.raises(ValueError, match="needs the parsed module"):
        hloscope.Report.from_json(fill_report.to_json()).to_html()


def test_fusions_are_listed(fill_report):
    fusions = fill_report.fusions
    assert fusions
    dus = [f for f in fusions if "dynamic-update-slice" in f.fused_opcodes]
    assert len(dus) == 1
    assert dus[0].kind == "kLoop"
    assert dus[0].instruction == fill_report.updates[0].fusion
    assert dus[0].source.line == line_of("WRITE-STEP")


def test_report_pickles(fill_report):
    back = pickle.loads(pickle.dumps(fill_report))
    assert back == fill_report and str(back) == str(fill_report)
    # The engine stays behind; the kernels travel with the report.
    assert [f.instruction for f in back.fusions] == [f.instruction for f in fill_report.fusions]
    with pytest.raises(ValueError, match="built from JSON"):
        hloscope.assert_inplace(back)


# ----------------------------------------------------------------------------- examples

@pytest.mark.parametrize("script,expect", [
    ("seed_example.py", ["not-materialized", "in-place-on-copy", "donated"]),
    ("replay_buffer.py", ["non-donated-parameter", "in-place-on-copy", "assert_inplace(gates='strict') fails",
                          "assert_inplace passes."]),
])
def test_examples_run(script, expect):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, os.path.join(REPO, "examples", script)],
                         capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr
    for e in expect:
        assert e in out.stdout, (e, out.stdout)
    assert f"examples/{script}:" in out.stdout
