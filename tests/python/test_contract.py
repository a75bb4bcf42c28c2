"""One contract, checked field by field (issue 48: the JSON contract is written in several places).
The JSON Schema (docs/schema/common.schema.json) is the source: the writers are validated against it
on every command (test_json_schema.py); here every field of each finding's object must also be a
field of its Python dataclass (python/hloscope/_findings.py), and be named in docs/json-format.md —
so a field added to the writer and the schema but not to Python or the docs fails here.
"""
import dataclasses
import json
import os

import pytest

import hloscope._findings as findings
from conftest import ROOT

with open(os.path.join(ROOT, "docs", "schema", "common.schema.json")) as f:
    DEFS = json.load(f)["$defs"]
with open(os.path.join(ROOT, "docs", "json-format.md")) as f:
    DOC = f.read()

# schema object -> (Python class, {schema name: Python name} where Python renames a field).
CLASSES = {
    "copy": (findings.Copy, {"class": "copy_class"}),  # `class` is a Python keyword
    "update": (findings.Update, {}),
    "loop": (findings.Loop, {}),
    "carry": (findings.Carry, {}),
    "scaling": (findings.Scaling, {}),
    "collective": (findings.Collective, {}),
    "parameter": (findings.Parameter, {}),
    "position": (findings.Position, {}),
}
# A Ref reads every reference form: plain, with a source, an update's (with its fusion).
REF_FORMS = ("ref", "ref_with_source", "update_ref")


def _fields(cls):
    return {f.name for f in dataclasses.fields(cls)} - {"extra"}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_schema_field_is_a_python_field_and_back(name):
    cls, renamed = CLASSES[name]
    schema = {renamed.get(p, p) for p in DEFS[name]["properties"]}
    python = _fields(cls)
    assert schema - python == set(), f"{name}: in the schema, not in {cls.__name__}"
    assert python - schema == set(), f"{cls.__name__}: not in the schema's {name}"


def test_a_ref_reads_every_reference_form():
    union = set().union(*(DEFS[form]["properties"] for form in REF_FORMS))
    assert union == _fields(findings.Ref)


@pytest.mark.parametrize("name", sorted(CLASSES) + ["spmd", "answer", "violation", "kernel"])
def test_every_schema_field_is_documented(name):
    missing = [p for p in DEFS[name]["properties"] if f"`{p}`" not in DOC and f'"{p}"' not in DOC]
    assert not missing, f"docs/json-format.md does not name {name} fields {missing}"


def test_the_check_can_fail():
    # A field the schema has and Python lacks is seen (the test above is not vacuous).
    cls, renamed = CLASSES["copy"]
    schema = {renamed.get(p, p) for p in DEFS["copy"]["properties"]} | {"a_new_field"}
    assert schema - _fields(cls) == {"a_new_field"}
