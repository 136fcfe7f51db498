"""Hypothesis-mutated composition documents against a real hearth-api: never a 5xx.

The documents are parents of nested stacks (``OS::Heat::Stack``,
``OS::Heat::ResourceGroup``, ``OS::Heat::ResourceChain``, provider templates
by file and by the environment's ``resource_registry``) with their ``files``
maps.  One to three mutations hit the parent, a nested template (its text
replaced by a mutated document, a value of the wrong kind, or text that is
not YAML), the ``files`` map (an entry dropped, a key or the map itself of
the wrong kind) or the registry.  Each goes to ``/validate``,
``/stacks/preview`` and ``POST /stacks``: every answer is a success or a 4xx
with Heat's error body, and a created stack reaches an end state and is
deleted.  Derandomized and bounded; hunt with ``HEARTH_FUZZ_RANDOM=1
HEARTH_FUZZ_EXAMPLES=500``.
"""

from __future__ import annotations

import os
import time

import pytest
import requests
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.functional.api.conftest import create_token
from tests.functional.api.test_fuzz_templates import _check as _heat_body
from tests.functional.api.test_fuzz_templates import _mutate, _paths, replacements

PROJECT = "fuzz-composition"
CHILD_URL = "file:///t/child.yaml"
CHILD = {
    "heat_template_version": "2021-04-16",
    "parameters": {"greeting": {"type": "string", "default": "hi"},
                   "secret": {"type": "string", "default": "s", "hidden": True}},
    "conditions": {"loud": {"equals": [{"get_param": "greeting"}, "HI"]}},
    "resources": {"word": {"type": "OS::Heat::Value",
                           "properties": {"value": {"get_param": "greeting"}}},
                  "shout": {"type": "OS::Heat::Value", "condition": "loud",
                            "properties": {"value": "!"}}},
    "outputs": {"said": {"value": {"get_attr": ["word", "value"]}},
                "OS::stack_id": {"value": {"get_resource": "word"}}},
}
PARENT = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "by_file": {"type": CHILD_URL, "properties": {"greeting": "a"}},
        "by_type": {"type": "My::Child", "properties": {"greeting": "HI"}},
        "stack": {"type": "OS::Heat::Stack",
                  "properties": {"template": {"get_file": CHILD_URL},
                                 "parameters": {"greeting": "b"}}},
        "group": {"type": "OS::Heat::ResourceGroup",
                  "properties": {"count": 2, "resource_def": {
                      "type": "My::Child", "properties": {"greeting": "g%index%"}}}},
        "chain": {"type": "OS::Heat::ResourceChain",
                  "properties": {"resources": ["OS::Heat::None", "My::Child"],
                                 "concurrent": False}},
    },
    "outputs": {"said": {"value": {"get_attr": ["by_file", "said"]}},
                "member": {"value": {"get_attr": ["group", "resource.0.said"]}},
                "refs": {"value": {"get_attr": ["group", "refs"]}},
                "inner": {"value": {"get_attr": ["stack", "outputs", "said"]}},
                "chained": {"value": {"get_attr": ["chain", "resource.1"]}}},
}
REGISTRY = {"resource_registry": {"My::Child": CHILD_URL}}
TYPES = ["OS::Heat::Stack", "OS::Heat::ResourceGroup", "OS::Heat::ResourceChain",
         CHILD_URL, "file:///t/absent.yaml", "My::Child", "My::Absent", "child.yaml"]


def _check(response, where):
    """A success, or a 4xx with Heat's error body and no traceback in it."""
    _heat_body(response, where)
    if response.status_code >= 400:
        assert not response.json()["error"]["traceback"], (where, response.text)
        assert "Traceback" not in response.text, (where, response.text)


def _all_paths(document):
    return [path for path in _paths(document) if path]


@st.composite
def mutated_children(draw):
    """Return the text of a nested template: mutated, of the wrong kind, or not YAML."""
    kind = draw(st.sampled_from(["mutated", "value", "text"]))
    if kind == "value":
        return draw(replacements)
    if kind == "text":
        return draw(st.sampled_from(["{", "resources: [", "heat_template_version: 1\n",
                                     "- a\n- b\n", "", "\t:"]))
    document = _mutate(CHILD, draw(st.sampled_from(_all_paths(CHILD))), draw(replacements))
    return yaml.safe_dump(document)


@st.composite
def composition_requests(draw):
    """Return a request body (template, files, environment) with one to three mutations."""
    body = {"template": PARENT, "files": {CHILD_URL: yaml.safe_dump(CHILD)},
            "environment": REGISTRY}
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["template", "template", "type", "child", "files",
                                      "environment"]))
        if where == "template":
            path = draw(st.sampled_from(_all_paths(body["template"])))
            body = {**body, "template": _mutate(body["template"], path, draw(replacements))}
        elif where == "type":
            name = draw(st.sampled_from(sorted(PARENT["resources"])))
            try:
                body = {**body, "template": _mutate(
                    body["template"], ("resources", name, "type"), draw(st.sampled_from(TYPES)))}
            except (TypeError, KeyError, IndexError):
                pass  # an earlier mutation took that resource away
        elif where == "child":
            files = body["files"] if isinstance(body["files"], dict) else {}
            body = {**body, "files": {**files, CHILD_URL: draw(mutated_children())}}
        elif where == "files":
            body = {**body, "files": draw(st.one_of(
                st.just({}), replacements,
                st.dictionaries(st.sampled_from([CHILD_URL, "", "child.yaml"]), replacements,
                                max_size=2)))}
        else:
            body = {**body, "environment": draw(st.one_of(
                st.just({}), replacements,
                st.builds(lambda value: {"resource_registry": {"My::Child": value}},
                          st.one_of(replacements, st.sampled_from(TYPES)))))}
    return body


@pytest.fixture(scope="module")
def client(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session, api_server.url(PROJECT)


def _settle(session, location):
    """Wait for a created stack's end state (never stuck IN_PROGRESS); delete it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = session.get(location).json()["stack"]["stack_status"]
        if not status.endswith("IN_PROGRESS"):
            break
        time.sleep(0.05)
    assert not status.endswith("IN_PROGRESS"), (location, status)
    _check(session.delete(location), "delete")
    while time.monotonic() < deadline + 60:
        response = session.get(location)
        if response.status_code == 404 or not response.json()["stack"][
                "stack_status"].endswith("IN_PROGRESS"):
            break
        time.sleep(0.05)


def test_the_base_document_is_created(client):
    session, base = client
    response = session.post(f"{base}/stacks", json={
        "template": PARENT, "files": {CHILD_URL: yaml.safe_dump(CHILD)},
        "environment": REGISTRY, "stack_name": "base"})
    assert response.status_code == 201, response.text
    location = response.headers["Location"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stack = session.get(location).json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            break
        time.sleep(0.05)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    outputs = {item["output_key"]: item.get("output_value") for item in stack["outputs"]}
    assert outputs["said"] == "a" and outputs["member"] == "g0" and outputs["inner"] == "b"
    _settle(session, location)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("HEARTH_FUZZ_EXAMPLES", "30")), deadline=None,
          derandomize=not os.environ.get("HEARTH_FUZZ_RANDOM"), database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=composition_requests(), as_text=st.booleans())
def test_mutated_compositions_are_refused_with_a_4xx(client, body, as_text):
    session, base = client
    if as_text:
        body = {**body, "template": yaml.safe_dump(body["template"])}
    _check(session.post(f"{base}/validate", json=body), "validate")
    _check(session.post(f"{base}/stacks/preview", json={**body, "stack_name": "pv"}),
           "preview")
    created = session.post(f"{base}/stacks", json={**body, "stack_name": "fuzzed"})
    _check(created, "create")
    if created.status_code == 201:
        _settle(session, created.headers["Location"])
