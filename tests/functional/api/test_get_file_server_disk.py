"""Heat's ``get_file`` advisory, proved absent over real HTTP: the API never reads its own disk.

A template's ``get_file``, a provider template ``type``, an environment's
``resource_registry`` entry and a ``template_url`` naming a server path
(``/etc/passwd``, ``file:///etc/passwd``, a relative path climbing out) get a
clear answer saying the content is not in the request's ``files``; the
file's content appears in no answer, event or output.
"""

from __future__ import annotations

import json

import pytest
import requests

from tests.functional.api.conftest import create_token, wait_status

PROJECT = "getfile"
PATHS = ["/etc/passwd", "file:///etc/passwd", "../../../../../../etc/passwd"]


@pytest.fixture(scope="module")
def session(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session


@pytest.fixture(scope="module")
def secret() -> str:
    """Return a line of the server's /etc/passwd, which no answer may contain."""
    with open("/etc/passwd", encoding="utf-8") as handle:
        line = handle.readline().strip()
    assert line
    return line


def _stack(session, base: str, name: str, body: dict) -> tuple[requests.Response, str]:
    """Create a stack; return the answer and every later answer about it, as text."""
    response = session.post(f"{base}/stacks", json={"stack_name": name, **body})
    seen = [response.text]
    if response.status_code == 201:
        stack = wait_status(lambda: session.get(f"{base}/stacks/{name}").json()["stack"])
        seen.append(json.dumps(stack))
        for path in ("outputs", "events", "resources", "files", "template"):
            seen.append(session.get(f"{base}/stacks/{name}/{stack['id']}/{path}").text)
        for output in session.get(f"{base}/stacks/{name}/{stack['id']}/outputs").json()[
                "outputs"]:
            seen.append(session.get(f"{base}/stacks/{name}/{stack['id']}/outputs/"
                                    f"{output['output_key']}").text)
        session.delete(f"{base}/stacks/{name}/{stack['id']}")
    return response, "\n".join(seen)


@pytest.mark.parametrize("path", PATHS)
def test_get_file_of_a_server_path_is_an_error_not_the_content(api_server, session, secret,
                                                               path):
    base = api_server.url(PROJECT)
    template = {"heat_template_version": "2021-04-16",
                "resources": {"v": {"type": "OS::Heat::Value",
                                    "properties": {"value": "x"}}},
                "outputs": {"leak": {"value": {"get_file": path}}}}
    name = f"getfile{PATHS.index(path)}"
    response, seen = _stack(session, base, name, {"template": template})
    assert response.status_code == 201, response.text
    assert (f'get_file: No content found in the \\"files\\" section for get_file path: '
            f"{path}") in seen
    assert secret not in seen


@pytest.mark.parametrize("path", PATHS)
def test_a_provider_template_at_a_server_path_is_refused(api_server, session, secret, path):
    base = api_server.url(PROJECT)
    requests_made = [
        {"template": {"heat_template_version": "2021-04-16",
                      "resources": {"n": {"type": path}}}},
        {"template": {"heat_template_version": "2021-04-16",
                      "resources": {"n": {"type": "My::Nested"}}},
         "environment": {"resource_registry": {"My::Nested": path}}},
        {"template_url": path},
    ]
    for number, body in enumerate(requests_made):
        response, seen = _stack(session, base, f"provider{number}", body)
        assert response.status_code == 400, response.text
        assert secret not in seen
        message = response.json()["error"]["message"]
        assert ("could not be found" in message or "is not in the" in message
                or "URL scheme" in message), message
