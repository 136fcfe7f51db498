"""Malformed templates and environments over HTTP: one answer on every path.

``/validate``, ``/stacks/preview``, ``POST /stacks``, ``PUT`` and
``PUT .../preview`` of a stack all check the template's and the
environment's structure before anything uses them: each refusal is a 400
with Heat's error body and the same message on every path, never a 5xx.
"""

from __future__ import annotations

import pytest
import requests

from tests.functional.api.conftest import create_token, wait_status

V = "2021-04-16"
GOOD = {"heat_template_version": V, "resources": {"a": {"type": "OS::Heat::None"}}}

#: (template, environment, the message every path answers)
MALFORMED = [
    ({"heat_template_version": V, "resources": {"a": "text"}}, None,
     '''resources.a: "resources" must contain a map of resource maps. Found a '''
     '''[<class 'str'>] instead'''),
    ({"heat_template_version": V, "resources": {"a": 3}}, None,
     '''resources.a: "resources" must contain a map of resource maps. Found a '''
     '''[<class 'int'>] instead'''),
    ({"heat_template_version": V, "resources": {"a": None}}, None,
     '''resources.a: "resources" must contain a map of resource maps. Found a '''
     '''[<class 'NoneType'>] instead'''),
    ({"heat_template_version": V, "resources": {"a": {"type": {"x": 1}}}}, None,
     "resources.a.type: Resource a type type must be string"),
    ({"heat_template_version": V, "resources": {"a": {"type": "OS::Heat::None",
                                                      "depends_on": 3}}}, None,
     "resources.a.depends_on: Resource a depends_on type must be list or string"),
    ({"heat_template_version": V, "parameters": {"p": "text"}}, None,
     "parameters.p: Invalid parameter (p), expected a mapping"),
    ({"heat_template_version": V, "parameters": 5}, None,
     'parameters: the "parameters" section must be a map, not a number'),
    ({"heat_template_version": V, "outputs": {"o": 1}}, None,
     "outputs.o: Output definitions must be a map. Found a int instead"),
    (GOOD, {"parameters": "text"}, "parameters: must be a map, not a string"),
    (GOOD, {"parameter_merge_strategies": [1]},
     "parameter_merge_strategies: must be a map, not a list"),
    (GOOD, {"encrypted_param_names": 3}, "encrypted_param_names: must be a list, not a number"),
    (GOOD, {"resource_registry": {"resources": {"a": {"hooks": {"x": 1}}}}},
     "resource_registry.resources.a.hooks: must be a string or a list or null, not a map"),
]


@pytest.fixture(scope="module")
def session(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, "malformed")
    return session


@pytest.fixture(scope="module")
def target(api_server, session):
    """A complete stack to update."""
    base = api_server.url("malformed")
    response = session.post(f"{base}/stacks", json={"stack_name": "malformed-target",
                                                    "template": GOOD})
    assert response.status_code == 201, response.text
    location = response.headers["Location"]
    assert wait_status(lambda: session.get(location).json()["stack"])["stack_status"] == \
        "CREATE_COMPLETE"
    return location


def _answers(session, base, location, body):
    yield "validate", session.post(f"{base}/validate", json=body)
    yield "preview", session.post(f"{base}/stacks/preview", json={**body, "stack_name": "pv"})
    yield "create", session.post(f"{base}/stacks", json={**body, "stack_name": "never"})
    yield "update", session.put(location, json=body)
    yield "update preview", session.put(f"{location}/preview", json=body)


@pytest.mark.parametrize("template, environment, message", MALFORMED)
def test_every_path_refuses_with_the_same_400(api_server, session, target, template,
                                              environment, message):
    base = api_server.url("malformed")
    body = {"template": template}
    if environment is not None:
        body["environment"] = environment
    for path, response in _answers(session, base, target, body):
        assert response.status_code == 400, (path, response.text)
        error = response.json()
        assert set(error) == {"code", "title", "explanation", "error"}, (path, error)
        assert set(error["error"]) == {"type", "message", "traceback"}, (path, error)
        assert error["code"] == 400 and error["title"] == "Bad Request", (path, error)
        assert error["error"]["message"] == message, path
    assert session.get(f"{base}/stacks/never").status_code == 404
    stack = session.get(target).json()["stack"]
    assert (stack["stack_status"], stack["stack_name"]) == ("CREATE_COMPLETE",
                                                            "malformed-target")
