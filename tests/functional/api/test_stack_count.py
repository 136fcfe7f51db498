"""``GET /stacks?with_count=true`` counts what the same listing shows, for every selection."""

from __future__ import annotations

import pytest
import requests

from tests.functional.api.conftest import create_token

V = "2021-04-16"
TEMPLATE = {"heat_template_version": V, "resources": {"a": {"type": "OS::Heat::None"}}}


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["X-Auth-Token"] = token
    return session


@pytest.fixture(scope="module")
def tokens(api_server):
    """Tokens of two projects of this module's own (an admin of the first, a user of each)."""
    return {"x": create_token(api_server.env, "count-x"),
            "admin": create_token(api_server.env, "count-x", "--role", "admin"),
            "y": create_token(api_server.env, "count-y")}


@pytest.fixture(scope="module")
def stacks(api_server, tokens):
    """One stack in project count-x (tagged), one in project count-y."""
    for project, token, name, tags in (("count-x", tokens["x"], "count-a", "t1"),
                                       ("count-y", tokens["y"], "count-b", None)):
        body = {"stack_name": name, "template": TEMPLATE, **({"tags": tags} if tags else {})}
        response = _session(token).post(f"{api_server.url(project)}/stacks", json=body)
        assert response.status_code == 201, response.text


@pytest.mark.parametrize("query", [
    {"global_tenant": "true"},
    {"show_hidden": "true"},
    {"global_tenant": "true", "show_hidden": "true", "show_nested": "true"},
    {"global_tenant": "true", "tags": "t1"},
    {"show_deleted": "true", "name": "count-a"},
])
def test_count_matches_the_listing(api_server, tokens, stacks, query):
    session = _session(tokens["admin"])
    response = session.get(f"{api_server.url('count-x')}/stacks",
                           params={**query, "with_count": "true"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["count"] == len(body["stacks"])
    names = {stack["stack_name"] for stack in body["stacks"]}
    if query.get("global_tenant") and "tags" not in query:
        assert {"count-a", "count-b"} <= names
    else:
        assert "count-b" not in names
