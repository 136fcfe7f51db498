"""Requests the fuzzers found answering 500, each now refused with a 400 and Heat's body.

One test per finding, over real HTTP, so a regression shows by name.
"""

from __future__ import annotations

import pytest
import requests

from tests.functional.api.conftest import create_token

PROJECT = "findings"
TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"a": {"type": "OS::Heat::None"}}}
TOO_BIG = 40282691445081554944  # larger than any database integer


@pytest.fixture(scope="module")
def session(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, PROJECT)
    return session


def _refused(response, message):
    assert response.status_code == 400, response.text
    body = response.json()
    assert set(body) == {"code", "title", "explanation", "error"}
    assert body["error"]["message"] == message


@pytest.mark.parametrize("key", ["limit"])
def test_an_integer_query_too_big_for_the_database(api_server, session, key):
    # schemathesis: GET /stacks?limit=40282691445081554944 -> 500 OverflowError
    response = session.get(f"{api_server.url(PROJECT)}/stacks", params={key: str(TOO_BIG)})
    _refused(response, f"Invalid value for '{key}': {TOO_BIG} is larger than {2**63 - 1}.")


def test_a_timeout_too_big_for_the_database(api_server, session):
    response = session.post(f"{api_server.url(PROJECT)}/stacks",
                            json={"stack_name": "late", "template": TEMPLATE,
                                  "timeout_mins": TOO_BIG})
    _refused(response, f"Invalid value for 'timeout_mins': {TOO_BIG} is larger than "
                       f"{2**63 - 1}.")
    assert session.get(f"{api_server.url(PROJECT)}/stacks/late").status_code == 404
