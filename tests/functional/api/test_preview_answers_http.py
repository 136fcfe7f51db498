"""A create's and an update's preview over real HTTP, in the shape Heat 27.0.1 gives.

The templates and requests are those whose answers real Heat gave
(``heat_answers/previews.json``, recorded with the reference oracle); what
differs between two runs (ids, times, random values, the server's address)
is replaced by a placeholder on both sides before comparing.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
import requests

from tests.functional.api.conftest import wait_status

HEAT = json.loads((pathlib.Path(__file__).parent / "heat_answers/previews.json").read_text())
PREVIEWED = """heat_template_version: 2018-08-31
description: pv
parameters:
  word: {type: string, default: hi}
resources:
  r: {type: OS::Heat::RandomString, properties: {length: 8}}
  v: {type: OS::Heat::Value, properties: {value: {get_attr: [r, value]}}}
outputs:
  o: {value: {get_attr: [v, value]}}
"""
CREATED = """heat_template_version: 2018-08-31
resources:
  r: {type: OS::Heat::RandomString, properties: {length: 8}}
  v: {type: OS::Heat::Value, description: my value, properties: {value: {get_attr: [r, value]}}}
"""
UPDATED = CREATED.replace("length: 8", "length: 9") + "  n: {type: OS::Heat::None}\n"
VOLATILE = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "ID"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "TIME"),
    (re.compile(r"http://127\.0\.0\.1:\d+/v1/\w+"), "BASE"),
    (re.compile(r'"(tenant|OS::project_id)": "\w+"'), r'"\1": "PROJECT"'),
    (re.compile(r"(e1-[a-z]+-)[a-z0-9]{12}"), r"\1PHYSICAL"),
]


def comparable(answer: dict, random_values: tuple[str, ...] = ()) -> str:
    """Return ``answer`` as sorted JSON with what varies between runs replaced."""
    text = json.dumps(answer, sort_keys=True)
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    for value in random_values:
        text = text.replace(f'"{value}"', '"RANDOM"')
    return text


@pytest.fixture(scope="module")
def tenant(noauth_server):
    return noauth_server.url("previews")


def test_a_create_preview_is_heats(tenant):
    answer = requests.post(f"{tenant}/stacks/preview",
                           json={"stack_name": "pv", "template": PREVIEWED}, timeout=30)
    assert answer.status_code == 200, answer.text
    assert comparable(answer.json()) == comparable(HEAT["create_preview"])


def test_an_update_preview_is_heats(tenant):
    created = requests.post(f"{tenant}/stacks", json={"stack_name": "e1", "template": CREATED},
                            timeout=30)
    assert created.status_code == 201, created.text
    stack_url = f"{tenant}/stacks/e1/{created.json()['stack']['id']}"
    wait_status(lambda: requests.get(stack_url, timeout=30).json()["stack"])
    answer = requests.put(f"{stack_url}/preview", json={"template": UPDATED}, timeout=30)
    assert answer.status_code == 200, answer.text
    ours = requests.get(f"{stack_url}/resources/v", timeout=30).json()["resource"]
    heats = HEAT["update_preview"]["resource_changes"]["updated"][0]["attributes"]["value"]
    assert comparable(answer.json(), (ours["attributes"]["value"],)) == comparable(
        HEAT["update_preview"], (heats,))
