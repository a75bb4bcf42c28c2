"""The README's sample output is what hloscope prints today."""
import os
import subprocess
import sys

from conftest import ROOT


def test_readme_sample_is_current(hloscope_bin):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "regen_readme.py"),
                        "--hloscope", hloscope_bin, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_check_exit_codes(hloscope_bin):
    example = os.path.join(ROOT, "examples", "dumps", "replay_rollout.cpu_after_optimizations.txt")
    ok = subprocess.run([hloscope_bin, "check", example], capture_output=True, text=True)
    assert ok.returncode == 0
    bad = subprocess.run([hloscope_bin, "check", example, "--fail-on-copies-in-loops"],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stderr.startswith("hloscope: check failed: 2 problems\n")
    assert ("copy.7 f32[16384,128]{1,0} inside while.2 moves 8.0 MiB × 1000 = 7.8 GiB per call "
            "at dumps/make_dumps.py:32 — read-after-update") in bad.stderr
    budget = subprocess.run([hloscope_bin, "check", example, "--max-copy-bytes", "1000000"],
                            capture_output=True, text=True)
    assert budget.returncode == 1
    missing = subprocess.run([hloscope_bin, "check", "/nonexistent.txt"], capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.startswith("/nonexistent.txt: error: cannot open file")


def test_parse_error_has_caret_and_exit_2(hloscope_bin, tmp_path):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\n\nENTRY %e {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%q)\n}\n")
    r = subprocess.run([hloscope_bin, "check", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr == (f"{bad}:5:30: error: use of undefined instruction 'q' in computation 'e'\n"
                        "  ROOT %n = f32[4]{0} negate(%q)\n"
                        "                             ^\n")
