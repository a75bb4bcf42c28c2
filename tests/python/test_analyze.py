"""Tests of the hloscope package that need no JAX: analyze() on HLO text and the dumps in
tests/fixtures/jax, ParseError, the report classes, and the installed CLI (same JSON and text).

Run after installing the package (pip install . or pip install --no-build-isolation .):
    python3 -m pytest tests/python
"""

import json
import os
import pickle
import shutil
import subprocess
import sysconfig

import pytest

# The installed package (pip install .); skipped where only the C++ is built.
hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed "
                               "(pip install --no-build-isolation .)")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "jax")


def big(copies):
    """Copies of arrays (not of the scalar loop counters XLA copies in every loop)."""
    return [c for c in copies if not c.is_scalar]


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


def test_from_json_keeps_unknown_keys():
    doc = {"schema_version": 1, "modules": [{"name": "m", "future_key": 1, "copies": [
        {"instruction": "copy.1", "class": "protective", "new_field": [1]}]}]}
    r = hloscope.Report.from_json(json.dumps(doc))
    assert r.modules[0].extra == {"future_key": 1}
    assert r.copies[0].extra == {"new_field": [1]}
    assert r.copies[0].copy_class == "protective"


def test_html_escapes():
    doc = {"schema_version": 1, "modules": [{"name": "<m>", "headline": "<b>&</b>", "copies": [
        {"instruction": "<copy>", "shape": "f32[4]", "cause": "x<y"}]}]}
    # A report built from JSON alone shows the engine's text, preformatted
    # and escaped: Python renders no HTML of its own.
    page = hloscope.Report.from_json(json.dumps(doc))._repr_html_()
    assert page.startswith("<pre>") and "<b>" not in page and "&lt;b&gt;&amp;" in page


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
