"""tools/update_golden.py: a thin wrapper that runs tests/analysis/explore_golden_test, which both
compares the golden outputs and (HLOSCOPE_UPDATE_GOLDEN=1) rewrites them. The build folder is the
one holding the CLI (HLOSCOPE_BIN, else build/dev); skipped where the C++ tests are not built."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tools", "update_golden.py")


@pytest.fixture(scope="module")
def build(hloscope_bin):
    folder = os.path.dirname(os.path.dirname(os.path.abspath(hloscope_bin)))  # <build>/src/hloscope
    if not os.path.isfile(os.path.join(folder, "tests", "analysis", "explore_golden_test")):
        pytest.skip(f"explore_golden_test not built in {folder}")
    return folder


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, "--no-build", *args], capture_output=True, text=True,
                          timeout=300)


def test_check_passes_on_the_committed_goldens(build):
    r = run("--build", build, "--check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every golden matches" in r.stdout


def test_check_of_one_case(build):
    r = run("--build", build, "--check", "explain_copy_in_loop")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 test from 1 test suite ran" in r.stdout


def test_an_unknown_case_is_refused(build):
    r = run("--build", build, "--check", "no_such_case")
    assert r.returncode == 2
    assert "no_such_case" in r.stderr


def test_the_old_hloscope_option_names_the_build_folder(build):
    r = run("--hloscope", os.path.join(build, "src", "hloscope"), "--check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_script_has_no_normaliser_of_its_own():
    """The path rule and the file format are the test's (NormalizePaths, Recorded): one copy."""
    with open(SCRIPT, encoding="utf-8") as f:
        text = f.read()
    assert "<ROOT>" not in text and "--- stderr" not in text
