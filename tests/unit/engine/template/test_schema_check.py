"""The structure checks' JSON Schema evaluator agrees with jsonschema on every error.

Each document is checked by :mod:`hearth.engine.template.schema_check` and by
jsonschema's Draft 2020-12 validator against the same schemas (every template
version's and the environment's); the errors must be the same keywords at
the same places, about the same instances.
"""

import pathlib

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.engine.template import environment_structure, parser, structure, versions
from hearth.engine.template.schema_check import iter_errors

ROOT = pathlib.Path(__file__).parents[4]
CORPUS = sorted((ROOT / "templates").rglob("*.yaml"))


def summary(errors):
    return sorted((e.validator, [str(step) for step in e.absolute_path], repr(e.instance),
                   repr(e.validator_value)) for e in errors)


def assert_agree(document, schema):
    ours = summary(iter_errors(document, schema))
    theirs = summary(jsonschema.Draft202012Validator(schema).iter_errors(document))
    assert ours == theirs


SCHEMAS = [structure.build_schema(v) for v in versions.all_versions()]


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_the_corpus(path):
    try:
        document = parser.parse(path.read_text(), str(path))
    except Exception:  # noqa: BLE001 - a file the parser refuses has no structure to check
        pytest.skip("not parsed")
    for schema in (*SCHEMAS, environment_structure.ENVIRONMENT_SCHEMA):
        assert_agree(document, schema)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2),
                    st.sampled_from(["Delete", "Retain", "string", "json", "x", ""]))
KEYS = st.sampled_from(["type", "properties", "depends_on", "deletion_policy", "value",
                        "description", "resources", "outputs", "parameters", "conditions",
                        "heat_template_version", "parameter_groups", "constraints", "tags",
                        "label", "hidden", "resource_registry", "event_sinks", "x", 1])
DOCUMENTS = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, DOCUMENTS, max_size=5))
def test_generated_documents(document):
    for schema in (SCHEMAS[-1], environment_structure.ENVIRONMENT_SCHEMA):
        assert_agree(document, schema)


def test_an_unknown_keyword_is_refused():
    with pytest.raises(ValueError, match="'oneOf' is not supported"):
        list(iter_errors(1, {"oneOf": [{"type": "string"}]}))
