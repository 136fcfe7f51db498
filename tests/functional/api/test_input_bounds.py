"""Garbage sent to a real hearth-api: each answer is a 400 saying what is wrong, fast.

Billion-laughs YAML wherever the API reads YAML (template, environment,
environment file, provider template in ``files``), request bodies and
values nested too deeply, a YAML document that contains itself.  After each
attack the server's peak memory has not grown and it still creates a stack.
"""

from __future__ import annotations

import time

import pytest
import requests

from hearth.common.document_bounds import MAX_DEPTH
from tests.functional.api.conftest import create_token, wait_status
from tests.unit.common.test_document_bounds import laughs

PROJECT = "bounds"
SMALL = {"heat_template_version": "2021-04-16",
         "resources": {"a": {"type": "OS::Heat::None"}}}
LAUGHS = laughs(9)  # 9**9 strings in 557 bytes
LAUGHS_TEMPLATE = ("heat_template_version: 2021-04-16\n"
                   "parameters:\n  p:\n    type: json\n    default:\n"
                   + "".join(f"      {line}\n" for line in LAUGHS.splitlines()))
LAUGHS_ENVIRONMENT = "parameter_defaults:\n" + "".join(
    f"  {line}\n" for line in LAUGHS.splitlines())
TOO_DEEP = (f"is nested too deeply (more than {MAX_DEPTH} levels of maps and lists)")


@pytest.fixture(scope="module")
def session(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session


def peak_rss_kib(pid: int) -> int:
    """Return the peak resident memory of a process (VmHWM), in KiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def assert_refused(response: requests.Response, error_type: str, message: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json() == {
        "code": 400, "title": "Bad Request",
        "explanation": "The server could not comply with the request since it is either "
                       "malformed or otherwise incorrect.",
        "error": {"type": error_type, "message": message, "traceback": None}}


def assert_still_serving(api_server, session, name: str) -> None:
    """Create a small stack, see it complete, delete it."""
    base = api_server.url(PROJECT)
    response = session.post(f"{base}/stacks", json={"stack_name": name, "template": SMALL})
    assert response.status_code == 201, response.text
    stack = wait_status(lambda: session.get(f"{base}/stacks/{name}").json()["stack"])
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert session.delete(f"{base}/stacks/{name}/{stack['id']}").status_code == 204


def expanded(where: str) -> str:
    return (f"Request limit exceeded: {where}Template size (%d bytes with its YAML "
            "aliases expanded) exceeds maximum allowed size (524288 bytes).")


@pytest.mark.parametrize(("case", "path", "body", "where"), [
    ("template", "/stacks", {"template": LAUGHS_TEMPLATE}, ""),
    ("validate", "/validate", {"template": LAUGHS_TEMPLATE}, ""),
    ("preview", "/stacks/preview", {"template": LAUGHS_TEMPLATE}, ""),
    ("environment", "/stacks", {"template": SMALL, "environment": LAUGHS_ENVIRONMENT}, ""),
    ("environment file", "/stacks",
     {"template": SMALL, "environment_files": ["env.yaml"],
      "files": {"env.yaml": LAUGHS_ENVIRONMENT}}, "env.yaml: "),
    ("provider template", "/stacks",
     {"template": {"heat_template_version": "2021-04-16",
                   "resources": {"a": {"type": "file:///laughs.yaml"}}},
      "files": {"file:///laughs.yaml": LAUGHS_TEMPLATE}}, "file:///laughs.yaml: "),
])
def test_billion_laughs_is_refused_fast(api_server, session, case, path, body, where):
    name = "laughs-" + case.replace(" ", "-")
    before = peak_rss_kib(api_server.process.pid)
    started = time.monotonic()
    response = session.post(api_server.url(PROJECT) + path, json={"stack_name": name, **body})
    elapsed = time.monotonic() - started
    assert response.status_code == 400, response.text
    size = int(response.json()["error"]["message"].split("(", 1)[1].split()[0])
    assert size > 9 ** 9 * 3
    assert_refused(response, "RequestLimitExceeded", expanded(where) % size)
    assert elapsed < 2.0  # was 42 s (and 2.1 GB) before the bound
    assert peak_rss_kib(api_server.process.pid) - before < 50 * 1024
    assert session.get(f"{api_server.url(PROJECT)}/stacks/{name}").status_code == 404
    assert_still_serving(api_server, session, f"after-{name}")


def test_a_yaml_document_containing_itself_is_refused(api_server, session):
    response = session.post(api_server.url(PROJECT) + "/stacks", json={
        "stack_name": "itself",
        "template": "heat_template_version: 2021-04-16\ndescription: &a [1, *a]\n"})
    assert_refused(response, "StackValidationFailed",
                   "template:2: Error parsing template: a YAML alias refers to a node that "
                   "contains it (the document would be infinite)")
    assert_still_serving(api_server, session, "after-itself")


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(("case", "raw"), [
    ("body", _nested(100_000)),
    ("template map", '{"stack_name": "deep", "template": '
                     + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"),
    ("one level too many", '{"stack_name": "deep", "template": {"heat_template_version": '
                           '"2021-04-16", "description": ' + _nested(MAX_DEPTH - 1) + "}}"),
])
def test_a_body_nested_too_deeply_is_refused(api_server, session, case, raw):
    response = session.post(api_server.url(PROJECT) + "/stacks", data=raw,
                            headers={"Content-Type": "application/json"})
    assert_refused(response, "BadRequest", f"The request body {TOO_DEEP}.")
    assert_still_serving(api_server, session, "after-deep-" + case.replace(" ", "-"))


@pytest.mark.parametrize(("case", "body", "error_type", "message"), [
    ("template past libyaml", {"template": "heat_template_version: 2021-04-16\ndescription: "
                                           + _nested(5000)},
     "StackValidationFailed", f"template:2: Error parsing template: the document {TOO_DEEP}"),
    ("template text", {"template": "heat_template_version: 2021-04-16\ndescription: "
                                   + _nested(MAX_DEPTH)},
     "StackValidationFailed", f"template:2: Error parsing template: the document {TOO_DEEP}"),
    ("json template text", {"template": '{"heat_template_version": "2021-04-16", '
                                        '"description": ' + _nested(900) + "}"},
     "StackValidationFailed", f"Error parsing template: the document {TOO_DEEP}"),
    ("json parameter", {"template": {"heat_template_version": "2021-04-16",
                                     "parameters": {"p": {"type": "json"}},
                                     "resources": {"a": {"type": "OS::Heat::None"}}},
                        "parameters": {"p": _nested(5000)}},
     "InvalidParameterValue", "parameters.p: Parameter 'p' is invalid: Value must be valid "
                              f"JSON: the document {TOO_DEEP}"),
])
def test_a_document_nested_too_deeply_is_refused(api_server, session, case, body,
                                                  error_type, message):
    response = session.post(api_server.url(PROJECT) + "/stacks",
                            json={"stack_name": "deep", **body})
    assert_refused(response, error_type, message)
    assert_still_serving(api_server, session, "after-deep-" + case.replace(" ", "-"))


def test_the_deepest_template_allowed_is_created_and_read_back(api_server, session):
    value = "leaf"
    for _ in range(MAX_DEPTH - 5):  # body, template, resources, v, properties
        value = [value]
    template = {"heat_template_version": "2021-04-16",
                "resources": {"v": {"type": "OS::Heat::Value",
                                    "properties": {"value": value}}},
                "outputs": {"o": {"value": {"get_attr": ["v", "value"]}}}}
    base = api_server.url(PROJECT)
    response = session.post(f"{base}/stacks", json={"stack_name": "deepest",
                                                    "template": template})
    assert response.status_code == 201, response.text
    stack = wait_status(lambda: session.get(f"{base}/stacks/deepest").json()["stack"])
    assert stack["stack_status"] == "CREATE_COMPLETE"
    output = session.get(f"{base}/stacks/deepest/outputs/o").json()["output"]
    assert output["output_value"] == value
    assert session.get(f"{base}/stacks/deepest/template").json() == template
    assert session.delete(f"{base}/stacks/deepest/{stack['id']}").status_code == 204
