"""Hypothesis-mutated templates and environments against a real hearth-api: never a 5xx.

A valid template is mutated structurally (a section, a definition, a key or
a function's arguments replaced by a value of the wrong kind, a null, a
number where a map goes, an unknown function, a broken environment) and
sent, as JSON or as YAML text, to ``/validate``, ``/stacks/preview`` and
``POST /stacks``.  Every answer is a success or a 4xx with Heat's error
body; a created stack is deleted again.  Derandomized and bounded in the
suite; hunt with ``HEARTH_FUZZ_RANDOM=1 HEARTH_FUZZ_EXAMPLES=1000``.
"""

from __future__ import annotations

import copy
import os

import pytest
import requests
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.functional.api.conftest import create_token

PROJECT = "fuzz-templates"
BASE = {
    "heat_template_version": "2021-04-16",
    "description": "fuzz base",
    "parameters": {"p": {"type": "string", "default": "x"},
                   "n": {"type": "number", "default": 1,
                         "constraints": [{"range": {"min": 0, "max": 10}}]}},
    "conditions": {"c": {"equals": [{"get_param": "p"}, "x"]}},
    "resources": {
        "a": {"type": "OS::Heat::None", "properties": {"k": {"get_param": "p"}}},
        "v": {"type": "OS::Heat::Value", "condition": "c", "depends_on": ["a"],
              "properties": {"value": {"str_replace": {"template": "t-$x",
                                                       "params": {"$x": {"get_param": "p"}}}}}},
    },
    "outputs": {"o": {"value": {"get_attr": ["v", "value"]}},
                "r": {"value": {"list_join": [",", [{"get_resource": "a"}, "z"]]}}},
}
FUNCTIONS = ["get_param", "get_attr", "get_resource", "str_replace", "list_join", "if",
             "equals", "not", "and", "or", "repeat", "map_merge", "yaql", "digest",
             "str_split", "map_replace", "contains", "make_url", "filter", "get_file",
             "Fn::Select", "no_such_function"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
wrong_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6)
functions = st.builds(lambda name, args: {name: args}, st.sampled_from(FUNCTIONS), wrong_values)
replacements = st.one_of(wrong_values, functions)


def _paths(node, path=()):
    """Yield every path of the document (a key of a map or an index of a list)."""
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*path, index))


ALL_PATHS = [path for path in _paths(BASE) if path]


def _mutate(document, path, value):
    mutated = copy.deepcopy(document)
    node = mutated
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return mutated


@st.composite
def mutated_templates(draw):
    """Return a template with one to three structural mutations."""
    document = BASE
    for _ in range(draw(st.integers(1, 3))):
        paths = [path for path in _paths(document) if path]
        document = _mutate(document, draw(st.sampled_from(paths)), draw(replacements))
    return document


environments = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(["parameters", "parameter_defaults", "resource_registry",
                                     "encrypted_param_names", "event_sinks",
                                     "parameter_merge_strategies", "bogus"]),
                    wrong_values, max_size=3),
    st.builds(lambda value: {"resource_registry": {"resources": {"a": value}}}, wrong_values),
    st.builds(lambda value: {"parameters": {"p": value}}, wrong_values),
)


@pytest.fixture(scope="module")
def client(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session, api_server.url(PROJECT)


def _check(response, where):
    assert response.status_code < 500, (where, response.status_code, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"code", "title", "explanation", "error"}, (where, body)
        assert set(body["error"]) == {"type", "message", "traceback"}, (where, body)
        assert body["code"] == response.status_code and body["error"]["message"], (where, body)


def test_the_base_template_is_valid(client):
    session, base = client
    response = session.post(f"{base}/validate", json={"template": BASE})
    assert response.status_code == 200, response.text


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("HEARTH_FUZZ_EXAMPLES", "40")), deadline=None,
          derandomize=not os.environ.get("HEARTH_FUZZ_RANDOM"), database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(template=mutated_templates(), environment=environments, as_text=st.booleans())
def test_mutated_templates_are_refused_with_a_4xx(client, template, environment, as_text):
    session, base = client
    body = {"template": yaml.safe_dump(template) if as_text else template}
    if environment is not None:
        body["environment"] = environment
    _check(session.post(f"{base}/validate", json=body), "validate")
    _check(session.post(f"{base}/stacks/preview", json={**body, "stack_name": "pv"}), "preview")
    created = session.post(f"{base}/stacks", json={**body, "stack_name": "fuzzed"})
    _check(created, "create")
    if created.status_code == 201:
        location = created.headers["Location"]
        _check(session.delete(location), "delete")
        for _ in range(200):
            if session.get(location).json()["stack"]["stack_status"] != "DELETE_IN_PROGRESS":
                break
