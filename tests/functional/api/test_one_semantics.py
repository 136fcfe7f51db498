"""Defects 1 and 8 of issue 10 on every path: named conditions and get_attr names.

Named conditions decide ``if`` in outputs and properties of a live stack as
they do at validation (Heat: ``{if: [is_dev, a, b]}`` gives ``b`` for
``env: prod``; the nullable two-argument ``if`` drops its list item), after
create, update and in preview.  A ``get_attr`` naming an attribute the
type lacks is refused by validate, preview and create alike, as Heat does.
"""

from __future__ import annotations

import json

import pytest
import requests

from tests.functional import paths

CONDITIONS = {
    "heat_template_version": "2021-04-16",
    "parameters": {"env": {"type": "string", "default": "prod"}},
    "conditions": {"is_dev": {"equals": [{"get_param": "env"}, "dev"]}},
    "resources": {
        "pick": {"type": "OS::Heat::Value", "properties": {"value": {"if": ["is_dev", "a", "b"]}}},
        "items": {"type": "OS::Heat::Value",
                  "properties": {"value": [1, {"if": ["is_dev", 2]}, 3]}},
    },
    "outputs": {
        "choice": {"value": {"if": ["is_dev", "a", "b"]}},
        "pick": {"value": {"get_attr": ["pick", "value"]}},
        "items": {"value": {"get_attr": ["items", "value"]}},
        "listed": {"value": [1, {"if": ["is_dev", 2]}, 3]},
    },
}
PROD = {"choice": "b", "pick": "b", "items": [1, 3], "listed": [1, 3]}
DEV = {"choice": "a", "pick": "a", "items": [1, 2, 3], "listed": [1, 2, 3]}


def bad_attribute(where: str) -> dict:
    """Return a template whose ``get_attr`` names ``nope`` of an OS::Heat::Value."""
    template = {"heat_template_version": "2021-04-16",
                "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "x"}}}}
    if where == "output":
        template["outputs"] = {"bad": {"value": {"get_attr": ["v", "nope"]}}}
    else:
        template["resources"]["w"] = {"type": "OS::Heat::Value",
                                      "properties": {"value": {"get_attr": ["v", "nope"]}}}
    return template


BAD_ATTRIBUTE = {
    "output": "outputs.bad.value: The Referenced Attribute (v nope) is incorrect.",
    "property": "resources.w.properties.value: The Referenced Attribute (v nope) is incorrect.",
}


@pytest.fixture(scope="module")
def http(api_server, tokens):
    session = requests.Session()
    session.headers["X-Auth-Token"] = tokens["a"]
    return paths.Http(session, api_server.url("proj-a"))


@pytest.fixture
def every_path(service, http, tmp_path):
    return [paths.Embedded(service), paths.Stackctl(tmp_path / "home"), http]


@pytest.mark.slow
def test_named_conditions_decide_if_after_create_and_update(every_path):
    embedded, stackctl, http = every_path
    for path in every_path:
        created = path.create(CONDITIONS, {"env": "prod"})
        assert created == {**created, "status": "CREATE_COMPLETE", "outputs": PROD}, path.name
    (stack,) = embedded.service.list_stacks(paths.CTX)
    assert embedded.update(stack["id"], CONDITIONS, {"env": "dev"})["outputs"] == DEV
    (stack,) = json.loads(stackctl.run("stack-list", "--format", "json").stdout)
    assert stackctl.update(stack["stack_name"], CONDITIONS, {"env": "dev"})["outputs"] == DEV
    location = http.create(CONDITIONS, {"env": "prod"})["location"]
    assert http.update(location, CONDITIONS, {"env": "dev"})["outputs"] == DEV


@pytest.mark.parametrize("env, pick, items", [("prod", "b", [1, 3]), ("dev", "a", [1, 2, 3])])
def test_named_conditions_decide_if_in_preview(service, http, env, pick, items):
    for path in (paths.Embedded(service), http):
        preview = path.preview(CONDITIONS, {"env": env})["ok"]
        assert preview["pick"]["value"] == pick, path.name
        assert preview["items"]["value"] == items, path.name


@pytest.mark.parametrize("where", sorted(BAD_ATTRIBUTE))
def test_get_attr_of_an_unknown_attribute_is_refused_on_every_path(service, http, tmp_path,
                                                                   where):
    template = bad_attribute(where)
    embedded, stackctl = paths.Embedded(service), paths.Stackctl(tmp_path / "home")
    answers = {
        ("embedded", "validate"): embedded.validate(template, {}),
        ("embedded", "preview"): embedded.preview(template, {}),
        ("embedded", "create"): embedded.create(template, {}),
        ("stackctl", "validate"): stackctl.validate(template, {}),
        ("http", "validate"): http.validate(template, {}),
        ("http", "preview"): http.preview(template, {}),
        ("http", "create"): http.create(template, {}),
    }
    for key, answer in answers.items():
        assert answer == {"error": BAD_ATTRIBUTE[where]}, key
    assert service.list_stacks(paths.CTX) == []
