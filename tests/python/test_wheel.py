"""The wheel a team shares: `pip wheel .` + `auditwheel repair` (docs/python.md, "A wheel to share").

The repaired wheel is installed into a fresh venv that sees none of this machine's site-packages, and
its `hloscope` and `import hloscope` must work there from the wheel alone: every shared library they
load is either in the wheel or one of the system libraries the manylinux policy allows every Linux to
have (glibc, libstdc++, libgcc_s, zlib, expat), so a machine without a compiler or -dev packages runs
it. Without Graphviz's plugins (which Graphviz loads from its own folder, not from the wheel) the
report still comes out and says what to install.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(REPO, "examples", "dumps", "replay_rollout.cpu_after_optimizations.txt")
# What a manylinux wheel may take from the system (auditwheel's policy, manylinux_2_35 and older).
SYSTEM_LIBS = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1",
               "libpthread.so.0", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1", "libexpat.so.1"}


def tool(name):
    path = shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must have {name} (tools/install-deps.sh)")
        pytest.skip(f"{name} not installed")
    return path


@pytest.fixture(scope="module")
def repaired(tmp_path_factory):
    """The repaired wheel, built from this tree with the build folder `pip install .` left."""
    auditwheel = tool("auditwheel")
    tool("patchelf")
    for module in ("nanobind", "scikit_build_core"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(f"{module} not installed (the wheel's build backend)")
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
                        "--disable-pip-version-check", ".", "-w", str(out / "dist")],
                       cwd=REPO, capture_output=True, text=True, timeout=3000)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    [wheel] = glob.glob(str(out / "dist" / "hloscope-*.whl"))
    r = subprocess.run([auditwheel, "repair", "-w", str(out / "repaired"), wheel], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    [fixed] = glob.glob(str(out / "repaired" / "hloscope-*.whl"))
    assert re.search(r"-manylinux_2_\d+_x86_64\.whl$", fixed), fixed
    show = subprocess.run([auditwheel, "show", fixed], capture_output=True, text=True)
    assert "is consistent" in show.stdout and "manylinux_2_" in show.stdout, show.stdout
    return fixed


@pytest.fixture(scope="module")
def fresh_venv(repaired, tmp_path_factory):
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # pip from this environment installs into the venv: no index, no dependencies, only the wheel.
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                        "--no-index", "--no-deps", "--disable-pip-version-check", repaired],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - start < 60  # seconds, not a build
    return venv


def clean_env(venv):
    """A new shell with only the venv's bin/ and the system's on PATH, no PYTHONPATH, no LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "HLOSCOPE_BIN", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    return env


def test_the_repaired_wheel_runs_in_a_fresh_venv(fresh_venv, hloscope_bin):
    env = clean_env(fresh_venv)
    cli = str(fresh_venv / "bin" / "hloscope")
    version = subprocess.run([cli, "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and version.stdout == subprocess.run(
        [hloscope_bin, "--version"], capture_output=True, text=True).stdout
    mine = subprocess.run([cli, "check", EXAMPLE, "--format", "json"], capture_output=True, text=True, env=env)
    assert mine.returncode == 0, mine.stderr
    dev = subprocess.run([hloscope_bin, "check", EXAMPLE, "--format", "json"], capture_output=True, text=True)
    assert json.loads(mine.stdout) == json.loads(dev.stdout)
    py = subprocess.run([str(fresh_venv / "bin" / "python"), "-c",
                         "import sys, hloscope; r = hloscope.analyze(sys.argv[1]); "
                         "print(hloscope.__file__); print(r.modules[0].headline)", EXAMPLE],
                        capture_output=True, text=True, env=env, cwd="/")
    assert py.returncode == 0, py.stderr
    where, headline = py.stdout.splitlines()
    assert where.startswith(str(fresh_venv))  # the venv's package, not this tree's
    assert headline == json.loads(dev.stdout)["modules"][0]["headline"]


def test_it_loads_only_the_wheels_libraries_and_the_systems_basic_ones(fresh_venv):
    binaries = glob.glob(str(fresh_venv / "lib" / "python*" / "site-packages" / "hloscope*" / "*"))
    elves = [b for b in binaries if os.path.isfile(b) and open(b, "rb").read(4) == b"\x7fELF"]
    assert any(b.endswith("/hloscope") for b in elves) and any("_hloscope" in b for b in elves), binaries
    for b in elves:
        r = subprocess.run(["ldd", b], capture_output=True, text=True, env=clean_env(fresh_venv))
        assert r.returncode == 0, r.stderr
        for line in r.stdout.splitlines():
            name = line.split()[0]
            path = line.split("=>")[1].split("(")[0].strip() if "=>" in line else name
            assert "not found" not in line, (b, line)
            in_wheel = path.startswith(str(fresh_venv))
            assert in_wheel or os.path.basename(name) in SYSTEM_LIBS, (b, line)


def test_without_graphviz_plugins_the_report_says_what_to_install(fresh_venv, tmp_path):
    env = clean_env(fresh_venv)
    env["GVBINDIR"] = str(tmp_path)  # Graphviz looks for its plugins here: none
    page = tmp_path / "report.html"
    r = subprocess.run([str(fresh_venv / "bin" / "hloscope"), "report", EXAMPLE, "-o", str(page)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert "No loop picture: Graphviz&#39;s dot layout plugin was not found: install Graphviz" in html or \
        "No loop picture: Graphviz's dot layout plugin was not found: install Graphviz" in html
    assert "copy.7" in html  # the rest of the page is there
