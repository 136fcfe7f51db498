"""hearth-api takes and refuses the request bodies and query strings real Heat does.

Each case of ``request_cases.yaml`` goes to a hearth-api over HTTP exactly as
it went to real Heat 27.0.1; the status, and for an accepted action the stack
it left (status, tags, disable_rollback, timeout_mins, parameter), must be
Heat's (``heat_answers/requests.json``), unless the case says where and why
Hearth answers otherwise (Heat's own 500s, mostly).  Clients send null for
every option they leave unset (python-heatclient: ``"tags": null``,
``"environment_files": null``), strings for booleans and numbers.
"""

from __future__ import annotations

import pytest

from tests.functional.api import request_cases

TEMPLATE, CASES = request_cases.load_cases()
HEAT = request_cases.load_answers()


@pytest.fixture(scope="module")
def endpoint(noauth_server):
    return request_cases.Endpoint(noauth_server.url("admin"))


def expected(case: dict) -> dict:
    """Return what Hearth must answer: Heat's answer, or the case's own where it differs."""
    heat = HEAT[case["id"]]
    override = case.get("hearth", {})
    return {"status": override.get("status", heat["status"]),
            "after": override.get("after", heat["after"])}


def test_every_case_has_heat_answer():
    assert sorted(HEAT) == sorted(case["id"] for case in CASES)


def test_every_deviation_says_why():
    for case in CASES:
        if "hearth" in case:
            assert case["hearth"].get("why"), case["id"]
            assert HEAT[case["id"]]["status"] >= 500 or "after" in case["hearth"] \
                or case["hearth"]["status"] != HEAT[case["id"]]["status"], case["id"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_answer_as_heat(endpoint, case):
    answer = endpoint.send(case, TEMPLATE)
    want = expected(case)
    assert answer["status"] < 500, answer
    assert (answer["status"], answer["after"]) == (want["status"], want["after"]), answer
    if answer["status"] >= 400:
        assert answer["message"], answer
