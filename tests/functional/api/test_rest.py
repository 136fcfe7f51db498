"""The real hearth-api over HTTP: tenancy, errors, lookups, limits, shutdown."""

from __future__ import annotations

import subprocess

import jsonschema
import pytest
import requests

from hearth.api import openapi
from tests.functional.api.conftest import TEMPLATE, _start, wait_status


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["X-Auth-Token"] = token
    return session


@pytest.fixture(scope="module")
def stack_a(api_server, tokens):
    """A stack of project A, created and complete."""
    session = _session(tokens["a"])
    base = api_server.url("proj-a")
    response = session.post(f"{base}/stacks", json={"stack_name": "alpha", "template": TEMPLATE,
                                                    "parameters": {"p": "hello"}})
    assert response.status_code == 201, response.text
    location = response.headers["Location"]
    stack = wait_status(lambda: session.get(location).json()["stack"])
    assert stack["stack_status"] == "CREATE_COMPLETE", stack
    return location


def _check_schema(body, name):
    document = openapi.load_document()
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    jsonschema.validate(body, schema, cls=jsonschema.Draft202012Validator)


def test_responses_validate_against_the_openapi_document(api_server, tokens, stack_a):
    session = _session(tokens["a"])
    base = api_server.url("proj-a")
    checks = [(f"{base}/stacks", "StackList"), (stack_a, "Stack"),
              (f"{stack_a}/resources", "ResourceList"), (f"{stack_a}/events", "EventList"),
              (f"{stack_a}/outputs", "OutputList"), (f"{stack_a}/outputs/out1", "Output"),
              (f"{base}/template_versions", "TemplateVersions"),
              (f"{base}/resource_types", "ResourceTypes"), (f"{base}/build_info", "BuildInfo")]
    for url, name in checks:
        response = session.get(url)
        assert response.status_code == 200, (url, response.text)
        assert response.headers["X-Openstack-Request-Id"].startswith("req-")
        _check_schema(response.json(), name)
    response = session.get(f"{base}/stacks/nope/123")
    assert response.status_code == 404
    _check_schema(response.json(), "Error")


def test_tenancy(api_server, tokens, stack_a):
    other = _session(tokens["b"])
    base_b = api_server.url("proj-b")
    assert other.get(f"{base_b}/stacks/alpha").status_code == 404
    assert other.get(f"{base_b}/stacks").json()["stacks"] == []
    stack_id = stack_a.rsplit("/", 1)[1]
    assert other.get(f"{base_b}/stacks/alpha/{stack_id}").status_code == 404
    mismatch = other.get(f"{api_server.url('proj-a')}/stacks")
    assert mismatch.status_code == 403
    assert mismatch.json()["error"]["message"] == (
        "Searching Tenant proj-a from Tenant proj-b forbidden.")
    assert _session("bogus").get(f"{base_b}/stacks").status_code == 401
    plain = _session(tokens["a"]).get(f"{api_server.url('proj-a')}/stacks",
                                      params={"global_tenant": "true"})
    assert plain.status_code == 403
    admin = _session(tokens["admin"]).get(f"{api_server.url('proj-a')}/stacks",
                                          params={"global_tenant": "true"})
    assert admin.status_code == 200


def test_lookup_redirects_keep_subpath_and_query(api_server, tokens, stack_a):
    session = _session(tokens["a"])
    base = api_server.url("proj-a")
    response = session.get(f"{base}/stacks/alpha/resources", params={"nested_depth": "1"},
                           allow_redirects=False)
    assert response.status_code == 302
    assert response.headers["Location"] == f"{stack_a}/resources?nested_depth=1"
    stack_id = stack_a.rsplit("/", 1)[1]
    response = session.get(f"{base}/stacks/{stack_id}", allow_redirects=False)
    assert response.headers["Location"] == stack_a


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "message"), [
    ("get", "/stacks", {"params": {"limit": "abc"}}, 400, "Only integer is acceptable by 'limit'."),
    ("post", "/stacks", {"data": "{not json", "headers": {"Content-Type": "application/json"}},
     400, "The request body is not valid JSON"),
    ("post", "/stacks", {"json": {"stack_name": "x", "template_url": "file:///etc/passwd"}},
     400, "Could not retrieve template: the URL scheme 'file' is not allowed"),
    ("post", "/stacks", {"json": {"stack_name": 5, "template": {}}}, 400,
     "Invalid stack name 5, must be a string"),
    ("post", "/stacks", {"json": {"stack_name": "big", "template": "x" * 1100000}}, 400,
     "Request limit exceeded: JSON body size (1100"),
    ("post", "/stacks", {"json": {"stack_name": "big", "template": "x" * 600000}}, 400,
     "Request limit exceeded: Template size (600000 bytes) exceeds maximum allowed size "
     "(524288 bytes)."),
    ("delete", "/stacks", {}, 405, "The method DELETE is not allowed"),
])
def test_bad_requests_are_4xx_with_reason(api_server, tokens, method, path, kwargs, status,
                                          message):
    response = getattr(_session(tokens["a"]), method)(api_server.url("proj-a") + path, **kwargs)
    assert response.status_code == status, response.text
    assert response.json()["error"]["message"].startswith(message)


def test_unknown_action_and_template_errors(api_server, tokens, stack_a):
    session = _session(tokens["a"])
    response = session.post(f"{stack_a}/actions", json={"explode": None})
    assert response.status_code == 400
    bad = session.post(f"{api_server.url('proj-a')}/stacks",
                       json={"stack_name": "bad", "template": {"resources": {}}})
    assert 400 <= bad.status_code < 500


def test_noauth_server_needs_no_token_and_refuses_public_bind(noauth_server):
    response = requests.get(f"{noauth_server.url('anyone')}/stacks")
    assert response.status_code == 200
    refused = subprocess.run([noauth_server.process.args[0], "--noauth", "--host", "0.0.0.0"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2
    assert "--noauth refuses to listen on 0.0.0.0" in refused.stderr


def test_sigterm_stops_the_server(tmp_path):
    server = _start(str(tmp_path), "--noauth")
    server.process.terminate()
    assert server.process.wait(timeout=30) == 0
