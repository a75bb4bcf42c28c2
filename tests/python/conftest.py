"""Shared pytest fixtures: where the hloscope CLI is.

The CLI comes from HLOSCOPE_BIN, else the dev build (build/dev/src/hloscope),
else `hloscope` on PATH (what `pip install .` puts there).
"""
import json
import os
import re
import signal
import subprocess
import sys

import pytest

# The TPU compiles here are compile-only (libtpu without a TPU). libtpu takes a machine-wide
# lockfile in the first process that loads it, so a test that compiles for a TPU in this process
# made every later test that compiles for one in a subprocess skip ("libtpu multi-process
# lockfile"). JAX's own multi-process tests set this to let several processes load it.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
# The compile-only CUDA plugin describes a GPU topology only with the CPU as JAX's platform; the
# first test module to import jax decided it, so a selection of tests could fail where the whole
# suite passed (this machine has no GPU or TPU to run on).
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# A shell without job control starts a background job (`pytest … &`, a CI step run in the
# background) with SIGINT ignored; Python then keeps it ignored, and every process it starts
# inherits that: `hloscope run` keeps an ignored SIGINT (nohup's contract) and so does the program,
# so the tests that interrupt a run would wait for nothing. A handled signal is reset to the
# default in a child, an ignored one is not: handle it here.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from hloscope_bin import find_hloscope_bin  # noqa: E402


@pytest.fixture(scope="session")
def hloscope_bin():
    path = find_hloscope_bin()
    if not path:
        pytest.skip("hloscope CLI not built (set HLOSCOPE_BIN)")
    return path


def run_program_json(program: str, timeout: int = 600) -> dict:
    """Runs `program` in a fresh Python on the CPU platform (it sets its own XLA_FLAGS, e.g. the
    host device count, which only a new process can) and returns the JSON of its last line. When the
    program printed {"unavailable": reason} (it caught hloscope.TargetUnavailable), skips only if the
    compile-only package is not installed, and fails otherwise."""
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if "unavailable" in out:
        skip_if_compile_only_package_missing(out["unavailable"])
    return out


# The compile-only packages each platform needs (tools/install-deps.sh --backends installs them).
COMPILE_ONLY_DISTS = {"tpu": ("libtpu",), "gpu": ("jax-cuda12-plugin", "jax-cuda12-pjrt")}


def skip_if_compile_only_package_missing(reason: str) -> None:
    """Skips when `reason` (a hloscope.TargetUnavailable's message) comes from a missing compile-only
    package; fails otherwise. TargetUnavailable also wraps every other failure to describe the target
    (a libtpu lockfile, a bad topology, a broken GPU config): with the packages installed, that is a
    bug to see, not a skip."""
    from importlib import metadata

    m = re.match(r"cannot compile for (tpu|gpu)\S* here", reason)
    assert m, f"not a compile-only package missing: {reason}"
    for dist in COMPILE_ONLY_DISTS[m.group(1)]:
        try:
            metadata.version(dist)
        except metadata.PackageNotFoundError:
            pytest.skip(f"{dist} not installed (bash tools/install-deps.sh --backends): {reason}")
    pytest.fail(f"{', '.join(COMPILE_ONLY_DISTS[m.group(1)])} installed, yet the target could not be "
                f"built: {reason}")


# An instruction of XLA's optimized HLO text that copies: `name = shape copy(...)`, or
# `copy-start(...)` (a tuple shape: the destination first).
_XLA_COPY = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(?P<shape>.*?)\s(?P<op>copy|copy-start)\(")
_XLA_COMPUTATION = re.compile(r"^(?:ENTRY\s+)?%?(?P<name>[\w.\-]+)\s.*\{$")
_XLA_FUSION_CALLS = re.compile(r"\sfusion\(.*\bcalls=%?(?P<name>[\w.\-]+)")


def xla_copy_shapes(hlo_text: str, arrays_only: bool = True):
    """The shapes (a Counter) of the copies in XLA's own optimized HLO text (`compiled.as_text()`):
    the truth a test checks the tool's copies against, found without the tool. A `copy` inside a
    fusion's body is no copy at run time (the fusion's kernel writes its outputs), so it is left out;
    with `arrays_only`, so are rank-0 copies (a loop counter's)."""
    import collections

    lines = hlo_text.splitlines()
    fused = {m["name"] for line in lines for m in [_XLA_FUSION_CALLS.search(line)] if m}
    shapes, computation = [], None
    for line in lines:
        head = _XLA_COMPUTATION.match(line)
        if head:
            computation = head["name"]
            continue
        m = _XLA_COPY.match(line)
        if not m or computation in fused:
            continue
        shape = m["shape"]
        if m["op"] == "copy-start":
            shape = shape.lstrip("(").split(", ")[0]
        if arrays_only and not re.match(r"\w+\[\d", shape):  # no dimension: a scalar (`s32[]`)
            continue
        shapes.append(shape)
    return collections.Counter(shapes)


def inspect_one(fn, *args, **jit_kwargs):
    """`fn` jitted with `jit_kwargs`, compiled by JAX and checked by hloscope.inspect: (the compiled
    executable, XLA's truth; the one module's report)."""
    import warnings

    import jax

    import hloscope
    jitted = jax.jit(fn, **jit_kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's "Some donated buffers were not usable"
        compiled = jitted.lower(*args).compile()
        report = hloscope.inspect(jitted, *args)
    assert len(report.modules) == 1
    return compiled, report.modules[0]


def top_finding(module):
    """The answer's first finding; fails when the answer has none."""
    answer = module.answer
    assert answer is not None
    assert answer["findings"], "the answer has no finding at all"
    return answer["findings"][0]
