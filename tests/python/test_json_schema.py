"""Every command's JSON validates against its JSON Schema (docs/schema/), on every fixture.

The commands run in-process through the extension's run_cli (the CLI's own
code): check (plain, scoped, with gates), stats, fusions, cost, where, annotate,
explain (the module reading and one instruction), memory. The schemas are closed
(additionalProperties: false), so a field the engine adds without
documenting it fails here too.
"""

import glob
import json
import os

import pytest

jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")
hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
from hloscope import _hloscope  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(REPO, "docs", "schema")
COMMANDS = ("check", "stats", "memory", "fusions", "cost", "where", "annotate", "explain", "scopes")


def _registry():
    resources = []
    for path in glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json")):
        with open(path) as f:
            doc = json.load(f)
        resources.append((doc["$id"], referencing.Resource.from_contents(doc)))
    return referencing.Registry().with_resources(resources)


REGISTRY = _registry()


def validator(command):
    with open(os.path.join(SCHEMA_DIR, f"{command}.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=REGISTRY)


VALIDATORS = {c: validator(c) for c in COMMANDS}


def fixture_inputs():
    files = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax/*/module*.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/difftest/*/module.hlo.txt")))
    files += sorted(f for f in glob.glob(os.path.join(REPO, "examples/dumps/*.txt"))
                    if "buffer-assignment" not in f)
    # Sharded compiles on every backend: collectives, spmd, parameters' shardings, gathered updates.
    for name in ("replay_buffer_at_set", "fsdp_train_step_gspmd", "ring_ppermute", "moe_all_to_all"):
        files += sorted(glob.glob(os.path.join(REPO, f"tests/fixtures/sharded-*/{name}/module.hlo.txt")))
    return files


def run(*args):
    code, out, err = _hloscope.run_cli(list(args))
    assert code in (0, 1), f"hloscope {' '.join(args)}: exit {code}\n{err}"
    return json.loads(out)


def validate(command, doc, what):
    errors = sorted(VALIDATORS[command].iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, f"{what}: " + "\n".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])
    assert doc["command"] == command


def program_file(hlo):
    """The fixture program's file name (for `where`), from meta.json when there is one."""
    meta = os.path.join(os.path.dirname(hlo), "meta.json")
    if os.path.exists(meta):
        with open(meta) as f:
            return os.path.basename(json.load(f).get("program_file", "program.py"))
    return "program.py"


@pytest.mark.parametrize("hlo", fixture_inputs(), ids=lambda p: os.path.relpath(p, REPO))
def test_every_command_validates(hlo):
    what = os.path.relpath(hlo, REPO)
    check = run("check", hlo, "--format", "json")
    validate("check", check, what)
    validate("check", run("check", hlo, "--format", "json", "--fail-on-copies-in-loops",
                          "--fail-on-out-of-place", "--fail-on-contradiction", "--max-copies", "0",
                          "--max-copy-bytes", "1", "--max-copies-in-loops", "0",
                          "--max-copy-bytes-in-loops", "1"), what + " (gates)")
    validate("check", run("check", hlo, "--format", "json", "--fail-on", "strict"), what + " (strict)")
    scopes = run("scopes", hlo, "--format", "json")
    validate("scopes", scopes, what)
    # Scoped output, with a scope the module has (an unknown one is an error).
    for s in scopes["modules"][0]["scopes"][:1]:
        validate("check", run("check", hlo, "--format", "json", "--scope", s["path"]), what + " (scope)")
    validate("stats", run("stats", hlo, "--format", "json"), what)
    validate("memory", run("memory", hlo, "--format", "json"), what)
    validate("fusions", run("fusions", hlo, "--format", "json"), what)
    validate("cost", run("cost", hlo, "--format", "json"), what)
    validate("where", run("where", hlo, program_file(hlo), "--format", "json",
                          "--source-root", REPO), what)
    validate("where", run("where", hlo, "nowhere.py:1", "--format", "json"), what + " (nothing)")
    validate("annotate", run("annotate", hlo, "--format", "json", "--source-root", REPO), what)
    validate("explain", run("explain", hlo, "--format", "json"), what)
    m = check["modules"][0]
    for finding in (m["copies"] + m["updates"] + m["loops"])[:3]:
        name = f"{finding['computation']}/{finding['instruction']}"
        validate("explain", run("explain", hlo, name, "--format", "json"), f"{what} explain {name}")


def test_schemas_reject_drift():
    """The schemas can fail: an undocumented field, a wrong enum, a missing field."""
    hlo = os.path.join(REPO, "tests/fixtures/jax/loop_read_after_write/module.hlo.txt")
    doc = run("check", hlo, "--format", "json")
    validate("check", doc, "as printed")
    bad = json.loads(json.dumps(doc))
    bad["modules"][0]["copies"][0]["new_field"] = 1
    assert not VALIDATORS["check"].is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["modules"][0]["copies"][0]["cause"] = "because"
    assert not VALIDATORS["check"].is_valid(bad)
    bad = json.loads(json.dumps(doc))
    del bad["modules"][0]["updates"][0]["runs_on"]
    assert not VALIDATORS["check"].is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["schema_version"] = 1
    assert not VALIDATORS["check"].is_valid(bad)


def test_every_schema_is_documented():
    with open(os.path.join(REPO, "docs", "json-format.md")) as f:
        doc = f.read()
    for command in COMMANDS:
        assert f"docs/schema/{command}.schema.json" in doc, command
