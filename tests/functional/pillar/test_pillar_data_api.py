"""Hearth::Pillar::Data through hearth-api over HTTP (a monkey-patched, green-threaded server).

No master is configured, so the pillar is compiled on the API's own host:
only a project ``[api] engine_host_projects`` grants may.  The compile runs
on a real OS thread of the API process; its secret values stay out of the
events, the resource's attributes and the outputs the API answers with.
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
def api(pillar_site, monkeypatch, tmp_path):
    monkeypatch.setenv("HEARTH_CONFIG", str(pillar_site.config))
    grant = tmp_path / "grant.conf"
    grant.write_text("[api]\nengine_host_projects = proj-p\n")
    server = _start(str(pillar_site.home), "--config-file", str(pillar_site.config),
                    "--config-file", str(grant))
    try:
        yield server
    finally:
        _stop(server)


def create_stack(server, project):
    """Create the pillar stack as ``project``; return its final record and the stack URL."""
    url = server.url(project)
    headers = {"X-Auth-Token": create_token(server.env, project)}
    created = requests.post(f"{url}/stacks", headers=headers, timeout=30, json={
        "stack_name": "ps", "template": TEMPLATE})
    assert created.status_code == 201, created.text
    stack = f"{url}/stacks/ps/{created.json()['stack']['id']}"
    for _ in range(600):
        shown = requests.get(stack, headers=headers, timeout=30).json()["stack"]
        if shown["stack_status"] != "CREATE_IN_PROGRESS":
            break
        time.sleep(0.1)
    return shown, stack, headers


def test_a_project_without_the_grant_compiles_no_pillar_here(api):
    shown, _, _ = create_stack(api, "proj-q")
    assert shown["stack_status"] == "CREATE_FAILED"
    reason = shown["stack_status_reason"]
    assert reason.startswith("Resource CREATE failed: JobRefused: resources.")  # either one
    assert reason.endswith(
        ": project proj-q may not compile the pillar of agent db1 on the engine's own host: "
        "running modules on the engine's own host is the local user's right; [api] "
        "engine_host_projects does not grant it to this project.")
    assert "s3cret-db" not in json.dumps(shown)


def test_pillar_data_over_http(api):
    shown, stack, headers = create_stack(api, "proj-p")
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs["db"] == {"host": "db.internal", "password": "******", "port": 5432,
                             "replicas": 2}
    resource = requests.get(f"{stack}/resources/pillar", headers=headers, timeout=30).json()
    events = requests.get(f"{stack}/events", headers=headers, timeout=30).json()
    assert resource["resource"]["attributes"]["data"]["db"]["password"] == "******"
    for answer in (shown, resource, events):
        assert "s3cret-db" not in json.dumps(answer)
