"""Hearth::Pillar::Data through hearth-api over HTTP (a monkey-patched, green-threaded server).

The compile runs on a real OS thread of the API process; its secret values
stay out of the events, the resource's attributes and the outputs the API
answers with.
"""

from __future__ import annotations

import json
import time

import pytest
import requests

from tests.functional.api.conftest import _start, _stop, create_token
from tests.functional.pillar.test_pillar_data_stack import TEMPLATE

pytestmark = pytest.mark.slow


@pytest.fixture
def api(pillar_site, monkeypatch):
    monkeypatch.setenv("HEARTH_CONFIG", str(pillar_site.config))
    server = _start(str(pillar_site.home))
    try:
        yield server, create_token(server.env, "proj-p")
    finally:
        _stop(server)


def test_pillar_data_over_http(api):
    server, token = api
    url = server.url("proj-p")
    headers = {"X-Auth-Token": token}
    created = requests.post(f"{url}/stacks", headers=headers, timeout=30, json={
        "stack_name": "ps", "template": TEMPLATE})
    assert created.status_code == 201, created.text
    stack = f"{url}/stacks/ps/{created.json()['stack']['id']}"
    for _ in range(600):
        shown = requests.get(stack, headers=headers, timeout=30).json()["stack"]
        if shown["stack_status"] != "CREATE_IN_PROGRESS":
            break
        time.sleep(0.1)
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs["db"] == {"host": "db.internal", "password": "******", "port": 5432,
                             "replicas": 2}
    resource = requests.get(f"{stack}/resources/pillar", headers=headers, timeout=30).json()
    events = requests.get(f"{stack}/events", headers=headers, timeout=30).json()
    assert resource["resource"]["attributes"]["data"]["db"]["password"] == "******"
    for answer in (shown, resource, events):
        assert "s3cret-db" not in json.dumps(answer)
