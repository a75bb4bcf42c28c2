"""The collective oracle (tools/collective_oracle.py, code in tools/collective_oracle_lib/).

* its inline self-test passes;
* on every sharded fixture that has a committed collectives.oracle.json, the oracle's output
  today is that file, byte for byte: the expectations the fixtures are checked against stay
  reproducible (tools/gen_sharded_fixtures.py writes them with the same analyze/dumps_report);
* the command line (``--fixtures``) writes the same file.

The oracle runs in-process (all fixtures take well under a second), the command line once.
"""
import glob
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import collective_oracle  # noqa: E402

MODULES = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "fixtures", "sharded-*", "*", "module.hlo.txt"))
                 if os.path.exists(os.path.join(os.path.dirname(p), "collectives.oracle.json")))


def _id(path):
    d = os.path.dirname(path)
    return f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)}"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_self_test_passes(capsys):
    assert collective_oracle.self_test() == 0, capsys.readouterr().out
    assert "collective_oracle self-test: passed" in capsys.readouterr().out


def test_there_are_committed_expectations():
    assert len(MODULES) > 100


@pytest.mark.parametrize("module", MODULES, ids=[_id(p) for p in MODULES])
def test_committed_expectation_is_reproduced(module):
    want = _read(os.path.join(os.path.dirname(module), "collectives.oracle.json"))
    got = collective_oracle.dumps_report(collective_oracle.analyze(_read(module)))
    assert got == want, (f"the oracle no longer reproduces {_id(module)}/collectives.oracle.json: "
                         "run python3 tools/collective_oracle.py --fixtures on it and review the diff")


def test_command_line_writes_the_committed_file(tmp_path):
    module = next((p for p in MODULES if "flat_collectives" in p), MODULES[0])
    dest = tmp_path / "sharded-x" / "fixture"
    dest.mkdir(parents=True)
    shutil.copy(module, dest / "module.hlo.txt")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "collective_oracle.py"), "--fixtures",
                        str(tmp_path / "sharded-x")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "wrote 1 collectives.oracle.json" in r.stderr
    assert (dest / "collectives.oracle.json").read_text(encoding="utf-8") == \
        _read(os.path.join(os.path.dirname(module), "collectives.oracle.json"))
