"""Tests of the hloscope Python package: real JAX programs compiled here (CPU), verdicts asserted.

Run after installing the package (pip install . or pip install --no-build-isolation .):
    python3 -m pytest tests/python
"""

import dataclasses
import json
import os
import pickle
import shutil
import subprocess
import sys
import sysconfig

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import hloscope  # noqa: E402

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "jax")
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
    assert not p.donated and p.copied and p.copies == [c.instruction]
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
    with pytest.raises(AssertionError) as e:
        hloscope.assert_inplace(fill, buf)
    msg = str(e.value)
    assert f"{THIS_FILE}:{line_of('WRITE-STEP')}" in msg
    assert "in-place-on-copy" in msg
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
    with pytest.raises(AssertionError, match="s32"):
        hloscope.assert_inplace(fill_donated_report, count_scalar_copies=True)


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
    with pytest.raises(AssertionError, match=f"{THIS_FILE}:{line_of('TWO-B')}"):
        hloscope.assert_inplace(r, lines=[f"python/{THIS_FILE}:{line_of('TWO-B')}"])
    with pytest.raises(AssertionError, match="in-place-on-copy"):
        hloscope.assert_inplace(r, updates=ub.instruction)
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


# ----------------------------------------------------------------------------- analyze

def fixture(name, file="module.hlo.txt"):
    return os.path.join(FIXTURES, name, file)


def test_analyze_fixture_path_finds_the_buffer_assignment():
    r = hloscope.analyze(fixture("loop_dus_not_donated"))
    (m,) = r.modules
    assert m.buffer_assignment == fixture("loop_dus_not_donated", "buffer-assignment.txt")
    (u,) = m.updates
    assert u.verdict == "in-place-on-copy" and u.confirmed is True
    assert [c.cause for c in big(m.copies)] == ["non-donated-parameter"]


def test_analyze_pathlike_text_bytes_and_explicit_buffer_assignment():
    import pathlib
    path = fixture("loop_dus_donated")
    ba = fixture("loop_dus_donated", "buffer-assignment.txt")
    with open(path) as f:
        text = f.read()
    with open(ba) as f:
        ba_text = f.read()
    r_path = hloscope.analyze(pathlib.Path(path))
    assert r_path.updates[0].confirmed is True
    r_text = hloscope.analyze(text)
    assert r_text.modules[0].buffer_assignment is None
    assert r_text.updates[0].confirmed is None
    r_both = hloscope.analyze(text.encode(), buffer_assignment=ba_text)
    assert r_both.updates[0].confirmed is True
    r_ba_path = hloscope.analyze(text, buffer_assignment=pathlib.Path(ba))
    assert r_ba_path.modules[0].buffer_assignment == ba
    r_none = hloscope.analyze(path, buffer_assignment=False)
    assert r_none.modules[0].buffer_assignment is None and r_none.updates[0].confirmed is None
    assert r_path.updates == r_both.updates


def test_analyze_compiled_and_lowered(buf):
    lowered = jax.jit(fill).lower(buf)
    r_compiled = hloscope.analyze(lowered.compile())
    assert [u.verdict for u in r_compiled.updates] == ["in-place-on-copy"]
    assert r_compiled.updates[0].confirmed is None  # a Compiled has no buffer assignment
    r_lowered = hloscope.analyze(lowered)
    assert r_lowered.updates[0].confirmed is True


def test_analyze_rejects_other_types_and_missing_files():
    with pytest.raises(TypeError):
        hloscope.analyze(42)
    with pytest.raises(FileNotFoundError):
        hloscope.analyze("no/such/module.hlo.txt")
    with pytest.raises(FileNotFoundError):
        hloscope.analyze(fixture("seed_at_set_sum"), buffer_assignment="no/such/ba.txt")


def test_multi_module_input_ignores_a_single_buffer_assignment():
    with open(fixture("seed_at_set_sum")) as f:
        one = f.read()
    with open(fixture("loop_dus_donated")) as f:
        two = f.read()
    with open(fixture("seed_at_set_sum", "buffer-assignment.txt")) as f:
        ba = f.read()
    r = hloscope.analyze(one + "\n// -----\n" + two, buffer_assignment=ba)
    assert [m.name for m in r.modules] == ["jit_seed_at_set_sum", "jit_loop_dus_donated"]
    assert all(m.buffer_assignment is None for m in r.modules)


# ----------------------------------------------------------------------------- errors

BAD_HLO = """HloModule bad

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0
}
"""


def test_parse_error_attributes():
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze(BAD_HLO)
    err = e.value
    assert isinstance(err, ValueError)
    assert err.path == "<input>"
    assert err.line == 5 and err.column == 1
    assert "expected ')'" in err.message
    assert str(err).startswith(f"<input>:5:1: error: {err.message}\n")
    assert str(err).splitlines()[-1].strip() == "^"
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.line, again.column, str(again)) == (err.path, err.line,
                                                                   err.column, str(err))


def test_parse_error_from_a_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.hlo.txt"
    bad.write_text(BAD_HLO)
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze(bad)
    assert e.value.path == str(bad)
    assert str(e.value).startswith(f"{bad}:5:1: error:")


def test_parse_error_in_buffer_assignment():
    with open(fixture("seed_at_set_sum")) as f:
        text = f.read()
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze(text, buffer_assignment="BufferAssignment:\nallocation zero: size\n")
    assert e.value.path == "<buffer-assignment>"
    assert e.value.line >= 1


# ----------------------------------------------------------------------------- report

def cli():
    """The `hloscope` CLI the package installed next to this Python."""
    scripts = sysconfig.get_path("scripts")
    exe = os.path.join(scripts, "hloscope")
    if os.path.isfile(exe):
        return exe
    found = shutil.which("hloscope")
    if not found:
        pytest.fail("the hloscope CLI is not installed with the package")
    return found


def test_cli_is_installed_with_the_package():
    out = subprocess.run([cli(), "--version"], capture_output=True, text=True, check=True)
    assert "hloscope" in out.stdout


@pytest.mark.parametrize("name", ["loop_dus_not_donated", "replay_scan_rollout",
                                  "loop_read_after_write", "seed_at_set_sum"])
def test_json_and_text_match_the_cli(name):
    path = fixture(name)
    r = hloscope.analyze(path)
    cli_json = subprocess.run([cli(), "check", path, "--format", "json"], capture_output=True,
                              text=True, check=True).stdout
    assert r.to_json() == cli_json
    cli_text = subprocess.run([cli(), "check", path], capture_output=True, text=True,
                              check=True).stdout
    assert str(r) == cli_text


def test_to_json_round_trip(fill_report):
    j = fill_report.to_json()
    doc = json.loads(j)
    assert doc["schema_version"] == hloscope.JSON_SCHEMA_VERSION == 1
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


def test_from_json_keeps_unknown_keys():
    doc = {"schema_version": 1, "modules": [{"name": "m", "future_key": 1, "copies": [
        {"instruction": "copy.1", "class": "protective", "new_field": [1]}]}]}
    r = hloscope.Report.from_json(json.dumps(doc))
    assert r.modules[0].extra == {"future_key": 1}
    assert r.copies[0].extra == {"new_field": [1]}
    assert r.copies[0].copy_class == "protective"


def test_str_repr_and_html(fill_report):
    text = str(fill_report)
    assert text.startswith("jit_fill: ")
    assert "COPIES (by bytes moved per call)" in text and "PARAMETERS" in text
    assert repr(fill_report).startswith("<hloscope.Report jit_fill")
    page = fill_report._repr_html_()
    assert page.count("<table>") == 4  # copies, updates, loops, parameters
    assert "in-place-on-copy" in page and "non-donated-parameter" in page
    assert f"{THIS_FILE}:{line_of('WRITE-STEP')}" in page


def test_html_escapes():
    doc = {"schema_version": 1, "modules": [{"name": "<m>", "headline": "<b>&</b>", "copies": [
        {"instruction": "<copy>", "shape": "f32[4]", "cause": "x<y"}]}]}
    page = hloscope.Report.from_json(json.dumps(doc))._repr_html_()
    assert "<copy>" not in page and "&lt;copy&gt;" in page and "&lt;b&gt;&amp;" in page


def test_fusions_are_listed(fill_report):
    fusions = fill_report.fusions
    assert fusions
    dus = [f for f in fusions if "dynamic-update-slice" in f.fused_opcodes]
    assert len(dus) == 1
    assert dus[0].kind == "kLoop"
    assert dus[0].instruction == fill_report.updates[0].fusion
    assert dus[0].source.line == line_of("WRITE-STEP")


def test_source_matches():
    s = hloscope.Source(file="/home/me/proj/train.py", line=41)
    assert s.matches(41) and s.matches("41") and s.matches("train.py:41")
    assert s.matches("proj/train.py:41") and s.matches("/home/me/proj/train.py:41")
    assert not s.matches("rain.py:41") and not s.matches("train.py:40")
    assert not s.matches("other/train.py:41")
    assert not hloscope.Source(file=None, line=None).matches(41)


def test_human_bytes_matches_the_cli():
    assert hloscope.human_bytes(None) == "?"
    assert hloscope.human_bytes(1023) == "1023 B"
    assert hloscope.human_bytes(4096) == "4.0 KiB"
    assert hloscope.human_bytes(8 << 20) == "8.0 MiB"


def test_report_pickles(fill_report):
    back = pickle.loads(pickle.dumps(fill_report))
    assert back == fill_report and str(back) == str(fill_report)


# ----------------------------------------------------------------------------- examples

@pytest.mark.parametrize("script,expect", [
    ("seed_example.py", ["not-materialized", "in-place-on-copy", "donated"]),
    ("replay_buffer.py", ["non-donated-parameter", "in-place-on-copy", "assert_inplace fails",
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
