"""The doors added after the parser, tried the hostile way (issue 28): out of memory, hostile
`diff` baselines, and `report -o` / `run --json` targets that are not regular files. Each case
failed on the code before it (SIGABRT, SIGSEGV, a replaced device); now each is a clear message
and exit 2, or the target left as it was.
"""
import json
import os
import stat
import subprocess
import sys

import pytest

from conftest import ROOT

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "jax", "loop_dus_not_donated", "module.hlo.txt")


def _big_module(path, computations=60000):
    """~10 MB of small computations: more than the memory the test lets the CLI have."""
    with open(path, "w") as f:
        f.write("HloModule big\n")
        for k in range(computations):
            f.write(f"%c{k} (p: f32[16]) -> f32[16] {{\n  %p = f32[16]{{0}} parameter(0)\n"
                    f"  ROOT %n = f32[16]{{0}} negate(%p), metadata={{op_name=\"jit(f)/neg{k}\" "
                    f"source_file=\"a.py\" source_line={k}}}\n}}\n")
        f.write("ENTRY %main (x: f32[16]) -> f32[16] {\n  %x = f32[16]{0} parameter(0)\n"
                "  ROOT %y = f32[16]{0} negate(%x)\n}\n")


def test_out_of_memory_is_a_message_and_exit_2_not_sigabrt(hloscope_bin, tmp_path):
    big = tmp_path / "big.hlo.txt"
    _big_module(big)

    # The shell's ulimit, not preexec_fn (a fork from this multithreaded JAX process can deadlock).
    r = subprocess.run(["sh", "-c", 'ulimit -v 61440 && exec "$0" stats "$1"', hloscope_bin, str(big)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert r.stderr.startswith("hloscope: error: out of memory"), r.stderr[-500:]


@pytest.mark.parametrize("text, message", ids=["deep", "huge-number"], argvalues=[
    ('{"modules": ' + "[" * 200000 + "]" * 200000 + "}", "error: JSON nested deeper than 64 levels (a baseline is the output of "
                                  "`hloscope check FILE --format json`)"),
    ('{"tool": "hloscope", "command": "check", "schema_version": 2, "modules": [], "x": 1e999999}',
     "number overflow parsing '1e999999'"),
])
def test_a_hostile_diff_baseline_is_a_diagnostic(hloscope_bin, tmp_path, text, message):
    base = tmp_path / "base.json"
    base.write_text(text)
    r = subprocess.run([hloscope_bin, "diff", str(base), FIXTURE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert message in r.stderr, r.stderr[-500:]


def test_python_diff_of_a_hostile_document_raises_instead_of_killing_the_interpreter():
    program = r"""
import hloscope
good = hloscope.analyze(open(%r).read()).to_json()
for bad in ("[" * 200000 + "]" * 200000, '{"x": 1e999999}'):
    try:
        hloscope.diff(bad, good)
    except hloscope.ParseError as e:
        print("ParseError:", str(e).splitlines()[0][:80])
""" % FIXTURE
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-1000:])
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("ParseError:") for line in lines), r.stdout


def test_report_o_writes_into_a_device_and_through_a_link_never_replacing_them(hloscope_bin, tmp_path):
    # A private null device, never the machine's /dev/null: the code before this change, run as
    # root, replaced /dev/null with a regular file.
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        null = None
    if null is not None:
        r = subprocess.run([hloscope_bin, "report", FIXTURE, "-o", str(null)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert stat.S_ISCHR(os.stat(null).st_mode)
        null.unlink()
    target = tmp_path / "page.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (tmp_path / "link.html.tmp").symlink_to(victim)
    r = subprocess.run([hloscope_bin, "report", FIXTURE, "-o", str(link)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")
    assert victim.read_text() == "precious"
    r = subprocess.run([hloscope_bin, "report", FIXTURE, "-o", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and "Is a directory" in r.stderr, r.stderr
    assert json.loads(json.dumps(sorted(os.listdir(tmp_path)))) == ["link.html", "link.html.tmp", "page.html",
                                                                      "victim"]


RUN_PROGRAM = "import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x.at[0].set(1.0))(jnp.ones(8)).shape)\n"


def test_run_checks_its_compilations_with_a_tmpdir_holding_a_space(hloscope_bin, tmp_path):
    # XLA splits XLA_FLAGS at spaces: the dump path went elsewhere and `run` saw 0 compilations.
    tmp = tmp_path / "t d"
    tmp.mkdir()
    prog = tmp_path / "prog.py"
    prog.write_text(RUN_PROGRAM)
    env = dict(os.environ, TMPDIR=str(tmp), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([hloscope_bin, "run", "--", sys.executable, str(prog)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "compilations of" in r.stderr and " 0 compilations" not in r.stderr, r.stderr[-2000:]
    assert os.listdir(tmp) == []  # the temporary folder was removed

    env["TMPDIR"] = str(tmp_path / "missing")
    r = subprocess.run([hloscope_bin, "run", "--", sys.executable, str(prog)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "hloscope run: cannot create a temporary folder: No such file or directory" in r.stderr


@pytest.mark.parametrize("doc", ['{"modules": 5}', "[1, 2]", '{"modules": [1]}', '{"modules": [{"copies": 3}]}'])
def test_report_from_json_of_another_shape_is_a_value_error(doc):
    hloscope = pytest.importorskip("hloscope")
    with pytest.raises(ValueError, match=r"^not a check document \(hloscope check --format json\)"):
        hloscope.Report.from_json(doc)


@pytest.mark.parametrize("flag", ["--xla_dump_hlo_module_re=nothing", "--xla_dump_hlo_as_text=false",
                                  "--xla_dump_max_hlo_modules=0"])
def test_run_overrides_the_users_dump_flags_that_would_hide_modules(hloscope_bin, tmp_path, flag):
    # With --xla_dump_hlo_module_re=nothing, `run --fail` said "0 compilations" and passed.
    prog = tmp_path / "prog.py"
    prog.write_text(RUN_PROGRAM)
    env = dict(os.environ, XLA_FLAGS=flag, JAX_PLATFORMS="cpu")
    r = subprocess.run([hloscope_bin, "run", "--fail", "--", sys.executable, str(prog)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hloscope run: 0 compilations" not in r.stderr and "compilations of" in r.stderr, r.stderr[-2000:]


def test_a_file_name_that_is_not_utf8_is_read_not_a_type_error(tmp_path):
    hloscope = pytest.importorskip("hloscope")
    name = os.path.join(os.fsencode(tmp_path), b"\xff.hlo.txt")
    with open(FIXTURE, "rb") as src, open(name, "wb") as dst:
        dst.write(src.read())
    # (bytes given to analyze() are HLO text, so the name is given as Python decodes it.)
    report = hloscope.analyze(os.fsdecode(name))
    assert report.modules and report.modules[0].name == "jit_loop_dus_not_donated"


# `run` on a dump folder the program itself tampers with (it finds the folder in XLA_FLAGS).
_FIND_DUMPS = ("import os, re, sys, time\n"
               "d = re.search(r'--xla_dump_to=\"?([^\" ]+)', os.environ['XLA_FLAGS']).group(1)\n")


def _run_program(hloscope_bin, tmp_path, program, *opts):
    prog = tmp_path / "prog.py"
    prog.write_text(program)
    env = dict(os.environ, TMPDIR=str(tmp_path), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    return subprocess.run([hloscope_bin, "run", *opts, "--", sys.executable, str(prog)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_a_fifo_in_the_dump_folder_is_skipped_not_read(hloscope_bin, tmp_path):
    program = _FIND_DUMPS + "os.mkfifo(os.path.join(d, 'module_0001.jit_f.cpu_after_optimizations.txt'))\n"
    r = _run_program(hloscope_bin, tmp_path, program)
    assert r.returncode == 0, r.stderr
    assert ("hloscope run: skipped module_0001.jit_f.cpu_after_optimizations.txt: not a regular file "
            "(not read: it could block)") in r.stderr
    failed = _run_program(hloscope_bin, tmp_path, program, "--fail")
    assert failed.returncode == 1, failed.stderr
    assert ("hloscope run: failed: 1 compilation could not be checked (skipped above), so --fail cannot "
            "vouch for it") in failed.stderr


def test_a_dump_written_in_two_halves_is_read_again_and_checked(hloscope_bin, tmp_path):
    """A writer that stalls half-way: the half that does not parse is read again once it grows."""
    fixture = os.path.join(ROOT, "tests", "fixtures", "jax", "loop_read_after_write")
    program = _FIND_DUMPS + (
        f"hlo = open({os.path.join(fixture, 'module.hlo.txt')!r}).read()\n"
        f"ba = open({os.path.join(fixture, 'buffer-assignment.txt')!r}).read()\n"
        "name = os.path.join(d, 'module_0001.jit_loop_read_after_write.cpu_after_optimizations')\n"
        "open(name + '-buffer-assignment.txt', 'w').write(ba)\n"
        "with open(name + '.txt', 'w') as f:\n"
        "    f.write(hlo[:len(hlo) // 2]); f.flush()\n"
        "    time.sleep(1.5)\n"
        "    f.write(hlo[len(hlo) // 2:])\n")
    r = _run_program(hloscope_bin, tmp_path, program, "--fail")
    assert "skipped" not in r.stderr, r.stderr
    assert "copies-in-loops" in r.stderr and r.returncode == 1, r.stderr  # checked: its loop copy fails
    assert "loop_read_after_write" in r.stderr
