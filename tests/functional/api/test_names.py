"""Stack and resource names over real HTTP: Heat's rule, Heat's answer, nothing stored.

Expected bodies are real Heat 27.0.1's answers to the same requests.
"""

from __future__ import annotations

import time

import pytest
import requests

from tests.functional.api.conftest import create_token, wait_status

PROJECT = "names"
TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"a": {"type": "OS::Heat::None"}}}
RULE = ('must contain only alphanumeric or "_-." characters, must start with alpha and must '
        "be 255 characters or less.")


@pytest.fixture(scope="module")
def session(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session


def _refused(response: requests.Response, message: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["error"] == {"type": "StackValidationFailed", "message": message,
                                        "traceback": None}


@pytest.mark.parametrize("name", [
    "../../x", "a\x00b", "x" * 256, "x" * 10_000, "1abc", "a b", "", "é", "a/b", "a%2Fb",
    "abc\n",  # Heat's pattern lets a final newline through ($); Hearth does not
    "-x", "_x", ".x", "x;rm -rf /",
])
@pytest.mark.parametrize("path", ["/stacks", "/stacks/preview"])
def test_a_bad_stack_name_is_refused_and_nothing_is_stored(api_server, session, name, path):
    base = api_server.url(PROJECT)
    response = session.post(base + path, json={"stack_name": name, "template": TEMPLATE})
    _refused(response, f"Invalid stack name {name} {RULE}")
    listed = session.get(f"{base}/stacks").json()["stacks"]
    assert name not in [stack["stack_name"] for stack in listed]


@pytest.mark.parametrize("name", [5, None, ["a"], {"a": 1}, True])
def test_a_stack_name_that_is_not_a_string_is_refused(api_server, session, name):
    response = session.post(api_server.url(PROJECT) + "/stacks",
                            json={"stack_name": name, "template": TEMPLATE})
    _refused(response, f"Invalid stack name {name}, must be a string")


@pytest.mark.parametrize("name", ["x" * 255, "a", "Z9_.-z", "a..b"])
def test_a_good_stack_name_is_created_shown_and_deleted(api_server, session, name):
    base = api_server.url(PROJECT)
    response = session.post(f"{base}/stacks", json={"stack_name": name, "template": TEMPLATE})
    assert response.status_code == 201, response.text
    stack = wait_status(lambda: session.get(f"{base}/stacks/{name}").json()["stack"])
    assert (stack["stack_name"], stack["stack_status"]) == (name, "CREATE_COMPLETE")
    assert session.delete(f"{base}/stacks/{name}/{stack['id']}").status_code == 204
    deadline = time.monotonic() + 30
    while session.get(f"{base}/stacks/{name}").status_code != 404:
        assert time.monotonic() < deadline, f"stack {name} still there after its delete"
        time.sleep(0.05)


@pytest.mark.parametrize("name", ["a/b", "../x", "/"])
def test_a_resource_name_with_a_slash_is_refused(api_server, session, name):
    template = {"heat_template_version": "2021-04-16",
                "resources": {name: {"type": "OS::Heat::None"}}}
    base = api_server.url(PROJECT)
    for path in ("/stacks", "/validate"):
        response = session.post(base + path, json={"stack_name": "slash", "template": template})
        _refused(response, f'resources.{name}: Resource name may not contain "/"')
    assert session.get(f"{base}/stacks/slash").status_code == 404


@pytest.mark.parametrize("name", ["a b", "1", "é", "x" * 300, "a.b-c_d"])
def test_resource_names_heat_accepts_are_accepted(api_server, session, name):
    template = {"heat_template_version": "2021-04-16",
                "resources": {name: {"type": "OS::Heat::None"}}}
    response = session.post(api_server.url(PROJECT) + "/validate", json={"template": template})
    assert response.status_code == 200, response.text


def test_a_resource_name_with_a_nul_character_is_refused(api_server, session):
    # Heat takes it; Hearth stores the name in a text column, which PostgreSQL refuses
    # to hold U+0000 in (the stack failed with "Internal error").
    template = {"heat_template_version": "2021-04-16",
                "resources": {"a\x00b": {"type": "OS::Heat::None"}}}
    response = session.post(api_server.url(PROJECT) + "/stacks",
                            json={"stack_name": "nul", "template": template})
    _refused(response, "resources.a\x00b: Resource name may not contain a NUL character "
                       "(U+0000)")


@pytest.mark.parametrize("tags", ["ok,a\x00b", ["ok", "a\x00b"]])
def test_a_tag_with_a_nul_character_is_refused(api_server, session, tags):
    # PostgreSQL refused the tag's row: a 500 (ValueError) before
    response = session.post(api_server.url(PROJECT) + "/stacks",
                            json={"stack_name": "nultag", "template": TEMPLATE, "tags": tags})
    assert response.status_code == 400, response.text
    assert response.json()["error"] == {
        "type": "BadRequest", "traceback": None,
        "message": f'Invalid tag, "{tags if isinstance(tags, str) else tags[1]}": a tag may '
                   "not contain a NUL character"}
    assert session.get(api_server.url(PROJECT) + "/stacks/nultag").status_code == 404
