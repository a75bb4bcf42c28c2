"""Files hloscope finds rather than is given (support/found_file.h), through the doors a process
sees: `check DIR`, `check FILE` with dumps beside it, `hloscope run`'s dump folder, and Python's
analyze(path). A dump folder from a tarball with links to a secret outside it, to
/proc/self/environ and to another project's dump: none is read, each is named in a note, and
neither the secret nor this process's environment appears anywhere (issue 50).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

JAX = os.path.join(ROOT, "tests", "fixtures", "jax")
SECRET = "hloscope-test-secret-7f3a"
ENV_SECRET = "hloscope-env-secret-19c2"
STEM = "module_0001.jit_step."
HLO = STEM + "cpu_after_optimizations.txt"
TARGETS = ["secret", "environ", "other_dump"]


def _env():
    return dict(os.environ, CI_JOB_TOKEN=ENV_SECRET, JAX_PLATFORMS="cpu")


def _no_leak(text):
    assert SECRET not in text, text
    assert ENV_SECRET not in text, text
    assert "CI_JOB_TOKEN" not in text, text
    assert "jit_other" not in text and "loop_read_after_write" not in text, text


@pytest.fixture
def layout(tmp_path):
    """dump/ holds its own module; secret.txt and other_project/ lie outside it."""
    dump, other = tmp_path / "dump", tmp_path / "other_project"
    dump.mkdir()
    other.mkdir()
    (tmp_path / "secret.txt").write_text(f"CI_JOB_TOKEN={SECRET}\n")
    src = os.path.join(JAX, "loop_read_after_write")
    shutil.copy(os.path.join(src, "module.hlo.txt"), other / "module_0007.jit_other.cpu_after_optimizations.txt")
    shutil.copy(os.path.join(src, "buffer-assignment.txt"),
                other / "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt")
    shutil.copy(os.path.join(JAX, "loop_dus_donated", "module.hlo.txt"), dump / HLO)

    def link(name, target, other_file="module_0007.jit_other.cpu_after_optimizations.txt"):
        to = {"secret": tmp_path / "secret.txt", "environ": "/proc/self/environ",
              "other_dump": other / other_file}[target]
        os.symlink(to, dump / name)
        return str(dump / name)

    return dump, link


@pytest.mark.parametrize("target", TARGETS)
def test_check_dir_and_check_file_read_no_link(hloscope_bin, layout, target):
    dump, link = layout
    linked = link("module_0002.jit_linked.cpu_after_optimizations.txt", target)
    ba = link(STEM + "cpu_after_optimizations-buffer-assignment.txt", target,
              "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt")
    before = link(STEM + "before_optimizations.txt", target)
    for args in (["check", str(dump)], ["check", str(dump / HLO)], ["check", str(dump), "--format", "json"],
                 ["memory", str(dump)], ["diff", str(dump), str(dump)]):
        r = subprocess.run([hloscope_bin, *args], capture_output=True, text=True, env=_env())
        assert r.returncode == 0, r.stderr
        _no_leak(r.stdout + r.stderr)
        if args[0] != "diff":
            assert f"hloscope: note: {ba} was not read: " in r.stderr
            assert f"hloscope: note: {before} was not read: " in r.stderr
        if args[1] == str(dump) and args[0] != "diff":
            assert f"hloscope: note: {linked} was not read: " in r.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_run_reads_no_link_the_program_left_in_its_dump_folder(hloscope_bin, layout, tmp_path, target):
    dump, link = layout
    to = {"secret": str(tmp_path / "secret.txt"), "environ": "/proc/self/environ",
          "other_dump": str(tmp_path / "other_project" / "module_0007.jit_other.cpu_after_optimizations.txt")}[target]
    prog = tmp_path / "prog.py"
    prog.write_text("import os, re\n"
                    "d = re.search(r'--xla_dump_to=\"?([^\" ]+)', os.environ['XLA_FLAGS']).group(1)\n"
                    f"os.symlink({to!r}, os.path.join(d, 'module_0003.jit_linked.cpu_after_optimizations.txt'))\n")
    env = dict(_env(), TMPDIR=str(tmp_path))
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([hloscope_bin, "run", "--", sys.executable, str(prog)], capture_output=True, text=True,
                       env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    _no_leak(r.stdout + r.stderr)
    assert "hloscope run: skipped module_0003.jit_linked.cpu_after_optimizations.txt: not read: " in r.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_analyze_reads_no_linked_buffer_assignment(layout, target):
    hloscope = pytest.importorskip("hloscope")
    dump, link = layout
    ba = link(STEM + "cpu_after_optimizations-buffer-assignment.txt", target,
              "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt")
    report = hloscope.analyze(str(dump / HLO))
    assert any(ba in n and "was not read" in n for n in report.notes), report.notes
    doc = json.loads(report.to_json())
    assert doc["modules"][0]["buffer_assignment"] is None
    _no_leak("\n".join(report.notes) + report.to_json())


def test_a_found_file_that_does_not_parse_is_not_quoted(hloscope_bin, layout):
    dump, _ = layout
    (dump / (STEM + "cpu_after_optimizations-buffer-assignment.txt")).write_text(
        f"BufferAssignment:\nCI_JOB_TOKEN={SECRET} (\n")
    r = subprocess.run([hloscope_bin, "check", str(dump / HLO)], capture_output=True, text=True)
    assert r.returncode == 2
    assert SECRET not in r.stderr and "-buffer-assignment.txt:2:" in r.stderr, r.stderr
    hloscope = pytest.importorskip("hloscope")
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze(str(dump / HLO))
    assert SECRET not in str(e.value) and e.value.line == 2
