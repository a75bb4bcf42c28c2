"""The doors added after the parser, tried the hostile way (issue 28): out of memory, hostile
`diff` baselines, and `report -o` / `run --json` targets that are not regular files. Each case
failed on the code before it (SIGABRT, SIGSEGV, a replaced device); now each is a clear message
and exit 2, or the target left as it was.
"""
import json
import os
import re
import signal
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
                          capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)


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


def _alive(pid, within=10.0):
    """Whether `pid` is still running `within` seconds from now (a process that was just killed may
    not be reaped yet: a zombie still answers kill(pid, 0), and /proc says Z)."""
    import time
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.05)
    return True


def _write_pid(path, indent=""):
    """Program text that writes its pid to `path` whole (a reader never sees an empty file)."""
    return (f"{indent}open({str(path)!r} + '.part', 'w').write(str(os.getpid()))\n"
            f"{indent}os.replace({str(path)!r} + '.part', {str(path)!r})\n")


def _wait_until(path, seconds=300):
    """Program text: wait for `path` to appear, at most `seconds` (a failed test leaves no program behind)."""
    return (f"_end = time.monotonic() + {seconds}\n"
            f"while not os.path.exists({str(path)!r}) and time.monotonic() < _end:\n    time.sleep(0.05)\n")


def _wait_for(path, timeout=60):
    import time
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


_STARTED = []


@pytest.fixture(autouse=True)
def _no_program_left_behind():
    """A test that fails half-way leaves no hloscope and no program running (each has a group of its own)."""
    yield
    while _STARTED:
        p = _STARTED.pop()
        if p.poll() is not None:
            continue
        try:
            with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            children = []
        for c in children:
            try:
                os.killpg(c, signal.SIGKILL)
            except OSError:
                pass
        p.kill()
        p.wait(timeout=30)


def _start_run(hloscope_bin, tmp_path, program, *opts, shell=False, pipes=True):
    prog = tmp_path / "prog.py"
    prog.write_text(program)
    env = dict(os.environ, TMPDIR=str(tmp_path), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    # "; exit $?": sh would otherwise exec python in its place, and no process group would be needed.
    cmd = ["sh", "-c", f"{sys.executable} {prog}; exit $?"] if shell else [sys.executable, str(prog)]
    # Without pipes when hloscope is killed: the program, still running, would hold them open.
    sink = subprocess.PIPE if pipes else subprocess.DEVNULL
    # stdin not a terminal: hloscope then gives the program a process group of its own, wherever pytest runs.
    p = subprocess.Popen([hloscope_bin, "run", *opts, "--", *cmd], stdout=sink, stderr=sink, text=True,
                         env=env, stdin=subprocess.DEVNULL)
    _STARTED.append(p)
    return p


def test_sigterm_reaches_a_program_run_through_a_shell(hloscope_bin, tmp_path):
    """`run -- sh -c 'python …'`: TERM to hloscope reaches python too (its own process group), and
    hloscope still prints its summary and removes its folder."""
    pidfile = tmp_path / "pid"
    program = "import os, time\n" + _write_pid(pidfile) + "time.sleep(120)\n"
    p = _start_run(hloscope_bin, tmp_path, program, shell=True)
    _wait_for(pidfile)
    pid = int(pidfile.read_text())
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert "hloscope run: 0 compilations" in err
    assert not _alive(pid), "the program behind sh was left running"
    assert not [n for n in os.listdir(tmp_path) if n.startswith("hloscope-run-")]


def test_sigint_sent_to_hloscope_is_passed_on(hloscope_bin, tmp_path):
    """`kill -INT` to hloscope (not the terminal's Ctrl-C, which reaches the program itself)."""
    pidfile = tmp_path / "pid"
    program = ("import os, sys, time\ntry:\n" + _write_pid(pidfile, "    ") +
               "    time.sleep(120)\nexcept KeyboardInterrupt:\n    print('interrupted'); sys.exit(4)\n")
    p = _start_run(hloscope_bin, tmp_path, program)
    _wait_for(pidfile)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert out == "interrupted\n", err
    assert p.returncode == 4
    assert "the program exited with 4" in err


def test_raise_does_not_block_when_hloscope_is_gone(hloscope_bin, tmp_path):
    """--raise: the program waits for each verdict; with hloscope killed it runs on at once."""
    import time
    ready, done = tmp_path / "ready", tmp_path / "done"
    program = ("import os, time\nimport jax, jax.numpy as jnp\n"
               "jax.jit(lambda x: x + 1)(jnp.ones(4)).block_until_ready()\n"
               f"open({str(ready)!r}, 'w').close()\n"
               + _wait_until(str(ready) + '.go') +
               "jax.jit(lambda x: x * 3)(jnp.ones(8)).block_until_ready()\n"
               f"open({str(done)!r}, 'w').close()\n")
    p = _start_run(hloscope_bin, tmp_path, program, "--raise", pipes=False)
    _wait_for(ready, timeout=120)
    p.kill()
    p.wait(timeout=60)
    start = time.monotonic()
    (tmp_path / "ready.go").touch()
    _wait_for(done, timeout=60)
    assert time.monotonic() - start < 30


def test_two_runs_cannot_share_a_keep_dumps_folder(hloscope_bin, tmp_path):
    """Two runs started on one empty --keep-dumps folder counted each other's modules."""
    kept, waiting = tmp_path / "kept", tmp_path / "waiting"
    program = ("import os, time\nimport jax, jax.numpy as jnp\n"
               f"open({str(waiting)!r}, 'w').close()\n"
               + _wait_until(str(waiting) + '.go') +
               "jax.jit(lambda x: x.at[0].set(1.0))(jnp.ones(8)).block_until_ready()\n")
    first = _start_run(hloscope_bin, tmp_path, program, "--keep-dumps", str(kept))
    _wait_for(waiting, timeout=120)
    assert os.listdir(kept) == [".hloscope-run.lock"]  # nothing dumped yet: the folder looks free
    (tmp_path / "second").mkdir()
    second = _run_program(hloscope_bin, tmp_path / "second", "print('never')\n", "--keep-dumps", str(kept))
    assert second.returncode == 2, second.stderr
    assert (f"hloscope run: --keep-dumps {kept} is in use by another hloscope run (its .hloscope-run.lock; "
            "remove that file if no run is using the folder); each run needs a folder of its own, or each "
            "would count the other's modules") in second.stderr
    assert "never" not in second.stdout
    (tmp_path / "waiting.go").touch()
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert re.search(r"hloscope run: [1-9]\d* compilations? of \d+ functions? checked", err), err
    assert ".hloscope-run.lock" not in os.listdir(kept)  # released at the end


def test_a_worker_left_running_cannot_recreate_the_removed_folder(hloscope_bin, tmp_path):
    """A worker the program started (its own session) compiles after the program and hloscope have
    ended: XLA creates its dump folder, parents and all, so it used to recreate /tmp/hloscope-run-*."""
    go, done = tmp_path / "go", tmp_path / "done"
    worker = tmp_path / "worker.py"
    worker.write_text("import os, time\n" + _wait_until(go) +
                      "import jax, jax.numpy as jnp\n"
                      "print(jax.jit(lambda x: x * 2)(jnp.ones(4)))\n"
                      f"open({str(done)!r}, 'w').close()\n")
    program = ("import subprocess, sys\n"
               f"subprocess.Popen([sys.executable, {str(worker)!r}], start_new_session=True,\n"
               "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n")
    r = _run_program(hloscope_bin, tmp_path, program)
    assert r.returncode == 0, r.stderr
    go.touch()
    _wait_for(done, timeout=120)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("hloscope-run-")]


def test_interrupt_while_the_last_dumps_are_checked_prints_the_summary_and_cleans_up(hloscope_bin, tmp_path):
    """INT to hloscope after the program has ended (it is checking what was dumped): the checking
    stops, the summary of what was checked is printed, the folder is removed, exit 130."""
    fixture = os.path.join(ROOT, "tests", "fixtures", "jax", "large_unrolled")
    pidfile = tmp_path / "pid"
    # 400 modules of 1.4 MB (hard links: no disk), far more than are checked before the signal.
    program = _FIND_DUMPS + (
        "import shutil\n"
        f"hlo = shutil.copy({os.path.join(fixture, 'module.hlo.txt')!r}, {str(tmp_path)!r})\n"
        f"ba = shutil.copy({os.path.join(fixture, 'buffer-assignment.txt')!r}, {str(tmp_path)!r})\n"
        "for i in range(1, 401):\n"
        "    name = os.path.join(d, f'module_{i:04}.jit_large_unrolled.cpu_after_optimizations')\n"
        "    os.link(ba, name + '-buffer-assignment.txt')\n"
        "    os.link(hlo, name + '.txt')\n"
        + _write_pid(pidfile))
    p = _start_run(hloscope_bin, tmp_path, program)
    _wait_for(pidfile, timeout=120)
    assert not _alive(int(pidfile.read_text()), within=30)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 128 + signal.SIGINT, err[-2000:]
    assert ("hloscope run: interrupted: the summary covers the compilations checked before Ctrl-C"
            in err), err[-2000:]
    checked = re.search(r"hloscope run: (\d+) compilations? of", err)
    assert checked and int(checked.group(1)) < 400, err[-2000:]
    assert not [n for n in os.listdir(tmp_path) if n.startswith("hloscope-run-")]


def test_the_page_says_which_source_files_it_may_have_read(hloscope_bin, tmp_path):
    """A page shared onward: it names the roots its lines come from, and hidden files are never among them."""
    fixture = os.path.join(ROOT, "tests", "fixtures", "jax", "loop_read_after_write", "module.hlo.txt")
    page = tmp_path / "page.html"
    r = subprocess.run([hloscope_bin, "report", fixture, "-o", str(page), "--source-root", "tools"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert ("Source lines are read only from regular files under <code>tools</code> (--source-root), never "
            "from hidden files or folders there (<code>.git</code>, <code>.env</code>) nor from outside them"
            in html)
    assert "loops.py" in html and "(not found on this machine" not in html  # read from under the root


@pytest.mark.parametrize("name", ["kept dumps", 'a"quote', "back\\slash"])
def test_keep_dumps_may_hold_a_space_a_quote_or_a_backslash(hloscope_bin, tmp_path, name):
    """XLA_FLAGS carries the path quoted and escaped: a space was refused for no reason, and XLA reads
    a backslash inside quotes as an escape (a<backslash>b dumped into "ab": 0 compilations)."""
    kept = tmp_path / name
    r = _run_program(hloscope_bin, tmp_path, RUN_PROGRAM, "--keep-dumps", str(kept))
    assert r.returncode == 0, r.stderr
    assert re.search(r"hloscope run: [1-9]\d* compilations? of", r.stderr), r.stderr
    assert any(n.endswith("after_optimizations.txt") for n in os.listdir(kept))
    assert sorted(os.listdir(tmp_path)) == sorted([name, "prog.py"])  # nothing dumped elsewhere


def test_a_tmpdir_holding_a_backslash_is_where_the_dumps_go(hloscope_bin, tmp_path):
    tmp = tmp_path / "t\\d"
    tmp.mkdir()
    r = _run_program(hloscope_bin, tmp, RUN_PROGRAM, "--fail")
    assert r.returncode == 0, r.stderr
    assert re.search(r"hloscope run: [1-9]\d* compilations? of", r.stderr), r.stderr
    assert sorted(os.listdir(tmp)) == ["prog.py"]  # the temporary folder removed
    assert sorted(os.listdir(tmp_path)) == ["t\\d"]  # and nothing dumped beside it
