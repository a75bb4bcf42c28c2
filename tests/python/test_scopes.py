"""`hloscope scopes --format json` validates against docs/schema/scopes.schema.json on every fixture, and
its scopes are exactly the ones `--scope` accepts."""
import glob
import json
import os

import pytest

jsonschema = pytest.importorskip("jsonschema")
hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")
from hloscope import _hloscope  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax/*/module.hlo.txt")))


@pytest.fixture(scope="module")
def validator():
    with open(os.path.join(REPO, "docs", "schema", "scopes.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_scopes_json_and_every_listed_scope_selects(path, validator):
    code, out, err = _hloscope.run_cli(["scopes", path, "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    errors = list(validator.iter_errors(doc))
    assert not errors, errors[0].message
    for s in doc["modules"][0]["scopes"]:
        code, _, err = _hloscope.run_cli(["check", path, "--scope", s["path"], "--format", "json"])
        assert code == 0, f"--scope {s['path']}: {err}"


def test_an_unknown_scope_is_an_error_in_python_too():
    # As `hloscope check --scope` exits 2 with the closest scopes, the package raises instead of
    # returning an empty SARIF log, page or kernel list.
    report = hloscope.analyze(os.path.join(REPO, "tests/fixtures/jax/scoped_train_step/module.hlo.txt"))
    for call in (lambda: report.to_sarif(scope="grad_stpe"), lambda: report.to_html(scope="grad_stpe")):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith("no instruction lies in scope 'grad_stpe' (closest: grad_step")
        assert "`hloscope scopes " in str(e.value)
    assert "grad_step" in report.to_html(scope="grad_step")  # a scope that exists still works
